//! The `h3_server` target: harness/h3_server.rs (shared with the regression tests that replay
//! fuzz/corpus/h3_server and fuzz/regressions/h3_server; see fuzz/README.md).
#![no_main]

#[path = "../harness/h3_server.rs"]
mod harness;
#[path = "../harness/split.rs"]
mod split;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));

//! The `h2_server` target: harness/h2_server.rs (shared with the regression tests that replay
//! fuzz/corpus/h2_server and fuzz/regressions/h2_server; see fuzz/README.md).
#![no_main]

#[path = "../harness/h2_server.rs"]
mod harness;
#[path = "../harness/split.rs"]
mod split;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));

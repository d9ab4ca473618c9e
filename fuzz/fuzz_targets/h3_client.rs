//! The `h3_client` target: harness/h3_client.rs (shared with the regression tests that replay
//! fuzz/corpus/h3_client and fuzz/regressions/h3_client; see fuzz/README.md).
#![no_main]

#[path = "../harness/h3_client.rs"]
mod harness;
#[path = "../harness/split.rs"]
mod split;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));

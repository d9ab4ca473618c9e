//! The `h2_client` target: harness/h2_client.rs (shared with the regression tests that replay
//! fuzz/corpus/h2_client and fuzz/regressions/h2_client; see fuzz/README.md).
#![no_main]

#[path = "../harness/h2_client.rs"]
mod harness;
#[path = "../harness/split.rs"]
mod split;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));

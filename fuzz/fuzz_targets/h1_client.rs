//! The `h1_client` target: harness/h1_client.rs (shared with the regression tests that replay
//! fuzz/corpus/h1_client and fuzz/regressions/h1_client; see fuzz/README.md).
#![no_main]

#[path = "../harness/h1_client.rs"]
mod harness;
#[path = "../harness/split.rs"]
mod split;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));

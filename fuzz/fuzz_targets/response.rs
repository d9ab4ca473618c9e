//! The `response` target: harness/response.rs (shared with the regression tests that replay
//! fuzz/corpus/response and fuzz/regressions/response; see fuzz/README.md).
#![no_main]

#[path = "../harness/response.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));

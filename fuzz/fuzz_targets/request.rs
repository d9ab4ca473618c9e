//! The `request` target: harness/request.rs (shared with the regression tests that replay
//! fuzz/corpus/request and fuzz/regressions/request; see fuzz/README.md).
#![no_main]

#[path = "../harness/request.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));

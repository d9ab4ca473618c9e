//! The `h2` target: harness/h2.rs (shared with the regression tests that replay
//! fuzz/corpus/h2 and fuzz/regressions/h2; see fuzz/README.md).
#![no_main]

#[path = "../harness/h2.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));

//! The `h3` target: harness/h3.rs (shared with the regression tests that replay
//! fuzz/corpus/h3 and fuzz/regressions/h3; see fuzz/README.md).
#![no_main]

#[path = "../harness/h3.rs"]
mod harness;
#[path = "../harness/split.rs"]
mod split;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));

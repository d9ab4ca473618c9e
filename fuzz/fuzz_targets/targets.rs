//! The `targets` target: harness/targets.rs (shared with the regression tests that replay
//! fuzz/corpus/targets and fuzz/regressions/targets; see fuzz/README.md).
#![no_main]

#[path = "../harness/targets.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));

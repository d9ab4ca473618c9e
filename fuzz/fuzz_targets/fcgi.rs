//! The `fcgi` target: harness/fcgi.rs (shared with the regression tests that replay
//! fuzz/corpus/fcgi and fuzz/regressions/fcgi; see fuzz/README.md).
#![no_main]

#[path = "../harness/fcgi.rs"]
mod harness;
#[path = "../harness/split.rs"]
mod split;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));

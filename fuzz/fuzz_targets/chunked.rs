//! The `chunked` target: harness/chunked.rs (shared with the regression tests that replay
//! fuzz/corpus/chunked and fuzz/regressions/chunked; see fuzz/README.md).
#![no_main]

#[path = "../harness/chunked.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));

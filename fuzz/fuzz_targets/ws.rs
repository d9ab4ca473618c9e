//! The `ws` target: harness/ws.rs (shared with the regression tests that replay
//! fuzz/corpus/ws and fuzz/regressions/ws; see fuzz/README.md).
#![no_main]

#[path = "../harness/ws.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));

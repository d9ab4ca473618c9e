//! The `ws_client` target: harness/ws_client.rs (shared with the regression tests that replay
//! fuzz/corpus/ws_client and fuzz/regressions/ws_client; see fuzz/README.md).
#![no_main]

#[path = "../harness/ws_client.rs"]
mod harness;
#[path = "../harness/split.rs"]
mod split;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));

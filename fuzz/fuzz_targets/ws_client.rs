//! The `ws_client` target: harness/ws_client.rs (shared with the regression tests that replay
//! fuzz/corpus/ws_client and fuzz/regressions/ws_client; see fuzz/README.md).
#![no_main]

#[path = "../harness/split.rs"]
mod split;
#[path = "../harness/ws_client.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));

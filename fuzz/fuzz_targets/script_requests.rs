//! The `script_requests` target: harness/script_requests.rs (shared with the regression test
//! that replays fuzz/corpus/script_requests; see fuzz/README.md).
#![no_main]

#[path = "../harness/script_requests.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));

//! The `grpc` target: harness/grpc.rs (shared with the regression tests that replay
//! fuzz/corpus/grpc and fuzz/regressions/grpc; see fuzz/README.md).
#![no_main]

#[path = "../harness/grpc.rs"]
mod harness;
#[path = "../harness/split.rs"]
mod split;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));

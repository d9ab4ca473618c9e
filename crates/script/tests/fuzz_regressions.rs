//! The `script_requests` fuzz target's inputs replayed through its harness
//! (fuzz/harness/script_requests.rs, the function `cargo fuzz` runs): the crash inputs kept in
//! fuzz/regressions/script_requests/ and the seed corpus in fuzz/corpus/script_requests/ (see
//! fuzz/README.md).

#[path = "../../../fuzz/harness/script_requests.rs"]
mod script_requests;

#[path = "../../../fuzz/harness/replay.rs"]
mod replay;

#[test]
fn script_requests() {
    replay::all("script_requests", script_requests::run);
}

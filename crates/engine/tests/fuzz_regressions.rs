//! The `targets` fuzz target's inputs replayed through its harness (fuzz/harness/targets.rs,
//! the function `cargo fuzz` runs): the crash inputs kept in fuzz/regressions/targets/ and the
//! seed corpus in fuzz/corpus/targets/ (see fuzz/README.md).

#[path = "../../../fuzz/harness/targets.rs"]
mod targets;

#[path = "../../../fuzz/harness/replay.rs"]
mod replay;

#[test]
fn targets() {
    replay::all("targets", targets::run);
}

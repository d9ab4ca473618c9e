//! `barrage load --grpc` against tonic, Rust's usual gRPC server (0.14, from crates.io, with the
//! code tonic-prost-build generates from docs/grpc/barrage.proto, compiled by protox: no protoc):
//! studies/grpc's tonic contender run as a peer (`grpc-tonic --peer`), which also serves the
//! tests' `Failing` service and counts the calls it answered and the request messages it read.
//! Every method, in the closed and the open loop, with exact counts on both sides; an abort
//! status counted by its code. tonic serves no reflection here: the schema is the .proto.

use crate::grpc_peer::{config, every_method, grpc, load, Peer, Schema};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The contender, built once per test binary with the cargo running the tests, into the
/// contender's own target/ (where studies/grpc/setup.sh builds it too, so that the second of the
/// two builds finds the first: seconds); `None` when the test is skipped (no cargo: a failure
/// under CI).
fn binary() -> Option<PathBuf> {
    static BUILT: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../studies/grpc/contenders/rust-tonic");
            // The cargo running the tests (Cargo sets CARGO for them), else one on PATH.
            let cargo = match std::env::var_os("CARGO") {
                Some(c) => PathBuf::from(c),
                None => barrage_testkit::tool("cargo", &[], "https://rustup.rs")?,
            };
            let target = dir.join("target");
            let built = Command::new(cargo)
                .current_dir(&dir)
                .args(["build", "--release", "--locked", "--quiet", "--target-dir"])
                .arg(&target)
                .status()
                .expect("cargo runs");
            assert!(built.success(), "cargo build of {} failed", dir.display());
            Some(target.join("release/grpc-tonic"))
        })
        .clone()
}

#[test]
fn tonic_answers_exactly_the_calls_barrage_counts() {
    let Some(bin) = binary() else { return };
    let schema = Schema::new("tonic");
    let mut cmd = Command::new(bin);
    cmd.arg("--peer");
    let peer = Peer::start(cmd);
    let (calls, messages) = every_method(peer.port, &schema.path);
    // The open loop: 300 calls paced at 1,000/s.
    let r = load(barrage_engine::Config {
        rate: Some(1000.0),
        ..config(peer.port, Some(&schema.path), "Test/Echo", "{}", 300)
    });
    assert_eq!(
        (r.requests, r.errors.total()),
        (300, 0),
        "{:?}",
        r.error_examples
    );
    assert_eq!(grpc(&r).calls.get("OK"), Some(&300));
    assert_eq!(
        peer.finish(),
        BTreeMap::from([
            ("calls".into(), calls + 300),
            ("messages".into(), messages + 300)
        ]),
        "tonic's own count"
    );
}

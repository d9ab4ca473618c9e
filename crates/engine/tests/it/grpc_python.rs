//! `barrage load --grpc` against a real gRPC server: grpcio (gRPC's own Python implementation;
//! scripts/test installs it) serving docs/grpc/barrage.proto's methods from
//! `grpc_peers/server.py`, which counts what it answered. The counts must match exactly, and a
//! status the server aborts with is counted by its code.

use crate::grpc_peer::{every_method, Peer, Schema};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

#[test]
fn grpcio_answers_exactly_the_calls_barrage_counts() {
    let python = barrage_testkit::python_required("grpc", "grpcio");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/grpc_peers/server.py");
    let schema = Schema::new("grpcio");
    let mut cmd = Command::new(python);
    cmd.arg(script);
    let peer = Peer::start(cmd);
    let (calls, messages) = every_method(peer.port, &schema.path);
    assert_eq!(
        peer.finish(),
        BTreeMap::from([("calls".into(), calls), ("messages".into(), messages)]),
        "grpcio's own count"
    );
}

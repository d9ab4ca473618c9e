//! `barrage load --grpc` against grpc-go, gRPC's own Go implementation (v1.82.1, from the Go
//! module proxy): `grpc_peers/go` serves docs/grpc/barrage.proto's methods with no generated
//! code (the .proto compiled at run time, dynamic messages under grpc-go's proto codec) and
//! counts the calls it answered and the request messages it read. Every method, in the closed
//! and the open loop, with exact counts on both sides; an abort status counted by its code; the
//! schema from grpc-go's own reflection service (v1, and v1alpha when it serves only that)
//! instead of --proto.

use crate::grpc_peer::{config, counts, every_method, grpc, load, Peer, Schema};
use barrage_engine::Validate as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// grpc_peers/go, built once per test binary into Cargo's scratch directory; `None` when the
/// test is skipped (no Go 1.25: barrage_testkit::go, a failure under CI).
fn binary() -> Option<PathBuf> {
    static BUILT: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            barrage_testkit::go_build(
                (1, 25),
                &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/grpc_peers/go"),
                &Path::new(env!("CARGO_TARGET_TMPDIR")).join("grpc-go-peer"),
            )
        })
        .clone()
}

/// grpc-go serving `proto` with reflection in `versions` ("v1,v1alpha", "v1alpha", "").
fn server(bin: &Path, proto: &Path, versions: &str) -> Peer {
    let mut cmd = Command::new(bin);
    cmd.arg("serve")
        .arg("-proto")
        .arg(proto)
        .arg("-reflection")
        .arg(versions)
        .env("GOMAXPROCS", "1");
    Peer::start(cmd)
}

#[test]
fn grpc_go_answers_exactly_the_calls_barrage_counts() {
    let Some(bin) = binary() else { return };
    let schema = Schema::new("grpc-go");
    let peer = server(&bin, &schema.path, "v1,v1alpha");
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
        counts(calls + 300, messages + 300, 0, 0),
        "grpc-go's own count"
    );
}

/// No --proto: barrage asks grpc-go's reflection service (one v1 call), and loads with what it
/// answered; a grpc-go serving only v1alpha is asked in v1alpha after v1's UNIMPLEMENTED (a
/// call grpc-go does not count: no such service); one serving none is a clear error before
/// any load.
#[test]
fn grpc_go_reflection_gives_the_schema() {
    let Some(bin) = binary() else { return };
    let schema = Schema::new("grpc-go-reflect");
    for (versions, asked) in [("v1,v1alpha", (1, 0)), ("v1alpha", (0, 1))] {
        let peer = server(&bin, &schema.path, versions);
        let r = load(config(
            peer.port,
            None,
            "Test/Stream",
            r#"{"count": 2}"#,
            200,
        ));
        assert_eq!(
            (r.requests, r.errors.total()),
            (200, 0),
            "{versions}: {:?}",
            r.error_examples
        );
        assert_eq!(grpc(&r).messages_received, 400, "{versions}");
        let r = load(config(peer.port, None, "Failing/Echo", "{}", 20));
        assert_eq!(grpc(&r).calls.get("UNAVAILABLE"), Some(&20), "{versions}");
        assert_eq!(
            peer.finish(),
            counts(220, 220, 2 * asked.0, 2 * asked.1),
            "{versions}: grpc-go's own count"
        );
    }
    let peer = server(&bin, &schema.path, "");
    let e = config(peer.port, None, "Test/Echo", "{}", 1)
        .validate()
        .unwrap_err()
        .to_string();
    assert!(e.contains("serves no reflection"), "{e}");
    assert_eq!(peer.finish(), counts(0, 0, 0, 0));
}

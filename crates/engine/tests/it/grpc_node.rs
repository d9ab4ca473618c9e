//! `barrage load --grpc` against @grpc/grpc-js, gRPC's own Node implementation (pure
//! JavaScript, from the npm registry; scripts/test runs `npm ci` in `grpc_peers/node`):
//! `grpc_peers/node/server.js` loads the .proto at run time with @grpc/proto-loader and counts
//! the calls it answered and the request messages it read. Every method with exact counts on
//! both sides, an abort status counted by its code, and the schema from @grpc/reflection's
//! service instead of --proto.

use crate::grpc_peer::{config, counts, every_method, grpc, load, Peer, Schema};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Node and the peer's installed packages; `None` when the test is skipped (a failure under
/// CI: barrage_testkit::missing).
fn node() -> Option<(PathBuf, PathBuf)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/grpc_peers/node");
    let node = barrage_testkit::tool("node", &[], "apt install nodejs npm")?;
    if !dir.join("node_modules/@grpc/grpc-js").is_dir() {
        barrage_testkit::missing(&format!(
            "no node_modules in {} (npm ci there; scripts/test runs it)",
            dir.display()
        ));
        return None;
    }
    Some((node, dir.join("server.js")))
}

fn server(node: &Path, script: &Path, proto: &Path, versions: &str) -> Peer {
    let mut cmd = Command::new(node);
    cmd.arg(script).arg(proto).arg(versions);
    Peer::start(cmd)
}

#[test]
fn grpc_js_answers_exactly_the_calls_barrage_counts() {
    let Some((node, script)) = node() else { return };
    let schema = Schema::new("grpc-js");
    let peer = server(&node, &script, &schema.path, "v1,v1alpha");
    let (calls, messages) = every_method(peer.port, &schema.path);
    assert_eq!(
        peer.finish(),
        counts(calls, messages, 0, 0),
        "grpc-js's own count"
    );
}

/// No --proto: barrage asks @grpc/reflection's service, in v1 (one call), or in v1alpha after
/// v1's UNIMPLEMENTED when the server offers only v1alpha.
#[test]
fn grpc_js_reflection_gives_the_schema() {
    let Some((node, script)) = node() else { return };
    let schema = Schema::new("grpc-js-reflect");
    for (versions, asked) in [("v1,v1alpha", (1, 0)), ("v1alpha", (0, 1))] {
        let peer = server(&node, &script, &schema.path, versions);
        let r = load(config(
            peer.port,
            None,
            "Test/Sum",
            r#"[{"value": 7}]"#,
            100,
        ));
        assert_eq!(
            (r.requests, r.errors.total()),
            (100, 0),
            "{versions}: {:?}",
            r.error_examples
        );
        assert_eq!(grpc(&r).calls.get("OK"), Some(&100), "{versions}");
        assert_eq!(
            peer.finish(),
            counts(100, 100, asked.0, asked.1),
            "{versions}: grpc-js's own count"
        );
    }
}

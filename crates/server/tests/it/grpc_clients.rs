//! `barrage serve`'s gRPC services under other gRPC clients, each call's outcome as the client
//! reports it and the server's own counters agreeing: ghz (v0.120.0, the usual gRPC load tool,
//! from the Go module proxy; scripts/test installs it) calling Test/Echo N times from
//! docs/grpc/barrage.proto, and grpc-go's client (v1.82.1: the program of
//! crates/engine/tests/grpc_peers/go, in its `call` mode) calling every method and checking
//! every reply; ghz again counting the status a call's `x-barrage-fault` metadata asks for.

use crate::common;

use barrage_server::{ServerConfig, ServerHandle};
use common::server_with;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

const PROTO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/grpc/barrage.proto");

fn server() -> ServerHandle {
    server_with(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    })
}

/// HTTP/2 responses the server counted (a call's head, trailers-only included), and its
/// connections.
fn counted(s: &ServerHandle) -> (u64, u64) {
    let st = s.stats();
    let h2: u64 = st
        .responses
        .iter()
        .filter(|(p, c, _)| *p == "h2" && *c == 200)
        .map(|(_, _, n)| n)
        .sum();
    let others = st
        .responses
        .iter()
        .filter(|(p, c, _)| *p != "h2" || *c != 200);
    assert_eq!(others.count(), 0, "{:?}", st.responses);
    (h2, st.accepted)
}

/// A client's output, or why it failed.
fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// ghz v0.120.0, or `None` when the test is skipped.
fn ghz() -> Option<PathBuf> {
    let cached = std::env::var_os("HOME")
        .map(|h| PathBuf::from(h).join(".cache/barrage-bench/ghz-v0.120.0/ghz"))
        .into_iter()
        .collect::<Vec<_>>();
    let install = "go install github.com/bojand/ghz/cmd/ghz@v0.120.0";
    barrage_testkit::tool("ghz", &cached, install)
}

#[test]
fn ghz_calls_echo_n_times_all_ok_and_the_server_counts_them() {
    let Some(ghz) = ghz() else { return };
    let s = server();
    const N: u64 = 2000;
    let out = run(Command::new(ghz).args([
        "--insecure",
        "--proto",
        PROTO,
        "--call",
        "barrage.test.v1.Test/Echo",
        "-d",
        r#"{"payload": "aGVsbG8=", "text": "t"}"#,
        "-n",
        &N.to_string(),
        "-c",
        "8",
        "--connections",
        "2",
        "--format",
        "json",
        &format!("127.0.0.1:{}", s.local_addr().port()),
    ]));
    let mut report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    // Each call's record: N, every one OK (kept out of the messages below: it is long).
    let details = report["details"].take();
    let statuses: Vec<&Value> = details
        .as_array()
        .expect("details")
        .iter()
        .map(|d| &d["status"])
        .collect();
    assert_eq!(statuses, vec![&json!("OK"); N as usize]);
    assert_eq!(report["count"], json!(N), "{report}");
    assert_eq!(
        report["statusCodeDistribution"],
        json!({"OK": N}),
        "{report}"
    );
    assert_eq!(report["errorDistribution"], json!({}), "{report}");
    // ghz's calls and its two connections, as the server counted them.
    assert_eq!(counted(&s), (N, 2));
}

/// A status asked by `x-barrage-fault` metadata, as ghz counts it: every call `UNAVAILABLE` with
/// the message asked, none OK, each counted by the server.
#[test]
fn ghz_counts_the_status_fault_asked_by_metadata() {
    let Some(ghz) = ghz() else { return };
    let s = server();
    const N: u64 = 500;
    let out = run(Command::new(ghz).args([
        "--insecure",
        "--proto",
        PROTO,
        "--call",
        "barrage.test.v1.Test/Echo",
        "-d",
        r#"{"text": "t"}"#,
        "--metadata",
        r#"{"x-barrage-fault": "status=14&message=try later"}"#,
        "-n",
        &N.to_string(),
        "-c",
        "4",
        "--format",
        "json",
        &format!("127.0.0.1:{}", s.local_addr().port()),
    ]));
    let mut report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    report["details"].take();
    assert_eq!(report["count"], json!(N), "{report}");
    assert_eq!(
        report["statusCodeDistribution"],
        json!({"Unavailable": N}),
        "{report}"
    );
    assert_eq!(
        report["errorDistribution"],
        json!({"rpc error: code = Unavailable desc = try later": N}),
        "{report}"
    );
    assert_eq!(counted(&s), (N, 1));
}

/// grpc_peers/go of the engine's tests, built once per test binary; `None` when the test is
/// skipped (no Go 1.25).
fn grpc_go() -> Option<PathBuf> {
    static BUILT: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            barrage_testkit::go_build(
                (1, 25),
                &Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/grpc_peers/go"),
                &Path::new(env!("CARGO_TARGET_TMPDIR")).join("grpc-go-client"),
            )
        })
        .clone()
}

#[test]
fn grpc_go_calls_every_method_and_the_server_counts_them() {
    let Some(bin) = grpc_go() else { return };
    let s = server();
    const N: u64 = 1000;
    let out = run(Command::new(bin)
        .args(["call", "-proto", PROTO, "-n", &N.to_string()])
        .args(["-conns", "2", "-streams", "4", "-addr"])
        .arg(format!("127.0.0.1:{}", s.local_addr().port()))
        .env("GOMAXPROCS", "1"));
    let seen: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    // Every Echo OK, each reply its request's payload and text.
    assert_eq!(seen["echo"], json!({"OK": N}), "{seen}");
    assert_eq!(seen["echo_mismatched"], json!(0), "{seen}");
    // Five EchoReply of the pattern's first three bytes (hex).
    let three = json!({"payload": "000102"});
    assert_eq!(
        seen["stream"],
        json!({"code": "OK", "replies": [three, three, three, three, three]})
    );
    // 1 + 2 + ... + 100.
    assert_eq!(
        seen["sum"],
        json!({"code": "OK", "replies": [{"count": 100, "sum": 5050}]})
    );
    // Ten EchoReply { payload: [i] }, in order (an empty text is not sent).
    let chat: Vec<Value> = (0..10)
        .map(|i| json!({ "payload": format!("{i:02x}") }))
        .collect();
    assert_eq!(seen["chat"], json!({"code": "OK", "replies": chat}));
    assert_eq!(
        seen["missing"],
        json!({"code": "Unimplemented", "replies": null})
    );
    // Echo's calls, the four others, on the client's two connections.
    assert_eq!(counted(&s), (N + 4, 2));
}

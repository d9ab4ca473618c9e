//! What the tests of `barrage load --grpc` against real gRPC servers in other languages share
//! (grpc_python.rs, grpc_go.rs, grpc_node.rs): the schema the server and barrage both read, the
//! server's process (its port from its first line, its counts from its last), one load, and
//! every method of the schema under load.

use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol, RunResult};
use barrage_model::load::{Grpc, DEFAULT_H2_WINDOW};
use barrage_testkit::Proc;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{ChildStdout, Command, Stdio};

/// docs/grpc/barrage.proto plus a service `Failing`, whose every call the peers fail with
/// UNAVAILABLE ("asked to fail"), in a directory of the test's own, removed when dropped.
pub struct Schema {
    dir: PathBuf,
    pub path: PathBuf,
}

impl Schema {
    pub fn new(tag: &str) -> Schema {
        let dir = std::env::temp_dir().join(format!("barrage-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("barrage.proto");
        let text = concat!(
            include_str!("../../../../docs/grpc/barrage.proto"),
            "\nservice Failing {\n  rpc Echo(EchoRequest) returns (EchoReply);\n}\n"
        );
        std::fs::write(&path, text).unwrap();
        Schema { dir, path }
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A gRPC server that prints `port=N` once serving and, when its stdin ends, one line of
/// `name=count` words; killed when dropped.
pub struct Peer {
    proc: Proc,
    out: BufReader<ChildStdout>,
    pub port: u16,
}

impl Peer {
    pub fn start(mut cmd: Command) -> Peer {
        let child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
        let mut proc = Proc(child);
        let mut out = BufReader::new(proc.0.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let port = line
            .trim()
            .strip_prefix("port=")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("{cmd:?} said {line:?}"));
        Peer { proc, out, port }
    }

    /// Stops the server: its counts by name.
    pub fn finish(mut self) -> BTreeMap<String, u64> {
        drop(self.proc.0.stdin.take());
        let mut text = String::new();
        self.out.read_to_string(&mut text).unwrap();
        let status = self.proc.0.wait().unwrap();
        assert!(status.success(), "the server ended {status}: {text:?}");
        text.split_whitespace()
            .map(|w| {
                let (k, v) = w.split_once('=').unwrap_or_else(|| panic!("{text:?}"));
                (
                    k.to_string(),
                    v.parse().unwrap_or_else(|_| panic!("{text:?}")),
                )
            })
            .collect()
    }
}

/// A `--grpc` load of `n` calls of `call` (`Test/Echo`: in package barrage.test.v1) on two
/// connections, four calls in flight on each; the schema from `proto`, else from the server's
/// reflection.
pub fn config(port: u16, proto: Option<&Path>, call: &str, data: &str, n: u64) -> Config {
    Config {
        url: format!("http://127.0.0.1:{port}"),
        connections: 2,
        threads: 1,
        requests: Some(n),
        protocol: Protocol::Grpc {
            streams: 4,
            window: DEFAULT_H2_WINDOW,
        },
        call: Some(format!("barrage.test.v1.{call}")),
        proto: proto.map(|p| p.to_string_lossy().into_owned()),
        data: Some(data.into()),
        ..Config::default()
    }
}

pub fn load(c: Config) -> RunResult {
    run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap()
}

pub fn grpc(r: &RunResult) -> &Grpc {
    Grpc::of(&r.protocol).expect("a grpc section")
}

/// The methods of docs/grpc/barrage.proto, each under load, every call OK and every reply
/// message counted (the client-streaming and bidirectional ones once more with their request
/// messages gzip-compressed, which the server must inflate to read), then Failing's: each call
/// counted UNAVAILABLE and as a `grpc_status` error. Returns what the server must have
/// counted: (calls, request messages). Failing's calls go again with UNAVAILABLE as the
/// expected status (`--expect-status 14`): each a response.
pub fn every_method(port: u16, proto: &Path) -> (u64, u64) {
    // (method, data, calls, request messages a call, reply messages a call)
    let cases = [
        (
            "Test/Echo",
            r#"{"payload": "aGk=", "text": "x"}"#,
            400,
            1,
            1,
        ),
        ("Test/Echo", r#"{"size": 1000}"#, 100, 1, 1),
        ("Test/Stream", r#"{"count": 5, "size": 10}"#, 100, 1, 5),
        (
            "Test/Sum",
            r#"[{"value": 1}, {"value": 2}, {"value": 3}]"#,
            100,
            3,
            1,
        ),
        ("Test/Chat", r#"[{"text": "a"}, {"text": "b"}]"#, 100, 2, 2),
    ];
    let gzip = [
        (
            "Test/Echo",
            r#"{"text": "squeeze squeeze squeeze"}"#,
            100,
            1,
            1,
        ),
        ("Test/Sum", r#"[{"value": 4}, {"value": 5}]"#, 100, 2, 1),
        ("Test/Chat", r#"[{"text": "c"}, {"text": "d"}]"#, 100, 2, 2),
    ];
    let all = cases
        .iter()
        .map(|c| (c, None))
        .chain(gzip.iter().map(|c| (c, Some("gzip"))));
    let (mut calls, mut messages) = (0, 0);
    for (&(call, data, n, sent, received), compression) in all {
        let r = load(Config {
            grpc_compression: compression.map(str::to_string),
            ..config(port, Some(proto), call, data, n)
        });
        let what = format!("{call} {data} {compression:?}");
        assert_eq!(
            (r.requests, r.requests_written, r.errors.total()),
            (n, n, 0),
            "{what}: {:?}",
            r.error_examples
        );
        let g = grpc(&r);
        assert_eq!(g.calls, BTreeMap::from([("OK".into(), n)]), "{what}");
        assert_eq!(g.messages_received, n * received, "{what}");
        let timed = g.message_latency_us.as_ref().map(|l| l.count);
        assert_eq!(
            timed,
            Some(n * received),
            "{what}: every reply message timed"
        );
        calls += n;
        messages += n * sent;
    }
    let r = load(config(port, Some(proto), "Failing/Echo", "{}", 50));
    assert_eq!(r.requests, 0);
    assert_eq!(r.errors[barrage_engine::ErrorClass::GrpcStatus], 50);
    assert_eq!(r.errors.total(), 50, "{:?}", r.error_examples);
    let g = grpc(&r);
    assert_eq!(g.calls, BTreeMap::from([("UNAVAILABLE".into(), 50)]));
    // The example names the server's grpc-message.
    let example = &r.error_examples["grpc_status"];
    assert_eq!(example, "grpc-status UNAVAILABLE: asked to fail");
    // The same calls with UNAVAILABLE expected: each a response.
    let r = load(Config {
        expect_status: Some(14),
        ..config(port, Some(proto), "Failing/Echo", "{}", 50)
    });
    assert_eq!(
        (r.requests, r.errors.total()),
        (50, 0),
        "{:?}",
        r.error_examples
    );
    assert_eq!(grpc(&r).calls, BTreeMap::from([("UNAVAILABLE".into(), 50)]));
    (calls + 100, messages + 100)
}

/// A peer's final counts as its test expects them: calls, request messages, reflection calls
/// by version.
pub fn counts(calls: u64, messages: u64, v1: u64, v1alpha: u64) -> BTreeMap<String, u64> {
    BTreeMap::from([
        ("calls".into(), calls),
        ("messages".into(), messages),
        ("reflection_v1".into(), v1),
        ("reflection_v1alpha".into(), v1alpha),
    ])
}

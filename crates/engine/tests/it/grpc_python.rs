//! `barrage load --grpc` against a real gRPC server: grpcio (gRPC's own Python implementation;
//! scripts/test installs it) serving docs/grpc/barrage.proto's methods from
//! `grpc_peers/server.py`, which counts what it answered. The counts must match exactly, and a
//! status the server aborts with is counted by its code.

use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, ErrorClass, NullSink, Protocol, RunResult};
use barrage_model::load::{Grpc, DEFAULT_H2_WINDOW};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};

const PROTO: &str = "syntax = \"proto3\";\npackage barrage.test.v1;\n\
    message EchoRequest { bytes payload = 1; uint32 size = 2; string text = 3; }\n\
    message EchoReply { bytes payload = 1; string text = 2; }\n\
    message StreamRequest { uint32 count = 1; uint32 size = 2; }\n\
    message SumRequest { int64 value = 1; }\n\
    message SumReply { uint64 count = 1; int64 sum = 2; }\n\
    service Test { rpc Echo(EchoRequest) returns (EchoReply);\n\
      rpc Stream(StreamRequest) returns (stream EchoReply);\n\
      rpc Sum(stream SumRequest) returns (SumReply); }\n\
    service Failing { rpc Echo(EchoRequest) returns (EchoReply); }\n";

/// The Python server, killed when dropped.
struct Peer {
    child: Child,
    port: u16,
}

impl Peer {
    fn start() -> Peer {
        let python = barrage_testkit::python_required("grpc", "grpcio");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/grpc_peers/server.py");
        let mut child = Command::new(python)
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python runs");
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim()
            .strip_prefix("port=")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("server.py said {line:?}"));
        Peer { child, port }
    }

    /// Stops the server: the calls it answered and the request messages it read.
    fn finish(mut self) -> (u64, u64) {
        drop(self.child.stdin.take());
        let mut out = String::new();
        std::io::Read::read_to_string(self.child.stdout.as_mut().unwrap(), &mut out).unwrap();
        let _ = self.child.wait();
        let field = |k: &str| {
            out.split_whitespace()
                .find_map(|w| w.strip_prefix(k))
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("server.py said {out:?}"))
        };
        (field("calls="), field("messages="))
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn load(port: u16, proto: &Path, call: &str, data: &str, n: u64) -> RunResult {
    let c = Config {
        url: format!("http://127.0.0.1:{port}"),
        connections: 2,
        threads: 1,
        requests: Some(n),
        protocol: Protocol::Grpc {
            streams: 4,
            window: DEFAULT_H2_WINDOW,
        },
        call: Some(call.into()),
        proto: Some(proto.to_string_lossy().into_owned()),
        data: Some(data.into()),
        ..Config::default()
    };
    run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap()
}

#[test]
fn grpcio_answers_exactly_the_calls_barrage_counts() {
    let dir = std::env::temp_dir().join(format!("barrage-grpcio-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let proto = dir.join("test.proto");
    std::fs::File::create(&proto)
        .unwrap()
        .write_all(PROTO.as_bytes())
        .unwrap();

    let peer = Peer::start();
    let port = peer.port;
    let r = load(
        port,
        &proto,
        "barrage.test.v1.Test/Echo",
        r#"{"text": "hi"}"#,
        400,
    );
    assert_eq!(
        (r.requests, r.errors.total()),
        (400, 0),
        "{:?}",
        r.error_examples
    );
    let r2 = load(
        port,
        &proto,
        "barrage.test.v1.Test/Sum",
        r#"[{"value": 1}, {"value": 2}, {"value": 3}]"#,
        100,
    );
    assert_eq!(
        (r2.requests, r2.errors.total()),
        (100, 0),
        "{:?}",
        r2.error_examples
    );
    let r3 = load(
        port,
        &proto,
        "barrage.test.v1.Test/Stream",
        r#"{"count": 5}"#,
        100,
    );
    assert_eq!(
        (r3.requests, r3.errors.total()),
        (100, 0),
        "{:?}",
        r3.error_examples
    );
    let g = Grpc::of(&r3.protocol).expect("a grpc section");
    assert_eq!(g.messages_received, 500, "five replies a call");
    let r4 = load(port, &proto, "barrage.test.v1.Failing/Echo", "{}", 50);
    assert_eq!(r4.errors[ErrorClass::GrpcStatus], 50);
    let g = Grpc::of(&r4.protocol).expect("a grpc section");
    assert_eq!(g.calls.get("UNAVAILABLE"), Some(&50), "{:?}", g.calls);

    // Echo 400 + Sum 100 (300 messages) + Stream 100 + Failing 50, as the server counted them.
    assert_eq!(peer.finish(), (650, 400 + 300 + 100 + 50));
    let _ = std::fs::remove_dir_all(&dir);
}

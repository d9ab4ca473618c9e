//! `barrage serve`'s gRPC services against gRPC's own client: grpcio (PyPI; scripts/test
//! installs it in its tools venv) calls each method of docs/grpc/barrage.proto and the health
//! service over h2c through `grpc_peers/client.py`, which prints each call's status and reply
//! messages; the bytes are checked here against the messages protobuf defines.

use crate::common;

use barrage_server::{pattern, ServerConfig};
use common::server_with;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn drive(target: &str) -> Vec<Value> {
    let python = barrage_testkit::python_required("grpc", "grpcio");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/grpc_peers/client.py");
    let out = Command::new(python)
        .arg(script)
        .arg(target)
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "client.py failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The case's status code and reply messages (as bytes).
fn case(seen: &[Value], name: &str) -> (u64, Vec<Vec<u8>>) {
    let v = seen
        .iter()
        .find(|v| v["case"] == name)
        .unwrap_or_else(|| panic!("no {name:?} in {seen:?}"));
    let replies = v["replies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| hex(h.as_str().unwrap()))
        .collect();
    (v["code"].as_u64().unwrap(), replies)
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn pattern_of(n: usize) -> Vec<u8> {
    let mut v = vec![0; n];
    pattern::fill(0, &mut v);
    v
}

#[test]
fn grpcio_calls_every_method_and_gets_each_status() {
    let s = server_with(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    });
    let seen = drive(&format!("127.0.0.1:{}", s.local_addr().port()));
    case(&seen, "done");

    // EchoReply { payload: "hello", text: "t" }
    let (code, r) = case(&seen, "echo");
    assert_eq!((code, r), (0, vec![b"\x0a\x05hello\x12\x01t".to_vec()]));

    // EchoReply { payload: 1000 bytes of the pattern }: tag, varint 1000 (e8 07), bytes.
    let (_, r) = case(&seen, "echo size");
    assert_eq!(
        r,
        vec![[&[0x0a, 0xe8, 0x07][..], &pattern_of(1000)].concat()]
    );

    // Five EchoReply { payload: 3 bytes of the pattern }.
    let (code, r) = case(&seen, "stream");
    let one = [&[0x0a, 3][..], &pattern_of(3)].concat();
    assert_eq!((code, r), (0, vec![one; 5]));

    // SumReply { count: 100, sum: 5050 }: 5050 = varint ba 27.
    let (_, r) = case(&seen, "sum");
    assert_eq!(r, vec![vec![0x08, 100, 0x10, 0xba, 0x27]]);

    // Ten EchoReply { payload: [i] }, in order.
    let (code, r) = case(&seen, "chat");
    let want: Vec<Vec<u8>> = (0..10u8).map(|i| vec![0x0a, 1, i]).collect();
    assert_eq!((code, r), (0, want));

    // HealthCheckResponse { status: SERVING }
    let (_, r) = case(&seen, "health");
    assert_eq!(r, vec![vec![0x08, 1]]);

    assert_eq!(case(&seen, "unimplemented").0, 12, "UNIMPLEMENTED");
    assert_eq!(case(&seen, "unknown service").0, 5, "NOT_FOUND");
    assert_eq!(case(&seen, "too large").0, 3, "INVALID_ARGUMENT");
}

/// Server reflection against gRPC's own reflection client (grpcio-reflection, v1alpha): the
/// services listed, and each method's messages and streaming as read from the files sent.
#[test]
fn grpcio_reflection_reads_the_served_services() {
    let python = barrage_testkit::python_required("grpc_reflection", "grpcio-reflection");
    let s = server_with(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    });
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/grpc_peers/reflect.py");
    let out = Command::new(python)
        .arg(script)
        .arg(format!("127.0.0.1:{}", s.local_addr().port()))
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "reflect.py failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(
        v["services"],
        serde_json::json!([
            "barrage.test.v1.Test",
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection"
        ])
    );
    let t = "barrage.test.v1.";
    assert_eq!(
        v["methods"],
        serde_json::json!([
            [
                "Echo",
                format!("{t}EchoRequest"),
                format!("{t}EchoReply"),
                false,
                false
            ],
            [
                "Stream",
                format!("{t}StreamRequest"),
                format!("{t}EchoReply"),
                false,
                true
            ],
            [
                "Sum",
                format!("{t}SumRequest"),
                format!("{t}SumReply"),
                true,
                false
            ],
            [
                "Chat",
                format!("{t}EchoRequest"),
                format!("{t}EchoReply"),
                true,
                true
            ]
        ])
    );
    assert_eq!(v["health"], serde_json::json!(["Check", "Watch"]));
}

//! gRPC's faults, asked per call by `x-barrage-fault` metadata, as real clients see them:
//! grpcio (gRPC's own Python client, `grpc_peers/faults.py`) reads each status code and
//! message, the delay's lower bound, the reset and the stall ending in its deadline; raw HTTP/2
//! frames show what the client cannot tell apart (a trailers-only response is one HEADERS with
//! END_STREAM; a status fault is a head, no DATA, then trailers; the reset is RST_STREAM
//! INTERNAL_ERROR); and `--fault-rate`'s faults land on calls as on any stream, by `--seed`.

use crate::common;

use barrage_server::{ServerConfig, ServerHandle};
use barrage_wire::h2::{frame, hpack, parse_frame, ErrorCode, Frame, PREFACE};
use common::{connect, server_with};
use serde_json::Value;
use std::io::{ErrorKind, Read, Write};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

fn server() -> ServerHandle {
    server_with(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    })
}

/// HTTP/2 responses (heads) the server counted, all 200.
fn h2_heads(s: &ServerHandle) -> u64 {
    let st = s.stats();
    st.responses
        .iter()
        .map(|&(p, c, n)| {
            assert_eq!((p, c), ("h2", 200), "{:?}", st.responses);
            n
        })
        .sum()
}

#[test]
fn grpcio_sees_each_fault_asked_by_metadata() {
    let python = barrage_testkit::python_required("grpc", "grpcio");
    let s = server();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/grpc_peers/faults.py");
    let out = Command::new(python)
        .arg(script)
        .arg(format!("127.0.0.1:{}", s.local_addr().port()))
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "faults.py failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert!(seen.iter().any(|v| v["case"] == "done"), "{stdout}");
    let case = |name: &str| -> (u64, String, Vec<String>, f64) {
        let v = seen
            .iter()
            .find(|v| v["case"] == name)
            .unwrap_or_else(|| panic!("no {name:?} in {stdout}"));
        (
            v["code"].as_u64().unwrap(),
            v["details"].as_str().unwrap().to_string(),
            v["replies"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap().to_string())
                .collect(),
            v["ms"].as_f64().unwrap(),
        )
    };
    // UNAVAILABLE with its message, no reply.
    let (code, details, replies, _) = case("status");
    assert_eq!(
        (code, details.as_str(), replies.len()),
        (14, "try later", 0)
    );
    // OK without a reply (grpcio hands back `None` as the reply and does not object).
    let (code, _, replies, _) = case("status ok");
    assert_eq!((code, replies.len()), (0, 0));
    // PERMISSION_DENIED, trailers-only (its shape is checked in frames below).
    assert_eq!(case("trailers-only").0, 7);
    // The reply, no sooner than 300 ms.
    // EchoReply { payload: "hello" }.
    let hello = "0a0568656c6c6f".to_string();
    let (code, _, replies, ms) = case("delay");
    assert_eq!((code, replies), (0, vec![hello.clone()]));
    assert!(ms >= 300.0, "delay=300 answered after {ms} ms");
    // The stream reset: grpcio reports RST_STREAM's code 2 (INTERNAL_ERROR) as INTERNAL.
    let (code, details, replies, _) = case("reset");
    assert_eq!((code, replies.len()), (13, 0), "{details}");
    assert!(
        details.contains("RST_STREAM") && details.contains("error code 2"),
        "{details}"
    );
    // No answer: the client's 0.5 s deadline ends the call.
    let (code, _, replies, ms) = case("stall");
    assert_eq!((code, replies.len()), (4, 0), "DEADLINE_EXCEEDED");
    assert!(ms >= 500.0, "the stall ended after {ms} ms");
    // A value naming no fault: INVALID_ARGUMENT saying what is taken.
    let (code, details, _, _) = case("bad");
    assert_eq!(code, 3);
    assert!(
        details.starts_with("x-barrage-fault takes status="),
        "{details}"
    );
    // Stream's three replies of 2 pattern bytes each, the first no sooner than 200 ms.
    let (code, _, replies, ms) = case("stream delay");
    assert_eq!((code, replies), (0, vec!["0a020001".to_string(); 3]));
    assert!(ms >= 200.0, "delay=200 answered after {ms} ms");
    // Chat ends RESOURCE_EXHAUSTED with no echo.
    let (code, details, replies, _) = case("chat status");
    assert_eq!((code, details.as_str(), replies.len()), (8, "slow down", 0));
    // The same connection serves on.
    let (code, _, replies, _) = case("after");
    assert_eq!((code, replies), (0, vec![hello]));
    // Heads: every case but the reset and the stall, which never got one.
    assert_eq!(h2_heads(&s), 8);
}

/// What one call's stream carried, frame by frame.
#[derive(Debug, PartialEq)]
enum Seen {
    /// A header block's fields (pseudo-fields, `date` and `server` left out), END_STREAM.
    Head(Vec<(String, String)>, bool),
    /// DATA bytes and END_STREAM.
    Data(usize, bool),
    Reset(ErrorCode),
    /// Nothing more within the read timeout.
    Quiet,
    /// The connection ended.
    Closed,
    /// A header block no HPACK decoder takes (`/fault/garbage`'s).
    Garbled,
}

/// An Echo call (`payload: "hi"`) with `x-barrage-fault: fault` (if any) in raw frames, on a
/// connection of its own; what its stream carried until its end, or until nothing came for
/// `quiet`.
fn raw_call(s: &ServerHandle, fault: Option<&str>, quiet: Duration) -> Vec<Seen> {
    let f = fault.map(|f| ("x-barrage-fault", f));
    raw_call_with(s, f.as_slice(), quiet)
}

/// [`raw_call`] with these metadata fields.
fn raw_call_with(s: &ServerHandle, metadata: &[(&str, &str)], quiet: Duration) -> Vec<Seen> {
    let mut sock = connect(s.local_addr());
    sock.set_read_timeout(Some(quiet)).unwrap();
    let mut out = PREFACE.to_vec();
    frame::write_settings(&mut out, &[]);
    let mut block = Vec::new();
    let no = hpack::Indexing::Without;
    hpack::encode_indexed(&mut block, 3); // :method POST
    hpack::encode_indexed(&mut block, 6); // :scheme http
    hpack::encode_literal(&mut block, 4, b"", b"/barrage.test.v1.Test/Echo", no);
    hpack::encode_literal(&mut block, 1, b"", b"t", no);
    hpack::encode_literal(&mut block, 31, b"", b"application/grpc", no);
    hpack::encode_literal(&mut block, 0, b"te", b"trailers", no);
    for (n, v) in metadata {
        hpack::encode_literal(&mut block, 0, n.as_bytes(), v.as_bytes(), no);
    }
    frame::write_headers(&mut out, 1, &block, false, 16_384);
    let msg = [0, 0, 0, 0, 4, 0x0a, 2, b'h', b'i'];
    frame::write_data_header(&mut out, 1, msg.len(), true);
    out.extend_from_slice(&msg);
    sock.write_all(&out).unwrap();

    let mut decoder = hpack::Decoder::new(4096);
    let mut seen = Vec::new();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16_384];
    loop {
        while let Some((f, n)) = parse_frame(&buf, 1 << 24).expect("a frame") {
            let ended = match f {
                Frame::Headers {
                    stream: 1,
                    end_stream,
                    block,
                    ..
                } => {
                    let mut fields = Vec::new();
                    let decoded = decoder.decode(block, |n, v| {
                        let n = String::from_utf8_lossy(n).into_owned();
                        if !n.starts_with(':') && n != "date" && n != "server" {
                            fields.push((n, String::from_utf8_lossy(v).into_owned()));
                        }
                    });
                    match decoded {
                        Ok(()) => seen.push(Seen::Head(fields, end_stream)),
                        Err(_) => seen.push(Seen::Garbled),
                    }
                    end_stream || decoded.is_err()
                }
                Frame::Data {
                    stream: 1,
                    end_stream,
                    data,
                    ..
                } => {
                    seen.push(Seen::Data(data.len(), end_stream));
                    end_stream
                }
                Frame::RstStream { stream: 1, code } => {
                    seen.push(Seen::Reset(code));
                    true
                }
                _ => false,
            };
            buf.drain(..n);
            if ended {
                return seen;
            }
        }
        match sock.read(&mut chunk) {
            Ok(0) => {
                seen.push(Seen::Closed);
                return seen;
            }
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                seen.push(Seen::Quiet);
                return seen;
            }
            Err(e) => panic!("{e}"),
        }
    }
}

fn fields(f: &[(&str, &str)]) -> Vec<(String, String)> {
    f.iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

#[test]
fn each_fault_in_frames() {
    let s = server();
    let wait = Duration::from_secs(10);
    let head = || Seen::Head(fields(&[("content-type", "application/grpc")]), false);
    // Trailers-only: one HEADERS, END_STREAM, grpc-status in it; no DATA.
    assert_eq!(
        raw_call(&s, Some("trailers-only=7"), wait),
        vec![Seen::Head(
            fields(&[("content-type", "application/grpc"), ("grpc-status", "7")]),
            true
        )]
    );
    // A status: the head, no DATA, the trailers (a space is one of the bytes grpc-message
    // carries as they are).
    assert_eq!(
        raw_call(&s, Some("status=14&message=try later"), wait),
        vec![
            head(),
            Seen::Head(
                fields(&[("grpc-status", "14"), ("grpc-message", "try later")]),
                true
            )
        ]
    );
    // The reset: RST_STREAM INTERNAL_ERROR, nothing before it.
    assert_eq!(
        raw_call(&s, Some("reset"), wait),
        vec![Seen::Reset(ErrorCode::Internal)]
    );
    // The stall: nothing at all on the stream within 300 ms.
    assert_eq!(
        raw_call(&s, Some("stall"), Duration::from_millis(300)),
        vec![Seen::Quiet]
    );
    // The delay: the whole answer, once it comes (`hi` back: a 9-byte message).
    assert_eq!(
        raw_call(&s, Some("delay=50"), wait),
        vec![
            head(),
            Seen::Data(9, false),
            Seen::Head(fields(&[("grpc-status", "0")]), true)
        ]
    );
}

/// A call's deadline (`grpc-timeout`) shorter than the delay it asked for: the head, then
/// DEADLINE_EXCEEDED at the deadline (a client without a clock of its own sees the server's),
/// no reply; a deadline longer than the delay changes nothing.
#[test]
fn a_delay_past_the_calls_deadline_ends_in_deadline_exceeded() {
    let s = server();
    let wait = Duration::from_secs(10);
    let head = || Seen::Head(fields(&[("content-type", "application/grpc")]), false);
    let short = [("x-barrage-fault", "delay=5000"), ("grpc-timeout", "50m")];
    assert_eq!(
        raw_call_with(&s, &short, wait),
        vec![
            head(),
            Seen::Head(
                fields(&[("grpc-status", "4"), ("grpc-message", "deadline exceeded")]),
                true
            )
        ]
    );
    let long = [("x-barrage-fault", "delay=20"), ("grpc-timeout", "10S")];
    assert_eq!(
        raw_call_with(&s, &long, wait),
        vec![
            head(),
            Seen::Data(9, false),
            Seen::Head(fields(&[("grpc-status", "0")]), true)
        ]
    );
    // A malformed deadline is the client's error: INTERNAL, saying so.
    let bad = raw_call_with(&s, &[("grpc-timeout", "soon")], wait);
    assert!(
        matches!(&bad[..], [_, Seen::Head(f, true)] if f[0] == ("grpc-status".into(), "13".into())),
        "{bad:?}"
    );
}

/// What one call without a fault asked for met under `--fault-rate`, by name.
fn outcome(s: &ServerHandle) -> &'static str {
    // A second of silence is a stall: an answer to a lone call on loopback comes in
    // microseconds, so none is taken for one (were it, the two seeded runs would differ).
    let seen = raw_call(s, None, Duration::from_secs(1));
    match seen.last() {
        Some(Seen::Head(f, true)) if f == &fields(&[("grpc-status", "0")]) => "ok",
        Some(Seen::Reset(ErrorCode::Internal)) if seen.len() == 1 => "reset",
        Some(Seen::Closed) if seen.len() == 1 => "close",
        Some(Seen::Quiet) if seen.len() == 1 => "stall",
        Some(Seen::Garbled) if seen.len() == 1 => "garbage",
        _ => panic!("{seen:?}"),
    }
}

/// `--fault-rate` picks among the HTTP faults for calls as for any stream, by `--seed`.
#[test]
fn fault_rate_applies_to_calls_seeded() {
    let run = |rate: f64, seed: u64, n: usize| {
        let s = server_with(ServerConfig {
            fault_rate: rate,
            fault_seed: seed,
            threads: 1,
            ..ServerConfig::default()
        });
        let v: Vec<&str> = (0..n).map(|_| outcome(&s)).collect();
        s.shutdown();
        v
    };
    let a = run(0.5, 7, 24);
    assert_eq!(a, run(0.5, 7, 24), "same seed, same faults");
    let faults = a.iter().filter(|&&o| o != "ok").count();
    assert!((3..=21).contains(&faults), "about half of 24: {a:?}");
    let kinds: std::collections::BTreeSet<&str> = run(1.0, 0, 40).into_iter().collect();
    assert_eq!(
        kinds,
        ["close", "garbage", "reset", "stall"].into_iter().collect(),
        "every call a fault, all four kinds over 40"
    );
}

//! Every endpoint and fault on every protocol, as one table (endpoint x protocol): the same
//! answer (status and body bytes) or the protocol's form of the same fault, and the same access
//! log line (`METHOD TARGET STATUS`, none for a fault that answers nothing), from the one answer
//! per route (`src/answer.rs`). Clients: the tests' own HTTP/1.1 reader over TCP and over TLS
//! (`common`; as HTTP/1.0 too, asking for keep-alive), curl for HTTP/2 (h2c with prior knowledge, and h2 by ALPN over TLS), aioquic for
//! HTTP/3 (`h3_peers/h3_get.py`; the HTTP/3 column is skipped with a note when no Python has
//! aioquic), a FastCGI client of wire's records (as a web server speaks to its application; nginx
//! itself in `fastcgi.rs`), and a WebSocket upgrade by hand.

use crate::common;

use barrage_server::{pattern, start_with_log, ServerConfig, ServerHandle, Tls};
use barrage_testkit::AccessLog;
use common::tls_client::{any_cert, TlsClient};
use common::{connect, Reader};
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn serve(tls: bool) -> (ServerHandle, AccessLog) {
    let log = AccessLog::default();
    let cfg = ServerConfig {
        threads: 1,
        log: true,
        tls: tls.then_some(Tls::SelfSigned),
        http3: tls,
        ..ServerConfig::default()
    };
    (start_with_log(cfg, Box::new(log.clone())).unwrap(), log)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Proto {
    H1,
    /// HTTP/1.0 requests with `Connection: keep-alive`, over TCP.
    H10,
    H1Tls,
    H2c,
    H2Tls,
    H3,
    /// FastCGI over TCP, as a web server asks its application.
    Fcgi,
}

/// What a client saw of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Got {
    Response {
        status: u16,
        body: Vec<u8>,
    },
    /// The request's stream was reset (HTTP/2 RST_STREAM, HTTP/3 RESET_STREAM), or the TCP
    /// connection (HTTP/1.1 RST).
    Reset,
    /// The connection ended without an answer (FIN; QUIC's CONNECTION_CLOSE with H3_NO_ERROR).
    Closed,
    /// An answer no client parses (a connection error for HTTP/2 and HTTP/3).
    Garbled,
    /// Nothing within the client's patience.
    Timeout,
}

/// One row: a request and what every protocol must give for it.
struct Case {
    method: &'static str,
    target: &'static str,
    body: Option<Vec<u8>>,
    want: Got,
}

fn ok(body: &[u8]) -> Got {
    Got::Response {
        status: 200,
        body: body.to_vec(),
    }
}

fn text(status: u16, body: &str) -> Got {
    Got::Response {
        status,
        body: body.as_bytes().to_vec(),
    }
}

fn pattern_bytes(n: u64) -> Vec<u8> {
    (0..n).map(pattern::byte_at).collect()
}

fn case(method: &'static str, target: &'static str, want: Got) -> Case {
    Case {
        method,
        target,
        body: None,
        want,
    }
}

fn cases() -> Vec<Case> {
    let upload: Vec<u8> = (0..70_000).map(|i| (i % 251) as u8).collect();
    let json = br#"{"message":"Hello, World!"}"#;
    vec![
        case("GET", "/", ok(b"Hello, World!")),
        case("HEAD", "/", ok(b"")),
        case("GET", "/json", ok(json)),
        Case {
            body: Some(b"ping".to_vec()),
            ..case("POST", "/ping", text(200, "pong"))
        },
        Case {
            body: Some(b"pong".to_vec()),
            ..case("POST", "/", text(400, "expected the body ping\n"))
        },
        Case {
            body: Some(upload.clone()),
            ..case("POST", "/echo", ok(&upload))
        },
        Case {
            body: Some(upload.clone()),
            ..case("POST", "/sink", text(200, "received 70000 bytes\n"))
        },
        case("PUT", "/sink", text(200, "received 0 bytes\n")),
        case("GET", "/sleep/20", text(200, "slept 20 ms\n")),
        case("GET", "/bytes/100KiB", ok(&pattern_bytes(100 << 10))),
        case(
            "GET",
            "/bytes/1000?chunked=1&chunk=100",
            ok(&pattern_bytes(1000)),
        ),
        case("GET", "/bytes/0?chunked=1", ok(b"")),
        case("GET", "/status/503", text(503, "503 Service Unavailable\n")),
        case("GET", "/status/204", text(204, "")),
        case("GET", "/nope", text(404, "not found\n")),
        case("DELETE", "/json", text(405, "method not allowed\n")),
        case(
            "GET",
            "/sleep/x",
            text(400, "sleep takes milliseconds, 0 to 3600000\n"),
        ),
        case("GET", "/fault/drip?bytes=5&every=5", ok(&pattern_bytes(5))),
        case("GET", "/fault/reset", Got::Reset),
        case("GET", "/fault/close", Got::Closed),
        case("GET", "/fault/garbage", Got::Garbled),
        case("GET", "/fault/stall", Got::Timeout),
    ]
}

/// The log line a case's answer writes: none for a fault that answers nothing.
fn log_line(c: &Case, got: &Got) -> Vec<String> {
    match got {
        Got::Response { status, .. } => vec![format!("{} {} {status}", c.method, c.target)],
        _ => Vec::new(),
    }
}

#[test]
fn every_endpoint_and_fault_on_every_protocol() {
    let py = barrage_testkit::python("aioquic.asyncio, aioquic.h3.connection", "aioquic");
    let (plain, plain_log) = serve(false);
    let (tls, tls_log) = serve(true);
    let mut protos = vec![
        Proto::H1,
        Proto::H10,
        Proto::H1Tls,
        Proto::H2c,
        Proto::H2Tls,
        Proto::Fcgi,
    ];
    if py.is_some() {
        protos.push(Proto::H3);
    }
    for proto in protos {
        let (server, log) = match proto {
            Proto::H1 | Proto::H10 | Proto::H2c | Proto::Fcgi => (&plain, &plain_log),
            _ => (&tls, &tls_log),
        };
        for c in cases() {
            // A stall holds the client to its patience: once per transport is enough.
            if c.want == Got::Timeout && matches!(proto, Proto::H1Tls | Proto::H2Tls) {
                continue;
            }
            // aioquic holds a HEAD response's `content-length` against its (absent) body and
            // fails the connection (RFC 9110 §8.6 lets a HEAD response carry it).
            if c.method == "HEAD" && proto == Proto::H3 {
                continue;
            }
            let got = match proto {
                Proto::H1 | Proto::H10 | Proto::H1Tls => h1(server.local_addr(), proto, &c),
                Proto::H2c | Proto::H2Tls => h2(server.local_addr(), proto == Proto::H2Tls, &c),
                Proto::H3 => h3(py.as_deref().unwrap(), server.local_addr(), &c),
                Proto::Fcgi => fcgi(server.local_addr(), &c),
            };
            assert_eq!(got, c.want, "{proto:?} {} {}", c.method, c.target);
            // A fault that answers nothing writes no line (a late one would show in the next
            // case's).
            let want = log_line(&c, &got);
            assert_eq!(
                log.take_n(want.len()),
                want,
                "{proto:?} {} {}: the access log",
                c.method,
                c.target
            );
        }
        // `/headers`: the request's own fields, the version each protocol names.
        let version = match proto {
            Proto::H1 | Proto::H1Tls => "HTTP/1.1",
            Proto::H10 => "HTTP/1.0",
            Proto::H2c | Proto::H2Tls => "HTTP/2",
            Proto::H3 => "HTTP/3",
            Proto::Fcgi => "FastCGI",
        };
        let c = case("GET", "/headers?x=1", Got::Timeout);
        let got = match proto {
            Proto::H1 | Proto::H10 | Proto::H1Tls => h1(server.local_addr(), proto, &c),
            Proto::H2c | Proto::H2Tls => h2(server.local_addr(), proto == Proto::H2Tls, &c),
            Proto::H3 => h3(py.as_deref().unwrap(), server.local_addr(), &c),
            Proto::Fcgi => fcgi(server.local_addr(), &c),
        };
        let Got::Response { status: 200, body } = got else {
            panic!("{proto:?} /headers: {got:?}");
        };
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["method"], "GET", "{proto:?} {v}");
        assert_eq!(v["target"], "/headers?x=1", "{proto:?} {v}");
        assert_eq!(v["version"], version, "{proto:?} {v}");
        let marked = v["headers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h[0].as_str().unwrap().eq_ignore_ascii_case("x-matrix") && h[1] == "yes");
        assert!(marked, "{proto:?}: the request's own field: {v}");
        assert_eq!(log.take_n(1), vec!["GET /headers?x=1 200"], "{proto:?}");
        // `/ws/echo`: an upgrade over HTTP/1.1, refused over the others.
        let c = case("GET", "/ws/echo", Got::Timeout);
        match proto {
            Proto::H1 | Proto::H1Tls => ws_echo(server.local_addr(), proto == Proto::H1Tls),
            Proto::H10 => {
                let got = h1(server.local_addr(), proto, &c);
                let msg = "a WebSocket upgrade needs HTTP/1.1\n";
                assert_eq!(got, text(400, msg), "{proto:?}");
            }
            Proto::H2c | Proto::H2Tls | Proto::H3 | Proto::Fcgi => {
                let got = match proto {
                    Proto::H3 => h3(py.as_deref().unwrap(), server.local_addr(), &c),
                    Proto::Fcgi => fcgi(server.local_addr(), &c),
                    _ => h2(server.local_addr(), proto == Proto::H2Tls, &c),
                };
                let msg = "WebSocket is served over HTTP/1.1 only, without a request body\n";
                assert_eq!(got, text(400, msg), "{proto:?}");
            }
        }
        let status = if matches!(proto, Proto::H1 | Proto::H1Tls) {
            101
        } else {
            400
        };
        assert_eq!(
            log.take_n(1),
            vec![format!("GET /ws/echo {status}")],
            "{proto:?}"
        );
    }
}

/// The raw request of a case (HTTP/1.1, or HTTP/1.0 asking for keep-alive).
fn raw(c: &Case, proto: Proto) -> Vec<u8> {
    let version = match proto {
        Proto::H10 => "1.0\r\nConnection: keep-alive",
        _ => "1.1",
    };
    let mut r = format!(
        "{} {} HTTP/{version}\r\nHost: t\r\nX-Matrix: yes\r\n",
        c.method, c.target
    )
    .into_bytes();
    if let Some(b) = &c.body {
        r.extend_from_slice(format!("Content-Length: {}\r\n\r\n", b.len()).as_bytes());
        r.extend_from_slice(b);
    } else {
        r.extend_from_slice(b"\r\n");
    }
    r
}

fn h1(addr: std::net::SocketAddr, proto: Proto, c: &Case) -> Got {
    let (tls, is_head) = (proto == Proto::H1Tls, c.method == "HEAD");
    let res = if tls {
        let mut t = TlsClient::connect(addr, any_cert(&[b"http/1.1"]), "localhost");
        t.handshake().unwrap();
        let mut r = Reader::new(t);
        r.send(&raw(c, proto));
        r.response(is_head)
    } else {
        let s = connect(addr);
        if c.want == Got::Timeout {
            s.set_read_timeout(Some(Duration::from_millis(500)))
                .unwrap();
        }
        let mut r = Reader::new(s);
        r.send(&raw(c, proto));
        r.response(is_head)
    };
    match res {
        // HTTP/1.0 has no chunked coding: a body of unknown length ends with the connection.
        Ok(resp) if proto == Proto::H10 && resp.header("Transfer-Encoding").is_some() => {
            panic!("HTTP/1.0 {}: a Transfer-Encoding: {resp:?}", c.target)
        }
        Ok(resp) => Got::Response {
            status: resp.status,
            body: resp.body,
        },
        Err(e) if e == "reset" => Got::Reset,
        Err(e) if e == "eof" => Got::Closed,
        Err(e) if e.starts_with("bad response") => Got::Garbled,
        Err(e) if e.contains("timed out") || e.contains("temporarily unavailable") => Got::Timeout,
        Err(e) => panic!("HTTP/1.1 {}: {e}", c.target),
    }
}

fn h2(addr: std::net::SocketAddr, tls: bool, c: &Case) -> Got {
    if matches!(c.want, Got::Reset | Got::Closed | Got::Garbled) || c.target == "/fault/stall" {
        return h2_frames(addr, tls, c.target);
    }
    let dir = tempdir();
    let body_file = dir.join("body");
    let mut cmd = Command::new("curl");
    cmd.args(["-s", "-o"]).arg(&body_file);
    cmd.args(["-w", "%{http_code}", "-H", "x-matrix: yes"]);
    cmd.args(["--max-time", "10"]);
    if tls {
        cmd.args(["--http2", "-k"]);
    } else {
        cmd.arg("--http2-prior-knowledge");
    }
    match c.method {
        "HEAD" => {
            cmd.arg("-I");
        }
        m => {
            cmd.args(["-X", m]);
        }
    }
    if let Some(b) = &c.body {
        let up = dir.join("upload");
        std::fs::write(&up, b).unwrap();
        cmd.arg("--data-binary").arg(format!("@{}", up.display()));
    }
    let scheme = if tls { "https" } else { "http" };
    cmd.arg(format!("{scheme}://localhost:{}{}", addr.port(), c.target));
    let out = cmd.output().expect("curl runs");
    let code = out.status.code();
    let got = match code {
        Some(0) => {
            let status: u16 = String::from_utf8_lossy(&out.stdout).parse().unwrap();
            let body = std::fs::read(&body_file).unwrap_or_default();
            // -I writes the head where the body would go.
            let body = if c.method == "HEAD" { Vec::new() } else { body };
            Got::Response { status, body }
        }
        other => panic!("curl {}: exit {other:?}", c.target),
    };
    let _ = std::fs::remove_dir_all(&dir);
    got
}

/// A request over HTTP/2 by hand, the server's frames read until stream 1 is answered, reset,
/// or the connection ends (for faults: curl's exit code for a connection that ends races with
/// its own writes).
fn h2_frames(addr: std::net::SocketAddr, tls: bool, target: &str) -> Got {
    if tls {
        let mut t = TlsClient::connect(addr, any_cert(&[b"h2"]), "localhost");
        t.handshake().unwrap();
        h2_exchange(t, target)
    } else {
        let s = connect(addr);
        s.set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        h2_exchange(s, target)
    }
}

fn h2_exchange(mut sock: impl Read + Write, target: &str) -> Got {
    use barrage_wire::h2::{frame, hpack, parse_frame, ErrorCode, Frame, PREFACE};
    let mut out = PREFACE.to_vec();
    frame::write_settings(&mut out, &[]);
    let mut block = Vec::new();
    hpack::encode_indexed(&mut block, 2); // :method GET
    hpack::encode_indexed(&mut block, 6); // :scheme http
    hpack::encode_literal(
        &mut block,
        4,
        b"",
        target.as_bytes(),
        hpack::Indexing::Without,
    );
    hpack::encode_literal(&mut block, 1, b"", b"t", hpack::Indexing::Without);
    frame::write_headers(&mut out, 1, &block, true, 16_384);
    sock.write_all(&out).unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16_384];
    loop {
        while let Some((f, n)) = parse_frame(&buf, 1 << 24).expect("a frame") {
            let got = match f {
                Frame::RstStream { stream: 1, code } => {
                    assert_eq!(code, ErrorCode::Internal, "{target}");
                    Some(Got::Reset)
                }
                // HPACK index 0, which no decoder accepts (RFC 7541 §6.1).
                Frame::Headers {
                    stream: 1, block, ..
                } if block == [0x80] => Some(Got::Garbled),
                Frame::Headers { stream: 1, .. } => panic!("{target}: a response"),
                _ => None,
            };
            buf.drain(..n);
            if let Some(got) = got {
                return got;
            }
        }
        match sock.read(&mut chunk) {
            Ok(0) => return Got::Closed,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Got::Timeout
            }
            Err(e) => panic!("{target}: {e}"),
        }
    }
}

fn h3(py: &Path, addr: std::net::SocketAddr, c: &Case) -> Got {
    let dir = tempdir();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/h3_peers/h3_get.py");
    let mut spec = format!("{} {}", c.method, c.target);
    if let Some(b) = &c.body {
        // The script uploads byte i as i % 251, or a text given after `=`.
        if b.iter().enumerate().all(|(i, &x)| x == (i % 251) as u8) {
            spec = format!("{spec} {}", b.len());
        } else {
            spec = format!("{spec} ={}", String::from_utf8_lossy(b));
        }
    }
    let out = Command::new(py)
        .arg(script)
        .args(["127.0.0.1", &addr.port().to_string(), &spec])
        .env("H3_TIMEOUT", "1")
        .env("H3_HEADER", "x-matrix: yes")
        .env("H3_BODIES", &dir)
        .output()
        .expect("python runs");
    assert!(out.status.success(), "h3_get.py {spec} failed");
    let line = String::from_utf8(out.stdout).unwrap();
    let words: Vec<&str> = line.split_whitespace().collect();
    let got = match words.as_slice() {
        ["timeout"] => Got::Timeout,
        // H3_INTERNAL_ERROR.
        ["reset", "258"] => Got::Reset,
        // H3_NO_ERROR.
        ["closed", "256"] => Got::Closed,
        ["closed", _] => Got::Garbled,
        [status, _, _] => Got::Response {
            status: status.parse().unwrap(),
            body: std::fs::read(dir.join("0")).unwrap(),
        },
        other => panic!("h3_get.py {spec}: {other:?}"),
    };
    let _ = std::fs::remove_dir_all(&dir);
    got
}

/// A request as a web server asks its application over FastCGI (request id 1, the connection
/// kept), the answer read from the records until `END_REQUEST`: its CGI status and body, or the
/// fault it was (an `END_REQUEST` with an application status and no end of `STDOUT`: reset).
fn fcgi(addr: std::net::SocketAddr, c: &Case) -> Got {
    use barrage_wire::fcgi::{self, FcgiError, Reader};
    let mut sock = connect(addr);
    sock.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let (script, query) = c.target.split_once('?').unwrap_or((c.target, ""));
    let mut vars = vec![
        ("REQUEST_METHOD", c.method.to_string()),
        ("REQUEST_URI", c.target.to_string()),
        ("SCRIPT_NAME", script.to_string()),
        ("QUERY_STRING", query.to_string()),
        ("HTTP_HOST", "t".to_string()),
        ("HTTP_X_MATRIX", "yes".to_string()),
    ];
    let body = c.body.clone().unwrap_or_default();
    if !body.is_empty() {
        vars.push(("CONTENT_LENGTH", body.len().to_string()));
    }
    let mut params = Vec::new();
    for (n, v) in &vars {
        fcgi::pair(&mut params, n.as_bytes(), v.as_bytes());
    }
    let mut out = Vec::new();
    fcgi::begin_request(&mut out, 1, true);
    fcgi::stream(&mut out, fcgi::PARAMS, 1, &params);
    fcgi::record(&mut out, fcgi::PARAMS, 1, &[]);
    fcgi::stream(&mut out, fcgi::STDIN, 1, &body);
    fcgi::record(&mut out, fcgi::STDIN, 1, &[]);
    sock.write_all(&out).unwrap();
    let (mut reader, mut stdout, mut stdout_ended) = (Reader::default(), Vec::new(), false);
    let mut end = Vec::new();
    let mut chunk = [0u8; 16_384];
    loop {
        let n = match sock.read(&mut chunk) {
            Ok(0) => return Got::Closed,
            Ok(n) => n,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Got::Timeout
            }
            Err(e) => panic!("{}: {e}", c.target),
        };
        let mut part = &chunk[..n];
        while !part.is_empty() {
            let (used, piece) = match reader.next(part) {
                Ok(x) => x,
                Err(FcgiError::Version(_)) => return Got::Garbled,
                Err(e) => panic!("{}: {e}", c.target),
            };
            part = &part[used..];
            let Some(p) = piece else { continue };
            assert_eq!(p.id, 1, "{}", c.target);
            match p.kind {
                fcgi::STDOUT if p.len == 0 => stdout_ended = true,
                fcgi::STDOUT => stdout.extend_from_slice(p.data),
                fcgi::END_REQUEST => {
                    end.extend_from_slice(p.data);
                    if !p.end {
                        continue;
                    }
                    assert_eq!(end[4], fcgi::REQUEST_COMPLETE, "{}", c.target);
                    if end[..4] != [0, 0, 0, 0] && !stdout_ended {
                        return Got::Reset;
                    }
                    assert!(
                        stdout_ended,
                        "{}: END_REQUEST before STDOUT ended",
                        c.target
                    );
                    let split = stdout.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
                    let head = String::from_utf8_lossy(&stdout[..split]).to_string();
                    let status = head
                        .lines()
                        .find_map(|l| l.strip_prefix("Status: "))
                        .map_or(200, |v| v[..3].parse().unwrap());
                    return Got::Response {
                        status,
                        body: stdout[split + 4..].to_vec(),
                    };
                }
                kind => panic!("{}: a record of type {kind}", c.target),
            }
        }
    }
}

/// `/ws/echo` over HTTP/1.1: 101 (its accept key checked by the wire crate's client
/// handshake), then a message echoed.
fn ws_echo(addr: std::net::SocketAddr, tls: bool) {
    if tls {
        let mut t = TlsClient::connect(addr, any_cert(&[b"http/1.1"]), "localhost");
        t.handshake().unwrap();
        ws_exchange(t);
    } else {
        ws_exchange(connect(addr));
    }
}

fn ws_exchange(mut sock: impl Read + Write) {
    use barrage_wire::ws::handshake::{check_response, client_key, write_request};
    let key = client_key(*b"the matrix nonce");
    let mut req = Vec::new();
    write_request(&mut req, "127.0.0.1", "/ws/echo", &key, &[]);
    sock.write_all(&req).unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(n) = check_response(&buf, &key, b"").expect("101") {
            buf.drain(..n);
            break;
        }
        let n = sock.read(&mut chunk).unwrap();
        assert!(n > 0, "closed during the handshake");
        buf.extend_from_slice(&chunk[..n]);
    }
    let mut frame = Vec::new();
    barrage_wire::ws::frame::write_frame(
        &mut frame,
        true,
        barrage_wire::ws::Opcode::Text,
        b"matrix",
        Some([1, 2, 3, 4]),
    );
    sock.write_all(&frame).unwrap();
    while buf.len() < 8 {
        let n = sock.read(&mut chunk).unwrap();
        assert!(n > 0, "closed before the echo");
        buf.extend_from_slice(&chunk[..n]);
    }
    assert_eq!(&buf[..], b"\x81\x06matrix", "the message echoed, unmasked");
}

/// A fresh directory of the test's own.
fn tempdir() -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let d = std::env::temp_dir().join(format!(
        "barrage-matrix-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

//! HTTP/3 (`ServerConfig::http3`) against an independent client: aioquic's
//! (`tests/h3_peers/h3_get.py`, Python in ~/.cache/barrage-test-tools, skipped with a note when
//! none can import aioquic) fetching `/`, a 100 KiB and a 3 MiB `/bytes` body, `/echo` with a 70 kB and a
//! 3 MB body, a 404, a 405, a 204, a sleep, a drip and `/headers`, each status and body checked byte for byte; and `Alt-Svc` on HTTP/1.1 responses
//! with HTTP/3 on, absent without it.

use crate::common;

use barrage_server::{pattern, start, ServerConfig, ServerError, Tls};
use common::tls_client::{any_cert, TlsClient};
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn h3_server() -> barrage_server::ServerHandle {
    server_with(ServerConfig {
        tls: Some(Tls::SelfSigned),
        http3: true,
        ..ServerConfig::default()
    })
}

/// The Python that has aioquic; `None` when the test is skipped (barrage_testkit::python).
fn python() -> Option<PathBuf> {
    barrage_testkit::python("aioquic.asyncio, aioquic.h3.connection", "aioquic")
}

fn sha256_hex(b: &[u8]) -> String {
    let d = ring::digest::digest(&ring::digest::SHA256, b);
    d.as_ref().iter().map(|x| format!("{x:02x}")).collect()
}

/// Byte i of an uploaded body is i % 251, as the script makes it.
fn upload(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i % 251) as u8).collect()
}

#[test]
fn aioquic_fetches_endpoints_over_http3() {
    let Some(py) = python() else { return };
    let s = h3_server();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/h3_peers/h3_get.py");
    let port = s.local_addr().port().to_string();
    let out = Command::new(py)
        .arg(script)
        .args(["127.0.0.1", &port])
        .args([
            "GET /",
            "GET /bytes/100KiB",
            "GET /bytes/3MiB",
            "POST /echo 70000",
            "POST /echo 3000000",
            "GET /nope",
            "DELETE /json",
            "GET /status/204",
            "GET /sleep/30",
            "GET /fault/drip?bytes=5&every=10",
            "GET /headers",
        ])
        .stderr(Stdio::inherit())
        .output()
        .expect("python runs");
    assert!(out.status.success(), "the aioquic client failed");
    let lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let bytes: Vec<u8> = (0..100 * 1024).map(pattern::byte_at).collect();
    // Past aioquic's 1 MB stream window: the response waits for its credit, never dropped.
    let big: Vec<u8> = (0..3 << 20).map(pattern::byte_at).collect();
    let want = [
        (200, b"Hello, World!".to_vec()),
        (200, bytes),
        (200, big),
        (200, upload(70000)),
        // Far past a stream's 64 KiB buffer: the echo pauses reading and resumes.
        (200, upload(3_000_000)),
        (404, b"not found\n".to_vec()),
        (405, b"method not allowed\n".to_vec()),
        (204, Vec::new()),
        (200, b"slept 30 ms\n".to_vec()),
        (200, (0..5).map(pattern::byte_at).collect()),
    ];
    assert_eq!(lines.len(), want.len() + 1, "{lines:?}");
    // /headers: a JSON document whose length the line gives; its status is enough here.
    assert!(lines[want.len()].starts_with("200 "), "{lines:?}");
    for (line, (status, body)) in lines.iter().zip(want) {
        assert_eq!(
            line,
            &format!("{status} {} {}", body.len(), sha256_hex(&body)),
        );
    }
    let stats = s.stats();
    let h3_200 = stats
        .responses
        .iter()
        .filter(|(proto, code, _)| *proto == "h3" && *code == 200)
        .map(|(_, _, n)| n)
        .sum::<u64>();
    assert_eq!(h3_200, 8, "{stats:?}");
    assert_eq!(stats.accepted, 1, "one QUIC connection: {stats:?}");
}

#[test]
fn stray_datagrams_do_not_stop_http3() {
    let Some(py) = python() else { return };
    let s = h3_server();
    // Junk, a QUIC long header with an unknown version (answered with Version Negotiation), and
    // an empty datagram, before a real client.
    let u = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let to = s.local_addr();
    for d in [
        &b"GET / HTTP/1.1\r\n\r\n"[..],
        &[
            0xc0, 0x1a, 0x2a, 0x3a, 0x4a, 0x08, 1, 2, 3, 4, 5, 6, 7, 8, 0x00,
        ][..],
        &[][..],
        &[0xff; 1200][..],
    ] {
        u.send_to(d, to).unwrap();
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/h3_peers/h3_get.py");
    let out = Command::new(py)
        .arg(script)
        .args(["127.0.0.1", &to.port().to_string(), "GET /"])
        .output()
        .expect("python runs");
    assert!(out.status.success());
    let hello = b"Hello, World!";
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        format!("200 {} {}", hello.len(), sha256_hex(hello))
    );
}

fn http11_alt_svc(s: &barrage_server::ServerHandle) -> Option<String> {
    let c = TlsClient::connect(s.local_addr(), any_cert(&[b"http/1.1"]), "localhost");
    let mut r = Reader::new(c);
    r.send(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n");
    let resp = r.response(false).unwrap();
    assert_eq!(resp.text(), "Hello, World!");
    // A response assembled from parts (not the pre-rendered hello) says it too.
    r.send(b"GET /status/201 HTTP/1.1\r\nHost: t\r\n\r\n");
    let other = r.response(false).unwrap();
    assert_eq!(other.status, 201);
    assert_eq!(other.header("alt-svc"), resp.header("alt-svc"));
    resp.header("alt-svc").map(str::to_string)
}

#[test]
fn alt_svc_is_advertised_with_http3_only() {
    let s = h3_server();
    let port = s.local_addr().port();
    assert_eq!(
        http11_alt_svc(&s).as_deref(),
        Some(format!("h3=\":{port}\"; ma=86400").as_str())
    );
    let plain = server_with(ServerConfig {
        tls: Some(Tls::SelfSigned),
        ..ServerConfig::default()
    });
    assert_eq!(http11_alt_svc(&plain), None);
}

#[test]
fn http3_needs_tls() {
    let e = start(ServerConfig {
        http3: true,
        ..ServerConfig::default()
    })
    .err()
    .expect("refused");
    assert!(matches!(e, ServerError::Config(_)), "{e}");
}

#[test]
fn a_shutdown_finishes_http3_requests_in_flight() {
    let Some(py) = python() else { return };
    let s = h3_server();
    let port = s.local_addr().port().to_string();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/h3_peers/h3_get.py");
    let client = std::thread::spawn(move || {
        Command::new(py)
            .arg(script)
            .args(["127.0.0.1", &port, "GET /sleep/1500"])
            .output()
            .expect("python runs")
    });
    // The connection is up (its request follows the handshake at once), then a moment for the
    // request to be in service; the sleep is far longer.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while s.stats().accepted == 0 && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    s.shutdown();
    let out = client.join().unwrap();
    assert!(out.status.success());
    let body = b"slept 1500 ms\n";
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        format!("200 {} {}", body.len(), sha256_hex(body))
    );
}

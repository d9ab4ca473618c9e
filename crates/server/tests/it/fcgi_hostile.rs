//! `barrage serve` against hostile FastCGI peers, in raw records: requests past the bound end
//! at once with `FCGI_OVERLOADED`, variables past the header limit are answered 431 without
//! being kept, records of requests never begun are dropped, a record of another version ends the
//! connection, and a client that sends an echo it never reads stops the server reading (what the
//! server holds is its output's high-water mark) until the idle timeout ends the connection.

use crate::common;

use barrage_server::ServerConfig;
use barrage_wire::fcgi::{
    begin_request, pair, record, stream, Reader, END_REQUEST, OVERLOADED, PARAMS, REQUEST_COMPLETE,
    STDIN, STDOUT,
};
use common::{connect, server_with};
use std::collections::BTreeMap;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A request's opening: `BEGIN_REQUEST` (the connection kept) and its variables, ended.
fn open(out: &mut Vec<u8>, id: u16, method: &str, uri: &str, extra: &[(&str, &str)]) {
    let mut params = Vec::new();
    pair(&mut params, b"REQUEST_METHOD", method.as_bytes());
    pair(&mut params, b"REQUEST_URI", uri.as_bytes());
    for (n, v) in extra {
        pair(&mut params, n.as_bytes(), v.as_bytes());
    }
    begin_request(out, id, true);
    stream(out, PARAMS, id, &params);
    record(out, PARAMS, id, &[]);
}

/// What came back per request id: its `STDOUT` and its `END_REQUEST`'s protocol status, read
/// until `want` requests ended or the connection did (then `closed`).
struct Answers {
    stdout: BTreeMap<u16, Vec<u8>>,
    ended: BTreeMap<u16, u8>,
    closed: bool,
}

fn answers(sock: &mut TcpStream, want: usize) -> Answers {
    let mut a = Answers {
        stdout: BTreeMap::new(),
        ended: BTreeMap::new(),
        closed: false,
    };
    let (mut reader, mut end) = (Reader::default(), Vec::new());
    let mut chunk = vec![0u8; 65_536];
    while a.ended.len() < want {
        let n = match sock.read(&mut chunk) {
            Ok(0) | Err(_) => {
                a.closed = true;
                return a;
            }
            Ok(n) => n,
        };
        let mut part = &chunk[..n];
        while !part.is_empty() {
            let (used, p) = reader.next(part).expect("records of version 1");
            part = &part[used..];
            let Some(p) = p else { continue };
            match p.kind {
                STDOUT => a.stdout.entry(p.id).or_default().extend_from_slice(p.data),
                END_REQUEST => {
                    end.extend_from_slice(p.data);
                    if p.end {
                        a.ended.insert(p.id, end[4]);
                        end.clear();
                    }
                }
                k => panic!("a record of type {k}"),
            }
        }
    }
    a
}

fn status(stdout: &[u8]) -> &str {
    let line = stdout.split(|&b| b == b'\r').next().unwrap();
    std::str::from_utf8(line).unwrap()
}

#[test]
fn requests_past_the_bound_end_at_once_with_overloaded() {
    let s = server_with(ServerConfig {
        threads: 1,
        h2_max_streams: 2,
        ..ServerConfig::default()
    });
    let mut c = connect(s.local_addr());
    let mut out = Vec::new();
    for id in 1..=5 {
        open(&mut out, id, "GET", "/sleep/100", &[]);
    }
    for id in 1..=5 {
        record(&mut out, STDIN, id, &[]);
    }
    c.write_all(&out).unwrap();
    let a = answers(&mut c, 5);
    assert!(!a.closed);
    let want: BTreeMap<u16, u8> = [
        (1, REQUEST_COMPLETE),
        (2, REQUEST_COMPLETE),
        (3, OVERLOADED),
        (4, OVERLOADED),
        (5, OVERLOADED),
    ]
    .into();
    assert_eq!(a.ended, want);
    assert_eq!(status(&a.stdout[&1]), "Status: 200 OK");
    assert!(
        !a.stdout.contains_key(&3),
        "a refused request gets no answer"
    );
    // The connection serves on once the two are answered.
    let mut again = Vec::new();
    open(&mut again, 3, "GET", "/", &[]);
    record(&mut again, STDIN, 3, &[]);
    c.write_all(&again).unwrap();
    let a = answers(&mut c, 1);
    assert_eq!(a.ended, [(3, REQUEST_COMPLETE)].into());
}

#[test]
fn variables_past_the_header_limit_are_answered_431_and_not_kept() {
    let s = server_with(ServerConfig {
        threads: 1,
        header_limit: 1024,
        ..ServerConfig::default()
    });
    let mut c = connect(s.local_addr());
    let mut out = Vec::new();
    begin_request(&mut out, 1, true);
    let mut params = Vec::new();
    pair(&mut params, b"REQUEST_METHOD", b"GET");
    pair(&mut params, b"REQUEST_URI", b"/");
    c.write_all(&out).unwrap();
    let mut big = Vec::new();
    pair(&mut big, b"HTTP_X_PAD", &[b'p'; 60_000]);
    let mut flood = Vec::new();
    stream(&mut flood, PARAMS, 1, &big);
    // 16 MiB of variables: read and dropped past the limit, never held.
    for _ in 0..270 {
        c.write_all(&flood).unwrap();
    }
    let mut end = Vec::new();
    record(&mut end, PARAMS, 1, &[]);
    record(&mut end, STDIN, 1, &[]);
    c.write_all(&end).unwrap();
    let a = answers(&mut c, 1);
    assert_eq!(a.ended, [(1, REQUEST_COMPLETE)].into());
    assert!(
        status(&a.stdout[&1]).starts_with("Status: 431"),
        "{:?}",
        a.stdout
    );
}

#[test]
fn records_of_requests_never_begun_are_dropped_and_another_version_ends_the_connection() {
    let s = server_with(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    });
    let mut c = connect(s.local_addr());
    let mut out = Vec::new();
    for _ in 0..1000 {
        record(&mut out, STDIN, 7, b"nobody's body");
    }
    open(&mut out, 1, "GET", "/", &[]);
    record(&mut out, STDIN, 1, &[]);
    c.write_all(&out).unwrap();
    let a = answers(&mut c, 1);
    assert_eq!(a.ended, [(1, REQUEST_COMPLETE)].into());
    assert_eq!(a.stdout.keys().copied().collect::<Vec<_>>(), vec![1]);
    c.write_all(b"\x02\x01\x00\x01\x00\x08\x00\x00").unwrap();
    let a = answers(&mut c, 1);
    assert!(a.closed && a.ended.is_empty(), "closed without an answer");
}

#[test]
fn an_echo_the_client_never_reads_stops_the_server_reading_until_the_idle_timeout() {
    let s = server_with(ServerConfig {
        threads: 1,
        idle_timeout: Duration::from_secs(1),
        ..ServerConfig::default()
    });
    let mut c = connect(s.local_addr());
    let mut out = Vec::new();
    let total = 64usize << 20;
    open(
        &mut out,
        1,
        "POST",
        "/echo",
        &[("CONTENT_LENGTH", &total.to_string())],
    );
    c.write_all(&out).unwrap();
    let mut unit = Vec::new();
    record(&mut unit, STDIN, 1, &[b'e'; 65_535]);
    let mut w = c.try_clone().unwrap();
    // A writer the server never stops would block for good: it gives up after 20 s instead,
    // and says so (WouldBlock), which fails the test.
    w.set_write_timeout(Some(Duration::from_secs(20))).unwrap();
    let writer = std::thread::spawn(move || {
        let mut sent = 0;
        while sent < total {
            if let Err(e) = w.write_all(&unit) {
                return (sent, Some(e.kind()));
            }
            sent += unit.len();
        }
        (sent, None)
    });
    let (sent, stopped) = writer.join().unwrap();
    // The server read what its output's high-water mark let it echo, and the two sockets'
    // buffers the rest; then nothing moved, and the idle timeout closed the connection.
    assert!(sent < 16 << 20, "{sent} bytes went out of {total}");
    assert!(
        matches!(
            stopped,
            Some(ErrorKind::BrokenPipe | ErrorKind::ConnectionReset)
        ),
        "the server closed the connection: {stopped:?}"
    );
}

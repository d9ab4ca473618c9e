//! Every endpoint through a real socket.

use crate::common;
use barrage_server::pattern;
use common::*;

#[test]
fn hello_and_json() {
    let s = server();
    let r = get(s.local_addr(), "/");
    assert_eq!(r.status, 200);
    assert_eq!(r.body, b"Hello, World!");
    assert_eq!(r.header("Content-Type"), Some("text/plain"));
    assert_eq!(r.header("Server"), Some("barrage"));
    assert!(r.header("Date").unwrap().ends_with(" GMT"));
    let r = get(s.local_addr(), "/json");
    assert_eq!(r.body, br#"{"message":"Hello, World!"}"#);
    assert_eq!(r.header("Content-Type"), Some("application/json"));
    let r = request(s.local_addr(), b"HEAD / HTTP/1.1\r\nHost: t\r\n\r\n");
    assert_eq!((r.status, r.body.len()), (200, 0));
    assert_eq!(r.header("Content-Length"), Some("13"));
    s.shutdown();
}

#[test]
fn ping_pong() {
    let s = server();
    let mut c = Reader::new(connect(s.local_addr()));
    for path in ["/ping", "/"] {
        c.send(
            format!("POST {path} HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n\r\nping").as_bytes(),
        );
        let r = c.response(false).unwrap();
        assert_eq!((r.status, r.text().as_str()), (200, "pong"));
    }
    c.send(b"POST /ping HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\npings");
    assert_eq!(c.response(false).unwrap().status, 400);
    c.send(b"POST /ping HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n\r\npong");
    assert_eq!(c.response(false).unwrap().status, 400);
    c.send(b"POST /ping HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n2\r\npi\r\n2\r\nng\r\n0\r\n\r\n");
    assert_eq!(c.response(false).unwrap().text(), "pong");
    c.send(b"GET /ping HTTP/1.1\r\nHost: t\r\n\r\n");
    let r = c.response(false).unwrap();
    assert_eq!((r.status, r.header("Allow")), (405, Some("POST")));
    s.shutdown();
}

#[test]
fn echo_length_chunked_and_continue() {
    let s = server();
    let mut c = Reader::new(connect(s.local_addr()));
    c.send(b"PUT /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\nhello world");
    let r = c.response(false).unwrap();
    assert_eq!((r.status, r.text().as_str()), (200, "hello world"));
    c.send(b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n");
    let r = c.response(false).unwrap();
    assert_eq!(r.header("Transfer-Encoding"), Some("chunked"));
    assert_eq!(r.text(), "abcde");
    c.send(b"POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n");
    // The interim 100 arrives before we send the body.
    let mut first = [0u8; 25];
    std::io::Read::read_exact(&mut c.stream, &mut first).unwrap();
    assert_eq!(&first, b"HTTP/1.1 100 Continue\r\n\r\n");
    c.send(b"xyz");
    assert_eq!(c.response(false).unwrap().text(), "xyz");
    // A big body, streamed through in pieces.
    let big: Vec<u8> = (0..3_000_000u32).map(|i| (i % 7) as u8).collect();
    c.send(
        format!(
            "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n",
            big.len()
        )
        .as_bytes(),
    );
    let writer = {
        let mut w = c.stream.try_clone().unwrap();
        let big = big.clone();
        std::thread::spawn(move || std::io::Write::write_all(&mut w, &big).unwrap())
    };
    let r = c.response(false).unwrap();
    writer.join().unwrap();
    assert_eq!(r.body.len(), big.len());
    assert!(r.body == big);
    s.shutdown();
}

#[test]
fn sleep_answers_after_the_delay() {
    let s = server();
    let t = std::time::Instant::now();
    let r = get(s.local_addr(), "/sleep/150");
    assert!(t.elapsed() >= std::time::Duration::from_millis(150));
    assert_eq!((r.status, r.text().as_str()), (200, "slept 150 ms\n"));
    assert_eq!(get(s.local_addr(), "/sleep/abc").status, 400);
    s.shutdown();
}

#[test]
fn many_concurrent_sleepers_on_one_thread() {
    let s = server_with(barrage_server::ServerConfig {
        threads: 1,
        ..Default::default()
    });
    let mut conns: Vec<Reader> = (0..500)
        .map(|_| Reader::new(connect(s.local_addr())))
        .collect();
    let t = std::time::Instant::now();
    for c in &mut conns {
        c.send(b"GET /sleep/300 HTTP/1.1\r\nHost: t\r\n\r\n");
    }
    for c in &mut conns {
        assert_eq!(c.response(false).unwrap().status, 200);
    }
    // One thread served 500 sleeps at once: far less than 500 x 300 ms.
    assert!(t.elapsed() < std::time::Duration::from_secs(20));
    s.shutdown();
}

fn check_pattern(body: &[u8]) {
    for (i, &b) in body.iter().enumerate() {
        assert_eq!(b, pattern::byte_at(i as u64), "byte {i}");
    }
}

#[test]
fn bytes_plain_chunked_and_checksum() {
    let s = server();
    let a = s.local_addr();
    for (target, n, chunked) in [
        ("/bytes/0", 0u64, false),
        ("/bytes/1", 1, false),
        ("/bytes/1000", 1000, false),
        ("/bytes/64KiB", 65536, false),
        ("/bytes/5MB", 5_000_000, false),
        ("/bytes/3MiB?chunk=1000", 3 << 20, false),
        ("/bytes/0?chunked=1", 0, true),
        ("/bytes/100000?chunked=1", 100_000, true),
        ("/bytes/100000?chunked=1&chunk=7", 100_000, true),
    ] {
        let r = get(a, target);
        assert_eq!(r.status, 200, "{target}");
        assert_eq!(r.body.len() as u64, n, "{target}");
        check_pattern(&r.body);
        let sum = r.header("X-Checksum").unwrap();
        assert_eq!(sum, pattern::checksum(n));
        assert_eq!(sum, format!("crc32={:08x}", crc32fast::hash(&r.body)));
        assert_eq!(r.header("Transfer-Encoding").is_some(), chunked, "{target}");
    }
    let r = request(a, b"HEAD /bytes/1GiB HTTP/1.1\r\nHost: t\r\n\r\n");
    assert_eq!(r.header("Content-Length"), Some("1073741824"));
    assert_eq!(
        r.header("X-Checksum").map(str::to_string),
        Some(pattern::checksum(1 << 30))
    );
    assert_eq!(get(a, "/bytes/lots").status, 400);
    s.shutdown();
}

#[test]
fn status_headers_not_found() {
    let s = server();
    let a = s.local_addr();
    for code in [200u16, 201, 204, 301, 404, 418, 500, 503, 599] {
        let r = get(a, &format!("/status/{code}"));
        assert_eq!(r.status, code);
    }
    assert_eq!(get(a, "/status/204").body.len(), 0);
    assert_eq!(get(a, "/status/42").status, 400);
    let r = request(
        a,
        b"GET /headers?x=1 HTTP/1.1\r\nHost: t\r\nX-One: 1\r\nX-One: 2\r\nX-Utf: \xc3\xa9\r\n\r\n",
    );
    let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(v["method"], "GET");
    assert_eq!(v["target"], "/headers?x=1");
    assert_eq!(
        v["headers"],
        serde_json::json!([
            ["Host", "t"],
            ["X-One", "1"],
            ["X-One", "2"],
            ["X-Utf", "é"]
        ])
    );
    assert_eq!(get(a, "/nope").status, 404);
    assert_eq!(get(a, "/sleep").status, 404);
    s.shutdown();
}

/// A body of unknown length to an HTTP/1.0 request is not chunked (HTTP/1.0 has no chunked
/// coding; RFC 9112, section 6.1, forbids Transfer-Encoding in a response to it): it ends with
/// the connection, as its head says, even when the request asked for keep-alive. HTTP/1.1 still
/// gets its chunks.
#[test]
fn http10_bodies_of_unknown_length_end_with_the_connection() {
    use std::io::{Read, Write};
    let s = server();
    let mut want = vec![0u8; 100_000];
    pattern::fill(0, &mut want);
    let target = "/bytes/100000?chunked=1&chunk=1000";
    for (version, keep) in [("1.0", "keep-alive"), ("1.0", "close"), ("1.1", "close")] {
        let mut sock = connect(s.local_addr());
        let req = format!("GET {target} HTTP/{version}\r\nHost: t\r\nConnection: {keep}\r\n\r\n");
        sock.write_all(req.as_bytes()).unwrap();
        let mut all = Vec::new();
        sock.read_to_end(&mut all).unwrap();
        let end = all.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        let head = String::from_utf8_lossy(&all[..end]).to_lowercase();
        assert!(head.starts_with("http/1.1 200 ok\r\n"), "{head}");
        assert!(head.contains("\r\nconnection: close\r\n"), "{head}");
        assert!(!head.contains("content-length"), "{head}");
        let body = &all[end..];
        match version {
            "1.0" => {
                assert!(!head.contains("transfer-encoding"), "{head}");
                assert!(body == want, "HTTP/1.0 {keep}: {} body bytes", body.len());
            }
            _ => {
                assert!(head.contains("transfer-encoding: chunked\r\n"), "{head}");
                assert!(body.starts_with(b"3e8\r\n") && body.ends_with(b"\r\n0\r\n\r\n"));
            }
        }
    }
    s.shutdown();
}

#[test]
fn http10_and_connection_close() {
    let s = server();
    let mut c = Reader::new(connect(s.local_addr()));
    c.send(b"GET / HTTP/1.0\r\n\r\n");
    let r = c.response(false).unwrap();
    assert_eq!((r.status, r.header("Connection")), (200, Some("close")));
    assert!(c.closed());
    let mut c = Reader::new(connect(s.local_addr()));
    c.send(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    assert_eq!(
        c.response(false).unwrap().header("Connection"),
        Some("keep-alive")
    );
    c.send(b"GET /json HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    assert_eq!(c.response(false).unwrap().status, 200);
    assert!(c.closed());
    s.shutdown();
}

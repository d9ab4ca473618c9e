//! Hostile and broken WebSocket peers against `/ws/echo`, over raw sockets: a frame length of
//! 2^63 (and 2^63-1), a fragmented message that never ends, a ping flood from a client that
//! never reads, invalid UTF-8, an unmasked frame, a handshake that never completes or is wrong,
//! and a shutdown. Each ends in the close code RFC 6455 asks for, counted by the server, with
//! the connection closed, memory bounded (the flood: the server stops reading) and no hang.

use crate::common;

use barrage_server::{ServerConfig, ServerHandle};
use barrage_wire::ws::handshake::{check_response, client_key, write_request};
use barrage_wire::ws::{frame, Event, Limits, Opcode, Session};
use common::{connect, server_with, Reader};
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const KEY: [u8; 4] = [1, 2, 3, 4];

fn server(cfg: ServerConfig) -> ServerHandle {
    server_with(ServerConfig { threads: 1, ..cfg })
}

/// A connection upgraded at `path`, and the bytes read past the 101.
fn upgrade(s: &ServerHandle, path: &str) -> (TcpStream, Vec<u8>) {
    let mut sock = connect(s.local_addr());
    let key = client_key(*b"hostile peers 16");
    let mut req = Vec::new();
    write_request(&mut req, "127.0.0.1", path, &key, &[]);
    sock.write_all(&req).unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(n) = check_response(&buf, &key, b"").expect("101") {
            buf.drain(..n);
            return (sock, buf);
        }
        let n = sock.read(&mut chunk).unwrap();
        assert!(n > 0, "closed during the handshake");
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Reads the server's frames until its Close: the code, or None if the connection ended
/// without one. Panics on a message (none is expected) or a bad frame.
fn close_code(sock: &mut TcpStream, mut buf: Vec<u8>) -> Option<u16> {
    let mut sess = Session::client(Limits::default(), 7);
    let mut out = Vec::new();
    let mut chunk = vec![0u8; 65536];
    loop {
        let (n, code) = match sess.next(&mut buf, &mut out).expect("valid frames") {
            (n, Some(Event::Close { code, .. })) => (n, Some(code)),
            (n, Some(Event::Pong(_) | Event::Ping(_))) => (n, None),
            (_, Some(ev)) => panic!("unexpected {ev:?}"),
            (n, None) => (n, None),
        };
        buf.drain(..n);
        if let Some(code) = code {
            return code;
        }
        match sock.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// The connection ends (EOF or reset) before the read timeout.
fn ends(sock: &mut TcpStream) -> bool {
    let mut chunk = [0u8; 65536];
    let until = Instant::now() + Duration::from_secs(20);
    while Instant::now() < until {
        match sock.read(&mut chunk) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return false
            }
            Err(_) => return true,
        }
    }
    false
}

fn masked(fin: bool, op: Opcode, payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    frame::write_frame(&mut v, fin, op, payload, Some(KEY));
    v
}

#[test]
fn frame_lengths_of_2_63_and_2_63_minus_1() {
    let s = server(ServerConfig::default());
    for (len, code) in [(1u64 << 63, 1002), ((1 << 63) - 1, 1009), (u64::MAX, 1002)] {
        let (mut sock, rest) = upgrade(&s, "/ws/echo");
        let mut f = vec![0x82, 0xff];
        f.extend_from_slice(&len.to_be_bytes());
        f.extend_from_slice(&KEY);
        f.extend_from_slice(b"some payload");
        sock.write_all(&f).unwrap();
        assert_eq!(close_code(&mut sock, rest), Some(code), "length {len}");
        drop(sock);
    }
    // The server stays up and echoes.
    let (mut sock, rest) = upgrade(&s, "/ws/echo");
    sock.write_all(&masked(true, Opcode::Text, b"still here"))
        .unwrap();
    let mut buf = rest;
    let mut chunk = [0u8; 64];
    while buf.len() < 12 {
        let n = sock.read(&mut chunk).unwrap();
        assert!(n > 0);
        buf.extend_from_slice(&chunk[..n]);
    }
    assert_eq!(&buf[..12], b"\x81\x0astill here");
    let st = s.stats();
    assert_eq!(st.ws_closes, vec![(1002, 2), (1009, 1)]);
}

#[test]
fn a_fragmented_message_that_never_ends_is_cut_at_the_limit() {
    let s = server(ServerConfig {
        ws_max_message: 1 << 20,
        ..ServerConfig::default()
    });
    let (mut sock, rest) = upgrade(&s, "/ws/echo");
    let mut writer = sock.try_clone().unwrap();
    writer
        .set_write_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let stop_w = stop.clone();
    let t = std::thread::spawn(move || {
        let piece = vec![b'a'; 64 * 1024];
        let mut sent = 0u64;
        let mut f = masked(false, Opcode::Text, &piece);
        // Stops when the server closes (a write fails) or the reader has its answer; a cap
        // keeps the test finite whatever the server does.
        while !stop_w.load(Ordering::Relaxed) && sent < 256 << 20 {
            if writer.write_all(&f).is_err() {
                break;
            }
            sent += f.len() as u64;
            f = masked(false, Opcode::Continuation, &piece);
        }
        sent
    });
    assert_eq!(close_code(&mut sock, rest), Some(1009));
    stop.store(true, Ordering::Relaxed);
    let sent = t.join().unwrap();
    assert!(sent >= 1 << 20, "the limit was reached: {sent}");
    assert!(ends(&mut sock), "the server closes the connection");
    assert_eq!(s.stats().ws_closes, vec![(1009, 1)]);
}

#[test]
fn a_ping_flood_from_a_client_that_never_reads_is_not_read_either() {
    let s = server(ServerConfig {
        idle_timeout: Duration::from_secs(1),
        ..ServerConfig::default()
    });
    let (mut sock, _) = upgrade(&s, "/ws/echo");
    sock.set_nonblocking(true).unwrap();
    let ping = masked(true, Opcode::Ping, &[b'p'; 125]);
    let batch: Vec<u8> = ping.repeat(512);
    let mut sent = 0usize;
    let cap = 1usize << 30;
    let mut blocked_since: Option<Instant> = None;
    // Write pings until the server has stopped taking them for a second (its output is full
    // of pongs nobody reads, so it stops reading; the kernel's buffers fill behind it).
    while sent < cap {
        match sock.write(&batch[sent % batch.len()..]) {
            Ok(n) => {
                sent += n;
                blocked_since = None;
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                let since = *blocked_since.get_or_insert_with(Instant::now);
                if since.elapsed() > Duration::from_secs(1) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(_) => break,
        }
    }
    assert!(
        sent < cap,
        "the server kept reading a flood nobody reads the answers of"
    );
    // Meanwhile another client is served.
    let (mut other, _) = upgrade(&s, "/ws/echo");
    other
        .write_all(&masked(true, Opcode::Binary, b"hello"))
        .unwrap();
    let mut got = [0u8; 7];
    other.read_exact(&mut got).unwrap();
    assert_eq!(&got, b"\x82\x05hello");
    drop(other);
    // No byte moves on the flooded connection: the idle timeout ends it.
    sock.set_nonblocking(false).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut pongs = 0usize;
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        match sock.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => pongs += n,
        }
    }
    eprintln!("ping flood: {sent} bytes of pings written, {pongs} bytes of pongs read");
    assert!(
        pongs < sent,
        "fewer pong bytes ({pongs}) than ping bytes ({sent})"
    );
    assert!(s.stats().active <= 1, "the flooded connection is closed");
}

#[test]
fn invalid_utf8_and_unmasked_frames_fail_the_connection() {
    let s = server(ServerConfig::default());
    let cases: Vec<(Vec<u8>, u16)> = vec![
        (masked(true, Opcode::Text, b"\xce\xba\xff"), 1007),
        (
            [
                masked(false, Opcode::Text, b"ok \xf0\x9f"),
                masked(true, Opcode::Continuation, b"\x98"),
            ]
            .concat(),
            1007,
        ),
        (b"\x81\x05hello".to_vec(), 1002),
        (masked(true, Opcode::Continuation, b"x"), 1002),
    ];
    for (bytes, code) in &cases {
        let (mut sock, rest) = upgrade(&s, "/ws/echo");
        sock.write_all(bytes).unwrap();
        assert_eq!(close_code(&mut sock, rest), Some(*code), "{bytes:?}");
        // The client answers the close; the server ends the connection.
        sock.write_all(&{
            let mut v = Vec::new();
            frame::write_close(&mut v, Some(*code), "", Some(KEY));
            v
        })
        .unwrap();
        assert!(ends(&mut sock));
    }
    assert_eq!(s.stats().ws_closes, vec![(1002, 2), (1007, 2)]);
}

#[test]
fn a_handshake_that_never_completes_times_out() {
    let s = server(ServerConfig {
        idle_timeout: Duration::from_millis(500),
        ..ServerConfig::default()
    });
    let mut sock = connect(s.local_addr());
    sock.write_all(b"GET /ws/echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n")
        .unwrap();
    assert!(ends(&mut sock), "closed by the idle timeout");
    // One that never ends grows no further than the header limit.
    let s = server(ServerConfig {
        header_limit: 1024,
        ..ServerConfig::default()
    });
    let mut r = Reader::new(connect(s.local_addr()));
    let mut head = b"GET /ws/echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n".to_vec();
    for _ in 0..40 {
        head.extend_from_slice(b"X-Pad: 0123456789012345678901234567890123456789\r\n");
    }
    r.send(&head);
    assert_eq!(r.response(false).unwrap().status, 431);
    assert_eq!(s.stats().ws_upgrades, 0);
}

#[test]
fn bad_handshakes_get_their_status() {
    let s = server(ServerConfig::default());
    let ok = "GET /ws/echo HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";
    let cases = [
        (ok.replace("Upgrade: websocket\r\n", ""), 426),
        (ok.replace("Version: 13", "Version: 8"), 426),
        (ok.replace("dGhlIHNhbXBsZSBub25jZQ==", "short"), 400),
        (
            ok.replace("Connection: Upgrade", "Connection: keep-alive"),
            400,
        ),
        (ok.replace("GET", "POST"), 405),
        (ok.replace("/ws/echo", "/ws/echo?fault=explode"), 400),
    ];
    for (req, status) in &cases {
        let mut r = Reader::new(connect(s.local_addr()));
        r.send(req.as_bytes());
        let resp = r.response(false).unwrap();
        assert_eq!(resp.status, *status, "{req}");
        if *status == 426 {
            assert_eq!(resp.header("sec-websocket-version"), Some("13"));
            assert_eq!(resp.header("upgrade"), Some("websocket"));
        }
    }
    // And the good one, with a frame sent right behind the request.
    let mut sock = connect(s.local_addr());
    let mut req = ok.as_bytes().to_vec();
    req.extend(masked(true, Opcode::Text, b"eager"));
    sock.write_all(&req).unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let key = *b"dGhlIHNhbXBsZSBub25jZQ==";
    let n = loop {
        if let Some(n) = check_response(&buf, &key, b"").unwrap() {
            break n;
        }
        let n = sock.read(&mut chunk).unwrap();
        assert!(n > 0);
        buf.extend_from_slice(&chunk[..n]);
    };
    while buf.len() < n + 7 {
        let m = sock.read(&mut chunk).unwrap();
        assert!(m > 0);
        buf.extend_from_slice(&chunk[..m]);
    }
    assert_eq!(&buf[n..n + 7], b"\x81\x05eager");
    assert_eq!(s.stats().ws_upgrades, 1);
}

#[test]
fn a_shutdown_says_going_away() {
    let s = server(ServerConfig::default());
    let (mut sock, rest) = upgrade(&s, "/ws/echo");
    let stats = s.stats_reader();
    let t = std::thread::spawn(move || s.shutdown());
    assert_eq!(close_code(&mut sock, rest), Some(1001));
    let mut v = Vec::new();
    frame::write_close(&mut v, Some(1001), "", Some(KEY));
    sock.write_all(&v).unwrap();
    assert!(ends(&mut sock));
    t.join().unwrap();
    assert_eq!(stats.read().ws_closes, vec![(1001, 1)]);
}

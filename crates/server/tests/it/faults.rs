//! Every fault through a real socket, and the seeded --fault-rate.

use crate::common;
use barrage_server::{pattern, ServerConfig};
use common::*;
use std::io::Read;
use std::time::{Duration, Instant};

#[test]
fn reset_close_garbage() {
    let s = server();
    let a = s.local_addr();
    let mut c = Reader::new(connect(a));
    c.send(b"GET /fault/reset HTTP/1.1\r\nHost: t\r\n\r\n");
    let mut buf = [0u8; 16];
    let err = c.stream.read(&mut buf).expect_err("a reset");
    assert_eq!(err.kind(), std::io::ErrorKind::ConnectionReset);

    let mut c = Reader::new(connect(a));
    c.send(b"GET /fault/close HTTP/1.1\r\nHost: t\r\n\r\n");
    assert_eq!(
        c.stream.read(&mut buf).unwrap(),
        0,
        "closed without an answer"
    );

    let mut c = Reader::new(connect(a));
    c.send(b"GET /fault/garbage HTTP/1.1\r\nHost: t\r\n\r\n");
    let mut all = Vec::new();
    c.stream.read_to_end(&mut all).unwrap();
    assert!(!all.is_empty());
    assert!(barrage_wire::parse_response_head(&all, false).is_err());
    s.shutdown();
}

#[test]
fn pipelined_answers_before_a_fault_arrive() {
    let s = server();
    let mut c = Reader::new(connect(s.local_addr()));
    c.send(b"GET / HTTP/1.1\r\nHost: t\r\n\r\nGET /fault/close HTTP/1.1\r\nHost: t\r\n\r\nGET / HTTP/1.1\r\nHost: t\r\n\r\n");
    assert_eq!(c.response(false).unwrap().status, 200);
    assert!(c.response(false).is_err(), "closed at the fault");
    s.shutdown();
}

#[test]
fn stall_never_answers() {
    let s = server();
    let c = connect(s.local_addr());
    let mut c = Reader::new(c);
    c.send(b"GET /fault/stall HTTP/1.1\r\nHost: t\r\n\r\nGET / HTTP/1.1\r\nHost: t\r\n\r\n");
    c.stream
        .set_read_timeout(Some(Duration::from_millis(400)))
        .unwrap();
    let mut buf = [0u8; 16];
    let err = c.stream.read(&mut buf).expect_err("no answer");
    assert!(matches!(
        err.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    ));
    // Other connections are served meanwhile.
    assert_eq!(get(s.local_addr(), "/").status, 200);
    s.shutdown();
}

#[test]
fn drip_is_slow_and_correct() {
    let s = server();
    let t = Instant::now();
    let r = get(s.local_addr(), "/fault/drip?bytes=5&every=40");
    // Five bytes, one per 40 ms timer: at least 4 intervals after the head.
    assert!(t.elapsed() >= Duration::from_millis(160));
    assert_eq!(r.body, [0, 1, 2, 3, 4]);
    assert_eq!(
        r.header("X-Checksum").map(str::to_string),
        Some(pattern::checksum(5))
    );
    let r = get(s.local_addr(), "/fault/drip?bytes=0");
    assert_eq!((r.status, r.body.len()), (200, 0));
    s.shutdown();
}

/// What happened to request `i` of a sequence of requests each on a new connection.
fn outcome(addr: std::net::SocketAddr) -> &'static str {
    let mut c = Reader::new(connect(addr));
    c.stream
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    c.send(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n");
    match c.response(false) {
        Ok(r) if r.status == 200 => "ok",
        Ok(_) => "status",
        Err(e) if e == "reset" => "reset",
        Err(e) if e == "eof" => "close",
        Err(e) if e.starts_with("bad response") => "garbage",
        Err(e) if e.starts_with("read") => "stall",
        Err(_) => "other",
    }
}

#[test]
fn fault_rate_is_seeded_and_deterministic() {
    let run = |seed: u64| {
        let s = server_with(ServerConfig {
            fault_rate: 0.5,
            fault_seed: seed,
            threads: 1,
            ..Default::default()
        });
        let v: Vec<&str> = (0..24).map(|_| outcome(s.local_addr())).collect();
        s.shutdown();
        v
    };
    let a = run(7);
    assert_eq!(a, run(7), "same seed, same faults");
    let faults = a.iter().filter(|&&o| o != "ok").count();
    assert!(
        (3..=21).contains(&faults),
        "about half of 24: {faults} {a:?}"
    );
    assert!(!a.contains(&"other"), "{a:?}");
    let all = server_with(ServerConfig {
        fault_rate: 1.0,
        threads: 1,
        ..Default::default()
    });
    let kinds: std::collections::BTreeSet<&str> =
        (0..40).map(|_| outcome(all.local_addr())).collect();
    assert!(!kinds.contains("ok"), "{kinds:?}");
    assert_eq!(kinds.len(), 4, "all four kinds over 40 faults: {kinds:?}");
    all.shutdown();
}

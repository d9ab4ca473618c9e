//! `barrage serve --http3`'s work per event while much is held: a thousand silent connections
//! and two thousand slow uploads (`h3_hostile_client.py hold`). The server counts what it looks
//! at (`ServerStats::h3`: request streams named, connections popped from its queues, heap or
//! datagrams), and those counts per request and per upload byte must not grow with what is
//! held. Before, every loop turn asked every connection for its timers and for datagrams to
//! send, and every write or body event rescanned the requests of its connection: thousands of
//! silent connections used half a core, and slow uploads most of one.
//!
//! Counts, not timings: the figures are read once the server is quiet (nothing looked at for
//! a while), so that they hold only the work of what the test did in between.

use crate::h3_hostile::{h3_server, peer, python, served};
use barrage_server::{H3Stats, ServerConfig, ServerHandle};
use barrage_testkit::Proc;
use std::io::{BufRead, BufReader, Lines, Write};
use std::process::{ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const IDLE: u64 = 1000;
const CONNS: u64 = 8;
const STREAMS: u64 = 250;

/// The server's HTTP/3 figures once they stopped moving (unchanged over 600 ms; at most 60 s).
fn quiet(s: &ServerHandle) -> H3Stats {
    let until = Instant::now() + Duration::from_secs(60);
    let mut last = s.stats().h3;
    let mut still = 0;
    while still < 3 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(200));
        let now = s.stats().h3;
        still = if now == last { still + 1 } else { 0 };
        last = now;
    }
    last
}

/// The next line the holder printed.
fn line(out: &mut Lines<BufReader<ChildStdout>>) -> String {
    out.next()
        .expect("the holder printed a line")
        .expect("its output is text")
}

#[test]
fn work_per_request_and_per_upload_byte_stays_flat_with_much_held() {
    let Some(py) = python() else { return };
    let s = h3_server(ServerConfig {
        idle_timeout: Duration::from_secs(300),
        ..ServerConfig::default()
    });
    let mut child = Command::new(&py)
        .arg(peer("h3_hostile_client.py"))
        .args(["127.0.0.1", &s.local_addr().port().to_string(), "hold"])
        .args([IDLE, CONNS, STREAMS].map(|n| n.to_string()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let holder = Proc(child);
    assert_eq!(line(&mut out), format!("held {IDLE} {CONNS} {STREAMS}"));
    let uploads = CONNS * STREAMS;

    let base = quiet(&s);
    assert_eq!(s.stats().active, IDLE + CONNS);
    // 20 requests on a connection of their own, beside 1,008 connections and 2,000 uploads.
    served(&py, &s, 20);
    let after = quiet(&s);
    let conns = after.conns_visited - base.conns_visited;
    let streams = after.streams_visited - base.streams_visited;
    eprintln!("20 requests: {conns} connection and {streams} stream visits");
    // Its handshake, 20 requests and the close: a few datagrams each way per request. One
    // look at every connection held per loop turn would be 1,008 per turn.
    assert!(
        conns <= 20 * 40,
        "{conns} connection visits for 20 requests"
    );
    assert!((20..=20 * 6).contains(&streams), "{streams} stream visits");

    // One more byte on every upload: 2,000 body events, each naming its stream once or so.
    writeln!(stdin, "round").unwrap();
    assert_eq!(line(&mut out), format!("sent {uploads}"));
    let round = quiet(&s);
    let conns = round.conns_visited - after.conns_visited;
    let streams = round.streams_visited - after.streams_visited;
    eprintln!("{uploads} upload bytes: {conns} connection and {streams} stream visits");
    assert!(
        (uploads..=uploads * 3).contains(&streams),
        "{streams} stream visits for {uploads} upload bytes"
    );
    // At most one datagram per byte, each looked at on arrival and when it is answered.
    assert!(conns <= uploads * 3, "{conns} connection visits");

    // Still served with all of that held; then the holder leaves, closing everything.
    served(&py, &s, 1);
    writeln!(stdin, "quit").unwrap();
    drop(stdin);
    let until = Instant::now() + Duration::from_secs(30);
    while s.stats().active > 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(holder);
    let end = s.stats();
    assert_eq!(end.active, 0);
    // Counts add up: 21 requests answered, no upload (their bodies never ended), every
    // connection accepted once (1,008 held, 2 of the well-behaved client).
    assert_eq!(end.responses, vec![("h3", 200, 21)]);
    assert_eq!(end.accepted, IDLE + CONNS + 2);
    assert_eq!(end.h3.handshakes, 0);
    assert_eq!(end.h3.handshakes_dropped, 0);
}

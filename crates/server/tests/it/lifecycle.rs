//! Shutdown, connection limits and the idle timeout.

use crate::common;
use barrage_server::ServerConfig;
use common::*;
use std::time::Duration;

#[test]
fn shutdown_finishes_in_flight_responses() {
    let s = server();
    let a = s.local_addr();
    let mut sleeper = Reader::new(connect(a));
    sleeper.send(b"GET /sleep/300 HTTP/1.1\r\nHost: t\r\n\r\n");
    let mut streamer = Reader::new(connect(a));
    streamer.send(b"GET /bytes/20MiB HTTP/1.1\r\nHost: t\r\n\r\n");
    let idle = Reader::new(connect(a));
    // Let the server read both requests before shutting down.
    std::thread::sleep(Duration::from_millis(100));
    let stopper = std::thread::spawn(move || s.shutdown());
    let r = sleeper.response(false).expect("the sleep is answered");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("Connection"), Some("close"));
    let r = streamer.response(false).expect("the stream completes");
    assert_eq!(r.body.len(), 20 << 20);
    stopper.join().unwrap();
    let mut idle = idle;
    assert!(idle.closed(), "idle connections are closed");
    // No longer listening.
    assert!(std::net::TcpStream::connect(a).is_err());
}

#[test]
fn shutdown_is_bounded_by_the_grace_period() {
    let s = server_with(ServerConfig {
        grace: Duration::from_millis(200),
        ..Default::default()
    });
    let mut c = Reader::new(connect(s.local_addr()));
    c.send(b"GET /sleep/60000 HTTP/1.1\r\nHost: t\r\n\r\n");
    std::thread::sleep(Duration::from_millis(50));
    let t = std::time::Instant::now();
    drop(s);
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(c.response(false).is_err());
}

#[test]
fn max_connections_is_enforced() {
    let s = server_with(ServerConfig {
        max_connections: 2,
        threads: 1,
        ..Default::default()
    });
    let a = s.local_addr();
    let mut c1 = Reader::new(connect(a));
    let mut c2 = Reader::new(connect(a));
    c1.send(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n");
    c2.send(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n");
    assert_eq!(c1.response(false).unwrap().status, 200);
    assert_eq!(c2.response(false).unwrap().status, 200);
    let mut c3 = Reader::new(connect(a));
    let _ = std::io::Write::write_all(&mut c3.stream, b"GET / HTTP/1.1\r\nHost: t\r\n\r\n");
    assert!(c3.response(false).is_err(), "third connection refused");
    drop(c1);
    // A slot frees up once the server sees the close.
    let mut ok = false;
    for _ in 0..50 {
        std::thread::sleep(Duration::from_millis(20));
        let mut c = Reader::new(connect(a));
        let _ = std::io::Write::write_all(&mut c.stream, b"GET / HTTP/1.1\r\nHost: t\r\n\r\n");
        if c.response(false).is_ok() {
            ok = true;
            break;
        }
    }
    assert!(ok);
    s.shutdown();
}

#[test]
fn idle_connections_time_out() {
    let s = server_with(ServerConfig {
        idle_timeout: Duration::from_millis(200),
        ..Default::default()
    });
    let mut c = Reader::new(connect(s.local_addr()));
    c.send(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n");
    assert_eq!(c.response(false).unwrap().status, 200);
    // Closed by the server within a few sweeps (the read timeout is 10 s).
    assert!(c.closed());
    s.shutdown();
}

#[test]
fn half_closed_client_still_gets_answers() {
    let s = server();
    let mut c = Reader::new(connect(s.local_addr()));
    c.send(b"GET /sleep/50 HTTP/1.1\r\nHost: t\r\n\r\nGET / HTTP/1.1\r\nHost: t\r\n\r\n");
    c.stream.shutdown(std::net::Shutdown::Write).unwrap();
    assert_eq!(c.response(false).unwrap().status, 200);
    assert_eq!(c.response(false).unwrap().text(), "Hello, World!");
    assert!(c.closed());
    s.shutdown();
}

#[test]
fn a_client_that_stops_reading_times_out() {
    let s = server_with(ServerConfig {
        idle_timeout: Duration::from_millis(300),
        ..Default::default()
    });
    let mut c = Reader::new(connect(s.local_addr()));
    c.send(b"GET /bytes/1GiB HTTP/1.1\r\nHost: t\r\n\r\n");
    // Read nothing while the server's writes fill the socket buffers and stall.
    std::thread::sleep(Duration::from_millis(1500));
    let mut got = 0u64;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match std::io::Read::read(&mut c.stream, &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n as u64,
        }
    }
    // The server gave up on the stalled transfer long before the body was complete.
    assert!(got < 1 << 30, "{got}");
    s.shutdown();
}

/// `concurrency: 1` serves sleeps one at a time, server-wide: three `/sleep/150` sent together on
/// three connections (to two worker threads) are answered no earlier than 150, 300 and 450 ms
/// after they were sent; without the limit all three come after ~150 ms (the upper bound there
/// is generous: it only tells the two cases apart).
#[test]
fn concurrency_makes_sleeps_wait_for_a_slot() {
    for (limit, threads) in [(Some(1), 2), (None, 2)] {
        let s = server_with(ServerConfig {
            concurrency: limit,
            threads,
            ..Default::default()
        });
        let t0 = std::time::Instant::now();
        let clients: Vec<_> = (0..3)
            .map(|_| {
                let mut c = Reader::new(connect(s.local_addr()));
                c.send(b"GET /sleep/150 HTTP/1.1\r\nHost: t\r\n\r\n");
                c
            })
            .collect();
        let handles: Vec<_> = clients
            .into_iter()
            .map(|mut c| {
                std::thread::spawn(move || {
                    let r = c.response(false).expect("answered");
                    assert_eq!(r.status, 200);
                    assert_eq!(r.body, b"slept 150 ms\n");
                    t0.elapsed()
                })
            })
            .collect();
        let mut done: Vec<Duration> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        done.sort();
        match limit {
            Some(_) => {
                for (i, d) in done.iter().enumerate() {
                    let floor = Duration::from_millis(150 * (i as u64 + 1));
                    assert!(*d >= floor, "answer {i} at {d:?}, before {floor:?}");
                }
            }
            None => assert!(done[2] < Duration::from_millis(440), "{done:?}"),
        }
    }
}

//! `barrage load --http1.0`: against barrage's own server (keep-alive asked and granted, or not
//! asked: a connection per request), and against a hand-written HTTP/1.0 server that records
//! what came and answers as an old server does (keep-alive refused with a close-delimited body,
//! or granted with a length).

use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol, RunResult};
use barrage_server::{start, ServerConfig, Tls};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

fn load(url: String, keepalive: bool, requests: u64, connections: usize) -> RunResult {
    let c = Config {
        url,
        protocol: Protocol::Http10 { keepalive },
        connections,
        threads: 1,
        requests: Some(requests),
        expect_status: Some(200),
        insecure: true,
        ..Config::default()
    };
    run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap()
}

/// Against `barrage serve`, in cleartext and over TLS (whose ALPN has no http/1.0: it takes the
/// requests on http/1.1): every request answered, and the server accepted one connection per
/// load connection with keep-alive, one per request without (each plus the engine's probe).
#[test]
fn http10_against_barrage_serve() {
    for (keepalive, conns_per, tls) in [
        (true, false, false),
        (false, true, false),
        (true, false, true),
    ] {
        let s = start(ServerConfig {
            threads: 1,
            tls: tls.then_some(Tls::SelfSigned),
            ..ServerConfig::default()
        })
        .unwrap();
        let scheme = if tls { "https" } else { "http" };
        let r = load(format!("{scheme}://{}/", s.local_addr()), keepalive, 200, 4);
        assert_eq!(
            r.requests, 200,
            "keep-alive {keepalive}: {:?}",
            r.error_examples
        );
        assert_eq!(r.errors.total(), 0, "{:?}", r.error_examples);
        let stats = s.stats();
        // barrage serve counts what it answered as HTTP/1.0 (every response, none as 1.1).
        assert_eq!(
            stats.responses,
            vec![("http/1.0", 200, 200)],
            "keep-alive {keepalive}"
        );
        let accepted = stats.accepted;
        // The probe, then 4 connections, or one per request: none opened beside the last
        // requests, which the connections already opening take.
        let want = if conns_per { 200 } else { 4 };
        assert_eq!(
            accepted,
            want + 1,
            "keep-alive {keepalive}: the probe and {want}"
        );
        // The document's connects count the same connections.
        assert_eq!(r.connects, want, "keep-alive {keepalive}: connects");
        s.shutdown();
    }
}

/// A body barrage serve sends chunked to HTTP/1.1 comes to HTTP/1.0 without a length, ending
/// with the connection: each is a whole, checked response, and the next request opens a new
/// connection.
#[test]
fn http10_takes_bodies_that_end_with_the_connection() {
    let s = start(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    })
    .unwrap();
    let mut want = vec![0u8; 10_000];
    barrage_server::pattern::fill(0, &mut want);
    let c = Config {
        url: format!("http://{}/bytes/10000?chunked=1", s.local_addr()),
        protocol: Protocol::Http10 { keepalive: true },
        connections: 2,
        threads: 1,
        requests: Some(50),
        expect_status: Some(200),
        expect_body: Some(want),
        ..Config::default()
    };
    let r = run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap();
    assert_eq!(r.requests, 50, "{:?}", r.error_examples);
    assert_eq!(r.errors.total(), 0, "{:?}", r.error_examples);
    // The probe and one connection per request.
    assert_eq!(s.stats().accepted, 51);
    s.shutdown();
}

/// A one-connection-at-a-time HTTP/1.0 server: records every request head, answers each with
/// `hello`, keeping the connection only when `grant` (and the request asked).
struct OldServer {
    addr: std::net::SocketAddr,
    heads: Arc<Mutex<Vec<String>>>,
    accepted: Arc<Mutex<u64>>,
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl OldServer {
    fn start(grant: bool) -> OldServer {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.set_nonblocking(true).unwrap();
        let addr = l.local_addr().unwrap();
        let heads = Arc::new(Mutex::new(Vec::new()));
        let accepted = Arc::new(Mutex::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (h, a, st) = (heads.clone(), accepted.clone(), stop.clone());
        let thread = thread::spawn(move || {
            while !st.load(Ordering::Relaxed) {
                match l.accept() {
                    Ok((sock, _)) => {
                        *a.lock().unwrap() += 1;
                        serve(sock, grant, &h);
                    }
                    Err(_) => thread::sleep(Duration::from_millis(1)),
                }
            }
        });
        OldServer {
            addr,
            heads,
            accepted,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for OldServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}

fn serve(mut sock: TcpStream, grant: bool, heads: &Mutex<Vec<String>>) {
    sock.set_nonblocking(false).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
            match sock.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
            continue;
        };
        let head = String::from_utf8_lossy(&buf[..end + 4]).into_owned();
        buf.drain(..end + 4);
        let keep = grant && head.contains("\r\nConnection: keep-alive\r\n");
        heads.lock().unwrap().push(head);
        let answer: &[u8] = match keep {
            true => b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 5\r\n\r\nhello",
            // No length: the body ends with the connection, as an HTTP/1.0 server may say it.
            false => b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nhello",
        };
        if sock.write_all(answer).is_err() || !keep {
            return;
        }
    }
}

/// What goes out is HTTP/1.0 asking for keep-alive; a server that refuses it (closing after a
/// close-delimited body) costs a connection per request and no error, one that grants it
/// carries every request on one connection.
#[test]
fn http10_keepalive_refused_or_granted() {
    for grant in [false, true] {
        let old = OldServer::start(grant);
        let mut c = Config {
            url: format!("http://{}/x", old.addr),
            protocol: Protocol::Http10 { keepalive: true },
            connections: 1,
            threads: 1,
            requests: Some(20),
            expect_status: Some(200),
            expect_body: Some(b"hello".to_vec()),
            ..Config::default()
        };
        c.timeout = Duration::from_secs(5);
        let r = run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap();
        assert_eq!(r.requests, 20, "grant {grant}: {:?}", r.error_examples);
        assert_eq!(r.errors.total(), 0, "grant {grant}: {:?}", r.error_examples);
        let heads = old.heads.lock().unwrap().clone();
        assert_eq!(heads.len(), 20, "grant {grant}");
        let host = format!("Host: {}\r\n", old.addr);
        for h in &heads {
            assert!(h.starts_with("GET /x HTTP/1.0\r\n"), "{h:?}");
            assert!(h.contains(&host), "{h:?}");
            assert!(h.ends_with("\r\nConnection: keep-alive\r\n\r\n"), "{h:?}");
        }
        let accepted = *old.accepted.lock().unwrap();
        let want = if grant { 1 } else { 20 };
        assert_eq!(accepted, want + 1, "grant {grant}: the probe and {want}");
    }
}

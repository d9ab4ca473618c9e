//! `barrage load --http3` against an independent HTTP/3 server: aioquic's
//! (`crates/wire/tests/h3_peers/h3_server.py`, on a UDP port of its own on loopback, with a
//! self-signed certificate it makes, so the load runs with `-k`). Exact counts in the closed and
//! the open loop, which the server's own count of answers agrees with; a wrong expected body and
//! a port nobody serves are counted errors, never successes or a hang.

use barrage_engine::ErrorClass;
use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol, RunResult};
use barrage_testkit::Proc;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

/// The Python that has aioquic; `None` when the test is skipped (barrage_testkit::python).
fn python() -> Option<PathBuf> {
    barrage_testkit::python("aioquic.asyncio, aioquic.h3.connection", "aioquic")
}

struct Server {
    _proc: Proc,
    port: u16,
    lines: Receiver<String>,
}

impl Server {
    fn start(py: &Path, args: &[&str]) -> Server {
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../wire/tests/h3_peers/h3_server.py");
        let mut child = Command::new(py)
            .arg(script)
            .arg("--self-signed")
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .expect("python starts");
        let out = BufReader::new(child.stdout.take().unwrap());
        let proc = Proc(child);
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for l in out.lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let first = lines.recv_timeout(Duration::from_secs(30)).unwrap();
        let port = first.strip_prefix("port ").unwrap().parse().unwrap();
        Server {
            _proc: proc,
            port,
            lines,
        }
    }

    /// The server's count of requests answered, once it stopped growing.
    fn answered(&self) -> usize {
        let mut n = 0;
        let until = Instant::now() + Duration::from_secs(10);
        while let Ok(l) = self.lines.recv_timeout(Duration::from_millis(500)) {
            n = l.split(' ').nth(1).unwrap().parse().unwrap();
            if Instant::now() > until {
                break;
            }
        }
        n
    }
}

fn body(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i % 251) as u8).collect()
}

fn base(port: u16) -> Config {
    Config {
        url: format!("https://127.0.0.1:{port}/"),
        protocol: Protocol::Http3 { streams: 4 },
        insecure: true,
        connections: 3,
        threads: 2,
        requests: Some(300),
        expect_body: Some(body(1000)),
        timeout: Duration::from_secs(5),
        ..Config::default()
    }
}

fn load(c: Config) -> RunResult {
    run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap()
}

fn assert_clean(name: &str, r: &RunResult) {
    eprintln!(
        "{name}: {} {} {:?} {:?} {:?}",
        r.requests, r.requests_written, r.status, r.errors, r.error_examples
    );
    assert_eq!(
        r.errors.total(),
        0,
        "{name}: {:?} {:?}",
        r.errors,
        r.error_examples
    );
    assert_eq!(r.status["200"], r.requests, "{name}");
    assert_eq!(
        r.requests_written,
        r.requests + r.in_flight,
        "{name}: counts add up"
    );
    assert!(
        barrage_model::load::Http2::of(&r.protocol).is_none(),
        "{name}: HTTP/3 is not HTTP/2"
    );
    assert!(
        matches!(r.config.protocol, Protocol::Http3 { .. }),
        "{name}"
    );
}

#[test]
fn closed_loop_sends_exactly_n_requests_and_the_server_agrees() {
    let Some(py) = python() else { return };
    let s = Server::start(&py, &[]);
    let r = load(base(s.port));
    assert_clean("closed", &r);
    assert_eq!(r.requests, 300);
    assert_eq!(s.answered(), 300);
    let h = barrage_model::load::Http3::of(&r.protocol).expect("an http3 section");
    assert_eq!(
        (h.connections, h.handshakes, h.streams),
        (3, 3, 300),
        "{h:?}"
    );
    assert_eq!(h.streams_asked, 4);
    assert!(h.handshake_mean_us > 0.0, "{h:?}");
    // Requests share datagrams (4 streams at once) and acknowledgments ride along, so only
    // the bodies give a floor: 300 KB in datagrams of at most 1500 bytes.
    assert!(h.datagrams_sent > 0 && h.datagrams_received >= 200, "{h:?}");
    let per = (h.datagrams_sent + h.datagrams_received) as f64 / 300.0;
    assert!((h.datagrams_per_request - per).abs() < 1e-9, "{h:?}");
    assert!(h.packets_sent >= h.datagrams_sent, "{h:?}");
    // aioquic's ls-qpack used the dynamic table this side announced.
    assert!(h.qpack_inserts > 0, "{h:?}");
    let doc = serde_json::to_value(&r).unwrap();
    crate::schema::assert_valid(&crate::schema::schema(), &doc);
    assert_eq!(doc["config"]["http3"], true);
}

#[test]
fn open_loop_sends_at_its_rate_with_exact_counts() {
    let Some(py) = python() else { return };
    let s = Server::start(&py, &[]);
    let r = load(Config {
        rate: Some(400.0),
        requests: Some(200),
        ..base(s.port)
    });
    assert_clean("open", &r);
    assert_eq!(r.requests, 200);
    assert_eq!(s.answered(), 200);
}

#[test]
fn a_wrong_body_and_a_dead_port_are_counted_errors() {
    let Some(py) = python() else { return };
    let s = Server::start(&py, &[]);
    let r = load(Config {
        expect_body: Some(body(999)),
        requests: Some(50),
        ..base(s.port)
    });
    assert_eq!(r.errors[ErrorClass::Body], 50, "{:?}", r.errors);
    assert_eq!(r.errors.total(), 50);
    assert_eq!(r.requests_written, 50);
    assert_eq!(s.answered(), 50);
    drop(s);

    // Nobody serves the port: handshakes get no answer (or ICMP refusals), each connection
    // fails and the run, bounded by a request count, gives up instead of hanging.
    let dead = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = dead.local_addr().unwrap().port();
    drop(dead);
    let started = Instant::now();
    let r = load(Config {
        requests: Some(10),
        timeout: Duration::from_millis(500),
        ..base(port)
    });
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(r.requests, 0);
    assert!(r.errors[ErrorClass::Connect] > 0, "{:?}", r.errors);
    assert_eq!(
        r.errors.total(),
        r.errors[ErrorClass::Connect],
        "{:?}",
        r.errors
    );
}

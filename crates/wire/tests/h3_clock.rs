//! HTTP/3's client session runs on the caller's clock, not on the wall's: it is driven here
//! against this crate's own HTTP/3 server (`h3::server::Server`), both sans I/O, over a
//! simulated network of 10 ms each way, on instants made from one base and hand-advanced
//! durations. The base is an hour ahead of the wall clock, so a session that read the clock
//! anywhere would mix the two and show it (a timer before the instants it was given, a
//! handshake of no time or of an hour).
//!
//! What it checks: the handshake takes exactly one simulated round trip (20 ms) by the session's
//! own count, and the first response ends exactly a round trip after it; when the datagram
//! carrying a request is lost, QUIC's loss timer is a simulated instant after the send (a probe
//! timeout on a 20 ms path), nothing goes out at the instant just before it and the probe goes
//! out at it, and the request is then answered, no sooner than a round trip after the probe.
//! Taken twice from bases an hour apart, the run gives the same times relative to its base up
//! to the loss. (QUIC's own randomness, packet numbers skipped at random against optimistic
//! ACKs, may make the server acknowledge at once rather than after its delay, which moves the
//! later instants by a few milliseconds: those are held to their bounds in each run, not
//! compared between runs.)

use barrage_wire::client::{ClientSession, Counts, End, Tag};
use barrage_wire::h3::client::{Conn, Request, Setup};
use barrage_wire::h3::server::{Config, Event, Server};
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One way across the simulated network.
const HOP: Duration = Duration::from_millis(10);
/// The simulated time a phase may take at most (the run stops by itself).
const PHASE: Duration = Duration::from_secs(5);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct T {
    sent: Instant,
    i: u32,
}

impl Tag for T {
    fn counted(&self) -> bool {
        true
    }
    fn sent(&self) -> Instant {
        self.sent
    }
}

fn addr(s: &str) -> SocketAddr {
    s.parse().unwrap()
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A server with a self-signed certificate for localhost, and a client setup that trusts it.
fn pair() -> (Server, Setup) {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let cert = CertificateDer::from(made.cert.der().to_vec());
    let key = PrivateKeyDer::try_from(made.key_pair.serialize_der()).unwrap();
    let tls = rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert.clone()], key)
        .unwrap();
    let server = Server::new(&tls, Config::default()).unwrap();
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert).unwrap();
    let tls = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let get = Request::new("GET", "https", "localhost", "/", &[], b"");
    let setup = Setup::new(
        &tls,
        addr(SERVER),
        "localhost",
        vec![get],
        4,
        Duration::from_secs(10),
        Some(b"ok".to_vec()),
    )
    .unwrap();
    (server, setup)
}

const SERVER: &str = "127.0.0.1:4433";
const CLIENT: &str = "127.0.0.1:5000";

/// The client, the server, the datagrams between them, and the clock: `base + at`.
struct Net<'s> {
    base: Instant,
    at: Duration,
    client: Conn<'s, T>,
    server: Server,
    /// Datagrams under way, each with the time it arrives.
    to_server: VecDeque<(Duration, Vec<u8>)>,
    to_client: VecDeque<(Duration, Vec<u8>)>,
    /// Each request that ended: when (since the base), its tag, whether it was a whole
    /// response with the body expected.
    ends: Vec<(Duration, u32, bool)>,
}

impl Net<'_> {
    fn now(&self) -> Instant {
        self.base + self.at
    }

    /// Everything both sides have to send now goes on the wire (the server answers each
    /// request with 200 "ok" as it comes).
    fn send(&mut self) {
        let now = self.now();
        loop {
            let t = self.client.out();
            if t.is_empty() {
                break;
            }
            let (d, n) = (t.bytes.to_vec(), t.bytes.len());
            self.to_server.push_back((self.at + HOP, d));
            self.client.wrote(now, n);
        }
        while let Some(ev) = self.server.poll_event() {
            if let Event::Request { id, .. } = ev {
                assert!(self
                    .server
                    .respond(id, 200, &[("content-length", b"2")], false));
                assert_eq!(self.server.send_data(id, b"ok", true), 2);
            }
        }
        let mut buf = Vec::new();
        while let Some((to, _)) = self.server.poll_transmit(now, 1, &mut buf) {
            assert_eq!(to, addr(CLIENT));
            self.to_client.push_back((self.at + HOP, buf.clone()));
        }
    }

    /// Sends what is due, then moves the clock to the next arrival or timer and handles it;
    /// until `done` or a phase's time passed. Returns the instant it stopped at.
    fn run(&mut self, done: impl Fn(&mut Net) -> bool) -> Instant {
        let until = self.at + PHASE;
        loop {
            self.send();
            if done(self) {
                return self.now();
            }
            let next = [
                self.to_server.front().map(|d| d.0),
                self.to_client.front().map(|d| d.0),
                self.client.timer().map(|t| t - self.base),
                self.server.timeout().map(|t| t - self.base),
            ]
            .into_iter()
            .flatten()
            .min()
            .expect("something is always due: QUIC's idle timer at least");
            assert!(
                next >= self.at,
                "a timer in the past: {next:?} < {:?}",
                self.at
            );
            assert!(next <= until, "nothing happened for a phase's time");
            self.at = next;
            self.step();
        }
    }

    /// Delivers what has arrived and runs the timers that are due, at the current time.
    fn step(&mut self) {
        let now = self.now();
        while self.to_server.front().is_some_and(|d| d.0 <= self.at) {
            let (_, d) = self.to_server.pop_front().unwrap();
            self.server.handle(now, addr(CLIENT), &d);
        }
        if self.server.timeout().is_some_and(|t| t <= now) {
            self.server.handle_timeout(now);
        }
        let (base, ends) = (self.base, &mut self.ends);
        let mut on = |e: End<T>| match e {
            End::Response { tag, body_ok, .. } => ends.push((now - base, tag.i, body_ok)),
            other => panic!("every request is answered: {other:?}"),
        };
        while self.to_client.front().is_some_and(|d| d.0 <= self.at) {
            let (_, d) = self.to_client.pop_front().unwrap();
            self.client.feed(now, &d, &mut on).expect("a clean feed");
        }
        if self.client.timer().is_some_and(|t| t <= now) {
            self.client.expire(now, &mut on).expect("a clean expire");
        }
    }

    fn open(&mut self, i: u32) {
        let now = self.now();
        assert!(self.client.room() > 0);
        assert!(self.client.open(now, 0, 0, T { sent: now, i }));
    }
}

/// What the caller saw, relative to the base.
#[derive(Debug)]
struct Trace {
    handshake_us: u64,
    ends: Vec<(Duration, u32, bool)>,
    /// When the request whose datagram was lost was sent.
    lost_at: Duration,
    /// From then to QUIC's loss timer.
    pto: Duration,
}

fn scenario(base: Instant) -> Trace {
    let (server, setup) = pair();
    let mut net = Net {
        base,
        at: Duration::ZERO,
        client: Conn::new(&setup),
        server,
        to_server: VecDeque::new(),
        to_client: VecDeque::new(),
        ends: Vec::new(),
    };
    net.client.start(base, base);
    net.run(|n| n.client.connected() && n.client.room() > 0);

    // One request, answered.
    net.open(0);
    net.run(|n| n.ends.len() == 1);
    // Quiet: nothing under way and nothing due soon (QUIC's keep-alive and idle are seconds
    // away), so that the next timer is the loss timer alone.
    net.run(|n| {
        let soon = n.now() + Duration::from_secs(1);
        n.to_server.is_empty()
            && n.to_client.is_empty()
            && n.client.timer().is_some_and(|t| t > soon)
            && n.server.timeout().is_some_and(|t| t > soon)
    });

    // The next request's datagram is lost.
    let sent = net.now();
    net.open(1);
    let mut lost = 0;
    loop {
        let t = net.client.out();
        if t.is_empty() {
            break;
        }
        let n = t.bytes.len();
        net.client.wrote(sent, n);
        lost += 1;
    }
    assert_eq!(lost, 1, "the request went in one datagram");
    let timer = net.client.timer().expect("QUIC's loss timer");
    assert!(
        timer > sent,
        "the loss timer is after the send on the caller's clock: {timer:?} <= {sent:?}"
    );
    let pto = timer - sent;
    assert!(
        pto >= 2 * HOP && pto < Duration::from_secs(1),
        "a probe timeout on a {:?} path: {pto:?}",
        2 * HOP
    );
    // Nothing before the timer; the probe at it.
    let mut none = |e: End<T>| panic!("nothing ends here: {e:?}");
    net.client
        .expire(timer - Duration::from_nanos(1), &mut none)
        .unwrap();
    assert!(net.client.out().is_empty(), "no probe before the timer");
    net.at = timer - base;
    net.client.expire(timer, &mut none).unwrap();
    assert!(!net.client.out().is_empty(), "the probe at the timer");
    net.run(|n| n.ends.len() == 2);

    let mut counts = Counts::default();
    net.client.take_counts(&mut counts);
    assert_eq!(counts.h3.handshakes, 1);
    assert!(
        counts.h3.packets_lost >= 1,
        "QUIC counted the datagram dropped: {counts:?}"
    );
    Trace {
        handshake_us: counts.h3.handshake_us,
        ends: net.ends,
        lost_at: sent - base,
        pto,
    }
}

#[test]
fn a_connection_runs_on_the_callers_clock_and_its_loss_timer_fires_at_the_instant_given() {
    let base = Instant::now() + Duration::from_secs(3600);
    let a = scenario(base);
    // The handshake: the client's Initial over (10 ms), the server's flight back (10 ms).
    assert_eq!(a.handshake_us, 20_000, "{a:?}");
    assert_eq!(a.ends.len(), 2);
    assert!(
        a.ends.iter().all(|e| e.2),
        "both answered with the body: {a:?}"
    );
    assert_eq!(
        a.ends[0],
        (4 * HOP, 0, true),
        "connected at 20 ms, answered at 40 ms"
    );
    assert_eq!(a.ends[1].1, 1);
    // The second request's answer came a round trip after the probe, not before the timer.
    assert!(a.ends[1].0 >= a.lost_at + a.pto + 2 * HOP, "{a:?}");
    eprintln!("{a:?}");
    let b = scenario(base + Duration::from_secs(3600));
    assert_eq!(
        (b.handshake_us, b.ends[0]),
        (a.handshake_us, a.ends[0]),
        "the same run on another base: {a:?} {b:?}"
    );
}

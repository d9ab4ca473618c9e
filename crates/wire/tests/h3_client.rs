//! HTTP/3's client session (`h3::client::Conn`) against an independent server: aioquic's QUIC
//! and HTTP/3 (PyPI; scripts/test installs it in its tools venv), run by
//! `h3_peers/h3_server.py` on a UDP port of its own on loopback, with a self-signed certificate
//! made here (rcgen). Its QPACK (pylsqpack, ls-qpack) uses the dynamic table the session
//! announces, so the decoder's table, blocked sections and acknowledgments are exercised too.
//!
//! The session is driven as the engine's worker would: a connected std `UdpSocket`, each
//! datagram fed, `out` sent until empty, `timer` honoured, `expire` called; bounded in time and
//! in requests. The server's own count of requests answered is compared with the session's.

use barrage_testkit::Proc;
use barrage_wire::client::{ClientSession, ConnError, End, ErrorClass, Tag};
use barrage_wire::h3::client::{Conn, Counts, Request, Setup};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use std::io::{BufRead, BufReader, ErrorKind};
use std::net::{SocketAddr, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The Python that has aioquic; `None` when the test is skipped (barrage_testkit::python).
fn python() -> Option<PathBuf> {
    barrage_testkit::python("aioquic.asyncio, aioquic.h3.connection", "aioquic")
}

/// A self-signed certificate for localhost, written to a directory of its own (removed when
/// dropped).
struct Cert {
    dir: PathBuf,
    der: CertificateDer<'static>,
}

impl Cert {
    fn new() -> Cert {
        static N: AtomicUsize = AtomicUsize::new(0);
        let made = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
        let dir = std::env::temp_dir().join(format!(
            "barrage-h3-client-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("cert.pem"), made.cert.pem()).unwrap();
        std::fs::write(dir.join("key.pem"), made.key_pair.serialize_pem()).unwrap();
        Cert {
            dir,
            der: made.cert.der().clone(),
        }
    }
}

impl Drop for Cert {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// aioquic's HTTP/3 server, its port, and the lines it prints after the port.
struct Server {
    _proc: Proc,
    addr: SocketAddr,
    lines: Receiver<String>,
}

impl Server {
    fn start(py: &Path, cert: &Cert, args: &[&str]) -> Server {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/h3_peers/h3_server.py");
        let mut child = Command::new(py)
            .arg(script)
            .arg("--cert")
            .arg(cert.dir.join("cert.pem"))
            .arg("--key")
            .arg(cert.dir.join("key.pem"))
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .expect("python starts");
        let out = BufReader::new(child.stdout.take().unwrap());
        let proc = Proc(child);
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for l in out.lines() {
                let Ok(l) = l else { break };
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let first = lines
            .recv_timeout(Duration::from_secs(30))
            .expect("the server prints its port");
        let port: u16 = first.strip_prefix("port ").unwrap().parse().unwrap();
        Server {
            _proc: proc,
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            lines,
        }
    }

    /// The server's "answered COUNT BODY-BYTES" lines printed so far, after a short wait for
    /// the last ones.
    fn answered(&self, expect: usize) -> Vec<usize> {
        let mut got = Vec::new();
        let until = Instant::now() + Duration::from_secs(5);
        while got.len() < expect {
            let left = until.saturating_duration_since(Instant::now());
            let Ok(l) = self.lines.recv_timeout(left) else {
                break;
            };
            let mut w = l.split(' ');
            assert_eq!(w.next(), Some("answered"), "{l}");
            let n: usize = w.next().unwrap().parse().unwrap();
            assert_eq!(n, got.len() + 1, "answers are counted in order");
            got.push(w.next().unwrap().parse().unwrap());
        }
        // Anything beyond the expected count would be printed at once with it.
        while let Ok(l) = self.lines.recv_timeout(Duration::from_millis(200)) {
            got.push(l.rsplit(' ').next().unwrap().parse().unwrap());
        }
        got
    }
}

/// The server's body: byte i is i % 251.
fn body(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i % 251) as u8).collect()
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A TLS configuration trusting exactly `roots` (none: nothing is trusted).
fn trusting(roots: &[CertificateDer<'static>]) -> ClientConfig {
    let mut store = RootCertStore::empty();
    for r in roots {
        store.add(r.clone()).unwrap();
    }
    ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(store)
        .with_no_client_auth()
}

/// `-k`: any certificate (signatures still checked), as the engine's `tls.rs` does it.
fn insecure() -> ClientConfig {
    ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AcceptAny(provider())))
        .with_no_client_auth()
}

#[derive(Debug)]
struct AcceptAny(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for AcceptAny {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(m, c, d, &self.0.signature_verification_algorithms)
    }
    fn verify_tls13_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(m, c, d, &self.0.signature_verification_algorithms)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct T {
    sent: Instant,
    i: usize,
}

impl Tag for T {
    fn counted(&self) -> bool {
        true
    }
    fn sent(&self) -> Instant {
        self.sent
    }
}

/// What one connection did.
#[derive(Debug, Default)]
struct Run {
    ends: Vec<End<T>>,
    error: Option<ConnError>,
    /// Tags still open when the connection ended.
    drained: Vec<T>,
    counts: Counts,
    /// Requests opened.
    opened: usize,
}

impl Run {
    fn responses(&self) -> Vec<(u16, bool)> {
        self.ends
            .iter()
            .filter_map(|e| match *e {
                End::Response {
                    status, body_ok, ..
                } => Some((status, body_ok)),
                _ => None,
            })
            .collect()
    }
}

/// Drives one connection to `setup.remote`: `n` requests (request `req`), as many at once as
/// the session has room for, until all ended, the connection ended, or `limit` passed.
fn drive(setup: &Setup, req: u32, n: usize, limit: Duration) -> Run {
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    sock.connect(setup.remote).unwrap();
    let mut s: Conn<'_, T> = Conn::new(setup);
    let start = Instant::now();
    s.start(start, start);
    let mut run = Run::default();
    let mut buf = vec![0u8; 65536];
    let mut ended = 0;
    let result = loop {
        if start.elapsed() > limit {
            break Ok(());
        }
        while run.opened < n && s.room() > 0 {
            let now = Instant::now();
            let tag = T {
                sent: now,
                i: run.opened,
            };
            assert!(s.open(now, run.opened, req, tag), "room() promised it");
            run.opened += 1;
        }
        while !s.out().is_empty() {
            match sock.send(s.out().bytes) {
                Ok(k) => s.wrote(Instant::now(), k),
                // The server's port is gone (ICMP unreachable): the datagram is lost.
                Err(e) if e.kind() == ErrorKind::ConnectionRefused => s.wrote(Instant::now(), 0),
                Err(e) => panic!("send: {e}"),
            }
        }
        let now = Instant::now();
        let wait = s
            .timer()
            .map_or(Duration::from_millis(20), |t| {
                t.saturating_duration_since(now)
            })
            .clamp(Duration::from_millis(1), Duration::from_millis(20));
        sock.set_read_timeout(Some(wait)).unwrap();
        let mut on = |e: End<T>| {
            ended += 1;
            run.ends.push(e)
        };
        let r = match sock.recv(&mut buf) {
            Ok(k) => s.feed(Instant::now(), &buf[..k], &mut on).map(|_| ()),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => Ok(()),
            Err(e) if e.kind() == ErrorKind::ConnectionRefused => s.eof(&mut on),
            Err(e) => panic!("recv: {e}"),
        };
        if let Err(e) = r.and_then(|()| s.expire(Instant::now(), &mut on)) {
            break Err(e);
        }
        if ended == n {
            break Ok(());
        }
    };
    run.error = result.err();
    s.drain(&mut |t| run.drained.push(t));
    let mut counts = barrage_wire::client::Counts::default();
    s.take_counts(&mut counts);
    run.counts = counts.h3;
    run
}

fn setup(tls: &ClientConfig, addr: SocketAddr, reqs: Vec<Request>, streams: u32) -> Setup {
    setup_with(
        tls,
        addr,
        reqs,
        streams,
        Some(body(1000)),
        Duration::from_secs(10),
    )
}

fn setup_with(
    tls: &ClientConfig,
    addr: SocketAddr,
    reqs: Vec<Request>,
    streams: u32,
    expect: Option<Vec<u8>>,
    timeout: Duration,
) -> Setup {
    Setup::new(tls, addr, "localhost", reqs, streams, timeout, expect).unwrap()
}

fn get(path: &str) -> Request {
    Request::new("GET", "https", "localhost", path, &[], b"")
}

#[test]
fn requests_over_streams_all_end_as_responses_with_the_server_counting_each() {
    let Some(py) = python() else { return };
    let cert = Cert::new();
    let server = Server::start(&py, &cert, &[]);
    let tls = trusting(std::slice::from_ref(&cert.der));
    // Two requests with different fields: ls-qpack's dynamic table is used for the response
    // fields either way, and the request encoding is static only.
    let reqs = vec![
        get("/a"),
        Request::new(
            "GET",
            "https",
            "localhost",
            "/b",
            &[("X-Test".into(), "one".into())],
            b"",
        ),
    ];
    let su = setup(&tls, server.addr, reqs, 8);
    let run = drive(&su, 1, 40, Duration::from_secs(60));
    assert_eq!(run.error, None);
    assert_eq!(run.opened, 40);
    assert_eq!(run.responses(), vec![(200, true); 40], "{:?}", run.ends);
    let mut seen: Vec<usize> = run
        .ends
        .iter()
        .map(|e| match e {
            End::Response { tag, .. } => tag.i,
            _ => usize::MAX,
        })
        .collect();
    seen.sort_unstable();
    assert_eq!(seen, (0..40).collect::<Vec<_>>(), "each tag came back once");
    assert_eq!(server.answered(40), vec![0; 40]);
    let c = &run.counts;
    assert_eq!((c.connections, c.handshakes, c.streams), (1, 1, 40));
    assert!(c.handshake_us > 0);
    assert!(c.datagrams_sent > 0 && c.datagrams_received > 0, "{c:?}");
    assert!(c.packets_sent >= c.datagrams_sent, "{c:?}");
    assert!(c.bytes_received >= 40 * 1000, "{c:?}");
    // ls-qpack put the response's fields in the table this side announced, and the decoder
    // used them (a wrong entry would have failed the sections or their fields).
    assert!(c.qpack_inserts > 0, "{c:?}");
}

#[test]
fn post_bodies_reach_the_server_and_a_large_response_streams_through() {
    let Some(py) = python() else { return };
    let cert = Cert::new();
    let size = 1 << 20;
    let server = Server::start(&py, &cert, &["--body-size", &size.to_string()]);
    let tls = trusting(std::slice::from_ref(&cert.der));
    let payload = body(5000);
    let reqs = vec![Request::new(
        "POST",
        "https",
        "localhost",
        "/upload",
        &[("content-type".into(), "application/octet-stream".into())],
        &payload,
    )];
    let su = setup_with(
        &tls,
        server.addr,
        reqs,
        3,
        Some(body(size)),
        Duration::from_secs(30),
    );
    let run = drive(&su, 0, 6, Duration::from_secs(120));
    assert_eq!(run.error, None);
    assert_eq!(run.responses(), vec![(200, true); 6], "{:?}", run.ends);
    assert_eq!(server.answered(6), vec![5000; 6]);
    assert!(run.counts.bytes_received >= 6 * size as u64);
}

#[test]
fn a_body_other_than_the_expected_one_is_counted_as_wrong() {
    let Some(py) = python() else { return };
    let cert = Cert::new();
    let server = Server::start(&py, &cert, &[]);
    let tls = trusting(std::slice::from_ref(&cert.der));
    let mut wrong = body(1000);
    wrong[999] ^= 1;
    for (expect, ok) in [(wrong, false), (body(999), false), (body(1000), true)] {
        let su = setup_with(
            &tls,
            server.addr,
            vec![get("/")],
            2,
            Some(expect),
            Duration::from_secs(10),
        );
        let run = drive(&su, 0, 4, Duration::from_secs(60));
        assert_eq!(run.error, None);
        assert_eq!(run.responses(), vec![(200, ok); 4]);
    }
    assert_eq!(server.answered(12).len(), 12);
}

#[test]
fn an_untrusted_certificate_fails_the_connect_unless_insecure() {
    let Some(py) = python() else { return };
    let cert = Cert::new();
    let server = Server::start(&py, &cert, &[]);
    let other = Cert::new();
    for tls in [trusting(&[]), trusting(std::slice::from_ref(&other.der))] {
        let su = setup(&tls, server.addr, vec![get("/")], 4);
        let run = drive(&su, 0, 4, Duration::from_secs(30));
        let e = run.error.expect("the handshake fails");
        assert_eq!(e.class, ErrorClass::Connect, "{e}");
        assert!(e.why.contains("handshake"), "{e}");
        assert!(run.ends.is_empty() && run.opened == 0);
        assert_eq!(run.counts.handshakes, 0);
    }
    let su = setup(&insecure(), server.addr, vec![get("/")], 4);
    let run = drive(&su, 0, 4, Duration::from_secs(30));
    assert_eq!(run.error, None);
    assert_eq!(run.responses(), vec![(200, true); 4]);
    assert_eq!(server.answered(4).len(), 4);
}

#[test]
fn a_server_that_dies_mid_run_leaves_counted_errors_not_a_hang() {
    let Some(py) = python() else { return };
    let cert = Cert::new();
    let server = Server::start(&py, &cert, &["--die-after", "5"]);
    let tls = trusting(std::slice::from_ref(&cert.der));
    let su = setup_with(
        &tls,
        server.addr,
        vec![get("/")],
        4,
        Some(body(1000)),
        Duration::from_secs(2),
    );
    let started = Instant::now();
    let run = drive(&su, 0, 20, Duration::from_secs(60));
    assert!(started.elapsed() < Duration::from_secs(60), "no hang");
    assert_eq!(server.answered(5).len(), 5);
    let ok = run.responses();
    assert!(
        ok.len() <= 5 && ok.iter().all(|&r| r == (200, true)),
        "{ok:?}"
    );
    // Every request sent is accounted for: answered, failed (timed out), or lost with the
    // connection, which ended with an error.
    let failed = run.ends.len() - ok.len();
    assert_eq!(ok.len() + failed + run.drained.len(), run.opened);
    assert!(failed + run.drained.len() > 0);
    eprintln!(
        "{:?} {:?} drained {}",
        run.error,
        run.ends.len(),
        run.drained.len()
    );
    let e = run.error.expect("the connection ends with an error");
    assert!(
        matches!(e.class, ErrorClass::Reset | ErrorClass::Timeout),
        "{e:?}"
    );
}

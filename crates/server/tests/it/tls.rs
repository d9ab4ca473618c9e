//! HTTPS (`ServerConfig::tls`): the endpoints over TLS with keep-alive, pipelining, a large
//! download and a large echo; ALPN; certificate files and their errors; the fingerprint.

use crate::common;

use barrage_server::{pattern, start, ServerConfig, ServerError, Tls};
use common::tls_client::{any_cert, sha256_fingerprint, trusting, TlsClient};
use common::*;
use std::path::PathBuf;

fn tls_server() -> barrage_server::ServerHandle {
    server_with(ServerConfig {
        tls: Some(Tls::SelfSigned),
        ..ServerConfig::default()
    })
}

/// A connection offering only http/1.1 (as `barrage load` does without `--http2`).
fn client(s: &barrage_server::ServerHandle) -> Reader<TlsClient> {
    let c = TlsClient::connect(s.local_addr(), any_cert(&[b"http/1.1"]), "localhost");
    Reader::new(c)
}

#[test]
fn tls_hello_keep_alive_and_pipelined() {
    let s = tls_server();
    let mut r = client(&s);
    for _ in 0..5 {
        r.send(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n");
        let resp = r.response(false).unwrap();
        assert_eq!(resp.status, 200);
        assert_eq!(resp.text(), "Hello, World!");
    }
    // Three requests in one write (one TLS record) are answered in order.
    r.send(b"GET / HTTP/1.1\r\nHost: t\r\n\r\nGET /json HTTP/1.1\r\nHost: t\r\n\r\nGET /status/404 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    assert_eq!(r.response(false).unwrap().text(), "Hello, World!");
    let json = r.response(false).unwrap();
    assert_eq!(json.text(), r#"{"message":"Hello, World!"}"#);
    assert_eq!(r.response(false).unwrap().status, 404);
    // Connection: close ends with close_notify, not a bare FIN.
    assert!(r.closed());
    assert!(r.stream.clean_close);
}

#[test]
fn tls_bytes_10mib_checksum() {
    let s = tls_server();
    let mut r = client(&s);
    for target in ["/bytes/10MiB", "/bytes/3MiB?chunked=1&chunk=100000"] {
        r.send(format!("GET {target} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes());
        let resp = r.response(false).unwrap();
        assert_eq!(resp.status, 200, "{target}");
        let n = resp.body.len() as u64;
        assert_eq!(
            n,
            if target.contains("10MiB") {
                10 << 20
            } else {
                3 << 20
            }
        );
        let sum = format!("crc32={:08x}", crc32fast::hash(&resp.body));
        assert_eq!(sum, pattern::checksum(n), "{target}");
        assert_eq!(resp.header("X-Checksum"), Some(sum.as_str()), "{target}");
    }
    // The connection is still good after the large bodies.
    r.send(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n");
    assert_eq!(r.response(false).unwrap().text(), "Hello, World!");
}

/// A slow reader with a small window keeps the server's socket full, so ciphertext waits in
/// rustls between writable events: all of it arrives, and the close after it is clean.
#[test]
fn tls_slow_reader_gets_the_whole_body_and_close_notify() {
    let s = tls_server();
    let offer: &[&[u8]] = &[b"http/1.1"];
    let c = TlsClient::slow(s.local_addr(), any_cert(offer), "localhost", 32 * 1024);
    let mut r = Reader::new(c);
    r.send(b"GET /bytes/16MiB HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    let resp = r.response(false).unwrap();
    assert_eq!(resp.body.len(), 16 << 20);
    assert_eq!(
        format!("crc32={:08x}", crc32fast::hash(&resp.body)),
        pattern::checksum(16 << 20)
    );
    assert!(r.closed());
    assert!(r.stream.clean_close);
}

/// The same slow reader on a kept-alive connection: the response's last ciphertext, left in
/// rustls when the socket was full, is sent on the next writable event although no further
/// write follows (the client waits for it before it sends its next request).
#[test]
fn tls_slow_reader_keep_alive_gets_each_whole_body() {
    let s = tls_server();
    let offer: &[&[u8]] = &[b"http/1.1"];
    let c = TlsClient::slow(s.local_addr(), any_cert(offer), "localhost", 4 * 1024);
    let mut r = Reader::new(c);
    for _ in 0..3 {
        r.send(b"GET /bytes/1MiB HTTP/1.1\r\nHost: t\r\n\r\n");
        let resp = r.response(false).unwrap();
        assert_eq!(resp.body.len(), 1 << 20);
        assert_eq!(
            format!("crc32={:08x}", crc32fast::hash(&resp.body)),
            pattern::checksum(1 << 20)
        );
    }
}

#[test]
fn tls_echo_1mib() {
    let s = tls_server();
    let mut r = client(&s);
    let body: Vec<u8> = (0..1u32 << 20).map(|i| (i * 7 % 256) as u8).collect();
    let mut req = format!(
        "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(&body);
    r.send(&req);
    let resp = r.response(false).unwrap();
    assert_eq!(resp.status, 200);
    assert!(resp.body == body, "echoed {} bytes", resp.body.len());
    // And again on the same connection, chunked.
    r.send(b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
    assert_eq!(r.response(false).unwrap().text(), "hello");
}

/// The protocols a client offers by ALPN.
type Offer<'a> = &'a [&'a [u8]];

#[test]
fn tls_alpn_offers_h2_and_http11() {
    let s = tls_server();
    let cases: [(Offer, Option<&[u8]>); 4] = [
        (&[b"http/1.1"], Some(b"http/1.1")),
        (&[b"h2", b"http/1.1"], Some(b"h2")),
        (&[b"http/1.1", b"h2"], Some(b"h2")),
        (&[], None),
    ];
    for (offer, chosen) in cases {
        let mut c = TlsClient::connect(s.local_addr(), any_cert(offer), "localhost");
        c.handshake().unwrap();
        assert_eq!(c.tls.alpn_protocol(), chosen, "client offered {offer:?}");
    }
    // What plain HTTP/1.1 clients do: no ALPN at all, and they are served.
    let c = TlsClient::connect(s.local_addr(), any_cert(&[]), "localhost");
    let mut r = Reader::new(c);
    r.send(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n");
    assert_eq!(r.response(false).unwrap().status, 200);
}

/// A client that chose h2 by ALPN must open with HTTP/2's preface (RFC 9113 §3.4): one that
/// sends an HTTP/1.1 request instead is closed without an answer; the same request after
/// choosing http/1.1 is answered.
#[test]
fn tls_a_client_that_chose_h2_and_sends_no_preface_is_closed_unanswered() {
    let s = tls_server();
    let request = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n";
    let mut h2 = Reader::new(TlsClient::connect(
        s.local_addr(),
        any_cert(&[b"h2"]),
        "localhost",
    ));
    h2.send(request);
    assert!(h2.closed(), "a client that chose h2 got an HTTP/1.1 answer");
    let mut h1 = Reader::new(TlsClient::connect(
        s.local_addr(),
        any_cert(&[b"http/1.1"]),
        "localhost",
    ));
    h1.send(request);
    assert_eq!(h1.response(false).unwrap().status, 200);
}

#[test]
fn tls_fingerprint_is_the_sha256_of_the_certificate_seen() {
    let s = tls_server();
    let fp = s.tls_fingerprint().expect("a TLS server has a fingerprint");
    let mut c = TlsClient::connect(s.local_addr(), any_cert(&[b"http/1.1"]), "127.0.0.1");
    c.handshake().unwrap();
    assert_eq!(sha256_fingerprint(c.peer_leaf().as_ref()), fp);
    // The self-signed certificate verifies for its names (a client that pins it as its root).
    for name in ["localhost", "127.0.0.1", "::1"] {
        let mut r = Reader::new(TlsClient::connect(
            s.local_addr(),
            trusting(c.peer_leaf()),
            name,
        ));
        r.send(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n");
        assert_eq!(r.response(false).unwrap().status, 200, "{name}");
    }
    assert_eq!(server().tls_fingerprint(), None);
}

/// A directory of its own under the system's temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("barrage-tls-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn start_err(tls: Tls) -> String {
    let cfg = ServerConfig {
        tls: Some(tls),
        threads: 1,
        ..ServerConfig::default()
    };
    match start(cfg) {
        Ok(_) => panic!("the server started"),
        Err(e) => {
            assert!(matches!(e, ServerError::TlsFile { .. }), "{e:?}");
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "{msg}");
            msg
        }
    }
}

#[test]
fn tls_certificate_files_and_their_errors() {
    let dir = TempDir::new("files");
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let cert = dir.write("cert.pem", &made.cert.pem());
    let key = dir.write("key.pem", &made.key_pair.serialize_pem());
    let s = server_with(ServerConfig {
        tls: Some(Tls::Files {
            cert: cert.clone(),
            key: key.clone(),
        }),
        ..ServerConfig::default()
    });
    let der = made.cert.der().clone();
    assert_eq!(s.tls_fingerprint(), Some(sha256_fingerprint(der.as_ref())));
    let mut r = Reader::new(TlsClient::connect(
        s.local_addr(),
        trusting(der),
        "localhost",
    ));
    r.send(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n");
    assert_eq!(r.response(false).unwrap().text(), "Hello, World!");
    assert_eq!(
        sha256_fingerprint(r.stream.peer_leaf().as_ref()),
        s.tls_fingerprint().unwrap()
    );

    // A key file without a key, a key of another certificate, a missing file, a certificate
    // file without a certificate: each refused in one line naming the file.
    let garbage = dir.write("garbage.pem", "not a key\n");
    let msg = start_err(Tls::Files {
        cert: cert.clone(),
        key: garbage.clone(),
    });
    assert!(msg.contains(&garbage.display().to_string()), "{msg}");
    let other = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let other_key = dir.write("other-key.pem", &other.key_pair.serialize_pem());
    let msg = start_err(Tls::Files {
        cert: cert.clone(),
        key: other_key.clone(),
    });
    assert!(msg.contains(&other_key.display().to_string()), "{msg}");
    let missing = dir.0.join("missing.pem");
    let msg = start_err(Tls::Files {
        cert: missing.clone(),
        key: key.clone(),
    });
    assert!(msg.contains(&missing.display().to_string()), "{msg}");
    let msg = start_err(Tls::Files {
        cert: key.clone(),
        key: key.clone(),
    });
    assert!(msg.contains("no PEM certificate"), "{msg}");
}

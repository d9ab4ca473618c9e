//! HTTP/2 checked by independent implementations: h2spec's 145 conformance cases all pass, over
//! h2c with prior knowledge and over TLS (h2 by ALPN), h2load's requests (and curl's, when installed) are all answered
//! 2xx, HTTP/1.1 keeps working on the same port, junk gets 400 and a TLS hello or another
//! protocol's request line is closed without an answer. h2spec (`go install github.com/summerwind/h2spec/cmd/
//! h2spec@v2.2.1`) and h2load (Debian's nghttp2-client) are installed by scripts/test.

use crate::common;

use barrage_server::ServerConfig;
use common::{connect, server_with};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::Command;

/// A tool on PATH or in Go's install directory; the tests need it (scripts/test installs it).
fn tool(name: &str) -> PathBuf {
    let in_path = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(name))
            .find(|f| f.is_file())
    });
    let go_bin = std::env::var_os("HOME").map(|h| PathBuf::from(h).join("go/bin").join(name));
    in_path
        .or(go_bin.filter(|f| f.is_file()))
        .unwrap_or_else(|| panic!("{name} is not installed: run scripts/test, which installs it"))
}

fn one_thread() -> barrage_server::ServerHandle {
    server_with(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    })
}

#[test]
fn h2spec_passes_every_case_over_h2c_and_tls() {
    for tls in [false, true] {
        h2spec(tls);
    }
}

fn h2spec(tls: bool) {
    let s = server_with(ServerConfig {
        threads: 1,
        tls: tls.then_some(barrage_server::Tls::SelfSigned),
        ..ServerConfig::default()
    });
    let mut cmd = Command::new(tool("h2spec"));
    cmd.args(["-h", "127.0.0.1", "-p"])
        .arg(s.local_addr().port().to_string())
        .args(["-o", "2"]);
    if tls {
        // h2 by ALPN over TLS; -k: the certificate is self-signed.
        cmd.args(["-t", "-k"]);
    }
    let out = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let summary = text
        .lines()
        .find(|l| l.contains(" tests, "))
        .unwrap_or_else(|| panic!("no summary from h2spec:\n{text}"));
    // "145 tests, 145 passed, 0 skipped, 0 failed"
    let n: Vec<u64> = summary
        .split(", ")
        .map(|p| p.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(n[3], 0, "tls {tls}: h2spec failures:\n{text}");
    assert_eq!(n[2], 0, "tls {tls}: h2spec skipped cases:\n{text}");
    assert_eq!(n[0], n[1]);
    assert!(n[0] >= 145, "{summary}");
}

/// h2load's "status codes: N 2xx, ..." and "requests: ... N succeeded" figures.
fn h2load(url: &str, args: &[&str]) -> (u64, u64, String) {
    let out = Command::new(tool("h2load"))
        .args(args)
        .arg(url)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let field = |line: &str, what: &str| -> u64 {
        let l = text
            .lines()
            .find(|l| l.starts_with(line))
            .unwrap_or_else(|| panic!("no {line} in:\n{text}"));
        let at = l.find(what).unwrap_or_else(|| panic!("no {what} in {l}"));
        l[..at].rsplit(' ').next().unwrap().parse().unwrap()
    };
    let ok = field("status codes:", " 2xx");
    let succeeded = field("requests:", " succeeded");
    (ok, succeeded, text)
}

#[test]
fn h2load_gets_every_response_2xx() {
    let s = one_thread();
    let base = format!("http://{}", s.local_addr());
    let cases: [(&str, &[&str], u64); 3] = [
        ("/", &["-n", "20000", "-c", "8", "-m", "10"], 20_000),
        ("/", &["-n", "5000", "-c", "2", "-m", "100"], 5_000),
        ("/bytes/100000", &["-n", "500", "-c", "4", "-m", "10"], 500),
    ];
    for (path, args, n) in cases {
        let (ok, succeeded, text) = h2load(&format!("{base}{path}"), args);
        assert_eq!((ok, succeeded), (n, n), "{path} {args:?}:\n{text}");
        // h2load says which protocol it spoke.
        assert!(text.contains("Application protocol: h2c"), "{text}");
    }
    // Over TLS, h2 by ALPN.
    let s = server_with(ServerConfig {
        threads: 1,
        tls: Some(barrage_server::Tls::SelfSigned),
        ..ServerConfig::default()
    });
    let url = format!("https://{}/", s.local_addr());
    let (ok, succeeded, text) = h2load(&url, &["-n", "5000", "-c", "4", "-m", "10"]);
    assert_eq!((ok, succeeded), (5000, 5000), "{text}");
    assert!(text.contains("Application protocol: h2\n"), "{text}");
}

#[test]
fn http1_and_h2_share_the_port() {
    let s = one_thread();
    let mut c = connect(s.local_addr());
    c.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut buf = [0u8; 512];
    let n = c.read(&mut buf).unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 200 OK\r\n"));
    assert!(buf[..n].ends_with(b"Hello, World!"));
    // A preface split over two writes is still HTTP/2: the server answers with SETTINGS.
    let mut c = connect(s.local_addr());
    c.write_all(b"PRI * HTTP/2.0\r\n").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    c.write_all(b"\r\nSM\r\n\r\n").unwrap();
    let n = c.read(&mut buf).unwrap();
    assert!(
        n >= 9 && buf[3] == 0x4 && buf[4] == 0,
        "a SETTINGS frame: {:?}",
        &buf[..n]
    );
}

#[test]
fn what_is_not_http_gets_400_but_a_tls_hello_or_another_protocol_is_closed() {
    let s = one_thread();
    // Text or binary junk (no HTTP version, no spaces, bytes no token allows): 400, as nginx.
    for junk in [
        &b"GARBAGE\x00\xff\r\n\r\n"[..],
        &b"GARBAGE\r\n\r\n"[..],
        &b"GET / HTTP/1.1 extra\r\n\r\n"[..],
        &b"GARBAGE\x00\xff"[..],
    ] {
        let mut c = connect(s.local_addr());
        c.write_all(junk).unwrap();
        let mut got = Vec::new();
        c.read_to_end(&mut got).unwrap();
        assert!(
            got.starts_with(b"HTTP/1.1 400 "),
            "{:?}: {:?}",
            String::from_utf8_lossy(junk),
            String::from_utf8_lossy(&got)
        );
    }
    // A TLS ClientHello's first bytes (a handshake record), another protocol's request line and
    // an HTTP/2 preface gone wrong: clients that could not read an HTTP/1.1 answer, closed
    // without one.
    for hello in [
        &b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\n\n"[..],
        // Another protocol's request line (h2spec 3.5/2 must see the connection close).
        &b"INVALID CONNECTION PREFACE\r\n\r\n"[..],
        &b"PRI * HTTP/2.0\r\n\r\nSM\r\n\rQ"[..],
    ] {
        let mut c = connect(s.local_addr());
        c.write_all(hello).unwrap();
        let mut got = Vec::new();
        c.read_to_end(&mut got).unwrap();
        assert_eq!(got, b"", "closed, no HTTP/1.1 400");
    }
}

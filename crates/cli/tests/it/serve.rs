//! `barrage serve` as a process: the address on the first line, answers, graceful SIGTERM.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn serve_prints_its_address_and_drains_on_sigterm() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_barrage"))
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--threads",
            "1",
            "--grace",
            "5s",
            "--log",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("barrage starts");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let addr = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("first line: {first:?}"))
        .to_string();

    let mut hello = TcpStream::connect(&addr).unwrap();
    hello
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    hello
        .write_all(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut got = String::new();
    hello.read_to_string(&mut got).unwrap();
    assert!(got.starts_with("HTTP/1.1 200 OK\r\n"), "{got}");
    assert!(got.ends_with("Hello, World!"), "{got}");

    // A sleep in flight when SIGTERM arrives is still answered.
    let mut sleeper = TcpStream::connect(&addr).unwrap();
    sleeper
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    sleeper
        .write_all(b"GET /sleep/300 HTTP/1.1\r\nHost: t\r\n\r\n")
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let mut answer = String::new();
    sleeper.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    assert!(answer.ends_with("slept 300 ms\n"), "{answer}");
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    let mut log = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    assert!(log.contains("GET / 200\n"), "{log}");
    assert!(log.contains("GET /sleep/300 200\n"), "{log}");
}

/// Starts `barrage serve --parser NAME` and returns the child and its address.
fn serve_with_parser(parser: &str) -> (std::process::Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_barrage"))
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--threads",
            "1",
            "--parser",
            parser,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("barrage starts");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let addr = first.trim().strip_prefix("listening on ");
    let addr = addr.unwrap_or_else(|| panic!("{parser}: first line {first:?}"));
    (child, addr.to_string())
}

/// The status line answering `raw` (the server closes after it: `Connection: close`).
fn status_line(addr: &str, raw: &[u8]) -> String {
    let mut c = TcpStream::connect(addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    c.write_all(raw).unwrap();
    let mut got = String::new();
    c.read_to_string(&mut got).unwrap();
    got.lines().next().unwrap_or_default().to_string()
}

/// `--parser` reaches the server: a pipelined pair is answered by each parser, and an extension
/// method shows which one read it (http-parser knows a fixed list of methods and refuses others
/// with 400; httparse and picohttpparser take any token, and the route answers 405).
#[cfg(all(feature = "parser-pico", feature = "parser-http-parser"))]
#[test]
fn serve_uses_the_parser_it_is_given() {
    for (parser, extension_method) in [
        ("httparse", "HTTP/1.1 405 Method Not Allowed"),
        ("picohttpparser", "HTTP/1.1 405 Method Not Allowed"),
        ("http-parser", "HTTP/1.1 400 Bad Request"),
    ] {
        let (mut child, addr) = serve_with_parser(parser);
        let pair = b"GET / HTTP/1.1\r\nHost: t\r\n\r\nGET /json HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
        let mut c = TcpStream::connect(&addr).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        c.write_all(pair).unwrap();
        let mut got = String::new();
        c.read_to_string(&mut got).unwrap();
        assert_eq!(
            got.matches("HTTP/1.1 200 OK\r\n").count(),
            2,
            "{parser}: {got}"
        );
        let raw = b"BREW / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
        assert_eq!(status_line(&addr, raw), extension_method, "{parser}");
        // SAFETY: kill(2) on our own child's pid.
        assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
        assert!(child.wait().unwrap().success(), "{parser}");
    }
}

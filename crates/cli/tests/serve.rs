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

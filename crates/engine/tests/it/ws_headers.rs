//! `barrage load --ws -H ...`: the headers go on the upgrade request. The server is Python's
//! `websockets` (PyPI; scripts/test installs it in its tools venv), `ws_peers/headers_server.py`
//! on port 0, which answers every message with what it saw of the upgrade (Host, two headers,
//! the subprotocol it chose, the number of Host fields); the load's expected body is that, so
//! every message counts as answered only when the server saw the headers.

use barrage_engine::ErrorClass;
use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol, RunResult};
use barrage_testkit::Proc;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The Python that has websockets (barrage_testkit::python_required).
fn python() -> PathBuf {
    barrage_testkit::python_required("websockets.sync.server", "websockets")
}

fn start_server() -> (Proc, u16) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ws_peers/headers_server.py");
    let mut child = Command::new(python())
        .arg(script)
        .stdout(Stdio::piped())
        .spawn()
        .expect("python starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line.trim().parse().expect("the server prints its port");
    (Proc(child), port)
}

fn load(port: u16, headers: &[(&str, &str)], expect: &str) -> RunResult {
    let cfg = Config {
        url: format!("ws://127.0.0.1:{port}/"),
        protocol: Protocol::ws(1),
        connections: 2,
        threads: 1,
        requests: Some(50),
        body: b"hello".to_vec(),
        expect_body: Some(expect.as_bytes().to_vec()),
        headers: headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect(),
        timeout: Duration::from_secs(5),
        ..Config::default()
    };
    run(&cfg.validate().unwrap(), &NullSink, &Cancel::new()).unwrap()
}

#[test]
fn headers_go_on_the_upgrade_and_the_server_sees_them() {
    let (_server, port) = start_server();
    let cases: [(&[(&str, &str)], String); 3] = [
        // Without -H: the URL's Host, nothing else, no subprotocol.
        (&[], format!("127.0.0.1:{port}|-|-|-|1")),
        (
            &[("Authorization", "Bearer t0k"), ("X-Trace", "abc 123")],
            format!("127.0.0.1:{port}|Bearer t0k|abc 123|-|1"),
        ),
        // A Host of the caller's replaces the URL's (one Host field still), and a subprotocol
        // offered may be chosen by the server.
        (
            &[
                ("Host", "chat.example:8443"),
                ("Sec-WebSocket-Protocol", "chat.v9, chat"),
            ],
            "chat.example:8443|-|-|chat|1".to_string(),
        ),
    ];
    for (headers, seen) in cases {
        let r = load(port, headers, &seen);
        assert_eq!(
            (r.requests, r.errors.total()),
            (50, 0),
            "{headers:?}: {:?} {:?}",
            r.errors,
            r.error_examples
        );
        assert_eq!(r.status["200"], 50);
    }
    // The same server's answer is a body error when it saw something else: the check can fail.
    let r = load(
        port,
        &[("X-Trace", "other")],
        &format!("127.0.0.1:{port}|-|abc 123|-|1"),
    );
    assert_eq!(r.errors[ErrorClass::Body], 50, "{:?}", r.errors);
}

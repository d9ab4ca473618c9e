//! `barrage load --http3` against `barrage serve --http3` (both in process, TCP port 0 and UDP on
//! the same number, the self-signed certificate with `-k`): exact counts in the closed loop with
//! the body checked, a 1 MiB `/bytes` body byte for byte, `/echo` of a request body, and the
//! faults as HTTP/3 errors: `/fault/reset` a stream reset on connections that go on,
//! `/fault/stall` a timeout for every request, `/fault/garbage` a protocol error and
//! `/fault/close` a reset.

use barrage_engine::ErrorClass;
use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol, RunResult};
use barrage_server::{pattern, start, ServerConfig, ServerHandle, Tls};
use std::time::Duration;

fn server() -> ServerHandle {
    start(ServerConfig {
        threads: 1,
        tls: Some(Tls::SelfSigned),
        http3: true,
        ..ServerConfig::default()
    })
    .unwrap()
}

fn base(s: &ServerHandle, path: &str) -> Config {
    Config {
        url: format!("https://127.0.0.1:{}{path}", s.local_addr().port()),
        insecure: true,
        connections: 3,
        protocol: Protocol::Http3 { streams: 4 },
        threads: 2,
        requests: Some(300),
        timeout: Duration::from_secs(10),
        ..Config::default()
    }
}

fn load(c: Config) -> RunResult {
    run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap()
}

fn assert_clean(name: &str, r: &RunResult, n: u64) {
    assert_eq!(
        r.errors.total(),
        0,
        "{name}: {:?} {:?}",
        r.errors,
        r.error_examples
    );
    assert_eq!(r.requests, n, "{name}");
    assert_eq!(r.status["200"], n, "{name}");
    assert_eq!(r.requests_written, n, "{name}: counts add up");
}

/// Responses the server counted with `status`.
fn served(s: &ServerHandle, status: u16) -> u64 {
    s.stats()
        .responses
        .iter()
        .filter(|(p, c, _)| *p == "h3" && *c == status)
        .map(|(_, _, n)| n)
        .sum()
}

#[test]
fn closed_loop_over_http3_sends_exactly_n_and_the_server_agrees() {
    let s = server();
    let r = load(Config {
        expect_body: Some(b"Hello, World!".to_vec()),
        ..base(&s, "/")
    });
    assert_clean("hello", &r, 300);
    assert_eq!(served(&s, 200), 300);
    let h = barrage_model::load::Http3::of(&r.protocol).expect("an http3 section");
    assert_eq!(
        (h.connections, h.handshakes, h.streams),
        (3, 3, 300),
        "{h:?}"
    );
    // This server's encoder is static-only: nothing is inserted.
    assert_eq!(h.qpack_inserts, 0, "{h:?}");
}

#[test]
fn a_1mib_body_and_an_echo_arrive_whole() {
    let s = server();
    let n = 1 << 20;
    let want: Vec<u8> = (0..n).map(pattern::byte_at).collect();
    let r = load(Config {
        requests: Some(12),
        expect_body: Some(want),
        ..base(&s, "/bytes/1MiB")
    });
    assert_clean("bytes", &r, 12);

    let body: Vec<u8> = (0..50_000u32).map(|i| (i % 251) as u8).collect();
    let r = load(Config {
        method: "POST".to_string(),
        body: body.clone(),
        requests: Some(40),
        expect_body: Some(body),
        ..base(&s, "/echo")
    });
    assert_clean("echo", &r, 40);
}

#[test]
fn faults_are_http3_errors() {
    let s = server();
    let r = load(Config {
        requests: Some(60),
        ..base(&s, "/fault/reset")
    });
    assert_eq!(r.requests, 0, "{:?}", r.errors);
    assert_eq!(
        r.errors[ErrorClass::StreamReset],
        60,
        "{:?} {:?}",
        r.errors,
        r.error_examples
    );
    assert_eq!(r.errors.total(), 60);
    assert_eq!(
        barrage_model::load::Http3::of(&r.protocol)
            .unwrap()
            .connections,
        3,
        "no reconnect"
    );

    let r = load(Config {
        requests: Some(6),
        connections: 2,
        protocol: Protocol::Http3 { streams: 3 },
        timeout: Duration::from_millis(300),
        ..base(&s, "/fault/stall")
    });
    assert_eq!(
        r.errors[ErrorClass::Timeout],
        6,
        "{:?} {:?}",
        r.errors,
        r.error_examples
    );
    assert_eq!(r.errors.total(), 6);

    // Garbage: a header section no QPACK decoder takes, a protocol error for the connection; a
    // close: the connection closed (H3_NO_ERROR) under its request, a reset.
    for (path, protocol, reset) in [("/fault/garbage", 10, 0), ("/fault/close", 0, 10)] {
        let r = load(Config {
            requests: Some(10),
            protocol: Protocol::Http3 { streams: 1 },
            timeout: Duration::from_secs(5),
            ..base(&s, path)
        });
        let e = &r.errors;
        assert_eq!(r.requests, 0, "{path}: {e:?}");
        assert_eq!(
            (e[ErrorClass::Protocol], e[ErrorClass::Reset], e.total()),
            (protocol, reset, 10),
            "{path}: {e:?}"
        );
    }
}

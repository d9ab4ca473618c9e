//! `barrage load --http2` against `barrage serve` over h2c (both in process, port 0): every
//! endpoint answered and validated over HTTP/2, bodies under small windows, the server's stream
//! limit, and its faults as HTTP/2 errors: `/fault/reset` as RST_STREAM (the connection goes
//! on), `/fault/garbage` as a malformed frame, `/fault/stall` as a stream timeout that is
//! cancelled while the connection serves the other streams.

use barrage_engine::ErrorClass;
use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol, RunResult};
use barrage_model::load::DEFAULT_H2_WINDOW;
use barrage_server::{pattern, start, ServerConfig, ServerHandle};
use std::time::Duration;

fn server(cfg: ServerConfig) -> ServerHandle {
    start(ServerConfig { threads: 1, ..cfg }).unwrap()
}

fn base(s: &ServerHandle, path: &str) -> Config {
    Config {
        url: format!("http://{}{path}", s.local_addr()),
        connections: 4,
        threads: 2,
        duration: Some(Duration::from_millis(500)),
        expect_status: Some(200),
        protocol: Protocol::Http2 {
            streams: 10,
            window: DEFAULT_H2_WINDOW,
        },
        ..Config::default()
    }
}

fn load(c: Config) -> RunResult {
    run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap()
}

fn assert_clean(name: &str, r: &RunResult) {
    assert!(r.requests > 0, "{name}: no requests");
    assert_eq!(
        r.errors.total(),
        0,
        "{name}: {:?} {:?}",
        r.errors,
        r.error_examples
    );
    assert_eq!(
        r.requests_written,
        r.requests + r.in_flight,
        "{name}: counts add up"
    );
    let h = barrage_model::load::Http2::of(&r.protocol).expect("an http2 section");
    assert_eq!(h.protocol, "h2c", "{name}");
}

#[test]
fn every_endpoint_answers_over_h2c() {
    let s = server(ServerConfig::default());
    let one_mib = {
        let mut v = vec![0u8; 1 << 20];
        pattern::fill(0, &mut v);
        v
    };
    let cases: Vec<(&str, Config)> = vec![
        (
            "hello, closed loop",
            Config {
                expect_body: Some(b"Hello, World!".to_vec()),
                ..base(&s, "/")
            },
        ),
        (
            "hello, open loop",
            Config {
                expect_body: Some(b"Hello, World!".to_vec()),
                rate: Some(2000.0),
                ..base(&s, "/")
            },
        ),
        (
            "ping pong",
            Config {
                method: "POST".into(),
                body: b"ping".to_vec(),
                expect_body: Some(b"pong".to_vec()),
                ..base(&s, "/ping")
            },
        ),
        (
            "echo of 100 kB",
            Config {
                method: "POST".into(),
                body: vec![b'e'; 100_000],
                expect_body: Some(vec![b'e'; 100_000]),
                requests: Some(200),
                duration: None,
                ..base(&s, "/echo")
            },
        ),
        (
            "/bytes/1MiB",
            Config {
                expect_body: Some(one_mib.clone()),
                requests: Some(100),
                duration: None,
                ..base(&s, "/bytes/1MiB")
            },
        ),
        (
            "/bytes/1MiB under the smallest windows (64 KiB)",
            Config {
                expect_body: Some(one_mib),
                requests: Some(40),
                duration: None,
                protocol: Protocol::Http2 {
                    streams: 10,
                    window: 65_535,
                },
                ..base(&s, "/bytes/1MiB")
            },
        ),
        (
            "/sleep/20",
            Config {
                expect_body: Some(b"slept 20 ms\n".to_vec()),
                ..base(&s, "/sleep/20")
            },
        ),
        (
            "/json",
            Config {
                expect_body: Some(br#"{"message":"Hello, World!"}"#.to_vec()),
                ..base(&s, "/json")
            },
        ),
    ];
    for (name, c) in cases {
        let r = load(c);
        assert_clean(name, &r);
        assert_eq!(r.status["200"], r.requests, "{name}: {:?}", r.status);
        let h = barrage_model::load::Http2::of(&r.protocol).unwrap();
        assert_eq!(h.server_stream_limit, Some(256), "{name}");
        if name.starts_with("/sleep") {
            // 10 streams per connection sleep at once: the sleeps add up to far more than the
            // run's time on its 4 connections (10x at best; one stream at a time would be 1x).
            // Against the run's own measured length, so a busy machine that sends fewer
            // requests in the same time still shows the overlap.
            let slept = r.requests as f64 * 0.020;
            let connection_time = 4.0 * r.doc.duration_s;
            assert!(
                slept > 2.0 * connection_time,
                "{name}: {} requests slept {slept} s in {connection_time} connection-seconds",
                r.requests
            );
            assert!(r.latency_us.p50 >= 19_500, "{name}: {:?}", r.latency_us);
        }
    }
}

#[test]
fn the_servers_stream_limit_caps_streams() {
    let s = server(ServerConfig {
        h2_max_streams: 3,
        ..ServerConfig::default()
    });
    let r = load(Config {
        expect_body: Some(b"Hello, World!".to_vec()),
        ..base(&s, "/")
    });
    assert_clean("capped", &r);
    let h = barrage_model::load::Http2::of(&r.protocol).unwrap();
    assert_eq!(h.server_stream_limit, Some(3));
    assert_eq!(h.capped_connections, 4);
}

#[test]
fn faults_are_http2_errors_and_the_connection_goes_on() {
    let s = server(ServerConfig::default());
    // Resets: every stream reset, counted by class, on the same connections.
    let r = load(Config {
        requests: Some(300),
        duration: None,
        ..base(&s, "/fault/reset")
    });
    assert_eq!(r.requests, 0);
    assert_eq!(r.errors[ErrorClass::StreamReset], 300, "{:?}", r.errors);
    assert_eq!(r.errors.total(), 300, "{:?}", r.errors);
    assert_eq!(
        barrage_model::load::Http2::of(&r.protocol)
            .unwrap()
            .connections,
        4,
        "no reconnect"
    );

    // Garbage: a malformed frame, a protocol error (the connection is dropped and reopened).
    let r = load(Config {
        requests: Some(20),
        duration: None,
        protocol: Protocol::Http2 {
            streams: 1,
            window: DEFAULT_H2_WINDOW,
        },
        ..base(&s, "/fault/garbage")
    });
    assert_eq!(r.requests, 0);
    assert!(r.errors[ErrorClass::Protocol] >= 20, "{:?}", r.errors);

    // A stalled stream times out and is cancelled; the connection still serves.
    let r = load(Config {
        requests: Some(8),
        duration: None,
        timeout: Duration::from_millis(200),
        ..base(&s, "/fault/stall")
    });
    assert_eq!(r.errors[ErrorClass::Timeout], 8, "{:?}", r.errors);
}

#[test]
fn over_tls_alpn_chooses_h2_and_every_stream_is_answered() {
    let s = server(ServerConfig {
        tls: Some(barrage_server::Tls::SelfSigned),
        ..ServerConfig::default()
    });
    let r = load(Config {
        url: format!("https://{}/", s.local_addr()),
        insecure: true,
        expect_body: Some(b"Hello, World!".to_vec()),
        ..base(&s, "/")
    });
    assert!(r.requests > 0);
    assert_eq!(r.errors.total(), 0, "{:?}", r.error_examples);
    assert_eq!(r.status["200"], r.requests);
    assert_eq!(
        barrage_model::load::Http2::of(&r.protocol)
            .unwrap()
            .protocol,
        "h2"
    );
}

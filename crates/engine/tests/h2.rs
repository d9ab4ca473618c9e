//! HTTP/2 against nginx (a real, independent h2c server): every stream answered with status 200
//! and the expected body, in the closed and the open loop; the server's stream limit caps `-m`
//! and the result says so; GOAWAY after nginx's `keepalive_requests` hands streams back, which
//! are sent again on new connections and counted; HPACK's saving is measured.

mod common;

use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink};
use common::nginx::{start_nginx, HELLO};
use std::time::Duration;

fn base(port: u16) -> Config {
    Config {
        url: format!("http://127.0.0.1:{port}/"),
        connections: 4,
        threads: 2,
        duration: Some(Duration::from_millis(700)),
        expect_status: Some(200),
        expect_body: Some(b"Hello, World!".to_vec()),
        http2: true,
        streams: 10,
        ..Config::default()
    }
}

#[test]
fn nginx_answers_every_stream_in_the_closed_and_open_loop() {
    let Some(ng) = start_nginx(" http2", HELLO) else {
        return;
    };
    let variants = [
        ("closed loop, 10 streams", base(ng.port)),
        (
            "open loop",
            Config {
                rate: Some(2000.0),
                ..base(ng.port)
            },
        ),
        (
            "POST with a body, -n",
            Config {
                method: "POST".into(),
                body: vec![b'x'; 100_000],
                duration: None,
                requests: Some(500),
                ..base(ng.port)
            },
        ),
    ];
    for (name, c) in variants {
        let r = run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap();
        assert!(r.requests > 100, "{name}: {} requests", r.requests);
        assert_eq!(
            r.errors.total, 0,
            "{name}: {:?} {:?}",
            r.errors, r.error_examples
        );
        assert_eq!(r.status["200"], r.requests, "{name}: {:?}", r.status);
        assert_eq!(
            r.requests_written,
            r.requests + r.in_flight,
            "{name}: counts add up"
        );
        let h = r.http2.as_ref().expect("an http2 section");
        assert_eq!(h.protocol, "h2c", "{name}");
        assert_eq!(h.streams_asked, 10);
        // nginx announces 128 concurrent streams: no cap.
        assert_eq!(h.server_stream_limit, Some(128), "{name}");
        assert_eq!(h.capped_connections, 0, "{name}");
        assert!(h.streams >= r.requests, "{name}: {} streams", h.streams);
        // Header bytes are counted as h2load counts them; nginx codes its response headers
        // with the static table and Huffman, so they arrive smaller than decoded.
        assert!(h.header_bytes_received > 0, "{name}: {h:?}");
        assert!(
            h.hpack_saving > 0.0 && h.hpack_saving < 1.0,
            "{name}: {h:?}"
        );
    }
}

#[test]
fn the_servers_stream_limit_caps_streams_and_the_result_says_so() {
    let Some(ng) = start_nginx(
        " http2",
        &format!("http2_max_concurrent_streams 3;\n    {HELLO}"),
    ) else {
        return;
    };
    let r = run(
        &base(ng.port).validate().unwrap(),
        &NullSink,
        &Cancel::new(),
    )
    .unwrap();
    assert_eq!(r.errors.total, 0, "{:?} {:?}", r.errors, r.error_examples);
    let h = r.http2.as_ref().unwrap();
    assert_eq!(h.server_stream_limit, Some(3));
    assert!(h.capped_connections >= 1, "{h:?}");
    // Never more than 3 in flight per connection: 4 connections, so at most 12 at the stop.
    assert!(r.in_flight <= 12, "{} in flight", r.in_flight);
}

#[test]
fn goaway_streams_are_sent_again_and_counted() {
    // nginx ends a connection with GOAWAY after 50 requests (keepalive_requests); streams it
    // did not take are handed back.
    let Some(ng) = start_nginx(" http2", &format!("keepalive_requests 50;\n    {HELLO}")) else {
        return;
    };
    let c = Config {
        requests: Some(2_000),
        duration: None,
        ..base(ng.port)
    };
    let r = run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap();
    assert_eq!(r.errors.total, 0, "{:?} {:?}", r.errors, r.error_examples);
    assert_eq!(r.requests, 2_000, "every request answered once");
    let h = r.http2.as_ref().unwrap();
    // 2,000 requests at 50 per connection: about 40 connections, each ended by a GOAWAY.
    assert!(h.connections >= 39, "{h:?}");
    assert!(r.connects >= 39, "{} connects", r.connects);
}

#[test]
fn http2_options_that_do_not_fit_are_clear_errors() {
    let ok = base(1);
    for (c, want) in [
        (
            Config {
                pipeline: 2,
                ..ok.clone()
            },
            "--pipeline is HTTP/1.1's",
        ),
        (
            Config {
                keepalive: false,
                ..ok.clone()
            },
            "--no-keepalive does not apply",
        ),
        (
            Config {
                http2: false,
                ..ok.clone()
            },
            "--streams needs --http2",
        ),
        (
            Config {
                streams: 0,
                ..ok.clone()
            },
            "streams per connection must be",
        ),
        (
            Config {
                h2_window: 100,
                ..ok.clone()
            },
            "window must be between",
        ),
    ] {
        let e = c.validate().unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
    }
}

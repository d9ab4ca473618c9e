//! HTTP/2 against nginx (a real, independent h2c server): every stream answered with status 200
//! and the expected body, in the closed and the open loop; the server's stream limit caps `-m`
//! and the result says so; GOAWAY after nginx's `keepalive_requests` hands streams back, which
//! are sent again on new connections and counted; HPACK's saving is measured.

use crate::common;
use barrage_model::load::DEFAULT_H2_WINDOW;

use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol};
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
        protocol: Protocol::Http2 {
            streams: 10,
            window: DEFAULT_H2_WINDOW,
        },
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
            r.errors.total(),
            0,
            "{name}: {:?} {:?}",
            r.errors,
            r.error_examples
        );
        assert_eq!(r.status["200"], r.requests, "{name}: {:?}", r.status);
        assert_eq!(
            r.requests_written,
            r.requests + r.in_flight,
            "{name}: counts add up"
        );
        let h = barrage_model::load::Http2::of(&r.protocol).expect("an http2 section");
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
    assert_eq!(r.errors.total(), 0, "{:?} {:?}", r.errors, r.error_examples);
    let h = barrage_model::load::Http2::of(&r.protocol).unwrap();
    assert_eq!(h.server_stream_limit, Some(3));
    assert!(h.capped_connections >= 1, "{h:?}");
    // Streams opened before nginx's SETTINGS arrived, above its limit, were refused and sent
    // again; nginx sent no GOAWAY.
    assert!(h.retried >= 1, "{h:?}");
    assert_eq!(h.goaways, 0, "{h:?}");
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
    // The closed loop, and the open loop, which sends handed-back requests again first, with
    // their first intended times.
    for rate in [None, Some(50_000.0)] {
        let c = Config {
            requests: Some(2_000),
            duration: None,
            rate,
            ..base(ng.port)
        };
        let r = run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap();
        assert_eq!(
            r.errors.total(),
            0,
            "{rate:?}: {:?} {:?}",
            r.errors,
            r.error_examples
        );
        assert_eq!(r.requests, 2_000, "{rate:?}: every request answered once");
        assert_eq!(
            r.latency_us.count, 2_000,
            "{rate:?}: each latency recorded once"
        );
        assert_eq!(
            r.requests_written, 2_000,
            "{rate:?}: a retry is not a second request"
        );
        let h = barrage_model::load::Http2::of(&r.protocol).unwrap();
        // 2,000 requests at 50 per connection: about 40 connections, each ended by a GOAWAY.
        assert!(h.connections >= 39, "{rate:?}: {h:?}");
        assert!(r.connects >= 39, "{rate:?}: {} connects", r.connects);
        // One GOAWAY per connection that reached 50 (the last ones may not have).
        assert!((38..=h.connections).contains(&h.goaways), "{rate:?}: {h:?}");
    }
}

/// A self-signed certificate and key made with openssl in `dir` (None when openssl is missing,
/// which CI never allows).
fn self_signed(dir: &std::path::Path) -> Option<(std::path::PathBuf, std::path::PathBuf)> {
    if !std::path::Path::new("/usr/bin/openssl").exists() {
        assert!(std::env::var_os("CI").is_none(), "openssl is not installed");
        eprintln!("SKIPPED: openssl is not installed");
        return None;
    }
    std::fs::create_dir_all(dir).unwrap();
    let (key, cert) = (dir.join("key.pem"), dir.join("cert.pem"));
    let ok = std::process::Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
        ])
        .args(["-nodes", "-days", "1", "-subj", "/CN=localhost"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(ok, "openssl req failed");
    Some((cert, key))
}

#[test]
fn over_tls_alpn_chooses_h2_or_http11_and_the_result_says_which() {
    let dir = std::env::temp_dir().join(format!("barrage-h2-tls-{}", std::process::id()));
    let Some((cert, key)) = self_signed(&dir) else {
        return;
    };
    let tls = format!(
        "ssl_certificate {};\n    ssl_certificate_key {};\n    {HELLO}",
        cert.display(),
        key.display()
    );
    // nginx offers h2 in ALPN only where `http2` is on the listen line.
    for (listen, want) in [(" ssl http2", "h2"), (" ssl", "http/1.1")] {
        let Some(ng) = start_nginx(listen, &tls) else {
            return;
        };
        let c = Config {
            url: format!("https://127.0.0.1:{}/", ng.port),
            insecure: true,
            protocol: Protocol::Http2 {
                streams: if want == "h2" { 10 } else { 1 },
                window: DEFAULT_H2_WINDOW,
            },
            ..base(ng.port)
        };
        let r = run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap();
        assert!(r.requests > 50, "{want}: {} requests", r.requests);
        assert_eq!(
            r.errors.total(),
            0,
            "{want}: {:?} {:?}",
            r.errors,
            r.error_examples
        );
        assert_eq!(r.status["200"], r.requests, "{want}");
        let h = barrage_model::load::Http2::of(&r.protocol).expect("an http2 section");
        assert_eq!(h.protocol, want);
        if want == "h2" {
            assert!(h.streams >= r.requests && h.connections >= 1, "{h:?}");
        } else {
            assert_eq!(h.streams, 0, "no stream in an HTTP/1.1 run: {h:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

//! The same load against nginx (a real, independent HTTP/1.1 server) gives status 200 and no
//! errors: keep-alive, pipelined, no keep-alive, open loop; and HTTP/1.0 as nginx's access log
//! sees it. nginx must be installed in CI
//! (`scripts/test` installs it); elsewhere the test skips with a message when it is missing.

use crate::common;

use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol};
use common::nginx::{start_nginx, HELLO};
use std::time::Duration;

#[test]
fn nginx_gives_200_and_no_errors() {
    let Some(ng) = start_nginx("", HELLO) else {
        return;
    };
    let base = Config {
        url: format!("http://127.0.0.1:{}/", ng.port),
        connections: 16,
        threads: 2,
        duration: Some(Duration::from_millis(700)),
        expect_status: Some(200),
        expect_body: Some(b"Hello, World!".to_vec()),
        ..Config::default()
    };
    let variants = [
        ("keep-alive", base.clone()),
        (
            "pipeline 16",
            Config {
                protocol: Protocol::Http1 {
                    pipeline: 16,
                    keepalive: true,
                },
                ..base.clone()
            },
        ),
        (
            "no keep-alive",
            Config {
                protocol: Protocol::Http1 {
                    pipeline: 1,
                    keepalive: false,
                },
                ..base.clone()
            },
        ),
        (
            "open loop",
            Config {
                rate: Some(500.0),
                ..base.clone()
            },
        ),
    ];
    for (name, c) in variants {
        let r = run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap();
        assert!(r.requests > 50, "{name}: {} requests", r.requests);
        assert_eq!(
            r.errors.total(),
            0,
            "{name}: {:?} {:?}",
            r.errors,
            r.error_examples
        );
        assert_eq!(r.status.len(), 1, "{name}: {:?}", r.status);
        assert_eq!(r.status["200"], r.requests, "{name}");
        assert_eq!(
            r.requests_written,
            r.requests + r.in_flight,
            "{name}: counts add up"
        );
    }
}

/// `--http1.0` against nginx, whose access log names each request's protocol and connection:
/// every request HTTP/1.0, kept on the 4 load connections when keep-alive is asked (nginx
/// grants it), one connection per request when not; every response 200 with its body.
#[test]
fn nginx_takes_http10_with_and_without_keepalive() {
    use common::nginx::{log_lines, start_nginx_with, Dir};
    for keepalive in [true, false] {
        let dir = Dir::new(&format!("nginx-http10-{keepalive}"));
        let log = dir.0.join("access.log");
        let http = "log_format p '$server_protocol $connection';";
        let server = format!("access_log {} p;\n    {HELLO}", log.display());
        let Some(ng) = start_nginx_with(http, "", &server) else {
            return;
        };
        let c = Config {
            url: format!("http://127.0.0.1:{}/", ng.port),
            protocol: Protocol::Http10 { keepalive },
            connections: 4,
            threads: 1,
            requests: Some(100),
            expect_status: Some(200),
            expect_body: Some(b"Hello, World!".to_vec()),
            ..Config::default()
        };
        let r = run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap();
        assert_eq!(
            r.requests, 100,
            "keep-alive {keepalive}: {:?}",
            r.error_examples
        );
        assert_eq!(r.errors.total(), 0, "{:?}", r.error_examples);
        let lines = log_lines(&log, 100);
        assert_eq!(lines.len(), 100, "keep-alive {keepalive}");
        assert!(
            lines.iter().all(|l| l.starts_with("HTTP/1.0 ")),
            "{lines:?}"
        );
        let mut conns: Vec<&str> = lines.iter().filter_map(|l| l.split(' ').nth(1)).collect();
        conns.sort_unstable();
        conns.dedup();
        let want = if keepalive { 4 } else { 100 };
        assert_eq!(
            conns.len(),
            want,
            "keep-alive {keepalive}: connections that carried requests"
        );
    }
}

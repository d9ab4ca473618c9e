//! The same load against nginx (a real, independent HTTP/1.1 server) gives status 200 and no
//! errors: keep-alive, pipelined, no keep-alive, open loop. nginx must be installed in CI
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

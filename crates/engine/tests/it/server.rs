//! The engine against barrage's own server (`barrage_server::start`, in process, port 0):
//! validated bodies of every framing, latency of /sleep, stalls, resets, garbage, open loop.

use barrage_engine::ErrorClass;
use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol, RunResult};
use barrage_server::{start, ServerConfig, ServerHandle};
use std::time::{Duration, Instant};

fn server() -> ServerHandle {
    start(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    })
    .unwrap()
}

fn load(s: &ServerHandle, path: &str, c: Config) -> RunResult {
    let c = Config {
        url: format!("http://{}{path}", s.local_addr()),
        ..c
    };
    run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap()
}

fn base() -> Config {
    Config {
        connections: 8,
        threads: 2,
        duration: Some(Duration::from_millis(700)),
        ..Config::default()
    }
}

fn assert_counts_add_up(r: &RunResult) {
    assert_eq!(
        r.requests_written,
        r.requests + r.errors.of_requests() + r.in_flight,
        "{:?} in flight {}",
        r.errors,
        r.in_flight
    );
}

#[test]
fn hello_world_keepalive_and_pipelined() {
    let s = server();
    for pipeline in [1, 16] {
        let r = load(
            &s,
            "/",
            Config {
                protocol: Protocol::Http1 {
                    pipeline,
                    keepalive: true,
                },
                expect_status: Some(200),
                expect_body: Some(b"Hello, World!".to_vec()),
                ..base()
            },
        );
        assert!(r.requests > 100, "pipeline {pipeline}: {}", r.requests);
        assert_eq!(r.errors.total(), 0, "{:?}", r.error_examples);
        assert_counts_add_up(&r);
    }
}

#[test]
fn pattern_bodies_validate_in_every_framing() {
    let s = server();
    let n = 300_000u64;
    let mut want = vec![0u8; n as usize];
    barrage_server::pattern::fill(0, &mut want);
    for q in ["", "?chunked=1", "?chunked=1&chunk=1000", "?chunk=777"] {
        let r = load(
            &s,
            &format!("/bytes/{n}{q}"),
            Config {
                connections: 2,
                duration: None,
                requests: Some(20),
                expect_body: Some(want.clone()),
                ..base()
            },
        );
        assert_eq!(r.requests, 20, "{q}: {:?} {:?}", r.errors, r.error_examples);
    }
    // One byte off is caught.
    want[n as usize / 2] ^= 1;
    let r = load(
        &s,
        &format!("/bytes/{n}?chunked=1"),
        Config {
            connections: 1,
            duration: None,
            requests: Some(3),
            expect_body: Some(want),
            ..base()
        },
    );
    assert_eq!(r.errors[ErrorClass::Body], 3);
}

#[test]
fn sleep_50ms_latency() {
    let s = server();
    let r = load(
        &s,
        "/sleep/50",
        Config {
            duration: Some(Duration::from_millis(1200)),
            ..base()
        },
    );
    assert!(r.requests >= 80, "{}", r.requests);
    assert!(
        (49_500..60_000).contains(&r.latency_us.p50),
        "p50 {}",
        r.latency_us.p50
    );
    assert_counts_add_up(&r);
}

#[test]
fn faults_are_counted_by_class() {
    let s = server();
    let started = Instant::now();
    let r = load(
        &s,
        "/fault/stall",
        Config {
            timeout: Duration::from_millis(150),
            duration: Some(Duration::from_millis(800)),
            ..base()
        },
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(r.errors[ErrorClass::Timeout] >= 8, "{:?}", r.errors);
    assert_counts_add_up(&r);
    let r = load(&s, "/fault/garbage", base());
    assert!(r.errors[ErrorClass::Parse] > 0, "{:?}", r.errors);
    assert_eq!(r.requests, 0);
    assert_counts_add_up(&r);
    let r = load(&s, "/fault/reset", base());
    assert!(r.errors[ErrorClass::Reset] > 0, "{:?}", r.errors);
    assert_eq!(r.requests, 0);
    assert_counts_add_up(&r);
}

#[test]
fn open_loop_rate_against_barrage_serve() {
    // Timing-free: a budget of 1,500 requests at 1,000/s. Every scheduled request is sent and
    // answered however busy the machine is (a late send goes out late, never not at all), and
    // the pacer never sends ahead of its schedule, so the achieved rate cannot pass the target
    // (how far below it a busy machine falls is not the test's to say).
    let s = server();
    let r = load(
        &s,
        "/",
        Config {
            rate: Some(1000.0),
            requests: Some(1500),
            duration: None,
            ..base()
        },
    );
    let rate = r.rate.as_ref().unwrap();
    assert_eq!(
        (r.requests_written, r.requests, r.in_flight),
        (1500, 1500, 0)
    );
    assert!(rate.achieved_rps <= 1010.0, "{}", rate.achieved_rps);
    assert!(rate.achieved_rps > 0.0);
    assert_eq!(r.errors.total(), 0);
    assert_counts_add_up(&r);
}

//! The engine against real servers on loopback: counts add up, latency, open-loop rate,
//! timeouts and reconnects, odd peers, validation, constant memory, cancellation.

mod common;

use barrage_engine::ErrorClass;
use barrage_engine::Validate as _;
use barrage_engine::{
    run, Cancel, Config, EngineError, NullSink, Phase, Protocol, RunResult, SecondStats, Sink,
};
use common::{Mode, Server};
use std::sync::Mutex;
use std::time::{Duration, Instant};

fn cfg(url: String) -> Config {
    Config {
        url,
        connections: 4,
        threads: 2,
        duration: Some(Duration::from_millis(800)),
        ..Config::default()
    }
}

fn go(c: &Config) -> RunResult {
    run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap()
}

/// written = responses + errors of written requests + in flight at the stop.
fn assert_counts_add_up(r: &RunResult) {
    assert_eq!(
        r.requests_written,
        r.requests + r.errors.of_requests() + r.in_flight,
        "requests {} errors {:?} in flight {} written {}",
        r.requests,
        r.errors,
        r.in_flight,
        r.requests_written
    );
    let total = r.errors[ErrorClass::Connect]
        + r.errors[ErrorClass::Timeout]
        + r.errors[ErrorClass::Reset]
        + r.errors[ErrorClass::Parse]
        + r.errors[ErrorClass::Status]
        + r.errors[ErrorClass::Body]
        + r.errors[ErrorClass::Unasked];
    assert_eq!(r.errors.total(), total);
    assert_eq!(r.latency_us.count, r.requests);
}

#[test]
fn closed_loop_counts_add_up() {
    let s = Server::start(Mode::Ok {
        body: b"hello",
        delay: Duration::ZERO,
    });
    let r = go(&cfg(s.url("/")));
    assert!(r.requests > 100, "{}", r.requests);
    assert_eq!(r.errors.total(), 0, "{:?}", r.error_examples);
    assert_eq!(r.status.get("200"), Some(&r.requests));
    assert_counts_add_up(&r);
    assert!(r.bytes_read >= r.requests * 43);
    assert!(r.in_flight <= 4);
    assert!(!r.series.is_empty());
    let series_total: u64 = r.series.iter().map(|s| s.responses).sum();
    assert_eq!(series_total, r.requests);
}

#[test]
fn a_whole_second_run_reports_no_empty_sliver_at_its_end() {
    // A run of whole seconds ends just past a second's boundary: the sliver of the next second
    // holds nothing and would read as a second without responses, i.e. as a stall.
    let s = Server::start(Mode::Ok {
        body: b"hello",
        delay: Duration::ZERO,
    });
    let r = go(&Config {
        duration: Some(Duration::from_secs(1)),
        ..cfg(s.url("/"))
    });
    assert!(!r.series.is_empty());
    for sec in &r.series {
        let active = sec.responses > 0 || sec.errors > 0 || sec.requests_written > 0;
        assert!(
            active || sec.span_s >= 0.01,
            "empty sliver reported: {sec:?}"
        );
    }
    let series_total: u64 = r.series.iter().map(|s| s.responses).sum();
    assert_eq!(series_total, r.requests);
}

#[test]
fn pipelined_requests_count_exactly() {
    let s = Server::start(Mode::Ok {
        body: b"hello",
        delay: Duration::ZERO,
    });
    let r = go(&Config {
        protocol: Protocol::Http1 {
            pipeline: 8,
            keepalive: true,
        },
        duration: None,
        requests: Some(5003),
        ..cfg(s.url("/"))
    });
    assert_eq!(r.requests, 5003);
    assert_eq!(r.requests_written, 5003);
    assert_eq!(r.in_flight, 0);
    assert_counts_add_up(&r);
    assert_eq!(s.requests.load(std::sync::atomic::Ordering::Relaxed), 5003);
}

#[test]
fn latency_of_a_50ms_server() {
    let s = Server::start(Mode::Ok {
        body: b"slow",
        delay: Duration::from_millis(50),
    });
    let r = go(&Config {
        duration: Some(Duration::from_millis(1500)),
        ..cfg(s.url("/"))
    });
    assert!(r.requests >= 40, "{}", r.requests);
    let p50 = r.latency_us.p50;
    assert!((49_500..60_000).contains(&p50), "p50 {p50} µs");
    assert!(r.latency_us.min >= 49_500, "min {}", r.latency_us.min);
    assert_counts_add_up(&r);
}

#[test]
fn open_loop_holds_the_rate() {
    let s = Server::start(Mode::Ok {
        body: b"ok",
        delay: Duration::ZERO,
    });
    let target = 400.0;
    let r = go(&Config {
        rate: Some(target),
        connections: 8,
        duration: Some(Duration::from_secs(2)),
        ..cfg(s.url("/"))
    });
    let rate = r.rate.as_ref().unwrap();
    assert!(
        (rate.achieved_rps - target).abs() <= target * 0.02,
        "achieved {}",
        rate.achieved_rps
    );
    assert!((r.rps - target).abs() <= target * 0.03, "rps {}", r.rps);
    assert!(r.latency_uncorrected_us.is_some());
    assert_eq!(r.errors.total(), 0);
    assert_counts_add_up(&r);
}

#[test]
fn open_loop_lateness_shows_when_connections_are_busy() {
    // One connection, a 20 ms server, 200 req/s asked: only ~50/s can be served, so requests
    // queue and the corrected latency grows far beyond the service time.
    let s = Server::start(Mode::Ok {
        body: b"ok",
        delay: Duration::from_millis(20),
    });
    let r = go(&Config {
        rate: Some(200.0),
        connections: 1,
        threads: 1,
        duration: Some(Duration::from_secs(1)),
        ..cfg(s.url("/"))
    });
    let unc = r.latency_uncorrected_us.as_ref().unwrap();
    assert!(unc.p50 < 40_000, "uncorrected p50 {}", unc.p50);
    assert!(
        r.latency_us.max > 300_000,
        "corrected max {}",
        r.latency_us.max
    );
    let rate = r.rate.as_ref().unwrap();
    assert!(rate.achieved_rps < 100.0);
    assert!(rate.lateness_us.max > 300_000);
    assert_counts_add_up(&r);
}

#[test]
fn stalling_server_gives_timeouts_and_reconnects_and_ends_on_time() {
    let s = Server::start(Mode::Stall);
    let started = Instant::now();
    let r = go(&Config {
        timeout: Duration::from_millis(200),
        duration: Some(Duration::from_millis(1200)),
        ..cfg(s.url("/"))
    });
    let took = started.elapsed();
    assert!(took < Duration::from_secs(3), "took {took:?}");
    assert!(r.errors[ErrorClass::Timeout] >= 8, "{:?}", r.errors);
    assert_eq!(r.requests, 0);
    assert!(r.connects >= 8, "connects {}", r.connects);
    assert_counts_add_up(&r);
    assert!(r.error_examples["timeout"].contains("no response"));
}

#[test]
fn server_closing_after_every_response() {
    for close_delimited in [false, true] {
        let s = Server::start(Mode::CloseEach {
            body: b"bye",
            close_delimited,
        });
        let r = go(&Config {
            expect_body: Some(b"bye".to_vec()),
            ..cfg(s.url("/"))
        });
        assert!(r.requests > 20, "{close_delimited} {r:?}");
        assert_eq!(r.errors.total(), 0, "{:?} {:?}", r.errors, r.error_examples);
        assert!(r.connects >= r.requests);
        assert_counts_add_up(&r);
    }
}

#[test]
fn no_keepalive_opens_a_connection_per_request() {
    let s = Server::start(Mode::Ok {
        body: b"hi",
        delay: Duration::ZERO,
    });
    let r = go(&Config {
        protocol: Protocol::Http1 {
            pipeline: 1,
            keepalive: false,
        },
        ..cfg(s.url("/"))
    });
    assert!(r.requests > 20);
    assert_eq!(r.errors.total(), 0, "{:?}", r.error_examples);
    assert!(
        r.connects + 4 >= r.requests,
        "{} {}",
        r.connects,
        r.requests
    );
    assert!(r.connect_us.count >= r.requests);
    let accepted = s.accepted.load(std::sync::atomic::Ordering::Relaxed);
    assert!(accepted >= r.requests);
    assert_counts_add_up(&r);
}

#[test]
fn malformed_responses_are_parse_errors() {
    let s = Server::start(Mode::Garbage);
    let r = go(&cfg(s.url("/")));
    assert_eq!(r.requests, 0);
    assert!(r.errors[ErrorClass::Parse] > 0);
    assert!(r.connects >= 2, "reconnects");
    // Backoff keeps a failing target from spinning: with 4 connections and a 5 ms first delay
    // doubling, well under 1000 attempts fit in 0.8 s.
    assert!(r.connects < 1000, "connects {}", r.connects);
    assert_counts_add_up(&r);
}

/// A second response to one request answers nothing: an `unasked` error, counted once per
/// connection it ends (before: a parse error with nothing in flight, so nothing was counted).
#[test]
fn a_second_response_to_one_request_is_unasked() {
    let s = Server::start(Mode::Twice { body: b"hello" });
    let r = go(&cfg(s.url("/")));
    assert!(r.requests > 0);
    assert!(r.errors[ErrorClass::Unasked] > 0, "{:?}", r.errors);
    assert_eq!(
        r.errors.total(),
        r.errors[ErrorClass::Unasked],
        "{:?}",
        r.errors
    );
    assert!(r.error_examples["unasked"].contains("response without a request"));
    assert!(
        r.errors[ErrorClass::Unasked] <= r.connects,
        "{:?} {}",
        r.errors,
        r.connects
    );
    assert_counts_add_up(&r);
}

#[test]
fn validation_mismatches_are_errors() {
    let s = Server::start(Mode::Status {
        status: 503,
        body: b"busy",
    });
    let r = go(&Config {
        expect_status: Some(200),
        ..cfg(s.url("/"))
    });
    assert_eq!(r.requests, 0);
    assert!(r.errors[ErrorClass::Status] > 0);
    assert_eq!(r.status.get("503"), Some(&r.errors[ErrorClass::Status]));
    assert_counts_add_up(&r);

    let s = Server::start(Mode::Ok {
        body: b"hello",
        delay: Duration::ZERO,
    });
    let r = go(&Config {
        expect_body: Some(b"hellO".to_vec()),
        ..cfg(s.url("/"))
    });
    assert_eq!(r.requests, 0);
    assert!(r.errors[ErrorClass::Body] > 0);
    assert_counts_add_up(&r);
    let r = go(&Config {
        expect_body: Some(b"hello".to_vec()),
        expect_status: Some(200),
        ..cfg(s.url("/"))
    });
    assert!(r.requests > 0);
    assert_eq!(r.errors.total(), 0);
}

#[test]
fn refused_from_the_start_is_an_error() {
    let port = common::dead_port();
    let c = cfg(format!("http://127.0.0.1:{port}/"));
    match run(&c.validate().unwrap(), &NullSink, &Cancel::new()) {
        Err(EngineError::Connect { source, .. }) => {
            assert_eq!(source.kind(), std::io::ErrorKind::ConnectionRefused)
        }
        other => panic!("{:?}", other.map(|r| r.requests)),
    }
}

#[test]
fn server_dying_mid_run_gives_connect_errors_with_backoff() {
    let s = Server::start(Mode::Ok {
        body: b"hello",
        delay: Duration::ZERO,
    });
    let url = s.url("/");
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        drop(s);
    });
    let r = go(&Config {
        duration: Some(Duration::from_millis(1500)),
        ..cfg(url)
    });
    killer.join().unwrap();
    assert!(r.requests > 0);
    assert!(r.errors[ErrorClass::Connect] > 0, "{:?}", r.errors);
    // Capped exponential backoff: a handful of attempts per connection, not a spin.
    assert!(r.errors[ErrorClass::Connect] < 200, "{:?}", r.errors);
    assert_counts_add_up(&r);
}

#[test]
fn one_gib_body_leaves_rss_flat() {
    for chunked in [false, true] {
        let len = if chunked { 256 << 20 } else { 1 << 30 };
        let s = Server::start(Mode::Big { len, chunked });
        let (rss0, _) = common::rss_kib();
        let r = go(&Config {
            connections: 1,
            threads: 1,
            duration: None,
            requests: Some(2),
            timeout: Duration::from_secs(60),
            ..cfg(s.url("/"))
        });
        let (rss1, hwm1) = common::rss_kib();
        assert_eq!(r.requests, 2, "{:?}", r.error_examples);
        assert!(r.bytes_read > 2 * len);
        // The body passed through a fixed buffer: RSS grows by far less than the body.
        assert!(
            rss1 < rss0 + 32 * 1024,
            "rss {rss0} -> {rss1} KiB (hwm {hwm1})"
        );
        assert!(hwm1 < rss0 + 64 * 1024, "hwm {hwm1} KiB from {rss0}");
    }
}

#[test]
fn cancel_stops_the_run_and_keeps_results() {
    let s = Server::start(Mode::Ok {
        body: b"hello",
        delay: Duration::ZERO,
    });
    let c = Config {
        duration: Some(Duration::from_secs(30)),
        ..cfg(s.url("/"))
    };
    let cancel = Cancel::new();
    let cc = cancel.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        cc.cancel();
    });
    let started = Instant::now();
    let r = run(&c.validate().unwrap(), &NullSink, &cancel).unwrap();
    t.join().unwrap();
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(r.cancelled);
    assert!(r.requests > 0);
    assert_counts_add_up(&r);
}

#[derive(Default)]
struct Recording(Mutex<(Vec<SecondStats>, Vec<Phase>)>);

impl Sink for Recording {
    fn second(&self, s: &SecondStats) {
        self.0.lock().unwrap().0.push(s.clone());
    }
    fn phase(&self, p: Phase, _at: Instant) {
        self.0.lock().unwrap().1.push(p);
    }
}

#[test]
fn warmup_is_reported_but_not_measured() {
    let s = Server::start(Mode::Ok {
        body: b"hello",
        delay: Duration::ZERO,
    });
    let c = Config {
        warmup: Duration::from_millis(1200),
        duration: Some(Duration::from_millis(1100)),
        ..cfg(s.url("/"))
    };
    let sink = Recording::default();
    let r = run(&c.validate().unwrap(), &sink, &Cancel::new()).unwrap();
    let (seconds, phases) = sink.0.into_inner().unwrap();
    assert_eq!(phases, vec![Phase::Warmup, Phase::Measure, Phase::Done]);
    let warm: u64 = seconds
        .iter()
        .filter(|s| s.phase == Phase::Warmup)
        .map(|s| s.responses)
        .sum();
    let measured: Vec<&SecondStats> = seconds
        .iter()
        .filter(|s| s.phase == Phase::Measure)
        .collect();
    assert!(warm > 0);
    assert_eq!(measured.len(), r.series.len());
    assert_eq!(
        measured.iter().map(|s| s.responses).sum::<u64>(),
        r.requests
    );
    assert!((r.duration_s - 1.1).abs() < 0.2, "{}", r.duration_s);
    let served = s.requests.load(std::sync::atomic::Ordering::Relaxed);
    assert!(served > r.requests_written, "warmup requests were sent too");
    assert_counts_add_up(&r);
}

#[test]
fn request_count_run_gives_up_on_a_dead_target() {
    let s = Server::start(Mode::Ok {
        body: b"hello",
        delay: Duration::ZERO,
    });
    let url = s.url("/");
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        drop(s);
    });
    let started = Instant::now();
    let r = go(&Config {
        duration: None,
        requests: Some(1 << 40),
        timeout: Duration::from_millis(200),
        ..cfg(url)
    });
    killer.join().unwrap();
    // Unreachable for max(2 x timeout, 2 s): the run ends instead of retrying forever.
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
    assert!(r.requests > 0);
    assert!(r.errors[ErrorClass::Connect] > 0);
    assert_counts_add_up(&r);
}

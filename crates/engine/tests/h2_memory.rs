//! HTTP/2 in constant memory: a 1 GiB response body streams through `barrage serve` and the
//! engine without either holding it (the live heap of the whole process stays within a few
//! MiB of where it started), and a run of 10 N requests allocates no more than one of N (no
//! allocation per request in steady state, on either side). A counting global allocator sees
//! both the engine and the in-process server.

use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol};
use barrage_model::load::DEFAULT_H2_WINDOW;
use barrage_server::{start, ServerConfig};
use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::Duration;

mod heap;
use heap::{Counting, ALLOCS, LIVE, PEAK};

#[global_allocator]
static A: Counting = Counting;

/// The two tests measure the whole process: one at a time.
static ONE: Mutex<()> = Mutex::new(());

fn h2(url: String) -> Config {
    Config {
        url,
        connections: 1,
        threads: 1,
        protocol: Protocol::Http2 {
            streams: 1,
            window: DEFAULT_H2_WINDOW,
        },
        expect_status: Some(200),
        ..Config::default()
    }
}

#[test]
fn a_1gib_body_over_h2_is_never_held() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let s = start(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    })
    .unwrap();
    let c = Config {
        requests: Some(1),
        timeout: Duration::from_secs(120),
        ..h2(format!("http://{}/bytes/1GiB", s.local_addr()))
    }
    .validate()
    .unwrap();
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let r = run(&c, &NullSink, &Cancel::new()).unwrap();
    let peak = PEAK.load(Ordering::Relaxed);
    assert_eq!(r.requests, 1, "{:?}", r.error_examples);
    assert_eq!(r.errors.total(), 0);
    assert!(r.bytes_read >= 1 << 30, "{}", r.bytes_read);
    // Buffers, windows and histograms: a few MiB; the body would be 1,024 MiB.
    assert!(
        peak - before < 32 << 20,
        "the live heap grew by {} MiB",
        (peak - before) >> 20
    );
}

#[test]
fn no_allocation_per_request_over_h2() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let s = start(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    })
    .unwrap();
    let allocs = |n: u64| {
        let c = Config {
            requests: Some(n),
            protocol: Protocol::Http2 {
                streams: 10,
                window: DEFAULT_H2_WINDOW,
            },
            expect_body: Some(b"Hello, World!".to_vec()),
            ..h2(format!("http://{}/", s.local_addr()))
        }
        .validate()
        .unwrap();
        let a0 = ALLOCS.load(Ordering::Relaxed);
        let r = run(&c, &NullSink, &Cancel::new()).unwrap();
        assert_eq!(r.requests, n, "{:?}", r.error_examples);
        ALLOCS.load(Ordering::Relaxed) - a0
    };
    let small = allocs(2_000);
    let large = allocs(20_000);
    // Per-second statistics may add a handful; per-request allocation would add 18,000+.
    assert!(
        large < small + 2_000,
        "2,000 requests: {small} allocations; 20,000: {large}"
    );
}

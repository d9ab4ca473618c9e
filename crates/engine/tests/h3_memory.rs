//! HTTP/3 in constant memory, both directions: a 1 GiB response body streams from
//! `barrage serve --http3` through `barrage load --http3` (both in this process), and a 1 GiB
//! request body streams from aioquic's client (`server/tests/h3_peers/h3_upload.py`, the body
//! made lazily) into `barrage serve --http3`, without either side holding it: the live heap of
//! the whole process (a counting global allocator sees the engine and the in-process server)
//! stays within a few MiB of where it started.

use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol};
use barrage_server::{start, ServerConfig, Tls};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::{Duration, Instant};

mod heap;
use heap::{Counting, LIVE, PEAK};

#[global_allocator]
static A: Counting = Counting;

/// The tests measure the whole process: one at a time.
static ONE: Mutex<()> = Mutex::new(());

const GIB: u64 = 1 << 30;

fn server() -> barrage_server::ServerHandle {
    start(ServerConfig {
        threads: 1,
        tls: Some(Tls::SelfSigned),
        http3: true,
        // A 1 GiB upload is read to its end (past `--body-limit` it is 413 over every
        // protocol).
        echo_limit: 2 << 30,
        ..ServerConfig::default()
    })
    .unwrap()
}

#[test]
fn a_1gib_response_over_http3_is_never_held() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let s = server();
    let c = Config {
        url: format!("https://127.0.0.1:{}/bytes/1GiB", s.local_addr().port()),
        insecure: true,
        connections: 1,
        threads: 1,
        protocol: Protocol::Http3 { streams: 1 },
        requests: Some(1),
        expect_status: Some(200),
        timeout: Duration::from_secs(120),
        ..Config::default()
    }
    .validate()
    .unwrap();
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let started = Instant::now();
    let r = run(&c, &NullSink, &Cancel::new()).unwrap();
    let peak = PEAK.load(Ordering::Relaxed);
    eprintln!(
        "1 GiB down in {:?}, live heap +{} KiB at its peak",
        started.elapsed(),
        (peak - before) >> 10
    );
    assert_eq!(r.requests, 1, "{:?} {:?}", r.errors, r.error_examples);
    assert_eq!(r.errors.total(), 0);
    assert!(r.bytes_read >= GIB, "{}", r.bytes_read);
    // Buffers, windows and histograms: a few MiB; the body would be 1,024 MiB.
    assert!(
        peak - before < 32 << 20,
        "the live heap grew by {} MiB",
        (peak - before) >> 20
    );
}

#[test]
fn a_1gib_request_body_into_serve_http3_is_never_held() {
    let Some(py) = barrage_testkit::python("aioquic.asyncio, aioquic.h3.connection", "aioquic")
    else {
        return;
    };
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let s = server();
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../server/tests/h3_peers/h3_upload.py");
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    // POST / keeps the body's first 4 bytes (it answers `pong` to `ping`), drops the rest as it
    // arrives, and answers once it ended: 400 "expected the body ping\n".
    let out = Command::new(py)
        .arg(script)
        .args(["127.0.0.1", &s.local_addr().port().to_string(), "/"])
        .arg(GIB.to_string())
        .output()
        .expect("python runs");
    let peak = PEAK.load(Ordering::Relaxed);
    let line = String::from_utf8_lossy(&out.stdout);
    eprintln!(
        "1 GiB up: {line:?} {}, live heap +{} KiB at its peak",
        String::from_utf8_lossy(&out.stderr),
        (peak - before) >> 10
    );
    assert!(out.status.success());
    // Sent after the body's end: the server read all of it.
    assert!(line.starts_with("400 23 "), "{line}");
    let stats = s.stats();
    assert_eq!(stats.accepted, 1, "{stats:?}");
    assert!(
        peak - before < 32 << 20,
        "the live heap grew by {} MiB",
        (peak - before) >> 20
    );
}

//! HTTP/3 against hostile servers: aioquic's QUIC with HTTP/3 written by hand
//! (`crates/wire/tests/h3_peers/h3_hostile_server.py`, one mode per way of breaking the protocol),
//! and a UDP socket that reads and never answers. Every case must end as counted errors of a
//! named class, never a success, by itself within the run's duration plus its timeout, and in
//! bounded memory (a counting allocator watches the live heap).

use barrage_engine::ErrorClass;
use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol, RunResult};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::{Duration, Instant};

mod heap;
use barrage_testkit::Proc;
use heap::{Counting, LIVE, PEAK};

#[global_allocator]
static A: Counting = Counting;

/// The heap is the whole process's: one case at a time.
static ONE: Mutex<()> = Mutex::new(());

fn python() -> Option<PathBuf> {
    barrage_testkit::python("aioquic.asyncio, aioquic.h3.connection", "aioquic")
}

/// The hostile server in `mode`, and its UDP port.
fn hostile(py: &Path, mode: &str) -> (Proc, u16) {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../wire/tests/h3_peers/h3_hostile_server.py");
    let mut child = Command::new(py)
        .arg(script)
        .arg(mode)
        .stdout(Stdio::piped())
        .spawn()
        .expect("python starts");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let proc = Proc(child);
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let port = first.trim().strip_prefix("port ").unwrap().parse().unwrap();
    // The rest ("request N") is read and dropped so the child never blocks on a full pipe.
    std::thread::spawn(move || for _ in out.lines().map_while(Result::ok) {});
    (proc, port)
}

fn config(port: u16) -> Config {
    Config {
        url: format!("https://127.0.0.1:{port}/"),
        protocol: Protocol::Http3 { streams: 4 },
        insecure: true,
        connections: 1,
        threads: 1,
        requests: Some(20),
        timeout: Duration::from_millis(1000),
        ..Config::default()
    }
}

/// Runs `cfg`: the result and the live heap's growth at its peak during the run (bytes).
fn measured(name: &str, cfg: Config) -> (RunResult, usize) {
    let valid = cfg.validate().unwrap();
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let started = Instant::now();
    let r = run(&valid, &NullSink, &Cancel::new()).unwrap();
    let took = started.elapsed();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    eprintln!(
        "{name}: {took:?} peak +{} KiB, {} ok, {} written, {:?} {:?}",
        peak >> 10,
        r.requests,
        r.requests_written,
        r.errors,
        r.error_examples
    );
    // Ended by itself (a bound on a hang, not a timing assertion).
    assert!(took < Duration::from_secs(30), "{name}: ran {took:?}");
    (r, peak)
}

/// Runs the default load against the hostile server in `mode`, tweaked.
fn against(mode: &str, tweak: impl Fn(&mut Config)) -> Option<(RunResult, usize)> {
    let py = python()?;
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let (_proc, port) = hostile(&py, mode);
    let mut cfg = config(port);
    tweak(&mut cfg);
    let r = measured(mode, cfg);
    // Nothing a hostile server sends is a success, and every count adds up.
    assert_eq!(r.0.requests, 0, "{mode}: {:?}", r.0.status);
    assert!(r.0.status.is_empty(), "{mode}: {:?}", r.0.status);
    assert!(r.1 < 8 << 20, "{mode}: the live heap grew {} bytes", r.1);
    Some(r)
}

/// Every error of the run is of `class` (its count), and the run is bounded by its requests.
fn only(mode: &str, r: &RunResult, class: u64) {
    assert!(class > 0, "{mode}: {:?}", r.errors);
    assert_eq!(r.errors.total(), class, "{mode}: {:?}", r.errors);
}

#[test]
fn data_before_headers_is_a_protocol_error() {
    let Some((r, _)) = against("data-first", |_| {}) else {
        return;
    };
    only("data-first", &r, r.errors[ErrorClass::Protocol]);
    assert_eq!(r.errors[ErrorClass::Protocol], 20, "{:?}", r.errors);
    // The connection's error, as RFC 9114 §4.1 has it (it was the stream's before).
    assert!(r.error_examples["protocol"].contains("H3_FRAME_UNEXPECTED"));
}

#[test]
fn an_http2_frame_type_on_a_request_stream_is_a_protocol_error() {
    let Some((r, _)) = against("h2-frame", |_| {}) else {
        return;
    };
    only("h2-frame", &r, r.errors[ErrorClass::Protocol]);
    assert_eq!(r.errors[ErrorClass::Protocol], 20, "{:?}", r.errors);
}

#[test]
fn a_pseudo_header_field_in_trailers_is_a_protocol_error() {
    // RFC 9114 §4.1.2 and §4.3: the response is malformed (it was a success before: trailers
    // were dropped unread), a stream error of its own: every request counted, the connection
    // going on.
    let Some((r, _)) = against("trailer-pseudo", |_| {}) else {
        return;
    };
    only("trailer-pseudo", &r, r.errors[ErrorClass::Protocol]);
    assert_eq!(r.errors[ErrorClass::Protocol], 20, "{:?}", r.errors);
    assert!(r.error_examples["protocol"].contains("H3_MESSAGE_ERROR"));
}

#[test]
fn a_frame_cut_by_the_stream_end_is_a_protocol_error() {
    let Some((r, _)) = against("truncated", |_| {}) else {
        return;
    };
    only("truncated", &r, r.errors[ErrorClass::Protocol]);
    assert_eq!(r.errors[ErrorClass::Protocol], 20, "{:?}", r.errors);
}

#[test]
fn settings_twice_is_a_protocol_error() {
    let Some((r, _)) = against("settings-twice", |_| {}) else {
        return;
    };
    only("settings-twice", &r, r.errors[ErrorClass::Protocol]);
}

#[test]
fn a_qpack_table_past_the_announced_capacity_is_a_protocol_error() {
    for mode in ["qpack-overflow", "qpack-insert"] {
        let Some((r, _)) = against(mode, |_| {}) else {
            return;
        };
        only(mode, &r, r.errors[ErrorClass::Protocol]);
    }
}

#[test]
fn a_header_frame_of_a_gib_is_refused_before_its_payload() {
    let Some((r, peak)) = against("huge-frame", |_| {}) else {
        return;
    };
    only("huge-frame", &r, r.errors[ErrorClass::Protocol]);
    assert!(peak < 4 << 20, "{peak}");
}

#[test]
fn qpack_bombs_are_header_too_large_per_request() {
    for mode in ["static-bomb", "qpack-bomb"] {
        let Some((r, _)) = against(mode, |_| {}) else {
            return;
        };
        only(mode, &r, r.errors[ErrorClass::HeaderTooLarge]);
        // A stream's error: the connection goes on and every request gets its answer.
        assert_eq!(
            r.errors[ErrorClass::HeaderTooLarge],
            20,
            "{mode}: {:?}",
            r.errors
        );
        assert_eq!(r.requests_written, 20, "{mode}");
    }
}

#[test]
fn a_section_waiting_for_an_insert_that_never_comes_times_out() {
    // 4 streams, within the 16 blocked streams announced: each waits, then times out.
    let Some((r, _)) = against("never-inserted", |_| {}) else {
        return;
    };
    only("never-inserted", &r, r.errors[ErrorClass::Timeout]);
    assert_eq!(r.errors[ErrorClass::Timeout], 20, "{:?}", r.errors);
    // 20 at once: the 17th blocked stream is past the limit, the connection's error.
    let Some((r, _)) = against("never-inserted", |c| {
        c.protocol = Protocol::Http3 { streams: 20 };
    }) else {
        return;
    };
    only(
        "never-inserted, 20 streams",
        &r,
        r.errors[ErrorClass::Protocol],
    );
    assert_eq!(r.errors[ErrorClass::Protocol], 20, "{:?}", r.errors);
    assert!(r.error_examples["protocol"].contains("QPACK_DECOMPRESSION_FAILED"));
}

#[test]
fn a_server_that_allows_no_stream_is_an_error_not_silence() {
    let Some((r, _)) = against("zero-streams", |_| {}) else {
        return;
    };
    assert_eq!(r.requests_written, 0);
    let h = barrage_model::load::Http3::of(&r.protocol).expect("an http3 section");
    assert!(h.handshakes > 0, "{h:?}");
    // Each connection waits out the timeout with no stream allowed, then fails (and reconnects
    // after a backoff) until the run gives up: a count, not silence (before: 0 errors).
    only("zero-streams", &r, r.errors[ErrorClass::Connect]);
    assert!(r.error_examples["connect"].contains("allowed 0 streams"));
}

#[test]
fn a_server_that_never_answers_the_handshake_is_a_connect_error() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    // A socket that reads every datagram and never answers (a stalled handshake).
    let sink = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = sink.local_addr().unwrap().port();
    sink.set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let got = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let (s, g) = (stop.clone(), got.clone());
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 2048];
        while !s.load(Ordering::Relaxed) {
            if sink.recv(&mut buf).is_ok() {
                g.fetch_add(1, Ordering::Relaxed);
            }
        }
    });
    let (r, _) = measured(
        "stalled handshake",
        Config {
            requests: Some(5),
            timeout: Duration::from_millis(500),
            ..config(port)
        },
    );
    stop.store(true, Ordering::Relaxed);
    reader.join().unwrap();
    assert!(got.load(Ordering::Relaxed) > 0, "the Initials arrived");
    assert_eq!(r.requests, 0);
    assert_eq!(r.requests_written, 0);
    // One per attempt, each after the 500 ms timeout, until the run gives up (2 s without
    // progress): a count, not silence (before: 0 errors).
    only("stalled handshake", &r, r.errors[ErrorClass::Connect]);
    assert!(r.error_examples["connect"].contains("QUIC handshake"));
    let h = barrage_model::load::Http3::of(&r.protocol).expect("an http3 section");
    assert_eq!(h.handshakes, 0, "{h:?}");
}

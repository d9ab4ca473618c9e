//! `barrage load --ws` against `barrage serve`'s `/ws/echo` (both in process, port 0): exact
//! message counts in the closed loop (pipelined too) that the server's own counters agree with,
//! the open loop, wss, and the server's close fault and a wrong reply as counted errors of
//! their class, never as successes.

use barrage_engine::ErrorClass;
use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol, RunResult};
use barrage_server::{start, ServerConfig, ServerHandle};
use std::time::Duration;

fn server(cfg: ServerConfig) -> ServerHandle {
    start(ServerConfig { threads: 1, ..cfg }).unwrap()
}

fn base(s: &ServerHandle, path: &str) -> Config {
    Config {
        url: format!("ws://{}{path}", s.local_addr()),
        protocol: Protocol::ws(1),
        connections: 4,
        threads: 2,
        requests: Some(1000),
        body: b"hello".to_vec(),
        expect_body: Some(b"hello".to_vec()),
        timeout: Duration::from_secs(5),
        ..Config::default()
    }
}

fn load(c: Config) -> RunResult {
    run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap()
}

fn assert_clean(name: &str, r: &RunResult) {
    assert_eq!(
        r.errors.total(),
        0,
        "{name}: {:?} {:?}",
        r.errors,
        r.error_examples
    );
    assert_eq!(r.status["200"], r.requests, "{name}");
    assert_eq!(
        r.requests_written,
        r.requests + r.in_flight,
        "{name}: counts add up"
    );
}

#[test]
fn closed_loop_sends_exactly_n_messages_and_the_server_agrees() {
    let s = server(ServerConfig::default());
    let r = load(base(&s, "/ws/echo"));
    assert_clean("closed", &r);
    assert_eq!(r.requests, 1000);
    let st = s.stats();
    assert_eq!(st.ws_messages, 1000, "{st:?}");
    assert!((1..=4).contains(&st.ws_upgrades), "{st:?}");
    let w = barrage_model::load::Ws::of(&r.protocol).expect("a ws section");
    assert!((1..=4).contains(&w.handshakes), "{w:?}");
    assert!(w.handshake_mean_us > 0.0 && w.closes.is_empty(), "{w:?}");
    assert_eq!(r.config.url, format!("ws://{}/ws/echo", s.local_addr()));
}

#[test]
fn pipelined_messages_are_matched_in_order() {
    let s = server(ServerConfig::default());
    // Binary messages (not UTF-8) of different sizes in turn would need several bodies; one
    // binary body with 8 in flight per connection.
    let body: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
    let r = load(Config {
        connections: 2,
        protocol: Protocol::ws(8),
        requests: Some(2000),
        body: body.clone(),
        expect_body: Some(body),
        ..base(&s, "/ws/echo")
    });
    assert_clean("pipelined", &r);
    assert_eq!(r.requests, 2000);
    assert_eq!(s.stats().ws_messages, 2000);
}

#[test]
fn open_loop_at_a_rate() {
    let s = server(ServerConfig::default());
    let r = load(Config {
        connections: 2,
        requests: None,
        duration: Some(Duration::from_millis(500)),
        rate: Some(400.0),
        ..base(&s, "/ws/echo")
    });
    assert_clean("open", &r);
    assert!(r.requests > 0);
    assert!(s.stats().ws_messages >= r.requests);
}

#[test]
fn over_tls() {
    let s = server(ServerConfig {
        tls: Some(barrage_server::Tls::SelfSigned),
        ..ServerConfig::default()
    });
    let r = load(Config {
        url: format!("wss://{}/ws/echo", s.local_addr()),
        insecure: true,
        requests: Some(200),
        ..base(&s, "")
    });
    assert_clean("wss", &r);
    assert_eq!(r.requests, 200);
    assert_eq!(s.stats().ws_messages, 200);
}

#[test]
fn a_close_from_the_server_fails_the_message_as_a_reset() {
    let s = server(ServerConfig::default());
    let r = load(Config {
        connections: 2,
        requests: Some(100),
        ..base(&s, "/ws/echo?fault=close&code=1011&after=5")
    });
    // Each connection echoes 5 messages, then closes with 1011 on the 6th, which fails, and
    // the worker connects again. Two threads of one connection each, 50 messages each: 8 rounds
    // of 5 echoes and a failure, then 2 echoes.
    assert!(r.errors.total() > 0, "{:?}", r.errors);
    assert_eq!(
        r.errors[ErrorClass::Reset],
        r.errors.total(),
        "{:?}",
        r.errors
    );
    assert!(
        r.error_examples["reset"].contains("1011"),
        "{:?}",
        r.error_examples
    );
    assert_eq!(r.status["200"], r.requests, "only echoes count as answers");
    assert_eq!((r.requests, r.errors.total()), (84, 16), "{:?}", r.errors);
    assert_eq!(r.requests_written, 100);
    // The server's side: every message received (the faulted ones too), and one close per
    // failure (a fault's code counts in its "other codes" slot, 0).
    let st = s.stats();
    assert_eq!(st.ws_messages, 100, "{st:?}");
    assert_eq!(st.ws_closes, [(0, 16)], "{st:?}");
    // And the client's: the same closes, by their code.
    let w = barrage_model::load::Ws::of(&r.protocol).expect("a ws section");
    assert_eq!(w.closes.get("1011"), Some(&16), "{w:?}");
}

#[test]
fn a_wrong_reply_is_a_body_error() {
    let s = server(ServerConfig::default());
    let r = load(Config {
        requests: Some(100),
        expect_body: Some(b"other".to_vec()),
        ..base(&s, "/ws/echo")
    });
    assert_eq!(r.errors[ErrorClass::Body], 100, "{:?}", r.errors);
    assert_eq!(r.errors.total(), 100);
    assert_eq!(r.requests_written, 100);
}

/// Echoes are checked by default: distinct messages (one per body line), 8 in flight per
/// connection, each reply compared with its own message as it streams. `barrage serve` echoes
/// them all, in order: no error. With the same bodies as a fixed `--expect-body`, every
/// message but the lines equal to it is a body error.
#[test]
fn echoes_of_distinct_messages_are_checked_by_default() {
    let s = server(ServerConfig::default());
    let dir = std::env::temp_dir().join(format!("barrage-ws-echo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let lines = dir.join("lines.txt");
    let body: String = (0..10)
        .map(|i| format!("message {i} {}\n", "x".repeat(i * 700)))
        .collect();
    std::fs::write(&lines, body).unwrap();
    let base = Config {
        connections: 2,
        protocol: Protocol::ws(8),
        requests: Some(1000),
        body: Vec::new(),
        body_lines: Some(lines.display().to_string()),
        expect_body: None,
        ..base(&s, "/ws/echo")
    };
    let r = load(base.clone());
    assert_clean("echoes", &r);
    assert_eq!(r.requests, 1000);
    let r = load(Config {
        expect_body: Some(b"message 0 ".to_vec()),
        ..base
    });
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        (r.requests, r.errors[ErrorClass::Body]),
        (100, 900),
        "{:?}",
        r.errors
    );
}

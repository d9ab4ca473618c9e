//! A timeout frees a slot of a multiplexed connection, and the closed loop fills it at once, on
//! every multiplexed protocol (HTTP/2, gRPC, HTTP/3) against `barrage serve` (in process, port
//! 0): one connection, two streams, a 1 s timeout and answers that take 3 s (or never come),
//! for 4 s. Each stream that times out is replaced by a new one while the connection stays
//! silent, so both slots are always taken: 2 requests in flight at the stop, and every other
//! request written ended by its timeout. Before, a connection wrote nothing more after its
//! streams timed out until something arrived: 2 requests written in the 4 s, 2 errors, none in
//! flight.

use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, ErrorClass, NullSink, Protocol, RunResult};
use barrage_model::load::{Grpc, DEFAULT_H2_WINDOW};
use barrage_server::{start, ServerConfig, ServerHandle, Tls};
use std::time::Duration;

/// Streams per connection: the slots a timeout frees.
const STREAMS: usize = 2;

/// One connection with [`STREAMS`] streams, a 1 s timeout, for 4 s.
fn base(url: String, protocol: Protocol) -> Config {
    Config {
        url,
        connections: 1,
        threads: 1,
        protocol,
        duration: Some(Duration::from_secs(4)),
        timeout: Duration::from_secs(1),
        ..Config::default()
    }
}

fn load(c: Config) -> RunResult {
    run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap()
}

/// Every request written either timed out (as `class`) or was still in flight at the stop,
/// both slots taken then, and the slots were refilled at least twice each: the first two
/// requests time out at about 1 s and their successors at about 2 s, well within the 4 s (a
/// connection that waited for input would have written 2 and had none in flight).
fn refilled(name: &str, r: &RunResult, class: ErrorClass) {
    let why = format!("{name}: {:?} {:?}", r.errors, r.error_examples);
    assert_eq!(r.requests, 0, "{why}");
    assert_eq!(r.errors.total(), r.errors[class], "{why}");
    assert_eq!(
        r.in_flight, STREAMS as u64,
        "{why}: both slots taken at the stop"
    );
    assert_eq!(
        r.requests_written,
        r.requests + r.errors.total() + r.in_flight,
        "{why}: written = responses + errors + in flight"
    );
    assert!(
        r.errors[class] >= 2 * STREAMS as u64,
        "{why}: each slot refilled as its request timed out"
    );
}

#[test]
fn http2_refills_the_streams_that_timed_out_at_once() {
    let s = start(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    })
    .unwrap();
    let protocol = Protocol::Http2 {
        streams: STREAMS,
        window: DEFAULT_H2_WINDOW,
    };
    let r = load(base(
        format!("http://{}/sleep/3000", s.local_addr()),
        protocol,
    ));
    refilled("HTTP/2", &r, ErrorClass::Timeout);
}

/// A stalled call is never answered: each one past its deadline is cancelled (counted
/// `DEADLINE_EXCEEDED`, as gRPC's clients count it) and another goes in its place.
#[test]
fn grpc_refills_the_calls_past_their_deadline_at_once() {
    let s = start(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    })
    .unwrap();
    let protocol = Protocol::Grpc {
        streams: STREAMS,
        window: DEFAULT_H2_WINDOW,
    };
    let r = load(Config {
        call: Some("barrage.test.v1.Test/Echo".into()),
        proto: Some(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/grpc/barrage.proto").into()),
        data: Some("{}".into()),
        metadata: Some(r#"{"x-barrage-fault": "stall"}"#.into()),
        ..base(format!("http://{}", s.local_addr()), protocol)
    });
    refilled("gRPC", &r, ErrorClass::GrpcStatus);
    let g = Grpc::of(&r.protocol).expect("a grpc section");
    assert_eq!(g.calls.len(), 1, "{:?}", g.calls);
    assert_eq!(g.calls.get("DEADLINE_EXCEEDED"), Some(&r.errors.total()));
}

#[test]
fn http3_refills_the_streams_that_timed_out_at_once() {
    let s: ServerHandle = start(ServerConfig {
        threads: 1,
        tls: Some(Tls::SelfSigned),
        http3: true,
        ..ServerConfig::default()
    })
    .unwrap();
    let url = format!("https://127.0.0.1:{}/sleep/3000", s.local_addr().port());
    let r = load(Config {
        insecure: true,
        ..base(url, Protocol::Http3 { streams: STREAMS })
    });
    refilled("HTTP/3", &r, ErrorClass::Timeout);
}

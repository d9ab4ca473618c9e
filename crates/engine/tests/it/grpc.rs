//! `barrage load --grpc` against `barrage serve`'s gRPC services (both in process, port 0, h2c):
//! exact call counts on both sides, reply messages counted, every call's status counted by code,
//! a non-OK status an error of its own class, in the closed and the open loop; and the load's
//! errors before anything is sent (a method the schema lacks, gRPC options without --grpc).

use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, ErrorClass, NullSink, Protocol, RunResult};
use barrage_model::load::{Grpc, DEFAULT_H2_WINDOW};
use barrage_server::{start, ServerConfig, ServerHandle};

const PROTO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/grpc/barrage.proto");

fn server() -> ServerHandle {
    start(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    })
    .unwrap()
}

fn call(s: &ServerHandle, method: &str, data: &str, n: u64) -> Config {
    Config {
        url: format!("http://{}", s.local_addr()),
        connections: 4,
        threads: 2,
        requests: Some(n),
        protocol: Protocol::Grpc {
            streams: 8,
            window: DEFAULT_H2_WINDOW,
        },
        call: Some(format!("barrage.test.v1.Test/{method}")),
        proto: Some(PROTO.into()),
        data: Some(data.into()),
        ..Config::default()
    }
}

fn load(c: Config) -> RunResult {
    run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap()
}

/// HTTP/2 responses the server counted (a call's head, trailers-only included).
fn served(s: &ServerHandle) -> u64 {
    s.stats()
        .responses
        .iter()
        .filter(|(p, c, _)| *p == "h2" && *c == 200)
        .map(|(_, _, n)| n)
        .sum()
}

fn grpc(r: &RunResult) -> &Grpc {
    Grpc::of(&r.protocol).expect("a grpc section")
}

#[test]
fn each_method_is_called_exactly_n_times_and_the_server_agrees() {
    // (method, data, reply messages per call)
    let cases = [
        ("Echo", r#"{"payload": "aGk=", "text": "x"}"#, 1),
        ("Echo", r#"{"size": 1000}"#, 1),
        ("Stream", r#"{"count": 3, "size": 10}"#, 3),
        ("Sum", r#"[{"value": 1}, {"value": 2}, {"value": 3}]"#, 1),
        ("Chat", r#"[{"text": "a"}, {"text": "b"}]"#, 2),
    ];
    for (method, data, per_call) in cases {
        let s = server();
        let r = load(call(&s, method, data, 600));
        let name = format!("{method} {data}");
        assert_eq!(r.errors.total(), 0, "{name}: {:?}", r.error_examples);
        assert_eq!(r.requests, 600, "{name}");
        assert_eq!(r.requests_written, 600, "{name}");
        let g = grpc(&r);
        assert_eq!(g.calls.get("OK"), Some(&600), "{name}: {:?}", g.calls);
        assert_eq!(g.calls.len(), 1, "{name}: {:?}", g.calls);
        assert_eq!(g.messages_received, 600 * per_call, "{name}");
        assert_eq!(g.messages_per_call, per_call as f64, "{name}");
        // Every reply message timed, none later than its call's end.
        let m = g.message_latency_us.as_ref().expect("message latency");
        assert_eq!(m.count, 600 * per_call, "{name}");
        assert!(m.min >= 1 && m.max <= r.latency_us.max, "{name}: {m:?}");
        assert_eq!(g.http2.protocol, "h2c", "{name}");
        assert_eq!(served(&s), 600, "{name}: the server's count");
    }
}

#[test]
fn a_status_other_than_ok_is_counted_by_code_and_as_an_error() {
    let s = server();
    // HealthCheckRequest { service: "nope" }: NOT_FOUND from the health service. The call's
    // schema is written here, beside the test's server.
    let dir = std::env::temp_dir().join(format!("barrage-grpc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let proto = dir.join("health.proto");
    std::fs::write(
        &proto,
        "syntax = \"proto3\";\npackage grpc.health.v1;\n\
         message HealthCheckRequest { string service = 1; }\n\
         message HealthCheckResponse { int32 status = 1; }\n\
         service Health { rpc Check(HealthCheckRequest) returns (HealthCheckResponse); \
         rpc Watch(HealthCheckRequest) returns (stream HealthCheckResponse); }\n",
    )
    .unwrap();
    let health = |call: &str, data: &str| Config {
        call: Some(call.into()),
        proto: Some(proto.to_string_lossy().into_owned()),
        ..call_on(&s, data)
    };
    let r = load(health(
        "grpc.health.v1.Health/Check",
        r#"{"service": "nope"}"#,
    ));
    assert_eq!(r.requests, 0);
    assert_eq!(r.errors[ErrorClass::GrpcStatus], 300);
    assert_eq!(grpc(&r).calls.get("NOT_FOUND"), Some(&300));
    let example = &r.error_examples["grpc_status"];
    assert!(example.contains("grpc-status NOT_FOUND"), "{example}");

    // Watch is not served: UNIMPLEMENTED, trailers-only.
    let r = load(health("grpc.health.v1.Health/Watch", "{}"));
    assert_eq!(r.errors[ErrorClass::GrpcStatus], 300);
    assert_eq!(grpc(&r).calls.get("UNIMPLEMENTED"), Some(&300));

    // The same service's Check for the served service: SERVING, OK.
    let r = load(health("grpc.health.v1.Health/Check", "{}"));
    assert_eq!((r.requests, r.errors.total()), (300, 0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// 300 calls of nothing in particular on `s` (the caller names the call).
fn call_on(s: &ServerHandle, data: &str) -> Config {
    call(s, "Echo", data, 300)
}

#[test]
fn the_open_loop_paces_calls() {
    let s = server();
    let r = load(Config {
        rate: Some(2000.0),
        requests: Some(1000),
        ..call(&s, "Echo", "{}", 1000)
    });
    assert_eq!((r.requests, r.errors.total()), (1000, 0));
    assert_eq!(grpc(&r).calls.get("OK"), Some(&1000));
    assert_eq!(served(&s), 1000);
}

#[test]
fn a_call_that_cannot_be_made_is_refused_before_any_load() {
    let s = server();
    let err = |c: Config| c.validate().unwrap_err().to_string();
    let e = err(call(&s, "Nope", "{}", 1));
    assert!(
        e.contains("has no method \"Nope\"") && e.contains("Echo"),
        "{e}"
    );
    let e = err(call(&s, "Echo", r#"{"nope": 1}"#, 1));
    assert!(e.contains("--data") && e.contains("nope"), "{e}");
    let e = err(Config {
        protocol: Protocol::Http2 {
            streams: 1,
            window: DEFAULT_H2_WINDOW,
        },
        ..call(&s, "Echo", "{}", 1)
    });
    assert!(e.contains("gRPC's"), "{e}");
    let e = err(Config {
        call: None,
        ..call(&s, "Echo", "{}", 1)
    });
    assert!(e.contains("call"), "{e}");
}

/// Without --proto or --protoset the schema comes from the server's reflection service
/// (barrage serve's, v1): the same calls, counted the same.
#[test]
fn without_a_schema_the_server_reflects_it() {
    let s = server();
    let r = load(Config {
        proto: None,
        ..call(&s, "Stream", r#"{"count": 2, "size": 5}"#, 200)
    });
    assert_eq!(
        (r.requests, r.errors.total()),
        (200, 0),
        "{:?}",
        r.error_examples
    );
    assert_eq!(grpc(&r).messages_received, 400);
    // The reflection call itself is one more gRPC call the server answered.
    assert_eq!(served(&s), 201);
    // A service the server does not have is named in the error, before any load.
    let e = Config {
        proto: None,
        call: Some("nope.v1.Nope/Call".into()),
        ..call(&s, "Echo", "{}", 1)
    }
    .validate()
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("server reflection") && e.contains("nope.v1.Nope"),
        "{e}"
    );
}

/// `n` Echo calls whose metadata asks barrage serve for `fault` (`x-barrage-fault`).
fn faulted(s: &ServerHandle, fault: &str, n: u64) -> Config {
    Config {
        metadata: Some(format!(r#"{{"x-barrage-fault": "{fault}"}}"#)),
        ..call(s, "Echo", r#"{"text": "x"}"#, n)
    }
}

/// `--expect-status` with `--grpc` is a code: calls ending with it are responses, any other
/// code (OK included) an error of class `grpc_status`; the code counted either way. The
/// error's example names the server's grpc-message.
#[test]
fn expect_status_names_the_code_a_call_must_end_with() {
    let s = server();
    let not_found = "status=5&message=no such thing";
    // Without it: NOT_FOUND is an error, its example with the message.
    let r = load(faulted(&s, not_found, 200));
    assert_eq!((r.requests, r.errors[ErrorClass::GrpcStatus]), (0, 200));
    assert_eq!(grpc(&r).calls.get("NOT_FOUND"), Some(&200));
    let example = &r.error_examples["grpc_status"];
    assert_eq!(example, "grpc-status NOT_FOUND: no such thing");
    // With it (5, as the CLI reads NOT_FOUND): every call a response.
    let r = load(Config {
        expect_status: Some(5),
        ..faulted(&s, not_found, 200)
    });
    assert_eq!(
        (r.requests, r.errors.total()),
        (200, 0),
        "{:?}",
        r.error_examples
    );
    assert_eq!(grpc(&r).calls.get("NOT_FOUND"), Some(&200));
    // A trailers-only NOT_FOUND is the same status.
    let r = load(Config {
        expect_status: Some(5),
        ..faulted(&s, "trailers-only=5", 100)
    });
    assert_eq!((r.requests, r.errors.total()), (100, 0));
    // OK is not NOT_FOUND: each an error, counted as OK.
    let r = load(Config {
        expect_status: Some(5),
        ..call(&s, "Echo", "{}", 100)
    });
    assert_eq!((r.requests, r.errors[ErrorClass::GrpcStatus]), (0, 100));
    assert_eq!(grpc(&r).calls.get("OK"), Some(&100));
    assert_eq!(r.error_examples["grpc_status"], "grpc-status OK");
    // An HTTP status is no gRPC code: refused before any load, in one line.
    let e = Config {
        expect_status: Some(200),
        ..call(&s, "Echo", "{}", 1)
    }
    .validate()
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("must be a gRPC code: 0-16") && !e.contains('\n'),
        "{e}"
    );
}

/// The call's deadline: a server told (by `grpc-timeout` in metadata) to give up after 100 ms
/// answers a 3 s delay with DEADLINE_EXCEEDED while this side still waits (its timeout is
/// 10 s); a call past this side's own `--timeout` (sent as its `grpc-timeout`) is
/// DEADLINE_EXCEEDED too, whichever side's clock ran out first. Never a `timeout` error.
#[test]
fn a_call_past_its_deadline_is_deadline_exceeded() {
    let s = server();
    let r = load(Config {
        metadata: Some(r#"{"x-barrage-fault": "delay=3000", "grpc-timeout": "100m"}"#.into()),
        ..call(&s, "Echo", "{}", 16)
    });
    assert_eq!((r.requests, r.errors[ErrorClass::GrpcStatus]), (0, 16));
    assert_eq!(grpc(&r).calls.get("DEADLINE_EXCEEDED"), Some(&16));
    // The server's status, with its message: the server read the header.
    assert_eq!(
        r.error_examples["grpc_status"],
        "grpc-status DEADLINE_EXCEEDED: deadline exceeded"
    );
    assert_eq!(served(&s), 16);

    let late = || Config {
        timeout: std::time::Duration::from_millis(300),
        ..faulted(&s, "delay=3000", 16)
    };
    let r = load(late());
    assert_eq!(r.errors[ErrorClass::Timeout], 0);
    assert_eq!((r.requests, r.errors[ErrorClass::GrpcStatus]), (0, 16));
    assert_eq!(grpc(&r).calls.get("DEADLINE_EXCEEDED"), Some(&16));
    let r = load(Config {
        expect_status: Some(4),
        ..late()
    });
    assert_eq!((r.requests, r.errors.total()), (16, 0));
}

/// `--grpc-compression gzip`: every method's request messages compressed (barrage serve reads
/// them only by inflating them: a message it could not read would be an error), the same
/// counts on both sides as without.
#[test]
fn gzip_requests_are_read_by_the_server() {
    let cases = [
        ("Echo", r#"{"text": "hello hello hello hello"}"#, 1),
        ("Sum", r#"[{"value": 1}, {"value": 2}, {"value": 3}]"#, 1),
        ("Chat", r#"[{"text": "a"}, {"text": "b"}]"#, 2),
    ];
    for (method, data, per_call) in cases {
        let s = server();
        let r = load(Config {
            grpc_compression: Some("gzip".into()),
            ..call(&s, method, data, 300)
        });
        assert_eq!(
            (r.requests, r.errors.total()),
            (300, 0),
            "{method}: {:?}",
            r.error_examples
        );
        assert_eq!(grpc(&r).calls.get("OK"), Some(&300), "{method}");
        assert_eq!(grpc(&r).messages_received, 300 * per_call, "{method}");
        assert_eq!(served(&s), 300, "{method}");
    }
}

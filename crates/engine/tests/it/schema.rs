//! The `barrage.load/2` document of real runs validates against docs/schema/load.schema.json,
//! and the schema rejects documents that break it.

use crate::common;

use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol};
use common::{Mode, Server};
use serde_json::Value;
use std::time::Duration;

pub(crate) fn schema() -> jsonschema::Validator {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/schema/load.schema.json"
    );
    let text = std::fs::read_to_string(path).expect("schema file");
    let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
    jsonschema::validator_for(&schema).expect("schema compiles")
}

fn document(c: Config) -> Value {
    let r = run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap();
    serde_json::to_value(&r).unwrap()
}

pub(crate) fn assert_valid(v: &jsonschema::Validator, doc: &Value) {
    let errors: Vec<String> = v
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn real_runs_validate() {
    let v = schema();
    let s = Server::start(Mode::Ok {
        body: b"hello",
        delay: Duration::ZERO,
    });
    let base = Config {
        url: s.url("/x?y=1"),
        connections: 4,
        threads: 2,
        duration: Some(Duration::from_millis(1300)),
        headers: vec![("X-Test".into(), "1".into())],
        ..Config::default()
    };
    let closed = document(base.clone());
    assert_valid(&v, &closed);
    assert_eq!(closed["schema"], "barrage.load/2");
    assert!(closed["intervals"]["figures"]["latency_p50_us"].is_object());
    assert!(closed["requests"].as_u64().unwrap() > 0);
    assert!(closed["series"].as_array().unwrap().len() >= 2);
    assert!(closed["rate"].is_null());
    // The histogram in the document decodes to the same count.
    let h = barrage_engine::recorder::decode_hdr(closed["hdr"].as_str().unwrap()).unwrap();
    assert_eq!(h.len(), closed["requests"].as_u64().unwrap());

    let open = document(Config {
        rate: Some(100.0),
        expect_body: Some(b"nope".to_vec()),
        ..base.clone()
    });
    assert_valid(&v, &open);
    assert!(open["rate"]["target_rps"].as_f64().unwrap() == 100.0);
    assert!(open["errors"]["body"].as_u64().unwrap() > 0);
    assert!(open["error_examples"]["body"].is_string());

    // A targets run: per-target figures, random order with its drawn seed, a ramp-up.
    let dir = std::env::temp_dir().join(format!("barrage-schema-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("t.txt");
    std::fs::write(&file, "GET /a\n\nPOST /b\nX-B: 1\n").unwrap();
    let targets = document(Config {
        targets: Some(file.display().to_string()),
        targets_order: barrage_model::load::Order::Random,
        ramp_up: Some(Duration::from_millis(100)),
        ..base.clone()
    });
    let _ = std::fs::remove_dir_all(&dir);
    assert_valid(&v, &targets);
    let ts = targets["targets"].as_array().unwrap();
    assert_eq!(ts.len(), 2);
    let sum: u64 = ts.iter().map(|t| t["requests"].as_u64().unwrap()).sum();
    assert_eq!(sum, targets["requests"].as_u64().unwrap());
    assert!(targets["config"]["seed"].is_u64());
    let mut broken = targets;
    broken["targets"][0]["line"] = 0.into();
    assert!(!v.is_valid(&broken));

    let mut broken = closed.clone();
    broken["schema"] = "barrage.load/3".into();
    assert!(!v.is_valid(&broken));
    let mut broken = closed.clone();
    broken.as_object_mut().unwrap().remove("latency_us");
    assert!(!v.is_valid(&broken));
    let mut broken = closed;
    broken["errors"]["timeout"] = (-1).into();
    assert!(!v.is_valid(&broken));
}

#[test]
fn a_websocket_run_validates() {
    let v = schema();
    let s = barrage_server::start(barrage_server::ServerConfig {
        threads: 1,
        ..Default::default()
    })
    .unwrap();
    let doc = document(Config {
        url: format!(
            "ws://{}/ws/echo?fault=close&code=4000&after=3",
            s.local_addr()
        ),
        protocol: Protocol::ws(1),
        connections: 2,
        threads: 1,
        requests: Some(20),
        duration: None,
        body: b"hi".to_vec(),
        ..Config::default()
    });
    assert_valid(&v, &doc);
    assert_eq!(doc["config"]["ws"], true);
    assert!(doc["ws"]["handshakes"].as_u64().unwrap() > 0);
    assert!(doc["ws"]["closes"]["4000"].as_u64().unwrap() > 0);
    let mut broken = doc;
    broken["ws"]["closes"]["4000"] = (-1).into();
    assert!(!v.is_valid(&broken));
}

#[test]
fn a_grpc_run_validates() {
    let v = schema();
    let s = barrage_server::start(barrage_server::ServerConfig {
        threads: 1,
        ..Default::default()
    })
    .unwrap();
    let doc = document(Config {
        url: format!("http://{}", s.local_addr()),
        protocol: Protocol::Grpc {
            streams: 4,
            window: barrage_model::load::DEFAULT_H2_WINDOW,
        },
        call: Some("barrage.test.v1.Test/Stream".into()),
        proto: Some(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/grpc/barrage.proto").into()),
        data: Some(r#"{"count": 2}"#.into()),
        connections: 2,
        threads: 1,
        requests: Some(20),
        duration: None,
        ..Config::default()
    });
    assert_valid(&v, &doc);
    assert_eq!(doc["config"]["grpc"], true);
    assert_eq!(doc["grpc"]["calls"]["OK"], 20);
    assert_eq!(doc["grpc"]["messages_received"], 40);
    assert_eq!(doc["grpc"]["http2"]["protocol"], "h2c");
    let mut broken = doc;
    broken["grpc"]["calls"]["NOPE"] = 1.into();
    assert!(!v.is_valid(&broken));
}

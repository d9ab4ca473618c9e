//! The protocol section as the document writes and reads it.

use super::*;
use crate::load::LoadDoc;

fn doc_with(f: Option<ProtocolFigures>) -> LoadDoc {
    LoadDoc {
        schema: crate::load::SCHEMA.into(),
        protocol: f,
        ..LoadDoc::default()
    }
}

/// Each protocol's section is written under its own key, where the three `Option` sections
/// were, and reads back the same; HTTP/1.1 writes none.
#[test]
fn a_section_is_written_under_its_key_and_read_back() {
    let ws = ProtocolFigures::Ws(Ws {
        handshakes: 2,
        handshake_mean_us: 150.0,
        handshake_total_us: Some(300),
        closes: [("1000".to_string(), 1)].into(),
    });
    let h2 = ProtocolFigures::Http2(Http2 {
        protocol: "h2".into(),
        streams_asked: 10,
        ..Http2::default()
    });
    let h3 = ProtocolFigures::Http3(Http3 {
        streams_asked: 4,
        ..Http3::default()
    });
    for f in [ws.clone(), h2, h3] {
        let d = doc_with(Some(f.clone()));
        let v = serde_json::to_value(&d).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert!(keys.contains(&f.key()), "{keys:?}");
        for other in ["http2", "ws", "http3"].iter().filter(|k| **k != f.key()) {
            assert!(!keys.contains(other), "{other} in {keys:?}");
        }
        let back: LoadDoc = serde_json::from_value(v).unwrap();
        assert_eq!(back.protocol, Some(f));
    }
    let text = serde_json::to_string(&doc_with(Some(ws))).unwrap();
    assert!(
        text.contains(r#""config":null,"ws":{"handshakes":2,"handshake_mean_us":150.0,"handshake_total_us":300,"closes":{"1000":1}}"#),
        "{text}"
    );
    let none = serde_json::to_value(doc_with(None)).unwrap();
    for k in ["http2", "ws", "http3"] {
        assert!(none.get(k).is_none(), "{k}");
    }
    assert_eq!(
        serde_json::from_value::<LoadDoc>(none).unwrap().protocol,
        None
    );
}

/// A section written before the sums were stored reads without one and is written back as it
/// was; a section that does not read is an error, not a section left out, and so is a second.
#[test]
fn older_broken_and_doubled_sections() {
    let old = r#"{"schema":"barrage.load/1","ws":{"handshakes":4,"handshake_mean_us":250.5,"closes":{}},"later_field":1}"#;
    let d: LoadDoc = serde_json::from_str(old).unwrap();
    let w = Ws::of(&d.protocol).expect("the ws section");
    assert_eq!(
        (w.handshakes, w.handshake_mean_us, w.handshake_total_us),
        (4, 250.5, None)
    );
    let again = serde_json::to_value(&d).unwrap();
    assert_eq!(
        again["ws"],
        serde_json::json!({"handshakes": 4, "handshake_mean_us": 250.5, "closes": {}})
    );

    let broken = r#"{"schema":"barrage.load/2","http3":{"handshakes":"many"}}"#;
    assert!(serde_json::from_str::<LoadDoc>(broken).is_err());
    let both = r#"{"schema":"barrage.load/2","http2":{},"ws":{}}"#;
    let e = serde_json::from_str::<LoadDoc>(both)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("one protocol section, not both http2 and ws"),
        "{e}"
    );
}

#[test]
fn an_http2_load_alpn_made_http1_says_so() {
    let h = Http2 {
        protocol: "http/1.1".into(),
        streams_asked: 10,
        ..Http2::default()
    };
    assert_eq!(
        h.lines(),
        ["HTTP/2 asked, but the server chose http/1.1 in ALPN: this run is HTTP/1.1"]
    );
}

/// gRPC's reply-message latency merges exactly (the histograms add, the summary comes from
/// the sum), is dropped when a run lacks it (no exact merge), and is said in the section's
/// lines; a document without it reads as before.
#[test]
fn grpc_message_latency_merges_exactly() {
    let hist = |v: u64, n: u64| {
        let mut h = hdrhistogram::Histogram::<u64>::new(3).unwrap();
        h.record_n(v, n).unwrap();
        Grpc {
            hdr_message: Some(crate::hdr::encode(&h)),
            ..Grpc::default()
        }
    };
    let mut a = hist(100, 300);
    a.add(&hist(900, 100));
    a.settle(0);
    let l = a.message_latency_us.clone().unwrap();
    assert_eq!(
        (l.count, l.min, l.p50, l.p75, l.max),
        (400, 100, 100, 100, 900)
    );
    assert_eq!(l.p90, 900);
    let lines = a.lines().join("\n");
    assert!(
        lines.contains("Reply message latency from the call's start: p50 100us, p99 900us"),
        "{lines}"
    );
    a.add(&Grpc::default());
    a.settle(0);
    assert_eq!(
        (a.hdr_message.as_ref(), a.message_latency_us.as_ref()),
        (None, None)
    );
    assert!(!a.lines().join("\n").contains("Reply message latency"));
    let old: Grpc =
        serde_json::from_str(r#"{"calls": {"OK": 1}, "messages_received": 1}"#).unwrap();
    assert_eq!(old.hdr_message, None);
}

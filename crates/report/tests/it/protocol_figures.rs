//! The HTML load section shows every protocol's own figures, whichever the protocol: the values a
//! run's section holds, and those derived from its sums (means, ratios), as the page renders
//! them.

use barrage_model::load::{Http2, Http3, LoadDoc, ProtocolFigures, Ws};
use barrage_report::{build, render, Format, Input};

/// A run of `written` requests with `figures` as its protocol section, settled as the engine
/// settles it.
fn run(mut figures: ProtocolFigures, written: u64) -> LoadDoc {
    figures.settle(written);
    LoadDoc {
        schema: barrage_model::load::SCHEMA.into(),
        requests: written,
        requests_written: written,
        duration_s: 1.0,
        config: serde_json::json!({"method": "GET", "url": "https://127.0.0.1:8443/"}),
        protocol: Some(figures),
        ..LoadDoc::default()
    }
}

fn html(docs: &[(&str, LoadDoc)]) -> String {
    let inputs: Vec<(String, Input)> = docs
        .iter()
        .map(|(l, d)| (l.to_string(), Input::Load(Box::new(d.clone()))))
        .collect();
    render(&build(&inputs).unwrap(), Format::Html, "barrage test")
}

#[test]
fn every_protocols_figures_are_on_the_page() {
    let h2 = run(
        ProtocolFigures::Http2(Http2 {
            protocol: "h2c".into(),
            streams_asked: 100,
            server_stream_limit: Some(64),
            capped_connections: 2,
            streams: 30_000,
            connections: 3,
            header_bytes_received: 1_000,
            header_bytes_decoded: 4_000,
            rst_stream: [("INTERNAL_ERROR".to_string(), 7)].into(),
            goaways: 1,
            retried: 12,
            ..Http2::default()
        }),
        30_000,
    );
    let ws = run(
        ProtocolFigures::Ws(Ws {
            handshakes: 4,
            handshake_total_us: Some(1_000),
            closes: [("1000".to_string(), 3), ("1011".to_string(), 1)].into(),
            ..Ws::default()
        }),
        400,
    );
    let h3 = run(
        ProtocolFigures::Http3(Http3 {
            streams_asked: 8,
            connections: 2,
            handshakes: 2,
            handshake_total_us: Some(3_000),
            streams: 250,
            datagrams_sent: 300,
            datagrams_received: 450,
            packets_sent: 310,
            packets_lost: 9,
            congestion_events: 2,
            ..Http3::default()
        }),
        250,
    );
    let page = html(&[("h2.json", h2), ("ws.json", ws), ("h3.json", h3)]);
    for want in [
        // HTTP/2: the streams, the server's cap, HPACK's saving from the header bytes (75%).
        "h2.json: HTTP/2 (h2c), 100 streams per connection (capped at 64",
        "30000 streams on 3 connections (10000.0 each)",
        "HPACK saved 75.0%",
        "RST_STREAM received: INTERNAL_ERROR 7",
        "GOAWAY: 1 connections ended by the server",
        "12 requests sent again",
        // WebSocket: the mean handshake from the sum, 1000 µs over 4; closes by code.
        "ws.json: WebSocket: requests are messages; 4 handshakes (mean 250.0 µs from connect to 101); closes by the server: 1000: 3, 1011: 1.",
        // HTTP/3: the mean handshake (3000 µs over 2) and datagrams per request (750 / 250).
        "h3.json: HTTP/3: 250 streams (-m 8) on 2 connections; 2 QUIC handshakes (mean 1.50 ms)",
        "QUIC: datagrams 300 sent, 450 received (3.00 per request); packets lost 9 of 310 sent, 2 congestion events.",
    ] {
        assert!(page.contains(want), "the page lacks {want:?}");
    }
    // An HTTP/1.1 run has no protocol figures.
    let plain = LoadDoc {
        protocol: None,
        ..run(ProtocolFigures::Ws(Ws::default()), 1)
    };
    let page = html(&[("h1.json", plain)]);
    assert!(
        !page.contains("h1.json: WebSocket"),
        "no figures for HTTP/1.1"
    );
}

//! `barrage serve --metrics`: the server's counters (connections accepted, responses by
//! protocol and status code, WebSocket upgrades, messages and closes) and its open connections.

use super::expo::{Expo, MetricType};
use barrage_server::ServerStats;

/// Writes the server's families.
pub fn write(e: &mut Expo, s: &ServerStats) {
    e.family(
        "barrage_serve_connections_accepted",
        MetricType::Counter,
        "Connections accepted.",
    );
    e.sample(
        "barrage_serve_connections_accepted_total",
        &[],
        s.accepted as f64,
    );
    e.family(
        "barrage_serve_connections",
        MetricType::Gauge,
        "Connections open.",
    );
    e.sample("barrage_serve_connections", &[], s.active as f64);
    e.family(
        "barrage_serve_responses",
        MetricType::Counter,
        "Responses by protocol and status code.",
    );
    for (proto, code, n) in &s.responses {
        let code = code.to_string();
        let l = [("protocol", *proto), ("code", code.as_str())];
        e.sample("barrage_serve_responses_total", &l, *n as f64);
    }
    e.family(
        "barrage_serve_ws_upgrades",
        MetricType::Counter,
        "WebSocket connections upgraded.",
    );
    e.sample("barrage_serve_ws_upgrades_total", &[], s.ws_upgrades as f64);
    e.family(
        "barrage_serve_ws_messages",
        MetricType::Counter,
        "WebSocket messages received.",
    );
    e.sample("barrage_serve_ws_messages_total", &[], s.ws_messages as f64);
    e.family(
        "barrage_serve_ws_closes",
        MetricType::Counter,
        "WebSocket close handshakes the server began, by code (0: a fault's code).",
    );
    for (code, n) in &s.ws_closes {
        let code = code.to_string();
        e.sample(
            "barrage_serve_ws_closes_total",
            &[("code", code.as_str())],
            *n as f64,
        );
    }
}

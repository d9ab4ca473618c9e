//! HTTP/2's section of the load document: what h2load reports that HTTP/1.1 lacks.

use super::{per, Section};
use crate::metric::fmt_bytes;
use crate::units::lenient;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What an HTTP/2 run saw of the protocol.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Http2 {
    /// `h2` (TLS, chosen by ALPN) or `h2c` (cleartext, prior knowledge); `http/1.1` when the
    /// server chose it by ALPN (the run was HTTP/1.1 then).
    pub protocol: String,
    /// Concurrent streams per connection asked for (`-m`).
    pub streams_asked: u32,
    /// The lowest SETTINGS_MAX_CONCURRENT_STREAMS a server announced, when any did.
    pub server_stream_limit: Option<u32>,
    /// Connections on which that limit was below `streams_asked`.
    pub capped_connections: u64,
    /// Streams opened and the connections they were opened on.
    pub streams: u64,
    pub connections: u64,
    /// Response header bytes as received (HPACK-coded frame payloads) and decoded (names +
    /// values + 32 per field, as h2load counts them); `hpack_saving` = 1 - received/decoded,
    /// derived from them.
    pub header_bytes_received: u64,
    pub header_bytes_decoded: u64,
    #[serde(deserialize_with = "lenient")]
    pub hpack_saving: f64,
    /// RST_STREAMs received, by error code name (`REFUSED_STREAM`, `CANCEL`, ...).
    pub rst_stream: BTreeMap<String, u64>,
    /// GOAWAYs received, and the requests sent again because the server did not process them
    /// (above a GOAWAY's last stream id, or refused with REFUSED_STREAM; not errors).
    pub goaways: u64,
    pub retried: u64,
}

impl Section for Http2 {
    fn add(&mut self, o: &Http2) {
        self.server_stream_limit = match (self.server_stream_limit, o.server_stream_limit) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.capped_connections += o.capped_connections;
        self.streams += o.streams;
        self.connections += o.connections;
        self.header_bytes_received += o.header_bytes_received;
        self.header_bytes_decoded += o.header_bytes_decoded;
        for (k, n) in &o.rst_stream {
            *self.rst_stream.entry(k.clone()).or_default() += n;
        }
        self.goaways += o.goaways;
        self.retried += o.retried;
    }

    fn settle(&mut self, _: u64) {
        self.hpack_saving = if self.header_bytes_decoded > 0 {
            1.0 - per(self.header_bytes_received as f64, self.header_bytes_decoded)
        } else {
            0.0
        };
    }

    fn lines(&self) -> Vec<String> {
        if self.protocol == "http/1.1" {
            return vec![
                "HTTP/2 asked, but the server chose http/1.1 in ALPN: this run is HTTP/1.1".into(),
            ];
        }
        let limit = match self.server_stream_limit {
            Some(l) if self.capped_connections > 0 => format!(
                " (capped at {l} by the server's SETTINGS_MAX_CONCURRENT_STREAMS on {} connections)",
                self.capped_connections
            ),
            Some(l) => format!(" (server limit {l})"),
            None => String::new(),
        };
        let mut out = vec![
            format!(
                "HTTP/2 ({}), {} streams per connection{limit}; {} streams on {} connections ({:.1} each)",
                self.protocol,
                self.streams_asked,
                self.streams,
                self.connections,
                per(self.streams as f64, self.connections)
            ),
            format!(
                "Header bytes {} received for {} decoded: HPACK saved {:.1}%",
                fmt_bytes(self.header_bytes_received as f64),
                fmt_bytes(self.header_bytes_decoded as f64),
                self.hpack_saving * 100.0
            ),
        ];
        if !self.rst_stream.is_empty() {
            let codes: Vec<String> = self
                .rst_stream
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect();
            out.push(format!("RST_STREAM received: {}", codes.join(", ")));
        }
        if self.goaways > 0 {
            out.push(format!(
                "GOAWAY: {} connections ended by the server",
                self.goaways
            ));
        }
        if self.retried > 0 {
            out.push(format!(
                "{} requests sent again: the server did not process them (refused, or above a GOAWAY)",
                self.retried
            ));
        }
        out
    }
}

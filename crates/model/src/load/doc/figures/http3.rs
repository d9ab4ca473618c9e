//! HTTP/3's section of the load document: QUIC's handshakes, datagrams and losses, and
//! HTTP/3's streams.

use super::{add_handshakes, per, Section};
use crate::metric::fmt_secs;
use serde::{Deserialize, Serialize};

/// What an HTTP/3 run saw of QUIC and HTTP/3 (connection-level figures cover the measured
/// window: counted from its start, or from a connection's start within it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Http3 {
    /// `-m`: streams wanted per connection (the server's limit may cap it).
    pub streams_asked: usize,
    /// Connections started, and those whose QUIC handshake completed.
    pub connections: u64,
    pub handshakes: u64,
    /// The handshakes' mean time, from the first datagram to the handshake's end, derived
    /// from `handshake_total_us`.
    pub handshake_mean_us: f64,
    /// Their time summed, µs (each handshake's in whole µs): what merging adds. None in
    /// documents written before it was stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handshake_total_us: Option<u64>,
    /// Request streams opened.
    pub streams: u64,
    pub datagrams_sent: u64,
    pub datagrams_received: u64,
    /// Datagrams both ways per request written (the document's `requests_written`).
    pub datagrams_per_request: f64,
    pub packets_sent: u64,
    /// Packets QUIC declared lost (and sent again as new ones), their bytes, and the
    /// congestion events they caused.
    pub packets_lost: u64,
    pub bytes_lost: u64,
    pub congestion_events: u64,
    /// Connections the server ended with GOAWAY, and requests it did not process (sent again).
    pub goaways: u64,
    pub retried: u64,
    /// Entries the servers' QPACK encoders put in this side's dynamic tables.
    pub qpack_inserts: u64,
}

impl Section for Http3 {
    fn add(&mut self, o: &Http3) {
        self.streams_asked = self.streams_asked.max(o.streams_asked);
        self.connections += o.connections;
        add_handshakes(
            (
                &mut self.handshakes,
                &mut self.handshake_mean_us,
                &mut self.handshake_total_us,
            ),
            (o.handshakes, o.handshake_mean_us, o.handshake_total_us),
        );
        self.streams += o.streams;
        self.datagrams_sent += o.datagrams_sent;
        self.datagrams_received += o.datagrams_received;
        self.packets_sent += o.packets_sent;
        self.packets_lost += o.packets_lost;
        self.bytes_lost += o.bytes_lost;
        self.congestion_events += o.congestion_events;
        self.goaways += o.goaways;
        self.retried += o.retried;
        self.qpack_inserts += o.qpack_inserts;
    }

    fn settle(&mut self, requests_written: u64) {
        if let Some(sum) = self.handshake_total_us {
            self.handshake_mean_us = per(sum as f64, self.handshakes);
        }
        self.datagrams_per_request = per(
            (self.datagrams_sent + self.datagrams_received) as f64,
            requests_written,
        );
    }

    fn lines(&self) -> Vec<String> {
        vec![
            format!(
                "HTTP/3: {} streams (-m {}) on {} connections; {} QUIC handshakes (mean {})",
                self.streams,
                self.streams_asked,
                self.connections,
                self.handshakes,
                fmt_secs(self.handshake_mean_us / 1e6)
            ),
            format!(
                "QUIC: datagrams {} sent, {} received ({:.2} per request); packets lost {} of {} sent, {} congestion events",
                self.datagrams_sent,
                self.datagrams_received,
                self.datagrams_per_request,
                self.packets_lost,
                self.packets_sent,
                self.congestion_events
            ),
        ]
    }
}

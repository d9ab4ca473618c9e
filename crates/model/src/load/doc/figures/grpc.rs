//! gRPC's section of the load document: the calls by their status code (every code counted, OK
//! included), the reply messages, and the HTTP/2 underneath.

use super::{per, Http2, Section};
use crate::hdr::decode;
use crate::load::Latency;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// gRPC's status codes by number (0-16), each by its canonical name as gRPC's tools print it:
/// the keys of [`Grpc::calls`], and the names `--expect-status` takes with `--grpc` (wire's
/// `grpc::Code` names its codes from this table).
pub const GRPC_CODES: [&str; 17] = [
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
];

/// The number of a gRPC code given as a number (0-16) or a name in any case (`NOT_FOUND`,
/// `not_found`), as ghz and grpcurl take them.
pub fn grpc_code(s: &str) -> Option<u16> {
    let s = s.trim();
    match s.parse::<u16>() {
        Ok(n) => (usize::from(n) < GRPC_CODES.len()).then_some(n),
        Err(_) => GRPC_CODES
            .iter()
            .position(|c| c.eq_ignore_ascii_case(s))
            .map(|i| i as u16),
    }
}

/// What a gRPC run saw (calls written in the measured window).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Grpc {
    /// Calls that ended with a status, by its code's name (`OK`, `UNAVAILABLE`, ...): a non-OK
    /// one is also an error of class `grpc_status`.
    pub calls: BTreeMap<String, u64>,
    /// Reply messages read, each as it arrived, whatever its call's end (a status, a reply that
    /// broke gRPC, its deadline, or still open at the stop): the messages `message_latency_us`
    /// times. And per call that ended with a status (derived).
    pub messages_received: u64,
    pub messages_per_call: f64,
    /// Each reply message's latency: from its call's start (its intended send time in the open
    /// loop, as `latency_us`) to the message, every message of a streaming call counted
    /// (derived from `hdr_message`). Absent from documents written before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_latency_us: Option<Latency>,
    /// `message_latency_us`'s histogram (as the document's `hdr`), so merged runs keep it exact.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hdr_message: Option<String>,
    /// The HTTP/2 connection's figures.
    pub http2: Http2,
}

impl Section for Grpc {
    fn add(&mut self, o: &Grpc) {
        for (k, n) in &o.calls {
            *self.calls.entry(k.clone()).or_default() += n;
        }
        self.messages_received += o.messages_received;
        // Exact only when every run has its histogram: else none.
        let both = self.hdr_message.as_deref().zip(o.hdr_message.as_deref());
        self.hdr_message = both
            .and_then(|(a, b)| crate::hdr::merge(&[decode(a).ok()?, decode(b).ok()?]))
            .map(|h| crate::hdr::encode(&h));
        self.http2.add(&o.http2);
    }

    fn settle(&mut self, requests_written: u64) {
        let calls: u64 = self.calls.values().sum();
        self.messages_per_call = per(self.messages_received as f64, calls);
        let h = self.hdr_message.as_deref().and_then(|h| decode(h).ok());
        self.message_latency_us = h.map(|h| Latency::of(&h));
        self.http2.settle(requests_written);
    }

    fn lines(&self) -> Vec<String> {
        let codes: Vec<String> = self.calls.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let mut out = vec![
            format!(
                "gRPC calls by status: {}",
                if codes.is_empty() {
                    "none".to_string()
                } else {
                    codes.join(", ")
                }
            ),
            format!(
                "Reply messages: {} ({:.2} per call)",
                self.messages_received, self.messages_per_call
            ),
        ];
        let us = |v: u64| crate::units::format_duration(std::time::Duration::from_micros(v));
        if let Some(l) = self.message_latency_us.as_ref().filter(|l| l.count > 0) {
            out.push(format!(
                "Reply message latency from the call's start: p50 {}, p99 {}, max {} ({} messages)",
                us(l.p50),
                us(l.p99),
                us(l.max),
                l.count
            ));
        }
        out.extend(self.http2.lines());
        out
    }
}

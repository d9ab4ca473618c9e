//! The `barrage.load/2` document: what `barrage load --json` writes and what each phase of a
//! server trial carries in the study results. Version 2 added each figure's interval
//! (`intervals`) and each second's mean latency (`series[].mean_us`); version 1 documents read
//! as they are, without them. Every struct reads missing fields as defaults and
//! non-finite numbers (written as `null`) as 0, so documents from older engines still read.
//!
//! The JSON Schema is `docs/schema/load.schema.json`.

use crate::units::lenient;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::Stage;

mod errors;
mod figures;

pub use errors::{ErrorClass, Errors};
// Every section, so a new one is named in `figures` only.
pub use figures::*;

/// Schema name and version of the document.
pub const SCHEMA: &str = "barrage.load/2";
/// The versions readers take: this one, and the one before intervals.
pub const SCHEMAS: [&str; 2] = [SCHEMA, "barrage.load/1"];

/// One load run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LoadDoc {
    pub schema: String,
    /// Valid responses (status and body as expected).
    pub requests: u64,
    pub requests_written: u64,
    /// Requests written but neither answered nor failed when the run stopped.
    pub in_flight: u64,
    pub connects: u64,
    pub errors: Errors,
    /// The first message seen for each error class.
    pub error_examples: BTreeMap<String, String>,
    #[serde(deserialize_with = "lenient")]
    pub duration_s: f64,
    #[serde(deserialize_with = "lenient")]
    pub rps: f64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// Latency of valid responses (from the intended send time in open loop), µs.
    pub latency_us: Latency,
    /// Open loop only: latency from the actual send time (not corrected).
    pub latency_uncorrected_us: Option<Latency>,
    pub connect_us: Latency,
    /// Status code (as a string key) -> responses.
    pub status: BTreeMap<String, u64>,
    /// Open loop only: how well the generator kept the schedule.
    pub rate: Option<Rate>,
    /// One record per second.
    pub series: Vec<Second>,
    /// `latency_us`'s histogram, HdrHistogram V2 compressed, base64.
    pub hdr: Option<String>,
    pub hdr_uncorrected: Option<String>,
    pub threads: usize,
    pub target: serde_json::Value,
    pub cancelled: bool,
    /// The load as configured (the engine's `Config`).
    pub config: serde_json::Value,
    /// HTTP/2, WebSocket and HTTP/3 runs: the protocol's own figures, as the section named for
    /// it (`http2`, `ws`, `http3`; HTTP/1.1 has none).
    #[serde(
        flatten,
        deserialize_with = "figures::read",
        skip_serializing_if = "Option::is_none"
    )]
    pub protocol: Option<ProtocolFigures>,
    /// `--targets` runs only: each target's figures, in the file's order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<TargetFigures>,
    /// `--threshold` runs only: each threshold, what was measured, and whether it held.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub thresholds: Vec<crate::threshold::Outcome>,
    /// When the load started (its warmup, if any), Unix seconds.
    #[serde(deserialize_with = "lenient")]
    pub started_unix: f64,
    /// `connect_us`'s histogram (as `hdr`), so merged runs keep exact connect times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hdr_connect: Option<String>,
    /// A document `barrage merge` made: what it holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merged: Option<Merged>,
    /// Each compared figure's interval from the run's own data (`barrage.load/2`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intervals: Option<super::intervals::Intervals>,
}

/// What a merged document holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Merged {
    /// Documents merged, and the shard count they say the load had (0: not sharded runs).
    pub shards: usize,
    pub of: u32,
    /// Seconds between the first and the last start.
    #[serde(deserialize_with = "lenient")]
    pub start_spread_s: f64,
    /// What the merge could not make exact or found amiss (missing shards, far-apart starts).
    pub notes: Vec<String>,
}

/// One target of a `--targets` file and what it got: the run's figures for its requests alone.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TargetFigures {
    pub method: String,
    pub url: String,
    /// Where the target starts in its file (1-based).
    pub line: usize,
    /// Valid responses, as the run's `requests`.
    pub requests: u64,
    pub errors: Errors,
    /// Status code (as a string key) -> responses.
    pub status: BTreeMap<String, u64>,
    pub latency_us: Latency,
    /// `latency_us`'s histogram (HdrHistogram V2 compressed, base64; 2 significant figures,
    /// so a thousand targets stay small), so targets and runs merge exactly.
    pub hdr: Option<String>,
}

/// Latency summary in microseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Latency {
    pub count: u64,
    #[serde(deserialize_with = "lenient")]
    pub mean: f64,
    #[serde(deserialize_with = "lenient")]
    pub stdev: f64,
    pub min: u64,
    pub max: u64,
    pub p50: u64,
    pub p75: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub p9999: u64,
}

/// Open-loop schedule keeping.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Rate {
    #[serde(deserialize_with = "lenient")]
    pub target_rps: f64,
    #[serde(deserialize_with = "lenient")]
    pub achieved_rps: f64,
    pub lateness_us: Latency,
    /// `lateness_us`'s histogram (as `hdr`), so merged runs keep exact lateness.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hdr_lateness: Option<String>,
    pub late_by_generator: u64,
    pub generator_bottleneck: bool,
}

/// The part of a run a per-second record belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Load runs, measurements are discarded.
    Warmup,
    /// The measured window.
    #[default]
    Measure,
    /// Load stopped.
    Done,
}

/// One second of the per-second series.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Second {
    pub second: u64,
    pub phase: Phase,
    pub responses: u64,
    pub errors: u64,
    pub requests_written: u64,
    pub bytes_read: u64,
    pub p50_us: u64,
    pub p99_us: u64,
    /// Mean latency of the second's valid responses, µs (0 in `barrage.load/1` documents).
    #[serde(deserialize_with = "lenient")]
    pub mean_us: f64,
    /// The second's latency histogram (HdrHistogram V2 compressed, base64; 2 significant
    /// figures, so a long run stays small): how the percentiles moved while the run went on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hdr: Option<String>,
    /// Open loop: the rate the schedule asked for over this second (requests/s), beside what
    /// the responses achieved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_rps: Option<f64>,
    /// Length of this record in seconds (the last may be partial); 0 is read as 1.
    #[serde(deserialize_with = "lenient")]
    pub span_s: f64,
}

impl Latency {
    /// The summary of a histogram of microseconds.
    pub fn of(h: &hdrhistogram::Histogram<u64>) -> Latency {
        if h.is_empty() {
            return Latency::default();
        }
        Latency {
            count: h.len(),
            mean: h.mean(),
            stdev: h.stdev(),
            min: h.min(),
            max: h.max(),
            p50: h.value_at_quantile(0.5),
            p75: h.value_at_quantile(0.75),
            p90: h.value_at_quantile(0.9),
            p99: h.value_at_quantile(0.99),
            p999: h.value_at_quantile(0.999),
            p9999: h.value_at_quantile(0.9999),
        }
    }
}

impl LoadDoc {
    /// A short description of the load: "GET http://... c=64 pipeline=16 rate=1000/s".
    pub fn config_summary(&self) -> String {
        let c = &self.config;
        let mut parts = Vec::new();
        if let Some(m) = c.get("method").and_then(|v| v.as_str()) {
            parts.push(m.to_string());
        }
        if let Some(u) = c.get("url").and_then(|v| v.as_str()) {
            parts.push(u.to_string());
        }
        if let Some(n) = c.get("connections").and_then(|v| v.as_u64()) {
            parts.push(format!("c={n}"));
        }
        if let Some(n) = c
            .get("pipeline")
            .and_then(|v| v.as_u64())
            .filter(|n| *n > 1)
        {
            parts.push(format!("pipeline={n}"));
        }
        if c.get("keepalive").and_then(|v| v.as_bool()) == Some(false) {
            parts.push("no keep-alive".into());
        }
        if let Some(r) = c.get("rate").and_then(|v| v.as_f64()) {
            parts.push(format!("rate={r}/s"));
        }
        let stages: Vec<Stage> = c
            .get("stages")
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default();
        if !stages.is_empty() {
            parts.push(format!("stages={}", crate::units::format_stages(&stages)));
        }
        if let Some(t) = c.get("targets").and_then(|v| v.as_str()) {
            parts.push(format!("targets={t}"));
        }
        if let Some(t) = c.get("body_lines").and_then(|v| v.as_str()) {
            parts.push(format!("body-lines={t}"));
        }
        parts.join(" ")
    }

    /// The per-second records as (x = seconds since the start of the run, record); warmup
    /// seconds come first on the same clock so a plot can shade them.
    pub fn timeline(&self) -> Vec<(f64, &Second)> {
        let mut t = 0.0;
        self.series
            .iter()
            .map(|s| {
                let x = t;
                t += if s.span_s > 0.0 { s.span_s } else { 1.0 };
                (x, s)
            })
            .collect()
    }

    /// The document with its figures' intervals computed from its seconds and histogram.
    pub fn with_intervals(mut self) -> LoadDoc {
        self.intervals = super::intervals::Intervals::compute(&self, self.histogram().as_ref());
        self
    }

    /// The latency histogram, decoded (`None` when absent or undecodable).
    pub fn histogram(&self) -> Option<hdrhistogram::Histogram<u64>> {
        crate::hdr::decode(self.hdr.as_deref()?).ok()
    }
}

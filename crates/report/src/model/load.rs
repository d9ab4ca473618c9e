//! The report's view of a `barrage load --json` document (`barrage.load/1`): only the fields the
//! report shows, each with a default, so added fields in the engine never break the report.

use serde::Deserialize;
use std::collections::BTreeMap;

/// One `barrage load --json` document.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct LoadDoc {
    pub schema: String,
    pub requests: u64,
    pub requests_written: u64,
    pub errors: Errors,
    #[serde(deserialize_with = "super::study::lenient")]
    pub duration_s: f64,
    #[serde(deserialize_with = "super::study::lenient")]
    pub rps: f64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub latency_us: Latency,
    /// Status code (as a string key in JSON) -> responses.
    pub status: BTreeMap<String, u64>,
    pub series: Vec<Second>,
    /// Open loop only: how well the generator kept the schedule.
    pub rate: Option<Rate>,
    /// Latency histogram, V2 compressed, base64.
    pub hdr: Option<String>,
    /// The engine config as written; read loosely (see [`LoadDoc::config_summary`]).
    pub config: serde_json::Value,
}

/// Errors by class, and their total.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Errors {
    pub connect: u64,
    pub timeout: u64,
    pub reset: u64,
    pub parse: u64,
    pub status: u64,
    pub body: u64,
    pub total: u64,
}

/// Latency summary in microseconds.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Latency {
    #[serde(deserialize_with = "super::study::lenient")]
    pub mean: f64,
    #[serde(deserialize_with = "super::study::lenient")]
    pub stdev: f64,
    pub min: f64,
    pub max: f64,
    pub p50: f64,
    pub p75: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub p9999: f64,
}

/// Open-loop schedule keeping.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Rate {
    pub target_rps: f64,
    pub achieved_rps: f64,
    pub generator_bottleneck: bool,
}

/// One second of the per-second series.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Second {
    pub second: u64,
    /// "warmup", "measure" or "done".
    pub phase: String,
    pub responses: u64,
    pub errors: u64,
    pub p50_us: f64,
    pub p99_us: f64,
    #[serde(deserialize_with = "super::study::lenient")]
    /// Length of this record in seconds (the last may be partial); 0 is read as 1.
    pub span_s: f64,
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
        parts.join(" ")
    }

    /// Seconds of the measured window as (x = seconds since the start of the run, record); the
    /// warmup seconds come first on the same clock so the plot can shade them.
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
}

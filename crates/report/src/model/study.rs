//! The report's view of a study's `results.json` (`barrage.study/1`, written by crates/lab's
//! `results` module), read with own serde types: only the fields the report shows, all
//! defaulted, so a results file from an older or newer lab, or from an interrupted study, still
//! reports what it holds.

use super::load::LoadDoc;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use std::collections::BTreeMap;

/// A study's results file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct StudyDoc {
    pub schema: String,
    pub barrage_version: String,
    pub study: StudyMeta,
    pub machine: Machine,
    pub pinning: Pinning,
    /// RFC 3339 UTC.
    pub started_at: String,
    pub finished_at: Option<String>,
    /// "running", "interrupted" or "complete".
    pub status: String,
    pub points: Vec<PointMeta>,
    pub contenders: Vec<ContenderMeta>,
    pub planned_trials: usize,
    pub trials: Vec<Trial>,
    /// The lab's own comparisons and warnings (as the terminal shows them).
    pub comparisons: Vec<LabComparison>,
    pub warnings: Vec<LabWarning>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct StudyMeta {
    pub name: String,
    pub description: String,
    /// "server" or "client".
    pub kind: String,
    pub trials: u32,
    pub warmup_s: f64,
    pub interleave: Option<bool>,
    pub sample_interval_s: Option<f64>,
    pub file: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Machine {
    pub hostname: String,
    pub os: String,
    pub kernel: String,
    pub cpu_model: String,
    pub cpus: u64,
    pub available_cpus: Vec<u64>,
    pub memory_bytes: u64,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Pinning {
    pub mode: String,
    pub enabled: bool,
    pub contender_cpus: Option<Vec<u64>>,
    pub generator_cpus: Option<Vec<u64>>,
    pub note: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct PointMeta {
    pub id: usize,
    pub label: String,
    pub variant: Option<String>,
    pub params: BTreeMap<String, Value>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ContenderMeta {
    pub name: String,
    /// "ready" (ran), "skipped", "build_failed".
    pub status: String,
    pub skip_reason: Option<String>,
}

impl ContenderMeta {
    pub fn ran(&self) -> bool {
        self.status.is_empty() || self.status == "ready"
    }
}

/// One trial of one contender at one point.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Trial {
    pub seq: usize,
    pub point: usize,
    pub contender: String,
    /// 0-based index of the trial for this (point, contender).
    #[serde(rename = "trial")]
    pub index: usize,
    pub ok: Option<bool>,
    pub failure: Option<Failure>,
    pub windows: Windows,
    pub phases: Vec<PhaseResult>,
    pub samples: Option<Samples>,
    pub generator: Option<Generator>,
    pub metrics: Metrics,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Failure {
    /// "exited", "crashed", "oom", "time_budget_exceeded", "never_ready", ...
    pub kind: String,
    pub message: String,
    pub stderr_tail: String,
}

/// Times of one trial on its sample clock (seconds since the trial's start).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Windows {
    pub trial_start_s: f64,
    pub ready_s: Option<f64>,
    pub load_start_s: Option<f64>,
    pub warmup_start_s: Option<f64>,
    pub measure_start_s: Option<f64>,
    pub measure_end_s: Option<f64>,
    pub trial_end_s: f64,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct PhaseResult {
    pub name: String,
    pub start_s: f64,
    pub measure_start_s: f64,
    pub measure_end_s: f64,
    pub end_s: f64,
    /// The engine's `barrage.load/1` document; a malformed one reads as empty.
    #[serde(deserialize_with = "lenient")]
    pub load: LoadDoc,
}

/// Reads a value, or its default when it does not have the expected shape (serde_json writes a
/// non-finite number as `null`).
pub(crate) fn lenient<'de, D: Deserializer<'de>, T: Default + serde::de::DeserializeOwned>(
    d: D,
) -> Result<T, D::Error> {
    let v = Value::deserialize(d)?;
    Ok(serde_json::from_value(v).unwrap_or_default())
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Generator {
    pub bottleneck: bool,
    pub reasons: Vec<String>,
}

/// The per-trial figures the lab's statistics use.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Metrics {
    pub requests: Option<u64>,
    pub errors: Option<u64>,
    pub rps: Option<f64>,
    pub latency_p50_us: Option<f64>,
    pub latency_p99_us: Option<f64>,
    pub latency_p999_us: Option<f64>,
    pub cpu_s: Option<f64>,
    pub cpu_s_per_request: Option<f64>,
    pub peak_rss_bytes: Option<u64>,
    pub wall_s: Option<f64>,
    pub user_s: Option<f64>,
    pub sys_s: Option<f64>,
    pub body_bytes: Option<u64>,
    pub mb_per_s: Option<f64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Samples {
    pub samples: Vec<Sample>,
    pub peak_rss_bytes: u64,
    #[serde(deserialize_with = "lenient")]
    pub sampler_cpu_pct: f64,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Sample {
    pub t_s: f64,
    #[serde(deserialize_with = "lenient")]
    pub cpu_user_pct: f64,
    #[serde(deserialize_with = "lenient")]
    pub cpu_sys_pct: f64,
    pub rss_bytes: u64,
    pub processes: u32,
    pub threads: u32,
    /// Machine-wide busy % of each core over the interval.
    #[serde(deserialize_with = "lenient")]
    pub cores_busy_pct: Vec<f64>,
}

/// One of the lab's comparisons (A is the better one by median).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct LabComparison {
    pub point: usize,
    pub label: String,
    /// "contenders" or "variants".
    pub between: String,
    pub metric: String,
    pub a: String,
    pub b: String,
    /// `null` when infinite (a median of zero).
    pub ratio: Option<f64>,
    pub factor: Option<f64>,
    pub p_value: Option<f64>,
    pub significant: bool,
    pub phrase: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct LabWarning {
    pub point: Option<usize>,
    pub contender: Option<String>,
    pub kind: String,
    pub message: String,
}

impl Trial {
    pub fn ok(&self) -> bool {
        self.ok.unwrap_or(self.failure.is_none())
    }

    /// The failure as one line.
    pub fn reason_text(&self) -> String {
        match &self.failure {
            Some(f) if f.message.is_empty() => f.kind.clone(),
            Some(f) => format!("{}: {}", f.kind, f.message),
            None if self.ok() => String::new(),
            None => "failed".into(),
        }
    }

    /// Peak RSS of the tree: the lab's figure, else the samples' largest.
    pub fn peak_rss_bytes(&self) -> Option<u64> {
        self.metrics.peak_rss_bytes.or_else(|| {
            let s = self.samples.as_ref()?;
            Some(
                s.peak_rss_bytes
                    .max(s.samples.iter().map(|x| x.rss_bytes).max().unwrap_or(0)),
            )
            .filter(|b| *b > 0)
        })
    }
}

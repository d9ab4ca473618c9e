//! The `barrage.study/2` results document (version 1 is read too): the study as run, the machine, the pinning, every
//! trial with its samples, windows and load documents, and the statistics computed from them.
//! The lab writes it (after every trial); the report reads it, also from older and interrupted
//! files: every struct reads missing fields as their defaults.
//!
//! The JSON Schema is `docs/schema/study.schema.json`.

mod kinds;

pub use kinds::{Between, ContenderStatus, FailureKind, RunStatus, WarningKind};

use crate::process::{Exit, Samples};
use crate::stats::Summary;
use crate::units::Param;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;

/// Schema name and version of the results document written now. Version 2: a phase's `load` is
/// the engine's load `Config` (`url` holding the path, bodies as byte arrays, durations in
/// seconds) instead of the study's spelling of it (`path`, text, "15s").
pub const SCHEMA: &str = "barrage.study/2";

/// Every version barrage reads (version 1's phases read as version 2's).
pub const SCHEMAS_READ: &[&str] = &["barrage.study/1", "barrage.study/2"];

/// Whether the contenders are servers under load or client programs run against barrage's server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContenderRole {
    #[default]
    Server,
    Client,
}

/// The whole document.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Results {
    pub schema: String,
    pub barrage_version: String,
    pub study: StudyInfo,
    pub machine: Machine,
    pub pinning: Pinning,
    /// RFC 3339 UTC times.
    pub started_at: String,
    pub updated_at: String,
    pub finished_at: Option<String>,
    /// Running (being written, or killed hard), interrupted (Ctrl-C), complete.
    pub status: RunStatus,
    pub points: Vec<Point>,
    pub contenders: Vec<ContenderInfo>,
    /// Trials the plan has in all (runnable contenders x points x trials).
    pub planned_trials: usize,
    /// Every trial run, in the order they ran.
    pub trials: Vec<Trial>,
    /// Statistics per point and contender (recomputed after every trial).
    pub summary: Vec<Cell>,
    pub comparisons: Vec<ComparisonRow>,
    pub warnings: Vec<Warning>,
    /// Each of the study's thresholds at each (point, contender) it applies to (recomputed with
    /// the summary).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thresholds: Vec<crate::threshold::Outcome>,
    /// The answer to each of the study's questions (recomputed with the summary).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answers: Vec<crate::question::Answer>,
    /// Machines a resumed run went on with, other than `machine` (a trial's `machine` is 1 for
    /// the first of these): trials of two machines are never pooled by a question.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_machines: Vec<Machine>,
}

/// The study as run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StudyInfo {
    pub name: String,
    pub description: String,
    pub kind: ContenderRole,
    pub trials: u32,
    pub warmup_s: f64,
    pub cooldown_s: f64,
    pub interleave: bool,
    pub sample_interval_s: f64,
    pub trial_timeout_s: f64,
    /// Path of the study file ("(embedded default)" for the built-in study).
    pub file: String,
    /// Absolute directory contender paths are resolved against (for `--resume`).
    pub base_dir: String,
    /// The study file's text (for `--resume` and for the record).
    pub source: String,
    /// Run in quick mode (`barrage run --quick`): the grid is the quick one, not the file's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quick: bool,
    /// Load errors a trial may have before it fails (`max_errors`; absent: no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_errors: Option<u64>,
    /// Client studies: the figures the study declared (`[[client.figure]]`), which contenders
    /// print and trials record in `metrics.figures`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub figures: Vec<crate::figure::Figure>,
    /// The bound of CPU outside the contender and barrage (`busy_limit`, % of one core) and
    /// what a trial over it meant (`on_busy`); files before them: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_limit_pct: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_busy: Option<crate::busy::OnBusy>,
    /// The study's `[[threshold]]`s.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thresholds: Vec<crate::threshold::StudyThreshold>,
    /// The study's `[[question]]`s: the claims of its original it exists to test.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<crate::question::Question>,
    /// The `[[subset]]` the run was limited to (`barrage run --subset`; absent: the whole study).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subset: Option<String>,
}

/// The machine the study ran on.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Machine {
    pub hostname: String,
    pub os: String,
    pub kernel: String,
    pub cpu_model: String,
    /// Online CPUs of the machine.
    pub cpus: usize,
    /// CPUs barrage was allowed to run on (its affinity mask).
    pub available_cpus: Vec<usize>,
    pub memory_bytes: u64,
}

/// What was pinned where.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Pinning {
    /// "auto", "on" or "off" as the study asked.
    pub mode: String,
    pub enabled: bool,
    /// CPUs of the contender's process tree (None: not pinned).
    pub contender_cpus: Option<Vec<usize>>,
    /// CPUs of barrage's load generator or, in client studies, of its target server.
    pub generator_cpus: Option<Vec<usize>>,
    pub note: String,
}

/// A contender and whether it ran.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ContenderInfo {
    pub name: String,
    pub dir: String,
    pub start: String,
    pub build: Option<String>,
    pub requires: Vec<String>,
    /// Ready (ran), skipped (a requirement is missing), build failed.
    pub status: ContenderStatus,
    pub skip_reason: Option<String>,
    /// Output tail of a failed build.
    pub build_log: Option<String>,
    pub build_s: Option<f64>,
}

/// Times of one trial on the sample clock: seconds since the trial's origin (its start).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Windows {
    pub trial_start_s: f64,
    /// When the contender passed its readiness probe (servers).
    pub ready_s: Option<f64>,
    /// Load started (warmup begins).
    pub load_start_s: Option<f64>,
    pub warmup_start_s: Option<f64>,
    pub measure_start_s: Option<f64>,
    pub measure_end_s: Option<f64>,
    pub trial_end_s: f64,
}

/// One load phase of a server trial.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PhaseResult {
    pub name: String,
    pub start_s: f64,
    pub measure_start_s: f64,
    pub measure_end_s: f64,
    pub end_s: f64,
    /// The engine's `barrage.load/1` document (with its HDR histogram, base64); a malformed one
    /// reads as empty rather than failing the whole file.
    #[serde(deserialize_with = "crate::units::lenient")]
    pub load: crate::load::LoadDoc,
}

/// Was barrage's own load generator the bottleneck?
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct GeneratorHealth {
    pub threads: usize,
    /// barrage's process CPU during the load (minus the sampler), seconds.
    pub cpu_s: f64,
    /// That CPU as % of the generator's capacity (threads, or its pinned CPUs if fewer).
    pub cpu_pct_of_capacity: f64,
    /// The contender tree's CPU over the measured window as % of the CPUs it was given.
    pub contender_cpu_pct_of_budget: Option<f64>,
    /// Which side limited the trial (`crate::verdict`).
    pub limit: crate::verdict::Limit,
    /// `limit` is the generator alone: the figures measure barrage as much as the contender.
    pub bottleneck: bool,
    pub reasons: Vec<String>,
}

/// How a client contender's output was checked.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Validation {
    pub passed: bool,
    pub checks: Vec<String>,
    pub problems: Vec<String>,
    /// What the reader should know but did not fail the trial (a declared figure missing).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Why a trial failed.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
    pub stderr_tail: String,
}

/// The per-trial figures the statistics use.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Metrics {
    /// Valid responses in the measured windows (server studies).
    pub requests: Option<u64>,
    pub errors: Option<u64>,
    pub rps: Option<f64>,
    pub latency_p50_us: Option<f64>,
    pub latency_p99_us: Option<f64>,
    pub latency_p999_us: Option<f64>,
    /// Contender tree CPU (user + sys) in the measured windows, seconds.
    pub cpu_s: Option<f64>,
    pub cpu_s_per_request: Option<f64>,
    /// Peak of the tree's summed RSS over the trial.
    pub peak_rss_bytes: Option<u64>,
    /// Client studies: wall, user and sys time of the run.
    pub wall_s: Option<f64>,
    pub user_s: Option<f64>,
    pub sys_s: Option<f64>,
    /// Client studies with `expect.file_size`: the body bytes the client had to receive (only on
    /// a trial that passed validation), and that over the wall time in MB/s (10^6 bytes/s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mb_per_s: Option<f64>,
    /// Client studies: the figures the study declared, as the contender printed them (key ->
    /// value; a figure it did not print is absent).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub figures: BTreeMap<String, f64>,
}

/// One trial.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Trial {
    /// Position in the run order.
    pub seq: usize,
    pub point: usize,
    pub contender: String,
    /// Index of this trial for its (point, contender), from 0.
    pub trial: u32,
    pub started_at: String,
    pub ok: bool,
    pub failure: Option<Failure>,
    /// The command as started (placeholders filled).
    pub command: String,
    pub windows: Windows,
    pub phases: Vec<PhaseResult>,
    pub exit: Option<Exit>,
    pub samples: Option<Samples>,
    pub generator: Option<GeneratorHealth>,
    pub validation: Option<Validation>,
    pub metrics: Metrics,
    /// What the emulated link did (points with a network only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<crate::network::NetworkRun>,
    /// CPU other programs took while it was measured (files before it: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside_cpu: Option<crate::busy::OutsideCpu>,
    /// The machine it ran on: 0 for the results' `machine`, i for `other_machines[i - 1]`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub machine: u32,
    /// The CPUs the contender's tree was pinned to (its point's `cpus`, else the run's
    /// pinning; absent: not pinned).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contender_cpus: Option<Vec<usize>>,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

impl ContenderInfo {
    /// Whether it ran (older files have no status: it ran).
    pub fn ran(&self) -> bool {
        matches!(self.status, ContenderStatus::Ready) || self.status.as_str().is_empty()
    }
}

impl Trial {
    /// The failure as one line ("oom: killed at 2.0 GiB"), empty for a successful trial.
    pub fn reason_text(&self) -> String {
        match &self.failure {
            Some(f) if f.message.is_empty() => f.kind.to_string(),
            Some(f) => format!("{}: {}", f.kind, f.message),
            None if self.ok => String::new(),
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

impl Results {
    /// The machine a trial's `machine` index names (the results' own for an unknown one).
    pub fn machine_of(&self, i: u32) -> &Machine {
        match i {
            0 => &self.machine,
            i => self
                .other_machines
                .get(i as usize - 1)
                .unwrap_or(&self.machine),
        }
    }

    /// Trials by (point, contender), in run order.
    pub fn trials_of(&self, point: usize, contender: &str) -> Vec<&Trial> {
        self.trials
            .iter()
            .filter(|t| t.point == point && t.contender == contender)
            .collect()
    }

    /// The label of point `id` as every table names it: its own label, else its parameters
    /// ("c=64 path=/"), else "point N" (empty for a study with a single unlabelled point).
    pub fn point_label(&self, id: usize) -> String {
        match self.points.iter().find(|p| p.id == id) {
            Some(p) if !p.label.is_empty() => p.label.clone(),
            Some(p) if !p.params.is_empty() => p
                .params
                .iter()
                .map(|(k, v)| format!("{k}={}", value_text(v)))
                .collect::<Vec<_>>()
                .join(" "),
            _ if self.points.len() <= 1 => String::new(),
            _ => format!("point {id}"),
        }
    }

    /// The (point id, contender) pairs that have trials, in study order: points as listed,
    /// contenders as listed (then any point or contender seen only in trials).
    pub fn cells_order(&self) -> Vec<(usize, String)> {
        let mut points: Vec<usize> = Vec::new();
        for p in self
            .points
            .iter()
            .map(|p| p.id)
            .chain(self.trials.iter().map(|t| t.point))
        {
            if !points.contains(&p) {
                points.push(p);
            }
        }
        let mut names: Vec<&str> = Vec::new();
        let listed = self
            .contenders
            .iter()
            .filter(|c| c.ran())
            .map(|c| c.name.as_str());
        for n in listed.chain(self.trials.iter().map(|t| t.contender.as_str())) {
            if !names.contains(&n) {
                names.push(n);
            }
        }
        let mut out = Vec::new();
        for p in &points {
            for n in &names {
                if self
                    .trials
                    .iter()
                    .any(|t| t.point == *p && t.contender == *n)
                {
                    out.push((*p, n.to_string()));
                }
            }
        }
        out
    }
}

/// A parameter's value as a label shows it: strings bare, anything else as JSON.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One phase of a trial: a name and the load it runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Phase {
    pub name: String,
    /// The load, as the engine runs it, with only the path in `url` (the runner puts the
    /// contender's address in front). Files written before read the same (the study's form).
    pub load: crate::load::Config,
    /// Over TLS: the runner writes `https://` (`wss://` for WebSocket) in front of the path.
    /// The study's `tls = true`, and always true with HTTP/3. The URL's scheme is the one thing
    /// of a load's URL a point decides besides its path; the `Config` holds it once the address
    /// is in front ([`Phase::load_at`]). Written only when set (files before it read as false).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub tls: bool,
}

impl Phase {
    /// The phase's load as the engine runs it against the contender at `addr`: the `Config`
    /// (its `url` is the path) with the address in front, the study's headers and warmup, and
    /// `threads` where the study left the generator's threads to barrage (0).
    pub fn load_at(
        &self,
        addr: std::net::SocketAddr,
        headers: &[(String, String)],
        warmup: Duration,
        threads: usize,
    ) -> crate::load::Config {
        let l = &self.load;
        crate::load::Config {
            url: format!("{}://{addr}{}", self.scheme(), l.url),
            headers: headers.to_vec(),
            threads: if l.threads == 0 { threads } else { l.threads },
            warmup,
            ..l.clone()
        }
    }

    /// The scheme of the phase's URL: `http`, `https` (`tls`, and always for HTTP/3, whose
    /// QUIC is TLS), `ws` or `wss` (a WebSocket load's URL names it: the engine checks `ws`
    /// against it).
    pub fn scheme(&self) -> &'static str {
        // QUIC is always TLS.
        let h3 = self.load.protocol.is_datagram();
        match (self.load.protocol.is_ws(), self.tls || h3) {
            (true, false) => "ws",
            (true, true) => "wss",
            (false, false) => "http",
            (false, true) => "https",
        }
    }
}

/// One sweep point.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Point {
    /// Index in the study's point list.
    pub id: usize,
    /// Short human label ("keep-alive c=16"); empty when the study has one point and no variants.
    pub label: String,
    /// The variant it belongs to, if the study has variants.
    pub variant: Option<String>,
    /// The swept values that distinguish this point (axis name -> value).
    pub params: BTreeMap<String, Value>,
    /// Server studies: the load phases run back to back within one trial (at least one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<Phase>,
    /// Client studies: every parameter, for placeholders.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub client_params: BTreeMap<String, Param>,
    /// The emulated network between the contender and the load side (none: loopback).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<crate::network::Network>,
}

impl Point {
    /// Total planned load time of one trial (sum of the phase durations; 0 if request-bounded).
    pub fn planned_duration(&self) -> Duration {
        self.phases
            .iter()
            .map(|p| match p.load.duration {
                Some(d) => d,
                // A schedule's length is its stages' (the warmup is their first seconds).
                None => p.load.stages.iter().map(|s| s.duration).sum(),
            })
            .sum()
    }
}

/// Latency from the merged histogram of every successful trial's measured windows.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MergedLatency {
    pub count: u64,
    pub mean_us: f64,
    pub p50_us: u64,
    pub p90_us: u64,
    pub p99_us: u64,
    pub p999_us: u64,
    pub max_us: u64,
    /// The merged histogram, HdrHistogram V2 compressed, base64 (for reports and merging).
    pub hdr: String,
}

/// Statistics of one (point, contender).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Cell {
    pub point: usize,
    pub label: String,
    pub contender: String,
    pub trials_ok: usize,
    pub trials_failed: usize,
    /// Metric name -> statistics over the successful trials.
    pub stats: BTreeMap<String, Summary>,
    pub latency: Option<MergedLatency>,
    /// Load errors over all successful trials.
    pub errors: u64,
    /// barrage's own load generator was the bottleneck in at least one trial.
    pub generator_bottleneck: bool,
    /// One line per failed trial.
    pub failures: Vec<String>,
}

/// A against B on one metric at one point.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ComparisonRow {
    pub point: usize,
    pub label: String,
    /// Contenders (same point) or variants (same contender, same other parameters).
    pub between: Between,
    pub metric: String,
    /// The better one (by median) and the other.
    pub a: String,
    pub b: String,
    /// Between variants: the contender whose variants `a` and `b` are (a row names what it
    /// compares: "unary vs chat" alone does not say whose).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contender: Option<String>,
    #[serde(flatten)]
    pub comparison: crate::stats::Comparison,
}

/// Something the reader should know about the numbers.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Warning {
    pub point: Option<usize>,
    pub contender: Option<String>,
    pub kind: WarningKind,
    pub message: String,
}

#[cfg(test)]
mod tests;

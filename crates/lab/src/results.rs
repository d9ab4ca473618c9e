//! The `barrage.study/1` results document: the study, the machine, the pinning, every trial with
//! its samples, windows and load results, and the statistics. Written atomically (temp file +
//! rename) after every trial, so an interrupted study keeps what it measured and can be resumed.
//!
//! The JSON Schema is `docs/schema/study.schema.json`.

use crate::sample::Samples;
use crate::supervise::Exit;
use crate::sweep::Point;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Schema name and version of the results document.
pub const SCHEMA: &str = "barrage.study/1";

/// Errors reading or writing a results directory.
#[derive(Debug, Error)]
pub enum ResultsError {
    #[error("cannot write {path}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a barrage.study/1 results file: {why}")]
    Format { path: PathBuf, why: String },
}

/// The whole document.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// "running" (being written, or killed hard), "interrupted" (Ctrl-C), "complete".
    pub status: String,
    pub points: Vec<Point>,
    pub contenders: Vec<ContenderInfo>,
    /// Trials the plan has in all (runnable contenders x points x trials).
    pub planned_trials: usize,
    /// Every trial run, in the order they ran.
    pub trials: Vec<Trial>,
    /// Statistics per point and contender (recomputed after every trial).
    pub summary: Vec<crate::summary::Cell>,
    pub comparisons: Vec<crate::summary::ComparisonRow>,
    pub warnings: Vec<crate::summary::Warning>,
}

/// The study as run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StudyInfo {
    pub name: String,
    pub description: String,
    pub kind: crate::study::Kind,
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
}

/// The machine the study ran on.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ContenderInfo {
    pub name: String,
    pub dir: String,
    pub start: String,
    pub build: Option<String>,
    pub requires: Vec<String>,
    /// "ready" (ran), "skipped" (a requirement is missing), "build_failed".
    pub status: String,
    pub skip_reason: Option<String>,
    /// Output tail of a failed build.
    pub build_log: Option<String>,
    pub build_s: Option<f64>,
}

/// Times of one trial on the sample clock: seconds since the trial's origin (its start).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PhaseResult {
    pub name: String,
    pub start_s: f64,
    pub measure_start_s: f64,
    pub measure_end_s: f64,
    pub end_s: f64,
    /// The engine's `barrage.load/1` document (with its HDR histogram, base64).
    pub load: serde_json::Value,
}

/// Was barrage's own load generator the bottleneck?
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct GeneratorHealth {
    pub threads: usize,
    /// barrage's process CPU during the load (minus the sampler), seconds.
    pub cpu_s: f64,
    /// That CPU as % of the generator's capacity (threads, or its pinned CPUs if fewer).
    pub cpu_pct_of_capacity: f64,
    pub bottleneck: bool,
    pub reasons: Vec<String>,
}

/// How a client contender's output was checked.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Validation {
    pub passed: bool,
    pub checks: Vec<String>,
    pub problems: Vec<String>,
}

/// Why a trial failed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Failure {
    /// "exited", "crashed", "oom", "time_budget_exceeded", "never_ready", "interrupted",
    /// "validation", "load_error", "spawn".
    pub kind: String,
    pub message: String,
    pub stderr_tail: String,
}

/// The per-trial figures the statistics use.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
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
}

/// One trial.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
}

impl Results {
    /// Write `results.json` atomically into `dir` (temp file, fsync, rename).
    pub fn write(&self, dir: &Path) -> Result<(), ResultsError> {
        let json = serde_json::to_vec_pretty(self).map_err(|e| ResultsError::Write {
            path: dir.join("results.json"),
            source: std::io::Error::other(e),
        })?;
        write_atomic(&dir.join("results.json"), &json)
    }

    /// Read a `results.json` (a file, or a directory holding one).
    pub fn read(path: &Path) -> Result<Results, ResultsError> {
        let path = if path.is_dir() {
            path.join("results.json")
        } else {
            path.to_path_buf()
        };
        let bytes = std::fs::read(&path).map_err(|source| ResultsError::Read {
            path: path.clone(),
            source,
        })?;
        let v: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(|e| ResultsError::Format {
                path: path.clone(),
                why: e.to_string(),
            })?;
        if v.get("schema").and_then(|s| s.as_str()) != Some(SCHEMA) {
            return Err(ResultsError::Format {
                path,
                why: format!("schema is not {SCHEMA:?}"),
            });
        }
        serde_json::from_value(v).map_err(|e| ResultsError::Format {
            path,
            why: e.to_string(),
        })
    }

    /// Trials by (point, contender), in run order.
    pub fn trials_of(&self, point: usize, contender: &str) -> Vec<&Trial> {
        self.trials
            .iter()
            .filter(|t| t.point == point && t.contender == contender)
            .collect()
    }
}

/// Write `bytes` to `path` atomically: a temp file in the same directory, fsync, rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ResultsError> {
    let err = |source| ResultsError::Write {
        path: path.to_path_buf(),
        source,
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp{}", std::process::id()));
    let mut f = std::fs::File::create(&tmp).map_err(err)?;
    f.write_all(bytes).map_err(err)?;
    f.sync_all().map_err(err)?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(err)
}

/// The current time as RFC 3339 UTC ("2026-11-21T23:59:01Z").
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339(secs)
}

/// Seconds since the epoch as RFC 3339 UTC.
pub fn rfc3339(secs: u64) -> String {
    let (days, rem) = (secs / 86400, secs % 86400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// A compact timestamp for directory names ("20261121-235901").
pub fn stamp() -> String {
    now_rfc3339()
        .replace(['-', ':'], "")
        .replace('T', "-")
        .trim_end_matches('Z')
        .to_string()
}

// Howard Hinnant's days-to-civil algorithm.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Facts about this machine, best effort (missing files give empty fields).
pub fn machine() -> Machine {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let cpu_model = read("/proc/cpuinfo")
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_default();
    let memory_bytes = read("/proc/meminfo")
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|k| k.parse::<u64>().ok())
        .map_or(0, |k| k * 1024);
    let os = read("/etc/os-release")
        .lines()
        .find(|l| l.starts_with("PRETTY_NAME="))
        .map(|l| {
            l.trim_start_matches("PRETTY_NAME=")
                .trim_matches('"')
                .to_string()
        })
        .unwrap_or_else(|| std::env::consts::OS.to_string());
    // SAFETY: sysconf has no preconditions.
    let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    Machine {
        hostname: read("/proc/sys/kernel/hostname").trim().to_string(),
        os,
        kernel: read("/proc/sys/kernel/osrelease").trim().to_string(),
        cpu_model,
        cpus: usize::try_from(online).unwrap_or(1),
        available_cpus: available_cpus(),
        memory_bytes,
    }
}

/// CPUs this process may run on (its affinity mask).
pub fn available_cpus() -> Vec<usize> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity fills it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// Key of a (point, contender) cell.
pub type CellKey = (usize, String);

/// Count of trials already recorded per cell (for resume).
pub fn done_counts(r: &Results) -> BTreeMap<CellKey, u32> {
    let mut m = BTreeMap::new();
    for t in &r.trials {
        *m.entry((t.point, t.contender.clone())).or_insert(0) += 1;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
    }
}

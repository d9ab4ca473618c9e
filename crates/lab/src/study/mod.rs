//! The study file: a TOML description of contenders, load (or a client workload), trials and
//! sweeps, parsed and validated into a [`Study`]. Every error names the line it comes from.
//!
//! The format is documented with a full example in `docs/study.md`.

mod quick;
mod raw;
pub mod value;

use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;
use thiserror::Error;
pub use value::{format_duration, parse_duration, Dur, OneOrMany, Param, StagesText};

pub use check::shell_quote;
pub use raw::{LoadFields, NetworkFields};

/// The embedded default study (`barrage run` with no argument).
pub const DEFAULT_STUDY: &str = include_str!("../../studies/default.toml");

/// A study file that cannot be run, with the line it comes from when known.
#[derive(Debug, Error)]
pub enum StudyError {
    #[error("{}", located(.file, .line, .message))]
    Invalid {
        file: String,
        line: Option<usize>,
        message: String,
    },
    #[error("cannot read {file}")]
    Read {
        file: String,
        source: std::io::Error,
    },
}

impl StudyError {
    /// The 1-based line the error points at, when known.
    pub fn line(&self) -> Option<usize> {
        match self {
            StudyError::Invalid { line, .. } => *line,
            StudyError::Read { .. } => None,
        }
    }
}

fn located(file: &str, line: &Option<usize>, message: &str) -> String {
    match line {
        Some(l) => format!("{file}:{l}: {message}"),
        None => format!("{file}: {message}"),
    }
}

pub use barrage_model::study::ContenderRole;

/// CPU pinning of contender vs load generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PinMode {
    /// Pin when the machine has at least 2 CPUs available.
    Auto,
    On,
    Off,
    /// `pin = N`: the contender on exactly the first N CPUs, the load generator on the rest
    /// (for example a study re-run with its contender on 1 CPU).
    Cpus(usize),
}

/// A named part of a study: the points that meet its conditions (all, without any) and the
/// contenders it lists (all, without any). Its trials are the whole study's at those cells,
/// so a partial run answers the questions that lie inside it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Subset {
    pub name: String,
    /// `k=v` conditions on the sweep's axes (load axes by field or short label).
    pub at: Vec<(String, String)>,
    pub contenders: Vec<String>,
}

impl Study {
    /// Chooses the subset `name` for this run, or says which subsets there are.
    pub fn select(&mut self, name: &str) -> Result<(), String> {
        if !self.subsets.iter().any(|s| s.name == name) {
            let names: Vec<&str> = self.subsets.iter().map(|s| s.name.as_str()).collect();
            return Err(format!(
                "study {} has no subset {name:?} ({})",
                self.name,
                if names.is_empty() {
                    "it declares no [[subset]]".to_string()
                } else {
                    format!("its subsets: {}", names.join(", "))
                }
            ));
        }
        self.subset = Some(name.to_string());
        Ok(())
    }

    /// Whether a question compares points (an interaction `across` conditions, or sides with
    /// conditions of their own): the runner then interleaves the points trial by trial.
    pub fn compares_points(&self) -> bool {
        self.questions.iter().any(|q| {
            q.across.is_some()
                || q.parsed().is_ok_and(|c| {
                    std::iter::once(&c.left)
                        .chain(&c.right)
                        .any(|s| !s.at.is_empty())
                })
        })
    }

    /// Whether the run includes the cell (point, contender): always without a subset.
    pub fn includes(&self, point: &barrage_model::study::Point, contender: &str) -> bool {
        let Some(s) = self
            .subset
            .as_ref()
            .and_then(|n| self.subsets.iter().find(|s| &s.name == n))
        else {
            return true;
        };
        let at = barrage_model::question::by_field(std::slice::from_ref(point), &s.at);
        (s.contenders.is_empty() || s.contenders.iter().any(|c| c == contender))
            && !barrage_model::question::points_meeting(std::slice::from_ref(point), &at).is_empty()
    }
}

/// A value of the `cpus` axis: the first N CPUs barrage may use, or all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CpuCount {
    First(usize),
    All,
}

impl CpuCount {
    /// The value as a point's parameter holds it (1, or "all").
    pub fn value(self) -> serde_json::Value {
        match self {
            CpuCount::First(n) => serde_json::Value::from(n),
            CpuCount::All => serde_json::Value::from("all"),
        }
    }

    /// The value a point's `cpus` parameter holds, read back.
    pub fn of_value(v: &serde_json::Value) -> Option<CpuCount> {
        match v {
            serde_json::Value::String(s) if s == "all" => Some(CpuCount::All),
            v => v.as_u64().map(|n| CpuCount::First(n as usize)),
        }
    }

    /// The CPUs it gives the contender out of `available`, or why it cannot.
    pub fn of(self, available: &[usize]) -> Result<Vec<usize>, String> {
        match self {
            CpuCount::All => Ok(available.to_vec()),
            CpuCount::First(n) if n <= available.len() => Ok(available[..n].to_vec()),
            CpuCount::First(n) => Err(format!(
                "cpus = {n} needs {n} CPUs; barrage may use {} ({:?})",
                available.len(),
                available
            )),
        }
    }
}

/// A validated study.
#[derive(Debug, Clone)]
pub struct Study {
    pub name: String,
    pub description: String,
    pub kind: ContenderRole,
    pub trials: u32,
    pub warmup: Duration,
    pub cooldown: Duration,
    pub interleave: bool,
    pub pin: PinMode,
    /// `cpus`: the CPUs given to the contender, a sweep axis of its own (`cpus = [1, "all"]`:
    /// the first N of barrage's CPUs, or every one), so a question can compare them within one
    /// run; empty: the pinning decides.
    pub cpus: Vec<CpuCount>,
    pub sample_interval: Duration,
    /// Time budget of one trial's contender run (a client past it is killed and recorded).
    pub trial_timeout: Duration,
    /// Stop signal to SIGKILL.
    pub stop_grace: Duration,
    /// Server studies: a trial with more load errors than this (wrong status or body, timeouts,
    /// dropped connections) fails with kind `errors` and is not credited. `None`: no limit.
    pub max_errors: Option<u64>,
    /// Most CPU other programs may take while a trial is measured, % of one core (`busy_limit`,
    /// default [`barrage_model::busy::DEFAULT_LIMIT_PCT`]), and what a trial over it means
    /// (`on_busy`: warn, retry or fail).
    pub busy_limit_pct: f64,
    pub on_busy: barrage_model::busy::OnBusy,
    /// `[[threshold]]`s: expressions each (point, contender) must meet (k6's grammar).
    pub thresholds: Vec<barrage_model::threshold::StudyThreshold>,
    /// `[[question]]`s: the claims of the study's original, answered after every trial.
    pub questions: Vec<barrage_model::question::Question>,
    /// `[[subset]]`s: named parts of the study for partial runs, and the one chosen
    /// (`barrage run --subset NAME`; None: the whole study).
    pub subsets: Vec<Subset>,
    pub subset: Option<String>,
    /// Server studies: the load.
    pub load: Option<LoadSpec>,
    /// Client studies: the workload.
    pub client: Option<ClientSpec>,
    /// Client studies: barrage's in-process target server.
    pub target: TargetSpec,
    /// `[network]`: the emulated link between contender and load side (none: loopback).
    pub network: NetworkSpec,
    pub contenders: Vec<ContenderSpec>,
    /// Directory of the study file; contender `dir`s are relative to it.
    pub base_dir: PathBuf,
    /// The file's text, kept in the results so `--resume` can rebuild the same plan.
    pub source: String,
    /// Shrunk by [`Study::quick`] (`barrage run --quick`); `--resume` shrinks it again.
    pub quick: bool,
}

/// `[load]` of a server study: base fields (lists are sweep axes), variants and phases.
#[derive(Debug, Clone)]
pub struct LoadSpec {
    pub headers: Vec<(String, String)>,
    pub base: LoadFields,
    pub variants: Vec<(String, LoadFields)>,
    pub phases: Vec<(Option<String>, LoadFields)>,
}

/// `[network]` of a study: the base table and the variants' own `network` tables, each laid
/// over the base key by key (a variant's `rtt` replaces the base's `delay` and vice versa). Lists
/// are sweep axes; `--quick` keeps them all (it shortens durations, not conditions).
#[derive(Debug, Clone, Default)]
pub struct NetworkSpec {
    pub base: Option<NetworkFields>,
    pub variants: Vec<(String, NetworkFields)>,
}

impl NetworkSpec {
    /// Whether any point of the study runs over an emulated link.
    pub fn is_set(&self) -> bool {
        self.base.is_some() || !self.variants.is_empty()
    }
}

/// `[client]` of a client study.
#[derive(Debug, Clone)]
pub struct ClientSpec {
    /// Path on the target server; `{url}` is the server's base URL plus this path.
    pub path: String,
    /// Parameters substituted into commands; lists are sweep axes.
    pub params: Vec<(String, OneOrMany<Param>)>,
    pub expect: ClientExpect,
    /// A throughput the client measures itself: the name of a `name=value` token on its stdout,
    /// in requests per second (recorded as the trial's `rps`; absent or unparsable fails it).
    pub rate: Option<String>,
    /// The name of a `name=N` token on stdout: the requests made (gives CPU per request).
    pub requests: Option<String>,
    /// Figures the contenders print as `key=value` tokens (`[[client.figure]]`), recorded per
    /// trial in `metrics.figures` and reported like the registry's metrics.
    pub figures: Vec<barrage_model::figure::Figure>,
}

/// How a client contender's run is validated.
#[derive(Debug, Clone, Serialize)]
pub struct ClientExpect {
    pub exit_code: i32,
    /// Strings stdout must contain (placeholders expanded).
    pub stdout_contains: Vec<String>,
    /// A file the client writes (placeholders expanded, relative to the contender's dir).
    pub file: Option<String>,
    /// Its expected size in bytes (a number or a placeholder such as "{size}").
    pub file_size: Option<String>,
    /// The file must hold exactly the `/bytes/{n}` pattern of barrage's server.
    pub file_pattern: bool,
}

/// barrage's own target server for client studies.
#[derive(Debug, Clone, Serialize)]
pub struct TargetSpec {
    /// Server threads (0: barrage's default).
    pub threads: usize,
    pub fault_rate: f64,
    /// Most `/sleep` requests in service at once, server-wide (None: no limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<usize>,
}

/// A server's readiness probe.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReadySpec {
    /// No probe (client contenders).
    None,
    Tcp {
        #[serde(with = "dur_str")]
        timeout: Duration,
    },
    Http {
        path: String,
        status: Option<u16>,
        #[serde(with = "dur_str")]
        timeout: Duration,
    },
}

/// One `[[contender]]`.
#[derive(Debug, Clone, Serialize)]
pub struct ContenderSpec {
    pub name: String,
    pub dir: PathBuf,
    /// Run once before any trial (shell command).
    pub build: Option<String>,
    /// The start command (shell command with placeholders).
    pub start: String,
    pub ready: ReadySpec,
    pub env: Vec<(String, String)>,
    pub stop_signal: String,
    #[serde(skip)]
    pub stop_signal_number: i32,
    pub requires: Vec<String>,
    pub memory_limit: Option<u64>,
}

mod dur_str {
    use serde::Serializer;
    use std::time::Duration;
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::format_duration(*d))
    }
}

/// Reads and validates a study file.
pub fn load(path: &Path) -> Result<Study, StudyError> {
    let file = path.display().to_string();
    let src = std::fs::read_to_string(path).map_err(|source| StudyError::Read {
        file: file.clone(),
        source,
    })?;
    let base = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    parse(&src, &file, base)
}

/// Parses and validates a study from its text; `file` names it in errors, `base_dir` is where
/// contender directories are resolved.
pub fn parse(src: &str, file: &str, base_dir: &Path) -> Result<Study, StudyError> {
    let err = |span: Option<std::ops::Range<usize>>, message: String| StudyError::Invalid {
        file: file.to_string(),
        line: span.map(|s| line_of(src, s.start)),
        message,
    };
    let f: raw::File = toml::from_str(src).map_err(|e| err(e.span(), e.message().to_string()))?;
    check::validate(f, src, base_dir, &err)
}

/// 1-based line of a byte offset.
pub fn line_of(src: &str, offset: usize) -> usize {
    src.as_bytes()[..offset.min(src.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

mod check;

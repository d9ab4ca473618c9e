//! What a contender's process did, as data: the samples of its process tree (CPU, memory,
//! processes over time) and how it ended (outcome, exit status, rusage). The supervisor and the
//! sampler in crates/lab write these; the results document carries them; the report reads them.
//! No I/O here.

use crate::units::secs;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// Sampler settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SamplerConfig {
    /// Time between samples (default 100 ms).
    #[serde(with = "secs", rename = "interval_s")]
    pub interval: Duration,
    /// Read PSS every this many ticks (default 10, i.e. every second at 100 ms; 0 = never)...
    pub pss_every: u32,
    /// ...but only while the PSS reads have cost less than this % of a core so far (default
    /// 0.05): `smaps_rollup` walks page tables and costs ~30 µs per process.
    pub pss_budget_pct: f64,
    /// Keep at most this many processes (largest RSS first) in each sample's per-process list
    /// (default 32; 0 = no per-process detail). Totals always cover the whole tree.
    pub max_processes: usize,
    /// Sample machine-wide per-core CPU from /proc/stat (default true).
    pub machine_cpu: bool,
}

impl Default for SamplerConfig {
    fn default() -> Self {
        SamplerConfig {
            interval: Duration::from_millis(100),
            pss_every: 10,
            pss_budget_pct: 0.05,
            max_processes: 32,
            machine_cpu: true,
        }
    }
}

/// One process of the tree in one sample.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ProcSample {
    pub pid: i32,
    pub comm: String,
    /// Own user+sys CPU over the interval, % of one core.
    pub cpu_pct: f64,
    pub rss_bytes: u64,
    pub threads: u32,
}

/// One sample of the tree.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Sample {
    /// Time since the origin.
    #[serde(with = "secs", rename = "t_s")]
    pub t: Duration,
    /// Tree CPU over the interval since the previous sample, % of one core (0 in the first
    /// sample, which is the baseline).
    pub cpu_user_pct: f64,
    pub cpu_sys_pct: f64,
    /// RSS summed over the tree's live processes.
    pub rss_bytes: u64,
    /// PSS summed over the tree (only on PSS ticks).
    pub pss_bytes: Option<u64>,
    /// Live (non-zombie) processes and their threads.
    pub processes: u32,
    pub threads: u32,
    /// Per process, largest RSS first, at most `max_processes`.
    pub procs: Vec<ProcSample>,
    /// Machine-wide busy % of each core over the interval (empty when disabled).
    pub cores_busy_pct: Vec<f64>,
}

/// Everything one sampler run recorded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Samples {
    pub config: SamplerConfig,
    pub samples: Vec<Sample>,
    /// Largest tree RSS over all samples (the sum over the tree, not the largest process).
    pub peak_rss_bytes: u64,
    pub peak_pss_bytes: Option<u64>,
    pub peak_processes: u32,
    /// Tree CPU accumulated from the first to the last sample.
    #[serde(with = "secs", rename = "cpu_user_s")]
    pub cpu_user: Duration,
    #[serde(with = "secs", rename = "cpu_sys_s")]
    pub cpu_sys: Duration,
    /// The sampler thread's own CPU time, and the wall time it ran.
    #[serde(with = "secs", rename = "sampler_cpu_s")]
    pub sampler_cpu: Duration,
    #[serde(with = "secs", rename = "sampler_wall_s")]
    pub sampler_wall: Duration,
    /// `sampler_cpu / sampler_wall` in % of one core.
    pub sampler_cpu_pct: f64,
    /// Ticks on which /proc was listed to discover new processes (skipped when no pid was
    /// allocated since the previous tick).
    pub listings: u64,
}

impl Samples {
    /// The samples whose time lies in `[from, to]` (times since the origin), e.g. the measured
    /// window of a trial.
    pub fn window(&self, from: Duration, to: Duration) -> &[Sample] {
        let a = self.samples.partition_point(|s| s.t < from);
        let b = self.samples.partition_point(|s| s.t <= to);
        &self.samples[a..b.max(a)]
    }

    /// Tree CPU (user, sys) spent in `[from, to]`, from the per-interval percentages of the
    /// samples in the window (each sample covers the interval ending at its time).
    pub fn cpu_between(&self, from: Duration, to: Duration) -> (Duration, Duration) {
        let mut user = 0.0;
        let mut sys = 0.0;
        let mut prev: Option<Duration> = None;
        for s in &self.samples {
            if let Some(p) = prev {
                // Overlap of the interval (p, s.t] with [from, to].
                let lo = p.max(from);
                let hi = s.t.min(to);
                if hi > lo {
                    let span = (s.t - p).as_secs_f64();
                    let frac = (hi - lo).as_secs_f64() / span;
                    user += s.cpu_user_pct / 100.0 * span * frac;
                    sys += s.cpu_sys_pct / 100.0 * span * frac;
                }
            }
            prev = Some(s.t);
        }
        (Duration::from_secs_f64(user), Duration::from_secs_f64(sys))
    }

    /// Largest tree RSS among the samples in `[from, to]`.
    pub fn peak_rss_between(&self, from: Duration, to: Duration) -> u64 {
        self.window(from, to)
            .iter()
            .map(|s| s.rss_bytes)
            .max()
            .unwrap_or(0)
    }
}

/// Which memory limit was actually applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MemoryLimitApplied {
    None,
    Rlimit { bytes: u64 },
    CgroupV2 { bytes: u64, path: String },
    CgroupV1 { bytes: u64, path: String },
}

/// Why a contender did not become ready.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NotReady {
    #[error("not ready after {waited_ms} ms (last probe error: {last_error})")]
    Timeout { waited_ms: u64, last_error: String },
    #[error("exited before becoming ready")]
    Exited,
    #[error("interrupted while waiting for readiness")]
    Interrupted,
}

/// How the group leader ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Termination {
    Exited { code: i32 },
    Signaled { signal: i32, core_dumped: bool },
}

/// Classified result of one contender run. Everything but [`Outcome::Ok`] is a failure of the
/// trial (see [`Outcome::is_failure`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// Client: exited 0. Server: was running until barrage stopped it.
    Ok,
    /// Exited with a non-zero code (client), or exited on its own before the stop (server; the
    /// code may be 0 then).
    Exited { code: i32 },
    /// Killed by a signal barrage did not send (a crash: SIGSEGV, SIGABRT, ...).
    Crashed { signal: i32, name: String },
    /// Out of memory. Best-effort: exact when a cgroup reports an OOM kill; otherwise inferred from
    /// an unexplained SIGKILL, or an abort/failure with an out-of-memory message on stderr.
    Oom { evidence: String },
    /// A client still running when its time budget ran out; barrage killed it.
    TimeBudgetExceeded {
        #[serde(with = "secs")]
        budget: Duration,
    },
    /// A server that never passed its readiness probe.
    NeverReady { reason: NotReady },
    /// Stopped because barrage was interrupted (Ctrl-C).
    Interrupted,
}

impl Outcome {
    /// Whether the trial failed.
    pub fn is_failure(&self) -> bool {
        !matches!(self, Outcome::Ok)
    }
}

/// Resource usage from `wait4` (see the module doc for what it covers).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Rusage {
    #[serde(with = "secs", rename = "user_s")]
    pub user: Duration,
    #[serde(with = "secs", rename = "sys_s")]
    pub sys: Duration,
    /// Largest resident set of any one covered process, in bytes.
    pub maxrss_bytes: u64,
    pub minor_faults: u64,
    pub major_faults: u64,
    pub voluntary_switches: u64,
    pub involuntary_switches: u64,
}

/// How the stop went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct StopInfo {
    /// The stop signal was sent to the group (false when it had exited already).
    pub signal_sent: bool,
    /// SIGKILL was needed after the grace.
    pub killed_after_grace: bool,
    /// Processes still found in the group or tree after the leader was reaped, then killed.
    pub stragglers_killed: u32,
}

/// Everything known after a contender was reaped.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Exit {
    pub outcome: Outcome,
    /// How the leader ended (`None` only if it could not be reaped, which should not happen).
    pub termination: Option<Termination>,
    /// Spawn to exit (for clients: their wall time).
    #[serde(with = "secs", rename = "wall_s")]
    pub wall: Duration,
    pub rusage: Rusage,
    /// Captured stdout (first `limit` bytes, [`StdoutMode::Capture`]); not serialized.
    #[serde(skip)]
    pub stdout: Vec<u8>,
    pub stdout_bytes: u64,
    pub stdout_truncated: bool,
    /// Last bytes of stderr (lossy UTF-8).
    pub stderr_tail: String,
    pub stop: StopInfo,
    pub memory_limit: MemoryLimitApplied,
    /// Peak memory of the cgroup, when a cgroup was used and reports it.
    pub cgroup_peak_bytes: Option<u64>,
    /// When the process was spawned and when it was seen to exit (on the caller's clock).
    #[serde(skip)]
    pub spawned_at: Option<Instant>,
    #[serde(skip)]
    pub exited_at: Option<Instant>,
}

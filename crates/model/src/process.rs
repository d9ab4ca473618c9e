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
    /// Read PSS every this many ticks (default 1: every tick; 0 = never)...
    pub pss_every: u32,
    /// ...but only while the PSS reads have cost less than this % of a core so far (default
    /// 0.05, which keeps the whole sampler within 1% of a core): `smaps_rollup` walks page tables and
    /// costs ~30 µs per process, so a large tree gets PSS less often.
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
            // Every tick while PSS reads stay within 0.05% of a core: every tick for a tree of a
            // process or two, thinning out by itself for larger trees whose page-table walks
            // would cost more (at 0.1-0.3% the sampler's own 1%-of-a-core bound failed for a
            // 101-process tree on this 2-core machine).
            pss_every: 1,
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
    /// CPU of the sampling process itself over the interval, % of one core: barrage, with its
    /// load generator or target server, the link emulator and this sampler (with the machine's
    /// cores; none in files written before it was recorded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub barrage_cpu_pct: Option<f64>,
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
    /// CPUs the tree could run on when sampled (its affinity): no interval shows more than
    /// this many cores ([`Samples::bound_cpu`]). 0 in files before it was recorded.
    pub cpus: usize,
    /// CPU seconds [`Samples::bound_cpu`] found no interval with room for and dropped from
    /// the timeline (the totals `cpu_user`/`cpu_sys` keep them). 0 in files before it was
    /// counted.
    #[serde(with = "secs", rename = "cpu_dropped_s")]
    pub cpu_dropped: Duration,
    /// The clock tick /proc counts CPU in (1 / `_SC_CLK_TCK`, 10 ms): what one reading may be
    /// off by. 0 in files before it was recorded.
    #[serde(with = "secs", rename = "clock_tick_s")]
    pub clock_tick: Duration,
}

/// CPU a trial's timeline dropped beyond what its readings' rounding explains, weighed
/// against the exact total: see [`Samples::dropped_cpu`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DroppedCpu {
    /// CPU seconds dropped, and what the rounding of the readings explains: one clock tick
    /// per interval.
    pub dropped_s: f64,
    pub allowance_s: f64,
    pub intervals: usize,
    /// The cap: CPUs the tree could run on.
    pub cpus: usize,
    /// The trial's exact CPU (rusage, user + sys) and what `cpus` could give over the
    /// contender's wall time; `None` without its exit.
    pub rusage_s: Option<f64>,
    pub capacity_s: Option<f64>,
}

impl DroppedCpu {
    /// Whether the exact total exceeds what the CPUs could give: the tree ran on more CPUs than
    /// the cap says. `false`: the exact total fits, so the readings counted more CPU than was
    /// spent (an accounting error of the samples). `None` without the exit.
    pub fn beyond_capacity(&self) -> Option<bool> {
        Some(self.rusage_s? > self.capacity_s?)
    }
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

    /// Machine-wide CPU outside the tree and barrage's own process in `[from, to]`, as an average
    /// % of one core: per interval, the busy time of every core less the tree's CPU and
    /// barrage's, prorated where an interval straddles the window; negative totals (the two
    /// clocks' rounding) read as 0. None when the samples lack per-core or barrage figures.
    ///
    /// This is what other programs on the machine took while the contender was measured: a
    /// build beside a study shows here, the contender and the generator do not.
    pub fn outside_cpu_pct(&self, from: Duration, to: Duration) -> Option<f64> {
        let mut core_s = 0.0;
        let mut span_s = 0.0;
        for w in self.samples.windows(2) {
            let (p, s) = (&w[0], &w[1]);
            let (lo, hi) = (p.t.max(from), s.t.min(to));
            if hi <= lo || s.cores_busy_pct.is_empty() {
                continue;
            }
            let barrage = s.barrage_cpu_pct?;
            let machine: f64 = s.cores_busy_pct.iter().sum();
            let overlap = (hi - lo).as_secs_f64();
            core_s += (machine - s.cpu_user_pct - s.cpu_sys_pct - barrage) / 100.0 * overlap;
            span_s += overlap;
        }
        (span_s > 0.0).then(|| (core_s / span_s * 100.0).max(0.0))
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
    /// Out of memory, where the kernel says so: a cgroup reports an OOM kill, or a SIGKILL barrage
    /// did not send came while the kernel's own OOM kill count rose; or an abort/failure with an
    /// out-of-memory message on stderr.
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
    /// Its command exited while processes it started kept running: it went to the background
    /// (a daemon, as nginx without `daemon off`). They were found in its cgroup and killed.
    Daemonized { processes: u32 },
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
    /// CPU time of every process that ran in the contender's own cgroup (daemons included), when
    /// one could be made; exact, unlike the rusage of reaped processes.
    #[serde(default, with = "secs::option", rename = "cgroup_cpu_s")]
    pub cgroup_cpu: Option<Duration>,
    /// When the process was spawned and when it was seen to exit (on the caller's clock).
    #[serde(skip)]
    pub spawned_at: Option<Instant>,
    #[serde(skip)]
    pub exited_at: Option<Instant>,
}

impl Samples {
    /// Makes the CPU timeline physically possible for a tree that may use `cpus` CPUs: no
    /// interval shows more than `cpus` x 100% of a core.
    ///
    /// Two artefacts of /proc accounting break that bound, and neither loses CPU here:
    /// - a child's whole CPU time is added to its reaper's `cutime`/`cstime` when it is reaped,
    ///   so it lands in one interval although it was spent over the child's life: the excess is
    ///   moved back to the latest earlier intervals that have room (where it was spent);
    /// - the final sample, taken at the stop, closes an interval of a few milliseconds in which
    ///   one 10 ms clock tick reads as several cores: an interval shorter than half the
    ///   sampling interval is merged into the one before it.
    ///
    /// What no earlier interval has room for goes to the next later ones with room; totals are
    /// kept unless the timeline holds more than `cpus` could do in all of it, a skew of the
    /// readings (seen with six busy children pinned to one CPU), whose surplus is dropped:
    /// the bound is what a reader of a CPU plot must be able to rely on.
    ///
    /// What is dropped is counted in `cpu_dropped` ([`Samples::dropped_cpu`] weighs it), so an
    /// accounting error cannot hide behind the cap.
    pub fn bound_cpu(&mut self, cpus: usize) {
        self.cpus = cpus.max(1);
        let cpus = cpus.max(1) as f64;
        let half = self.config.interval.as_secs_f64() / 2.0;
        let n = self.samples.len();
        if n >= 3 {
            let (a, b) = (&self.samples[n - 2], &self.samples[n - 1]);
            let last = (b.t - a.t).as_secs_f64();
            let prev = (a.t - self.samples[n - 3].t).as_secs_f64();
            if last < half && prev > 0.0 {
                let span = prev + last;
                // A weighted mean lies between its values; clamped so rounding cannot put two
                // fully busy intervals at 100.00000000000001%.
                let mix = |x: f64, y: f64| ((x * prev + y * last) / span).clamp(x.min(y), x.max(y));
                let user = mix(a.cpu_user_pct, b.cpu_user_pct);
                let sys = mix(a.cpu_sys_pct, b.cpu_sys_pct);
                // The machine's and barrage's figures of a few milliseconds are one clock tick
                // or none: merged the same way, so the outside CPU stays within reason.
                let cores: Vec<f64> = if a.cores_busy_pct.len() == b.cores_busy_pct.len() {
                    (a.cores_busy_pct.iter().zip(&b.cores_busy_pct))
                        .map(|(x, y)| mix(*x, *y))
                        .collect()
                } else {
                    b.cores_busy_pct.clone()
                };
                let barrage = match (a.barrage_cpu_pct, b.barrage_cpu_pct) {
                    (Some(x), Some(y)) => Some(mix(x, y)),
                    (_, y) => y,
                };
                let last_sample = self.samples.pop().expect("n >= 3");
                let merged = self.samples.last_mut().expect("n >= 3");
                *merged = Sample {
                    cpu_user_pct: user,
                    cpu_sys_pct: sys,
                    cores_busy_pct: cores,
                    barrage_cpu_pct: barrage,
                    ..last_sample
                };
            }
        }
        // CPU seconds per interval (the first sample is the baseline, interval 0).
        let dt: Vec<f64> = (0..self.samples.len())
            .map(|i| match i {
                0 => 0.0,
                _ => (self.samples[i].t - self.samples[i - 1].t).as_secs_f64(),
            })
            .collect();
        let mut dropped = 0.0;
        for i in 1..self.samples.len() {
            let cap = cpus * 100.0;
            let s = &self.samples[i];
            let total = s.cpu_user_pct + s.cpu_sys_pct;
            if total <= cap || dt[i] <= 0.0 {
                continue;
            }
            // Excess CPU seconds, split between user and sys as in this interval.
            let mut excess = (total - cap) / 100.0 * dt[i];
            let user_share = s.cpu_user_pct / total;
            let mut placed = 0.0;
            for j in (1..i).rev() {
                if excess <= 0.0 {
                    break;
                }
                let t = &mut self.samples[j];
                let room = (cap - t.cpu_user_pct - t.cpu_sys_pct).max(0.0) / 100.0 * dt[j];
                let put = room.min(excess);
                if put > 0.0 {
                    t.cpu_user_pct += put * user_share * 100.0 / dt[j];
                    t.cpu_sys_pct += put * (1.0 - user_share) * 100.0 / dt[j];
                    excess -= put;
                    placed += put;
                }
            }
            // No room before (the tree was busy all along): later intervals with room take the
            // rest, and what fits nowhere is dropped, since a timeline over the CPUs given is
            // the one thing it must never show (the trial's exact CPU comes from rusage).
            for (t, &d) in self.samples.iter_mut().zip(&dt).skip(i + 1) {
                if excess <= 0.0 {
                    break;
                }
                let room = (cap - t.cpu_user_pct - t.cpu_sys_pct).max(0.0) / 100.0 * d;
                let put = room.min(excess);
                if put > 0.0 {
                    t.cpu_user_pct += put * user_share * 100.0 / d;
                    t.cpu_sys_pct += put * (1.0 - user_share) * 100.0 / d;
                    excess -= put;
                }
            }
            // What neither side had room for leaves the timeline: counted, not hidden.
            dropped += excess.max(0.0);
            let s = &mut self.samples[i];
            let removed = placed * 100.0 / dt[i];
            s.cpu_user_pct -= removed * user_share;
            s.cpu_sys_pct -= removed * (1.0 - user_share);
            let over = s.cpu_user_pct + s.cpu_sys_pct - cap;
            if over > 0.0 {
                s.cpu_user_pct -= over * user_share;
                s.cpu_sys_pct -= over * (1.0 - user_share);
            }
        }
        self.cpu_dropped += Duration::from_secs_f64(dropped);
    }

    /// The CPU [`Samples::bound_cpu`] dropped, when it is more than a clock tick per interval
    /// (what the readings' rounding explains: each interval's reading may be a tick off), with
    /// the check that tells what it was: the exact total of `exit` (rusage) against what the
    /// tree's CPUs could give over its wall time. `None` within the allowance, or for files
    /// from before the count (no clock tick recorded).
    pub fn dropped_cpu(&self, exit: Option<&Exit>) -> Option<DroppedCpu> {
        let intervals = self.samples.len().saturating_sub(1);
        let tick = self.clock_tick.as_secs_f64();
        let dropped_s = self.cpu_dropped.as_secs_f64();
        let allowance_s = tick * intervals as f64;
        if tick <= 0.0 || dropped_s <= allowance_s {
            return None;
        }
        let cpus = self.cpus.max(1);
        Some(DroppedCpu {
            dropped_s,
            allowance_s,
            intervals,
            cpus,
            rusage_s: exit.map(|e| (e.rusage.user + e.rusage.sys).as_secs_f64()),
            capacity_s: exit.map(|e| cpus as f64 * e.wall.as_secs_f64()),
        })
    }
}

#[cfg(test)]
mod tests;

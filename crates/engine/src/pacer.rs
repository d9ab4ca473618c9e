//! Open-loop pacing: a pure schedule of intended send times.
//!
//! The run's rate over time is a [`Rate`]: constant, or k6-style stages that ramp it linearly
//! from one target to the next. `N(t)`, the number of requests the schedule has made due by `t`
//! seconds after its start, is the rate's integral; request `n` of the run is due when
//! `N(t) = n`. With `W` workers, worker `i` sends the run's requests `i, i + W, i + 2W, ...`, so
//! the workers interleave and together send exactly the schedule. The pacer never looks at how
//! the target is doing: when the worker falls behind (all connections busy, or the generator too
//! slow), the due requests go out as soon as possible with their original intended times, so the
//! lateness shows in the corrected latencies instead of the rate quietly dropping (the
//! coordinated-omission correction of wrk2).

use std::sync::Arc;
use std::time::Duration;

/// The run's rate over time (requests per second, all workers together).
#[derive(Debug, Clone, PartialEq)]
pub enum Rate {
    Constant(f64),
    Stages(Arc<Stages>),
}

/// k6's stages: each ramps the rate linearly from the previous stage's target (0 before the
/// first) to its own over its duration; after the last one nothing more is due.
#[derive(Debug, Clone, PartialEq)]
pub struct Stages {
    segs: Vec<Seg>,
}

/// One stage, in seconds from the schedule's start: from `t0` to `t1` the rate goes from `r0`
/// to `r1`; `n0` requests were due before it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Seg {
    t0: f64,
    t1: f64,
    r0: f64,
    r1: f64,
    n0: f64,
}

impl Seg {
    /// Requests due within the stage `x` seconds into it.
    fn count(&self, x: f64) -> f64 {
        let d = self.t1 - self.t0;
        let x = x.clamp(0.0, d);
        self.r0 * x + (self.r1 - self.r0) / (2.0 * d) * x * x
    }
}

impl Stages {
    /// Stages as (duration, target rate). Durations must be positive and rates finite and not
    /// negative (the config checks; here they are clamped).
    pub fn new(stages: &[(Duration, f64)]) -> Stages {
        let mut segs = Vec::with_capacity(stages.len());
        let (mut t, mut r, mut n) = (0.0, 0.0, 0.0);
        for &(d, target) in stages {
            let d = d.as_secs_f64().max(1e-9);
            let seg = Seg {
                t0: t,
                t1: t + d,
                r0: r,
                r1: target.max(0.0),
                n0: n,
            };
            n += seg.count(d);
            t += d;
            r = seg.r1;
            segs.push(seg);
        }
        Stages { segs }
    }

    /// The schedule's length.
    pub fn duration(&self) -> Duration {
        Duration::from_secs_f64(self.segs.last().map_or(0.0, |s| s.t1))
    }

    /// The rate at `t` seconds.
    pub fn rate_at(&self, t: f64) -> f64 {
        self.segs.iter().find(|s| t < s.t1).map_or(0.0, |s| {
            s.r0 + (s.r1 - s.r0) * (t - s.t0).max(0.0) / (s.t1 - s.t0)
        })
    }

    /// `N(t)`: requests due by `t` seconds (all of them after the last stage).
    pub fn count(&self, t: f64) -> f64 {
        match self.segs.iter().find(|s| t < s.t1) {
            Some(s) => s.n0 + s.count(t - s.t0),
            None => self.total(),
        }
    }

    /// All the requests of the schedule.
    pub fn total(&self) -> f64 {
        self.segs
            .last()
            .map_or(0.0, |s| s.n0 + s.count(s.t1 - s.t0))
    }

    /// When `N(t)` reaches `n` (None: the schedule ends first).
    pub fn time_of(&self, n: f64) -> Option<f64> {
        let s = self.segs.iter().find(|s| n < s.n0 + s.count(s.t1 - s.t0))?;
        let c = n - s.n0;
        let d = s.t1 - s.t0;
        // r0 x + a x^2 = c with a = (r1 - r0) / 2d, solved in the form that stays exact when a
        // is 0 (a constant stage) and when r0 is 0 (a ramp from nothing).
        let a = (s.r1 - s.r0) / (2.0 * d);
        let disc = (s.r0 * s.r0 + 4.0 * a * c).max(0.0);
        let den = s.r0 + disc.sqrt();
        let x = if den > 0.0 { 2.0 * c / den } else { 0.0 };
        Some(s.t0 + x.clamp(0.0, d))
    }
}

/// One worker's share of the schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct Pacer {
    pub rate: Rate,
    /// Of every `workers` requests of the run, number `index` is this worker's.
    pub workers: u32,
    pub index: u32,
}

/// What the pacer says to do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// Request number `sent` is due (or overdue); it was intended to go out at `intended`.
    SendNow { intended: Duration },
    /// Nothing is due before this time.
    WaitUntil(Duration),
    /// The schedule has no more requests for this worker.
    Done,
}

impl Pacer {
    /// Worker `index` of `workers` sharing the run's rate.
    pub fn split(rate: Rate, workers: usize, index: usize) -> Pacer {
        Pacer {
            rate,
            workers: workers.max(1) as u32,
            index: index as u32,
        }
    }

    /// The run's request number of this worker's request `k`.
    fn nth(&self, k: u64) -> f64 {
        k as f64 * f64::from(self.workers) + f64::from(self.index)
    }

    /// When this worker's request `k` (counting from 0) is due, from the schedule's start
    /// (None: never, the schedule ends first).
    pub fn intended(&self, k: u64) -> Option<Duration> {
        let n = self.nth(k);
        let t = match &self.rate {
            Rate::Constant(r) => n / r,
            Rate::Stages(s) => s.time_of(n)?,
        };
        Some(Duration::from_secs_f64(t))
    }

    /// Given the time since the start and how many requests this worker sent, what to do now.
    pub fn next(&self, elapsed: Duration, sent: u64) -> Pace {
        match self.intended(sent) {
            None => Pace::Done,
            Some(intended) if intended <= elapsed => Pace::SendNow { intended },
            Some(intended) => Pace::WaitUntil(intended),
        }
    }

    /// How many of this worker's requests are due by `elapsed` (the schedule's count, not what
    /// was sent): those whose run number `n` is at most `N(elapsed)` (and, with stages, below
    /// the schedule's total).
    pub fn due(&self, elapsed: Duration) -> u64 {
        let t = elapsed.as_secs_f64();
        let last = match &self.rate {
            Rate::Constant(r) => (t * r).floor(),
            Rate::Stages(s) => s.count(t).floor().min(s.total().ceil() - 1.0),
        };
        let x = (last - f64::from(self.index)) / f64::from(self.workers);
        if x < 0.0 {
            0
        } else {
            x.floor() as u64 + 1
        }
    }
}

#[cfg(test)]
mod tests;

//! The result seam: the engine reports each second (and its phase changes) to a [`Sink`]; the
//! CLI's progress line and the lab consume the same records as the final result's series.

use serde::{Deserialize, Serialize};
use std::time::Instant;

/// The part of the run a record belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Load runs, measurements are discarded.
    Warmup,
    /// The measured window.
    Measure,
    /// Load stopped.
    Done,
}

/// One second of the run, merged over all workers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SecondStats {
    /// Seconds since the phase began (the first second is 0).
    pub second: u64,
    pub phase: Phase,
    /// Valid responses completed in this second.
    pub responses: u64,
    /// Errors of every class in this second.
    pub errors: u64,
    pub requests_written: u64,
    pub bytes_read: u64,
    /// Latency percentiles of this second's responses, in microseconds (0 without responses).
    pub p50_us: u64,
    pub p99_us: u64,
    /// How long this record covers, in seconds (the last one of a run may be partial).
    pub span_s: f64,
}

/// Receives per-second records while a run goes on. Called from the thread that called
/// [`crate::run`], never from a worker, so a slow sink cannot stall the load.
pub trait Sink: Sync {
    /// One second (or the partial last second) of a phase.
    fn second(&self, _s: &SecondStats) {}
    /// The run entered `phase` at `at`.
    fn phase(&self, _phase: Phase, _at: Instant) {}
}

/// A sink that ignores everything.
#[derive(Debug, Default, Clone, Copy)]
pub struct NullSink;

impl Sink for NullSink {}

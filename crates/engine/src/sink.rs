//! The result seam: the engine reports each second (and its phase changes) to a [`Sink`]; the
//! CLI's progress line, live view and metrics endpoint and the lab consume the same records as
//! the final result's series.

use crate::recorder::Interval;
use barrage_model::load::Errors;
use hdrhistogram::Histogram;
use std::time::Instant;

/// The part of the run a record belongs to, and one second of the run merged over all workers:
/// the document's types.
pub use barrage_model::load::{Phase, Second as SecondStats};

/// One second as the document's series has it, and what the series does not keep (for live
/// views and metrics): the second's latency histogram, errors by class, status codes, bytes
/// written, and the gauges at its end. In the measured window the seconds add up to the run's
/// totals (valid responses, errors by class, status codes, bytes read).
#[derive(Debug, Clone, Copy)]
pub struct Live<'a> {
    pub second: &'a SecondStats,
    interval: &'a Interval,
}

impl<'a> Live<'a> {
    pub(crate) fn new(second: &'a SecondStats, interval: &'a Interval) -> Self {
        Live { second, interval }
    }
    /// Latency of this second's valid responses, in µs (the run's histograms' bounds).
    pub fn latency(&self) -> &'a Histogram<u64> {
        &self.interval.latency
    }
    /// Errors by class.
    pub fn errors(&self) -> &'a Errors {
        &self.interval.errors
    }
    /// Complete responses by status code (valid or not), in the order first seen.
    pub fn status(&self) -> &'a [(u16, u64)] {
        &self.interval.status
    }
    pub fn bytes_written(&self) -> u64 {
        self.interval.bytes_written
    }
    /// Requests written and not yet answered or failed, at the second's end.
    pub fn in_flight(&self) -> u64 {
        self.interval.in_flight
    }
    /// Connections open and ready, at the second's end.
    pub fn connections(&self) -> u64 {
        self.interval.open
    }
}

/// Receives per-second records while a run goes on. Called from the thread that called
/// [`crate::run`], never from a worker, so a slow sink cannot stall the load.
pub trait Sink: Sync {
    /// One second (or the partial last second) of a phase.
    fn second(&self, _s: &SecondStats) {}
    /// The same second with its details; by default passes the second on to [`Sink::second`]
    /// (a sink that overrides this one receives no `second` call of its own).
    fn live(&self, l: &Live<'_>) {
        self.second(l.second);
    }
    /// The run entered `phase` at `at`.
    fn phase(&self, _phase: Phase, _at: Instant) {}
}

/// A sink that ignores everything.
#[derive(Debug, Default, Clone, Copy)]
pub struct NullSink;

impl Sink for NullSink {}

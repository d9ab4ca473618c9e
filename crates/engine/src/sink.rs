//! The result seam: the engine reports each second (and its phase changes) to a [`Sink`]; the
//! CLI's progress line and the lab consume the same records as the final result's series.

use std::time::Instant;

/// The part of the run a record belongs to, and one second of the run merged over all workers:
/// the document's types.
pub use barrage_model::load::{Phase, Second as SecondStats};

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

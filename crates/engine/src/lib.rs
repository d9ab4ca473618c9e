//! barrage's load engine: HTTP/1.1 and HTTP/2 load in closed loop (like wrk) or open loop (a
//! constant rate or a schedule of stages, coordinated omission corrected, like wrk2 and k6),
//! with pipelining, keep-alive on or off, timeouts with reconnects, many targets (vegeta's
//! targets files) and HDR latency histograms.
//!
//! Architecture: one thread per worker, each owning its connections and a mio event loop (no
//! locks on the hot path); the calling thread coordinates, merging each worker's per-second
//! intervals for the [`Sink`] and their recorders into the [`RunResult`]. The HTTP codec is
//! `barrage-wire`'s.

mod call;
mod config;
mod error;
mod pacer;
mod plan;
pub mod recorder;
mod reflect;
mod result;
mod run;
mod script;
mod setup;
mod sink;
pub mod targets;
mod timer;
mod tls;
mod transport;
mod worker;

pub use barrage_model::load::ErrorClass;
pub use barrage_model::load::{LoadError, Protocol};
pub use config::{parse_url, Config, ConfigError, ResolvedRequest, Target, ValidConfig, Validate};
pub use error::EngineError;
pub use pacer::{Pace, Pacer, Rate, Stages};
pub use recorder::LatencySummary;
pub use result::{RateReport, RunResult, Timing, SCHEMA};
pub use run::run;
pub use script::{ScriptError, ScriptOutput, ScriptPlan};
pub use sink::{Live, NullSink, Phase, SecondStats, Sink};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A cheap, clonable cancellation flag: set it from anywhere (a Ctrl-C handler, the lab) and the
/// run stops at its next wakeup and still returns what it measured.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn new() -> Self {
        Cancel::default()
    }
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
    /// The flag itself, for what watches it outside the engine (a script's hooks).
    pub(crate) fn flag(&self) -> Arc<AtomicBool> {
        self.0.clone()
    }
}

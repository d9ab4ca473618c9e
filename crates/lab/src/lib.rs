//! barrage's lab: runs studies of contenders (servers or client programs in any language), drives
//! identical load through the engine, samples each contender's whole process tree (with
//! `barrage-proc`), repeats trials, sweeps parameters and writes the results document of
//! `barrage-model`, whose statistics it computes after every trial.

/// The process tools, re-exported for the lab's users.
pub use barrage_proc::{sample, supervise};

pub mod results;
pub mod runner;
pub mod study;
pub mod sweep;

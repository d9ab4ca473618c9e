//! barrage's lab: runs studies of contenders (servers or client programs in any language), drives
//! identical load through the engine, samples each contender's whole process tree, repeats trials,
//! sweeps parameters and computes honest statistics.

pub mod sample;
pub use barrage_model::stats;
pub mod supervise;

// Study files, sweeps, trials and results (lab helper 2).
pub mod results;
pub mod runner;
pub mod study;
pub mod sweep;

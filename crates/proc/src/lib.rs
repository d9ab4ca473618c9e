//! barrage's process tools, general and independent of studies:
//!
//! - [`supervise`]: start a command in its own process group (pinned, memory-limited), capture
//!   its output, probe readiness, stop it (TERM, then KILL after a grace) and reap it, also on
//!   Ctrl-C; classify how it ended.
//! - [`sample`]: sample a process tree's CPU, memory, processes and threads from /proc at a fixed
//!   interval.
//!
//! The data they produce (`Samples`, `Exit`, ...) is declared in `barrage_model::process`.

pub mod sample;
pub mod supervise;

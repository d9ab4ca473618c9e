//! The cli crate's integration tests in one binary: one module per former test file
//! (one link instead of one per file; see docs/architecture.md, "Tests"). Tests that
//! need a process of their own (a global allocator that counts, the process's RSS, their
//! own `main`) stay in files of their own beside this folder.

mod cluster;
mod compare;
mod history;
mod live_view;
mod manual;
mod merge;
mod metrics;
mod netns;
mod report_compare;
mod run_kill;
mod serve;
mod serve_tls;
mod thresholds;
mod verdicts;
mod wrk_scripts;

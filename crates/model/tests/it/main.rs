//! The model crate's integration tests in one binary: one module per former test file
//! (one link instead of one per file; see docs/architecture.md, "Tests"). Tests that
//! need a process of their own (a global allocator that counts, the process's RSS, their
//! own `main`) stay in files of their own beside this folder.

mod committed_documents;
mod dropped_cpu;
mod figure_summary;
mod short_runs;

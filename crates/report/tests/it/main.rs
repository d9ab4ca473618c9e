//! The report crate's integration tests in one binary: one module per former test file
//! (one link instead of one per file; see docs/architecture.md, "Tests"). Tests that
//! need a process of their own (a global allocator that counts, the process's RSS, their
//! own `main`) stay in files of their own beside this folder.

mod chromium;
#[path = "../common/mod.rs"]
mod common;
mod compare_schema;
mod figures;
mod golden;
mod load_family;
mod machine;
mod plotted_values;
mod protocol_figures;
mod pss;
mod readme_questions;

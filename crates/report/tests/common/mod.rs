//! Shared by the report's integration tests: the fixtures (real results made by
//! `tests/fixtures/make.sh`) and the cases rendered from them.

#![allow(dead_code)]

use barrage_report::{build, parse, render, Format, Input};
use std::path::PathBuf;

pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// (case name, fixture files): one study, a study with failed trials, a single-trial study, a
/// study of variants, two studies compared, two load documents.
pub const CASES: &[(&str, &[&str])] = &[
    ("server-study", &["server-study.json"]),
    ("client-failed", &["client-failed.json"]),
    ("single-trial", &["single-trial.json"]),
    ("variants", &["variants.json"]),
    ("compare", &["server-study.json", "server-study-b.json"]),
    ("overload", &["overload.json"]),
    ("load", &["load-keepalive.json", "load-close.json"]),
    ("load-open", &["load-open.json"]),
];

pub fn inputs(files: &[&str]) -> Vec<(String, Input)> {
    files
        .iter()
        .map(|f| {
            let text =
                std::fs::read_to_string(fixtures().join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
            (
                f.to_string(),
                parse(&text).unwrap_or_else(|e| panic!("{f}: {e}")),
            )
        })
        .collect()
}

pub fn report(files: &[&str], format: Format) -> String {
    let page = build(&inputs(files)).expect("report builds");
    render(&page, format, "barrage test")
}

//! barrage's model: the typed documents every part of barrage writes and reads, declared once.
//!
//! - [`load`]: the `barrage.load/1` document (one load run), and the one declaration of every
//!   load option (`load::OPTIONS`: the `Config`, flags, study fields and schema come from it).
//! - [`study`]: the `barrage.study/2` results document (a study's trials and statistics).
//! - [`process`]: what a contender's process tree did (samples, exit).
//! - [`metric`]: the metric registry (key, label, unit, direction, reader, format); [`figure`]:
//!   the figures a study declares beside them.
//! - [`stats`]: the statistics (summaries, intervals, tests, comparisons); [`summary`]: those of
//!   a results document, from its trials.
//! - [`busy`]: CPU other programs took while a trial was measured, and the study's policy.
//! - [`plan`]: trials per contender by power from a pilot's spread (`barrage plan`).
//! - [`network`]: a point's emulated network and what the link emulator did in a trial.
//! - [`compare`]: the comparison of two results (`barrage.compare/1`): cells paired, tested,
//!   Holm-corrected, judged against a noise floor; one verdict per row for `barrage compare`,
//!   `barrage report A B` and its answer block.
//! - [`merge`]: load documents of one load (shards) added into one, exactly.
//! - [`question`]: a study's questions (its original's claims) and their answers.
//! - [`threshold`]: k6-style thresholds (`p99 < 10ms`) and their evaluation.
//! - [`units`]: the one grammar of durations and sizes, and the serde forms of durations.
//! - [`hdr`], [`time`]: histogram encoding and RFC 3339 times; [`fields`]: the field names a
//!   document struct reads (for tests that hold two declarations to each other).
//!
//! No I/O: the lab writes these values, the report and the CLI read them.

pub mod busy;
pub mod compare;
pub mod fields;
pub mod figure;
pub mod hdr;
pub mod load;
pub mod merge;
pub mod metric;
pub mod network;
pub mod plan;
pub mod process;
pub mod question;
pub mod rng;
pub mod stats;
pub mod study;
pub mod summary;
pub mod threshold;
pub mod time;
pub mod units;
pub mod verdict;

use serde::{Deserialize, Serialize};

/// Which document a result is, and so which schema it has: what `barrage compare` compared and
/// what a history row holds (stored and serialised as `load` and `study`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocKind {
    /// A `barrage load` run: `barrage.load/1`, a single run.
    Load,
    /// A `barrage run` study: its `results.json` (`barrage.study/2`), with trials.
    Study,
}

impl DocKind {
    /// The name stored in a history and shown in listings.
    pub fn as_str(self) -> &'static str {
        match self {
            DocKind::Load => "load",
            DocKind::Study => "study",
        }
    }

    /// The kind stored as `s`, if this barrage knows it.
    pub fn parse(s: &str) -> Option<DocKind> {
        match s {
            "load" => Some(DocKind::Load),
            "study" => Some(DocKind::Study),
            _ => None,
        }
    }
}

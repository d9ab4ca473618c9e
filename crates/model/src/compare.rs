//! The comparison of two results: a baseline and a new result of the same workload, metric by
//! metric, with one verdict per row. Pure, like [`crate::merge`]: documents in, a [`Comparison`]
//! value out. `barrage compare` (its table, Markdown, the `barrage.compare/1` JSON and its exit
//! status), the comparison section of `barrage report A B` and its answer block all render this
//! one value, so the same two files get the same verdict wherever they are compared.
//!
//! - Two `barrage load --json` documents are single runs: each figure is tested against both
//!   runs' own intervals (the document's `intervals`), Holm-corrected over the figures; where an
//!   interval is open where it faces the other run and the change is beyond the noise floor,
//!   the figure cannot be judged ([`loads`]; never "no change").
//! - Two study results are compared per (point, contender) present in both ([`studies`]), on
//!   every metric the lab compares contenders on (the registry's `compared` metrics and the
//!   study's figures, plus the error rate): the medians of each side's successful trials, and
//!   the lab's test of the new trials against the old (`stats::compare_worded`: Welch's t-test
//!   on log values, or Mann-Whitney where a value is 0), with the 95% interval of the ratio.
//! - Several load runs against one baseline (`barrage report` of three or more documents) are
//!   one family ([`load_family`]): every figure of every pair Holm-corrected together, as a
//!   study's comparisons are.
//! - [`turned`] reads a comparison of A with B as B with A (a table row speaks from its side).
//! - [`judge_samples`] is the core both use, and any other pairing of two samples of trials
//!   (the answer block's close and keep-alive pairs): one test per pair, the p-values of one
//!   comparison Holm-corrected together (`stats::adjust`), then the noise floor.
//!
//! A regression is a change in the worse direction beyond the noise floor that is also
//! significant, where a test is possible: a significant 1% slowdown is noise for CI purposes,
//! and a 30% slowdown the test cannot confirm is not called a regression either.

mod loads;
mod studies;
#[cfg(test)]
mod tests;
mod turn;

use crate::load::LoadDoc;
use crate::metric::{Better, Metric};
use crate::stats::{self, Interval, TestMethod};
use crate::study::Results;
pub use crate::DocKind;
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use loads::{load_family, load_trials, loads};
pub use studies::{shared_cells, studies};
pub use turn::{turned, turned_interval, turned_ratio};

/// Schema name and version of the comparison document.
pub const SCHEMA: &str = "barrage.compare/1";

/// The noise floor when none is given: changes within ±5% are not called changes.
pub const DEFAULT_NOISE: f64 = 0.05;

/// Choices that shape the comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// The noise floor, a fraction (0.05 = ±5%): a relative change no larger than this is not
    /// called a change, significant or not.
    pub noise: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            noise: DEFAULT_NOISE,
        }
    }
}

/// Why two results cannot be compared.
#[derive(Debug, Error, PartialEq)]
pub enum CompareError {
    #[error("cannot compare {base} ({base_kind}) with {new} ({new_kind}): both must be load runs or both study results")]
    Kinds {
        base: String,
        base_kind: &'static str,
        new: String,
        new_kind: &'static str,
    },
    #[error("{base} and {new} have no contender at a point in common: nothing to compare")]
    Disjoint { base: String, new: String },
    #[error("the noise floor must be a finite fraction, 0 or more (got {0})")]
    Noise(f64),
}

/// One side of a comparison: a load run or a study's results.
#[derive(Debug, Clone, Copy)]
pub enum Doc<'a> {
    Load(&'a LoadDoc),
    Study(&'a Results),
}

impl Doc<'_> {
    fn kind_name(&self) -> &'static str {
        match self {
            Doc::Load(_) => "a load run",
            Doc::Study(_) => "study results",
        }
    }
}

/// What a row's change amounts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Worse beyond the noise floor, and significant where a test was possible.
    Regression,
    /// Better beyond the noise floor, and significant where a test was possible.
    Improvement,
    /// Beyond the noise floor, but the test does not show the change is real.
    NotSignificant,
    /// Within the noise floor: not called a change, whatever a test says.
    WithinNoise,
    /// Shown for context, not judged: error counts (the error rate is judged) and a run's
    /// maximum latency (one request).
    NotJudged,
    /// One side has no value (a study contender that failed every trial on one side is a
    /// regression or an improvement instead).
    Missing,
    /// Single load runs, "cannot judge": the figure changed beyond the noise floor, but a run's
    /// interval of it is open where it faces the other run (p99.9 of a short run may lie beyond
    /// its slowest response), so its data cannot tell that change from chance. Never "no
    /// change": `barrage compare --fail-on regression` exits with a code of its own for it.
    /// (Written `not_enough_data`, its name in `barrage.compare/1`.)
    NotEnoughData,
}

impl Verdict {
    /// Whether the row is called a change (a regression or an improvement).
    pub fn is_change(self) -> bool {
        matches!(self, Verdict::Regression | Verdict::Improvement)
    }
}

/// What a test said of a row, where one was possible.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Evidence {
    /// No test: single runs, or fewer than 2 trials on a side.
    Untested,
    Significant,
    NotSignificant,
}

/// The test of one row of a study comparison: the new trials against the old.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Test {
    pub method: TestMethod,
    /// Successful trials with a value on each side.
    pub trials_old: usize,
    pub trials_new: usize,
    /// 95% interval of the ratio new/old (studies: of the geometric means, Welch on logs;
    /// load runs: from both runs' intervals); `None` with fewer than 2 trials on a side or a
    /// value of 0.
    pub ratio_ci95: Option<Interval>,
    /// The same at the level the corrected p is judged at (`stats::holm_level`), and that
    /// level: it excludes 1 exactly when the row is significant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_ci: Option<Interval>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_level: Option<f64>,
    /// Two-sided p-value, and the same Holm-corrected over the comparison's tests (the one
    /// judged against α).
    pub p: f64,
    pub p_adjusted: Option<f64>,
    /// Whether any test could reach significance at these trial counts.
    pub testable: bool,
    pub significant: bool,
}

impl Test {
    /// The p-value judged: the corrected one where the test was part of the family.
    pub fn p_judged(&self) -> f64 {
        self.p_adjusted.unwrap_or(self.p)
    }

    /// The interval to show beside the judged p, and its level: the corrected one where there
    /// is one, else the 95% one.
    pub fn shown_interval(&self) -> Option<(Interval, f64)> {
        match (self.ratio_ci, self.ci_level) {
            (Some(i), Some(l)) => Some((i, l)),
            _ => self.ratio_ci95.map(|i| (i, 0.95)),
        }
    }
}

/// One metric of one (point, contender): old, new, change, verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The point's label (studies with several points), else empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub point: String,
    /// The contender (studies), else empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub contender: String,
    /// The registry's key (its unit is in the name: `latency_p50_us`, `rps`).
    pub metric: String,
    pub label: String,
    pub better: Better,
    /// Stored units (req/s, µs, %, bytes, ...): the run's figure, or a study's median.
    pub old: Option<f64>,
    pub new: Option<f64>,
    /// The same for people ("1.58k req/s", "5.12 ms").
    pub old_text: String,
    pub new_text: String,
    /// new / old − 1; `None` when a side is missing or the old value is 0 and the new is not.
    pub change: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<Test>,
    pub verdict: Verdict,
}

impl Row {
    /// Whether the row's verdict was reached without a test (too few trials on a side).
    pub fn untested(&self) -> bool {
        self.test.as_ref().is_some_and(|t| !t.testable)
    }
}

/// The comparison of a new result with its baseline: the `barrage.compare/1` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub schema: String,
    pub kind: DocKind,
    /// How the two sides are named (file or directory names).
    pub base: String,
    pub new: String,
    /// The noise floor (fraction) and the significance level.
    pub noise: f64,
    pub alpha: f64,
    pub regressions: usize,
    pub improvements: usize,
    /// Rows that cannot be judged ([`Verdict::NotEnoughData`]): a gate must not pass them as
    /// "no change". Absent in documents written before it (read as 0).
    #[serde(default)]
    pub inconclusive: usize,
    pub rows: Vec<Row>,
    /// What the reader should know: single runs untested, loads that differ, sides missing.
    pub notes: Vec<String>,
    /// The two sides ran on different machines: said first, before any row (studies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machines: Option<String>,
}

impl Comparison {
    /// The rows that cannot be judged: changed beyond the noise floor with an interval open
    /// where it faces the other run.
    pub fn unjudged(&self) -> impl Iterator<Item = &Row> {
        self.rows
            .iter()
            .filter(|r| r.verdict == Verdict::NotEnoughData)
    }

    /// The rows called regressions.
    pub fn regressed(&self) -> impl Iterator<Item = &Row> {
        self.rows
            .iter()
            .filter(|r| r.verdict == Verdict::Regression)
    }

    /// The row of `metric` for `contender` at `point`.
    pub fn row(&self, point: &str, contender: &str, metric: &str) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.point == point && r.contender == contender && r.metric == metric)
    }

    /// How many rows were tested together (the family Holm corrected over).
    pub fn tests(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.test.as_ref().is_some_and(|t| t.p_adjusted.is_some()))
            .count()
    }
}

/// Compares `new` with `base` (each with its label): two load documents or two study results.
pub fn compare(
    base: (&str, Doc),
    new: (&str, Doc),
    options: &Options,
) -> Result<Comparison, CompareError> {
    match (base.1, new.1) {
        (Doc::Load(b), Doc::Load(n)) => loads((base.0, b), (new.0, n), options),
        (Doc::Study(b), Doc::Study(n)) => studies((base.0, b), (new.0, n), options),
        (b, n) => Err(CompareError::Kinds {
            base: base.0.to_string(),
            base_kind: b.kind_name(),
            new: new.0.to_string(),
            new_kind: n.kind_name(),
        }),
    }
}

/// The relative change from `old` to `new`: new / old − 1 (0 when equal, infinite when `old`
/// is 0 and `new` is not: something that was not there at all, beyond any floor).
pub fn relative(old: f64, new: f64) -> f64 {
    if old == new {
        0.0
    } else if old == 0.0 {
        f64::INFINITY * new.signum()
    } else {
        new / old - 1.0
    }
}

/// The verdict on a relative `change` of a metric where `better` is better, against the noise
/// floor `noise` (a fraction) and what a test said.
pub fn judge(change: f64, better: Better, noise: f64, evidence: Evidence) -> Verdict {
    if change.is_nan() || change.abs() <= noise {
        return Verdict::WithinNoise;
    }
    let worse = match better {
        Better::Higher => change < 0.0,
        Better::Lower => change > 0.0,
    };
    match evidence {
        Evidence::NotSignificant => Verdict::NotSignificant,
        Evidence::Untested | Evidence::Significant if worse => Verdict::Regression,
        Evidence::Untested | Evidence::Significant => Verdict::Improvement,
    }
}

fn check(o: &Options) -> Result<(), CompareError> {
    if o.noise.is_finite() && o.noise >= 0.0 {
        Ok(())
    } else {
        Err(CompareError::Noise(o.noise))
    }
}

/// A fraction as a percentage without trailing zeros: 0.05 -> "5%", 0.025 -> "2.5%".
pub fn percent(f: f64) -> String {
    let s = format!("{:.3}", f * 100.0);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}%")
}

/// Two samples of trial values of one metric to judge: a row of a comparison before its test.
#[derive(Debug, Clone)]
pub struct Sample {
    pub point: String,
    pub contender: String,
    pub metric: Metric,
    /// The successful trials' values, stored units, on each side.
    pub old: Vec<f64>,
    pub new: Vec<f64>,
    /// The verdict when a side has no value because every trial there failed (a crash on the
    /// new side is a regression, not a gap).
    pub failed: Option<Verdict>,
}

/// The rows of `samples` judged together: each tested (new against old), the tests of the
/// `compared` metrics Holm-corrected as one family, then each verdict against the noise floor.
/// A row whose trials all have one and the same value on both sides stays out of the family:
/// no test could find a difference there, and it would only dilute the others.
pub fn judge_samples(samples: Vec<Sample>, noise: f64) -> Vec<Row> {
    let mut pending: Vec<(Row, Option<stats::Comparison>, Sample, bool)> = samples
        .into_iter()
        .map(|s| {
            let m = &s.metric;
            let mut r = row(m, stats::median(&s.old), stats::median(&s.new));
            r.point = s.point.clone();
            r.contender = s.contender.clone();
            let cmp = stats::compare_worded(&s.new, &s.old, m.higher_is_better(), &m.wording());
            let constant = !s.old.is_empty() && s.old.iter().chain(&s.new).all(|v| *v == s.old[0]);
            (r, cmp, s, constant)
        })
        .collect();
    let mut family: Vec<(&mut stats::Comparison, stats::Wording)> = pending
        .iter_mut()
        .filter(|(_, _, s, constant)| s.metric.compared && !constant)
        .filter_map(|(_, c, s, _)| c.as_mut().map(|c| (c, s.metric.wording())))
        .collect();
    stats::adjust(&mut family);
    pending
        .into_iter()
        .map(|(mut r, cmp, s, _)| {
            let m = &s.metric;
            let evidence = match &cmp {
                Some(c) if c.testable && c.significant => Evidence::Significant,
                Some(c) if c.testable => Evidence::NotSignificant,
                _ => Evidence::Untested,
            };
            r.verdict = verdict(m, r.old, r.new, evidence, noise);
            if r.verdict == Verdict::Missing && m.compared {
                r.verdict = s.failed.unwrap_or(Verdict::Missing);
            }
            // A row shown for context carries no test: its p would read as a claim.
            r.test = cmp.filter(|_| m.compared).map(|c| Test {
                method: c.test,
                trials_old: c.n_b,
                trials_new: c.n_a,
                ratio_ci95: c.ratio_ci95,
                ratio_ci: c.ratio_ci,
                ci_level: c.ci_level,
                p: c.p_value,
                p_adjusted: c.p_adjusted,
                testable: c.testable,
                significant: c.significant,
            });
            r
        })
        .collect()
}

/// A row of `m` with its values and change, not yet judged.
fn row(m: &Metric, old: Option<f64>, new: Option<f64>) -> Row {
    let text = |v: Option<f64>| v.map_or("-".to_string(), |v| m.show(v));
    Row {
        point: String::new(),
        contender: String::new(),
        metric: m.key.to_string(),
        label: m.label.to_string(),
        better: m.better,
        old,
        new,
        old_text: text(old),
        new_text: text(new),
        change: old
            .zip(new)
            .map(|(o, n)| relative(o, n))
            .filter(|c| c.is_finite()),
        test: None,
        verdict: Verdict::Missing,
    }
}

fn verdict(
    m: &Metric,
    old: Option<f64>,
    new: Option<f64>,
    evidence: Evidence,
    noise: f64,
) -> Verdict {
    match (old, new) {
        _ if !m.compared => Verdict::NotJudged,
        (Some(o), Some(n)) => judge(relative(o, n), m.better, noise, evidence),
        _ => Verdict::Missing,
    }
}

fn finish(
    kind: DocKind,
    base: &str,
    new: &str,
    options: &Options,
    rows: Vec<Row>,
    notes: Vec<String>,
) -> Comparison {
    let count = |v: Verdict| rows.iter().filter(|r| r.verdict == v).count();
    Comparison {
        schema: SCHEMA.to_string(),
        kind,
        base: base.to_string(),
        new: new.to_string(),
        noise: options.noise,
        alpha: stats::ALPHA,
        regressions: count(Verdict::Regression),
        improvements: count(Verdict::Improvement),
        inconclusive: count(Verdict::NotEnoughData),
        rows,
        notes,
        machines: None,
    }
}

//! `barrage compare`: a baseline and a new result of the same workload, metric by metric: old,
//! new, the change, and a verdict against a noise floor. A [`Diff`] is a value; [`render`]
//! lays it out as a terminal table, Markdown for a pull request, or JSON.
//!
//! - Two `barrage load --json` documents are single runs: there are no trials, so no interval
//!   and no test; a change beyond the noise floor is called on the floor alone.
//! - Two study results are compared per (point, contender) present in both, on every metric the
//!   lab compares contenders on (the registry's `compared` metrics and the study's figures,
//!   plus the error rate): the medians of each side's successful trials, and the lab's test of
//!   the new trials against the old (`stats::compare_worded`: Welch's t-test on log values, or
//!   Mann-Whitney where a value is 0), with the 95% interval of the ratio. The p-values of one
//!   comparison are Holm-corrected together (`stats::adjust`, as a study's own comparisons are),
//!   so a `--fail-on regression` gate does not fire on one of many metrics by chance.
//!
//! A regression is a change in the worse direction beyond the noise floor that is also
//! significant, where a test is possible: a significant 1% slowdown is noise for CI purposes,
//! and a 30% slowdown the test cannot confirm is not called a regression either.

pub mod render;
#[cfg(test)]
mod tests;

use crate::study_section::{cells_order, point_label};
use crate::Input;
use barrage_model::load::LoadDoc;
use barrage_model::metric::{self, Better, Metric};
use barrage_model::stats::{self, Interval, TestMethod};
use barrage_model::study::Results;
use serde::Serialize;
use thiserror::Error;

/// Schema name and version of the JSON output.
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
pub enum DiffError {
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

/// What was compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Two `barrage load --json` documents (single runs).
    Load,
    /// Two study results (`results.json`), with trials.
    Study,
}

/// What a row's change amounts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Test {
    pub method: TestMethod,
    /// Successful trials with a value on each side.
    pub trials_old: usize,
    pub trials_new: usize,
    /// 95% interval of the ratio new/old (of the geometric means, Welch on logs); `None` with
    /// fewer than 2 trials on a side or a value of 0.
    pub ratio_ci95: Option<Interval>,
    /// Two-sided p-value, and the same Holm-corrected over the comparison's tests (the one
    /// judged against α).
    pub p: f64,
    pub p_adjusted: Option<f64>,
    /// Whether any test could reach significance at these trial counts.
    pub testable: bool,
    pub significant: bool,
}

/// One metric of one (point, contender): old, new, change, verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The point's label (studies with several points), else empty.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub point: String,
    /// The contender (studies), else empty.
    #[serde(skip_serializing_if = "String::is_empty")]
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test: Option<Test>,
    pub verdict: Verdict,
}

/// The comparison of a new result with its baseline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diff {
    pub schema: String,
    pub kind: Kind,
    /// How the two sides are named (file or directory names).
    pub base: String,
    pub new: String,
    /// The noise floor (fraction) and the significance level.
    pub noise: f64,
    pub alpha: f64,
    pub regressions: usize,
    pub improvements: usize,
    pub rows: Vec<Row>,
    /// What the reader should know: single runs untested, loads that differ, sides missing.
    pub notes: Vec<String>,
}

impl Diff {
    /// The rows called regressions.
    pub fn regressed(&self) -> impl Iterator<Item = &Row> {
        self.rows
            .iter()
            .filter(|r| r.verdict == Verdict::Regression)
    }
}

/// Compares `new` with `base` (each with its label): two load documents or two study results.
pub fn compare(
    base: (&str, &Input),
    new: (&str, &Input),
    options: &Options,
) -> Result<Diff, DiffError> {
    match (base.1, new.1) {
        (Input::Load(b), Input::Load(n)) => loads((base.0, b), (new.0, n), options),
        (Input::Study(b), Input::Study(n)) => studies((base.0, b), (new.0, n), options),
        (b, n) => Err(DiffError::Kinds {
            base: base.0.to_string(),
            base_kind: kind_name(b),
            new: new.0.to_string(),
            new_kind: kind_name(n),
        }),
    }
}

fn kind_name(i: &Input) -> &'static str {
    match i {
        Input::Load(_) => "a load run",
        Input::Study(_) => "study results",
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

fn check(o: &Options) -> Result<(), DiffError> {
    if o.noise.is_finite() && o.noise >= 0.0 {
        Ok(())
    } else {
        Err(DiffError::Noise(o.noise))
    }
}

/// Two load runs: every figure of [`metric::LOAD`] the documents have, judged by the noise
/// floor alone (single runs have no trials to test).
pub fn loads(
    base: (&str, &LoadDoc),
    new: (&str, &LoadDoc),
    options: &Options,
) -> Result<Diff, DiffError> {
    check(options)?;
    let (b, n) = (base.1, new.1);
    let rows: Vec<Row> = metric::LOAD
        .iter()
        .filter_map(|m| {
            let (old, new) = (metric::load_value(m, b), metric::load_value(m, n));
            (old.is_some() || new.is_some()).then(|| {
                let mut r = row(m, old, new);
                r.verdict = verdict(m, old, new, Evidence::Untested, options.noise);
                r
            })
        })
        .collect();
    let mut notes = vec![format!(
        "Single runs: no trials, so no confidence interval and no significance test; a change beyond the ±{} noise floor is called on the floor alone.",
        render::percent(options.noise)
    )];
    let (cb, cn) = (b.config_summary(), n.config_summary());
    if cb != cn {
        notes.push(format!(
            "The runs differ in their load: {} ran {cb}; {} ran {cn}.",
            base.0, new.0
        ));
    }
    for (label, d) in [(base.0, b), (new.0, n)] {
        if d.cancelled {
            notes.push(format!(
                "{label} was cancelled after {:.2} s: its figures cover a shorter run.",
                d.duration_s
            ));
        }
        if d.rate.as_ref().is_some_and(|r| r.generator_bottleneck) {
            notes.push(format!("{label}: barrage's load generator could not keep the schedule; its figures measure barrage as much as the server."));
        }
    }
    Ok(finish(Kind::Load, base.0, new.0, options, rows, notes))
}

/// A (point, contender) of one study: the point's label, the contender, the point's id.
type Pair = (String, String, usize);

/// The (point label, contender, point id) pairs that ran in `r`.
fn pairs(r: &Results) -> Vec<Pair> {
    cells_order(r)
        .into_iter()
        .filter(|(p, c)| r.trials.iter().any(|t| t.point == *p && &t.contender == c))
        .map(|(p, c)| (point_label(r, p), c, p))
        .collect()
}

/// A study row with the model's comparison (new as A, old as B) until the family of tests is
/// corrected, and the verdict it gets if it is missing because every trial of its (point,
/// contender) failed on one side.
struct Pending<'m> {
    row: Row,
    cmp: Option<stats::Comparison>,
    metric: &'m Metric,
    failed: Option<Verdict>,
    /// Every trial on both sides has one and the same value (no errors, before and after): no
    /// test could find a difference, so it stays out of the family it would only dilute.
    constant: bool,
}

/// The metrics two studies are compared on: what the lab compares contenders on in either
/// (registry metrics and the study's figures), the error rate, and the error count for context.
fn study_metrics(b: &Results, n: &Results) -> Vec<Metric> {
    let primary = metric::primary(b);
    let mut out: Vec<Metric> = Vec::new();
    let listed = metric::of_study(b)
        .into_iter()
        .chain(metric::of_study(n))
        .chain([metric::ERROR_PCT]);
    for m in listed {
        let keep = (m.compared || m.key == metric::ERRORS.key)
            && !barrage_model::summary::fixed_by_design(&m, primary);
        if keep && out.iter().all(|o| o.key != m.key) {
            out.push(m);
        }
    }
    out
}

/// Two study results: per (point, contender) that ran in both, per metric, the medians and the
/// lab's test of the new trials against the old, Holm-corrected over the comparison.
pub fn studies(
    base: (&str, &Results),
    new: (&str, &Results),
    options: &Options,
) -> Result<Diff, DiffError> {
    check(options)?;
    let (b, n) = (base.1, new.1);
    let (pb, pn) = (pairs(b), pairs(n));
    let shared: Vec<(&Pair, &Pair)> = pb
        .iter()
        .filter_map(|x| pn.iter().find(|y| y.0 == x.0 && y.1 == x.1).map(|y| (x, y)))
        .collect();
    if shared.is_empty() {
        return Err(DiffError::Disjoint {
            base: base.0.to_string(),
            new: new.0.to_string(),
        });
    }
    let metrics = study_metrics(b, n);
    let mut notes = Vec::new();
    let mut pending: Vec<Pending> = Vec::new();
    for (x, y) in &shared {
        let (tb, tn) = (b.trials_of(x.2, &x.1), n.trials_of(y.2, &y.1));
        // A contender that failed every trial on one side and not on the other (crashed,
        // OOM, timed out) has no figures there: that is the largest change of all, not a gap.
        let all_failed = |ts: &[&barrage_model::study::Trial]| ts.iter().all(|t| !t.ok);
        let failed = match (all_failed(&tb), all_failed(&tn)) {
            (false, true) => Some((Verdict::Regression, new.0, &tn)),
            (true, false) => Some((Verdict::Improvement, base.0, &tb)),
            _ => None,
        };
        if let Some((v, label, ts)) = failed {
            let why = ts.first().map(|t| t.reason_text()).unwrap_or_default();
            notes.push(format!(
                "Every trial of {} failed in {label} ({why}): its metrics count as {}.",
                where_(&x.0, &x.1),
                if v == Verdict::Regression {
                    "regressions"
                } else {
                    "improvements"
                }
            ));
        }
        for m in &metrics {
            let (vb, vn) = (m.values(tb.iter().copied()), m.values(tn.iter().copied()));
            if vb.is_empty() && vn.is_empty() {
                continue;
            }
            let mut row = row(m, stats::median(&vb), stats::median(&vn));
            row.point = x.0.clone();
            row.contender = x.1.clone();
            pending.push(Pending {
                row,
                cmp: stats::compare_worded(&vn, &vb, m.higher_is_better(), &m.wording()),
                metric: m,
                failed: failed.map(|f| f.0),
                constant: !vb.is_empty() && vb.iter().chain(&vn).all(|v| *v == vb[0]),
            });
        }
    }
    let mut family: Vec<(&mut stats::Comparison, stats::Wording)> = pending
        .iter_mut()
        .filter(|p| p.metric.compared && !p.constant)
        .filter_map(|p| p.cmp.as_mut().map(|c| (c, p.metric.wording())))
        .collect();
    let tested = family.iter().filter(|(c, _)| c.testable).count();
    stats::adjust(&mut family);
    let mut untested = 0;
    let rows: Vec<Row> = pending
        .into_iter()
        .map(|p| {
            let (mut r, cmp, m) = (p.row, p.cmp, p.metric);
            let evidence = match &cmp {
                Some(c) if c.testable && c.significant => Evidence::Significant,
                Some(c) if c.testable => Evidence::NotSignificant,
                _ => Evidence::Untested,
            };
            if m.compared && evidence == Evidence::Untested && cmp.is_some() {
                untested += 1;
            }
            r.verdict = verdict(m, r.old, r.new, evidence, options.noise);
            if r.verdict == Verdict::Missing && m.compared {
                r.verdict = p.failed.unwrap_or(Verdict::Missing);
            }
            // A row shown for context carries no test: its p would read as a claim.
            r.test = cmp.filter(|_| m.compared).map(|c| Test {
                method: c.test,
                trials_old: c.n_b,
                trials_new: c.n_a,
                ratio_ci95: c.ratio_ci95,
                p: c.p_value,
                p_adjusted: c.p_adjusted,
                testable: c.testable,
                significant: c.significant,
            });
            r
        })
        .collect();
    if tested > 0 {
        notes.insert(0, format!(
            "Old and new are the medians of each side's successful trials; the interval is that of the ratio new/old and p that of the lab's test (Welch's t-test on log values; Mann-Whitney where a value is 0), Holm-corrected over the {tested} tests: a change is called when it is beyond the ±{} noise floor and significant (adjusted p < {}).",
            render::percent(options.noise),
            stats::ALPHA
        ));
    }
    if untested > 0 {
        notes.push(format!("{untested} rows have fewer than 2 successful trials on a side: no test is possible, so they are judged by the noise floor alone (marked untested)."));
    }
    if b.study.name != n.study.name {
        notes.push(format!(
            "The results are of different studies ({} vs {}): only the points and contenders they share are compared.",
            b.study.name, n.study.name
        ));
    }
    if b.study.kind != n.study.kind {
        notes.push(format!("The studies are of different kinds ({:?} vs {:?}): only the metrics they share are compared.", b.study.kind, n.study.kind));
    }
    for (label, mine, theirs) in [(base.0, &pb, &pn), (new.0, &pn, &pb)] {
        let only: Vec<String> = mine
            .iter()
            .filter(|x| !theirs.iter().any(|y| y.0 == x.0 && y.1 == x.1))
            .map(|x| where_(&x.0, &x.1))
            .collect();
        if !only.is_empty() {
            notes.push(format!(
                "Only in {label}, not compared: {}.",
                only.join(", ")
            ));
        }
    }
    for (label, d) in [(base.0, b), (new.0, n)] {
        if d.study.quick {
            notes.push(format!(
                "{label} is a --quick run: one short trial per point, made to prove the study runs, not to measure; do not gate on it."
            ));
        }
    }
    if b.study.source != n.study.source && b.study.name == n.study.name {
        notes.push(
            "The two runs' study files differ: the same points may carry different loads.".into(),
        );
    }
    if b.machine.cpu_model != n.machine.cpu_model || b.machine.cpus != n.machine.cpus {
        notes.push(format!(
            "The runs were measured on different machines ({} x{} vs {} x{}): a change may be the machine's.",
            b.machine.cpu_model, b.machine.cpus, n.machine.cpu_model, n.machine.cpus
        ));
    }
    for (label, d) in [(base.0, b), (new.0, n)] {
        if !d.status.is_empty() && d.status != "complete" {
            notes.push(format!(
                "{label} is {} ({} of {} trials): it may lack trials.",
                d.status,
                d.trials.len(),
                d.planned_trials
            ));
        }
    }
    Ok(finish(Kind::Study, base.0, new.0, options, rows, notes))
}

/// "rust-axum at c=64", or the contender alone for a single-point study.
fn where_(point: &str, contender: &str) -> String {
    if point.is_empty() {
        contender.to_string()
    } else {
        format!("{contender} at {point}")
    }
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
    kind: Kind,
    base: &str,
    new: &str,
    options: &Options,
    rows: Vec<Row>,
    notes: Vec<String>,
) -> Diff {
    let count = |v: Verdict| rows.iter().filter(|r| r.verdict == v).count();
    Diff {
        schema: SCHEMA.to_string(),
        kind,
        base: base.to_string(),
        new: new.to_string(),
        noise: options.noise,
        alpha: stats::ALPHA,
        regressions: count(Verdict::Regression),
        improvements: count(Verdict::Improvement),
        rows,
        notes,
    }
}

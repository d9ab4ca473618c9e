//! Two study results compared: the (point, contender) cells both ran, paired by point label and
//! contender name; the metrics they are compared on; one [`Sample`] per cell and metric, judged
//! together by [`judge_samples`]; and the notes a reader needs (sides missing, failures,
//! different studies, machines or study files, quick or partial runs).

use super::{
    check, finish, judge_samples, percent, CompareError, Comparison, DocKind, Options, Sample,
    Verdict,
};
use crate::metric::{self, Metric};
use crate::stats;
use crate::study::{Results, RunStatus, Trial};

/// A (point, contender) of one study: the point's label, the contender, the point's id.
type Cell = (String, String, usize);

/// The (point label, contender, point id) cells that ran in `r`.
fn cells(r: &Results) -> Vec<Cell> {
    r.cells_order()
        .into_iter()
        .map(|(p, c)| (r.point_label(p), c, p))
        .collect()
}

/// The cells two studies share, as (point label, contender): what [`studies`] compares; empty
/// when the two have nothing to compare.
pub fn shared_cells(base: &Results, new: &Results) -> Vec<(String, String)> {
    let theirs = cells(new);
    cells(base)
        .into_iter()
        .filter(|x| theirs.iter().any(|y| y.0 == x.0 && y.1 == x.1))
        .map(|x| (x.0, x.1))
        .collect()
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
            && !crate::summary::fixed_by_design(&m, primary);
        if keep && out.iter().all(|o| o.key != m.key) {
            out.push(m);
        }
    }
    out
}

/// "rust-axum at c=64", or the contender alone for a single-point study.
fn where_(point: &str, contender: &str) -> String {
    if point.is_empty() {
        contender.to_string()
    } else {
        format!("{contender} at {point}")
    }
}

/// Two study results: per (point, contender) that ran in both, per metric, the medians and the
/// lab's test of the new trials against the old, Holm-corrected over the comparison.
pub fn studies(
    base: (&str, &Results),
    new: (&str, &Results),
    options: &Options,
) -> Result<Comparison, CompareError> {
    check(options)?;
    let (b, n) = (base.1, new.1);
    let (pb, pn) = (cells(b), cells(n));
    let shared: Vec<(&Cell, &Cell)> = pb
        .iter()
        .filter_map(|x| pn.iter().find(|y| y.0 == x.0 && y.1 == x.1).map(|y| (x, y)))
        .collect();
    if shared.is_empty() {
        return Err(CompareError::Disjoint {
            base: base.0.to_string(),
            new: new.0.to_string(),
        });
    }
    let metrics = study_metrics(b, n);
    let mut notes = Vec::new();
    let mut samples = Vec::new();
    for (x, y) in &shared {
        let (tb, tn) = (b.trials_of(x.2, &x.1), n.trials_of(y.2, &y.1));
        // A contender that failed every trial on one side and not on the other (crashed,
        // OOM, timed out) has no figures there: that is the largest change of all, not a gap.
        let all_failed = |ts: &[&Trial]| ts.iter().all(|t| !t.ok);
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
            let (old, new) = (m.values(tb.iter().copied()), m.values(tn.iter().copied()));
            if old.is_empty() && new.is_empty() {
                continue;
            }
            samples.push(Sample {
                point: x.0.clone(),
                contender: x.1.clone(),
                metric: m.clone(),
                old,
                new,
                failed: failed.map(|f| f.0),
            });
        }
    }
    let rows = judge_samples(samples, options.noise);
    let tested = rows
        .iter()
        .filter(|r| r.test.as_ref().is_some_and(|t| t.p_adjusted.is_some()))
        .count();
    let untested = rows.iter().filter(|r| r.untested()).count();
    if tested > 0 {
        notes.insert(0, format!(
            "Old and new are the medians of each side's successful trials; the interval is that of the ratio new/old and p that of the lab's test (Welch's t-test on log values; Mann-Whitney where a value is 0), Holm-corrected over the {tested} tests: a change is called when it is beyond the ±{} noise floor and significant (adjusted p < {}).",
            percent(options.noise),
            stats::ALPHA
        ));
    }
    if untested > 0 {
        notes.push(format!("{untested} rows have fewer than 2 successful trials on a side: no test is possible, so they are judged by the noise floor alone (marked untested)."));
    }
    notes.extend(differences(base, new, &pb, &pn));
    let mut c = finish(DocKind::Study, base.0, new.0, options, rows, notes);
    c.machines = different_machines(b, n);
    Ok(c)
}

/// What differs between the two runs beyond their figures: the study, its kind, cells only one
/// side ran, quick runs, study files, machines, incomplete runs.
fn differences(
    base: (&str, &Results),
    new: (&str, &Results),
    pb: &[Cell],
    pn: &[Cell],
) -> Vec<String> {
    let (b, n) = (base.1, new.1);
    let mut notes = Vec::new();
    if b.study.name != n.study.name {
        notes.push(format!(
            "The results are of different studies ({} vs {}): only the points and contenders they share are compared.",
            b.study.name, n.study.name
        ));
    }
    if b.study.kind != n.study.kind {
        notes.push(format!("The studies are of different kinds ({:?} vs {:?}): only the metrics they share are compared.", b.study.kind, n.study.kind));
    }
    for (label, mine, theirs) in [(base.0, pb, pn), (new.0, pn, pb)] {
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

    for (label, d) in [(base.0, b), (new.0, n)] {
        if !d.status.as_str().is_empty() && d.status != RunStatus::Complete {
            notes.push(format!(
                "{label} is {} ({} of {} trials): it may lack trials.",
                d.status,
                d.trials.len(),
                d.planned_trials
            ));
        }
    }
    notes
}

/// Whether two results come from different machines (CPU model, CPU count, memory), said as the
/// first thing a comparison shows: no change between them is the change's alone.
pub fn different_machines(b: &Results, n: &Results) -> Option<String> {
    let (x, y) = (&b.machine, &n.machine);
    (x.cpu_model != y.cpu_model || x.cpus != y.cpus || x.memory_bytes != y.memory_bytes).then(|| {
        format!(
            "The two runs were measured on different machines ({} x{} vs {} x{}): every change below may be the machine's, and no question pools them.",
            x.cpu_model, x.cpus, y.cpu_model, y.cpus
        )
    })
}

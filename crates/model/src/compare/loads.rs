//! Load runs compared: two single runs, each figure tested against both runs' own intervals
//! ([`loads`]); several single runs against one baseline, all their tests one Holm family
//! ([`load_family`]); or several runs a side taken as trials, as studies are ([`load_trials`]).
//!
//! A single run's figure has an interval from its own data (`load::intervals`: order statistics
//! and a block bootstrap of the seconds for percentiles, the block bootstrap for throughput,
//! mean and error rate). A figure changed when the two runs' intervals lie apart: each
//! interval's half facing the other value, over the normal quantile of its level, is that run's
//! standard error, and the change (of logarithms: the noise of times and rates is
//! multiplicative) must exceed the two errors *added*, times the quantile of the level asked.
//! That is the test "the runs' intervals at that level do not overlap", and its p-value is the
//! level at which they would just touch. It is stricter than the usual combination of two
//! independent errors (their root sum of squares, Altman & Bland 2011) by up to √2 in z, on
//! purpose: a single run's interval sees only how the run moved while it went on, not how the
//! machine differed between the two runs, and on a busy machine the tails of identical runs
//! differ by more than either run shows (the real-run test in `cli/tests/it/verdicts.rs` called
//! 5 of 64 identical pairs a regression on p99 or p99.9 with the root sum of squares). Facing
//! halves keep the asymmetry of a percentile's interval. The p-values of the figures are
//! Holm-corrected together, the interval of the ratio is shown at the level each corrected p is
//! judged at, and the noise floor still decides what change is worth a verdict.
//!
//! A figure whose interval is open on the side facing the other run (p99.9 of 1,600 responses
//! may be beyond the slowest; a run under 2 seconds cannot say how its throughput varies) has no
//! test. Within the noise floor that changes nothing (no test could make it a change); beyond
//! it the figure cannot be judged (`Verdict::NotEnoughData`), never "no change", and the gate
//! says so.

use super::{finish, judge, percent, row, verdict, Evidence, Options, Row, Test, Verdict};
use super::{judge_samples, CompareError, Comparison, DocKind, Sample};
use crate::load::intervals::Bound;
use crate::load::LoadDoc;
use crate::metric::{self, Metric};
use crate::stats::{self, dist, ratio::holm, Interval, TestMethod};

/// One figure's test from two intervals: the difference `d` (of logs, or of values where a
/// value or bound is 0), the sum of the two runs' standard errors (apart at a level when `d`
/// exceeds it times that level's quantile), and the scale.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Gap {
    d: f64,
    se: f64,
    log: bool,
    old: f64,
}

impl Gap {
    /// From the values and each run's interval at `level`; `None` when a facing end is open.
    fn of(old: f64, new: f64, bo: Bound, bn: Bound, level: f64) -> Option<Gap> {
        // The ends facing the other run.
        let (o_end, n_end) = if new >= old {
            (bo.hi?, bn.lo?)
        } else {
            (bo.lo?, bn.hi?)
        };
        let log = [old, new, o_end, n_end].iter().all(|v| *v > 0.0);
        let f = |v: f64| if log { v.ln() } else { v };
        let z = dist::t_quantile(1.0 - (1.0 - level) / 2.0, f64::INFINITY);
        let (so, sn) = ((f(o_end) - f(old)).abs() / z, (f(new) - f(n_end)).abs() / z);
        Some(Gap {
            d: f(new) - f(old),
            se: so + sn,
            log,
            old,
        })
    }

    /// Two-sided p-value of no change.
    fn p(&self) -> f64 {
        if self.se == 0.0 {
            return if self.d == 0.0 { 1.0 } else { 0.0 };
        }
        (2.0 * (1.0 - dist::normal_cdf((self.d / self.se).abs()))).clamp(0.0, 1.0)
    }

    /// The interval of the ratio new/old at `level`; `None` on the linear scale from 0.
    fn ratio(&self, level: f64) -> Option<Interval> {
        let h = dist::t_quantile(1.0 - (1.0 - level) / 2.0, f64::INFINITY) * self.se;
        if self.log {
            Some(Interval {
                lo: (self.d - h).exp(),
                hi: (self.d + h).exp(),
            })
        } else {
            (self.old > 0.0).then(|| Interval {
                lo: 1.0 + (self.d - h) / self.old,
                hi: 1.0 + (self.d + h) / self.old,
            })
        }
    }
}

/// What a figure of two runs came to before the correction.
enum Judging {
    /// Shown, not judged; or a side has no value.
    Shown,
    /// A side has no intervals at all (a `barrage.load/1` document): the floor alone.
    Floor,
    /// An interval is open where it faces the other run.
    NotEnough,
    Tested(Gap),
}

/// Two single load runs: every figure of [`metric::LOAD`] the documents have, each compared
/// with its intervals, the tests Holm-corrected together.
pub fn loads(
    base: (&str, &LoadDoc),
    new: (&str, &LoadDoc),
    options: &Options,
) -> Result<Comparison, CompareError> {
    let mut family = load_family(base, &[new], options)?;
    Ok(family.remove(0))
}

/// Each of `others` against `base`, as [`loads`] compares two runs, and every test of every
/// pair Holm-corrected as one family: what one report claims of several runs holds at α
/// together, as a study's comparisons do. One comparison per other run, in order; with one
/// other run this is [`loads`].
pub fn load_family(
    base: (&str, &LoadDoc),
    others: &[(&str, &LoadDoc)],
    options: &Options,
) -> Result<Vec<Comparison>, CompareError> {
    super::check(options)?;
    let pending: Vec<Vec<(Row, Judging)>> =
        others.iter().map(|&new| figures(base.1, new.1)).collect();
    // The family: every tested figure but those with no difference and no spread at all (no
    // errors before or after): nothing could be found there.
    let family: Vec<(usize, usize)> = pending
        .iter()
        .enumerate()
        .flat_map(|(k, rows)| {
            rows.iter().enumerate().filter_map(move |(i, (_, j))| {
                matches!(j, Judging::Tested(g) if g.se > 0.0 || g.d != 0.0).then_some((k, i))
            })
        })
        .collect();
    let ps: Vec<f64> = family
        .iter()
        .map(|&(k, i)| match &pending[k][i].1 {
            Judging::Tested(g) => g.p(),
            _ => 1.0,
        })
        .collect();
    let adjusted = holm(&ps);
    let corrected = |k: usize, i: usize| {
        family
            .iter()
            .position(|&f| f == (k, i))
            .map(|at| adjusted[at])
    };
    let mut out = Vec::new();
    for (k, (pending, &new)) in pending.into_iter().zip(others).enumerate() {
        let mut rows = Vec::new();
        let mut short = Vec::new();
        for (i, (mut r, judging)) in pending.into_iter().enumerate() {
            let m = metric::LOAD
                .iter()
                .find(|m| m.key == r.metric)
                .expect("a LOAD figure");
            r.verdict = match judging {
                Judging::Shown | Judging::Floor => {
                    verdict(m, r.old, r.new, Evidence::Untested, options.noise)
                }
                // Within the floor no test could make it a change (`judge`), so the open
                // interval changes nothing; beyond it the verdict rests on a test that cannot be
                // made: the row cannot be judged, and is never "no change".
                Judging::NotEnough => {
                    match verdict(m, r.old, r.new, Evidence::Untested, options.noise) {
                        Verdict::WithinNoise => Verdict::WithinNoise,
                        _ => {
                            short.push(r.label.clone());
                            Verdict::NotEnoughData
                        }
                    }
                }
                Judging::Tested(g) => {
                    let (test, evidence) = tested(&g, corrected(k, i), family.len());
                    r.test = Some(test);
                    judge(stats_change(&r), m.better, options.noise, evidence)
                }
            };
            rows.push(r);
        }
        let notes = pair_notes(base, new, others.len(), family.len(), &short, options);
        out.push(finish(DocKind::Load, base.0, new.0, options, rows, notes));
    }
    Ok(out)
}

/// The figures of two runs, each with how it is to be judged.
fn figures(b: &LoadDoc, n: &LoadDoc) -> Vec<(Row, Judging)> {
    let (ib, inn) = (b.intervals.as_ref(), n.intervals.as_ref());
    let mut pending: Vec<(Row, Judging)> = Vec::new();
    for m in metric::LOAD {
        let (old, new) = (metric::load_value(m, b), metric::load_value(m, n));
        if old.is_none() && new.is_none() {
            continue;
        }
        let r = row(m, old, new);
        let judging = match (old, new, ib, inn) {
            (Some(o), Some(v), Some(ib), Some(inn)) if m.compared => match (ib.of(m), inn.of(m)) {
                (Some(bo), Some(bn)) => {
                    Gap::of(o, v, bo, bn, ib.level).map_or(Judging::NotEnough, Judging::Tested)
                }
                _ => Judging::NotEnough,
            },
            (Some(_), Some(_), _, _) if m.compared => Judging::Floor,
            _ => Judging::Shown,
        };
        pending.push((r, judging));
    }
    pending
}

/// The test of a figure from its gap, its corrected p (`None`: left out of the family, no
/// difference and no spread) and the family's size; and what it says.
fn tested(g: &Gap, p_adj: Option<f64>, family: usize) -> (Test, Evidence) {
    let p = g.p();
    let significant = p_adj.is_some_and(|a| a < stats::ALPHA);
    let level = p_adj.map(|a| stats::holm_level(p, a, family));
    let test = Test {
        method: TestMethod::Intervals,
        trials_old: 1,
        trials_new: 1,
        ratio_ci95: g.ratio(0.95),
        ratio_ci: level.and_then(|l| g.ratio(l)),
        ci_level: level,
        p,
        p_adjusted: p_adj,
        testable: true,
        significant,
    };
    let evidence = if significant {
        Evidence::Significant
    } else {
        Evidence::NotSignificant
    };
    (test, evidence)
}

/// What a reader of one pair of a family of `pairs` should know: how it was tested (over how
/// many figures), the figures without enough data, and the runs' own notes.
fn pair_notes(
    base: (&str, &LoadDoc),
    new: (&str, &LoadDoc),
    pairs: usize,
    family: usize,
    short: &[String],
    options: &Options,
) -> Vec<String> {
    let (ib, inn) = (base.1.intervals.as_ref(), new.1.intervals.as_ref());
    let mut notes = Vec::new();
    match (ib, inn) {
        (Some(ib), Some(inn)) => {
            let over = if pairs > 1 {
                format!(
                    "{family} figures tested in all {pairs} comparisons with {} (one family)",
                    base.0
                )
            } else {
                format!("{family} figures tested")
            };
            notes.push(format!(
                "Single runs: each figure is tested against both runs' {} intervals (throughput, mean and error rate from the run's seconds, by a block bootstrap; percentiles by order statistics of {} and {} responses, widened to how they moved over the seconds), Holm-corrected over the {over}; a change is called only beyond the ±{} noise floor. Each interval shown is at the level its corrected p is judged at.",
                stats::format_level(ib.level),
                ib.responses,
                inn.responses,
                percent(options.noise)
            ))
        }
        _ => {
            for (label, i) in [(base.0, ib), (new.0, inn)] {
                if i.is_none() {
                    notes.push(format!("{label} has no intervals (a barrage.load/1 document): its figures are judged by the ±{} noise floor alone, without a test.", percent(options.noise)));
                }
            }
        }
    }
    if !short.is_empty() {
        notes.push(format!(
            "Cannot judge {}: changed beyond the ±{} noise floor, but a run's interval is open on the side facing the other run (too few responses for that percentile, or under {} measured seconds to see how the figure moves in time); a longer run can judge it.",
            short.join(", "),
            percent(options.noise),
            stats::blocks::MIN_SECONDS
        ));
    }
    notes.extend(load_notes(base, new));
    notes
}

/// The row's change, from its values (`relative`, which says infinite from 0).
fn stats_change(r: &Row) -> f64 {
    match (r.old, r.new) {
        (Some(o), Some(n)) => super::relative(o, n),
        _ => f64::NAN,
    }
}

/// What a reader of two load runs should know besides the verdicts: loads that differ, runs
/// cancelled early, a generator that could not keep its schedule.
fn load_notes(base: (&str, &LoadDoc), new: (&str, &LoadDoc)) -> Vec<String> {
    let (b, n) = (base.1, new.1);
    let mut notes = Vec::new();
    let (cb, cn) = (b.config_summary(), n.config_summary());
    if cb != cn {
        notes.push(format!(
            "The runs differ in their load: {} ran {cb}; {} ran {cn}.",
            base.0, new.0
        ));
    }
    for (label, d) in [base, new] {
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
    notes
}

/// Several load runs a side, as trials: each figure's runs tested as a study's trials are
/// (`judge_samples`: Welch on logs, Holm over the figures), old and new the medians of the
/// runs' figures. The runs' own intervals are not used: the spread between runs is the
/// measure, and it includes what one run cannot see of itself (the machine's state when it
/// ran).
pub fn load_trials(
    base: (&str, &[LoadDoc]),
    new: (&str, &[LoadDoc]),
    options: &Options,
) -> Result<Comparison, CompareError> {
    super::check(options)?;
    let samples: Vec<Sample> = metric::LOAD
        .iter()
        .map(|m: &Metric| {
            let values = |ds: &[LoadDoc]| -> Vec<f64> {
                ds.iter().filter_map(|d| metric::load_value(m, d)).collect()
            };
            Sample {
                point: String::new(),
                contender: String::new(),
                metric: m.clone(),
                old: values(base.1),
                new: values(new.1),
                failed: None,
            }
        })
        .filter(|s| !s.old.is_empty() || !s.new.is_empty())
        .collect();
    let rows = judge_samples(samples, options.noise);
    let untested = rows.iter().filter(|r| r.untested()).count();
    let mut notes = vec![format!(
        "{} runs against {} runs, as trials: each figure tested across runs (Welch's t-test on logs), Holm-corrected over the figures; a change is called only beyond the ±{} noise floor.",
        base.1.len(),
        new.1.len(),
        percent(options.noise)
    )];
    if untested > 0 {
        notes.push(format!(
            "{untested} figures could not be tested (fewer than 2 runs with a value on a side): judged by the floor alone."
        ));
    }
    for (b, n) in base.1.iter().zip(new.1) {
        for note in load_notes((base.0, b), (new.0, n)) {
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
    }
    Ok(finish(DocKind::Load, base.0, new.0, options, rows, notes))
}

#[cfg(test)]
mod tests;

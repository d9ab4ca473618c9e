//! The statistics of a results document, computed from its trials: per point and contender the
//! summary of every metric of the document (the registry's and the study's declared figures:
//! [`metric::of_results`]) (median, mean, stddev, min, max, 2nd best, 95% CIs), latency
//! percentiles from the *merged* HDR histograms of all trials, comparisons with significance, and
//! warnings. The lab stores them in the document after every trial; the report reads them (and
//! recomputes them with this same function for files that lack them).

use crate::metric::{self, Metric};
use crate::stats::{self, Wording};
use crate::study::{
    Between, Cell, ComparisonRow, ContenderRole, ContenderStatus, MergedLatency, Results, Trial,
    Warning, WarningKind,
};
use std::collections::BTreeMap;

/// The metrics whose statistics a results document records: the registry's of its kind, then
/// its study's declared figures.
pub fn metrics(r: &Results) -> Vec<Metric> {
    metric::of_results(r)
}

fn values(trials: &[&Trial], m: &Metric) -> Vec<f64> {
    m.values(trials.iter().copied())
}

fn merged_latency(trials: &[&Trial]) -> Option<MergedLatency> {
    let mut merged: Option<hdrhistogram::Histogram<u64>> = None;
    for t in trials.iter().filter(|t| t.ok) {
        for p in &t.phases {
            let Some(h) = p.load.histogram() else {
                continue;
            };
            match &mut merged {
                None => merged = Some(h),
                Some(m) => {
                    // Histograms from the engine share its bounds; a failing add means a foreign
                    // histogram, which is skipped rather than mixed in approximately.
                    let _ = m.add(&h);
                }
            }
        }
    }
    let h = merged?;
    if h.is_empty() {
        return None;
    }
    Some(MergedLatency {
        count: h.len(),
        mean_us: h.mean(),
        p50_us: h.value_at_quantile(0.50),
        p90_us: h.value_at_quantile(0.90),
        p99_us: h.value_at_quantile(0.99),
        p999_us: h.value_at_quantile(0.999),
        max_us: h.max(),
        hdr: crate::hdr::encode(&h),
    })
}

/// "1 CPU", "2 CPUs".
fn cpus_text(n: usize) -> String {
    format!("{n} CPU{}", if n == 1 { "" } else { "s" })
}

/// What the exact total says of CPU a trial's timeline dropped: the tree ran on more CPUs than
/// its cap (rusage beyond what they could give), or the readings counted more than was spent.
fn dropped_check(d: &crate::process::DroppedCpu) -> String {
    match (d.beyond_capacity(), d.rusage_s, d.capacity_s) {
        (Some(true), Some(r), Some(c)) => format!(
            "its exact CPU (rusage, {r:.3} s) is more than {} could give in its wall time ({c:.3} s): the tree was not held to them",
            cpus_text(d.cpus)
        ),
        (Some(false), Some(r), Some(c)) => format!(
            "its exact CPU (rusage, {r:.3} s) is within what {} could give in its wall time ({c:.3} s): the samples counted more CPU than was spent (an accounting error)",
            cpus_text(d.cpus)
        ),
        _ => "no exit was recorded to check it against the exact total".into(),
    }
}

/// Recomputes `summary`, `comparisons` and `warnings` of `r` from its trials.
pub fn update(r: &mut Results) {
    let kind = r.study.kind;
    let metrics = metrics(r);
    let primary = metric::primary(r);
    let mut cells = Vec::new();
    let mut warnings = Vec::new();
    for c in &r.contenders {
        if c.status != ContenderStatus::Ready {
            warnings.push(Warning {
                point: None,
                contender: Some(c.name.clone()),
                kind: WarningKind::Skipped,
                message: format!(
                    "{} was not run: {}",
                    c.name,
                    c.skip_reason
                        .clone()
                        .unwrap_or_else(|| c.status.to_string())
                ),
            });
        }
    }
    for p in &r.points {
        for c in r
            .contenders
            .iter()
            .filter(|c| c.status == ContenderStatus::Ready)
        {
            let trials = r.trials_of(p.id, &c.name);
            if trials.is_empty() {
                continue;
            }
            let where_ = if p.label.is_empty() {
                c.name.clone()
            } else {
                format!("{} at {}", c.name, p.label)
            };
            let mut stats_map = BTreeMap::new();
            for m in &metrics {
                let (name, hib) = (&m.label, m.higher_is_better());
                let vs = values(&trials, m);
                if let Some(s) = stats::summarize(&vs, hib) {
                    stats_map.insert(m.key.to_string(), s);
                }
                if m.key == primary.key && !vs.is_empty() {
                    for i in stats::outliers(&vs) {
                        warnings.push(Warning {
                            point: Some(p.id),
                            contender: Some(c.name.clone()),
                            kind: WarningKind::Outlier,
                            message: format!(
                                "{where_}: trial {} is an outlier ({name} = {})",
                                i + 1,
                                m.show(vs[i])
                            ),
                        });
                    }
                    if let Some(f) = stats::first_trial_slow(&vs, hib) {
                        warnings.push(Warning {
                            point: Some(p.id),
                            contender: Some(c.name.clone()),
                            kind: WarningKind::FirstTrialSlow,
                            message: format!(
                                "{where_}: the first trial was {}x worse than the rest ({name}: {} vs median {}): a cold start (caches, JIT, lazy init)?{}",
                                stats::format_factor(f.factor),
                                m.show(f.first),
                                m.show(f.median_rest),
                                if kind == ContenderRole::Server {
                                    " A longer warmup may help."
                                } else {
                                    ""
                                }
                            ),
                        });
                    }
                }
            }
            let ok = trials.iter().filter(|t| t.ok).count();
            let failures: Vec<(u32, String)> = trials
                .iter()
                .filter_map(|t| {
                    t.failure
                        .as_ref()
                        .map(|f| (t.trial + 1, format!("{}: {}", f.kind, f.message)))
                })
                .collect();
            if !failures.is_empty() {
                warnings.push(Warning {
                    point: Some(p.id),
                    contender: Some(c.name.clone()),
                    kind: WarningKind::FailedTrials,
                    message: format!(
                        "{where_}: {} of {} trials failed ({})",
                        failures.len(),
                        trials.len(),
                        failure_reasons(&failures)
                    ),
                });
            }
            let bottleneck = trials
                .iter()
                .any(|t| t.generator.as_ref().is_some_and(|g| g.bottleneck));
            let weighed = trials.iter().any(|t| {
                t.generator
                    .as_ref()
                    .is_some_and(|g| g.bottleneck && g.contender_cpu_pct_of_budget.is_some())
            });
            if bottleneck {
                warnings.push(Warning {
                    point: Some(p.id),
                    contender: Some(c.name.clone()),
                    kind: WarningKind::GeneratorBottleneck,
                    message: if weighed {
                        format!("{where_}: barrage's load generator was the bottleneck (it was saturated, the contender was below 90% of its CPUs); the figures measure barrage as much as the contender")
                    } else {
                        // Recorded before both sides were weighed: only the generator's side is known.
                        format!("{where_}: barrage's load generator was saturated (this file has no CPU figure of the contender to weigh against it); the figures may measure barrage as much as the contender")
                    },
                });
            } else if trials.iter().any(|t| {
                t.generator
                    .as_ref()
                    .is_some_and(|g| g.limit == crate::verdict::Limit::Both)
            }) {
                warnings.push(Warning {
                    point: Some(p.id),
                    contender: Some(c.name.clone()),
                    kind: WarningKind::BothSaturated,
                    message: format!("{where_}: barrage's generator and the contender were both at their CPU budgets; the contender's figures stand, but it was not pushed past saturation"),
                });
            }
            let busy: Vec<&crate::busy::OutsideCpu> = trials
                .iter()
                .filter(|t| t.ok)
                .filter_map(|t| t.outside_cpu.as_ref())
                .filter(|o| o.busy)
                .collect();
            if let Some(worst) = busy.iter().max_by(|a, b| a.cpu_pct.total_cmp(&b.cpu_pct)) {
                warnings.push(Warning {
                    point: Some(p.id),
                    contender: Some(c.name.clone()),
                    kind: WarningKind::MachineBusy,
                    message: format!(
                        "{where_}: the machine was busy in {} of {} trials (other programs used up to {:.0}% of a core on average while a trial was measured, bound {:.0}%); their figures may measure the other programs as much as the contender",
                        busy.len(),
                        trials.len(),
                        worst.cpu_pct,
                        worst.limit_pct
                    ),
                });
            }
            let link: Vec<&str> = trials
                .iter()
                .filter_map(|t| t.network.as_ref())
                .filter(|n| n.saturated)
                .flat_map(|n| n.reasons.iter().map(String::as_str))
                .collect();
            if !link.is_empty() {
                warnings.push(Warning {
                    point: Some(p.id),
                    contender: Some(c.name.clone()),
                    kind: WarningKind::NetworkSaturated,
                    message: format!(
                        "{where_}: the emulated link did not keep up in {} trial(s) ({}); the figures measure the emulator as much as the contender",
                        trials
                            .iter()
                            .filter(|t| t.network.as_ref().is_some_and(|n| n.saturated))
                            .count(),
                        link[0]
                    ),
                });
            }
            let dropped: Vec<(u32, crate::process::DroppedCpu)> = trials
                .iter()
                .filter_map(|t| {
                    let d = t.samples.as_ref()?.dropped_cpu(t.exit.as_ref())?;
                    Some((t.trial + 1, d))
                })
                .collect();
            if let Some((n, d)) = dropped
                .iter()
                .max_by(|a, b| a.1.dropped_s.total_cmp(&b.1.dropped_s))
            {
                warnings.push(Warning {
                    point: Some(p.id),
                    contender: Some(c.name.clone()),
                    kind: WarningKind::CpuDropped,
                    message: format!(
                        "{where_}: the sampler dropped CPU that fit no interval under the tree's {} in {} of {} trials, more than a clock tick per interval (trial {n}: {:.3} s, {:.3} s allowed over {} intervals): that trial's CPU plot shows less than the tree used; {}",
                        cpus_text(d.cpus),
                        dropped.len(),
                        trials.len(),
                        d.dropped_s,
                        d.allowance_s,
                        d.intervals,
                        dropped_check(d),
                    ),
                });
            }
            cells.push(Cell {
                point: p.id,
                label: p.label.clone(),
                contender: c.name.clone(),
                trials_ok: ok,
                trials_failed: trials.len() - ok,
                stats: stats_map,
                latency: merged_latency(&trials),
                errors: trials
                    .iter()
                    .filter(|t| t.ok)
                    .filter_map(|t| t.metrics.errors)
                    .sum(),
                generator_bottleneck: bottleneck,
                failures: failures
                    .iter()
                    .map(|(n, reason)| format!("trial {n}: {reason}"))
                    .collect(),
            });
        }
    }
    let discarded: usize = r
        .trials
        .iter()
        .filter_map(|t| t.outside_cpu.as_ref())
        .map(|o| o.discarded_pct.len())
        .sum();
    if discarded > 0 {
        let rerun = r
            .trials
            .iter()
            .filter(|t| {
                t.outside_cpu
                    .as_ref()
                    .is_some_and(|o| !o.discarded_pct.is_empty())
            })
            .count();
        warnings.push(Warning {
            point: None,
            contender: None,
            kind: WarningKind::MachineBusy,
            message: format!(
                "{rerun} trial(s) were run again because the machine was busy ({discarded} busy attempt(s) discarded, on_busy = \"retry\")"
            ),
        });
    }
    let fewest = cells.iter().map(|c| c.trials_ok).min().unwrap_or(0);
    let comparisons = comparisons(r, &cells, &metrics);
    if fewest == 1 {
        warnings.push(Warning {
            point: None,
            contender: None,
            kind: WarningKind::FewTrials,
            message: "with one trial there is no confidence interval and no significance test"
                .into(),
        });
    }
    let tested = comparisons.iter().filter(|c| c.comparison.testable).count();
    if tested > 1 {
        warnings.push(Warning {
            point: None,
            contender: None,
            kind: WarningKind::Comparisons,
            message: format!(
                "{tested} comparisons tested (Welch's t-test on log values); their p-values are Holm-corrected together, so every \"significant\" holds at α = {} for the whole set",
                stats::ALPHA
            ),
        });
    }
    r.comparisons = comparisons;
    r.thresholds = crate::threshold::evaluate_study(&r.study.thresholds, &cells);
    r.summary = cells;
    r.warnings = warnings;
    r.answers = crate::question::answers(r);
}

/// A member of a comparison group: (point, contender, name shown: contender or variant).
type Member = (usize, String, String);

fn comparisons(r: &Results, cells: &[Cell], metrics: &[Metric]) -> Vec<ComparisonRow> {
    let primary = metric::primary(r);
    let mut groups: Vec<(Between, Vec<Member>)> = Vec::new();
    // Contenders at the same point.
    for p in &r.points {
        let members: Vec<_> = cells
            .iter()
            .filter(|c| c.point == p.id)
            .map(|c| (c.point, c.contender.clone(), c.contender.clone()))
            .collect();
        if members.len() > 1 {
            groups.push((Between::Contenders, members));
        }
    }
    // Variants of one contender at otherwise equal parameters.
    let mut by_rest: BTreeMap<(String, String), Vec<Member>> = BTreeMap::new();
    for c in cells {
        let p = &r.points[c.point];
        let Some(v) = &p.variant else { continue };
        let mut rest = p.params.clone();
        rest.remove("variant");
        let key = (
            c.contender.clone(),
            serde_json::to_string(&rest).unwrap_or_default(),
        );
        by_rest
            .entry(key)
            .or_default()
            .push((c.point, c.contender.clone(), v.clone()));
    }
    for (_, members) in by_rest {
        if members.len() > 1 {
            groups.push((Between::Variants, members));
        }
    }
    let mut out = Vec::new();
    for (between, members) in groups {
        let vals =
            |m: &Member, metric: &Metric| -> Vec<f64> { values(&r.trials_of(m.0, &m.1), metric) };
        // The reference is the best median on the primary metric.
        let best = members
            .iter()
            .filter_map(|m| stats::median(&vals(m, primary)).map(|x| (m, x)))
            .max_by(|a, b| {
                let o = a.1.total_cmp(&b.1);
                if primary.higher_is_better() {
                    o
                } else {
                    o.reverse()
                }
            })
            .map(|(m, _)| m.clone());
        let Some(best) = best else { continue };
        for other in members.iter().filter(|m| **m != best) {
            for metric in metrics
                .iter()
                .filter(|m| m.compared && !fixed_by_design(m, primary))
            {
                let wording = metric.wording();
                let (a, b) = (vals(&best, metric), vals(other, metric));
                let hib = metric.higher_is_better();
                if let Some(cmp) = stats::compare_worded(&a, &b, hib, &wording) {
                    let label = r.points[best.0].label.clone();
                    out.push(ComparisonRow {
                        point: best.0,
                        label: if between == Between::Variants {
                            strip_variant(&label, &best.2)
                        } else {
                            label
                        },
                        between: between.clone(),
                        metric: metric.key.to_string(),
                        a: best.2.clone(),
                        b: other.2.clone(),
                        contender: (between == Between::Variants).then(|| best.1.clone()),
                        comparison: cmp,
                    });
                }
            }
        }
    }
    // One family: every claim of the study holds at α together (Holm).
    let mut family: Vec<(&mut stats::Comparison, Wording)> = out
        .iter_mut()
        .map(|row| {
            let wording = metrics
                .iter()
                .find(|m| m.key == row.metric)
                .map_or(Wording::Speed, Metric::wording);
            (&mut row.comparison, wording)
        })
        .collect();
    stats::adjust(&mut family);
    out
}

/// A metric the study holds fixed, so a difference in it says nothing about the contenders: the
/// wall time of clients that run for a set time and report their own rate (`client.rate`, as
/// the keepalive study's 5 s runs do). Comparisons of two runs skip it too.
pub fn fixed_by_design(m: &Metric, primary: &Metric) -> bool {
    m.key == metric::WALL.key && primary.key == metric::RPS.key
}

fn strip_variant(label: &str, variant: &str) -> String {
    label
        .strip_prefix(variant)
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| label.to_string())
}

fn failure_reasons(failures: &[(u32, String)]) -> String {
    let mut groups: Vec<(Vec<u32>, &str)> = Vec::new();
    for (trial, reason) in failures {
        match groups.iter_mut().find(|g| g.1 == reason.as_str()) {
            Some(g) => g.0.push(*trial),
            None => groups.push((vec![*trial], reason)),
        }
    }
    if groups.len() == 1 && failures.len() > 1 {
        return format!("all: {}", groups[0].1);
    }
    groups
        .iter()
        .map(|(trials, reason)| {
            let list: Vec<String> = trials.iter().map(u32::to_string).collect();
            let noun = if trials.len() > 1 { "trials" } else { "trial" };
            format!("{noun} {}: {reason}", list.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod failure_reason_tests {
    use super::failure_reasons;

    #[test]
    fn identical_reasons_are_listed_once() {
        let f = |n: u32, r: &str| (n, r.to_string());
        assert_eq!(
            failure_reasons(&[f(1, "oom: x"), f(2, "oom: x")]),
            "all: oom: x"
        );
        assert_eq!(failure_reasons(&[f(2, "oom: x")]), "trial 2: oom: x");
        assert_eq!(
            failure_reasons(&[f(1, "timeout"), f(2, "crashed"), f(3, "timeout")]),
            "trials 1, 3: timeout; trial 2: crashed"
        );
    }
}

//! The answers to a study's questions, from its trials: each question's groups of trial values
//! (a side's contender at its point, or at each of the two conditions of an interaction), the
//! Welch contrast of their logs ([`crate::stats::contrast`]), one p-value per question Holm-
//! corrected over the questions (their own family: the lab's comparisons with the best are
//! another, exploratory one), a verdict, and the power the run had at the original's effect.
//!
//! Verdicts:
//! - **agrees**: the claim's test is significant (Holm-adjusted p < α): a difference in the
//!   claimed direction (against every side listed), or for an equivalence both one-sided tests.
//! - **disagrees**: the opposite is significant (a difference the other way, or for an
//!   equivalence a ratio beyond the margin: the 95% interval wholly outside it), or the 95%
//!   interval of the ratio excludes the original's effect (`expected`) although the test could
//!   not decide: the data rule out what the original saw.
//! - **inconclusive**: neither, with the power the run had at `expected` (its margin for an
//!   equivalence) and the trials a group that 0.8 power needs, at the family's strictest level.
//! - **unanswered**: the run has no data to test it (a contender that never succeeded at the
//!   point, a point the run lacks, trials of two machines).

use super::{Claim, Op, Question, Side, Window};
use crate::metric::{self, Metric};
use crate::stats::{self, contrast, power, Interval};
use crate::study::{value_text, Results, Trial};
use serde::{Deserialize, Serialize};

/// A question's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Agrees,
    Disagrees,
    #[default]
    Inconclusive,
    Unanswered,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Agrees => "agrees",
            Verdict::Disagrees => "disagrees",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Unanswered => "unanswered",
        }
    }
}

/// The power a question's design is asked to have.
pub const TARGET_POWER: f64 = 0.8;

/// One question's answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Answer {
    pub id: String,
    pub verdict: Verdict,
    /// The metric of the pair shown (the weakest pair of a claim against several sides or on
    /// several metrics).
    pub metric: String,
    /// The left side and the right side of the pair shown, as the tables name them.
    pub left: String,
    pub right: String,
    /// The medians of the two sides (an interaction: each side's ratio between its conditions,
    /// of medians), in the metric's stored unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_median: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub right_median: Option<f64>,
    /// Left over right: the ratio of geometric means (of ratios, for an interaction).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
    /// Its 95% interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci95: Option<Interval>,
    /// The claim's p-value and the same Holm-adjusted over the study's questions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_adjusted: Option<f64>,
    /// The fewest successful trials in a group.
    pub n: usize,
    /// The chance this run's design had to find the original's effect (`expected`; for an
    /// equivalence, to show it within the margin), at the family's strictest level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power: Option<f64>,
    /// Trials a group for 0.8 power at that effect (None: not computable, or beyond the cap).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trials_needed: Option<u32>,
    /// Whether the 95% interval holds the original's effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_in_ci: Option<bool>,
    /// Why it is unanswered, or what the verdict leaves out, in one line.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub note: String,
}

/// The groups of one pair (left against one right side, on one metric) and their test.
struct Pair {
    metric: Metric,
    right: String,
    contrast: contrast::Contrast,
    groups: u32,
    sd_log: Option<f64>,
    left_median: f64,
    right_median: f64,
    /// The claim's one-sided p (for `>`/`<`, doubled: two-sided in the claimed direction; for
    /// `~`, TOST) and the opposite's.
    p_for: f64,
    p_against: f64,
}

/// Answers every question of `r`'s study, in declaration order.
pub fn answers(r: &Results) -> Vec<Answer> {
    let qs = &r.study.questions;
    let mut out: Vec<Answer> = Vec::with_capacity(qs.len());
    let mut tested: Vec<(usize, Vec<Pair>, Claim, f64, f64)> = Vec::new();
    for (i, q) in qs.iter().enumerate() {
        let mut a = Answer {
            id: q.id.clone(),
            verdict: Verdict::Unanswered,
            ..Answer::default()
        };
        match pairs(r, q) {
            Ok((claim, ps)) => {
                // The pair with the largest p decides a claim against several sides (an
                // intersection-union test); the smallest opposite p, its disagreement.
                let w = &ps[weakest(&ps)];
                let p_for = w.p_for;
                let p_against = ps.iter().map(|p| p.p_against).fold(1.0, f64::min);
                a.left = claim.left.label();
                a.right = w.right.clone();
                a.metric = w.metric.key.to_string();
                a.left_median = Some(w.left_median);
                a.right_median = Some(w.right_median);
                a.ratio = Some(w.contrast.ratio());
                a.ci95 = Some(w.contrast.ci(0.95));
                a.p = Some(p_for);
                a.n = ps.iter().map(|p| p.contrast.n_min).min().unwrap_or(0);
                tested.push((i, ps, claim, p_for, p_against));
            }
            Err(why) => a.note = why,
        }
        out.push(a);
    }
    let m = tested.len();
    let adj_for = stats::ratio::holm(&tested.iter().map(|t| t.3).collect::<Vec<_>>());
    let adj_against = stats::ratio::holm(&tested.iter().map(|t| t.4).collect::<Vec<_>>());
    let alpha_each = stats::ALPHA / m.max(1) as f64;
    for (k, (i, ps, claim, _, _)) in tested.iter().enumerate() {
        let q = &qs[*i];
        let a = &mut out[*i];
        a.p_adjusted = Some(adj_for[k]);
        let (pw, need) = design_power(q, claim, ps, alpha_each);
        a.power = pw;
        a.trials_needed = need;
        let ci = a.ci95.expect("tested");
        a.expected_in_ci = q.expected.map(|e| ci.lo <= e && e <= ci.hi);
        a.verdict = if adj_for[k] < stats::ALPHA {
            Verdict::Agrees
        } else if adj_against[k] < stats::ALPHA {
            // Which pair turned the other way (a claim against several sides names it).
            let worst = (0..ps.len())
                .min_by(|&x, &y| ps[x].p_against.total_cmp(&ps[y].p_against))
                .unwrap_or(0);
            let w = &ps[worst];
            let pair = if ps.len() > 1 {
                format!(
                    " ({} vs {}, {}: {})",
                    a.left,
                    w.right,
                    w.metric.label,
                    super::factor(w.contrast.ratio())
                )
            } else {
                String::new()
            };
            a.note = match claim.op {
                Op::Equivalent { .. } => format!("the ratio lies beyond the margin{pair}"),
                _ => format!("significant the other way{pair}"),
            };
            Verdict::Disagrees
        } else if a.expected_in_ci == Some(false)
            && ps.len() == 1
            && !matches!(claim.op, Op::Equivalent { .. })
        {
            a.note = format!(
                "the original's {} lies outside the interval",
                super::factor(q.expected.unwrap_or(1.0))
            );
            Verdict::Disagrees
        } else {
            Verdict::Inconclusive
        };
        if a.verdict == Verdict::Agrees && a.expected_in_ci == Some(false) {
            let e = q.expected.unwrap_or(1.0);
            let smaller = (a.ratio.unwrap_or(1.0).ln().abs()) < e.ln().abs();
            a.note = format!(
                "the effect is {} than the original's {}",
                if smaller { "smaller" } else { "larger" },
                super::factor(e)
            );
        }
    }
    out
}

/// The index of the pair that decides a claim against several sides: the largest p.
fn weakest(ps: &[Pair]) -> usize {
    (0..ps.len())
        .max_by(|&x, &y| ps[x].p_for.total_cmp(&ps[y].p_for))
        .unwrap_or(0)
}

/// The power of the run's design at the original's effect, and the trials a group for
/// [`TARGET_POWER`], at the level `alpha_each` (for a claim against several sides, the weakest).
fn design_power(
    q: &Question,
    claim: &Claim,
    ps: &[Pair],
    alpha_each: f64,
) -> (Option<f64>, Option<u32>) {
    let mut worst: Option<(f64, Option<u32>)> = None;
    for p in ps {
        let Some(sd) = p.sd_log else {
            return (None, None);
        };
        let g = p.groups;
        let f: Box<dyn Fn(u32) -> f64> = match (claim.op, q.expected) {
            (Op::Equivalent { margin }, e) => {
                let e = e.unwrap_or(1.0);
                // An equivalence is tested at α each side (TOST); the family's strictness
                // applies to it as to the others.
                Box::new(move |n| power::power_equivalence(n, g, e, margin, sd, alpha_each))
            }
            (_, Some(e)) if e != 1.0 => {
                Box::new(move |n| power::power_contrast(n, g, e, sd, alpha_each))
            }
            _ => return (None, None),
        };
        let now = f(p.contrast.n_min as u32);
        let need = power::fewest(TARGET_POWER, &f);
        if worst.is_none_or(|(w, _)| now < w) {
            worst = Some((now, need));
        }
    }
    match worst {
        Some((p, n)) => (Some(p), n),
        None => (None, None),
    }
}

/// Every pair of the question with its test, or why it cannot be tested.
fn pairs(r: &Results, q: &Question) -> Result<(Claim, Vec<Pair>), String> {
    let claim = q.check()?;
    let at = q.at_conditions()?;
    let across = q.across_conditions()?;
    let window = q.window()?;
    let mut out = Vec::new();
    for key in &q.metric {
        let m = metric_of(r, key).ok_or_else(|| format!("the results have no metric {key:?}"))?;
        for right in &claim.right {
            let (groups, labels) = match &across {
                None => (
                    vec![
                        (group(r, &at, &claim.left, None, &m, key, window)?, 1.0),
                        (group(r, &at, right, None, &m, key, window)?, -1.0),
                    ],
                    2,
                ),
                Some([x, y]) => (
                    vec![
                        (group(r, &at, &claim.left, Some(x), &m, key, window)?, 1.0),
                        (group(r, &at, &claim.left, Some(y), &m, key, window)?, -1.0),
                        (group(r, &at, right, Some(x), &m, key, window)?, -1.0),
                        (group(r, &at, right, Some(y), &m, key, window)?, 1.0),
                    ],
                    4,
                ),
            };
            let machines: std::collections::BTreeSet<u32> = groups
                .iter()
                .flat_map(|(g, _)| g.machines.clone())
                .collect();
            if machines.len() > 1 {
                return Err(format!(
                    "its trials come from {} machines ({}): a question is answered on one",
                    machines.len(),
                    machines
                        .iter()
                        .map(|i| r.machine_of(*i).cpu_model.clone())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            let values: Vec<(&[f64], f64)> = groups
                .iter()
                .map(|(g, c)| (g.values.as_slice(), *c))
                .collect();
            let c = contrast::log_contrast(&values).ok_or_else(|| {
                let short = groups
                    .iter()
                    .find(|(g, _)| g.values.len() < 2)
                    .map(|(g, _)| g.why_short())
                    .unwrap_or_else(|| "a value that is not positive".into());
                format!("{key}: {short}")
            })?;
            let sets: Vec<&[f64]> = groups.iter().map(|(g, _)| g.values.as_slice()).collect();
            let med = |i: usize| stats::median(&groups[i].0.values).unwrap_or(f64::NAN);
            let (lm, rm) = if labels == 2 {
                (med(0), med(1))
            } else {
                (med(0) / med(1), med(2) / med(3))
            };
            let (p_for, p_against) = match claim.op {
                Op::Greater => (2.0 * c.p_above(0.0), 2.0 * c.p_below(0.0)),
                Op::Less => (2.0 * c.p_below(0.0), 2.0 * c.p_above(0.0)),
                Op::Equivalent { margin } => (c.p_equivalent(margin), 2.0 * c.p_beyond(margin)),
            };
            out.push(Pair {
                metric: m.clone(),
                right: right.label(),
                contrast: c,
                groups: labels,
                sd_log: power::pooled_log_sd(&sets),
                left_median: lm,
                right_median: rm,
                p_for: p_for.min(1.0),
                p_against: p_against.min(1.0),
            });
        }
    }
    Ok((claim, out))
}

/// One group: a contender's successful trial values at one point.
struct Group {
    values: Vec<f64>,
    machines: Vec<u32>,
    contender: String,
    point: String,
    failed: usize,
}

impl Group {
    fn why_short(&self) -> String {
        format!(
            "{} has {} successful trial{} at {}{} (2 are needed)",
            self.contender,
            self.values.len(),
            if self.values.len() == 1 { "" } else { "s" },
            if self.point.is_empty() {
                "its point"
            } else {
                &self.point
            },
            if self.failed > 0 {
                format!(", {} failed", self.failed)
            } else {
                String::new()
            }
        )
    }
}

fn group(
    r: &Results,
    at: &[(String, String)],
    side: &Side,
    extra: Option<&Vec<(String, String)>>,
    m: &Metric,
    key: &str,
    window: Option<Window>,
) -> Result<Group, String> {
    let point = point_at(r, &side_conditions(at, side, extra))?;
    if !r.contenders.iter().any(|c| c.name == side.contender)
        && !r.trials.iter().any(|t| t.contender == side.contender)
    {
        return Err(format!("the study has no contender {:?}", side.contender));
    }
    let trials = r.trials_of(point, &side.contender);
    let ok: Vec<&Trial> = trials.iter().copied().filter(|t| t.ok).collect();
    let values: Vec<f64> = match window {
        None => m.values(ok.iter().copied()),
        Some(w) => ok.iter().filter_map(|t| window_value(t, key, w)).collect(),
    };
    Ok(Group {
        values,
        machines: ok.iter().map(|t| t.machine).collect(),
        contender: side.contender.clone(),
        point: r.point_label(point),
        failed: trials.len() - ok.len(),
    })
}

/// The conditions a side is read at: the question's `at`, its own conditions over them, then
/// (an interaction) one of the `across` sets over those.
pub fn side_conditions(
    at: &[(String, String)],
    side: &Side,
    extra: Option<&Vec<(String, String)>>,
) -> Vec<(String, String)> {
    let mut conds: Vec<(String, String)> = at.to_vec();
    for (k, v) in side.at.iter().chain(extra.into_iter().flatten()) {
        match conds.iter_mut().find(|(o, _)| o == k) {
            Some(c) => c.1 = v.clone(),
            None => conds.push((k.clone(), v.clone())),
        }
    }
    conds
}

/// The one point of `r` that meets every condition. A load axis may be named by its field or
/// its short label, as point labels show it (`c=50` for `connections=50`).
pub fn point_at(r: &Results, conds: &[(String, String)]) -> Result<usize, String> {
    let said = conds;
    let conds = by_field(&r.points, conds);
    let conds = conds.as_slice();
    for ((k, _), (said_k, _)) in conds.iter().zip(said) {
        let known = k == "variant"
            || r.points
                .iter()
                .any(|p| p.params.contains_key(k) || p.client_params.contains_key(k));
        if !known {
            let mut axes: Vec<&str> = r
                .points
                .iter()
                .flat_map(|p| p.params.keys().map(|k| crate::load::short_label(k)))
                .collect();
            axes.sort_unstable();
            axes.dedup();
            return Err(format!(
                "{said_k} is not an axis of the study (its axes: {})",
                if axes.is_empty() {
                    "none".to_string()
                } else {
                    axes.join(", ")
                }
            ));
        }
    }
    let found = points_meeting(&r.points, conds);
    let text = || {
        said.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!("no point of the run is at {:?}", text())),
        many => Err(format!(
            "{} points are at {:?} ({}): name the axes that tell them apart",
            many.len(),
            text(),
            many.iter()
                .map(|i| r.point_label(*i))
                .collect::<Vec<_>>()
                .join("; ")
        )),
    }
}

/// The ids of the points that meet every condition (field names, as `point_at` reads them):
/// a swept value, else (a client study's parameter with one value, as in a quick run) the
/// parameter the point's commands get; `variant` names a variant.
pub fn points_meeting(points: &[crate::study::Point], conds: &[(String, String)]) -> Vec<usize> {
    let meets = |p: &crate::study::Point| {
        conds.iter().all(|(k, v)| {
            if k == "variant" {
                return p.variant.as_deref() == Some(v.as_str());
            }
            match (p.params.get(k), p.client_params.get(k)) {
                (Some(x), _) => same_value(&value_text(x), v),
                (None, Some(x)) => same_value(&x.to_string(), v),
                (None, None) => false,
            }
        })
    };
    points.iter().filter(|p| meets(p)).map(|p| p.id).collect()
}

/// Conditions with each load axis named by its field where the points know it by that name
/// (`c=50` -> `connections=50`); a name the points have as it is (a client study's `n`, which
/// is also the short label of `requests`) stays as it is.
pub fn by_field(
    points: &[crate::study::Point],
    conds: &[(String, String)],
) -> Vec<(String, String)> {
    let has = |k: &str| {
        k == "variant"
            || points
                .iter()
                .any(|p| p.params.contains_key(k) || p.client_params.contains_key(k))
    };
    conds
        .iter()
        .map(|(k, v)| {
            let field = crate::load::AXES
                .iter()
                .find(|(f, l)| *l == k && *f != k)
                .map(|(f, _)| f.to_string())
                .filter(|_| !has(k));
            (field.unwrap_or_else(|| k.clone()), v.clone())
        })
        .collect()
}

/// A swept value against a condition's text: the same text, or the same number ("1" and "1.0").
fn same_value(have: &str, want: &str) -> bool {
    have == want || matches!((have.parse::<f64>(), want.parse::<f64>()), (Ok(a), Ok(b)) if a == b)
}

/// The metric a question's key names: the results' (the registry's or a declared figure), or
/// [`SHARE`], which only a window reads (`check` refuses it without one).
pub fn metric_of(r: &Results, key: &str) -> Option<Metric> {
    match key {
        "share" => Some(SHARE),
        k => metric::find(r, k),
    }
}

/// The share of a trial's measured responses that fall in a question's window, in percent.
pub const SHARE: Metric = Metric {
    key: std::borrow::Cow::Borrowed("share"),
    label: std::borrow::Cow::Borrowed("share of responses"),
    unit: "%",
    scale: 1.0,
    better: metric::Better::Higher,
    noun: None,
    kinds: &[],
    // Read from the per-second series by `window_value`, never from a trial's fields.
    read: metric::Read::Field(|_| None),
    format: metric::Format::Percent,
    compared: false,
    merged_quantile: None,
};

/// A trial's figure over a window of its measured per-second series: `rps` (the window's
/// responses over its seconds) or `share` (the window's responses over the measured run's).
pub fn window_value(t: &Trial, key: &str, w: Window) -> Option<f64> {
    let (mut in_resp, mut in_span, mut all) = (0u64, 0.0f64, 0u64);
    for ph in &t.phases {
        let mut at = 0.0f64;
        for s in ph
            .load
            .series
            .iter()
            .filter(|s| s.phase == crate::load::doc::Phase::Measure)
        {
            let span = if s.span_s > 0.0 { s.span_s } else { 1.0 };
            // A record belongs to the window when it lies inside it (a millisecond's slack for
            // the float sums of spans).
            if at >= w.from_s - 1e-3 && at + span <= w.to_s + 1e-3 {
                in_resp += s.responses;
                in_span += span;
            }
            all += s.responses;
            at += span;
        }
    }
    if in_span <= 0.0 {
        return None;
    }
    match key {
        "rps" => Some(in_resp as f64 / in_span),
        "share" if all > 0 => Some(100.0 * in_resp as f64 / all as f64),
        _ => None,
    }
}

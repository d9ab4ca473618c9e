//! Statistics over trial values: pure functions, table-tested.
//!
//! - [`summarize`]: n, median, mean, sample stddev, min, max, 2nd best, and two 95% confidence
//!   intervals: the exact Student-t interval of the mean, and a percentile bootstrap interval of the
//!   median (10 000 resamples, fixed seed, so the same data always gives the same interval).
//! - [`compare`] / [`compare_worded`]: ratio of medians, a two-sided Mann-Whitney U test
//!   ([`mann_whitney_u`]), significance at α = 0.05, and a hyperfine-style phrase ("1.47x faster",
//!   "108x more memory", or "no significant difference").
//! - [`outliers`] and [`first_trial_slow`]: the warnings a study prints.
//! - [`power`]: trials per contender by power, from a pilot's spread.
//! - [`contrast`]: a Welch contrast of group means on logs (a difference, a ratio of ratios)
//!   with its interval, two-sided test and equivalence (TOST): the test of a study's questions.

pub mod blocks;
pub mod contrast;
pub mod dist;
mod mwu;
pub mod order;
pub mod power;
pub mod ratio;
pub mod seconds;

use serde::{Deserialize, Serialize};

pub use mwu::{mann_whitney_u, MannWhitney, Method as TestMethod, EXACT_MAX};

/// Significance level of every comparison.
pub const ALPHA: f64 = 0.05;
/// Bootstrap resamples for the median's interval.
pub const BOOTSTRAP_RESAMPLES: usize = 10_000;
const BOOTSTRAP_SEED: u64 = 0x6261_7272_6167_6521; // "barrage!"

/// A confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
}

/// Descriptive statistics of one set of trial values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub n: usize,
    pub median: f64,
    pub mean: f64,
    /// Sample standard deviation (n − 1); `None` for n < 2.
    pub stddev: Option<f64>,
    pub min: f64,
    pub max: f64,
    /// Second best value (second largest when higher is better, else second smallest); n ≥ 2.
    pub second_best: Option<f64>,
    /// 95% Student-t interval of the mean (exact under normality); n ≥ 2.
    pub ci95_mean: Option<Interval>,
    /// 95% percentile-bootstrap interval of the median (seeded); n ≥ 2.
    pub ci95_median: Option<Interval>,
}

fn finite(xs: &[f64]) -> bool {
    !xs.is_empty() && xs.iter().all(|x| x.is_finite())
}

fn sorted(xs: &[f64]) -> Vec<f64> {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

fn median_sorted(v: &[f64]) -> f64 {
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Median (mean of the two middle values for even n). `None` if empty or not finite.
pub fn median(xs: &[f64]) -> Option<f64> {
    finite(xs).then(|| median_sorted(&sorted(xs)))
}

/// Arithmetic mean.
pub fn mean(xs: &[f64]) -> Option<f64> {
    finite(xs).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

/// Sample standard deviation (divides by n − 1). `None` for n < 2.
pub fn stddev(xs: &[f64]) -> Option<f64> {
    if xs.len() < 2 {
        return None;
    }
    let m = mean(xs)?;
    let ss: f64 = xs.iter().map(|x| (x - m) * (x - m)).sum();
    Some((ss / (xs.len() - 1) as f64).sqrt())
}

/// Minimum.
pub fn min(xs: &[f64]) -> Option<f64> {
    finite(xs).then(|| xs.iter().copied().fold(f64::INFINITY, f64::min))
}

/// Maximum.
pub fn max(xs: &[f64]) -> Option<f64> {
    finite(xs).then(|| xs.iter().copied().fold(f64::NEG_INFINITY, f64::max))
}

/// Second best value ("2nd best of N", which discards one lucky trial). `None` for n < 2.
pub fn second_best(xs: &[f64], higher_is_better: bool) -> Option<f64> {
    if xs.len() < 2 || !finite(xs) {
        return None;
    }
    let v = sorted(xs);
    Some(if higher_is_better {
        v[v.len() - 2]
    } else {
        v[1]
    })
}

/// 95% confidence interval of the mean: mean ± t(0.975, n−1) · s / √n.
pub fn ci95_mean(xs: &[f64]) -> Option<Interval> {
    let s = stddev(xs)?;
    let m = mean(xs)?;
    let n = xs.len() as f64;
    let h = dist::t_quantile(0.975, n - 1.0) * s / n.sqrt();
    Some(Interval {
        lo: m - h,
        hi: m + h,
    })
}

/// Percentile bootstrap interval of the median at `level` (e.g. 0.95), with `resamples`
/// resamples from a generator seeded with `seed`. `None` for n < 2.
pub fn bootstrap_median_ci(
    xs: &[f64],
    level: f64,
    resamples: usize,
    seed: u64,
) -> Option<Interval> {
    if xs.len() < 2 || !finite(xs) || resamples == 0 {
        return None;
    }
    let mut rng = crate::rng::SplitMix64(seed);
    let mut meds = Vec::with_capacity(resamples);
    let mut buf = vec![0.0; xs.len()];
    for _ in 0..resamples {
        for b in buf.iter_mut() {
            *b = xs[rng.below(xs.len())];
        }
        buf.sort_by(f64::total_cmp);
        meds.push(median_sorted(&buf));
    }
    meds.sort_by(f64::total_cmp);
    let q = |p: f64| meds[((p * (resamples - 1) as f64).round() as usize).min(resamples - 1)];
    let tail = (1.0 - level) / 2.0;
    Some(Interval {
        lo: q(tail),
        hi: q(1.0 - tail),
    })
}

/// 95% bootstrap interval of the median with the module's fixed seed and resample count.
pub fn ci95_median(xs: &[f64]) -> Option<Interval> {
    bootstrap_median_ci(xs, 0.95, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED)
}

/// All descriptive statistics at once. `None` if empty or any value is not finite.
pub fn summarize(xs: &[f64], higher_is_better: bool) -> Option<Summary> {
    Some(Summary {
        n: xs.len(),
        median: median(xs)?,
        mean: mean(xs)?,
        stddev: stddev(xs),
        min: min(xs)?,
        max: max(xs)?,
        second_best: second_best(xs, higher_is_better),
        ci95_mean: ci95_mean(xs),
        ci95_median: ci95_median(xs),
    })
}

/// How a comparison is put into words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Wording {
    /// "1.47x faster" / "1.47x slower" (better or worse, by `higher_is_better`).
    Speed,
    /// "108x more memory" / "2.10x less memory" (by the ratio of the medians).
    Amount { noun: String },
}

/// A against B.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub median_a: f64,
    pub median_b: f64,
    /// median(a) / median(b); infinite when B's median is 0 (written as `null` in JSON).
    #[serde(with = "infinite_as_null")]
    pub ratio: f64,
    /// max(ratio, 1/ratio): the "x" figure (infinite, `null` in JSON, when a median is 0).
    #[serde(with = "infinite_as_null")]
    pub factor: f64,
    /// Whether A's median is the better one.
    pub a_better: bool,
    pub u: f64,
    /// Two-sided Mann-Whitney p-value.
    pub p_value: f64,
    pub test: TestMethod,
    /// p < [`ALPHA`] and the medians differ.
    pub significant: bool,
    /// "1.47x faster [1.41, 1.53]", "108x more memory [...]", "no significant difference (...)",
    /// or "3 trials: too few to test; ...".
    pub phrase: String,
    /// 95% confidence interval of the ratio A/B (of the geometric means, from Welch's interval
    /// on logs); `None` when a side has fewer than 2 trials or a non-positive value.
    #[serde(default)]
    pub ratio_ci95: Option<Interval>,
    /// Whether any test could reach significance at these trial counts.
    #[serde(default = "yes")]
    pub testable: bool,
    /// The p-value corrected for every comparison of the study (Holm); `significant` uses it.
    #[serde(default)]
    pub p_adjusted: Option<f64>,
    /// Successful trials on each side.
    #[serde(default)]
    pub n_a: usize,
    #[serde(default)]
    pub n_b: usize,
    /// The interval of the ratio at the level its corrected p-value is judged at (see
    /// [`holm_level`]), and that level; set by [`adjust`]. An interval at 95% beside a p-value
    /// corrected for many tests could exclude 1 where the test does not reject, and a reader
    /// would take "not significant" beside it for a contradiction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_ci: Option<Interval>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_level: Option<f64>,
    /// Welch's test behind `ratio_ci95`, to make intervals at other levels.
    #[serde(skip)]
    pub welch: Option<ratio::WelchLog>,
}

fn yes() -> bool {
    true
}

/// JSON has no infinity: serde_json writes it as `null`, which then fails to read back as `f64`.
/// Write non-finite values as `null` on purpose and read `null` back as +infinity.
mod infinite_as_null {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.is_finite() {
            s.serialize_f64(*v)
        } else {
            s.serialize_none()
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY))
    }
}

/// Format a factor like hyperfine/benchmark-ips: 2 decimals below 10, 1 below 100, none above.
pub fn format_factor(f: f64) -> String {
    if !f.is_finite() {
        "∞".to_string()
    } else if f >= 100.0 {
        format!("{f:.0}")
    } else if f >= 10.0 {
        format!("{f:.1}")
    } else {
        format!("{f:.2}")
    }
}

/// Compare A with B in speed words ("faster"/"slower").
pub fn compare(a: &[f64], b: &[f64], higher_is_better: bool) -> Option<Comparison> {
    compare_worded(a, b, higher_is_better, &Wording::Speed)
}

/// Compare A with B: ratio of medians with the 95% interval of the ratio, a test that can reach
/// significance at the trial count (Welch on logs; Mann-Whitney for non-positive values), and a
/// phrase. The p-value is not yet corrected for the study's other comparisons: see
/// [`adjust`]. `None` if either sample is empty or not finite.
pub fn compare_worded(
    a: &[f64],
    b: &[f64],
    higher_is_better: bool,
    wording: &Wording,
) -> Option<Comparison> {
    let (ma, mb) = (median(a)?, median(b)?);
    let mw = mann_whitney_u(a, b)?;
    let ratio = if ma == mb {
        1.0
    } else if mb == 0.0 {
        f64::INFINITY
    } else {
        ma / mb
    };
    let factor = if ratio == 0.0 {
        f64::INFINITY
    } else if ratio >= 1.0 {
        ratio
    } else {
        1.0 / ratio
    };
    let a_better = if higher_is_better { ma > mb } else { ma < mb };
    let welch = ratio::welch_log(a, b);
    let (p, test) = match (&welch, a.len().min(b.len())) {
        (Some(w), _) => (w.p, TestMethod::WelchLog),
        (None, n) if n >= 2 && mwu_min_p(a.len(), b.len()) < ALPHA => (mw.p, mw.method),
        _ => (1.0, TestMethod::Untested),
    };
    let mut c = Comparison {
        median_a: ma,
        median_b: mb,
        ratio,
        factor,
        a_better,
        u: mw.u,
        p_value: p,
        test,
        significant: false,
        phrase: String::new(),
        ratio_ci95: welch.map(|w| w.ci95),
        testable: test != TestMethod::Untested,
        p_adjusted: None,
        n_a: a.len(),
        n_b: b.len(),
        ratio_ci: None,
        ci_level: None,
        welch: welch.filter(|_| test == TestMethod::WelchLog),
    };
    c.significant = c.testable && p < ALPHA && ma != mb;
    c.phrase = phrase(&c, wording);
    Some(c)
}

/// The smallest two-sided p-value the exact Mann-Whitney test can give with `n` and `m` values:
/// 2 / C(n + m, n) (0.1 for 3 and 3).
pub fn mwu_min_p(n: usize, m: usize) -> f64 {
    let mut c = 1.0;
    for i in 0..n.min(m) {
        c = c * (n + m - i) as f64 / (i + 1) as f64;
    }
    (2.0 / c).min(1.0)
}

/// Corrects the p-values of a study's comparisons together (Holm), and re-decides and re-words
/// each: a claim of significance then holds for the whole set at [`ALPHA`].
pub fn adjust(cs: &mut [(&mut Comparison, Wording)]) {
    let idx: Vec<usize> = (0..cs.len()).filter(|&i| cs[i].0.testable).collect();
    let ps: Vec<f64> = idx.iter().map(|&i| cs[i].0.p_value).collect();
    let m = ps.len();
    for (k, adj) in idx.iter().zip(ratio::holm(&ps)) {
        let (c, wording) = &mut cs[*k];
        c.p_adjusted = Some(adj);
        c.significant = adj < ALPHA && c.median_a != c.median_b;
        if let Some(w) = &c.welch {
            let level = holm_level(c.p_value, adj, m);
            c.ratio_ci = Some(w.ci(level));
            c.ci_level = Some(level);
        }
        c.phrase = phrase(c, wording);
    }
}

/// The confidence level that matches a Holm-corrected test: 1 − α·p/p_adjusted, the level at
/// which the test's own interval excludes "no difference" exactly when the corrected p is below
/// α (p < α·p/p_adj ⇔ p_adj < α). It is Holm's step-down level α/(m − i + 1) for the i-th
/// smallest p (smaller where the step-down carried a larger one forward); with p = 0, Bonferroni's
/// 1 − α/m.
pub fn holm_level(p: f64, p_adjusted: f64, m: usize) -> f64 {
    let gamma = if p_adjusted > 0.0 && p > 0.0 {
        ALPHA * p / p_adjusted
    } else {
        ALPHA / m.max(1) as f64
    };
    1.0 - gamma.min(ALPHA)
}

/// A confidence level for people: "95%", "99.2%", "99.95%".
pub fn format_level(level: f64) -> String {
    let gamma = 1.0 - level;
    let digits = if gamma >= 0.01 {
        1
    } else if gamma >= 0.001 {
        2
    } else {
        3
    };
    let s = format!("{:.*}", digits, 100.0 * level);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}%")
}

/// The words of a comparison: "1.47x faster [1.41, 1.53]" when significant; "no significant
/// difference (1.02x [0.97, 1.08], p = 0.41)"; "3 trials: too few to test; ratio 3.00x".
pub fn phrase(c: &Comparison, wording: &Wording) -> String {
    let f = format_factor(c.factor);
    let ci = interval_text(c);
    let p = c.p_adjusted.unwrap_or(c.p_value);
    if !c.testable {
        let trials = match c.n_a.min(c.n_b) {
            1 => "1 trial".to_string(),
            n => format!("{n} trials"),
        };
        return format!("{trials}: too few to test; ratio {f}x{ci}");
    }
    if !c.significant {
        return format!("no significant difference ({f}x{ci}, p = {})", format_p(p));
    }
    format!("{}{ci}", amount_text(c, wording))
}

/// How A differs from B in words, without the interval: "1.47x faster", "2.10x less memory".
pub fn amount_text(c: &Comparison, wording: &Wording) -> String {
    let f = format_factor(c.factor);
    match wording {
        Wording::Speed => format!("{f}x {}", if c.a_better { "faster" } else { "slower" }),
        Wording::Amount { noun } => format!(
            "{f}x {} {noun}",
            if c.median_a > c.median_b {
                "more"
            } else {
                "less"
            }
        ),
    }
}

/// The ratio's interval in the factor's direction (A/B when A is larger, else B/A), as
/// " [1.41, 1.53]", at the level its corrected p is judged at when that is not 95%:
/// " [1.38, 1.57] at 99.2%"; empty without one.
pub fn interval_text(c: &Comparison) -> String {
    let (ci, level) = match (c.ratio_ci, c.ci_level) {
        (Some(i), Some(l)) => (Some(i), l),
        _ => (c.ratio_ci95, 0.95),
    };
    ci.map_or(String::new(), |i| {
        let (lo, hi) = if c.ratio >= 1.0 {
            (i.lo, i.hi)
        } else {
            (1.0 / i.hi, 1.0 / i.lo)
        };
        let at = if (level - 0.95).abs() > 1e-9 {
            format!(" at {}", format_level(level))
        } else {
            String::new()
        };
        format!(" [{}, {}]{at}", format_factor(lo), format_factor(hi))
    })
}

/// A p-value for people: "0.03", "0.0012", "< 0.0001".
pub fn format_p(p: f64) -> String {
    if p < 1e-4 {
        "< 0.0001".into()
    } else if p < 0.01 {
        format!("{p:.4}")
    } else {
        format!("{p:.2}")
    }
}

/// Threshold of [`outliers`], in scaled MADs.
pub const OUTLIER_MADS: f64 = 3.0;
/// ... and at least this fraction of the median: a trial 0.3% off a tight median is noise, not
/// an outlier, however small the MAD.
pub const OUTLIER_MIN_RELATIVE: f64 = 0.05;

/// Indices of outliers: values more than 3 scaled MADs (1.4826 · median absolute deviation, the
/// normal-consistent scale) from the median. When the MAD is 0 (more than half the values equal),
/// 1.2533 · mean absolute deviation is the scale instead (Iglewicz & Hoaglin); if that is 0 too,
/// there are no outliers. A value must also differ from the median by more than
/// [`OUTLIER_MIN_RELATIVE`] of it, so no difference below the measurement's noise is flagged.
/// Needs n ≥ 3.
pub fn outliers(xs: &[f64]) -> Vec<usize> {
    if xs.len() < 3 || !finite(xs) {
        return Vec::new();
    }
    let med = median_sorted(&sorted(xs));
    let dev: Vec<f64> = xs.iter().map(|x| (x - med).abs()).collect();
    let mut scale = 1.4826 * median_sorted(&sorted(&dev));
    if scale == 0.0 {
        scale = 1.253_314 * dev.iter().sum::<f64>() / dev.len() as f64;
    }
    if scale == 0.0 {
        return Vec::new();
    }
    (0..xs.len())
        .filter(|&i| dev[i] / scale > OUTLIER_MADS && dev[i] > OUTLIER_MIN_RELATIVE * med.abs())
        .collect()
}

/// The first trial was much worse than the rest (cold caches, JIT warm-up, lazy init).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FirstTrialSlow {
    pub first: f64,
    pub median_rest: f64,
    /// How many times worse the first trial is than the median of the rest.
    pub factor: f64,
}

/// Flag a first trial that is worse than every other trial *and* worse than the median of the
/// rest by more than both 3 scaled MADs of the rest and 10% (so tight data does not trip it on
/// noise). Needs n ≥ 3.
pub fn first_trial_slow(xs: &[f64], higher_is_better: bool) -> Option<FirstTrialSlow> {
    if xs.len() < 3 || !finite(xs) {
        return None;
    }
    let (first, rest) = (xs[0], &xs[1..]);
    let rest_sorted = sorted(rest);
    let med = median_sorted(&rest_sorted);
    let mad = 1.4826
        * median_sorted(&sorted(
            &rest.iter().map(|x| (x - med).abs()).collect::<Vec<_>>(),
        ));
    let worst_rest = if higher_is_better {
        rest_sorted[0]
    } else {
        rest_sorted[rest_sorted.len() - 1]
    };
    let worse_than_all = if higher_is_better {
        first < worst_rest
    } else {
        first > worst_rest
    };
    let gap = if higher_is_better {
        med - first
    } else {
        first - med
    };
    let margin = (OUTLIER_MADS * mad).max(0.10 * med.abs());
    if !worse_than_all || gap <= margin {
        return None;
    }
    let factor = if higher_is_better {
        if first > 0.0 {
            med / first
        } else {
            f64::INFINITY
        }
    } else if med > 0.0 {
        first / med
    } else {
        f64::INFINITY
    };
    Some(FirstTrialSlow {
        first,
        median_rest: med,
        factor,
    })
}

#[cfg(test)]
mod tests;

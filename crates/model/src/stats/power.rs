//! Trials by power: how many trials per contender the lab's own test (Welch's t-test on log
//! values, [`super::ratio::welch_log`]) needs to detect a given ratio with a given probability,
//! from the spread of a pilot's trials.
//!
//! On log values a ratio `r` is a difference `δ = |ln r|`; with a standard deviation `σ` of the
//! log values on each side (noise is multiplicative) and `n` trials a side, the test's statistic
//! is about Student's t with `2n − 2` degrees of freedom, shifted by `δ / (σ √(2/n))`. Its power
//! is noncentral t with `2n − 2` degrees of freedom and noncentrality `δ / (σ √(2/n))`. Its power
//! is the chance that it lands beyond the two-sided critical value, computed exactly (the normal
//! integrated over the chi-square of the variance estimate); [`trials_for`] is the smallest `n`
//! whose power reaches the target. This gives the textbook counts (Cohen's d = 1: 17 a side,
//! d = 0.5: 64, at α = 0.05 and 80% power) and is held to the lab's test by simulation in the
//! tests below.
//!
//! A study's questions test contrasts of more than two groups (an interaction is a ratio of
//! ratios, four groups: [`power_contrast`]) and equivalence by two one-sided tests
//! ([`power_equivalence`]); both are held to simulations of their own tests too.

use super::dist::{normal_cdf, t_quantile};
use statrs::distribution::{ChiSquared, Continuous};

/// The most trials a side [`trials_for`] will propose; beyond it the answer is "not feasible".
pub const MAX_TRIALS: u32 = 10_000;

/// The probability that Welch's test on log values, at two-sided level `alpha`, finds a ratio
/// `ratio` significant with `n` trials a side whose log values have standard deviation `sd_log`.
pub fn power_of(n: u32, ratio: f64, sd_log: f64, alpha: f64) -> f64 {
    power_contrast(n, 2, ratio, sd_log, alpha)
}

/// The power of a contrast of `groups` groups of `n` trials each, every coefficient ±1 (two:
/// a difference; four: a ratio of ratios, an interaction), at two-sided level `alpha`, for a
/// true ratio (or ratio of ratios) `ratio`: the contrast's standard error is `σ √(groups/n)`
/// and its degrees of freedom `groups·(n − 1)`.
pub fn power_contrast(n: u32, groups: u32, ratio: f64, sd_log: f64, alpha: f64) -> f64 {
    let delta = ratio.ln().abs();
    if n < 2 || groups < 1 || !delta.is_finite() || alpha <= 0.0 || alpha >= 1.0 {
        return 0.0;
    }
    if sd_log <= 0.0 {
        return if delta > 0.0 { 1.0 } else { alpha };
    }
    let df = groups as f64 * (n as f64 - 1.0);
    let crit = t_quantile(1.0 - alpha / 2.0, df);
    let shift = delta / (sd_log * (groups as f64 / n as f64).sqrt());
    over_variance(df, |s| {
        let c = crit * s;
        (1.0 - normal_cdf(c - shift)) + normal_cdf(-c - shift)
    })
}

/// The power of two one-sided tests (each at level `alpha`) to show a contrast of `groups`
/// groups of `n` trials equivalent within `margin` (the ratio between 1/(1+margin) and
/// 1+margin) when its true ratio is `ratio`: the chance that the estimate lands inside the
/// bounds by more than the critical value times its estimated standard error.
pub fn power_equivalence(
    n: u32,
    groups: u32,
    ratio: f64,
    margin: f64,
    sd_log: f64,
    alpha: f64,
) -> f64 {
    let (d, b) = (ratio.ln(), (1.0 + margin).ln());
    if n < 2 || groups < 1 || !d.is_finite() || b <= 0.0 || alpha <= 0.0 || alpha >= 0.5 {
        return 0.0;
    }
    if sd_log <= 0.0 {
        return if d.abs() < b { 1.0 } else { 0.0 };
    }
    let df = groups as f64 * (n as f64 - 1.0);
    let crit = t_quantile(1.0 - alpha, df);
    let se = sd_log * (groups as f64 / n as f64).sqrt();
    over_variance(df, |s| {
        // Both tests reject iff -b + crit·se·s < estimate < b - crit·se·s.
        let w = b - crit * se * s;
        if w <= 0.0 {
            0.0
        } else {
            (normal_cdf((w - d) / se) - normal_cdf((-w - d) / se)).max(0.0)
        }
    })
}

/// E[f(√(V/df))] for V chi-square with `df` degrees of freedom: a test's chance of rejecting,
/// given how far the estimated standard error falls from the true one (Simpson's rule over
/// V's bulk, ±12 standard deviations).
fn over_variance(df: f64, f: impl Fn(f64) -> f64) -> f64 {
    let Ok(chi) = ChiSquared::new(df) else {
        return 0.0;
    };
    let sd = (2.0 * df).sqrt();
    let (lo, hi) = ((df - 12.0 * sd).max(0.0), df + 12.0 * sd);
    const STEPS: usize = 2000; // even, for Simpson
    let h = (hi - lo) / STEPS as f64;
    let g = |v: f64| f((v / df).sqrt()) * chi.pdf(v);
    let mut sum = g(lo) + g(hi);
    for i in 1..STEPS {
        let w = if i % 2 == 1 { 4.0 } else { 2.0 };
        sum += w * g(lo + i as f64 * h);
    }
    (sum * h / 3.0).clamp(0.0, 1.0)
}

/// The fewest trials a group (at least 2) with which `power(n)`, growing with n, reaches
/// `target`; `None` beyond [`MAX_TRIALS`].
pub fn fewest(target: f64, power: impl Fn(u32) -> f64) -> Option<u32> {
    if !(0.0..1.0).contains(&target) {
        return None;
    }
    if power(2) >= target {
        return Some(2);
    }
    if power(MAX_TRIALS) < target {
        return None;
    }
    let (mut lo, mut hi) = (2, MAX_TRIALS); // power(lo) < target <= power(hi)
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if power(mid) >= target {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

/// The fewest trials a side (at least 2) with which [`power_of`] reaches `power`; `None` when
/// the ratio is 1 (no difference to find) or more than [`MAX_TRIALS`] would be needed.
pub fn trials_for(ratio: f64, sd_log: f64, alpha: f64, power: f64) -> Option<u32> {
    let delta = ratio.ln().abs();
    if delta == 0.0 || !delta.is_finite() {
        return None;
    }
    fewest(power, |n| power_of(n, ratio, sd_log, alpha))
}

/// The standard deviation of the logarithms of `xs` (n − 1), pooled over groups: the spread a
/// pilot's trials show, in the test's own scale. `None` with fewer than 2 values in every
/// group or a value that is not positive.
pub fn pooled_log_sd(groups: &[&[f64]]) -> Option<f64> {
    let mut ss = 0.0;
    let mut df = 0usize;
    for g in groups {
        if g.iter().any(|x| !x.is_finite() || *x <= 0.0) {
            return None;
        }
        if g.len() < 2 {
            continue;
        }
        let logs: Vec<f64> = g.iter().map(|x| x.ln()).collect();
        let m = logs.iter().sum::<f64>() / logs.len() as f64;
        ss += logs.iter().map(|l| (l - m) * (l - m)).sum::<f64>();
        df += logs.len() - 1;
    }
    (df > 0).then(|| (ss / df as f64).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;
    use crate::stats::ratio::welch_log;

    /// Cohen's d = δ/σ; the textbook (G*Power, two-sided t-test, α = 0.05, power 0.8) counts.
    #[test]
    fn textbook_counts() {
        let sd: f64 = 0.1;
        for (d, want) in [(1.0, 17), (0.5, 64), (0.8, 26), (2.0, 6)] {
            let ratio = (d * sd).exp();
            assert_eq!(trials_for(ratio, sd, 0.05, 0.8), Some(want), "d = {d}");
            // The same for the reciprocal ratio: a difference either way.
            assert_eq!(
                trials_for(1.0 / ratio, sd, 0.05, 0.8),
                Some(want),
                "d = -{d}"
            );
        }
        // d = 1 with 17 a side has power 0.807 (G*Power's exact figure), 16 falls short.
        let p = power_of(17, 0.1f64.exp(), 0.1, 0.05);
        assert!((p - 0.807).abs() < 0.005, "{p}");
        assert!(power_of(16, 0.1f64.exp(), 0.1, 0.05) < 0.8);
        // No difference, no count; noiseless trials need the minimum.
        assert_eq!(trials_for(1.0, 0.1, 0.05, 0.8), None);
        assert_eq!(trials_for(1.01, 0.0, 0.05, 0.8), Some(2));
        // A tiny ratio under large noise is not feasible.
        assert_eq!(trials_for(1.0001, 0.5, 0.05, 0.8), None);
        // A stricter level (Holm over 20 comparisons: 0.05/20) needs more.
        let strict = trials_for(0.1f64.exp(), 0.1, 0.05 / 20.0, 0.8).unwrap();
        assert!(strict > 17, "{strict}");
    }

    #[test]
    fn pooled_spread_of_logs() {
        // ln values {0, 0.2} and {1, 1.2}: each has variance 0.02, pooled sd √0.02.
        let a = [1.0, 0.2f64.exp()];
        let b = [1f64.exp(), 1.2f64.exp()];
        let sd = pooled_log_sd(&[&a, &b]).unwrap();
        assert!((sd - 0.02f64.sqrt()).abs() < 1e-12, "{sd}");
        // A group of one adds nothing; none of two: no spread.
        assert_eq!(pooled_log_sd(&[&a, &[5.0]]), pooled_log_sd(&[&a]));
        assert_eq!(pooled_log_sd(&[&[5.0]]), None);
        assert_eq!(pooled_log_sd(&[&[1.0, -1.0]]), None);
    }

    /// A standard normal draw (Box-Muller).
    fn normal(rng: &mut SplitMix64) -> f64 {
        let u = rng.unit().max(1e-300);
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * rng.unit()).cos()
    }

    /// The share of simulated studies in which the lab's own test is significant.
    fn simulated_power(n: u32, ratio: f64, sd: f64, alpha: f64, runs: u32, seed: u64) -> f64 {
        let mut rng = SplitMix64(seed);
        let mut hits = 0;
        for _ in 0..runs {
            let mut side = |mean: f64| -> Vec<f64> {
                (0..n)
                    .map(|_| (mean + sd * normal(&mut rng)).exp())
                    .collect()
            };
            let (a, b) = (side(ratio.ln()), side(0.0));
            if welch_log(&a, &b).is_some_and(|w| w.p < alpha) {
                hits += 1;
            }
        }
        hits as f64 / runs as f64
    }

    /// The count proposed gives the lab's test (Welch's, on simulated log-normal trials) the
    /// power asked for: within 3 points of the formula at each count (4000 runs: a standard
    /// error of 0.6 points), across effect sizes and the Holm-strict levels a study uses.
    #[test]
    fn the_count_gives_the_lab_test_its_power() {
        for (ratio, sd, alpha) in [
            (1.10, 0.08, 0.05),
            (1.347, 0.15, 0.05 / 35.0), // the seed's 60.2 s / 44.7 s over 35 comparisons
            (1.05, 0.02, 0.05 / 10.0),
        ] {
            let n = trials_for(ratio, sd, alpha, 0.8).unwrap();
            let want = power_of(n, ratio, sd, alpha);
            assert!(want >= 0.8);
            let got = simulated_power(n, ratio, sd, alpha, 4000, 42 + n as u64);
            assert!(
                (got - want).abs() < 0.03,
                "ratio {ratio}, sd {sd}, alpha {alpha}: n = {n}, formula {want:.3}, simulated {got:.3}"
            );
            assert!(got > 0.77, "{got}");
        }
    }
}

//! Intervals of a run's ratio figures (throughput = responses / seconds, mean latency = summed
//! latency / responses, error rate = errors / attempts) from how the figure moved while the run
//! went on: a block bootstrap over its per-second records (Künsch 1989).
//!
//! Each resample strings together ⌈n/b⌉ blocks of b consecutive seconds drawn with replacement
//! (b = ⌊n^(1/3)⌋, the usual order for a mean), so the seconds' dependence within a block is
//! kept. The blocks wrap around the run's end (the circular bootstrap, Politis & Romano 1992),
//! so every second is drawn as often and the resamples centre on the run's own figure; the figure of each resample is Σ numerator / Σ denominator. The draws come from a fixed
//! seed: the same run always gets the same interval, and a verdict built on it repeats.
//!
//! The interval is the figure ± z·se, se the standard deviation of the resampled figures. The
//! resamples' spread is too small over few blocks (that of m − 1 over m blocks) and their tails
//! too light (with 5 seconds, no resample lies beyond the slowest second), so percentiles of the
//! resamples would cover less than they claim; z is Student's, stretched for that spread:
//! z = √(m/(m−1)) · t(1 − α/2, m − 1), m = ⌊n/b⌋ independent blocks (the "expanded" correction,
//! Hesterberg 2015). With one-second blocks of independent seconds this is exactly the
//! t-interval of the mean, so it holds its level down to two seconds (t with one degree of
//! freedom, 12.71, pays for how little two seconds say of a spread). Fewer than
//! [`MIN_SECONDS`] seconds give no interval.
//!
//! What it assumes: the load was stationary over the run (seconds from one process), and
//! seconds further apart than a block are close to independent.

use super::dist::t_quantile;
use super::Interval;
use crate::rng::SplitMix64;

/// Fewer seconds than this cannot show how a figure varies: no interval. Two can (their
/// difference, with Student's t of one degree of freedom): a 2 s run, the shortest a CI gate
/// runs, is judged by them.
pub const MIN_SECONDS: usize = 2;

/// A block bootstrap's interval of a ratio figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockInterval {
    /// The figure of the whole run: Σ numerator / Σ denominator.
    pub estimate: f64,
    pub interval: Interval,
    /// Standard deviation of the resampled figures (the figure's standard error).
    pub se: f64,
    /// Seconds per block, and independent blocks in the run (⌊n/b⌋).
    pub block: usize,
    pub blocks: usize,
}

/// Seconds per block for a run of `n` seconds: ⌊n^(1/3)⌋, at least 1.
pub fn block_len(n: usize) -> usize {
    ((n as f64).cbrt() + 1e-9).floor().max(1.0) as usize
}

/// The interval at `level` of Σ`num` / Σ`den` over per-second records (`num[i]`, `den[i]`),
/// from `resamples` block resamples drawn from `seed`. `None` with fewer than [`MIN_SECONDS`]
/// records, a non-finite value, or no denominator.
pub fn ratio_interval(
    num: &[f64],
    den: &[f64],
    level: f64,
    resamples: usize,
    seed: u64,
) -> Option<BlockInterval> {
    let n = num.len();
    let finite = |xs: &[f64]| xs.iter().all(|x| x.is_finite());
    if n < MIN_SECONDS || den.len() != n || !finite(num) || !finite(den) || resamples < 2 {
        return None;
    }
    let total = den.iter().sum::<f64>();
    if total <= 0.0 {
        return None;
    }
    let estimate = num.iter().sum::<f64>() / total;
    let b = block_len(n);
    let blocks = n / b;
    let per_resample = n.div_ceil(b);
    let mut rng = SplitMix64(seed);
    let mut figures = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        let (mut s_num, mut s_den, mut left) = (0.0, 0.0, n);
        for _ in 0..per_resample {
            let at = rng.below(n);
            for i in (at..at + b.min(left)).map(|i| i % n) {
                s_num += num[i];
                s_den += den[i];
            }
            left -= b.min(left);
        }
        // A resample of seconds without any denominator (no response at all) has no figure.
        if s_den > 0.0 {
            figures.push(s_num / s_den);
        }
    }
    if figures.len() < 2 {
        return None;
    }
    let k = figures.len();
    let mean = figures.iter().sum::<f64>() / k as f64;
    let se = (figures.iter().map(|f| (f - mean).powi(2)).sum::<f64>() / (k - 1) as f64).sqrt();
    let m = blocks.max(2) as f64;
    let z = (m / (m - 1.0)).sqrt() * t_quantile(1.0 - (1.0 - level) / 2.0, m - 1.0);
    Some(BlockInterval {
        estimate,
        interval: Interval {
            lo: estimate - z * se,
            hi: estimate + z * se,
        },
        se,
        block: b,
        blocks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Standard normal draws (Box-Muller) from a seeded generator.
    fn normals(seed: u64, n: usize) -> Vec<f64> {
        let mut r = SplitMix64(seed);
        (0..n)
            .map(|_| {
                let (u, v) = (r.unit().max(1e-300), r.unit());
                (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
            })
            .collect()
    }

    #[test]
    fn block_lengths() {
        let got: Vec<usize> = [1, 5, 7, 8, 26, 27, 60, 3600].map(block_len).to_vec();
        assert_eq!(got, vec![1, 1, 1, 2, 2, 3, 3, 15]);
    }

    #[test]
    fn independent_seconds_get_the_known_standard_error() {
        // 1,000 req/s ± 50 (sd) a second for 200 s: the throughput's standard error is
        // 50/√200 = 3.54 req/s; the bootstrap's, from one such series, within 15% of it
        // (the series' own sd differs from 50 by ~5%, the blocks add ~10%).
        let xs: Vec<f64> = normals(7, 200).iter().map(|z| 1000.0 + 50.0 * z).collect();
        let ones = vec![1.0; xs.len()];
        let b = ratio_interval(&xs, &ones, 0.95, 10_000, 1).unwrap();
        let want = 50.0 / 200f64.sqrt();
        assert!((b.se / want - 1.0).abs() < 0.15, "se {} vs {want}", b.se);
        let half = (b.interval.hi - b.interval.lo) / 2.0;
        assert!(
            (half / (1.96 * want) - 1.0).abs() < 0.2,
            "half-width {half}"
        );
        assert!(b.interval.lo < b.estimate && b.estimate < b.interval.hi);
        // The same data and seed: the same interval.
        assert_eq!(ratio_interval(&xs, &ones, 0.95, 10_000, 1), Some(b));
    }

    #[test]
    fn intervals_cover_the_true_figure_at_their_level() {
        // 400 runs of 2 s and 5 s (one block a second) and of 8 s (blocks of 2 s), 1,000 ± 50
        // req/s a second: the interval covers 1,000 about 95% of the time (the resamples' own
        // percentiles, even expanded, covered 93%); with 400 runs the share lands within ±3% of
        // the true coverage with 99% probability. Two seconds are the t-interval of one degree
        // of freedom, exact for normal seconds.
        for secs in [2, 5, 8] {
            let ones = vec![1.0; secs];
            let covered = (0..400)
                .filter(|&i| {
                    let xs: Vec<f64> = normals(100 + i, secs)
                        .iter()
                        .map(|z| 1000.0 + 50.0 * z)
                        .collect();
                    let b = ratio_interval(&xs, &ones, 0.95, 2_000, 1).unwrap();
                    b.interval.lo <= 1000.0 && 1000.0 <= b.interval.hi
                })
                .count();
            let share = covered as f64 / 400.0;
            assert!(
                (0.92..=0.995).contains(&share),
                "{secs} s: coverage {share}"
            );
        }
    }

    #[test]
    fn dependent_seconds_widen_the_interval() {
        // AR(1) seconds, x_t = 0.5·x_{t−1} + e_t, e ~ N(0, 1): the variance of the mean of n is
        // about (1 + φ)/(1 − φ) = 3 times that of independent seconds of the same spread
        // (σ² = 1/(1 − φ²)). Blocks keep that; seconds resampled one by one would not.
        let n = 2000;
        let e = normals(11, n);
        let mut xs = Vec::with_capacity(n);
        let mut x = 0.0;
        for z in e {
            x = 0.5 * x + z;
            xs.push(100.0 + x);
        }
        let ones = vec![1.0; n];
        let b = ratio_interval(&xs, &ones, 0.95, 4_000, 1).unwrap();
        let iid_var = (1.0 / (1.0 - 0.25)) / n as f64;
        let ratio = b.se * b.se / iid_var;
        assert!((2.2..=3.8).contains(&ratio), "variance ratio {ratio}");
    }

    #[test]
    fn ratios_weigh_seconds_by_their_denominator_and_short_runs_get_none() {
        // Mean latency: 100 responses of 1 ms, then 300 of 3 ms: 2.5 ms, not the mean of means.
        let (num, den) = ([100.0, 900.0, 100.0, 900.0], [100.0, 300.0, 100.0, 300.0]);
        let b = ratio_interval(&num, &den, 0.95, 1_000, 1).unwrap();
        assert_eq!(b.estimate, 2.5);
        assert!(b.interval.lo < 2.5 && 2.5 < b.interval.hi);
        assert_eq!(ratio_interval(&[1.0], &[1.0], 0.95, 100, 1), None);
        assert_eq!(ratio_interval(&[0.0; 4], &[0.0; 4], 0.95, 100, 1), None);
    }
}

//! Distribution-free intervals of a percentile from one run's own responses, by order
//! statistics.
//!
//! Of `n` independent draws of one distribution, the number `B` at or below its true
//! p-quantile ξ is Binomial(n, p), whatever the distribution. So the interval between the
//! `l`-th and `u`-th smallest draws, [X₍ₗ₎, X₍ᵤ₎], covers ξ with probability
//! P(l ≤ B ≤ u − 1). [`quantile_ranks`] picks the ranks equal-tailed: `l − 1` the largest k with
//! P(B ≤ k) ≤ α/2 and `u − 1` the smallest k with P(B ≤ k) ≥ 1 − α/2, so the coverage is at
//! least the level asked. A rank that falls off the sample (no `l` ≥ 1, or `u` > n) is an end
//! the responses cannot bound: p99.9 of 1,600 responses is somewhere from its 1,596th response
//! up, possibly beyond the slowest seen.
//!
//! [`hdr_interval`] reads those ranks from an HDR histogram (a run's, or shards' merged: counts
//! add, so the ranks are exact), widened to the edges of the buckets they fall in.

use super::Interval;
use statrs::distribution::{Binomial, DiscreteCDF};

/// The ranks (1-based) of the order statistics bounding the p-quantile of `n` draws at
/// confidence `level`: `(Some(l), Some(u))`, or `None` for an end the sample cannot bound.
/// `None` when `n` is 0 or `p` or `level` is outside (0, 1).
pub fn quantile_ranks(n: u64, p: f64, level: f64) -> Option<(Option<u64>, Option<u64>)> {
    let valid = |x: f64| x > 0.0 && x < 1.0;
    if n == 0 || !valid(p) || !valid(level) {
        return None;
    }
    let b = Binomial::new(p, n).ok()?;
    let tail = (1.0 - level) / 2.0;
    // P(B <= k) grows with k: bisect for the first k where `above(k)` holds, in 0..=n+1.
    let first = |above: &dyn Fn(u64) -> bool| {
        let (mut lo, mut hi) = (0u64, n + 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if above(mid) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    };
    // l − 1 = the largest k with P(B <= k) <= tail = (the first k above tail) − 1.
    let l = first(&|k| k > n || b.cdf(k) > tail);
    // u − 1 = the first k with P(B <= k) >= 1 − tail.
    let u = first(&|k| k >= n || b.cdf(k) >= 1.0 - tail) + 1;
    Some(((l >= 1).then_some(l), (u <= n).then_some(u)))
}

/// The probability that [X₍ₗ₎, X₍ᵤ₎] covers the p-quantile of `n` draws (an unbounded end as
/// rank 0 or n + 1): P(l ≤ B ≤ u − 1).
pub fn coverage(n: u64, p: f64, l: u64, u: u64) -> f64 {
    let Ok(b) = Binomial::new(p, n) else {
        return 0.0;
    };
    let cdf = |k: i64| if k < 0 { 0.0 } else { b.cdf(k as u64) };
    cdf(u as i64 - 1) - cdf(l as i64 - 1)
}

/// The value of the `rank`-th smallest recorded value (1-based) of `h`, as the lowest and
/// highest value of its bucket.
pub fn hdr_rank(h: &hdrhistogram::Histogram<u64>, rank: u64) -> Option<(u64, u64)> {
    if rank == 0 || rank > h.len() {
        return None;
    }
    let mut seen = 0;
    for v in h.iter_recorded() {
        seen += v.count_at_value();
        if seen >= rank {
            let x = v.value_iterated_to();
            return Some((h.lowest_equivalent(x), h.highest_equivalent(x)));
        }
    }
    None
}

/// An interval with ends that may be open: `None` where the data cannot bound it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub lo: Option<f64>,
    pub hi: Option<f64>,
}

impl Bounds {
    /// Both ends, when both are bounded.
    pub fn closed(&self) -> Option<Interval> {
        Some(Interval {
            lo: self.lo?,
            hi: self.hi?,
        })
    }
}

/// The interval of the p-quantile of the values in `h` at `level`, treating them as `n_eff`
/// independent draws (`h.len()` for independent responses; fewer when responses move together:
/// the ranks are those of `n_eff` draws, scaled to `h.len()`). `None` for an empty histogram.
pub fn hdr_interval(
    h: &hdrhistogram::Histogram<u64>,
    p: f64,
    level: f64,
    n_eff: f64,
) -> Option<Bounds> {
    let n = h.len();
    let m = (n_eff.min(n as f64).floor() as u64).max(1);
    let (l, u) = quantile_ranks(m, p, level)?;
    // A rank of m draws is the same share of the n responses: rank r of m is rank
    // r·n/m (rounded outward, so the interval only widens).
    let scale = n as f64 / m as f64;
    let lo = l.map(|l| ((l - 1) as f64 * scale).floor() as u64 + 1);
    let hi = u
        .map(|u| (u as f64 * scale).ceil() as u64)
        .filter(|&u| u <= n);
    Some(Bounds {
        lo: lo.and_then(|r| hdr_rank(h, r)).map(|(lo, _)| lo as f64),
        hi: hi.and_then(|r| hdr_rank(h, r)).map(|(_, hi)| hi as f64),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (n, p, level, l, u, coverage): the exact equal-tailed order-statistic ranks, computed
    /// with scipy 1.17.1 (`scipy.stats.binom`): `l − 1` the largest k with
    /// `binom.cdf(k, n, p) <= (1 − level)/2`, `u − 1` the smallest k with
    /// `binom.cdf(k, n, p) >= 1 − (1 − level)/2`, coverage `binom.cdf(u − 1) − binom.cdf(l − 1)`.
    /// An `l` of 0 and a `u` of n + 1 are ends the sample cannot bound.
    const SCIPY: &[(u64, f64, f64, u64, u64, f64)] = &[
        (20, 0.5, 0.95, 6, 15, 0.958611),
        (100, 0.5, 0.95, 40, 61, 0.964800),
        (100, 0.9, 0.95, 84, 96, 0.955690),
        (1000, 0.99, 0.95, 983, 997, 0.976095),
        (1600, 0.99, 0.95, 1576, 1592, 0.956749),
        (1600, 0.999, 0.95, 1596, 1601, 0.976384),
        (10000, 0.999, 0.95, 9983, 9997, 0.975457),
        (1000000, 0.5, 0.95, 499020, 500981, 0.950121),
        (1000000, 0.999, 0.95, 998938, 999062, 0.950207),
        (50, 0.999, 0.95, 49, 51, 0.998814),
        (5, 0.5, 0.95, 0, 6, 1.000000),
        (4000, 0.9, 0.99, 3550, 3649, 0.990923),
        (1000, 0.5, 0.999, 448, 553, 0.999110),
    ];

    #[test]
    fn ranks_match_the_exact_binomial() {
        for &(n, p, level, l, u, cov) in SCIPY {
            let (gl, gu) = quantile_ranks(n, p, level).unwrap();
            assert_eq!(gl.unwrap_or(0), l, "l of n={n} p={p} level={level}");
            assert_eq!(gu.unwrap_or(n + 1), u, "u of n={n} p={p} level={level}");
            let c = coverage(n, p, l, u);
            assert!((c - cov).abs() < 2e-6, "coverage n={n} p={p}: {c} vs {cov}");
            assert!(c >= level, "n={n} p={p}: coverage {c} below {level}");
        }
        assert_eq!(quantile_ranks(0, 0.5, 0.95), None);
        assert_eq!(quantile_ranks(10, 1.0, 0.95), None);
    }

    #[test]
    fn the_histogram_gives_the_values_at_those_ranks() {
        // 1..=1000 µs once each: the k-th smallest is k (exact below 2048 at 3 digits).
        let mut h = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).unwrap();
        for v in 1..=1000 {
            h.record(v).unwrap();
        }
        assert_eq!(hdr_rank(&h, 1), Some((1, 1)));
        assert_eq!(hdr_rank(&h, 983), Some((983, 983)));
        assert_eq!(hdr_rank(&h, 1001), None);
        let b = hdr_interval(&h, 0.99, 0.95, 1000.0).unwrap();
        assert_eq!((b.lo, b.hi), (Some(983.0), Some(997.0)));
        // p50 of 1000 at 99.9%: ranks 448 and 553.
        let b = hdr_interval(&h, 0.5, 0.999, 1000.0).unwrap();
        assert_eq!((b.lo, b.hi), (Some(448.0), Some(553.0)));
        // p99.9 of 1000 cannot be bounded above; as if only 50 were independent, neither
        // can p99 (ranks 49 and 51 of 50).
        assert_eq!(hdr_interval(&h, 0.999, 0.95, 1000.0).unwrap().hi, None);
        let b = hdr_interval(&h, 0.999, 0.95, 50.0).unwrap();
        assert_eq!((b.lo, b.hi), (Some(961.0), None));
        // Half the draws independent: the ranks of 500 (p50: 228 and 273, from scipy as above)
        // stretched to 1000: (228 − 1)·2 + 1 = 455 and 273·2 = 546.
        assert_eq!(quantile_ranks(500, 0.5, 0.95), Some((Some(228), Some(273))));
        let b = hdr_interval(&h, 0.5, 0.95, 500.0).unwrap();
        assert_eq!((b.lo, b.hi), (Some(455.0), Some(546.0)));
    }
}

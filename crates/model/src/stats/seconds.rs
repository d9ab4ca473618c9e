//! Intervals of a run's latency percentiles from how they moved over its seconds: the block
//! bootstrap of `stats::blocks`, resampling whole seconds with their own histograms.
//!
//! Order statistics (`stats::order`) assume independent responses; a stall of the server or of
//! the machine slows many at once, and a percentile of one run then differs from the next run's
//! by far more than its ranks allow. Resampling seconds (in blocks, circularly, from a fixed
//! seed) keeps each second's responses together, so the spread of a percentile over the
//! resamples includes how it moved in time. Each resample's percentiles are read from the
//! merged counts of its seconds; the interval is exp(ln q ± z·se) with se the spread of
//! ln q over the resamples and z the expanded Student quantile of `stats::blocks` (few blocks
//! make a bootstrap too narrow; two seconds, the fewest, take Student's t of one degree of
//! freedom). Each end is then read out to the next bucket of the seconds' histograms: they
//! keep 2 significant digits, so a percentile is known to a bucket either way, and two seconds
//! whose percentile fell in one bucket would otherwise give an interval of no width. (On 28
//! recorded real runs, `tests/it/short_runs.rs`: 2-second windows' p50 intervals held the rest
//! of their run's p50 in 151 of 168 windows with the bucket, 145 without; 3-second windows in
//! 100 and 93 of 112.)

use super::blocks::{block_len, MIN_SECONDS};
use super::dist::t_quantile;
use super::Interval;
use crate::rng::SplitMix64;
use hdrhistogram::Histogram;

/// The interval at `level` of each quantile of `ps` over the per-second histograms `seconds`,
/// around the run's own values `values` (µs, in the order of `ps`), from `resamples` resamples
/// drawn from `seed`. `None` with fewer than [`MIN_SECONDS`] seconds or no response; a quantile
/// whose value is 0 has no interval.
pub fn quantile_intervals(
    seconds: &[Histogram<u64>],
    ps: &[f64],
    values: &[f64],
    level: f64,
    resamples: usize,
    seed: u64,
) -> Option<Vec<Option<Interval>>> {
    let n = seconds.len();
    if n < MIN_SECONDS || resamples < 2 || ps.len() != values.len() {
        return None;
    }
    // Every value any second recorded, once: the resamples count on this grid.
    let mut grid: Vec<u64> = seconds
        .iter()
        .flat_map(|h| h.iter_recorded().map(|v| v.value_iterated_to()))
        .collect();
    grid.sort_unstable();
    grid.dedup();
    if grid.is_empty() {
        return None;
    }
    let sparse: Vec<Vec<(usize, u64)>> = seconds
        .iter()
        .map(|h| {
            h.iter_recorded()
                .map(|v| {
                    let at = grid.binary_search(&v.value_iterated_to()).unwrap_or(0);
                    (at, v.count_at_value())
                })
                .collect()
        })
        .collect();
    let b = block_len(n);
    let per_resample = n.div_ceil(b);
    let mut rng = SplitMix64(seed);
    let mut counts = vec![0u64; grid.len()];
    let mut logs: Vec<Vec<f64>> = vec![Vec::with_capacity(resamples); ps.len()];
    for _ in 0..resamples {
        counts.iter_mut().for_each(|c| *c = 0);
        let (mut total, mut left) = (0u64, n);
        for _ in 0..per_resample {
            let at = rng.below(n);
            for i in (at..at + b.min(left)).map(|i| i % n) {
                for &(g, c) in &sparse[i] {
                    counts[g] += c;
                    total += c;
                }
            }
            left -= b.min(left);
        }
        if total == 0 {
            continue;
        }
        // The value at each quantile: the first grid value whose running count reaches
        // ⌈q·total⌉ (as the HDR histogram reads a quantile).
        let mut want: Vec<(usize, u64)> = ps
            .iter()
            .enumerate()
            .map(|(k, p)| (k, ((p * total as f64).ceil() as u64).clamp(1, total)))
            .collect();
        want.sort_by_key(|w| w.1);
        let (mut seen, mut g) = (0u64, 0usize);
        for (k, rank) in want {
            while seen + counts[g] < rank {
                seen += counts[g];
                g += 1;
            }
            if grid[g] > 0 {
                logs[k].push((grid[g] as f64).ln());
            }
        }
    }
    let m = (n / b).max(2) as f64;
    let z = (m / (m - 1.0)).sqrt() * t_quantile(1.0 - (1.0 - level) / 2.0, m - 1.0);
    Some(
        logs.iter()
            .zip(values)
            .map(|(l, &v)| {
                if l.len() < 2 || v <= 0.0 {
                    return None;
                }
                let mean = l.iter().sum::<f64>() / l.len() as f64;
                let var = l.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (l.len() - 1) as f64;
                let h = z * var.sqrt();
                Some(Interval {
                    lo: bucket_below(&seconds[0], v * (-h).exp()),
                    hi: bucket_above(&seconds[0], v * h.exp()),
                })
            })
            .collect(),
    )
}

/// The lowest value of the bucket below the one `x` falls in, at the precision of `h`. (`x`
/// to the nearest µs first, the unit recorded: an end a rounding error below a value must not
/// fall a bucket further.)
fn bucket_below(h: &Histogram<u64>, x: f64) -> f64 {
    let at = h.lowest_equivalent(x.max(0.0).round() as u64);
    h.lowest_equivalent(at.saturating_sub(1)) as f64
}

/// The highest value of the bucket above the one `x` falls in, at the precision of `h`.
fn bucket_above(h: &Histogram<u64>, x: f64) -> f64 {
    let at = h.highest_equivalent(x.max(0.0).round() as u64);
    h.highest_equivalent(at.saturating_add(1)) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn second(values: impl IntoIterator<Item = u64>) -> Histogram<u64> {
        let mut h = Histogram::<u64>::new_with_bounds(1, 60_000_000, 2).unwrap();
        for v in values {
            h.record(v).unwrap();
        }
        h
    }

    #[test]
    fn seconds_that_agree_give_a_tight_interval_and_seconds_that_differ_a_wide_one() {
        // Ten seconds alike (100..=199 µs each): every resample has the same p50, 150, and the
        // interval is the buckets either side of it (below 256 µs a 2-digit histogram's
        // buckets are 1 µs wide): 149 to 151. At 5,000 µs they are 32 µs wide (4,992..5,023):
        // the interval of a p50 of 5,000 runs from the bucket below, 4,960, to 5,055.
        let alike: Vec<_> = (0..10).map(|_| second(100..200)).collect();
        let i = quantile_intervals(&alike, &[0.5], &[150.0], 0.95, 500, 1).unwrap();
        let p50 = i[0].unwrap();
        assert_eq!((p50.lo, p50.hi), (149.0, 151.0));
        let slow: Vec<_> = (0..2).map(|_| second(4000..6000)).collect();
        let i = quantile_intervals(&slow, &[0.5], &[5000.0], 0.95, 500, 1).unwrap();
        let p50 = i[0].unwrap();
        assert_eq!((p50.lo, p50.hi), (4960.0, 5055.0));
        // The last five seconds twice as slow: the p50 of a resample moves with how many of
        // those it drew, and the interval spans much of the way between.
        let mixed: Vec<_> = (0..10)
            .map(|i| {
                if i < 5 {
                    second(100..200)
                } else {
                    second(200..400)
                }
            })
            .collect();
        let i = quantile_intervals(&mixed, &[0.5, 0.99], &[200.0, 390.0], 0.95, 2000, 1).unwrap();
        let p50 = i[0].unwrap();
        assert!(p50.lo < 170.0 && p50.hi > 235.0, "{p50:?}");
        // The same seed, the same interval; fewer than 2 seconds, none.
        let again = quantile_intervals(&mixed, &[0.5, 0.99], &[200.0, 390.0], 0.95, 2000, 1);
        assert_eq!(again.unwrap()[0], Some(p50));
        assert_eq!(
            quantile_intervals(&mixed[..1], &[0.5], &[200.0], 0.95, 100, 1),
            None
        );
    }
}

//! One line across a point's trials: at each sampling instant, the median of the trials' values
//! inside their min-max band. Ten overlapping CPU lines hide what a reader asks ("how busy was
//! it, and how much did that vary?"); the median and the band answer both.
//!
//! The trials' samplers do not tick in step, so samples are put in bins one sampling interval
//! wide (on the trial's own clock, seconds since it started); a trial with two samples in one bin
//! counts once, with their mean. Where only some trials still run (a failed trial ended early),
//! the median and band are of those that do.

use std::collections::BTreeMap;

/// One bin: its time (the bin's centre), and the median, min and max over the trials in it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Across {
    pub t: f64,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// How many trials had a sample in the bin.
    pub trials: usize,
}

/// `series`: per trial, its (seconds since trial start, value) samples; `step`: the sampling
/// interval in seconds (bins are this wide, centred on multiples of it).
pub fn across(series: &[Vec<(f64, f64)>], step: f64) -> Vec<Across> {
    if step.is_nan() || step <= 0.0 {
        return Vec::new();
    }
    let mut bins: BTreeMap<i64, Vec<f64>> = BTreeMap::new();
    for s in series {
        // This trial's mean per bin first, so one trial counts once per bin.
        let mut own: BTreeMap<i64, (f64, u32)> = BTreeMap::new();
        for &(t, v) in s {
            if !t.is_finite() || !v.is_finite() {
                continue;
            }
            let e = own.entry((t / step).round() as i64).or_insert((0.0, 0));
            e.0 += v;
            e.1 += 1;
        }
        for (k, (sum, n)) in own {
            bins.entry(k).or_default().push(sum / f64::from(n));
        }
    }
    bins.into_iter()
        .map(|(k, mut v)| {
            v.sort_by(f64::total_cmp);
            let n = v.len();
            let median = if n % 2 == 1 {
                v[n / 2]
            } else {
                (v[n / 2 - 1] + v[n / 2]) / 2.0
            };
            Across {
                t: k as f64 * step,
                median,
                min: v[0],
                max: v[n - 1],
                trials: n,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(t: f64, median: f64, min: f64, max: f64, trials: usize) -> Across {
        Across {
            t,
            median,
            min,
            max,
            trials,
        }
    }

    #[test]
    fn median_and_band_of_trials_sampled_out_of_step() {
        // Three trials sampled every 0.1 s, each with its own phase (up to 0.04 s off).
        let s = vec![
            vec![(0.10, 10.0), (0.20, 40.0), (0.30, 90.0)],
            vec![(0.13, 20.0), (0.23, 50.0), (0.33, 70.0)],
            vec![(0.08, 30.0), (0.19, 60.0)],
        ];
        let got = across(&s, 0.1);
        assert_eq!(got.len(), 3);
        let want = [
            a(0.1, 20.0, 10.0, 30.0, 3),
            a(0.2, 50.0, 40.0, 60.0, 3),
            // The third trial has ended: the other two, median of an even count.
            a(0.30000000000000004, 80.0, 70.0, 90.0, 2),
        ];
        for (g, w) in got.iter().zip(want) {
            assert!((g.t - w.t).abs() < 1e-9, "{g:?}");
            assert_eq!(
                (g.median, g.min, g.max, g.trials),
                (w.median, w.min, w.max, w.trials)
            );
        }
    }

    #[test]
    fn a_trial_with_two_samples_in_a_bin_counts_once() {
        let s = vec![vec![(1.0, 100.0), (1.04, 200.0)], vec![(1.0, 0.0)]];
        let got = across(&s, 0.1);
        assert_eq!(got.len(), 1);
        // Trial 1's mean (150) and trial 2's 0: median 75, band 0..150.
        assert_eq!(
            (got[0].median, got[0].min, got[0].max, got[0].trials),
            (75.0, 0.0, 150.0, 2)
        );
    }

    #[test]
    fn one_trial_is_its_own_line_and_bad_input_is_skipped() {
        let s = vec![vec![(0.5, 12.5), (1.0, f64::NAN), (1.5, 7.0)]];
        let got = across(&s, 0.5);
        assert_eq!(
            got,
            vec![a(0.5, 12.5, 12.5, 12.5, 1), a(1.5, 7.0, 7.0, 7.0, 1)]
        );
        assert!(across(&s, 0.0).is_empty());
        assert!(across(&[], 0.1).is_empty());
    }
}

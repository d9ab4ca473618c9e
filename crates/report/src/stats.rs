//! Statistics, from barrage-model's `stats` module so the report's medians, intervals and verdicts
//! are exactly the terminal's: this module only adapts its summary to what the tables show
//! (median with the 95 % bootstrap interval of the median).

pub use barrage_model::stats::{
    compare_worded, first_trial_slow, outliers, Comparison as LabComparison, Wording, ALPHA,
};

/// Summary of one sample as the report shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub median: f64,
    pub mean: f64,
    /// Sample standard deviation; 0 for a single value.
    pub stddev: f64,
    pub min: f64,
    pub max: f64,
    /// Second best value ("2nd best of N"); `None` with fewer than 2 values.
    pub second_best: Option<f64>,
    /// 95 % bootstrap confidence interval of the median; `None` with fewer than 2 values.
    pub ci: Option<(f64, f64)>,
}

/// Summarises `xs` (non-finite values are dropped); `None` when nothing is left.
pub fn summarize(xs: &[f64], higher_is_better: bool) -> Option<Summary> {
    let v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    let s = barrage_model::stats::summarize(&v, higher_is_better)?;
    Some(Summary {
        n: s.n,
        median: s.median,
        mean: s.mean,
        stddev: s.stddev.unwrap_or(0.0),
        min: s.min,
        max: s.max,
        second_best: s.second_best,
        ci: s.ci95_median.map(|i| (i.lo, i.hi)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adapts_the_lab_summary() {
        let s = summarize(&[3.0, 1.0, 2.0, 4.0, f64::NAN], true).unwrap();
        assert_eq!(
            (s.n, s.median, s.min, s.max, s.second_best),
            (4, 2.5, 1.0, 4.0, Some(3.0))
        );
        assert!((s.stddev - 1.2909944).abs() < 1e-6);
        let (lo, hi) = s.ci.unwrap();
        assert!(lo >= 1.0 && hi <= 4.0 && lo <= 2.5 && hi >= 2.5);
        let one = summarize(&[7.0], false).unwrap();
        assert_eq!((one.ci, one.stddev), (None, 0.0));
        assert!(summarize(&[], true).is_none());
    }
}

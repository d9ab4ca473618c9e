//! The ratio of two contenders and whether it is real, valid at the few trials a study runs.
//!
//! Benchmark figures (times, rates, memory) are positive and their noise is multiplicative, so the
//! comparison works on logarithms: Welch's t-test on `ln(a)` vs `ln(b)` (unequal variances,
//! Welch-Satterthwaite degrees of freedom) gives the p-value, and `exp(mean ln a − mean ln b ±
//! t(0.975, df) · se)` is the 95% confidence interval of the ratio of geometric means. Unlike the
//! exact Mann-Whitney test, whose smallest two-sided p with 3 trials a side is 0.1, this can reach
//! significance with 2-3 trials a side when the difference is large against the noise; with fewer
//! than 2 trials on a side there is no variance and nothing is tested.
//!
//! [`holm`] corrects the p-values of a family of comparisons (Holm-Bonferroni step-down), so a
//! study's set of "significant" claims holds at α as a whole.

use super::dist::{t_cdf, t_quantile};
use super::Interval;

/// Welch's t-test on log values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WelchLog {
    /// exp(mean ln a − mean ln b): the ratio of the geometric means.
    pub ratio: f64,
    /// 95% confidence interval of that ratio.
    pub ci95: Interval,
    /// Two-sided p-value.
    pub p: f64,
    /// Welch-Satterthwaite degrees of freedom (infinite when both variances are 0).
    pub df: f64,
    /// Standard error of the difference of the log means.
    pub se: f64,
}

impl WelchLog {
    /// The interval of the ratio at confidence `level` (the 95% one is `ci95`).
    pub fn ci(&self, level: f64) -> Interval {
        let h = t_quantile(1.0 - (1.0 - level) / 2.0, self.df) * self.se;
        let d = self.ratio.ln();
        Interval {
            lo: (d - h).exp(),
            hi: (d + h).exp(),
        }
    }
}

/// The mean and the sample variance (n − 1) of `xs` (at least 2 values).
pub(super) fn mean_var(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    (m, v)
}

/// The test, or `None` when a side has fewer than 2 values or a value is not positive and finite.
pub fn welch_log(a: &[f64], b: &[f64]) -> Option<WelchLog> {
    let ok = |v: &[f64]| v.len() >= 2 && v.iter().all(|x| x.is_finite() && *x > 0.0);
    if !ok(a) || !ok(b) {
        return None;
    }
    let la: Vec<f64> = a.iter().map(|x| x.ln()).collect();
    let lb: Vec<f64> = b.iter().map(|x| x.ln()).collect();
    let ((ma, va), (mb, vb)) = (mean_var(&la), mean_var(&lb));
    let (sa, sb) = (va / la.len() as f64, vb / lb.len() as f64);
    let d = ma - mb;
    let se = (sa + sb).sqrt();
    if se == 0.0 {
        // No noise at all on either side: any difference is exact.
        let p = if d == 0.0 { 1.0 } else { 0.0 };
        let r = d.exp();
        return Some(WelchLog {
            ratio: r,
            ci95: Interval { lo: r, hi: r },
            p,
            df: f64::INFINITY,
            se: 0.0,
        });
    }
    let df =
        (sa + sb).powi(2) / (sa * sa / (la.len() as f64 - 1.0) + sb * sb / (lb.len() as f64 - 1.0));
    let t = d / se;
    let p = (2.0 * (1.0 - t_cdf(t.abs(), df))).clamp(0.0, 1.0);
    let h = t_quantile(0.975, df) * se;
    Some(WelchLog {
        ratio: d.exp(),
        ci95: Interval {
            lo: (d - h).exp(),
            hi: (d + h).exp(),
        },
        p,
        df,
        se,
    })
}

/// Holm-Bonferroni adjusted p-values (same order as `ps`): the i-th smallest p is multiplied by
/// (m − i), made monotone, and capped at 1. Rejecting where the adjusted p < α controls the
/// family-wise error rate at α over all `m` comparisons.
pub fn holm(ps: &[f64]) -> Vec<f64> {
    let m = ps.len();
    let mut idx: Vec<usize> = (0..m).collect();
    idx.sort_by(|&x, &y| ps[x].total_cmp(&ps[y]));
    let mut out = vec![1.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in idx.iter().enumerate() {
        running = running.max(((m - rank) as f64 * ps[i]).min(1.0));
        out[i] = running;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    /// Known answers from scipy 1.x: `ttest_ind(log(a), log(b), equal_var=False)` and its
    /// `confidence_interval(0.95)`, exponentiated.
    #[test]
    fn welch_on_logs_matches_scipy() {
        // (a, b, p, df, lo, hi): the third is barrage-serve vs ruby-webrick with 3 trials each
        // (significant, and the interval says by how much), the last a 0.25 s and a 0.75 s program.
        type Case = (&'static [f64], &'static [f64], f64, f64, f64, f64);
        #[rustfmt::skip]
        let cases: [Case; 4] = [
            (&[1.0, 1.1, 0.9], &[2.0, 2.1, 1.9], 0.0018964239734209417, 2.936489040514065, 0.4048282688257781, 0.6144464473214722),
            (&[263000.0, 262000.0, 265000.0], &[5600.0, 5550.0, 5700.0], 1.1150493751849339e-07, 2.7060935266633086, 45.552961500453144, 48.259344124932284),
            (&[10.0, 10.4, 9.8, 10.1, 10.3], &[10.2, 9.9, 10.05, 10.35, 10.15], 0.9344325026589133, 7.175999461824534, 0.9689963379392279, 1.0297266235884956),
            (&[0.25, 0.26, 0.24], &[0.75, 0.76, 0.74], 0.00012648786274713442, 2.4385674057857543, 0.3049088063618141, 0.3640620253403789),
        ];
        for (a, b, p, df, lo, hi) in cases {
            let w = welch_log(a, b).unwrap();
            assert!(close(w.p, p, 1e-4), "p {} vs {p}", w.p);
            assert!(close(w.df, df, 1e-9), "df {} vs {df}", w.df);
            assert!(close(w.ci95.lo, lo, 1e-5), "lo {} vs {lo}", w.ci95.lo);
            assert!(close(w.ci95.hi, hi, 1e-5), "hi {} vs {hi}", w.ci95.hi);
        }
    }

    #[test]
    fn welch_needs_two_positive_values_a_side() {
        assert!(welch_log(&[1.0], &[2.0, 3.0]).is_none());
        assert!(welch_log(&[0.0, 1.0], &[2.0, 3.0]).is_none());
        let exact = welch_log(&[2.0, 2.0], &[1.0, 1.0]).unwrap();
        assert_eq!((exact.p, exact.ratio, exact.ci95.lo), (0.0, 2.0, 2.0));
        assert_eq!(welch_log(&[1.0, 1.0], &[1.0, 1.0]).unwrap().p, 1.0);
    }

    /// statsmodels `multipletests([0.01, 0.04, 0.03, 0.005], method="holm")`.
    #[test]
    fn holm_matches_the_reference() {
        let adj = holm(&[0.01, 0.04, 0.03, 0.005]);
        let want = [0.03, 0.06, 0.06, 0.02];
        for (a, w) in adj.iter().zip(want) {
            assert!((a - w).abs() < 1e-12, "{adj:?}");
        }
        assert!(holm(&[]).is_empty());
        assert_eq!(holm(&[0.7, 0.9]), vec![1.0, 1.0]);
    }
}

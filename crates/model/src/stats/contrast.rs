//! A contrast of group means on log values, Welch style: the one test behind a study's
//! questions. A difference of two contenders is the contrast `+A −B`; an interaction across a
//! condition ("the second CPU helps A more than B") is `+A₂ −A₁ −B₂ +B₁`, the log of a ratio of
//! ratios. Each group brings its own variance; the standard error is `√Σ c²·v/n` and the degrees
//! of freedom are Welch-Satterthwaite's generalised to k groups, so two groups give exactly
//! [`super::ratio::welch_log`] (scipy's `ttest_ind(log a, log b, equal_var=False)`).
//!
//! On top of it: the two-sided p-value of "no difference", the confidence interval of the ratio,
//! and equivalence by two one-sided tests (TOST: the ratio lies within `1/(1+m)` and `1+m`),
//! whose p-value is the larger of the two one-sided ones (statsmodels' `ttost_ind` on logs).

use super::dist::{t_cdf, t_quantile};
use super::ratio::mean_var;
use super::Interval;

/// A contrast's estimate on the log scale with its standard error and degrees of freedom.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contrast {
    /// Σ c·mean(ln x): the log of the ratio (of ratios) of geometric means.
    pub estimate: f64,
    /// Its standard error (0 when every group is constant).
    pub se: f64,
    /// Welch-Satterthwaite degrees of freedom (infinite when `se` is 0).
    pub df: f64,
    /// The fewest values in a group.
    pub n_min: usize,
}

/// The contrast `Σ cᵢ · mean(ln groupᵢ)`, or `None` when a group has fewer than 2 values or a
/// value that is not positive and finite.
pub fn log_contrast(groups: &[(&[f64], f64)]) -> Option<Contrast> {
    if groups.is_empty() {
        return None;
    }
    let mut estimate = 0.0;
    let mut var = 0.0;
    let mut df_den = 0.0;
    let mut n_min = usize::MAX;
    for (xs, c) in groups {
        if xs.len() < 2 || xs.iter().any(|x| !x.is_finite() || *x <= 0.0) {
            return None;
        }
        let logs: Vec<f64> = xs.iter().map(|x| x.ln()).collect();
        let (m, v) = mean_var(&logs);
        let n = logs.len() as f64;
        let term = c * c * v / n;
        estimate += c * m;
        var += term;
        df_den += term * term / (n - 1.0);
        n_min = n_min.min(xs.len());
    }
    let se = var.sqrt();
    let df = if df_den > 0.0 {
        var * var / df_den
    } else {
        f64::INFINITY
    };
    Some(Contrast {
        estimate,
        se,
        df,
        n_min,
    })
}

impl Contrast {
    /// exp(estimate): the ratio (of ratios) of geometric means.
    pub fn ratio(&self) -> f64 {
        self.estimate.exp()
    }

    /// The two-sided interval of the ratio at confidence `level`.
    pub fn ci(&self, level: f64) -> Interval {
        let h = if self.se == 0.0 {
            0.0
        } else {
            t_quantile(1.0 - (1.0 - level) / 2.0, self.df) * self.se
        };
        Interval {
            lo: (self.estimate - h).exp(),
            hi: (self.estimate + h).exp(),
        }
    }

    /// One-sided p-value of "the log ratio is at most `log0`" (small when it is above).
    pub fn p_above(&self, log0: f64) -> f64 {
        let d = self.estimate - log0;
        if self.se == 0.0 {
            return if d > 0.0 { 0.0 } else { 1.0 };
        }
        (1.0 - t_cdf(d / self.se, self.df)).clamp(0.0, 1.0)
    }

    /// One-sided p-value of "the log ratio is at least `log0`" (small when it is below).
    pub fn p_below(&self, log0: f64) -> f64 {
        let d = self.estimate - log0;
        if self.se == 0.0 {
            return if d < 0.0 { 0.0 } else { 1.0 };
        }
        t_cdf(d / self.se, self.df).clamp(0.0, 1.0)
    }

    /// Two-sided p-value of "the ratio is 1".
    pub fn p_two_sided(&self) -> f64 {
        (2.0 * self.p_above(0.0).min(self.p_below(0.0))).min(1.0)
    }

    /// Equivalence within `margin` (0.05: the ratio lies between 1/1.05 and 1.05) by two
    /// one-sided tests: the larger of their p-values. Below α, the (1 − 2α) interval lies
    /// inside the bounds.
    pub fn p_equivalent(&self, margin: f64) -> f64 {
        let b = (1.0 + margin).ln();
        self.p_above(-b).max(self.p_below(b))
    }

    /// Non-equivalence beyond `margin`: the one-sided p-value that the ratio lies outside the
    /// bounds on the side of the estimate. Below α/2, the two-sided (1 − α) interval lies
    /// wholly outside them.
    pub fn p_beyond(&self, margin: f64) -> f64 {
        let b = (1.0 + margin).ln();
        if self.estimate >= 0.0 {
            self.p_above(b)
        } else {
            self.p_below(-b)
        }
    }
}

#[cfg(test)]
mod tests;

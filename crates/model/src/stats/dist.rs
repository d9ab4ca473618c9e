//! Distribution functions the tests and intervals need, from `statrs`: the complementary error
//! function, the standard normal CDF, and Student's t CDF and quantile.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Complementary error function.
pub fn erfc(x: f64) -> f64 {
    statrs::function::erf::erfc(x)
}

/// Standard normal CDF.
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

fn students_t(df: f64) -> Option<StudentsT> {
    StudentsT::new(0.0, 1.0, df).ok().filter(|_| df.is_finite())
}

/// CDF of Student's t with `df` degrees of freedom (the normal CDF for infinite `df`).
pub fn t_cdf(t: f64, df: f64) -> f64 {
    match students_t(df) {
        Some(d) => d.cdf(t),
        None => normal_cdf(t),
    }
}

/// Quantile of Student's t: the `t` with `t_cdf(t, df) == p`, for 0 < p < 1.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    match students_t(df) {
        Some(d) => d.inverse_cdf(p),
        None => Normal::standard().inverse_cdf(p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_cdf_known_values() {
        for (z, p) in [
            (0.0, 0.5),
            (1.0, 0.841_344_746),
            (1.959_964, 0.975),
            (-2.0, 0.022_750_132),
            (3.0, 0.998_650_102),
        ] {
            assert!(
                (normal_cdf(z) - p).abs() < 1e-6,
                "z={z}: {} vs {p}",
                normal_cdf(z)
            );
        }
    }

    #[test]
    fn t_quantiles_match_tables() {
        // Two-sided 95% critical values t(0.975, df) from standard tables.
        for (df, t) in [
            (1.0, 12.7062),
            (2.0, 4.3027),
            (4.0, 2.7764),
            (9.0, 2.2622),
            (29.0, 2.0452),
            (120.0, 1.9799),
        ] {
            let q = t_quantile(0.975, df);
            assert!((q - t).abs() < 1e-3, "df={df}: {q} vs {t}");
        }
        assert!((t_cdf(2.2622, 9.0) - 0.975).abs() < 1e-5);
        assert!((t_quantile(0.025, 4.0) + 2.7764).abs() < 1e-3);
    }
}

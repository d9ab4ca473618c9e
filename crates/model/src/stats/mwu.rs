//! Mann-Whitney U test (Wilcoxon rank-sum), two-sided.
//!
//! Exact p-value from the null distribution of U (the Gaussian binomial coefficient's coefficients)
//! when there are no ties and both samples have at most [`EXACT_MAX`] values; otherwise the normal
//! approximation with tie correction and continuity correction (as `scipy.stats.mannwhitneyu`
//! does with `method="asymptotic"`).

use serde::{Deserialize, Serialize};

use super::dist::erfc;

/// Largest sample size (each side) for which the exact distribution is used.
pub const EXACT_MAX: usize = 50;

/// Which p-value computation was used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Mann-Whitney, exact null distribution.
    Exact,
    /// Mann-Whitney, normal approximation.
    Normal,
    /// Welch's t-test on log values (see `stats::ratio`).
    WelchLog,
    /// Too few trials for any test to reach significance.
    Untested,
    /// Two single load runs: each figure against both runs' own intervals (`compare::loads`).
    Intervals,
}

/// Result of the test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MannWhitney {
    /// U of the first sample: the number of pairs (a, b) with a > b, ties counting one half.
    pub u: f64,
    /// Two-sided p-value.
    pub p: f64,
    pub method: Method,
}

/// Midranks (1-based, ties share the mean rank) of `v`, plus Σ(t³ − t) over tie groups.
fn ranks(v: &[f64]) -> (Vec<f64>, f64) {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut r = vec![0.0; v.len()];
    let mut ties = 0.0;
    let mut i = 0;
    while i < idx.len() {
        let mut j = i + 1;
        while j < idx.len() && v[idx[j]] == v[idx[i]] {
            j += 1;
        }
        let mid = (i + j + 1) as f64 / 2.0; // mean of ranks i+1..=j
        for &k in &idx[i..j] {
            r[k] = mid;
        }
        let t = (j - i) as f64;
        ties += t * t * t - t;
        i = j;
    }
    (r, ties)
}

/// Frequencies of U = 0..=n1*n2 under the null hypothesis (no ties), as f64 counts summing to
/// C(n1+n2, n1): the coefficients of the Gaussian binomial [n1+n2 choose n1]_q.
fn u_distribution(n1: usize, n2: usize) -> Vec<f64> {
    let max = n1 * n2;
    let mut c = vec![0.0; max + 1];
    c[0] = 1.0;
    // Π_{i=1..n1} (1 − q^(n2+i)) / (1 − q^i)
    for i in 1..=n1 {
        let m = n2 + i;
        for k in (m..=max).rev() {
            c[k] -= c[k - m];
        }
        for k in i..=max {
            c[k] += c[k - i];
        }
    }
    c
}

/// Two-sided Mann-Whitney U test of `a` against `b`. `None` when either sample is empty.
pub fn mann_whitney_u(a: &[f64], b: &[f64]) -> Option<MannWhitney> {
    let (n1, n2) = (a.len(), b.len());
    if n1 == 0 || n2 == 0 {
        return None;
    }
    let all: Vec<f64> = a.iter().chain(b).copied().collect();
    let (r, ties) = ranks(&all);
    let r1: f64 = r[..n1].iter().sum();
    let u = r1 - (n1 * (n1 + 1)) as f64 / 2.0;
    let (n1f, n2f) = (n1 as f64, n2 as f64);
    if ties == 0.0 && n1 <= EXACT_MAX && n2 <= EXACT_MAX {
        let dist = u_distribution(n1, n2);
        let total: f64 = dist.iter().sum();
        let k = u.round() as usize;
        let le: f64 = dist[..=k].iter().sum::<f64>() / total;
        let ge: f64 = dist[k..].iter().sum::<f64>() / total;
        return Some(MannWhitney {
            u,
            p: (2.0 * le.min(ge)).min(1.0),
            method: Method::Exact,
        });
    }
    let n = n1f + n2f;
    let mu = n1f * n2f / 2.0;
    let var = n1f * n2f / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
    let p = if var <= 0.0 {
        1.0 // every value equal
    } else {
        let z = ((u - mu).abs() - 0.5).max(0.0) / var.sqrt();
        erfc(z / std::f64::consts::SQRT_2).min(1.0)
    };
    Some(MannWhitney {
        u,
        p,
        method: Method::Normal,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: every way of choosing which n1 of the pooled values form the first sample.
    fn brute_exact_p(a: &[f64], b: &[f64]) -> f64 {
        let all: Vec<f64> = a.iter().chain(b).copied().collect();
        let n = all.len();
        let u_of = |mask: u32| -> f64 {
            let mut u = 0.0;
            for i in 0..n {
                if mask & (1 << i) == 0 {
                    continue;
                }
                for j in 0..n {
                    if mask & (1 << j) != 0 {
                        continue;
                    }
                    if all[i] > all[j] {
                        u += 1.0;
                    } else if all[i] == all[j] {
                        u += 0.5;
                    }
                }
            }
            u
        };
        let observed = u_of((1 << a.len()) - 1);
        let (mut le, mut ge, mut total) = (0.0f64, 0.0f64, 0.0f64);
        for mask in 0u32..(1 << n) {
            if mask.count_ones() as usize != a.len() {
                continue;
            }
            let u = u_of(mask);
            total += 1.0;
            if u <= observed {
                le += 1.0;
            }
            if u >= observed {
                ge += 1.0;
            }
        }
        (2.0 * (le / total).min(ge / total)).min(1.0)
    }

    #[test]
    fn exact_matches_brute_force() {
        let cases: [(&[f64], &[f64]); 4] = [
            (&[1.0, 2.0, 3.0, 4.0, 5.0], &[6.0, 7.0, 8.0, 9.0, 10.0]),
            (&[19.0, 22.0, 16.0, 29.0, 24.0], &[20.0, 11.0, 17.0, 12.0]),
            (&[1.1, 3.3, 5.5, 7.7], &[2.2, 4.4, 6.6, 8.8, 9.9, 0.5]),
            (&[10.0, 11.0, 12.5], &[9.0, 13.0]),
        ];
        for (a, b) in cases {
            let r = mann_whitney_u(a, b).unwrap();
            assert_eq!(r.method, Method::Exact);
            let want = brute_exact_p(a, b);
            assert!((r.p - want).abs() < 1e-12, "{a:?} {b:?}: {} vs {want}", r.p);
        }
    }

    #[test]
    fn known_values() {
        // Completely separated 5 vs 5: p = 2 / C(10,5) = 2/252.
        let r = mann_whitney_u(&[1.0, 2.0, 3.0, 4.0, 5.0], &[6.0, 7.0, 8.0, 9.0, 10.0]).unwrap();
        assert_eq!(r.u, 0.0);
        assert!((r.p - 2.0 / 252.0).abs() < 1e-12);
        // scipy.stats.mannwhitneyu(males, females) docs example: U1 = 17, exact p = 0.1111.
        let r = mann_whitney_u(&[19.0, 22.0, 16.0, 29.0, 24.0], &[20.0, 11.0, 17.0, 12.0]).unwrap();
        assert_eq!(r.u, 17.0);
        assert!((r.p - 0.111_111_1).abs() < 1e-6, "{}", r.p);
    }

    #[test]
    fn ties_use_normal_with_tie_correction() {
        // a = [1,2,2,3], b = [2,3,3,4]: pooled ranks 1, 3,3,3, 6,6,6, 8 (midranks).
        // R1 = 1+3+3+6 = 13, U1 = 13 − 10 = 3; ties: (3³−3)·2 = 48; n = 8.
        // var = 16/12 · (9 − 48/56) = 10.857142…; z = (|3 − 8| − 0.5)/sqrt(var) = 1.365721…
        let r = mann_whitney_u(&[1.0, 2.0, 2.0, 3.0], &[2.0, 3.0, 3.0, 4.0]).unwrap();
        assert_eq!(r.method, Method::Normal);
        assert_eq!(r.u, 3.0);
        let var: f64 = 16.0 / 12.0 * (9.0 - 48.0 / 56.0);
        let z = 4.5 / var.sqrt();
        let want = erfc(z / std::f64::consts::SQRT_2);
        assert!((r.p - want).abs() < 1e-12);
        assert!((r.p - 0.172_0).abs() < 1e-3, "{}", r.p);
    }

    #[test]
    fn identical_samples_are_not_different() {
        let r = mann_whitney_u(&[5.0; 6], &[5.0; 6]).unwrap();
        assert_eq!(r.p, 1.0);
        assert!(mann_whitney_u(&[], &[1.0]).is_none());
    }

    #[test]
    fn large_samples_use_normal() {
        let a: Vec<f64> = (0..60).map(|i| i as f64).collect();
        let b: Vec<f64> = (0..60).map(|i| i as f64 + 0.5).collect();
        let r = mann_whitney_u(&a, &b).unwrap();
        assert_eq!(r.method, Method::Normal);
        assert!(r.p > 0.5);
    }
}

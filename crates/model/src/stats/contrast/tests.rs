//! The contrast against reference computations (scipy 1.17.1 and statsmodels 0.15.0, by
//! /tmp's script quoted in each test).

use super::*;
use crate::stats::power::{power_contrast, power_equivalence};
use crate::stats::ratio::welch_log;

const A: [f64; 5] = [1.02, 1.05, 0.99, 1.10, 1.04];
const B: [f64; 5] = [1.20, 1.15, 1.25, 1.18, 1.22];
const C: [f64; 6] = [1.00, 1.03, 1.01, 0.98, 1.02, 1.04];

fn close(got: f64, want: f64, tol: f64) {
    assert!((got - want).abs() <= tol, "got {got}, want {want}");
}

/// scipy: `ttest_ind(log(a), log(b), equal_var=False)` gives t = -6.3854428007759525,
/// p = 0.00025072332927683855, df = 7.694301241633223, and its 95% interval exp'd
/// [0.8224925554179766, 0.912842654613339].
#[test]
fn a_difference_is_welchs_test() {
    let c = log_contrast(&[(&A, 1.0), (&B, -1.0)]).unwrap();
    close(c.estimate / c.se, -6.3854428007759525, 1e-9);
    close(c.df, 7.694301241633223, 1e-9);
    close(c.p_two_sided(), 0.00025072332927683855, 1e-9);
    let ci = c.ci(0.95);
    close(ci.lo, 0.8224925554179766, 1e-9);
    close(ci.hi, 0.912842654613339, 1e-9);
    // And the lab's own test of two contenders is the same.
    let w = welch_log(&A, &B).unwrap();
    close(w.p, c.p_two_sided(), 1e-12);
    close(w.ratio, c.ratio(), 1e-12);
    // One-sided: below 1 is likely, above is not.
    close(c.p_below(0.0), 0.00025072332927683855 / 2.0, 1e-9);
    assert!(c.p_above(0.0) > 0.99);
}

/// statsmodels: `ttost_ind(log(a), log(c), -log(1.05), log(1.05), usevar='unequal')` gives
/// p = 0.13880861209999457; `ttost_ind(log(a), log(b), -log(1.2), log(1.2), ...)` gives
/// p = 0.06089912967098042.
#[test]
fn equivalence_is_two_one_sided_tests() {
    let c = log_contrast(&[(&A, 1.0), (&C, -1.0)]).unwrap();
    close(c.p_equivalent(0.05), 0.13880861209999457, 1e-9);
    let d = log_contrast(&[(&A, 1.0), (&B, -1.0)]).unwrap();
    close(d.p_equivalent(0.20), 0.06089912967098042, 1e-9);
    // a is 0.87x b: beyond a 5% margin, the 95% interval [0.82, 0.91] wholly outside it.
    assert!(d.p_beyond(0.05) < 0.025, "{}", d.p_beyond(0.05));
    // ... but not beyond 20% (0.83 is inside 1/1.2).
    assert!(d.p_beyond(0.20) > 0.5);
}

/// numpy/scipy by hand: A₂/A₁ over B₂/B₁ with the groups below: ratio of ratios
/// 1.7913328503336752, se 0.02562369514116026, df 10.092007877303441, two-sided
/// p = 5.267920309305268e-10, 95% interval [1.6920440199383107, 1.8964479309477775].
#[test]
fn an_interaction_is_a_ratio_of_ratios() {
    let (a1, a2) = ([100.0, 104.0, 98.0, 101.0], [190.0, 200.0, 185.0, 195.0]);
    let (b1, b2) = ([90.0, 92.0, 88.0, 91.0], [95.0, 99.0, 94.0, 97.0]);
    let c = log_contrast(&[(&a2, 1.0), (&a1, -1.0), (&b2, -1.0), (&b1, 1.0)]).unwrap();
    close(c.ratio(), 1.7913328503336752, 1e-9);
    close(c.se, 0.02562369514116026, 1e-9);
    close(c.df, 10.092007877303441, 1e-9);
    close(c.p_two_sided(), 5.267920309305268e-10, 1e-12);
    let ci = c.ci(0.95);
    close(ci.lo, 1.6920440199383107, 1e-9);
    close(ci.hi, 1.8964479309477775, 1e-9);
    assert_eq!(c.n_min, 4);
}

#[test]
fn too_few_or_bad_values_are_not_tested() {
    assert!(log_contrast(&[(&[1.0], 1.0), (&B, -1.0)]).is_none());
    assert!(log_contrast(&[(&[1.0, 0.0], 1.0), (&B, -1.0)]).is_none());
    assert!(log_contrast(&[]).is_none());
    // Constant groups: an exact difference, p 0 (or 1 without one).
    let c = log_contrast(&[(&[2.0, 2.0], 1.0), (&[1.0, 1.0], -1.0)]).unwrap();
    assert_eq!((c.se, c.p_two_sided()), (0.0, 0.0));
    close(c.ratio(), 2.0, 1e-12);
    let c = log_contrast(&[(&[2.0, 2.0], 1.0), (&[2.0, 2.0], -1.0)]).unwrap();
    assert_eq!(c.p_two_sided(), 1.0);
    assert_eq!(c.p_equivalent(0.05), 0.0);
}

/// A standard normal draw (Box-Muller).
fn normal(rng: &mut crate::rng::SplitMix64) -> f64 {
    let u = rng.unit().max(1e-300);
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * rng.unit()).cos()
}

fn draw(rng: &mut crate::rng::SplitMix64, n: u32, mean: f64, sd: f64) -> Vec<f64> {
    (0..n).map(|_| (mean + sd * normal(rng)).exp()).collect()
}

/// The power of an interaction (four groups) matches the share of simulated studies in which
/// the question's own test rejects, within 3 points (4000 runs: a standard error under 0.8).
#[test]
fn interaction_power_matches_its_test() {
    let mut rng = crate::rng::SplitMix64(7);
    for (n, ratio, sd, alpha) in [(6u32, 1.15, 0.08, 0.05), (10, 1.10, 0.06, 0.01)] {
        let want = power_contrast(n, 4, ratio, sd, alpha);
        let mut hits = 0;
        for _ in 0..4000 {
            let g: Vec<Vec<f64>> = [ratio.ln(), 0.0, 0.0, 0.0]
                .iter()
                .map(|m| draw(&mut rng, n, *m, sd))
                .collect();
            let c =
                log_contrast(&[(&g[0], 1.0), (&g[1], -1.0), (&g[2], -1.0), (&g[3], 1.0)]).unwrap();
            if c.p_two_sided() < alpha {
                hits += 1;
            }
        }
        let got = hits as f64 / 4000.0;
        assert!(
            (got - want).abs() < 0.03,
            "n {n}: formula {want:.3}, simulated {got:.3}"
        );
        assert!(
            want > 0.3 && want < 0.97,
            "{want}: a power that tells something"
        );
    }
}

/// The power of an equivalence (TOST) matches its simulated test the same way, at a true ratio
/// of 1 and of 1.02 inside a 5% margin.
#[test]
fn equivalence_power_matches_its_test() {
    let mut rng = crate::rng::SplitMix64(11);
    for (n, ratio, margin, sd) in [(8u32, 1.0, 0.05, 0.04), (12, 1.02, 0.05, 0.03)] {
        let want = power_equivalence(n, 2, ratio, margin, sd, 0.05);
        let mut hits = 0;
        for _ in 0..4000 {
            let a = draw(&mut rng, n, ratio.ln(), sd);
            let b = draw(&mut rng, n, 0.0, sd);
            let c = log_contrast(&[(&a, 1.0), (&b, -1.0)]).unwrap();
            if c.p_equivalent(margin) < 0.05 {
                hits += 1;
            }
        }
        let got = hits as f64 / 4000.0;
        assert!(
            (got - want).abs() < 0.03,
            "n {n}: formula {want:.3}, simulated {got:.3}"
        );
        assert!(want > 0.2 && want < 0.97, "{want}");
    }
}

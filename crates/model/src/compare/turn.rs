//! A comparison turned around: "A against B" said as "B against A". The study compares the
//! best of a group (A) with every other member (B); a table row speaks from its own side, so
//! its words need B against A. A keep-alive/close ratio shown in the metric's better direction
//! is the same turn. One function does it, so a ratio, its intervals, the direction and the
//! trial counts cannot be turned in one place and left in another.
//!
//! Nothing about the test changes: the p-values (raw and corrected), significance and the level
//! of the matching interval are those of the comparison itself, whichever way it is read.

use crate::stats::{self, ratio::WelchLog, Comparison, Interval, Wording};

/// 1 / `x`, with 1/0 = ∞ and 1/∞ = 0 (a median of 0 on one side: infinitely more or less).
pub fn turned_ratio(x: f64) -> f64 {
    if x == 0.0 {
        f64::INFINITY
    } else if x.is_infinite() {
        0.0
    } else {
        1.0 / x
    }
}

/// The interval of B/A from that of A/B: its ends inverted and swapped.
pub fn turned_interval(i: Interval) -> Interval {
    Interval {
        lo: turned_ratio(i.hi),
        hi: turned_ratio(i.lo),
    }
}

/// `c` (A against B) as B against A, its phrase in `wording`.
pub fn turned(c: &Comparison, wording: &Wording) -> Comparison {
    let mut t = Comparison {
        median_a: c.median_b,
        median_b: c.median_a,
        ratio: turned_ratio(c.ratio),
        a_better: c.median_a != c.median_b && !c.a_better,
        // U counts the pairs where the first sample is larger; the rest are the other's.
        u: (c.n_a * c.n_b) as f64 - c.u,
        ratio_ci95: c.ratio_ci95.map(turned_interval),
        ratio_ci: c.ratio_ci.map(turned_interval),
        n_a: c.n_b,
        n_b: c.n_a,
        welch: c.welch.map(|w| WelchLog {
            ratio: turned_ratio(w.ratio),
            ci95: turned_interval(w.ci95),
            ..w
        }),
        ..c.clone()
    };
    t.phrase = stats::phrase(&t, wording);
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    const INF: f64 = f64::INFINITY;

    fn iv(lo: f64, hi: f64) -> Interval {
        Interval { lo, hi }
    }

    #[test]
    fn ratios_and_intervals_turn_to_their_inverse() {
        for (x, want) in [(2.0, 0.5), (0.25, 4.0), (1.0, 1.0), (0.0, INF), (INF, 0.0)] {
            assert_eq!(turned_ratio(x), want, "{x}");
        }
        for (i, want) in [
            (iv(1.25, 2.0), iv(0.5, 0.8)),
            (iv(0.5, 4.0), iv(0.25, 2.0)),
            (iv(0.0, 2.0), iv(0.5, INF)),
            (iv(2.0, INF), iv(0.0, 0.5)),
        ] {
            assert_eq!(turned_interval(i), want, "{i:?}");
        }
    }

    /// A comparison with every field set by hand.
    fn made(ma: f64, mb: f64, a_better: bool) -> Comparison {
        let ratio = if mb == 0.0 { INF } else { ma / mb };
        Comparison {
            median_a: ma,
            median_b: mb,
            ratio,
            factor: if ratio >= 1.0 { ratio } else { 1.0 / ratio },
            a_better,
            u: 20.0,
            p_value: 0.004,
            test: stats::TestMethod::WelchLog,
            significant: true,
            phrase: String::new(),
            ratio_ci95: Some(iv(1.6, 2.5)),
            testable: true,
            p_adjusted: Some(0.012),
            n_a: 5,
            n_b: 4,
            ratio_ci: Some(iv(1.5, 2.8)),
            ci_level: Some(0.983),
            welch: None,
        }
    }

    #[test]
    fn a_comparison_turns_whole() {
        // (A median, B median, A better) -> (ratio, 95% CI, corrected CI, B better, U) turned.
        let cases = [
            (
                200.0,
                100.0,
                true,
                0.5,
                iv(0.4, 0.625),
                iv(1.0 / 2.8, 1.0 / 1.5),
                false,
            ),
            (
                100.0,
                200.0,
                false,
                2.0,
                iv(0.4, 0.625),
                iv(1.0 / 2.8, 1.0 / 1.5),
                true,
            ),
            (
                50.0,
                0.0,
                true,
                0.0,
                iv(0.4, 0.625),
                iv(1.0 / 2.8, 1.0 / 1.5),
                false,
            ),
            (
                0.0,
                50.0,
                true,
                INF,
                iv(0.4, 0.625),
                iv(1.0 / 2.8, 1.0 / 1.5),
                false,
            ),
        ];
        for (ma, mb, a_better, ratio, ci95, ci, t_better) in cases {
            let mut c = made(ma, mb, a_better);
            if ma == 0.0 {
                c.ratio = 0.0;
                c.factor = INF;
            }
            let t = turned(&c, &Wording::Speed);
            assert_eq!(t.ratio, ratio, "{ma} vs {mb}");
            assert_eq!((t.median_a, t.median_b), (mb, ma));
            assert_eq!(t.factor, c.factor, "the factor is the same either way");
            assert_eq!(t.a_better, t_better);
            assert_eq!((t.n_a, t.n_b), (4, 5));
            assert_eq!(t.u, 0.0, "4 x 5 pairs, 20 of them A's: none left for B");
            assert_eq!(t.ratio_ci95, Some(ci95));
            let got = t.ratio_ci.unwrap();
            assert!((got.lo - ci.lo).abs() < 1e-12 && (got.hi - ci.hi).abs() < 1e-12);
            // The test is the comparison's, whichever way it is read.
            assert_eq!(
                (t.p_value, t.p_adjusted, t.ci_level),
                (0.004, Some(0.012), Some(0.983))
            );
            assert!(t.significant && t.testable);
        }
    }

    #[test]
    fn equal_medians_leave_neither_better_and_turning_twice_is_the_identity() {
        let mut c = made(100.0, 100.0, false);
        c.ratio = 1.0;
        c.factor = 1.0;
        let t = turned(&c, &Wording::Speed);
        assert_eq!(t.ratio, 1.0);
        assert!(!t.a_better, "equal medians: B is not better either");
        let c = stats::compare_worded(
            &[147.0, 148.0, 146.0, 147.5, 147.2],
            &[100.0, 101.0, 99.0, 100.5, 100.2],
            true,
            &Wording::Speed,
        )
        .unwrap();
        let back = turned(&turned(&c, &Wording::Speed), &Wording::Speed);
        assert_eq!(back.phrase, c.phrase);
        assert_eq!((back.n_a, back.n_b, back.u), (c.n_a, c.n_b, c.u));
        assert!((back.ratio - c.ratio).abs() < 1e-12);
    }

    #[test]
    fn the_turned_comparison_is_the_comparison_of_the_swapped_samples() {
        // Turning A-vs-B must give what comparing B with A gives, phrase and Welch included:
        // the interval at a corrected level comes from the turned Welch test.
        let (a, b) = ([10.0, 11.0, 10.5, 10.2], [20.0, 21.0, 20.4, 19.8, 20.2]);
        let w = Wording::Amount {
            noun: "memory".into(),
        };
        let ab = stats::compare_worded(&a, &b, false, &w).unwrap();
        let ba = stats::compare_worded(&b, &a, false, &w).unwrap();
        let t = turned(&ab, &w);
        assert_eq!(t.phrase, ba.phrase);
        assert!(t.phrase.starts_with("1.9"), "{}", t.phrase);
        assert!(t.phrase.contains("more memory"), "{}", t.phrase);
        assert_eq!(t.a_better, ba.a_better);
        assert_eq!(t.u, ba.u);
        let (x, y) = (t.ratio_ci95.unwrap(), ba.ratio_ci95.unwrap());
        assert!((x.lo - y.lo).abs() < 1e-9 && (x.hi - y.hi).abs() < 1e-9);
        let (x, y) = (t.welch.unwrap().ci(0.99), ba.welch.unwrap().ci(0.99));
        assert!((x.lo - y.lo).abs() < 1e-9 && (x.hi - y.hi).abs() < 1e-9);
    }
}

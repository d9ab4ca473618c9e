//! Table tests of the statistics against values computed by hand or from standard tables.

use super::*;

fn close(a: f64, b: f64, eps: f64) -> bool {
    (a - b).abs() <= eps
}

#[test]
fn descriptive_table() {
    struct Case {
        xs: &'static [f64],
        median: f64,
        mean: f64,
        stddev: Option<f64>,
        min: f64,
        max: f64,
        second_lower: Option<f64>,
        second_higher: Option<f64>,
    }
    let cases = [
        Case {
            xs: &[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0],
            median: 4.5,
            mean: 5.0,
            stddev: Some((32.0f64 / 7.0).sqrt()),
            min: 2.0,
            max: 9.0,
            second_lower: Some(4.0),
            second_higher: Some(7.0),
        },
        Case {
            xs: &[3.0, 1.0, 2.0],
            median: 2.0,
            mean: 2.0,
            stddev: Some(1.0),
            min: 1.0,
            max: 3.0,
            second_lower: Some(2.0),
            second_higher: Some(2.0),
        },
        Case {
            xs: &[42.0],
            median: 42.0,
            mean: 42.0,
            stddev: None,
            min: 42.0,
            max: 42.0,
            second_lower: None,
            second_higher: None,
        },
    ];
    for c in cases {
        assert_eq!(median(c.xs), Some(c.median), "{:?}", c.xs);
        assert!(close(mean(c.xs).unwrap(), c.mean, 1e-12));
        match (stddev(c.xs), c.stddev) {
            (Some(a), Some(b)) => assert!(close(a, b, 1e-12), "{a} vs {b}"),
            (a, b) => assert_eq!(a, b),
        }
        assert_eq!(min(c.xs), Some(c.min));
        assert_eq!(max(c.xs), Some(c.max));
        assert_eq!(second_best(c.xs, false), c.second_lower);
        assert_eq!(second_best(c.xs, true), c.second_higher);
    }
    assert_eq!(median(&[]), None);
    assert_eq!(median(&[1.0, f64::NAN]), None);
    assert!(summarize(&[], true).is_none());
}

#[test]
fn t_interval_of_the_mean() {
    // mean ± t(0.975, n−1)·s/√n with t from tables: t(.975,7) = 2.364624, t(.975,4) = 2.776445.
    let ci = ci95_mean(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
    let h = 2.364_624 * (32.0f64 / 7.0).sqrt() / 8f64.sqrt();
    assert!(
        close(ci.lo, 5.0 - h, 1e-5) && close(ci.hi, 5.0 + h, 1e-5),
        "{ci:?}"
    );
    let ci = ci95_mean(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
    assert!(
        close(ci.lo, 1.036_757, 1e-5) && close(ci.hi, 4.963_243, 1e-5),
        "{ci:?}"
    );
    assert!(ci95_mean(&[1.0]).is_none());
}

#[test]
fn bootstrap_interval_of_the_median() {
    let xs = [10.0, 10.4, 9.8, 10.1, 10.3, 10.2, 9.9];
    let a = ci95_median(&xs).unwrap();
    let b = ci95_median(&xs).unwrap();
    assert_eq!(a, b, "seeded: the same data gives the same interval");
    assert!(a.lo <= 10.1 && 10.1 <= a.hi, "{a:?}");
    assert!(a.lo >= 9.8 && a.hi <= 10.4);
    assert!(a.hi - a.lo > 0.0);
    // A constant sample has a zero-width interval.
    let c = ci95_median(&[3.0; 5]).unwrap();
    assert_eq!((c.lo, c.hi), (3.0, 3.0));
    // Wider spread, wider interval.
    let wide = ci95_median(&[5.0, 15.0, 8.0, 12.0, 10.0, 7.0, 13.0]).unwrap();
    assert!(wide.hi - wide.lo > a.hi - a.lo);
}

#[test]
fn comparison_table() {
    struct Case {
        a: &'static [f64],
        b: &'static [f64],
        higher_is_better: bool,
        wording: Wording,
        phrase: &'static str,
        significant: bool,
    }
    let mem = || Wording::Amount {
        noun: "memory".into(),
    };
    let cases = [
        // Wall times (lower is better): 10.1 vs 15.0 → 1.49x faster, fully separated, p = 2/252.
        Case {
            a: &[10.1, 10.3, 9.9, 10.0, 10.2],
            b: &[14.8, 15.1, 15.0, 14.9, 15.2],
            higher_is_better: false,
            wording: Wording::Speed,
            phrase: "1.49x faster",
            significant: true,
        },
        // The same the other way round.
        Case {
            a: &[14.8, 15.1, 15.0, 14.9, 15.2],
            b: &[10.1, 10.3, 9.9, 10.0, 10.2],
            higher_is_better: false,
            wording: Wording::Speed,
            phrase: "1.49x slower",
            significant: true,
        },
        // Throughput (higher is better): 1470 vs 1000 req/s.
        Case {
            a: &[1470.0, 1480.0, 1460.0, 1475.0, 1465.0],
            b: &[1000.0, 1005.0, 995.0, 1002.0, 998.0],
            higher_is_better: true,
            wording: Wording::Speed,
            phrase: "1.47x faster",
            significant: true,
        },
        // Peak RSS: 108 MB vs 1 MB.
        Case {
            a: &[108e6, 108.2e6, 107.9e6, 108.1e6, 107.8e6],
            b: &[1e6, 1.01e6, 0.99e6, 1.02e6, 0.98e6],
            higher_is_better: false,
            wording: mem(),
            phrase: "108x more memory",
            significant: true,
        },
        Case {
            a: &[1e6, 1.01e6, 0.99e6, 1.02e6, 0.98e6],
            b: &[2.1e6, 2.2e6, 2.0e6, 2.15e6, 2.05e6],
            higher_is_better: false,
            wording: mem(),
            phrase: "2.10x less memory",
            significant: true,
        },
        // Interleaved values: no significant difference.
        Case {
            a: &[10.0, 10.4, 9.8, 10.1, 10.3],
            b: &[10.2, 9.9, 10.05, 10.35, 10.15],
            higher_is_better: false,
            wording: Wording::Speed,
            phrase: "no significant difference",
            significant: false,
        },
        // A real 2x difference with only 3 trials each: the exact Mann-Whitney test could not
        // go below p = 0.1, Welch's test on logs can (p = 0.0019, scipy).
        Case {
            a: &[1.0, 1.1, 0.9],
            b: &[2.0, 2.1, 1.9],
            higher_is_better: false,
            wording: Wording::Speed,
            phrase: "2.00x faster [1.63, 2.47]",
            significant: true,
        },
        // One trial a side: nothing to test, and the phrase says so.
        Case {
            a: &[1.0],
            b: &[2.0],
            higher_is_better: false,
            wording: Wording::Speed,
            phrase: "1 trial: too few to test; ratio 2.00x",
            significant: false,
        },
        // Zeros (no errors on one side) rule out logs; 3 vs 3 Mann-Whitney cannot reach 0.05.
        Case {
            a: &[0.0, 0.0, 0.0],
            b: &[5.0, 6.0, 7.0],
            higher_is_better: false,
            wording: Wording::Speed,
            phrase: "3 trials: too few to test",
            significant: false,
        },
    ];
    for c in cases {
        let r = compare_worded(c.a, c.b, c.higher_is_better, &c.wording).unwrap();
        assert!(
            r.phrase.starts_with(c.phrase),
            "{:?} vs {:?}: {r:?}",
            c.a,
            c.b
        );
        assert_eq!(r.significant, c.significant);
        assert!(r.factor >= 1.0);
    }
    let r = compare(
        &[10.1, 10.3, 9.9, 10.0, 10.2],
        &[14.8, 15.1, 15.0, 14.9, 15.2],
        false,
    )
    .unwrap();
    assert_eq!(r.test, TestMethod::WelchLog);
    assert!(close(r.u, 0.0, 1e-12));
    assert!(close(r.ratio, 10.1 / 15.0, 1e-12));
    assert!(r.a_better);
    let r = compare(&[1.0, 1.1, 0.9], &[2.0, 2.1, 1.9], false).unwrap();
    assert!(close(r.p_value, 0.0018964239734209417, 1e-4));
    assert!(close(mwu_min_p(3, 3), 0.1, 1e-12));
    assert!(close(mwu_min_p(4, 4), 2.0 / 70.0, 1e-12));
    // Holm over a family: 0.03 alone is significant, with three others at 0.04 it is not.
    let mut a = compare(&[1.0, 1.1, 0.9], &[2.0, 2.1, 1.9], false).unwrap();
    let mut b = a.clone();
    b.p_value = 0.04;
    a.p_value = 0.03;
    let mut fam = vec![(&mut a, Wording::Speed), (&mut b, Wording::Speed)];
    adjust(&mut fam);
    assert_eq!((a.p_adjusted, a.significant), (Some(0.06), false));
    // Its interval is at the level the corrected p is judged at: 1 − 0.05 · 0.03/0.06.
    assert_eq!(
        a.phrase,
        "no significant difference (2.00x [1.52, 2.64] at 97.5%, p = 0.06)"
    );
    assert!(compare(&[], &[1.0], true).is_none());
}

#[test]
fn factor_formatting() {
    for (f, s) in [
        (1.4666, "1.47"),
        (9.999, "10.00"),
        (12.34, "12.3"),
        (108.26, "108"),
        (f64::INFINITY, "∞"),
    ] {
        assert_eq!(format_factor(f), s);
    }
}

#[test]
fn outlier_table() {
    let cases: [(&[f64], &[usize]); 7] = [
        (&[10.0, 10.2, 9.9, 10.1, 25.0], &[4]),
        (&[5.0, 5.0, 5.0, 5.0, 100.0], &[4]), // MAD 0: mean absolute deviation as the scale
        (&[1.0, 2.0, 3.0, 4.0, 5.0], &[]),
        (&[7.0, 7.0, 7.0], &[]),
        (&[0.1, 10.0, 10.1, 9.9, 10.05, 9.95], &[0]),
        // rust-tokio's "outlier (1.01 s)" at a median of 1.01 s: 20 MADs off but 0.3% of the
        // median, below the noise floor.
        (&[1.013, 1.0100, 1.0101, 1.0099, 1.0100], &[]),
        // The same spread with a trial 8% off is one.
        (&[1.09, 1.0100, 1.0101, 1.0099, 1.0100], &[0]),
    ];
    for (xs, want) in cases {
        assert_eq!(outliers(xs), want, "{xs:?}");
    }
}

#[test]
fn first_trial_table() {
    // Times: a first trial 50% slower than the rest.
    let r = first_trial_slow(&[15.0, 10.0, 10.2, 9.9, 10.1], false).unwrap();
    assert_eq!(r.median_rest, 10.05);
    assert!(close(r.factor, 15.0 / 10.05, 1e-12));
    // 4.5% slower and the slowest: within 10%, not flagged.
    assert!(first_trial_slow(&[10.5, 10.0, 10.2, 9.9, 10.1], false).is_none());
    // Not the slowest: not flagged.
    assert!(first_trial_slow(&[15.0, 10.0, 16.0, 9.9, 10.1], false).is_none());
    // Throughput: a first trial at half the rate.
    let r = first_trial_slow(&[500.0, 1000.0, 990.0, 1010.0, 1005.0], true).unwrap();
    assert!(close(r.factor, 1002.5 / 500.0, 1e-12));
    assert!(first_trial_slow(&[1.0, 2.0], false).is_none());
}

#[test]
fn summary_serializes() {
    let s = summarize(&[1.0, 2.0, 3.0, 4.0, 5.0], true).unwrap();
    assert_eq!(s.second_best, Some(4.0));
    let j = serde_json::to_value(&s).unwrap();
    assert_eq!(j["median"], 3.0);
    assert!(j["ci95_mean"]["lo"].as_f64().unwrap() < 3.0);
}

#[test]
fn infinite_ratio_round_trips_through_json() {
    // B's median is 0 (e.g. 0 s of sys time): the ratio is infinite, JSON has no infinity.
    let c = compare(&[1.0, 2.0, 3.0, 4.0], &[0.0, 0.0, 0.0, 0.0], false).unwrap();
    assert!(c.ratio.is_infinite());
    let json = serde_json::to_string(&c).unwrap();
    assert!(json.contains("\"ratio\":null"), "{json}");
    let back: Comparison = serde_json::from_str(&json).unwrap();
    assert_eq!(back, c);
}

/// The case issue 43 found in the committed study reports (pingpong-bots, c=1000: "no significant
/// difference (1.22x [1.09, 1.72], p = 0.25)"), built again: one comparison whose own Welch p is
/// 0.033 (scipy: `ttest_ind(log a, log b, equal_var=False)`), corrected with seven others that
/// show nothing. Holm makes it 8 · 0.033 = 0.26: not significant. Its 95% interval excludes 1,
/// the contradiction a reader saw; the interval printed is at the level its corrected p is
/// judged at, 1 − 0.05 · 0.033/0.26 = 99.38%, and includes 1.
#[test]
fn an_interval_beside_a_corrected_p_is_corrected_alike() {
    let (a, b) = ([1.30, 1.12, 1.25], [1.0, 1.03, 0.97]);
    let mut cs = vec![compare(&a, &b, true).unwrap()];
    assert!((cs[0].p_value - 0.033115).abs() < 1e-4, "{}", cs[0].p_value);
    let ci95 = cs[0].ratio_ci95.unwrap();
    assert!(ci95.lo > 1.0, "the 95% interval excludes 1: {ci95:?}");
    for _ in 0..7 {
        cs.push(compare(&[1.0, 1.2, 0.9], &[1.1, 0.95, 1.05], true).unwrap());
    }
    let mut family: Vec<(&mut Comparison, Wording)> =
        cs.iter_mut().map(|c| (c, Wording::Speed)).collect();
    adjust(&mut family);
    let c = &cs[0];
    let p_adj = c.p_adjusted.unwrap();
    assert!((p_adj - 8.0 * c.p_value).abs() < 1e-12 && p_adj > ALPHA);
    assert!(!c.significant);
    let level = c.ci_level.unwrap();
    assert!((level - (1.0 - ALPHA * c.p_value / p_adj)).abs() < 1e-12);
    assert!((level - 0.99375).abs() < 1e-9, "{level}");
    let ci = c.ratio_ci.unwrap();
    assert!(ci.lo < 1.0 && ci.hi > 1.0, "{ci:?}");
    assert!(
        c.phrase == "no significant difference (1.25x [0.82, 1.81] at 99.38%, p = 0.26)",
        "{}",
        c.phrase
    );
    // Where the corrected p rejects, the matching interval excludes 1 (both sides of the rule).
    let mut strong = vec![compare(&[2.0, 2.1, 1.9], &[1.0, 1.02, 0.98], true).unwrap()];
    strong.push(compare(&[1.0, 1.2, 0.9], &[1.1, 0.95, 1.05], true).unwrap());
    let mut family: Vec<(&mut Comparison, Wording)> =
        strong.iter_mut().map(|c| (c, Wording::Speed)).collect();
    adjust(&mut family);
    assert!(strong[0].significant && strong[0].ratio_ci.unwrap().lo > 1.0);
    assert_eq!(format_level(0.95), "95%");
    assert_eq!(format_level(0.99375), "99.38%");
    assert_eq!(format_level(0.9995), "99.95%");
}

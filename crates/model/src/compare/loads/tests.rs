//! Single load runs judged by their intervals, on runs drawn from known distributions: the same
//! workload is not called a change, a 20% slower server and a halved throughput are, so is the
//! 5x slower server of two 2 s runs (issue 57), a figure whose interval is open (p99.9 of 1,500
//! responses, any figure of a 1 s run) cannot be judged where it changed beyond the floor, and
//! every interval shown agrees with its corrected p. Several runs against one baseline are one Holm family (hand-set runs whose
//! p-values are known: a pair significant alone is not among two).

use super::*;
use crate::load::{Latency, Phase, Second};
use crate::rng::SplitMix64;

/// A run of `secs` seconds of about `per_s` responses a second (± 3%), latencies lognormal
/// around `median_us` (σ = 0.3 on the log scale), drawn from `seed`: its document with its
/// intervals, as the engine would write it.
fn run(seed: u64, secs: u64, per_s: f64, median_us: f64) -> LoadDoc {
    let mut r = SplitMix64(seed);
    let mut normal = move || {
        let (u, v) = (r.unit().max(1e-300), r.unit());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    };
    let mut h = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).unwrap();
    let mut series = Vec::new();
    for second in 0..secs {
        let n = (per_s * (1.0 + 0.03 * normal())).round().max(1.0) as u64;
        let mut s = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).unwrap();
        for _ in 0..n {
            let v = (median_us * (0.3 * normal()).exp()).round().max(1.0) as u64;
            s.record(v).unwrap();
        }
        h.add(&s).unwrap();
        series.push(Second {
            second,
            phase: Phase::Measure,
            responses: n,
            mean_us: s.mean(),
            hdr: Some(crate::hdr::encode_coarse(&s)),
            span_s: 1.0,
            ..Second::default()
        });
    }
    LoadDoc {
        schema: crate::load::SCHEMA.into(),
        requests: h.len(),
        duration_s: secs as f64,
        rps: h.len() as f64 / secs as f64,
        latency_us: Latency::of(&h),
        hdr: Some(crate::hdr::encode(&h)),
        series,
        config: serde_json::json!({"method": "GET", "url": "http://127.0.0.1:8080/sleep/5", "connections": 4}),
        ..LoadDoc::default()
    }
    .with_intervals()
}

fn changes(d: &Comparison) -> Vec<(&str, Verdict)> {
    d.rows
        .iter()
        .filter(|r| r.verdict.is_change())
        .map(|r| (r.metric.as_str(), r.verdict))
        .collect()
}

fn verdict_of(d: &Comparison, key: &str) -> Verdict {
    d.rows.iter().find(|r| r.metric == key).unwrap().verdict
}

#[test]
fn the_same_workload_is_not_called_a_change() {
    // 60 pairs of 5 s runs of one workload (seeds fixed: the same answer every time). The
    // family-wise rate is at most 5% by construction; the noise floor makes it far less.
    let opts = Options::default();
    let called = (0..60)
        .filter(|i| {
            let (a, b) = (
                run(2 * i, 5, 800.0, 5000.0),
                run(2 * i + 1, 5, 800.0, 5000.0),
            );
            let d = loads(("a", &a), ("b", &b), &opts).unwrap();
            !changes(&d).is_empty()
        })
        .count();
    assert_eq!(called, 0);
    // With no floor, a change is called only on the test: still at most 5% of pairs.
    let called = (0..60)
        .filter(|i| {
            let (a, b) = (
                run(2 * i, 5, 800.0, 5000.0),
                run(2 * i + 1, 5, 800.0, 5000.0),
            );
            let d = loads(("a", &a), ("b", &b), &Options { noise: 0.0 }).unwrap();
            !changes(&d).is_empty()
        })
        .count();
    assert!(called <= 3, "{called} of 60 pairs");
}

#[test]
fn a_slower_server_and_halved_throughput_are_regressions() {
    let base = run(1, 5, 800.0, 5000.0);
    let slower = run(2, 5, 800.0, 6000.0);
    let d = loads(("base", &base), ("slower", &slower), &Options::default()).unwrap();
    for key in ["latency_mean_us", "latency_p50_us", "latency_p90_us"] {
        assert_eq!(
            verdict_of(&d, key),
            Verdict::Regression,
            "{key}: {:?}",
            d.rows
        );
    }
    let p50 = d
        .rows
        .iter()
        .find(|r| r.metric == "latency_p50_us")
        .unwrap();
    let t = p50.test.as_ref().unwrap();
    assert_eq!(t.method, TestMethod::Intervals);
    assert!(t.significant && t.p_adjusted.unwrap() < 0.05);
    let (ci, level) = t.shown_interval().unwrap();
    assert!(
        level > 0.95 && ci.lo > 1.1 && ci.hi < 1.3,
        "{ci:?} at {level}"
    );

    let halved = run(3, 5, 400.0, 5000.0);
    let d = loads(("base", &base), ("halved", &halved), &Options::default()).unwrap();
    assert_eq!(changes(&d), [("rps", Verdict::Regression)], "{:?}", d.rows);
}

#[test]
fn two_second_runs_are_judged_by_their_two_seconds() {
    // The CI case (issue 57): 2 s of /sleep/5 (about 757 responses a second) against 2 s of
    // /sleep/25 (156 a second), 4 connections. Two seconds are the fewest the bootstrap reads:
    // every interval is closed but p99.9's upper end (1,500 and 300 responses), and the 5x
    // changes lie far apart.
    let (fast, slow) = (run(5, 2, 757.0, 5240.0), run(6, 2, 156.0, 25340.0));
    let i = fast.intervals.as_ref().unwrap();
    assert_eq!((i.seconds, i.block_s), (2, 1));
    for m in [
        &crate::metric::RPS,
        &crate::metric::LATENCY_MEAN,
        &crate::metric::P50,
    ] {
        assert!(i.of(m).unwrap().closed(), "{}: {i:?}", m.key);
    }
    assert_eq!(i.of(&crate::metric::P999).unwrap().hi, None);
    let d = loads(("fast", &fast), ("slow", &slow), &Options::default()).unwrap();
    for key in ["rps", "latency_mean_us", "latency_p50_us", "latency_p90_us"] {
        assert_eq!(
            verdict_of(&d, key),
            Verdict::Regression,
            "{key}: {:?}",
            d.rows
        );
    }
    // p99.9 of 1,515 responses may lie beyond the slowest: its 5x rise cannot be judged, and
    // is not "no change".
    assert_eq!(verdict_of(&d, "latency_p999_us"), Verdict::NotEnoughData);
    assert_eq!(d.inconclusive, 1);
    assert!(
        d.notes
            .iter()
            .any(|n| n.starts_with("Cannot judge p99.9: ")),
        "{:?}",
        d.notes
    );
    // 60 pairs of 2 s runs of one workload: none called a change.
    let called = (0..60)
        .filter(|i| {
            let (a, b) = (
                run(200 + 2 * i, 2, 757.0, 5240.0),
                run(201 + 2 * i, 2, 757.0, 5240.0),
            );
            !changes(&loads(("a", &a), ("b", &b), &Options::default()).unwrap()).is_empty()
        })
        .count();
    assert_eq!(called, 0);
}

#[test]
fn a_figure_that_cannot_be_judged_is_never_no_change() {
    // One second cannot show how any figure moves in time: every interval is open, even that
    // of p50 (its ranks alone would assume independent responses; `tests/it/short_runs.rs`
    // shows what that is worth on real runs).
    let (a, b) = (run(7, 1, 800.0, 5000.0), run(8, 1, 600.0, 5000.0));
    let i = a.intervals.as_ref().unwrap();
    assert!(i.figures.values().all(|b| *b == Bound::default()), "{i:?}");
    let d = loads(("a", &a), ("b", &b), &Options::default()).unwrap();
    // A quarter fewer responses, beyond the floor, with nothing to test it by: cannot judge.
    assert_eq!(verdict_of(&d, "rps"), Verdict::NotEnoughData);
    // The same latency: within the floor, which no test could have made a change.
    assert_eq!(verdict_of(&d, "latency_mean_us"), Verdict::WithinNoise);
    assert_eq!(verdict_of(&d, "latency_p50_us"), Verdict::WithinNoise);
    assert_eq!(d.regressions, 0);
    assert_eq!(d.inconclusive, d.unjudged().count());
    assert!(d.unjudged().any(|r| r.metric == "rps"));
    // Five times slower in one second: still not a verdict either way, but never "no change".
    let slow = run(9, 1, 160.0, 25000.0);
    let d = loads(("a", &a), ("slow", &slow), &Options::default()).unwrap();
    for key in ["rps", "latency_mean_us", "latency_p50_us", "latency_p99_us"] {
        assert_eq!(verdict_of(&d, key), Verdict::NotEnoughData, "{key}");
    }
    assert!(d
        .notes
        .iter()
        .any(|n| n.starts_with("Cannot judge throughput, mean, p50")));
    // 5 s of 300 a second: p99.9 is the 2nd-slowest of 1,500, whose interval reaches past the
    // slowest response; p99 is bounded.
    let c = run(10, 5, 300.0, 5000.0);
    let i = c.intervals.as_ref().unwrap();
    assert_eq!(i.of(&crate::metric::P999).unwrap().hi, None);
    assert!(i.of(&crate::metric::P99).unwrap().closed());
    // A run compared with itself: no change, nothing that cannot be judged.
    let d = loads(("c", &c), ("c", &c), &Options { noise: 0.0 }).unwrap();
    assert!(changes(&d).is_empty());
    assert_eq!(d.inconclusive, 0, "{:?}", d.rows);
}

#[test]
fn every_interval_shown_agrees_with_its_corrected_p() {
    let base = run(11, 8, 900.0, 4000.0);
    for (seed, median) in [(12, 4000.0), (13, 4200.0), (14, 4400.0), (15, 5000.0)] {
        let new = run(seed, 8, 900.0, median);
        let d = loads(("a", &base), ("b", &new), &Options { noise: 0.0 }).unwrap();
        for r in &d.rows {
            let Some(t) = &r.test else { continue };
            let Some((ci, level)) = t.shown_interval() else {
                continue;
            };
            let excludes = ci.lo > 1.0 || ci.hi < 1.0;
            assert_eq!(
                excludes, t.significant,
                "{} at {median}: {ci:?} {level} {t:?}",
                r.metric
            );
        }
    }
}

#[test]
fn several_runs_a_side_are_trials() {
    let base: Vec<LoadDoc> = (0..3).map(|i| run(20 + i, 3, 500.0, 5000.0)).collect();
    let slow: Vec<LoadDoc> = (0..3).map(|i| run(30 + i, 3, 500.0, 7500.0)).collect();
    let d = load_trials(("main", &base), ("pr", &slow), &Options::default()).unwrap();
    assert_eq!(d.kind, DocKind::Load);
    let p50 = d
        .rows
        .iter()
        .find(|r| r.metric == "latency_p50_us")
        .unwrap();
    let t = p50.test.as_ref().unwrap();
    assert_eq!(
        (t.trials_old, t.trials_new, t.method),
        (3, 3, TestMethod::WelchLog)
    );
    assert_eq!(p50.verdict, Verdict::Regression);
    assert!(d.notes[0].starts_with("3 runs against 3 runs, as trials"));
}

/// A run with hand-set figures: `rps`, latencies p50 5 ms ... p99.9 12 ms, no errors, and
/// every judged figure's 95% interval `value · e^(±a)` (log half-width `a`), so each test's
/// standard error is known: 2a / z(0.975) for two such runs.
fn known(rps: f64, a: f64) -> LoadDoc {
    let mut d = LoadDoc {
        schema: crate::load::SCHEMA.into(),
        requests: 10 * rps as u64,
        duration_s: 10.0,
        rps,
        latency_us: Latency {
            count: 10 * rps as u64,
            mean: 5200.0,
            p50: 5000,
            p90: 6000,
            p99: 8000,
            p999: 12000,
            max: 15000,
            ..Latency::default()
        },
        ..LoadDoc::default()
    };
    let figures = crate::load::intervals::judged()
        .filter_map(|m| {
            let v = crate::metric::load_value(m, &d)?;
            Some((
                m.key.to_string(),
                Bound {
                    lo: Some(v * (-a).exp()),
                    hi: Some(v * a.exp()),
                },
            ))
        })
        .collect();
    d.intervals = Some(crate::load::intervals::Intervals {
        level: 0.95,
        seconds: 10,
        responses: d.requests,
        figures,
        ..Default::default()
    });
    d
}

/// The throughput row of a comparison.
fn rps_row(d: &Comparison) -> &Row {
    d.rows.iter().find(|r| r.metric == "rps").unwrap()
}

#[test]
fn several_runs_against_one_baseline_are_one_family() {
    // B's throughput is e^-d of A's with both intervals ±2% on the log scale: z = d / (2 ·
    // 0.02 / 1.959964) = 2.747781, p = 0.0060 (Φ(2.747781) = 0.9970). Six figures are tested
    // in a pair (throughput, mean, p50, p90, p99, p99.9; the error rate, 0 in both with no
    // spread, could show nothing and stays out), so alone B's p becomes 6 · 0.006 = 0.036: a
    // regression. C is A again; with A-vs-C in the family there are 12 tests, and B's p
    // becomes 12 · 0.006 = 0.072: not significant.
    let a = 0.02;
    let d = 2.747781 * 2.0 * a / 1.959964;
    let (base, b, c) = (
        known(1000.0, a),
        known(1000.0 * (-d).exp(), a),
        known(1000.0, a),
    );
    let opts = Options::default();

    let alone = loads(("A", &base), ("B", &b), &opts).unwrap();
    let t = rps_row(&alone).test.clone().unwrap();
    assert!((t.p - 0.0060).abs() < 1e-5, "{t:?}");
    assert_eq!(alone.tests(), 6);
    assert!((t.p_adjusted.unwrap() - 0.036).abs() < 1e-4, "{t:?}");
    assert_eq!(rps_row(&alone).verdict, Verdict::Regression);
    assert!(alone.notes[0].contains("Holm-corrected over the 6 figures tested;"));

    let family = load_family(("A", &base), &[("B", &b), ("C", &c)], &opts).unwrap();
    assert_eq!(family.len(), 2);
    let (ab, ac) = (&family[0], &family[1]);
    assert_eq!((ab.new.as_str(), ac.new.as_str()), ("B", "C"));
    let t = rps_row(ab).test.clone().unwrap();
    assert!((t.p - 0.0060).abs() < 1e-5);
    assert!((t.p_adjusted.unwrap() - 0.072).abs() < 1e-4, "{t:?}");
    assert!(!t.significant);
    assert_eq!(rps_row(ab).verdict, Verdict::NotSignificant);
    assert_eq!((ab.regressions, ac.regressions), (0, 0));
    // The interval shown is at the level the corrected p is judged at, 1 − 0.05 · 0.006 /
    // 0.072 = 99.58%, and so contains 1, as "not significant" needs.
    let (ci, level) = t.shown_interval().unwrap();
    assert!((level - (1.0 - 0.05 / 12.0)).abs() < 1e-4, "{level}");
    assert!(ci.lo < 1.0 && ci.hi > 1.0, "{ci:?}");
    // Each pair's rows are its own; their tests count towards one family.
    assert_eq!(ab.tests() + ac.tests(), 12);
    assert!(ab.notes[0].contains("over the 12 figures tested in all 2 comparisons with A"));
    assert!(ac
        .rows
        .iter()
        .all(|r| r.test.as_ref().is_none_or(|t| t.p == 1.0)));
}

#[test]
fn a_pair_too_short_to_test_says_so_and_does_not_dilute_the_family() {
    // A 1 s run has open intervals: every figure of A-vs-short changed beyond the floor and
    // cannot be judged, none is tested, and B's regression keeps its p of 6 · 0.006 = 0.036.
    let a = 0.02;
    let d = 2.747781 * 2.0 * a / 1.959964;
    let (base, b) = (known(1000.0, a), known(1000.0 * (-d).exp(), a));
    let short = run(5, 1, 800.0, 7000.0);
    let family = load_family(
        ("A", &base),
        &[("B", &b), ("short", &short)],
        &Options::default(),
    )
    .unwrap();
    let t = rps_row(&family[0]).test.clone().unwrap();
    assert!((t.p_adjusted.unwrap() - 0.036).abs() < 1e-4, "{t:?}");
    assert_eq!(rps_row(&family[0]).verdict, Verdict::Regression);
    let s = &family[1];
    assert_eq!(s.tests(), 0);
    for key in ["rps", "latency_mean_us", "latency_p50_us", "latency_p99_us"] {
        assert_eq!(verdict_of(s, key), Verdict::NotEnoughData, "{key}");
    }
    assert_eq!((s.regressions, s.improvements), (0, 0));
    assert_eq!(s.inconclusive, s.unjudged().count());
    assert!(s.inconclusive >= 4);
}

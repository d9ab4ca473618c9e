//! Single load runs judged by their intervals, on runs drawn from known distributions: the same
//! workload is not called a change, a 20% slower server and a halved throughput are, a 2 s
//! run is "not enough data" (and p99.9 of 1,500 responses), and every interval shown agrees with
//! its corrected p.

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
fn a_short_run_is_not_enough_data() {
    // 2 s of 800 responses a second cannot say how any figure moves in time: every interval
    // is open, even that of p50 (its ranks alone would assume independent responses).
    let (a, b) = (run(5, 2, 800.0, 5000.0), run(6, 2, 800.0, 5500.0));
    let i = a.intervals.as_ref().unwrap();
    assert!(i.figures.values().all(|b| *b == Bound::default()), "{i:?}");
    let d = loads(("a", &a), ("b", &b), &Options::default()).unwrap();
    for key in [
        "rps",
        "latency_mean_us",
        "latency_p50_us",
        "latency_p999_us",
    ] {
        assert_eq!(verdict_of(&d, key), Verdict::NotEnoughData, "{key}");
    }
    assert!(d
        .notes
        .iter()
        .any(|n| n.starts_with("Not enough data for throughput, mean, p50")));
    // 5 s of 300 a second: p99.9 is the 2nd-slowest of 1,500, whose interval reaches past the
    // slowest response; p99 is bounded.
    let c = run(7, 5, 300.0, 5000.0);
    let i = c.intervals.as_ref().unwrap();
    assert_eq!(i.of(&crate::metric::P999).unwrap().hi, None);
    assert!(i.of(&crate::metric::P99).unwrap().closed());
    // A run compared with itself: no change, and nothing tested is significant.
    let d = loads(("a", &a), ("a", &a), &Options { noise: 0.0 }).unwrap();
    assert!(changes(&d).is_empty());
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

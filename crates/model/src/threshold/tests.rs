//! Thresholds: the grammar (what each expression reads as, and each refusal), evaluation
//! against known documents and cells, early breaks.

use super::*;
use crate::load::{Errors, Latency};
use crate::stats::Summary;
use crate::study::MergedLatency;

#[test]
fn expressions_read_as_quantity_op_and_bound() {
    let cases: &[(&str, Quantity, Op, f64)] = &[
        ("p99 < 10ms", Quantity::Latency(0.99), Op::Lt, 10_000.0),
        ("p99.9<=1.5s", Quantity::Latency(0.999), Op::Le, 1_500_000.0),
        ("p50 < 250us", Quantity::Latency(0.5), Op::Lt, 250.0),
        ("p90 < 200", Quantity::Latency(0.9), Op::Lt, 200_000.0),
        ("max <= 2s", Quantity::Latency(1.0), Op::Le, 2e6),
        ("mean < 5ms", Quantity::Latency(-1.0), Op::Lt, 5000.0),
        ("rps >= 10k", Quantity::Rps, Op::Ge, 10_000.0),
        ("rps > 1.5m", Quantity::Rps, Op::Gt, 1_500_000.0),
        ("errors < 1%", Quantity::ErrorPct, Op::Lt, 1.0),
        ("errors <= 0", Quantity::Errors, Op::Le, 0.0),
        ("status_5xx < 0.1%", Quantity::StatusPct(5), Op::Lt, 0.1),
        ("status_2xx >= 1000", Quantity::Status(2), Op::Ge, 1000.0),
    ];
    for (e, q, op, bound) in cases {
        let t = parse(e).unwrap_or_else(|err| panic!("{e}: {err}"));
        assert_eq!((t.quantity, t.op), (*q, *op), "{e}");
        assert!((t.bound - bound).abs() < 1e-9, "{e}: {}", t.bound);
    }
    assert_eq!(parse("  p99<10ms ").unwrap().expr, "p99 < 10ms");
}

#[test]
fn bad_expressions_say_why() {
    let cases: &[(&str, &str)] = &[
        ("p99 10ms", "expected METRIC < VALUE"),
        ("p100 < 1ms", "unknown metric"),
        ("latency < 1ms", "unknown metric"),
        ("status_6xx < 1", "unknown metric"),
        ("p99 < 1%", "a percent applies to errors"),
        ("errors < 101%", "between 0 and 100"),
        ("rps > fast", "is not a number"),
        ("p99 < -1ms", "is not a number"),
        ("p99 == 1ms", "expected METRIC < VALUE"),
    ];
    for (e, want) in cases {
        let err = parse(e).unwrap_err();
        assert!(err.contains(want) && err.contains(e), "{e}: {err}");
    }
}

fn doc() -> LoadDoc {
    let mut h = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
    for v in 1..=1000u64 {
        h.record(v * 10).unwrap(); // 10 µs .. 10 ms
    }
    LoadDoc {
        requests: 990,
        errors: {
            let mut e = Errors::default();
            e.count(crate::load::ErrorClass::Timeout, 10);
            e
        },
        rps: 4950.0,
        latency_us: Latency::of(&h),
        status: [("200".to_string(), 980), ("503".to_string(), 20)].into(),
        hdr: Some(crate::hdr::encode(&h)),
        ..LoadDoc::default()
    }
}

#[test]
fn load_documents_are_measured_exactly() {
    let d = doc();
    let cases: &[(&str, f64, bool)] = &[
        ("p50 < 6ms", 5000.0, true),
        ("p99 < 9ms", 9900.0, false),
        ("p99.9 <= 10ms", 9990.0, true),
        ("max < 10ms", 10_000.0, false),
        ("max <= 10.1ms", 10_000.0, true),
        ("min > 5us", 10.0, true),
        ("rps >= 5k", 4950.0, false),
        ("errors < 11", 10.0, true),
        ("errors < 1%", 1.0, false),
        ("errors <= 1%", 1.0, true),
        ("status_5xx < 3%", 2.0, true),
        ("status_2xx >= 980", 980.0, true),
    ];
    for (e, want, pass) in cases {
        let o = evaluate(&parse(e).unwrap(), &d);
        let got = o.measured.unwrap();
        // HDR's 3 significant figures: within 0.1% of the exact value.
        assert!(
            (got - want).abs() <= want * 1e-3,
            "{e}: measured {got}, want {want}"
        );
        assert_eq!(o.pass, *pass, "{e}: {o}");
    }
    let o = evaluate(&parse("p99 < 9ms").unwrap(), &d);
    assert_eq!(o.shown, "9.90ms");
    assert_eq!(o.to_string(), "FAIL p99 < 9ms (measured 9.90ms)");
}

fn cell(contender: &str, label: &str, rps: f64, errors: u64) -> Cell {
    let mut h = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
    for v in [100u64, 200, 300, 400] {
        h.record(v).unwrap();
    }
    let rps_stats = Summary {
        n: 3,
        median: rps,
        mean: rps,
        stddev: None,
        min: rps,
        max: rps,
        second_best: None,
        ci95_mean: None,
        ci95_median: None,
    };
    Cell {
        label: label.into(),
        contender: contender.into(),
        trials_ok: 3,
        stats: [("rps".to_string(), rps_stats)].into(),
        latency: Some(MergedLatency {
            count: 396,
            max_us: 400,
            hdr: crate::hdr::encode(&h),
            ..MergedLatency::default()
        }),
        errors,
        ..Cell::default()
    }
}

#[test]
fn study_thresholds_apply_to_their_cells() {
    let cells = vec![
        cell("a", "c=1", 1000.0, 0),
        cell("b", "c=1", 400.0, 4),
        cell("a", "c=8", 5000.0, 0),
        Cell {
            trials_ok: 0,
            ..cell("b", "c=8", 0.0, 0)
        },
    ];
    let ts = vec![
        StudyThreshold {
            expr: vec!["rps >= 500".into(), "errors < 1%".into()],
            contender: None,
            point: None,
        },
        StudyThreshold {
            expr: vec!["max < 300us".into()],
            contender: Some("a".into()),
            point: Some("c=8".into()),
        },
        StudyThreshold {
            expr: vec!["status_5xx < 1".into()],
            contender: Some("a".into()),
            point: Some("c=1".into()),
        },
    ];
    let got: Vec<(String, String, String, bool)> = evaluate_study(&ts, &cells)
        .into_iter()
        .map(|o| {
            let at = format!("{} {}", o.point.unwrap(), o.contender.unwrap());
            (at, o.expr, o.shown, o.pass)
        })
        .collect();
    let row = |at: &str, e: &str, shown: &str, pass: bool| {
        (at.to_string(), e.to_string(), shown.to_string(), pass)
    };
    assert_eq!(
        got,
        vec![
            row("c=1 a", "rps >= 500", "1000.0", true),
            row("c=1 a", "errors < 1%", "0.000%", true),
            row("c=1 b", "rps >= 500", "400.0", false),
            row("c=1 b", "errors < 1%", "1.000%", false),
            row("c=8 a", "rps >= 500", "5000.0", true),
            row("c=8 a", "errors < 1%", "0.000%", true),
            // Every trial failed: nothing met the thresholds.
            row("c=8 b", "rps >= 500", "no successful trial", false),
            row("c=8 b", "errors < 1%", "no successful trial", false),
            row("c=8 a", "max < 300us", "400us", false),
            // A study does not keep status classes: the threshold cannot be checked, and fails.
            row("c=1 a", "status_5xx < 1", "n/a", false),
        ]
    );
}

#[test]
fn only_counts_and_max_break_early() {
    let t = |e: &str| parse(e).unwrap();
    assert!(broken_early(&t("errors < 5"), 5, 0));
    assert!(!broken_early(&t("errors < 5"), 4, 0));
    assert!(broken_early(&t("max <= 10ms"), 0, 10_001));
    assert!(!broken_early(&t("max <= 10ms"), 0, 10_000));
    // A share or a percentile may still come back; a lower bound may still be reached.
    assert!(!broken_early(&t("errors < 1%"), 1000, 0));
    assert!(!broken_early(&t("p99 < 1ms"), 0, 50_000));
    assert!(!broken_early(&t("errors > 5"), 0, 0));
}

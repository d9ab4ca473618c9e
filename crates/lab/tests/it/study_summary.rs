//! Statistics of a results document from known trial values: comparisons between contenders and
//! between variants with significance, warnings, and the CSV/table renderings.

use barrage_lab::results::{
    ContenderInfo, Machine, Metrics, Pinning, Results, StudyInfo, Trial, Windows,
};
use barrage_lab::study::ContenderRole;
use barrage_lab::sweep::Point;
use std::collections::BTreeMap;

fn contender(name: &str, status: &str) -> ContenderInfo {
    ContenderInfo {
        name: name.into(),
        dir: ".".into(),
        start: "x {port}".into(),
        build: None,
        requires: vec![],
        status: status.into(),
        skip_reason: (status != "ready").then(|| "requires `go`, not found on PATH".into()),
        build_log: None,
        build_s: None,
    }
}

fn point(id: usize, variant: &str, c: u32) -> Point {
    let mut params = BTreeMap::new();
    params.insert("connections".into(), serde_json::json!(c));
    params.insert("variant".into(), serde_json::json!(variant));
    Point {
        id,
        label: format!("{variant} c={c}"),
        variant: Some(variant.into()),
        params,
        phases: vec![],
        client_params: BTreeMap::new(),
        network: None,
    }
}

fn trial(seq: usize, point: usize, contender: &str, i: u32, rps: f64) -> Trial {
    Trial {
        seq,
        point,
        contender: contender.into(),
        trial: i,
        started_at: "2026-01-01T00:00:00Z".into(),
        ok: true,
        failure: None,
        command: String::new(),
        windows: Windows::default(),
        phases: vec![],
        exit: None,
        samples: None,
        generator: None,
        validation: None,
        network: None,
        outside_cpu: None,
        machine: 0,
        contender_cpus: None,
        metrics: Metrics {
            rps: Some(rps),
            requests: Some(rps as u64),
            errors: Some(0),
            cpu_s_per_request: Some(1e-5),
            peak_rss_bytes: Some(10 << 20),
            ..Metrics::default()
        },
    }
}

fn results(
    points: Vec<Point>,
    contenders: Vec<ContenderInfo>,
    cells: &[(usize, &str, &[f64])],
) -> Results {
    let mut trials = Vec::new();
    for (p, c, vals) in cells {
        for (i, v) in vals.iter().enumerate() {
            trials.push(trial(trials.len(), *p, c, i as u32, *v));
        }
    }
    Results {
        schema: "barrage.study/1".into(),
        barrage_version: "0".into(),
        study: StudyInfo {
            name: "t".into(),
            description: String::new(),
            kind: ContenderRole::Server,
            trials: 5,
            warmup_s: 0.0,
            cooldown_s: 0.0,
            interleave: true,
            sample_interval_s: 0.1,
            trial_timeout_s: 60.0,
            file: "t.toml".into(),
            base_dir: ".".into(),
            source: String::new(),
            quick: false,
            max_errors: None,
            figures: Vec::new(),
            thresholds: Vec::new(),
            ..StudyInfo::default()
        },
        machine: Machine::default(),
        pinning: Pinning {
            mode: "off".into(),
            enabled: false,
            contender_cpus: None,
            generator_cpus: None,
            note: "pinning off".into(),
        },
        started_at: "2026-01-01T00:00:00Z".into(),
        updated_at: "2026-01-01T00:00:00Z".into(),
        finished_at: None,
        status: "complete".into(),
        planned_trials: trials.len(),
        points,
        contenders,
        trials,
        summary: vec![],
        comparisons: vec![],
        warnings: vec![],
        thresholds: vec![],
        answers: vec![],
        other_machines: vec![],
    }
}

#[test]
fn study_summary_comparisons_and_warnings() {
    let fast: &[f64] = &[1000.0, 1010.0, 990.0, 1005.0, 995.0];
    let slow: &[f64] = &[500.0, 505.0, 495.0, 502.0, 498.0];
    let same_a: &[f64] = &[100.0, 104.0, 98.0, 102.0, 97.0];
    let same_b: &[f64] = &[101.0, 99.0, 103.0, 96.0, 100.5];
    let cold: &[f64] = &[400.0, 1000.0, 1003.0, 998.0, 1001.0];
    let mut r = results(
        vec![point(0, "ka", 1), point(1, "close", 1), point(2, "ka", 8)],
        vec![
            contender("a", "ready"),
            contender("b", "ready"),
            contender("go", "skipped"),
        ],
        &[
            (0, "a", fast),
            (0, "b", slow),
            (1, "a", same_a),
            (1, "b", same_b),
            (2, "a", cold),
        ],
    );
    barrage_model::summary::update(&mut r);
    assert_eq!(r.summary.len(), 5);
    let cell = |p: usize, c: &str| {
        r.summary
            .iter()
            .find(|x| x.point == p && x.contender == c)
            .unwrap()
    };
    assert_eq!(cell(0, "a").stats["rps"].median, 1000.0);
    assert_eq!(cell(0, "b").stats["rps"].second_best, Some(502.0));
    let cmp = |p: usize, between: &str, a: &str, b: &str| {
        r.comparisons
            .iter()
            .find(|c| {
                c.point == p && c.between == between && c.metric == "rps" && c.a == a && c.b == b
            })
            .unwrap_or_else(|| {
                panic!(
                    "no {between} comparison {a} vs {b} at {p}: {:#?}",
                    r.comparisons
                )
            })
    };
    // Clearly different: a is 2x faster, significant.
    let c = cmp(0, "contenders", "a", "b");
    assert!(c.comparison.significant);
    assert!(
        c.comparison.phrase.starts_with("2.00x faster ["),
        "{}",
        c.comparison.phrase
    );
    // Overlapping samples: no significant difference, whichever is "best".
    let c = r
        .comparisons
        .iter()
        .find(|c| c.point == 1 && c.between == "contenders" && c.metric == "rps")
        .unwrap();
    assert!(!c.comparison.significant);
    assert!(c
        .comparison
        .phrase
        .starts_with("no significant difference ("));
    // Variants of contender a at c=1: ka (1000) vs close (~100).
    let c = cmp(0, "variants", "ka", "close");
    assert_eq!(c.label, "c=1");
    assert!(c.comparison.significant, "{c:?}");
    // Warnings: the skipped contender, and a cold first trial at point 2.
    let kinds: Vec<&str> = r.warnings.iter().map(|w| w.kind.as_str()).collect();
    assert!(kinds.contains(&"skipped"), "{kinds:?}");
    assert!(
        r.warnings
            .iter()
            .any(|w| w.kind == "first_trial_slow" && w.point == Some(2)),
        "{:#?}",
        r.warnings
    );
    assert!(r
        .warnings
        .iter()
        .any(|w| w.kind == "outlier" && w.point == Some(2)));
    assert!(!r
        .warnings
        .iter()
        .any(|w| w.point == Some(0) && w.kind == "outlier"));
    // Renderings.
    let csv = barrage_report::summary_csv::render(&r);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 6);
    let head: Vec<&str> = lines[0].split(',').collect();
    let row: Vec<&str> = lines[1].split(',').collect();
    assert_eq!(head.len(), row.len());
    let col = |name: &str| row[head.iter().position(|h| *h == name).unwrap()];
    assert_eq!(col("label"), "ka c=1");
    assert_eq!(col("rps_median"), "1000");
    assert_eq!(col("rps_min"), "990");
    let table = barrage_report::terminal::table(&r);
    assert!(
        table.contains("a vs b at ka c=1: 2.00x faster ["),
        "{table}"
    );
    assert!(table.contains("go was not run: requires `go`"), "{table}");
}

#[test]
fn study_summary_few_trials_say_so() {
    let mut r = results(
        vec![point(0, "ka", 1)],
        vec![contender("a", "ready"), contender("b", "ready")],
        &[(0, "a", &[10.0]), (0, "b", &[20.0])],
    );
    barrage_model::summary::update(&mut r);
    assert!(r.comparisons.iter().all(|c| !c.comparison.significant));
    assert!(r.comparisons.iter().filter(|c| c.metric == "rps").all(|c| c
        .comparison
        .phrase
        .starts_with("1 trial: too few to test; ratio 2.00x")));
    assert!(
        r.warnings
            .iter()
            .any(|w| w.kind == "few_trials" && w.message.contains("one trial")),
        "{:#?}",
        r.warnings
    );
}

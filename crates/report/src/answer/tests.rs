//! The answer block checked against known answers: hand-made trials whose medians, ranks,
//! failures and comparisons are known in advance.

use super::*;
use barrage_model::study::{Failure, Point, StudyInfo, Warning};
use std::collections::BTreeMap;

fn trial(point: usize, name: &str, k: u32, rps: Option<f64>) -> Trial {
    let mut t = Trial {
        point,
        contender: name.into(),
        trial: k,
        ok: rps.is_some(),
        ..Trial::default()
    };
    t.metrics.rps = rps;
    t.metrics.wall_s = Some(1.0);
    t
}

fn oom(point: usize, name: &str, k: u32) -> Trial {
    let mut t = trial(point, name, k, None);
    t.failure = Some(Failure {
        kind: "oom".into(),
        ..Failure::default()
    });
    t.metrics.peak_rss_bytes = Some(2 << 30);
    // As the lab writes it: 3 s of wall time before the kill.
    let exit = serde_json::json!({
        "outcome": {"kind": "oom", "evidence": "the memory cgroup counted 1 OOM kill(s)"},
        "termination": {"kind": "signaled", "signal": 9, "core_dumped": false},
        "wall_s": 3.0,
        "rusage": {"user_s": 1.0, "sys_s": 2.0, "maxrss_bytes": 2147483648u64, "minor_faults": 0,
                   "major_faults": 0, "voluntary_switches": 0, "involuntary_switches": 0},
        "stdout_bytes": 0, "stdout_truncated": false, "stderr_tail": "",
        "stop": {"signal_sent": false, "killed_after_grace": false, "stragglers_killed": 0},
        "memory_limit": {"kind": "cgroup_v1", "bytes": 2147483648u64, "path": "/x"},
        "cgroup_peak_bytes": 2147483648u64
    });
    t.exit = Some(serde_json::from_value(exit).expect("an exit record"));
    t
}

fn study(points: &[&str], trials: Vec<Trial>) -> Results {
    let mut r = Results {
        schema: "barrage.study/2".into(),
        study: StudyInfo {
            name: "t".into(),
            description: "which server is fastest?".into(),
            kind: ContenderRole::Server,
            trials: 5,
            ..StudyInfo::default()
        },
        points: points
            .iter()
            .enumerate()
            .map(|(id, l)| Point {
                id,
                label: l.to_string(),
                params: BTreeMap::from([(
                    "connections".to_string(),
                    serde_json::json!(l.trim_start_matches("c=").parse::<u64>().unwrap()),
                )]),
                ..Point::default()
            })
            .collect(),
        contenders: crate::table::dedup(trials.iter().map(|t| t.contender.clone()))
            .into_iter()
            .map(|name| barrage_model::study::ContenderInfo {
                name,
                status: "ready".into(),
                ..Default::default()
            })
            .collect(),
        trials,
        ..Results::default()
    };
    barrage_model::summary::update(&mut r);
    r
}

const FAST: [f64; 5] = [200.0, 202.0, 198.0, 201.0, 199.0];
const SLOW: [f64; 5] = [100.0, 101.0, 99.0, 100.5, 99.5];

fn sweep() -> Results {
    let mut trials = Vec::new();
    for k in 0..5u32 {
        let i = k as usize;
        // At c=1 slow leads; at c=10 fast leads by 2x: the rank follows the last point.
        trials.push(trial(0, "fast", k, Some(SLOW[i])));
        trials.push(trial(0, "slow", k, Some(FAST[i])));
        trials.push(trial(1, "fast", k, Some(FAST[i])));
        trials.push(trial(1, "slow", k, Some(SLOW[i])));
        trials.push(oom(0, "broken", k));
        trials.push(oom(1, "broken", k));
    }
    study(&["c=1", "c=10"], trials)
}

#[test]
fn ranks_by_the_primary_metric_at_the_last_point() {
    let a = answer(&sweep());
    assert_eq!(a.question, "which server is fastest?");
    let names: Vec<&str> = a.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["fast", "slow", "broken"]);
    let headers: Vec<(&str, &str)> = a
        .columns
        .iter()
        .map(|c| (c.group.as_str(), c.header.as_str()))
        .collect();
    assert_eq!(headers, [("req/s", "c=1"), ("req/s", "c=10")]);
    assert_eq!(a.rows[0].cells[1].value, Some(200.0));
    assert_eq!(a.rows[0].cells[0].value, Some(100.0));
    assert_eq!(a.rows[1].cells[1].value, Some(100.0));
    assert!(a.rows[0].cells[1].best && !a.rows[1].cells[1].best);
    assert!(a.rows[1].cells[0].best, "slow leads at c=1");
    assert!(a
        .ranked_by
        .starts_with("Ranked by throughput at c=10 (median of 5 trials)"));
}

#[test]
fn failures_are_inline_with_memory_and_time() {
    let a = answer(&sweep());
    let broken = &a.rows[2];
    assert!(broken.cells[1].failed);
    assert_eq!(broken.cells[1].value, None);
    assert_eq!(broken.cells[1].text, "OOM 5/5, 2.00 GiB, after 3.00 s");
}

#[test]
fn verdicts_are_the_model_comparisons_with_interval_and_p() {
    let a = answer(&sweep());
    assert!(a.verdicts.len() <= MAX_VERDICTS);
    let first = &a.verdicts[0];
    assert!(
        first.starts_with("fast has the highest throughput at c=10: 2.00x faster ["),
        "{first}"
    );
    // The interval at the level its corrected p is judged at, said beside it.
    assert!(
        first.contains("] at 97.5% than slow, the runner-up (p "),
        "{first}"
    );
    // At c=1 the order is the other way round.
    assert!(
        a.verdicts
            .iter()
            .any(|v| v.starts_with("slow has the highest throughput at c=1: 2.00x faster")),
        "{:?}",
        a.verdicts
    );
}

#[test]
fn equal_contenders_are_not_called_different() {
    let mut trials = Vec::new();
    for k in 0..3u32 {
        let i = k as usize;
        trials.push(trial(0, "a", k, Some(FAST[i])));
        trials.push(trial(0, "b", k, Some(FAST[(i + 1) % 3])));
    }
    let a = answer(&study(&["c=1"], trials));
    assert!(
        a.verdicts[0].contains("no significant difference from"),
        "{:?}",
        a.verdicts
    );
}

#[test]
fn pairs_show_the_keepalive_speedup() {
    let mut trials = Vec::new();
    for k in 0..5u32 {
        let i = k as usize;
        trials.push(trial(0, "x-close", k, Some(SLOW[i])));
        trials.push(trial(0, "x-keepalive", k, Some(3.0 * SLOW[i])));
        trials.push(trial(0, "y-close", k, Some(FAST[i])));
        trials.push(trial(0, "y-keepalive", k, Some(FAST[(i + 1) % 5])));
    }
    let mut r = study(&["c=1"], trials);
    r.points[0].label.clear();
    r.points[0].params.clear();
    let a = answer(&r);
    let names: Vec<&str> = a.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["x", "y"], "ranked by keep-alive throughput");
    assert_eq!(a.rows[0].cells[0].value, Some(100.0));
    assert_eq!(a.rows[0].cells[1].value, Some(300.0));
    assert!((a.rows[0].cells[2].value.unwrap() - 3.0).abs() < 1e-9);
    assert!(
        a.rows[0].cells[2].text.starts_with("3.00x ["),
        "{:?}",
        a.rows[0].cells[2]
    );
    assert!(
        a.rows[1].cells[2].text.contains(", n.s. (p = "),
        "{:?}",
        a.rows[1].cells[2]
    );
    assert!(
        a.verdicts[0].starts_with(
            "Keep-alive is significantly faster than a new connection per request in 1 of 2 pairs"
        ),
        "{}",
        a.verdicts[0]
    );
}

/// A paired study of several points has a row per pair at each point, the points in order,
/// ranked and marked best within each; the pairs of every point are one family.
#[test]
fn pairs_at_every_point() {
    let mut trials = Vec::new();
    for k in 0..5u32 {
        let i = k as usize;
        // c=1: keep-alive 3x for x, nothing for y; c=10: 2.5x for y, nothing for x.
        trials.push(trial(0, "x-close", k, Some(SLOW[i])));
        trials.push(trial(0, "x-keepalive", k, Some(3.0 * SLOW[i])));
        trials.push(trial(0, "y-close", k, Some(FAST[i])));
        trials.push(trial(0, "y-keepalive", k, Some(FAST[(i + 1) % 5])));
        trials.push(trial(1, "x-close", k, Some(FAST[i])));
        trials.push(trial(1, "x-keepalive", k, Some(FAST[(i + 2) % 5])));
        trials.push(trial(1, "y-close", k, Some(SLOW[i])));
        trials.push(trial(1, "y-keepalive", k, Some(2.5 * SLOW[i])));
    }
    let a = answer(&study(&["c=1", "c=10"], trials));
    let names: Vec<&str> = a.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["x at c=1", "y at c=1", "y at c=10", "x at c=10"]);
    let speedups: Vec<Option<f64>> = a.rows.iter().map(|r| r.cells[2].value).collect();
    assert!((speedups[0].unwrap() - 3.0).abs() < 1e-9, "{speedups:?}");
    assert!((speedups[2].unwrap() - 2.5).abs() < 1e-9, "{speedups:?}");
    let best: Vec<bool> = a.rows.iter().map(|r| r.cells[1].best).collect();
    assert_eq!(best, [true, false, true, false], "best within each point");
    assert!(
        a.verdicts[0].starts_with(
            "Keep-alive is significantly faster than a new connection per request in 2 of 4 pairs (2 at each of 2 points)"
        ),
        "{}",
        a.verdicts[0]
    );
    assert!(
        a.verdicts[1].starts_with("Largest gain: x at c=1 3.00x"),
        "{:?}",
        a.verdicts
    );
    assert!(
        a.verdicts[2].starts_with("Smallest gain: y at c=10 2.50x"),
        "{:?}",
        a.verdicts
    );
    assert!(
        a.ranked_by.contains("ranked within each point"),
        "{}",
        a.ranked_by
    );
}

#[test]
fn notes_fold_to_one_line_per_kind() {
    let mut r = sweep();
    r.warnings = ["a", "b", "a"]
        .iter()
        .map(|m| Warning {
            kind: "outlier".into(),
            message: m.to_string(),
            ..Warning::default()
        })
        .chain([Warning {
            kind: "few_trials".into(),
            message: "only one".into(),
            ..Warning::default()
        }])
        .collect();
    let n = fold_notes(&r);
    assert_eq!(n.len(), 2);
    assert_eq!((n[0].kind.as_str(), n[0].count), ("outlier", 3));
    assert_eq!(n[0].details, ["a", "b"], "a repeated message once");
    assert!(
        n[0].text.starts_with("2 trials flagged as outliers"),
        "{}",
        n[0].text
    );
    assert_eq!(n[1].text, "only one");
}

/// A cell with a failed trial is never marked best, whatever its median: "lucky" beats "fast"
/// on the median of its surviving trials (one of its five ran out of memory), yet "fast" is the
/// best of the cells whose every trial succeeded. With no such cell, no best at all.
#[test]
fn a_cell_with_a_failed_trial_is_never_best() {
    let mut trials = Vec::new();
    for k in 0..5u32 {
        let i = k as usize;
        trials.push(trial(0, "fast", k, Some(FAST[i])));
        trials.push(trial(0, "slow", k, Some(SLOW[i])));
        trials.push(if k == 2 {
            oom(0, "lucky", k)
        } else {
            trial(0, "lucky", k, Some(2.0 * FAST[i]))
        });
    }
    let a = answer(&study(&["c=1"], trials.clone()));
    let cell = |name: &str| {
        let row = a.rows.iter().find(|r| r.name == name).unwrap();
        row.cells[0].clone()
    };
    let lucky = cell("lucky");
    assert_eq!(
        lucky.value,
        Some(401.0),
        "the median of its 4 surviving trials"
    );
    assert!(lucky.with_failures && !lucky.failed && !lucky.best);
    assert!(cell("fast").best);
    assert!(!cell("slow").best);
    // The same in the Markdown export: the bold is on fast's figure alone.
    let page = crate::build(&[(
        "r".into(),
        crate::Input::Study(Box::new(study(&["c=1"], trials.clone()))),
    )])
    .unwrap();
    let md = crate::render(&page, crate::Format::Markdown, "t");
    let line = |name: &str| {
        md.lines()
            .find(|l| l.contains(&format!("| {name} |")))
            .unwrap()
    };
    assert!(line("fast").contains("**200**"), "{md}");
    assert!(!line("lucky").contains("**"), "{md}");
    assert!(!line("slow").contains("**"), "{md}");
    // The summary table calls it the reference, not the best.
    let row = md
        .lines()
        .find(|l| l.starts_with("| c=1 | lucky |"))
        .unwrap();
    assert!(
        row.contains("highest median throughput of its 4 successful trials (1 failed)"),
        "{row}"
    );
    assert!(!row.contains("best"), "{row}");
    let html = crate::render(&page, crate::Format::Html, "t");
    assert_eq!(html.matches("class=\"num best\"").count(), 1, "{html}");
    // Every cell with a failure: nothing is best.
    let broken: Vec<Trial> = (0..2u32)
        .flat_map(|k| {
            let ok = |name: &str| trial(0, name, k, Some(FAST[k as usize]));
            [
                if k == 0 { oom(0, "a", k) } else { ok("a") },
                if k == 1 { oom(0, "b", k) } else { ok("b") },
            ]
        })
        .collect();
    let a = answer(&study(&["c=1"], broken));
    assert!(a.rows.iter().all(|r| !r.cells[0].best));
}

/// The description's placeholders of client parameters with one value are filled; a swept one
/// and unknown braces stay as written.
#[test]
fn description_placeholders_are_filled() {
    use barrage_model::units::Param;
    let mut r = study(&["c=1", "c=10"], vec![trial(0, "a", 0, Some(1.0))]);
    for (i, p) in r.points.iter_mut().enumerate() {
        p.client_params.insert("seconds".into(), Param::Int(5));
        p.client_params
            .insert("size".into(), Param::Str(["1KiB", "1MiB"][i].into()));
    }
    r.study.description = "50 GETs of {size} for {seconds} s, {unknown}".into();
    assert_eq!(answer(&r).question, "50 GETs of {size} for 5 s, {unknown}");
}

/// A study of two contenders, each at two variants of one point: each variant comparison names
/// its contender (the model's row and the terminal's line), and only `a`'s 2x is significant.
#[test]
fn a_variant_comparison_names_its_contender() {
    let mut trials = Vec::new();
    for k in 0..5u32 {
        let i = k as usize;
        trials.push(trial(0, "a", k, Some(FAST[i])));
        trials.push(trial(1, "a", k, Some(SLOW[i])));
        trials.push(trial(0, "b", k, Some(SLOW[i])));
        trials.push(trial(1, "b", k, Some(SLOW[(i + 1) % 5] * 0.999)));
    }
    let mut r = study(&["c=1", "c=1"], trials);
    for (p, v) in r.points.iter_mut().zip(["unary", "chat"]) {
        p.label = format!("{v} c=1");
        p.variant = Some(v.into());
        p.params.insert("connections".into(), serde_json::json!(1));
        p.params.insert("variant".into(), serde_json::json!(v));
    }
    barrage_model::summary::update(&mut r);
    let rows: Vec<(Option<&str>, &str, &str, bool)> = r
        .comparisons
        .iter()
        .filter(|c| c.between == Between::Variants && c.metric == "rps")
        .map(|c| {
            let s = c.comparison.significant;
            (c.contender.as_deref(), c.a.as_str(), c.label.as_str(), s)
        })
        .collect();
    assert_eq!(
        rows,
        [
            (Some("a"), "unary", "c=1", true),
            (Some("b"), "unary", "c=1", false)
        ]
    );
    let text = crate::terminal::table(&r);
    assert!(
        text.contains("  a: unary vs chat at c=1: 2.00x faster"),
        "{text}"
    );
    assert!(
        text.contains("  b: unary vs chat at c=1: no significant difference"),
        "{text}"
    );
}

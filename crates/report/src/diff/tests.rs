//! The layouts of a comparison: the terminal table, Markdown for a pull request and the JSON
//! document, and the words of a row (its change, interval, p-value and verdict). The
//! comparison's rules themselves are tested with it, in the model (`barrage_model::compare`).

use super::render;
use barrage_model::compare::{loads, studies, Options, Verdict};
use barrage_model::load::{Latency, LoadDoc};
use barrage_model::study::{ContenderInfo, Point, Results, Trial};

fn load(rps: f64, p50: u64, errors: u64) -> LoadDoc {
    let mut d = LoadDoc {
        schema: barrage_model::load::SCHEMA.into(),
        rps,
        requests: (rps * 2.0) as u64,
        duration_s: 2.0,
        config: serde_json::json!({"method": "GET", "url": "http://127.0.0.1:8080/sleep/5", "connections": 8}),
        latency_us: Latency {
            count: (rps * 2.0) as u64,
            mean: p50 as f64 * 1.02,
            p50,
            p90: p50 * 11 / 10,
            p99: p50 * 13 / 10,
            p999: p50 * 2,
            max: p50 * 3,
            ..Latency::default()
        },
        ..LoadDoc::default()
    };
    d.errors
        .count(barrage_model::load::ErrorClass::Timeout, errors);
    d
}

/// A server study of one point (`c=64`), each contender with its trials' throughput and
/// optionally p50 (µs).
fn study(name: &str, contenders: &[(&str, &[f64], &[f64])]) -> Results {
    let mut r = Results {
        schema: barrage_model::study::SCHEMA.into(),
        status: "complete".into(),
        points: vec![Point {
            id: 0,
            label: "c=64".into(),
            ..Point::default()
        }],
        ..Results::default()
    };
    r.study.name = name.into();
    for (c, rps, p50) in contenders {
        r.contenders.push(ContenderInfo {
            name: c.to_string(),
            status: "ready".into(),
            ..ContenderInfo::default()
        });
        for (i, v) in rps.iter().enumerate() {
            let mut t = Trial {
                point: 0,
                contender: c.to_string(),
                trial: i as u32,
                ok: true,
                ..Trial::default()
            };
            t.metrics.rps = Some(*v);
            t.metrics.latency_p50_us = p50.get(i).copied();
            r.trials.push(t);
        }
    }
    r
}

const OLD_RPS: [f64; 5] = [10000.0, 10150.0, 9900.0, 10050.0, 9950.0];
const HALF_RPS: [f64; 5] = [5020.0, 4950.0, 5080.0, 4990.0, 5010.0];

#[test]
fn markdown_is_a_table_ready_for_a_pull_request() {
    let (old, new) = (load(1600.0, 5100, 0), load(320.0, 25200, 0));
    let d = loads(("main.json", &old), ("pr.json", &new), &Options::default()).unwrap();
    let md = render::markdown(&d);
    let want_head = "### barrage compare: `main.json` → `pr.json`\n\nLoad runs, noise floor ±5%. **6 regressions** (throughput, mean, p50, p90, p99, and 1 more), 0 improvements beyond the ±5% noise floor.\n\n| metric | old | new | change | verdict |\n|---|--:|--:|--:|---|\n| throughput | 1600 req/s | 320 req/s | -80.0% | **regression** |\n";
    assert!(md.starts_with(want_head), "{md}");
    assert!(
        md.contains("| max | 15.30 ms | 75.60 ms | +394.1% | not judged |\n"),
        "{md}"
    );
    assert!(
        md.contains("| error rate | 0.00% | 0.00% | 0.0% | within noise |\n"),
        "{md}"
    );
    // Documents without intervals (barrage.load/1): the floor alone, and the notes say so.
    assert!(
        md.contains("\n- main.json has no intervals (a barrage.load/1 document)"),
        "{md}"
    );
    assert!(!md.contains("<details>"), "9 rows need no folding");
}

#[test]
fn long_markdown_leads_with_the_changes_and_folds_the_rest() {
    let names = ["a", "b", "c", "d", "e", "f", "g"];
    let p50 = [5000.0, 5100.0, 4950.0, 5050.0, 5000.0];
    let old_c: Vec<(&str, &[f64], &[f64])> =
        names.iter().map(|n| (*n, &OLD_RPS[..], &p50[..])).collect();
    let mut new_c = old_c.clone();
    new_c[3].1 = &HALF_RPS;
    let (old, new) = (study("s", &old_c), study("s", &new_c));
    let d = studies(("old", &old), ("new", &new), &Options::default()).unwrap();
    assert_eq!(d.rows.len(), 14);
    let md = render::markdown(&d);
    let (lead, folded) = md
        .split_once("<details><summary>All 14 rows</summary>")
        .unwrap();
    assert_eq!(lead.matches("\n| c=64 |").count(), 1, "{md}");
    assert!(lead.contains("| c=64 | d | throughput | 10.0k req/s | 5010 req/s | -49.9% | [-51.2%, -48.7%] at 99.64% | < 0.0001 | **regression** |"), "{md}");
    assert_eq!(folded.matches("\n| c=64 |").count(), 14, "{md}");
    assert!(folded.contains("</details>"));
}

#[test]
fn text_and_json_carry_the_same_rows() {
    let old = study("s", &[("srv", &OLD_RPS, &[])]);
    let new = study("s", &[("srv", &HALF_RPS, &[])]);
    let d = studies(("old", &old), ("new", &new), &Options { noise: 0.025 }).unwrap();
    let text = render::text(&d);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "barrage compare: old -> new (study results, noise floor ±2.5%)"
    );
    assert_eq!(
        lines[2].split_whitespace().collect::<Vec<_>>(),
        [
            "point",
            "contender",
            "metric",
            "old",
            "new",
            "change",
            "CI",
            "p",
            "verdict"
        ]
    );
    assert!(
        lines[3].starts_with("c=64   srv        throughput  10.0k req/s  5010 req/s  -49.9%"),
        "{text}"
    );
    assert!(lines[3].ends_with("< 0.0001  regression"), "{text}");
    assert_eq!(
        *lines.last().unwrap(),
        "1 regression (throughput of srv at c=64), 0 improvements beyond the ±2.5% noise floor."
    );
    let v: serde_json::Value = serde_json::from_str(&render::json(&d)).unwrap();
    assert_eq!(v["schema"], "barrage.compare/1");
    assert_eq!(v["kind"], "study");
    assert_eq!(v["noise"], 0.025);
    assert_eq!(v["regressions"], 1);
    let r = &v["rows"][0];
    assert_eq!(
        (
            &r["metric"],
            &r["verdict"],
            &r["old"],
            &r["new"],
            &r["better"]
        ),
        (
            &"rps".into(),
            &"regression".into(),
            &10000.0.into(),
            &5010.0.into(),
            &"higher".into()
        )
    );
    assert_eq!(r["test"]["method"], "welch_log");
    assert!(r["test"]["ratio_ci95"]["hi"].as_f64().unwrap() < 1.0);
}

#[test]
fn percentages_read_well() {
    assert_eq!(render::percent(0.05), "5%");
    assert_eq!(render::percent(0.025), "2.5%");
    assert_eq!(render::percent(0.5), "50%");
    assert_eq!(render::percent(0.0), "0%");
    assert_eq!(render::signed_percent(3.941), "+394.1%");
    assert_eq!(render::signed_percent(-0.0001), "0.0%");
    assert_eq!(render::signed_percent(12.5), "+1250%");
}

#[test]
fn the_words_of_a_row() {
    // Errors where there were none: a change from 0, beyond any floor.
    let (old, mut new) = (load(1000.0, 2000, 0), load(1000.0, 2000, 20));
    let d = loads(("old", &old), ("new", &new), &Options::default()).unwrap();
    let pct = d.rows.iter().find(|r| r.metric == "error_pct").unwrap();
    assert_eq!(render::change_text(pct), "from 0");
    // Nothing answered: no latency on the new side, no change to show.
    new.latency_us = Latency::default();
    let d = loads(("old", &old), ("new", &new), &Options::default()).unwrap();
    let p50 = d
        .rows
        .iter()
        .find(|r| r.metric == "latency_p50_us")
        .unwrap();
    assert_eq!(
        (render::change_text(p50), p50.verdict),
        ("-".into(), Verdict::Missing)
    );
    // A real 2x over 5 trials: the interval of the change and the corrected p.
    let old = study("s", &[("srv", &OLD_RPS, &[])]);
    let new = study("s", &[("srv", &HALF_RPS, &[])]);
    let d = studies(("old", &old), ("new", &new), &Options::default()).unwrap();
    assert_eq!(render::ci_text(&d.rows[0]), "[-50.6%, -49.2%]");
    assert_eq!(render::p_text(&d.rows[0]), "< 0.0001");
    assert_eq!(render::verdict_text(&d.rows[0]), "regression");
    // One trial a side: judged by the floor alone, and said so.
    let old = study("s", &[("srv", &[10000.0], &[])]);
    let new = study("s", &[("srv", &[8000.0], &[])]);
    let d = studies(("old", &old), ("new", &new), &Options::default()).unwrap();
    assert_eq!(render::verdict_text(&d.rows[0]), "regression (untested)");
    assert_eq!(render::p_text(&d.rows[0]), "untested");
    // Overlapping trials: beyond the floor, not significant.
    let old = study("s", &[("srv", &[100.0, 140.0, 80.0, 120.0, 95.0], &[])]);
    let new = study("s", &[("srv", &[85.0, 130.0, 70.0, 60.0, 110.0], &[])]);
    let d = studies(("old", &old), ("new", &new), &Options::default()).unwrap();
    assert_eq!(render::verdict_text(&d.rows[0]), "not significant");
    assert_eq!(
        render::summary(&d),
        "No change beyond the ±5% noise floor; 1 change beyond it not significant."
    );
}

#[test]
fn a_figure_that_cannot_be_judged_is_named_and_never_no_change() {
    // Two runs alike but for p99.9 (10.2 ms -> 13 ms), whose interval is open above in both:
    // its rise cannot be judged, and the summary says so instead of "No change".
    let with_intervals = |mut d: LoadDoc| {
        let figures = barrage_model::load::intervals::judged()
            .filter_map(|m| {
                let v = barrage_model::metric::load_value(m, &d)?;
                let hi = (m.key != "latency_p999_us").then_some(v * 1.01);
                let b = barrage_model::load::intervals::Bound {
                    lo: Some(v * 0.99),
                    hi,
                };
                Some((m.key.to_string(), b))
            })
            .collect();
        d.intervals = Some(barrage_model::load::intervals::Intervals {
            level: 0.95,
            seconds: 2,
            responses: d.requests,
            figures,
            ..Default::default()
        });
        d
    };
    let old = with_intervals(load(1600.0, 5100, 0));
    let mut new = load(1600.0, 5100, 0);
    new.latency_us.p999 = 13_000;
    let new = with_intervals(new);
    let d = loads(("a.json", &old), ("b.json", &new), &Options::default()).unwrap();
    let p999 = d
        .rows
        .iter()
        .find(|r| r.metric == "latency_p999_us")
        .unwrap();
    assert_eq!(p999.verdict, Verdict::NotEnoughData);
    assert_eq!(render::verdict_text(p999), "cannot judge");
    assert_eq!((d.regressions, d.improvements, d.inconclusive), (0, 0, 1));
    assert_eq!(
        render::summary(&d),
        "0 regressions, 0 improvements beyond the ±5% noise floor; cannot judge 1 figure (p99.9): changed beyond it, with too little data to tell from chance."
    );
    assert!(!render::text(&d).contains("No change"));
    // The same runs without the rise: nothing left to judge, and no change it is.
    let d = loads(("a.json", &old), ("a.json", &old), &Options::default()).unwrap();
    assert_eq!(render::summary(&d), "No change beyond the ±5% noise floor.");
}

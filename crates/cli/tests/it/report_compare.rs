//! `barrage report A B` and `barrage compare A B`, run as the binary on the same two result
//! files, name the same verdict on every row: both render the model's one comparison
//! (`barrage_model::compare`). The report's CSV carries each row's verdict in `barrage
//! compare`'s words; the comparison's JSON carries it as a snake_case name.

use barrage_model::study::{ContenderInfo, Point, Results, Trial};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn barrage(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_barrage"))
        .args(args)
        .output()
        .expect("barrage runs");
    assert!(
        o.status.success(),
        "barrage {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// One CSV line's fields (quoted fields may hold commas and doubled quotes).
fn fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

type Verdicts = BTreeMap<(String, String, String), String>;

/// (point, contender, metric) -> verdict, from `barrage report A B -f csv`'s comparison lines.
fn report_verdicts(a: &str, b: &str) -> Verdicts {
    let csv = barrage(&["report", a, b, "-f", "csv", "-o", "-"]);
    let mut lines = csv.lines();
    let head = fields(lines.next().unwrap());
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    let (point, contender, metric, vs, verdict) = (
        col("point"),
        col("contender"),
        col("metric"),
        col("vs"),
        col("verdict"),
    );
    lines
        .map(fields)
        .filter(|f| f[0].starts_with("Comparison: ") && f[vs] == "baseline")
        .map(|f| {
            let words = f[verdict].trim_end_matches(" (untested)").to_string();
            (
                (f[point].clone(), f[contender].clone(), f[metric].clone()),
                words,
            )
        })
        .collect()
}

/// (point, contender, metric) -> verdict, from `barrage compare A B -f json`, in words.
fn compare_verdicts(a: &str, b: &str) -> Verdicts {
    let v: Value = serde_json::from_str(&barrage(&["compare", a, b, "-f", "json"])).unwrap();
    assert_eq!(v["schema"], "barrage.compare/1");
    let s = |r: &Value, k: &str| r[k].as_str().unwrap_or_default().to_string();
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                (s(r, "point"), s(r, "contender"), s(r, "metric")),
                s(r, "verdict").replace('_', " "),
            )
        })
        .collect()
}

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../report/tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn report_and_compare_agree_on_every_row_of_the_fixtures() {
    let (a, b) = (fixture("server-study.json"), fixture("server-study-b.json"));
    let (report, compare) = (report_verdicts(&a, &b), compare_verdicts(&a, &b));
    // 2 points x 2 contenders x 9 metrics (throughput, three percentiles, errors, CPU per
    // request, RSS, PSS, error rate).
    assert_eq!(compare.len(), 36, "{compare:?}");
    assert_eq!(report, compare);
    // Welch alone: p = 0.042 for barrage-serve's +37.6% at c=1, which the report's section
    // once called "1.38x faster"; Holm over the 28 tests makes it not significant in both.
    let key = |p: &str, c: &str, m: &str| (p.to_string(), c.to_string(), m.to_string());
    assert_eq!(
        report[&key("c=1", "barrage-serve", "rps")],
        "not significant"
    );
    assert_eq!(report[&key("c=1", "python-http", "rps")], "within noise");
    assert_eq!(report[&key("c=8", "python-http", "errors")], "not judged");
}

/// A server study of one point (`c=64`) with each contender's trials' throughput.
fn study(contenders: &[(&str, &[f64])]) -> Results {
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
    r.study.name = "agree".into();
    for (name, rps) in contenders {
        r.contenders.push(ContenderInfo {
            name: name.to_string(),
            status: "ready".into(),
            ..ContenderInfo::default()
        });
        for (i, v) in rps.iter().enumerate() {
            let mut t = Trial {
                contender: name.to_string(),
                trial: i as u32,
                ok: true,
                ..Trial::default()
            };
            t.metrics.rps = Some(*v);
            r.trials.push(t);
        }
    }
    r
}

fn write(dir: &Path, name: &str, r: &Results) -> String {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("results.json"), serde_json::to_string(r).unwrap()).unwrap();
    d.display().to_string()
}

#[test]
fn a_halving_a_small_significant_change_and_a_crash_get_one_verdict_each() {
    let dir = std::env::temp_dir().join(format!("barrage-report-compare-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let old = study(&[
        ("half", &[10000.0, 10150.0, 9900.0, 10050.0, 9950.0]),
        ("small", &[10000.0, 10010.0, 9990.0, 10005.0, 9995.0]),
        ("same", &[500.0, 510.0, 490.0, 505.0, 495.0]),
        ("crash", &[700.0, 710.0, 690.0, 705.0, 695.0]),
    ]);
    let mut new = study(&[
        ("half", &[5020.0, 4950.0, 5080.0, 4990.0, 5010.0]),
        // +3%, far beyond the trials' spread: significant, but within the ±5% floor.
        ("small", &[10300.0, 10310.0, 10290.0, 10305.0, 10295.0]),
        ("same", &[500.0, 510.0, 490.0, 505.0, 495.0]),
        ("crash", &[700.0, 710.0, 690.0, 705.0, 695.0]),
    ]);
    for t in new.trials.iter_mut().filter(|t| t.contender == "crash") {
        t.ok = false;
    }
    let (a, b) = (write(&dir, "old", &old), write(&dir, "new", &new));
    let (report, compare) = (report_verdicts(&a, &b), compare_verdicts(&a, &b));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(report, compare);
    let verdict =
        |c: &str| report[&("c=64".to_string(), c.to_string(), "rps".to_string())].as_str();
    assert_eq!(
        [
            verdict("half"),
            verdict("small"),
            verdict("same"),
            verdict("crash")
        ],
        ["regression", "within noise", "within noise", "regression"]
    );
}

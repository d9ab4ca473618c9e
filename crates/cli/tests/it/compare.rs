//! `barrage compare` as a process, for CI: real load runs of a 5 ms and a 25 ms endpoint of
//! barrage's own server (in process, port 0, loopback) flag the regression and exit 1 with
//! `--fail-on regression`, 2-second runs too (issue 57); what cannot be judged exits 3 unless
//! allowed; a run compared with itself exits 0; study results with a real 2x
//! difference over 5 trials are a significant regression, overlapping ones are not; bad inputs
//! are one-line errors with exit status 2.

use barrage_engine::{run, Cancel, Config, NullSink, Validate as _};
use barrage_model::study::{ContenderInfo, Point, Results, Trial};
use barrage_server::{start, ServerConfig};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// A directory of its own for one test, removed when dropped.
struct Tmp(PathBuf);

impl Tmp {
    fn new(name: &str) -> Tmp {
        let d =
            std::env::temp_dir().join(format!("barrage-cli-compare-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Tmp(d)
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn barrage(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_barrage"))
        .args(args)
        .output()
        .expect("barrage runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Three seconds of closed-loop load at `url` with 8 connections (the fewest with intervals):
/// its `barrage.load/2` document.
fn load(url: &str) -> String {
    let cfg = Config {
        url: url.to_string(),
        connections: 8,
        threads: 1,
        duration: Some(Duration::from_secs(3)),
        ..Config::default()
    };
    let r = run(&cfg.validate().unwrap(), &NullSink, &Cancel::new()).unwrap();
    serde_json::to_string(&r).unwrap()
}

fn row<'a>(v: &'a Value, metric: &str) -> &'a Value {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == metric)
        .unwrap_or_else(|| panic!("no {metric} row in {v}"))
}

#[test]
fn a_5ms_and_a_25ms_run_flag_the_regression_and_the_same_run_does_not() {
    let dir = Tmp::new("loads");
    let (fast, slow) = (dir.path("fast.json"), dir.path("slow.json"));
    {
        let server = start(ServerConfig {
            threads: 1,
            ..ServerConfig::default()
        })
        .unwrap();
        let addr = server.local_addr();
        std::fs::write(&fast, load(&format!("http://{addr}/sleep/5"))).unwrap();
        std::fs::write(&slow, load(&format!("http://{addr}/sleep/25"))).unwrap();
        server.shutdown();
    }

    let o = barrage(&[
        "compare",
        &fast,
        &slow,
        "--fail-on",
        "regression",
        "-f",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (&v["schema"], &v["kind"]),
        (&"barrage.compare/1".into(), &"load".into())
    );
    let p50 = row(&v, "latency_p50_us");
    let (old, new) = (p50["old"].as_f64().unwrap(), p50["new"].as_f64().unwrap());
    // A response cannot come before its sleep; on a busy machine it may come well after.
    assert!((5000.0..15000.0).contains(&old), "old p50 {old} µs");
    assert!((25000.0..60000.0).contains(&new), "new p50 {new} µs");
    assert!(p50["change"].as_f64().unwrap() > 0.6, "{p50}");
    assert_eq!(p50["verdict"], "regression");
    // 8 connections each waiting at least 5 ms (25 ms) a request: at most 1,600 (320) req/s.
    let rps = row(&v, "rps");
    let (old, new) = (rps["old"].as_f64().unwrap(), rps["new"].as_f64().unwrap());
    assert!((500.0..=1610.0).contains(&old), "old rps {old}");
    assert!((100.0..=330.0).contains(&new), "new rps {new}");
    assert_eq!(rps["verdict"], "regression");
    assert_eq!(row(&v, "latency_max_us")["verdict"], "not_judged");
    // Tested against both runs' intervals, the corrected p below 0.05.
    assert_eq!(p50["test"]["method"], "intervals");
    assert!(p50["test"]["p_adjusted"].as_f64().unwrap() < 0.05, "{p50}");
    let err = stderr(&o);
    assert!(
        err.contains("barrage: regression: p50: ")
            && err.contains("beyond the ±5% noise floor, adjusted p "),
        "{err}"
    );

    // Without --fail-on the comparison is only reported; the other way round it improved.
    assert_eq!(barrage(&["compare", &fast, &slow]).status.code(), Some(0));
    let o = barrage(&["compare", &slow, &fast, "--fail-on", "regression"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("0 regressions, "), "{text}");

    // A run compared with itself: nothing changed, exit 0.
    let o = barrage(&[
        "compare",
        &fast,
        &fast,
        "--fail-on",
        "regression",
        "-f",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (&v["regressions"], &v["improvements"]),
        (&0.into(), &0.into())
    );
    for r in v["rows"].as_array().unwrap() {
        assert_eq!(r["change"], 0.0, "{r}");
        // No change at all is within any floor: nothing that cannot be judged either.
        assert!(
            ["within_noise", "not_judged"].contains(&r["verdict"].as_str().unwrap()),
            "{r}"
        );
    }

    // Markdown for a pull request, written where -o says.
    let md = dir.path("cmp.md");
    let o = barrage(&["compare", &fast, &slow, "-o", &md]);
    assert_eq!(o.status.code(), Some(0));
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(
        text.starts_with(
            "### barrage compare: `fast.json` → `slow.json`\n\nLoad runs, noise floor ±5%. **"
        ),
        "{text}"
    );
    assert!(
        text.contains("\n| metric | old | new | change | CI | p | verdict |\n"),
        "{text}"
    );
    assert!(text.contains("| p50 | "), "{text}");
    assert!(stderr(&o).contains("comparison written to"));
}

/// `barrage load -c 4 -d 2s --json PATH URL` as a process, as a CI job runs it.
fn load_2s(url: &str, path: &str) {
    let o = barrage(&[
        "load", url, "-c", "4", "-t", "1", "-d", "2s", "-q", "--json", path,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn two_2s_runs_of_a_5x_slower_server_fail_the_gate() {
    // Issue 57's CI case: two 2-second runs (4 connections, /sleep/5 then /sleep/25, about
    // 1,500 and 300 responses) passed `--fail-on regression` with every figure "not enough
    // data" and "No change beyond the ±5% noise floor.". Two seconds now give intervals, and
    // the 5x slower server is a regression.
    let dir = Tmp::new("short");
    let (fast, slow, again) = (
        dir.path("fast.json"),
        dir.path("slow.json"),
        dir.path("again.json"),
    );
    let server = start(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    })
    .unwrap();
    let addr = server.local_addr();
    load_2s(&format!("http://{addr}/sleep/5"), &fast);
    load_2s(&format!("http://{addr}/sleep/25"), &slow);
    load_2s(&format!("http://{addr}/sleep/5"), &again);
    server.shutdown();

    let o = barrage(&["compare", &fast, &slow, "--fail-on", "regression"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(!text.contains("No change"), "{text}");
    assert!(
        stderr(&o).contains("barrage: regression: p50: "),
        "{}",
        stderr(&o)
    );
    // Allowing what cannot be judged does not let a regression through.
    let o = barrage(&[
        "compare",
        &fast,
        &slow,
        "--fail-on",
        "regression",
        "--allow-inconclusive",
        "-f",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    for key in ["latency_p50_us", "latency_mean_us", "rps"] {
        let r = row(&v, key);
        assert_eq!(r["verdict"], "regression", "{r}");
        assert_eq!(r["test"]["method"], "intervals", "{r}");
    }
    let p50 = row(&v, "latency_p50_us");
    let (old, new) = (p50["old"].as_f64().unwrap(), p50["new"].as_f64().unwrap());
    // A response cannot come before its sleep; on a busy machine it may come well after.
    assert!((5000.0..15000.0).contains(&old), "old p50 {old} µs");
    assert!((25000.0..60000.0).contains(&new), "new p50 {new} µs");
    // Every row is judged or says it cannot be: none changed beyond the floor and passed as
    // within noise.
    for r in v["rows"].as_array().unwrap() {
        if r["verdict"] == "within_noise" {
            assert!(r["change"].as_f64().unwrap().abs() <= 0.05, "{r}");
        }
    }
    assert_eq!(
        v["inconclusive"].as_u64().unwrap() as usize,
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["verdict"] == "not_enough_data")
            .count()
    );

    // The same workload twice: never a regression. What cannot be judged (a tail that moved
    // beyond the floor with too few responses behind it) exits 3 and is named; allowed, 0.
    let o = barrage(&[
        "compare",
        &fast,
        &again,
        "--fail-on",
        "regression",
        "-f",
        "json",
    ]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["regressions"], 0, "{v}");
    let unjudged = v["inconclusive"].as_u64().unwrap();
    let want = if unjudged > 0 { 3 } else { 0 };
    assert_eq!(o.status.code(), Some(want), "{}", stderr(&o));
    assert_eq!(
        stderr(&o).matches("barrage: cannot judge: ").count() as u64,
        unjudged,
        "{}",
        stderr(&o)
    );
    let o = barrage(&[
        "compare",
        &fast,
        &again,
        "--fail-on",
        "regression",
        "--allow-inconclusive",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// A server study's results with one contender at one point and its trials' throughput.
fn study(rps: &[f64]) -> String {
    let mut r = Results {
        schema: barrage_model::study::SCHEMA.into(),
        status: "complete".into(),
        points: vec![Point {
            id: 0,
            label: "c=64".into(),
            ..Point::default()
        }],
        contenders: vec![ContenderInfo {
            name: "srv".into(),
            status: "ready".into(),
            ..ContenderInfo::default()
        }],
        ..Results::default()
    };
    r.study.name = "ci".into();
    for (i, v) in rps.iter().enumerate() {
        let mut t = Trial {
            contender: "srv".into(),
            trial: i as u32,
            ok: true,
            ..Trial::default()
        };
        t.metrics.rps = Some(*v);
        r.trials.push(t);
    }
    serde_json::to_string(&r).unwrap()
}

fn study_dir(root: &Tmp, name: &str, rps: &[f64]) -> String {
    let d = root.path(name);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(Path::new(&d).join("results.json"), study(rps)).unwrap();
    d
}

#[test]
fn studies_with_a_real_2x_difference_over_5_trials_fail_and_overlapping_ones_pass() {
    let dir = Tmp::new("studies");
    let base = study_dir(&dir, "base", &[10000.0, 10150.0, 9900.0, 10050.0, 9950.0]);
    let half = study_dir(&dir, "half", &[5020.0, 4950.0, 5080.0, 4990.0, 5010.0]);
    let o = barrage(&[
        "compare",
        &base,
        &half,
        "--fail-on",
        "regression",
        "-f",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (&v["kind"], &v["base"], &v["new"]),
        (&"study".into(), &"base".into(), &"half".into())
    );
    let r = row(&v, "rps");
    assert_eq!(
        (r["old"].as_f64(), r["new"].as_f64()),
        (Some(10000.0), Some(5010.0))
    );
    assert_eq!(r["verdict"], "regression");
    let t = &r["test"];
    assert!(t["p_adjusted"].as_f64().unwrap() < 1e-10, "{t}");
    // scipy: the 95% interval of the ratio is [0.4936, 0.5075]: well clear of 1.
    let (lo, hi) = (
        t["ratio_ci95"]["lo"].as_f64().unwrap(),
        t["ratio_ci95"]["hi"].as_f64().unwrap(),
    );
    assert!(
        (lo - 0.4936).abs() < 1e-3 && (hi - 0.5075).abs() < 1e-3,
        "{t}"
    );
    assert!(stderr(&o).contains("barrage: regression: throughput of srv at c=64: 10.0k req/s -> 5010 req/s (-49.9%), beyond the ±5% noise floor, adjusted p < 0.0001"), "{}", stderr(&o));

    // Medians 100 -> 85 with trials all over the place: not a significant change.
    let wide = study_dir(&dir, "wide", &[100.0, 140.0, 80.0, 120.0, 95.0]);
    let wide2 = study_dir(&dir, "wide2", &[85.0, 130.0, 70.0, 60.0, 110.0]);
    let o = barrage(&[
        "compare",
        &wide,
        &wide2,
        "--fail-on",
        "regression",
        "-f",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let r = row(&v, "rps");
    assert_eq!(r["verdict"], "not_significant");
    assert!(r["test"]["p_adjusted"].as_f64().unwrap() > 0.05);
}

#[test]
fn bad_inputs_are_one_line_errors_with_status_2() {
    let dir = Tmp::new("bad");
    let s = study_dir(&dir, "s", &[1.0, 2.0]);
    let l = dir.path("l.json");
    std::fs::write(&l, r#"{"schema":"barrage.load/1","rps":5.0}"#).unwrap();
    let junk = dir.path("junk.json");
    std::fs::write(&junk, "not json").unwrap();
    for (args, says) in [
        (
            vec![l.as_str(), s.as_str()],
            "cannot compare l.json (a load run) with s (study results)",
        ),
        (
            vec![
                "history:latest",
                l.as_str(),
                "--history",
                "/nonexistent/h.db",
            ],
            "/nonexistent/h.db",
        ),
        (
            vec![l.as_str(), "/nonexistent/x.json"],
            "cannot read /nonexistent/x.json",
        ),
        (
            vec![l.as_str(), junk.as_str()],
            "junk.json: not a results document",
        ),
        (
            vec![l.as_str(), l.as_str(), "--noise=-3%"],
            "is not a percentage",
        ),
    ] {
        let mut a = vec!["compare"];
        a.extend(args);
        let o = barrage(&a);
        assert_eq!(o.status.code(), Some(2), "{a:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(says), "{a:?}: {err}");
        if !says.contains("percentage") {
            assert_eq!(err.lines().count(), 1, "{err}");
        }
    }
}

#[test]
fn history_sides_compare_recorded_runs() {
    // Two runs recorded by `barrage load --history`, the 25 ms one last: comparing the
    // previous with the latest flags the regression, as a CI job would.
    let dir = Tmp::new("history");
    let db = dir.path("h.db");
    let server = start(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    })
    .unwrap();
    for ms in [5, 25] {
        let url = format!("http://{}/sleep/{ms}", server.local_addr());
        // 3 s: the fewest with intervals (a shorter run is "not enough data" throughout).
        let out = barrage(&["load", &url, "-c", "4", "-d", "3s", "--history", &db]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let out = barrage(&[
        "compare",
        "history:previous",
        "history:latest",
        "--history",
        &db,
        "-f",
        "json",
        "--fail-on",
        "regression",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let p50 = row(&v, "latency_p50_us");
    assert_eq!(p50["verdict"], "regression", "{p50}");
    assert!(p50["old"].as_f64().unwrap() >= 5_000.0 && p50["new"].as_f64().unwrap() >= 25_000.0);
}

#[test]
fn several_runs_a_side_are_compared_as_trials() {
    // Three short runs a side (a trial needs no intervals of its own): given as files around
    // `--`, or as two directories of load documents.
    let dir = Tmp::new("trials");
    for side in ["main", "pr"] {
        std::fs::create_dir_all(dir.0.join(side)).unwrap();
    }
    let server = start(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    })
    .unwrap();
    let addr = server.local_addr();
    let run = |ms: u32| {
        let cfg = Config {
            url: format!("http://{addr}/sleep/{ms}"),
            connections: 4,
            threads: 1,
            duration: Some(Duration::from_millis(500)),
            ..Config::default()
        };
        let r = run(&cfg.validate().unwrap(), &NullSink, &Cancel::new()).unwrap();
        serde_json::to_string(&r).unwrap()
    };
    let mut files = (Vec::new(), Vec::new());
    for i in 0..3 {
        let (m, p) = (
            dir.path(&format!("main/{i}.json")),
            dir.path(&format!("pr/{i}.json")),
        );
        std::fs::write(&m, run(5)).unwrap();
        std::fs::write(&p, run(20)).unwrap();
        files.0.push(m);
        files.1.push(p);
    }
    server.shutdown();
    let mut args: Vec<&str> = vec!["compare", "-f", "json", "--fail-on", "regression"];
    args.extend(files.0.iter().map(String::as_str));
    args.push("--");
    args.extend(files.1.iter().map(String::as_str));
    for a in [
        args,
        vec![
            "compare",
            "-f",
            "json",
            "--fail-on",
            "regression",
            &dir.path("main"),
            &dir.path("pr"),
        ],
    ] {
        let o = barrage(&a);
        assert_eq!(o.status.code(), Some(1), "{a:?}: {}", stderr(&o));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        let p50 = row(&v, "latency_p50_us");
        assert_eq!(p50["verdict"], "regression", "{p50}");
        assert_eq!(
            (
                &p50["test"]["method"],
                &p50["test"]["trials_old"],
                &p50["test"]["trials_new"]
            ),
            (&"welch_log".into(), &3.into(), &3.into())
        );
        assert!(
            v["notes"][0]
                .as_str()
                .unwrap()
                .starts_with("3 runs against 3 runs, as trials"),
            "{v}"
        );
    }
    // Three runs and no `--`: which side is which is not said.
    let o = barrage(&["compare", &files.0[0], &files.0[1], &files.1[0]]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("separated by --"), "{}", stderr(&o));
}

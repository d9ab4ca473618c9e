//! `barrage load --threshold` as a process against `barrage serve`'s `/sleep/{ms}`: thresholds
//! that hold exit 0, a broken one exits 99 (k6's code) with a line naming it, one the run cannot
//! judge with confidence 3 unless `--allow-inconclusive`, the JSON records
//! each with its measured value, and `--abort-on-fail` stops a run whose error count is past its
//! bound; a run with no valid response at all exits 1.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};

struct Serve {
    child: Child,
    addr: String,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve() -> Serve {
    let mut child = Command::new(env!("CARGO_BIN_EXE_barrage"))
        .args(["serve", "--addr", "127.0.0.1:0", "--threads", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("barrage serve starts");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let addr = first.trim().trim_start_matches("listening on ").to_string();
    Serve { child, addr }
}

fn load(args: &[&str]) -> (Output, serde_json::Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_barrage"))
        .arg("load")
        .args(args)
        .args(["--json", "-"])
        .output()
        .expect("barrage load runs");
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_default();
    (out, doc)
}

fn outcomes(doc: &serde_json::Value) -> Vec<(String, bool, f64)> {
    doc["thresholds"]
        .as_array()
        .map(|ts| {
            ts.iter()
                .map(|t| {
                    let e = t["expr"].as_str().unwrap().to_string();
                    (
                        e,
                        t["pass"].as_bool().unwrap(),
                        t["measured"].as_f64().unwrap(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn thresholds_that_hold_exit_0_and_a_broken_one_exits_99() {
    let s = serve();
    let url = format!("http://{}/sleep/5", s.addr);
    let common = ["-c", "4", "-t", "1", "-n", "200", "--expect-status", "200"];
    // Two seconds: the fewest that bound a percentile, so p50's verdict is made with
    // confidence (a run of 200 requests, below, cannot).
    let (out, doc) = load(&[
        &url,
        "-c",
        "4",
        "-t",
        "1",
        "-d",
        "2s",
        "--threshold",
        "p50 < 500ms",
        "--threshold",
        "errors <= 0",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = outcomes(&doc);
    assert_eq!(got.len(), 2);
    // Every request sleeps 5 ms: the median is at least that, and under the bound.
    assert!(
        got[0].1 && got[0].2 >= 5_000.0 && got[0].2 < 500_000.0,
        "{got:?}"
    );
    assert_eq!((got[1].1, got[1].2), (true, 0.0));
    assert_eq!(doc["thresholds"][0]["confident"], true, "{doc}");

    let (out, doc) = load(
        &[
            &common[..],
            &[&url, "--threshold", "p50 < 2ms", "--allow-inconclusive"],
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(99));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("barrage: threshold failed: p50 < 2ms"),
        "{err}"
    );
    // 200 requests take a fraction of a second: too short to bound p50 (under 2 measured
    // seconds), so the summary marks the verdict as one the run cannot make with confidence,
    // and a threshold that failed with confidence, had there been one, would win; this one
    // exits 3 (below) unless allowed, and then follows its measured value: 99.
    assert!(
        err.contains("FAIL? p50 < 2ms (measured"),
        "the summary lists it: {err}"
    );
    let got = outcomes(&doc);
    assert!(!got[0].1 && got[0].2 >= 5_000.0, "{got:?}");
    // The run itself completed: 200 answers, all counted.
    assert_eq!(doc["requests"], 200);
    // Without --allow-inconclusive the gate does not pass or fail what it cannot judge: 3.
    let (out, _) = load(&[&common[..], &[&url, "--threshold", "p50 < 2ms"]].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("barrage: threshold cannot be judged with confidence: p50 < 2ms (run longer, or --allow-inconclusive"),
        "{err}"
    );
}

#[test]
fn a_run_too_short_for_a_percentile_says_it_cannot_judge_it() {
    let s = serve();
    let url = format!("http://{}/sleep/5", s.addr);
    // About 1,500 responses in 4 s: p99.9 is among the 2 slowest, and nothing bounds it above;
    // p50 is bounded on both sides.
    let (out, doc) = load(&[
        &url,
        "-c",
        "2",
        "-t",
        "1",
        "-d",
        "4s",
        "--threshold",
        "p99.9 < 1s",
        "--threshold",
        "p50 < 1s",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    // The measured values hold, but p99.9's cannot be judged: the gate says so with 3.
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("barrage: threshold cannot be judged with confidence: p99.9 < 1s (run"),
        "{err}"
    );
    let n = doc["requests"].as_u64().unwrap();
    assert!((500..3000).contains(&n), "{n} responses");
    let t = &doc["thresholds"];
    assert_eq!(t[0]["confident"], false, "{t}");
    assert!(t[0]["interval"]["hi"].is_null(), "{t}");
    assert_eq!(t[0]["responses"], n);
    assert_eq!(t[1]["confident"], true, "{t}");
    assert!(
        err.contains(&format!(
            "ok?  p99.9 < 1s (measured {}; 95% interval ",
            t[0]["shown"].as_str().unwrap()
        )) && err.contains(&format!(
            "to beyond the slowest response: {n} responses cannot judge it with confidence)"
        )),
        "{err}"
    );
    assert!(err.contains("\n  ok   p50 < 1s (measured "), "{err}");
    // Allowed, the threshold follows its measured value: it holds, exit 0.
    let (out, _) = load(&[
        &url,
        "-c",
        "2",
        "-t",
        "1",
        "-d",
        "2s",
        "--threshold",
        "p99.9 < 1s",
        "--allow-inconclusive",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("ok?  p99.9 < 1s (measured "), "{err}");
}

#[test]
fn abort_on_fail_stops_a_run_that_cannot_pass() {
    let s = serve();
    // Every answer is a 500, an error of class status: the count passes 10 in the first second.
    let url = format!("http://{}/status/500", s.addr);
    let (out, doc) = load(&[
        &url,
        "-c",
        "2",
        "-d",
        "60s",
        "--expect-status",
        "200",
        "--threshold",
        "errors < 10",
        "--abort-on-fail",
    ]);
    assert_eq!(out.status.code(), Some(99));
    assert_eq!(doc["cancelled"], true, "stopped before its 60 s");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("errors < 10 could no longer pass (--abort-on-fail)"),
        "{err}"
    );
}

#[test]
fn a_bad_threshold_is_a_one_line_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_barrage"))
        .args(["load", "http://127.0.0.1:1/", "--threshold", "p99 < fast"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("threshold \"p99 < fast\""), "{err}");
}

#[test]
fn study_thresholds_are_evaluated_per_point_and_contender() {
    let dir = std::env::temp_dir().join(format!("barrage-study-th-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let study = dir.join("study.toml");
    std::fs::write(
        &study,
        r#"
[study]
name = "th"
trials = 2
pin = false
[load]
path = "/sleep/5"
connections = 2
duration = "500ms"
expect_status = 200
[[threshold]]
expr = ["p50 < 1s", "errors <= 0"]
[[threshold]]
expr = "p50 < 1ms"
contender = "serve"
[[contender]]
name = "serve"
start = "{barrage} serve --addr 127.0.0.1:{port} --threads 1"
"#,
    )
    .unwrap();
    let out_dir = dir.join("out");
    let out = Command::new(env!("CARGO_BIN_EXE_barrage"))
        .arg("run")
        .arg(&study)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(99),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("FAIL p50 < 1ms (measured"), "{text}");
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out_dir.join("results.json")).unwrap()).unwrap();
    let got: Vec<(String, bool, f64, String)> = results["thresholds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["expr"].as_str().unwrap().to_string(),
                t["pass"].as_bool().unwrap(),
                t["measured"].as_f64().unwrap(),
                t["contender"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!((got[0].0.as_str(), got[0].1), ("p50 < 1s", true));
    assert!(got[0].2 >= 5_000.0, "every request sleeps 5 ms: {got:?}");
    assert_eq!(
        (got[1].0.as_str(), got[1].1, got[1].2),
        ("errors <= 0", true, 0.0)
    );
    assert_eq!((got[2].0.as_str(), got[2].1), ("p50 < 1ms", false));
    assert!(got.iter().all(|t| t.3 == "serve"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run that completed without one valid response (here every status is unexpected) exits 1
/// with a line saying so; one valid response is enough for 0.
#[test]
fn a_run_without_a_valid_response_exits_1() {
    let s = serve();
    let url = format!("http://{}/", s.addr);
    let common = ["-c", "2", "-t", "1", "-n", "50"];
    let (out, doc) = load(&[&common[..], &[&url, "--expect-status", "201"]].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("barrage: no valid response (50 requests written, 50 errors)"),
        "{err}"
    );
    assert_eq!(doc["errors"]["status"], 50);
    let (out, _) = load(&[&common[..], &[&url, "--expect-status", "200"]].concat());
    assert_eq!(out.status.code(), Some(0));
}

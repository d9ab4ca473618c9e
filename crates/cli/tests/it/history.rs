//! `--history` end to end: two `barrage load` runs at once against `barrage serve` are both
//! recorded, `barrage history` lists them with their URL and figures, `--report` draws their
//! throughput, a study run is recorded with its cells, and a file that is not a history is
//! refused before any load, left as it was.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

const BARRAGE: &str = env!("CARGO_BIN_EXE_barrage");

/// A directory of its own, removed on drop (and cleared first, for a rerun after a kill).
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("barrage-cli-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    fn join(&self, f: &str) -> PathBuf {
        self.0.join(f)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `barrage serve` on a free loopback port, stopped (killed and reaped) on drop.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start() -> Server {
        let mut child = Command::new(BARRAGE)
            .args(["serve", "--addr", "127.0.0.1:0", "--threads", "1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("barrage starts");
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let addr = first
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("first line: {first:?}"))
            .to_string();
        Server { child, addr }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn barrage(args: &[&str]) -> Output {
    Command::new(BARRAGE)
        .args(args)
        .env_remove("BARRAGE_HISTORY")
        .output()
        .expect("barrage runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The `data-series` JSON of the chart titled `title` in a report page.
fn chart_data(html: &str, title: &str) -> serde_json::Value {
    let svg = html
        .split("<svg ")
        .find(|s| s.contains(&format!("aria-label=\"{title}\"")))
        .unwrap_or_else(|| panic!("no chart {title:?}"));
    let attr = svg
        .split("data-series=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("a data-series attribute");
    serde_json::from_str(&attr.replace("&quot;", "\"").replace("&amp;", "&")).unwrap()
}

#[test]
fn two_loads_at_once_are_listed_and_trended() {
    let server = Server::start();
    let dir = TempDir::new("history-load");
    let db = dir.join("runs.db");
    let url = format!("http://{}/", server.addr);
    // Both at once: the second waits for the first's transaction, and neither is lost.
    let loads: Vec<(Child, PathBuf)> = ["a", "b"]
        .iter()
        .map(|n| {
            let json = dir.join(&format!("{n}.json"));
            let child = Command::new(BARRAGE)
                .args(["load", &url, "-n", "200", "-c", "2", "-t", "1", "--json"])
                .arg(&json)
                .arg("--history")
                .arg(&db)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            (child, json)
        })
        .collect();
    let mut rps_written = Vec::new();
    for (child, json) in loads {
        let out = child.wait_with_output().unwrap();
        let err = text(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(err.contains("barrage: recorded as run "), "{err}");
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(doc["requests"], 200);
        rps_written.push(doc["rps"].as_f64().unwrap());
    }

    let out = barrage(&["history", db.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let list = text(&out.stdout);
    let lines: Vec<&str> = list.lines().collect();
    assert_eq!(lines.len(), 3, "a header and two runs:\n{list}");
    assert!(lines[0].starts_with("id  time"), "{list}");
    for (i, line) in lines[1..].iter().enumerate() {
        assert!(
            line.trim_start().starts_with(&format!("{} ", i + 1)),
            "{list}"
        );
        assert!(line.contains(&url) && line.contains(" load "), "{list}");
        assert!(line.contains("req/s, p99 "), "{list}");
    }

    let out = barrage(&["history", db.to_str().unwrap(), "--json", "--metric", "rps"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let runs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 2);
    let mut rps_recorded: Vec<f64> = runs
        .iter()
        .map(|r| {
            assert_eq!(r["url"], url.as_str());
            assert_eq!(r["status"], "complete");
            let m = r["metrics"].as_array().unwrap();
            let rps = m.iter().find(|m| m["key"] == "rps").unwrap();
            rps["value"].as_f64().unwrap()
        })
        .collect();
    let mut sorted = rps_written.clone();
    sorted.sort_by(f64::total_cmp);
    rps_recorded.sort_by(f64::total_cmp);
    assert_eq!(rps_recorded, sorted, "the recorded rps are the documents'");

    let report = dir.join("trend.html");
    let out = barrage(&[
        "history",
        db.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let html = std::fs::read_to_string(&report).unwrap();
    let data = chart_data(&html, "throughput [rps] by run");
    let lines = data["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["name"], url.as_str());
    let points: Vec<(f64, f64)> = lines[0]["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap()))
        .collect();
    let by_id: Vec<(f64, f64)> = runs
        .iter()
        .map(|r| {
            let rps = r["metrics"].as_array().unwrap()[0]["value"]
                .as_f64()
                .unwrap();
            (r["id"].as_f64().unwrap(), rps)
        })
        .collect();
    assert_eq!(points, by_id, "one dot per run, at its id, with its rps");
    // One chart per recorded metric: latency too.
    chart_data(&html, "p99 [latency_p99_us] by run");

    // `--history` without a value: the default database under XDG_DATA_HOME, its directory
    // made; `barrage history` without a DB reads the same one.
    let data = dir.join("data");
    let with_default = |args: &[&str]| {
        Command::new(BARRAGE)
            .args(args)
            .env_remove("BARRAGE_HISTORY")
            .env("XDG_DATA_HOME", &data)
            .output()
            .unwrap()
    };
    let out = with_default(&["load", &url, "-n", "50", "-c", "1", "-t", "1", "--history"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(data.join("barrage").join("history.db").is_file());
    let out = with_default(&["history", "--json"]);
    let runs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(runs.as_array().unwrap().len(), 1, "{runs}");
}

#[test]
fn a_load_runs_interval_is_the_band_around_its_trend() {
    let server = Server::start();
    let dir = TempDir::new("history-band");
    let db = dir.join("runs.db");
    let json = dir.join("run.json");
    let url = format!("http://{}/", server.addr);
    // 3 seconds: more than the fewest with intervals (2), so every figure has one.
    let out = barrage(&[
        "load",
        &url,
        "-d",
        "3s",
        "-c",
        "2",
        "-t",
        "1",
        "--json",
        json.to_str().unwrap(),
        "--history",
        db.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let report = dir.join("trend.html");
    let out = barrage(&[
        "history",
        db.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let html = std::fs::read_to_string(&report).unwrap();
    for (title, key, scale) in [
        ("throughput [rps] by run", "rps", 1.0),
        ("p50 [latency_p50_us] by run", "latency_p50_us", 1e-3),
    ] {
        let data = chart_data(&html, title);
        let band = &data["lines"][0]["band"][0];
        let want = &doc["intervals"]["figures"][key];
        let close = |a: &serde_json::Value, b: &serde_json::Value| {
            (a.as_f64().unwrap() - b.as_f64().unwrap() * scale).abs() < 1e-9
        };
        assert_eq!(band[0], 1.0, "{title}: run 1");
        assert!(
            close(&band[1], &want["lo"]) && close(&band[2], &want["hi"]),
            "{title}: {band} vs {want}"
        );
    }
}

#[test]
fn a_file_that_is_not_a_history_is_refused_before_the_load() {
    let dir = TempDir::new("history-foreign");
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, "my notes\n").unwrap();
    // Nothing listens on port 1: had barrage loaded first, the error would be a refused
    // connection.
    let out = barrage(&[
        "load",
        "http://127.0.0.1:1/",
        "-n",
        "10",
        "--history",
        notes.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(notes.to_str().unwrap()), "{err}");
    assert!(err.contains("not an SQLite database"), "{err}");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "my notes\n");

    let missing = dir.join("none.db");
    let out = barrage(&["history", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("none.db"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        !Path::new(&missing).exists(),
        "listing created the database"
    );
}

#[test]
fn a_study_is_recorded_with_its_cells() {
    let dir = TempDir::new("history-study");
    let study = dir.join("study.toml");
    std::fs::write(
        &study,
        r#"
[study]
name = "tiny"
trials = 1
warmup = "0s"
cooldown = "0s"
pin = false

[load]
path = "/"
connections = 2
duration = "300ms"

[[contender]]
name = "barrage-serve"
start = "{barrage} serve --addr 127.0.0.1:{port} --threads 1"
ready = { kind = "http", path = "/", status = 200, timeout = "10s" }
"#,
    )
    .unwrap();
    let db = dir.join("h.db");
    let out = barrage(&[
        "run",
        study.to_str().unwrap(),
        "-q",
        "-o",
        dir.join("out").to_str().unwrap(),
        "--history",
        db.to_str().unwrap(),
    ]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}\n{}", text(&out.stdout));
    assert!(err.contains("barrage: recorded as run 1 in "), "{err}");

    let out = barrage(&["history", db.to_str().unwrap(), "--study", "tiny", "--json"]);
    let runs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(
        (&runs[0]["kind"], &runs[0]["name"]),
        (&"study".into(), &"tiny".into())
    );
    let rps = runs[0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["key"] == "rps")
        .expect("the cell's throughput");
    assert_eq!(rps["contender"], "barrage-serve");
    assert!(rps["value"].as_f64().unwrap() > 0.0, "{rps}");
    // The stored document is the results.json written beside the report, read back as
    // `compare history:latest` reads it.
    let stored = barrage_history::History::open_read_only(&db)
        .unwrap()
        .document(barrage_history::Which::parse("latest").unwrap())
        .unwrap();
    assert_eq!(stored.kind, barrage_history::DocKind::Study);
    assert_eq!(
        stored.document,
        std::fs::read_to_string(dir.join("out").join("results.json")).unwrap()
    );
    let out = barrage(&["history", db.to_str().unwrap(), "--url", "nowhere"]);
    assert!(out.stdout.is_empty());
    assert!(
        text(&out.stderr).contains("no runs"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_load_stopped_by_ctrl_c_is_recorded_as_cancelled() {
    let server = Server::start();
    let dir = TempDir::new("history-cancel");
    let db = dir.join("h.db");
    let url = format!("http://{}/", server.addr);
    // Open loop at a low rate: a long run that costs little CPU until it is stopped.
    let child = Command::new(BARRAGE)
        .args([
            "load", &url, "-d", "60s", "--rate", "100", "-c", "1", "-t", "1",
        ])
        .arg("--history")
        .arg(&db)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The database is made just before barrage takes over Ctrl-C; then let it measure a bit.
    let start = std::time::Instant::now();
    while !db.exists() && start.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(700));
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert!(out.status.success(), "{:?} {err}", out.status);
    assert!(err.contains("recorded as run 1"), "{err}");
    assert!(start.elapsed() < std::time::Duration::from_secs(30));

    let out = barrage(&["history", db.to_str().unwrap(), "--json"]);
    let runs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(runs[0]["status"], "cancelled");
    let requests = runs[0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["key"] == "requests")
        .unwrap()["value"]
        .as_f64()
        .unwrap();
    assert!(requests > 0.0, "what was measured is kept: {requests}");
}

//! The HTML report of real results rendered in headless Chromium (Debian's `chromium`): no
//! console errors, no resource fetched (the file is self-contained), every plot present and
//! non-empty, the failed-trial and single-trial cases say so; a screenshot of each case is saved
//! under the workspace's `target/` (`target/report-screenshot.png` for the server study) as a CI
//! artifact.
//!
//! Chromium is `chromium` (or `chromium-browser`, `google-chrome`) on the PATH, or the binary
//! `BARRAGE_CHROMIUM` names. Without it the test fails when `CI` is set, and is skipped with a
//! message otherwise.

mod common;

use barrage_report::Format;
use common::{report, CASES};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("BARRAGE_CHROMIUM") {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|n| std::env::split_paths(&path).map(move |d| d.join(n)))
        .find(|p| p.is_file())
}

fn target_dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target");
    std::fs::create_dir_all(&d).unwrap();
    d.canonicalize().unwrap()
}

/// Runs Chromium headless on `page` with `extra` arguments; returns (stdout, stderr). On a loaded
/// machine headless Chromium now and then exits having produced nothing (no DOM dump, no
/// screenshot); such an attempt is retried, up to three in all, so the checks judge the page and
/// not the browser's start-up.
fn run(chrome: &Path, page: &Path, extra: &[String], profile: &Path) -> (String, String) {
    let wants_dom = extra.iter().any(|a| a == "--dump-dom");
    let shot = extra
        .iter()
        .find_map(|a| a.strip_prefix("--screenshot="))
        .map(PathBuf::from);
    let mut last = (String::new(), String::new());
    for _ in 0..3 {
        // A screenshot left by an earlier run must not pass for this one's.
        if let Some(shot) = &shot {
            let _ = std::fs::remove_file(shot);
        }
        last = run_once(chrome, page, extra, profile);
        let produced = if wants_dom {
            !last.0.trim().is_empty()
        } else if let Some(shot) = &shot {
            std::fs::metadata(shot).is_ok_and(|m| m.len() > 0)
        } else {
            true
        };
        if produced {
            break;
        }
    }
    last
}

/// One Chromium run; killed after 90 s so a hung browser cannot hang the test suite.
fn run_once(chrome: &Path, page: &Path, extra: &[String], profile: &Path) -> (String, String) {
    let out_dir = profile.join("io");
    std::fs::create_dir_all(&out_dir).unwrap();
    let (so, se) = (out_dir.join("stdout"), out_dir.join("stderr"));
    let mut child = Command::new(chrome)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            // Any attempt to reach a host fails fast (the report must not try).
            "--host-resolver-rules=MAP * ~NOTFOUND",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&so).unwrap())
        .stderr(std::fs::File::create(&se).unwrap())
        .spawn()
        .expect("chromium starts");
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 90 s on {}", page.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (
        std::fs::read_to_string(so).unwrap_or_default(),
        std::fs::read_to_string(se).unwrap_or_default(),
    )
}

/// Injected into a copy of the report (the report itself has no script): records page errors,
/// then measures every plot and writes the findings into the DOM for `--dump-dom`.
const PROBE_HEAD: &str = r#"<script>window.__errs=[];window.addEventListener('error',function(e){window.__errs.push(String(e.message||('failed to load '+((e.target&&(e.target.src||e.target.href))||e.type))))},true);</script>"#;
const PROBE_TAIL: &str = r#"<script>(function(){
var plots=[].slice.call(document.querySelectorAll('svg.plot')).map(function(s){
 var d=s.querySelector('g.data'); var b=d?d.getBBox():{width:0,height:0}; var r=s.getBoundingClientRect();
 return {title:(s.querySelector('title')||{}).textContent||'', kind:s.getAttribute('data-kind'),
  marks:d?d.querySelectorAll('path.line,path.band,rect.bar,circle,path.errbar,g.failed').length:0,
  failed:s.querySelectorAll('g.failed').length, w:b.width, h:b.height, sw:r.width, sh:r.height};});
var out={errors:window.__errs, plots:plots, resources:performance.getEntriesByType('resource').length,
 notes:[].slice.call(document.querySelectorAll('p.note')).map(function(p){return p.textContent})};
var pre=document.createElement('pre'); pre.id='barrage-check'; pre.textContent=JSON.stringify(out); document.body.appendChild(pre);
})();</script>"#;

fn probe(chrome: &Path, html: &str, dir: &Path, name: &str) -> serde_json::Value {
    let probed = html
        .replacen("<head>", &format!("<head>{PROBE_HEAD}"), 1)
        .replacen("</body>", &format!("{PROBE_TAIL}</body>"), 1);
    let page = dir.join(format!("{name}-probe.html"));
    std::fs::write(&page, probed).unwrap();
    let (dom, log) = run(
        chrome,
        &page,
        &["--dump-dom".into(), "--window-size=1400,1000".into()],
        &dir.join(format!("profile-{name}-probe")),
    );
    let start = dom
        .find("<pre id=\"barrage-check\">")
        .unwrap_or_else(|| panic!("{name}: no probe output; chromium said:\n{log}"))
        + 24;
    let end = start + dom[start..].find("</pre>").unwrap();
    let json = dom[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    let v: serde_json::Value =
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("{name}: {e}: {json}"));
    assert!(!log.contains("CONSOLE"), "{name}: console messages:\n{log}");
    v
}

#[test]
fn html_reports_render_in_chromium() {
    let Some(chrome) = chromium() else {
        if std::env::var_os("CI").is_some() {
            panic!("chromium is not installed (Debian package `chromium`); CI must install it");
        }
        eprintln!("SKIPPED: chromium not found (install the Debian package `chromium`); CI=true makes this a failure");
        return;
    };
    let target = target_dir();
    let dir = target.join("report-chromium");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();

    for (name, files) in CASES {
        let html = report(files, Format::Html);
        // The report itself: offline-safe by construction, checked here too.
        assert!(
            !html.contains("<script"),
            "{name}: the report carries no script"
        );
        for bad in ["src=\"http", "href=\"http", "@import", "url(http"] {
            assert!(!html.contains(bad), "{name}: external reference {bad}");
        }
        let page = target.join(format!("report-{name}.html"));
        std::fs::write(&page, &html).unwrap();

        let v = probe(&chrome, &html, &dir, name);
        assert_eq!(
            v["errors"].as_array().unwrap().len(),
            0,
            "{name}: page errors {}",
            v["errors"]
        );
        assert_eq!(v["resources"], 0, "{name}: the page fetched resources");
        let plots = v["plots"].as_array().unwrap();
        assert!(!plots.is_empty(), "{name}: no plot");
        for p in plots {
            let t = p["title"].as_str().unwrap();
            assert!(
                p["marks"].as_u64().unwrap() > 0,
                "{name}: plot {t:?} has no data marks: {p}"
            );
            assert!(
                p["w"].as_f64().unwrap() > 0.0 && p["h"].as_f64().unwrap() >= 0.0,
                "{name}: plot {t:?} draws nothing: {p}"
            );
            assert!(
                p["sw"].as_f64().unwrap() > 100.0 && p["sh"].as_f64().unwrap() > 100.0,
                "{name}: plot {t:?} not laid out: {p}"
            );
        }
        let titles: Vec<&str> = plots.iter().map(|p| p["title"].as_str().unwrap()).collect();
        let has = |prefix: &str| titles.iter().any(|t| t.starts_with(prefix));
        let notes = v["notes"].to_string();
        match *name {
            "server-study" | "compare" => {
                for want in [
                    "Throughput vs connections",
                    "p50 latency vs connections",
                    "p99 latency vs connections",
                    "p99.9 latency vs connections",
                    "Latency distribution at c=8",
                    "CPU — barrage-serve at c=1",
                    "RSS — python-http at c=8",
                    "Throughput per second — barrage-serve at c=8",
                ] {
                    assert!(has(want), "{name}: missing plot {want:?} in {titles:?}");
                }
                if *name == "compare" {
                    assert!(
                        has("Throughput vs connections: baseline vs change"),
                        "{titles:?}"
                    );
                }
            }
            "client-failed" => {
                assert!(
                    has("Wall, user and sys time") && has("Peak RSS of the process tree"),
                    "{titles:?}"
                );
                assert!(
                    has("CPU — flaky at n=1000") && has("RSS — curl at n=1000000"),
                    "{titles:?}"
                );
                let failed: u64 = plots.iter().map(|p| p["failed"].as_u64().unwrap()).sum();
                assert!(
                    failed >= 2,
                    "{name}: failed trials are not marked in the bar charts"
                );
                assert!(notes.contains("3 of 18 trials failed"), "{notes}");
                assert!(
                    html.contains("killed by SIGSEGV"),
                    "{name}: the failure reason is shown"
                );
            }
            "single-trial" => {
                assert!(
                    has("Throughput") && has("p99 latency") && has("Latency distribution"),
                    "{titles:?}"
                );
                assert!(
                    notes.contains("Single trial per point: no confidence interval"),
                    "{notes}"
                );
            }
            "variants" => {
                assert!(
                    has("Throughput vs connections") && has("Latency distribution at c=4"),
                    "{titles:?}"
                );
                assert!(
                    html.contains("barrage-serve · pipelined")
                        && html.contains("<td>variants</td><td>throughput</td>"),
                    "{name}: variants are lines and are compared"
                );
            }
            "load" => {
                assert!(
                    has("Latency distribution (HDR percentiles)")
                        && has("Throughput per second")
                        && has("Latency per second"),
                    "{titles:?}"
                );
            }
            _ => {}
        }

        // The unmodified report, as a user opens it: a screenshot, and no console output.
        let shot = if *name == "server-study" {
            target.join("report-screenshot.png")
        } else {
            target.join(format!("report-screenshot-{name}.png"))
        };
        let _ = std::fs::remove_file(&shot);
        let (_, log) = run(
            &chrome,
            &page,
            &[
                format!("--screenshot={}", shot.display()),
                "--window-size=1400,2400".into(),
            ],
            &dir.join(format!("profile-{name}")),
        );
        assert!(
            !log.contains("CONSOLE") && !log.contains("Failed to load resource"),
            "{name}: chromium logged:\n{log}"
        );
        let size = std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0);
        assert!(
            size > 10_000,
            "{name}: screenshot {} missing or blank ({size} bytes); chromium said:\n{log}",
            shot.display()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Measures the layout a reader sees at 1400x900: where the ranked answer table and the main
/// chart start, how much of the first screen notes take, and how tall the page is.
const LAYOUT_PROBE: &str = r#"<script>(function(){
function top(sel){var e=document.querySelector(sel); return e? e.getBoundingClientRect().top+window.scrollY : -1;}
var notes=0; [].slice.call(document.querySelectorAll('.note')).forEach(function(n){
 var r=n.getBoundingClientRect(); var a=Math.max(0,r.top+window.scrollY), b=Math.min(900,r.bottom+window.scrollY);
 if(b>a) notes+=b-a;});
var out={ranked:top('table.ranked'), chart:top('figure.main'), notes:notes,
 height:document.documentElement.scrollHeight, verdicts:(document.querySelector('ul.verdicts')||{children:[]}).children.length};
var pre=document.createElement('pre'); pre.id='barrage-layout'; pre.textContent=JSON.stringify(out); document.body.appendChild(pre);
})();</script>"#;

/// The committed runs: every directory under `studies/` that holds a committed report, with the
/// results files it is made of (its own, or its subdirectories' for a group of runs).
fn committed() -> Vec<(String, Vec<PathBuf>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../studies");
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        let mut subdirs: Vec<PathBuf> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        subdirs.sort();
        if dir.join("report.html").is_file() {
            // A report made of several runs lists them (e.g. the 1-CPU run beside every CPU).
            let listed: Vec<PathBuf> = std::fs::read_to_string(dir.join("report-inputs.txt"))
                .unwrap_or_default()
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(|l| dir.join(l).join("results.json"))
                .collect();
            let files: Vec<PathBuf> = if !listed.is_empty() {
                listed
            } else if dir.join("results.json").is_file() {
                vec![dir.join("results.json")]
            } else {
                subdirs
                    .iter()
                    .map(|d| d.join("results.json"))
                    .filter(|f| f.is_file())
                    .collect()
            };
            let name = dir.strip_prefix(&root).unwrap().display().to_string();
            out.push((name, files));
        }
        stack.extend(subdirs);
    }
    out.sort();
    out
}

#[test]
fn committed_reports_answer_on_the_first_screen() {
    let Some(chrome) = chromium() else {
        if std::env::var_os("CI").is_some() {
            panic!("chromium is not installed (Debian package `chromium`); CI must install it");
        }
        eprintln!("SKIPPED: chromium not found");
        return;
    };
    let target = target_dir();
    let dir = target.join("report-layout");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let runs = committed();
    assert!(runs.len() >= 6, "committed runs: {runs:?}");
    for (name, files) in runs {
        let inputs: Vec<(String, barrage_report::Input)> = files
            .iter()
            .map(|f| {
                let text = std::fs::read_to_string(f).unwrap();
                (
                    f.display().to_string(),
                    barrage_report::parse(&text).unwrap(),
                )
            })
            .collect();
        let page = barrage_report::build(&inputs).expect("report builds");
        let html = barrage_report::render(&page, Format::Html, "barrage test");
        let slug = name.replace('/', "-");
        let probed = html.replacen("</body>", &format!("{LAYOUT_PROBE}</body>"), 1);
        let path = dir.join(format!("{slug}.html"));
        std::fs::write(&path, probed).unwrap();
        let (dom, log) = run(
            &chrome,
            &path,
            &["--dump-dom".into(), "--window-size=1400,900".into()],
            &dir.join(format!("profile-{slug}")),
        );
        let start = dom
            .find("<pre id=\"barrage-layout\">")
            .unwrap_or_else(|| panic!("{name}: no probe output; chromium said:\n{log}"))
            + 25;
        let end = start + dom[start..].find("</pre>").unwrap();
        let v: serde_json::Value = serde_json::from_str(&dom[start..end]).unwrap();
        let f = |k: &str| v[k].as_f64().unwrap();
        eprintln!("{name}: {v}");
        assert!(
            (0.0..600.0).contains(&f("ranked")),
            "{name}: the ranked table starts at {} px",
            f("ranked")
        );
        assert!(
            (0.0..1800.0).contains(&f("chart")),
            "{name}: the main chart starts at {} px",
            f("chart")
        );
        assert!(
            f("notes") <= 300.0,
            "{name}: notes take {} px of the first 900",
            f("notes")
        );
        assert!(
            f("height") <= 15.0 * 900.0,
            "{name}: the page is {} px tall ({:.1} screens)",
            f("height"),
            f("height") / 900.0
        );
        let verdicts = v["verdicts"].as_u64().unwrap();
        assert!(
            (1..=5).contains(&verdicts),
            "{name}: {verdicts} verdict lines"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

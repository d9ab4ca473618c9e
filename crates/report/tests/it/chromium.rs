//! The HTML report of real results rendered in headless Chromium (Debian's `chromium`): no
//! console errors, no resource fetched (the file is self-contained), every plot present and
//! non-empty, the failed-trial and single-trial cases say so; a screenshot of each case is saved
//! under the workspace's `target/` (`target/report-screenshot.png` for the server study) as a CI
//! artifact.
//!
//! Chromium is `chromium` (or `chromium-browser`, `google-chrome`) on the PATH, or the binary
//! `BARRAGE_CHROMIUM` names. Without it the test fails when `CI` is set, and is skipped with a
//! message otherwise.

use crate::common;

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

/// Injected into a copy of the report (after the report's own script, which has run by then):
/// records page errors, measures every plot, drives the hover and zoom of the timeline
/// [`HOVERED`] with synthetic mouse events, and writes the findings into the DOM for
/// `--dump-dom`.
const PROBE_HEAD: &str = r#"<script>window.__errs=[];window.addEventListener('error',function(e){window.__errs.push(String(e.message||('failed to load '+((e.target&&(e.target.src||e.target.href))||e.type))))},true);</script>"#;
const PROBE_TAIL: &str = r#"<script>(function(){
var plots=[].slice.call(document.querySelectorAll('svg.plot')).map(function(s){
 var d=s.querySelector('g.data'); var b=d?d.getBBox():{width:0,height:0}; var r=s.getBoundingClientRect();
 return {title:(s.querySelector('title')||{}).textContent||'', kind:s.getAttribute('data-kind'),
  marks:d?d.querySelectorAll('path.line,path.band,rect.bar,circle,path.errbar,g.failed').length:0,
  failed:s.querySelectorAll('g.failed').length, w:b.width, h:b.height, sw:r.width, sh:r.height};});
var hover=null, svg=[].slice.call(document.querySelectorAll('svg.plot')).filter(function(s){return s.querySelector('title').textContent==='RSS \u2014 barrage-serve at c=1'})[0];
if(svg){
 var at=function(X,Y,el){var p=svg.createSVGPoint();p.x=X;p.y=Y;return p.matrixTransform((el||svg).getScreenCTM())};
 // Chromium rounds a synthetic event's client coordinates: the probe aims at whole pixels
 // and reports where the chart's own coordinates put those.
 var snap=function(X,Y){var c=at(X,Y);c={x:Math.round(c.x),y:Math.round(c.y)};var p=svg.createSVGPoint();p.x=c.x;p.y=c.y;return {c:c,x:p.matrixTransform(svg.getScreenCTM().inverse()).x}};
 var fire=function(type,c){svg.dispatchEvent(new MouseEvent(type,{clientX:c.x,clientY:c.y,bubbles:true,button:0}))};
 var tip=function(){var t=document.querySelector('div.tip');return t&&!t.hidden?t.textContent:null};
 var ticks=function(){return [].slice.call(svg.querySelectorAll('text.tick.x')).filter(function(t){return t.getClientRects().length>0}).map(function(t){return [t.textContent,+t.getAttribute('x')]})};
 var fr=svg.querySelector('rect.frame'), L=+fr.getAttribute('x'), W=+fr.getAttribute('width');
 var path=svg.querySelector('g.data path.line'), v=path.getAttribute('d').split(/[ML]/).filter(Boolean).map(function(s){return s.split(',').map(Number)});
 var k=Math.floor(v.length/2), X=v[k][0], Y=v[k][1];
 fire('mousemove',at(X,Y)); var tip1=tip(), hair=+svg.querySelector('line.xhair').getAttribute('x1'), ticks0=ticks();
 var sa=snap(Math.max(L+2,X-60),Y), sb=snap(Math.min(L+W-2,X+60),Y), a=sa.x, b=sb.x;
 fire('mousedown',sa.c); fire('mousemove',sb.c); fire('mouseup',sb.c);
 var ticks1=ticks(), p=svg.createSVGPoint(); p.x=X; p.y=Y; var z=p.matrixTransform(path.getCTM());
 fire('mousemove',at(z.x,z.y)); var tip2=tip();
 svg.dispatchEvent(new MouseEvent('dblclick',{bubbles:true}));
 hover={k:k,x:X,plot:[L,W],tip:tip1,hair:hair,ticks:ticks0,drag:[a,b],zoomed_ticks:ticks1,zoomed_x:z.x,zoomed_tip:tip2,reset_ticks:ticks()};
}
var copy=[].slice.call(document.querySelectorAll('button.copy-md')).map(function(b){var t=b.closest('.answer').nextElementSibling;return {text:b.textContent,md:t&&t.content.textContent}});
var out={errors:window.__errs, plots:plots, hover:hover, resources:performance.getEntriesByType('resource').length, copy:copy,
 dark:matchMedia('(prefers-color-scheme: dark)').matches, bg:getComputedStyle(document.body).backgroundColor,
 notes:[].slice.call(document.querySelectorAll('p.note')).map(function(p){return p.textContent})};
var pre=document.createElement('pre'); pre.id='barrage-check'; pre.textContent=JSON.stringify(out); document.body.appendChild(pre);
})();</script>"#;

fn probe(chrome: &Path, html: &str, dir: &Path, name: &str) -> serde_json::Value {
    probe_with(chrome, html, dir, name, &[])
}

/// [`probe`] with more Chromium arguments.
fn probe_with(
    chrome: &Path,
    html: &str,
    dir: &Path,
    name: &str,
    extra: &[&str],
) -> serde_json::Value {
    let probed = html
        .replacen("<head>", &format!("<head>{PROBE_HEAD}"), 1)
        .replacen("</body>", &format!("{PROBE_TAIL}</body>"), 1);
    let page = dir.join(format!("{name}-probe.html"));
    std::fs::write(&page, probed).unwrap();
    let (dom, log) = run(
        chrome,
        &page,
        &["--dump-dom", "--window-size=1400,1000"]
            .iter()
            .chain(extra)
            .map(|a| a.to_string())
            .collect::<Vec<_>>(),
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
        // The report itself: offline-safe by construction, checked here too. Its one script is
        // inline (no attributes, so no `src`).
        assert_eq!(html.matches("<script").count(), 1, "{name}: one script");
        assert_eq!(
            html.matches("<script>").count(),
            1,
            "{name}: an inline script"
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
        if *name == "server-study" {
            hover_and_zoom(&v["hover"]);
            copy_and_dark(&chrome, &html, &dir, &v, files);
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

/// Measures the layout a reader sees at 1400x900: where the questions table (its rows' ids and
/// verdicts), the ranked answer table and the main chart start, how much of the first screen
/// notes take, and how tall the page is.
const LAYOUT_PROBE: &str = r#"<script>(function(){
function top(sel){var e=document.querySelector(sel); return e? e.getBoundingClientRect().top+window.scrollY : -1;}
var notes=0; [].slice.call(document.querySelectorAll('.note')).forEach(function(n){
 var r=n.getBoundingClientRect(); var a=Math.max(0,r.top+window.scrollY), b=Math.min(900,r.bottom+window.scrollY);
 if(b>a) notes+=b-a;});
var q=document.querySelector('table.questions');
var qrows=q? [].slice.call(q.querySelectorAll('tr')).slice(1).map(function(tr){return [tr.cells[0].textContent, tr.className, tr.cells[tr.cells.length-1].textContent]}) : [];
var out={ranked:top('table.ranked'), chart:top('figure.main'), notes:notes, questions:top('table.questions'), qrows:qrows,
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
        // A study with questions shows them first, each row with the model's verdict; the
        // ranked (exploratory) table and chart come after them.
        let studies: Vec<&barrage_model::study::Results> =
            inputs.iter().filter_map(|(_, i)| i.study()).collect();
        let with_questions = studies.iter().any(|r| !r.study.questions.is_empty());
        if with_questions {
            assert!(
                (0.0..300.0).contains(&f("questions")),
                "{name}: the questions table starts at {} px",
                f("questions")
            );
            assert!(
                f("questions") < f("ranked"),
                "{name}: questions after the ranking"
            );
            let want: Vec<serde_json::Value> = studies
                .iter()
                .flat_map(|r| barrage_report::questions::rows(r))
                .map(|row| {
                    let cells = row.cells();
                    serde_json::json!([row.id, row.verdict.as_str(), cells[8]])
                })
                .collect();
            assert_eq!(v["qrows"], serde_json::Value::Array(want), "{name}");
        } else {
            assert_eq!(f("questions"), -1.0, "{name}");
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
        }
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

/// The timeline the probe hovers and zooms: trial 1's RSS of barrage-serve at c=1, in
/// `server-study.json`.
const HOVERED: &str = "RSS — barrage-serve at c=1";

/// Sample `k` of trial 1 of barrage-serve at c=1 as the fixture has it: (seconds since the trial
/// started, RSS in MiB), the values the RSS timeline's first line draws at its vertex `k`.
fn fixture_rss(k: usize) -> (f64, f64) {
    let text = std::fs::read_to_string(common::fixtures().join("server-study.json")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let point = doc["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["label"] == "c=1")
        .unwrap()["id"]
        .clone();
    let trial = doc["trials"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["contender"] == "barrage-serve" && t["trial"] == 0 && t["point"] == point)
        .unwrap();
    let s = &trial["samples"]["samples"][k];
    (
        s["t_s"].as_f64().unwrap() - trial["windows"]["trial_start_s"].as_f64().unwrap(),
        s["rss_bytes"].as_f64().unwrap() / (1024.0 * 1024.0),
    )
}

/// Reads "trial 1: 5.5625 MiB" (or "trial 1: 5.5625 MiB (at 0.61 s)") out of a tooltip whose
/// first line is the hovered x ("0.61 s"): trial 1's (x, y).
fn read_tip(tip: &str) -> (f64, f64) {
    let mut lines = tip.lines();
    let head = lines.next().unwrap();
    let x: f64 = head.strip_suffix(" s").expect(tip).parse().expect(tip);
    let line = lines.find_map(|l| l.strip_prefix("trial 1: ")).expect(tip);
    let (y, rest) = line.split_once(" MiB").expect(tip);
    let x = match rest.strip_prefix(" (at ") {
        Some(r) => r.strip_suffix(" s)").expect(tip).parse().expect(tip),
        None => x,
    };
    (x, y.parse().expect(tip))
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1e-9)
}

/// Tick labels and positions as the probe saw them: (value, x in SVG units).
fn ticks(v: &serde_json::Value) -> Vec<(f64, f64)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let l = t[0].as_str().unwrap();
            (
                l.parse().unwrap_or_else(|_| panic!("tick {l}")),
                t[1].as_f64().unwrap(),
            )
        })
        .collect()
}

/// The probe's hover and zoom of [`HOVERED`]: the read-out at vertex `k` of trial 1's line is the
/// fixture's sample `k` (x and y, 6 significant digits), before and after zooming; the drag
/// zooms into the dragged range (tick labels placed where that range puts them); a double-click
/// brings the original ticks back.
fn hover_and_zoom(h: &serde_json::Value) {
    assert!(h.is_object(), "the probe found no {HOVERED:?}");
    let k = h["k"].as_u64().unwrap() as usize;
    let (fx, fy) = fixture_rss(k);
    for key in ["tip", "zoomed_tip"] {
        let tip = h[key]
            .as_str()
            .unwrap_or_else(|| panic!("no tooltip ({key}): {h}"));
        let (x, y) = read_tip(tip);
        assert!(
            close(x, fx, 1e-5),
            "{key}: x {x} is not the fixture's {fx}: {tip:?}"
        );
        assert!(
            close(y, fy, 1e-5),
            "{key}: y {y} is not the fixture's {fy}: {tip:?}"
        );
    }
    let vx = h["x"].as_f64().unwrap();
    assert!(
        (h["hair"].as_f64().unwrap() - vx).abs() < 0.06,
        "crosshair: {h}"
    );

    // The drawn ticks give the pixel -> seconds map, independently of the script.
    let t0 = ticks(&h["ticks"]);
    assert!(t0.len() >= 3, "{h}");
    let ((v0, p0), (v1, p1)) = (t0[0], t0[t0.len() - 1]);
    let secs = |px: f64| v0 + (px - p0) * (v1 - v0) / (p1 - p0);
    let px_per_s = (p1 - p0) / (v1 - v0);
    assert!(
        (secs(vx) - fx).abs() * px_per_s < 0.06,
        "vertex {k} drawn at {vx}: {h}"
    );

    let (l, w) = (
        h["plot"][0].as_f64().unwrap(),
        h["plot"][1].as_f64().unwrap(),
    );
    let (a, b) = (
        h["drag"][0].as_f64().unwrap(),
        h["drag"][1].as_f64().unwrap(),
    );
    let (lo, hi) = (secs(a), secs(b));
    let zoomed = ticks(&h["zoomed_ticks"]);
    assert!(zoomed.len() >= 3, "zoomed ticks: {h}");
    assert_ne!(h["zoomed_ticks"], h["ticks"], "the drag changed nothing");
    let step = zoomed[1].0 - zoomed[0].0;
    let mant = step / 10f64.powf(step.log10().floor());
    assert!(
        [1.0, 2.0, 2.5, 5.0, 10.0]
            .iter()
            .any(|m| close(mant, *m, 1e-6)),
        "step {step}: {h}"
    );
    for (i, &(v, px)) in zoomed.iter().enumerate() {
        assert!(
            v >= lo - 1e-9 && v <= hi + 1e-9,
            "tick {v} outside [{lo}, {hi}]: {h}"
        );
        // Where the zoomed range puts v, to half a pixel (labels are rounded to 6 digits).
        let want = l + (v - lo) / (hi - lo) * w;
        assert!((px - want).abs() < 0.5, "tick {v} at {px}, not {want}: {h}");
        if i > 0 {
            assert!(close(v - zoomed[i - 1].0, step, 1e-4), "uneven ticks: {h}");
        }
    }
    // The line stretched with the axis: vertex k is where the zoomed range puts its x.
    let want = l + (vx - a) / (b - a) * w;
    let zx = h["zoomed_x"].as_f64().unwrap();
    assert!(
        (zx - want).abs() < 0.5,
        "zoomed vertex at {zx}, not {want}: {h}"
    );
    assert_eq!(h["reset_ticks"], h["ticks"], "double-click resets: {h}");
}

/// "Copy as Markdown": one button per answer table, each copying the table as the Markdown
/// report writes it; and the dark theme when the system asks for it (Chromium told so), light
/// otherwise.
fn copy_and_dark(chrome: &Path, html: &str, dir: &Path, v: &serde_json::Value, files: &[&str]) {
    let copies = v["copy"].as_array().unwrap();
    assert!(!copies.is_empty(), "no Copy as Markdown button: {v}");
    let markdown = report(files, Format::Markdown);
    for c in copies {
        assert_eq!(c["text"], "Copy as Markdown");
        let md = c["md"].as_str().unwrap();
        assert!(md.starts_with("| # | contender |"), "{md}");
        assert!(
            markdown.contains(md),
            "not the Markdown report's table:\n{md}"
        );
    }
    assert_eq!(v["dark"], false);
    assert_eq!(v["bg"], "rgba(0, 0, 0, 0)");
    let d = probe_with(
        chrome,
        html,
        dir,
        "server-study-dark",
        &["--blink-settings=preferredColorScheme=0"],
    );
    assert_eq!(d["dark"], true, "Chromium was not told of a dark system");
    assert_eq!(d["bg"], "rgb(22, 24, 28)");
}

//! End-to-end studies (own `main`, no libtest harness): this binary is also the contender
//! `{barrage} serve --addr 127.0.0.1:{port}`, answering with barrage's server library, so the lab
//! drives real processes: two server contenders (Python's http.server and barrage's server), a
//! client study validating downloads, resume of an interrupted study, a skipped contender, and
//! the results file against docs/schema/study.schema.json.

use barrage_lab::results::Results;
use barrage_lab::runner::{self, NoProgress, RunOptions};
use barrage_lab::study;
use std::path::{Path, PathBuf};
use std::time::Duration;

mod common;
use common::{validate_schema, Test};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("serve") => {
            return common::serve(&args[2..], |addr, _| barrage_server::ServerConfig {
                addr,
                threads: 1,
                ..Default::default()
            })
        }
        Some("study") => std::process::exit(study_main(Path::new(&args[2]), Path::new(&args[3]))),
        _ => {}
    }
    common::run_tests(
        &args,
        &[
            Test {
                name: "run_two_server_contenders_end_to_end",
                run: run_two_server_contenders_end_to_end,
                needs_net: false,
            },
            Test {
                name: "run_client_study_validates_downloads",
                run: run_client_study_validates_downloads,
                needs_net: false,
            },
            Test {
                name: "run_cpus_axis_gives_each_point_its_cpus",
                run: run_cpus_axis_gives_each_point_its_cpus,
                needs_net: false,
            },
            Test {
                name: "run_resume_finishes_an_interrupted_study",
                run: run_resume_finishes_an_interrupted_study,
                needs_net: false,
            },
            Test {
                name: "run_missing_requires_is_skipped_with_reason",
                run: run_missing_requires_is_skipped_with_reason,
                needs_net: false,
            },
            Test {
                name: "run_failures_are_recorded_and_the_study_goes_on",
                run: run_failures_are_recorded_and_the_study_goes_on,
                needs_net: false,
            },
            Test {
                name: "run_ctrl_c_keeps_trials_leaves_no_process_and_resumes",
                run: run_ctrl_c_keeps_trials_leaves_no_process_and_resumes,
                needs_net: false,
            },
        ],
    );
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("barrage-lab-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn opts(out: &Path) -> RunOptions {
    RunOptions {
        out_dir: out.to_path_buf(),
        barrage_exe: std::env::current_exe().unwrap(),
        study_file: "test.toml".into(),
    }
}

fn run_src(src: &str, out: &Path) -> Results {
    let s = study::parse(src, "test.toml", Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
    runner::run(&s, &opts(out), &NoProgress).unwrap()
}

fn no_processes_left(r: &Results) {
    for t in &r.trials {
        if let Some(e) = &t.exit {
            assert!(e.termination.is_some(), "trial {} not reaped", t.seq);
        }
    }
    assert!(barrage_lab::supervise::live_groups().is_empty());
}

fn run_two_server_contenders_end_to_end() {
    let out = scratch("e2e");
    let src = r#"
[study]
name = "e2e"
trials = 2
warmup = "100ms"
cooldown = "0s"
sample_interval = "50ms"
stop_grace = "2s"

[load]
path = "/"
expect_status = 200
connections = [1, 4]
duration = "400ms"
timeout = "2s"

[[contender]]
name = "python-http.server"
start = "python3 -m http.server {port} --bind 127.0.0.1"
requires = ["python3"]
ready = { kind = "http", path = "/", status = 200, timeout = "10s" }

[[contender]]
name = "barrage-serve"
start = "{barrage} serve --addr 127.0.0.1:{port}"
ready = "tcp"
"#;
    let r = run_src(src, &out);
    assert_eq!(r.status, "complete");
    assert_eq!(r.planned_trials, 8);
    assert_eq!(r.trials.len(), 8);
    // Interleaved: A B A B within each point.
    let order: Vec<&str> = r
        .trials
        .iter()
        .take(4)
        .map(|t| t.contender.as_str())
        .collect();
    assert_eq!(
        order,
        [
            "python-http.server",
            "barrage-serve",
            "python-http.server",
            "barrage-serve"
        ]
    );
    let cpu_total: f64 = r.trials.iter().filter_map(|t| t.metrics.cpu_s).sum();
    assert!(cpu_total > 0.0, "no contender CPU measured in any trial");
    for t in &r.trials {
        assert!(t.ok, "trial failed: {:?}", t.failure);
        let w = &t.windows;
        let (ready, ms, me) = (
            w.ready_s.unwrap(),
            w.measure_start_s.unwrap(),
            w.measure_end_s.unwrap(),
        );
        assert!(ready <= ms && ms < me && me <= w.trial_end_s, "{w:?}");
        assert!(me - ms > 0.3, "measured window {:.3} s", me - ms);
        let s = t.samples.as_ref().expect("samples");
        assert!(s.samples.len() >= 5, "{} samples", s.samples.len());
        // What bounding the timeline dropped is recorded beside the cap and the tick it is
        // weighed with (the schema requires the three).
        assert!(
            s.cpus >= 1 && s.clock_tick > Duration::ZERO,
            "cpus {} tick {:?}",
            s.cpus,
            s.clock_tick
        );
        assert!(s.peak_rss_bytes > 1 << 20, "peak RSS {}", s.peak_rss_bytes);
        assert_eq!(t.phases.len(), 1);
        assert_eq!(t.phases[0].load.schema, "barrage.load/2");
        assert!(t.phases[0]
            .load
            .hdr
            .as_deref()
            .is_some_and(|h| !h.is_empty()));
        let m = &t.metrics;
        assert!(m.requests.unwrap() > 0 && m.rps.unwrap() > 0.0);
        // Per trial the CPU figure may round to 0 (/proc counts 10 ms ticks and a busy machine may
        // give a short window few requests); over all trials it may not.
        assert!(m.cpu_s_per_request.unwrap() >= 0.0);
        assert!(t.generator.is_some());
        // A simple start command is exec'd, so wait4's rusage is the server's own, not sh's.
        let e = t.exit.as_ref().unwrap();
        assert!(t.command.starts_with("exec "), "{}", t.command);
        assert!(
            e.rusage.user + e.rusage.sys > Duration::ZERO,
            "{:?}",
            e.rusage
        );
        assert!(e.rusage.maxrss_bytes > 2 << 20, "{:?}", e.rusage);
    }
    assert_eq!(r.summary.len(), 4);
    for c in &r.summary {
        assert_eq!(c.trials_ok, 2);
        assert_eq!(c.stats["rps"].n, 2);
        let l = c.latency.as_ref().expect("merged latency");
        // Merged over both trials: its count is the sum of the trials' histogram counts.
        let sum: u64 = r
            .trials_of(c.point, &c.contender)
            .iter()
            .map(|t| t.phases[0].load.latency_us.count)
            .sum();
        if sum > 0 {
            assert_eq!(l.count, sum);
        }
    }
    assert!(r
        .comparisons
        .iter()
        .any(|c| c.between == "contenders" && c.metric == "rps"));
    // summary.csv is the report's export of the results (the CLI writes it).
    let csv = barrage_report::summary_csv::render(&r);
    assert_eq!(csv.lines().count(), 5, "{csv}");
    validate_schema(&out);
    no_processes_left(&r);
    let table = barrage_report::terminal::table(&r);
    assert!(
        table.contains("barrage-serve") && table.contains("python-http.server"),
        "{table}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

fn run_client_study_validates_downloads() {
    let out = scratch("client");
    let src = r#"
[study]
name = "client"
trials = 2
cooldown = "0s"
sample_interval = "20ms"
trial_timeout = "20s"

[client]
path = "/bytes/{size}"
params = { size = 300000 }

[client.expect]
file = "{out}"
file_size = "{size}"
file_pattern = true

# A figure the client prints itself; recorded per trial, declared in results.json.
[[client.figure]]
key = "chunks"
unit = "count"
better = "lower"

[[contender]]
name = "python-urllib"
requires = ["python3"]
start = "python3 -c 'import sys, urllib.request; open(sys.argv[2], \"wb\").write(urllib.request.urlopen(sys.argv[1]).read()); print(\"chunks=1 chunks=3\")' {url} {out}"

[[contender]]
name = "wrong-bytes"
start = "head -c {size} /dev/zero > {out}"
"#;
    let r = run_src(src, &out);
    assert_eq!(r.status, "complete");
    assert_eq!(r.trials.len(), 4);
    for t in r.trials.iter().filter(|t| t.contender == "python-urllib") {
        assert!(t.ok, "{:?} {:?}", t.failure, t.validation);
        assert!(t.metrics.wall_s.unwrap() > 0.0);
        assert!(t.metrics.peak_rss_bytes.unwrap() > 1 << 20);
        // Throughput is the checked size over the wall time.
        assert_eq!(t.metrics.body_bytes, Some(300_000));
        let want = 300_000.0 / t.metrics.wall_s.unwrap() / 1e6;
        assert!((t.metrics.mb_per_s.unwrap() - want).abs() < 1e-9 * want.max(1.0));
        // The last `chunks=` token on stdout.
        assert_eq!(t.metrics.figures.get("chunks"), Some(&3.0));
    }
    assert_eq!(r.study.figures.len(), 1);
    assert_eq!(r.study.figures[0].label, "chunks");
    let cell = r.summary.iter().find(|c| c.contender == "python-urllib");
    assert_eq!(cell.unwrap().stats["chunks"].median, 3.0);
    for t in r.trials.iter().filter(|t| t.contender == "wrong-bytes") {
        // A failed download has no throughput.
        assert_eq!(t.metrics.mb_per_s, None);
        let f = t.failure.as_ref().expect("zeros are not the pattern");
        assert_eq!(f.kind, "validation");
        assert!(
            f.message.contains("differs from the pattern at byte 1"),
            "{}",
            f.message
        );
    }
    let table = barrage_report::terminal::table(&r);
    assert!(table.contains("MB/s"), "{table}");
    // Scratch files are gone with the run: nothing is left beside the results.
    assert!(!out.join(".tmp").exists());
    validate_schema(&out);
    let _ = std::fs::remove_dir_all(&out);
}

/// `cpus = [1, "all"]` is an axis of one run: each point's contender runs on its own CPUs (it
/// counts them with `nproc`, which reads its affinity), the trials record them, and a question
/// compares the two conditions within the run.
fn run_cpus_axis_gives_each_point_its_cpus() {
    let out = scratch("cpus");
    let src = r#"
[study]
name = "cpus"
trials = 2
cooldown = "0s"
sample_interval = "20ms"
trial_timeout = "20s"
cpus = [1, "all"]

[client]
path = "/"

[[client.figure]]
key = "ncpus"
unit = "count"
better = "higher"
required = true

[[contender]]
name = "nproc"
start = "sh -c 'echo ncpus=$(nproc)'"

[[question]]
id = "all-above-one"
original = "the second CPU is there to use"
claim = "nproc[cpus=all] > nproc[cpus=1]"
metric = "ncpus"
"#;
    let available = barrage_lab::results::available_cpus();
    let r = run_src(src, &out);
    assert_eq!(r.status, "complete");
    let labels: Vec<&str> = r.points.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(labels, ["cpus=1", "cpus=all"]);
    assert_eq!(r.trials.len(), 4);
    for t in &r.trials {
        assert!(t.ok, "{:?}", t.failure);
        let want: Vec<usize> = if t.point == 0 {
            available[..1].to_vec()
        } else {
            available.clone()
        };
        assert_eq!(t.contender_cpus.as_ref(), Some(&want), "trial {}", t.seq);
        assert_eq!(
            t.metrics.figures["ncpus"],
            want.len() as f64,
            "trial {}",
            t.seq
        );
    }
    let a = &r.answers[0];
    if available.len() > 1 {
        assert_eq!(a.verdict, barrage_model::question::Verdict::Agrees, "{a:?}");
        assert_eq!(a.ratio, Some(available.len() as f64));
    } else {
        assert_eq!(
            a.verdict,
            barrage_model::question::Verdict::Inconclusive,
            "{a:?}"
        );
    }
    validate_schema(&out);
    let _ = std::fs::remove_dir_all(&out);
    // More CPUs than barrage may use: refused before any contender starts.
    // (Without the question, which names a point such a study would not have.)
    let head = &src[..src.find("[[question]]").unwrap()];
    let too_many = head.replace(
        "cpus = [1, \"all\"]",
        &format!("cpus = {}", available.len() + 1),
    );
    let s = study::parse(
        &too_many,
        "test.toml",
        Path::new(env!("CARGO_MANIFEST_DIR")),
    )
    .unwrap();
    let out2 = scratch("cpus-too-many");
    let e = runner::run(&s, &opts(&out2), &NoProgress)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&format!("needs {} CPUs", available.len() + 1)),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&out2);
}

fn run_resume_finishes_an_interrupted_study() {
    let out = scratch("resume");
    let src = r#"
[study]
name = "resume"
trials = 2
cooldown = "0s"
sample_interval = "50ms"

[load]
connections = 2
duration = "200ms"

[[contender]]
name = "barrage-serve"
start = "{barrage} serve --addr 127.0.0.1:{port}"
"#;
    let full = run_src(src, &out);
    assert_eq!(full.trials.len(), 2);
    // Make it look like a study stopped after its first trial.
    let mut cut = full.clone();
    cut.trials.truncate(1);
    cut.status = "interrupted".into();
    cut.finished_at = None;
    barrage_lab::results::write(&cut, &out).unwrap();
    let r = runner::resume(&out, &opts(&out), &NoProgress).unwrap();
    assert_eq!(r.status, "complete");
    assert_eq!(r.trials.len(), 2);
    assert_eq!(
        r.trials[0].started_at, full.trials[0].started_at,
        "kept trial changed"
    );
    assert_eq!(r.trials[1].trial, 1);
    assert!(r.trials.iter().all(|t| t.ok));
    let again = barrage_lab::results::read(&out).unwrap();
    assert_eq!(again.trials.len(), 2);
    validate_schema(&out);
    let _ = std::fs::remove_dir_all(&out);
}

fn run_missing_requires_is_skipped_with_reason() {
    let out = scratch("requires");
    let src = r#"
[study]
name = "requires"
trials = 1
cooldown = "0s"
[load]
connections = 1
duration = "100ms"
[[load.phase]]
name = "fast"
rate = 400
[[load.phase]]
name = "slow"
rate = 100
duration = "200ms"
[[contender]]
name = "needs-a-unicorn"
start = "unicorn-server {port}"
requires = ["sh", "surely-no-such-command-barrage"]
[[contender]]
name = "barrage-serve"
start = "{barrage} serve --addr 127.0.0.1:{port}"
"#;
    let r = run_src(src, &out);
    let c = &r.contenders[0];
    assert_eq!(c.status, "skipped");
    let reason = c.skip_reason.as_deref().unwrap();
    assert!(
        reason.contains("surely-no-such-command-barrage") && !reason.contains("`sh`"),
        "{reason}"
    );
    assert_eq!(r.contenders[1].status, "ready");
    assert_eq!(r.trials.len(), 1);
    // Two open-loop phases back to back, their boundaries on the trial's clock.
    let t = &r.trials[0];
    assert!(t.ok, "{:?}", t.failure);
    let names: Vec<&str> = t.phases.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["fast", "slow"]);
    let (a, b) = (&t.phases[0], &t.phases[1]);
    assert!(a.start_s <= a.measure_start_s && a.measure_end_s <= a.end_s && a.end_s <= b.start_s);
    assert!(b.measure_end_s - b.measure_start_s > 0.15);
    assert_eq!(a.load.config["rate"], 400.0);
    assert_eq!(b.load.config["rate"], 100.0);
    assert_eq!(t.windows.measure_end_s, Some(b.measure_end_s));
    assert!(r
        .warnings
        .iter()
        .any(|w| w.kind == "skipped" && w.message.contains("needs-a-unicorn")));
    assert_eq!(r.status, "complete");
    validate_schema(&out);
    let _ = std::fs::remove_dir_all(&out);
}

fn run_failures_are_recorded_and_the_study_goes_on() {
    let out = scratch("failures");
    // crasher: serves, then its leader dies of SIGSEGV mid-trial; never-ready: never listens;
    // forker: the server plus a child holding ~60 MB, which must show in the tree's RSS.
    let src = r#"
[study]
name = "failures"
trials = 1
cooldown = "0s"
sample_interval = "50ms"
stop_grace = "1s"

[load]
connections = 1
duration = "800ms"

[[contender]]
name = "crasher"
start = "{barrage} serve --addr 127.0.0.1:{port} & sleep 0.4; echo 'boom: about to crash' >&2; kill -SEGV $$"

[[contender]]
name = "never-ready"
start = "echo \"not listening on $PORT\" >&2; exec sleep 30"
env = { PORT = "{port}" }
ready = { kind = "tcp", timeout = "300ms" }

[[contender]]
name = "forker"
requires = ["python3"]
start = "python3 -c 'import time; b = bytearray(b\"x\" * 60_000_000); time.sleep(60)' & exec {barrage} serve --addr 127.0.0.1:{port}"
"#;
    let r = run_src(src, &out);
    assert_eq!(r.status, "complete");
    assert_eq!(r.trials.len(), 3);
    let by = |n: &str| r.trials.iter().find(|t| t.contender == n).unwrap();
    let crash = by("crasher");
    let f = crash.failure.as_ref().expect("crash recorded");
    assert_eq!(f.kind, "crashed", "{f:?}");
    assert!(f.stderr_tail.contains("boom: about to crash"), "{f:?}");
    let nr = by("never-ready");
    let f = nr.failure.as_ref().expect("never ready recorded");
    assert_eq!(f.kind, "never_ready", "{f:?}");
    // The port reached the contender through env = { PORT = "{port}" }.
    let port = f.stderr_tail.trim().rsplit(' ').next().unwrap_or("");
    assert!(
        f.stderr_tail.contains("not listening on ") && port.parse::<u16>().is_ok_and(|p| p > 0),
        "{:?}",
        f.stderr_tail
    );
    assert!(nr.phases.is_empty());
    let fork = by("forker");
    assert!(fork.ok, "{:?}", fork.failure);
    let s = fork.samples.as_ref().unwrap();
    assert!(s.peak_processes >= 2, "{} processes", s.peak_processes);
    assert!(
        s.peak_rss_bytes > 60_000_000,
        "tree peak RSS {} misses the child",
        s.peak_rss_bytes
    );
    assert!(r
        .warnings
        .iter()
        .any(|w| w.kind == "failed_trials" && w.message.contains("crasher")));
    no_processes_left(&r);
    validate_schema(&out);
    let _ = std::fs::remove_dir_all(&out);
}

/// `study FILE OUT`: what `barrage run FILE --out OUT` does, with the interrupt handling.
fn study_main(file: &Path, out: &Path) -> i32 {
    barrage_lab::supervise::install_interrupt_cleanup().unwrap();
    let s = study::load(file).unwrap();
    let r = runner::run(&s, &opts(out), &NoProgress).unwrap();
    if r.status == "complete" {
        0
    } else {
        130
    }
}

/// Pids of live processes whose command line has all of `needles`.
fn processes_with(needles: &[&str]) -> Vec<i32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if needles.iter().all(|n| cmd.contains(n)) {
            out.push(pid);
        }
    }
    out
}

fn run_ctrl_c_keeps_trials_leaves_no_process_and_resumes() {
    let out = scratch("ctrlc");
    let file = out.join("study.toml");
    std::fs::write(
        &file,
        r#"
[study]
name = "ctrlc"
trials = 4
cooldown = "0s"
sample_interval = "50ms"
[load]
connections = 2
duration = "400ms"
[[contender]]
name = "barrage-serve"
start = "{barrage} serve --addr 127.0.0.1:{port}"
"#,
    )
    .unwrap();
    let results = out.join("results");
    let exe = std::env::current_exe().unwrap();
    let exe_s = exe.display().to_string();
    let mut child = std::process::Command::new(&exe)
        .arg("study")
        .arg(&file)
        .arg(&results)
        .spawn()
        .unwrap();
    // Wait for the first recorded trial, then interrupt mid-study.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let n = barrage_lab::results::read(&results).map_or(0, |r| r.trials.len());
        if n >= 1 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no trial recorded in 30 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(150));
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("barrage did not stop within 20 s of SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130), "{status:?}");
    let left = processes_with(&[&exe_s, " serve --addr 127.0.0.1:"]);
    assert!(left.is_empty(), "contender processes left behind: {left:?}");
    let r = barrage_lab::results::read(&results).unwrap();
    assert_eq!(r.status, "interrupted");
    assert!(
        !r.trials.is_empty() && r.trials.len() < 4,
        "{} trials",
        r.trials.len()
    );
    assert!(
        r.trials.iter().all(|t| t.ok),
        "an interrupted trial was kept"
    );
    let kept = r.trials.len();
    let done = runner::resume(&results, &opts(&results), &NoProgress).unwrap();
    assert_eq!(done.status, "complete");
    assert_eq!(done.trials.len(), 4);
    assert_eq!(
        done.trials[..kept]
            .iter()
            .map(|t| &t.started_at)
            .collect::<Vec<_>>(),
        r.trials.iter().map(|t| &t.started_at).collect::<Vec<_>>()
    );
    validate_schema(&results);
    let _ = std::fs::remove_dir_all(&out);
}

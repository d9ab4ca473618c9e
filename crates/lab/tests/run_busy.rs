//! A busy machine, for real (own `main`, no libtest harness, so the tests run one after another
//! and no other test's work is on the machine): this binary is also the competing program
//! (`spin SECONDS`: one thread busy, stopping by itself), started beside a client study whose
//! contender sleeps. The trial records the CPU outside its contender and barrage, flags it busy
//! and warns (`on_busy = "warn"`), fails it (`"fail"`), or discards it and runs it again
//! (`"retry"`).
//!
//! What is asserted holds whatever else the shared machine runs: another program only adds to
//! the outside CPU, and a busy-looping thread alone takes most of a core.

use barrage_lab::results::Results;
use barrage_lab::runner::{self, NoProgress, RunOptions};
use barrage_lab::study;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

#[allow(dead_code)] // serve: the other test binaries' contender
mod common;
use common::{validate_schema, Test};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("spin") {
        let secs: f64 = args[2].parse().expect("spin SECONDS");
        let end = Instant::now() + Duration::from_secs_f64(secs);
        let mut n = 0u64;
        while Instant::now() < end {
            n = std::hint::black_box(n.wrapping_add(1));
        }
        return;
    }
    common::run_tests(
        &args,
        &[
            Test {
                name: "busy_trial_is_flagged_and_warned",
                run: busy_trial_is_flagged_and_warned,
                needs_net: false,
            },
            Test {
                name: "busy_trial_fails_when_refused",
                run: busy_trial_fails_when_refused,
                needs_net: false,
            },
            Test {
                name: "busy_trial_is_run_again",
                run: busy_trial_is_run_again,
                needs_net: false,
            },
        ],
    );
}

/// The competing program: this binary spinning for `secs`, returned once it has run on a CPU.
struct Spinner(Child);

impl Spinner {
    fn start(secs: f64) -> Spinner {
        let child = Command::new(std::env::current_exe().unwrap())
            .args(["spin", &secs.to_string()])
            .spawn()
            .unwrap();
        let stat = format!("/proc/{}/stat", child.id());
        // Until the kernel has charged it a clock tick (bounded: 10 s).
        let until = Instant::now() + Duration::from_secs(10);
        while Instant::now() < until {
            let text = std::fs::read_to_string(&stat).unwrap_or_default();
            let after_comm = text.rsplit_once(')').map_or("", |(_, r)| r);
            let utime: u64 = after_comm
                .split_whitespace()
                .nth(11)
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            if utime > 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Spinner(child)
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("barrage-busy-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A client study of one trial whose contender sleeps 1 s, with `extra` in `[study]`.
fn run(name: &str, extra: &str) -> (Results, PathBuf) {
    let out = scratch(name);
    let src = format!(
        r#"
[study]
name = "busy"
trials = 1
sample_interval = "50ms"
trial_timeout = "20s"
{extra}

[client]
path = "/"

[[contender]]
name = "sleeper"
start = "sleep 1"
"#
    );
    let s = study::parse(&src, "busy.toml", Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
    let opts = RunOptions {
        out_dir: out.clone(),
        barrage_exe: std::env::current_exe().unwrap(),
        study_file: "busy.toml".into(),
    };
    (runner::run(&s, &opts, &NoProgress).unwrap(), out)
}

fn busy_trial_is_flagged_and_warned() {
    let spinner = Spinner::start(30.0);
    let (r, out) = run("warn", "");
    drop(spinner);
    assert_eq!(r.study.busy_limit_pct, Some(10.0));
    let t = &r.trials[0];
    // Kept: the default policy only warns.
    assert!(t.ok, "{:?}", t.failure);
    let o = t.outside_cpu.as_ref().expect("outside CPU recorded");
    // A busy loop takes most of a core; the sleeping contender and idle barrage none of it.
    assert!(o.busy && o.cpu_pct > 50.0, "{o:?}");
    assert_eq!(o.limit_pct, 10.0);
    let w = r
        .warnings
        .iter()
        .find(|w| w.kind == "machine_busy")
        .expect("a machine_busy warning");
    assert!(w.message.contains("busy in 1 of 1 trials"), "{}", w.message);
    // And the end of `barrage run` says it (the answer block's notes).
    let answer = barrage_report::terminal::answer(&r);
    assert!(answer.contains("the machine was busy"), "{answer}");
    validate_schema(&out);
    let _ = std::fs::remove_dir_all(&out);
}

fn busy_trial_fails_when_refused() {
    let spinner = Spinner::start(30.0);
    let (r, out) = run("fail", "on_busy = \"fail\"\nbusy_limit = \"20%\"");
    drop(spinner);
    let t = &r.trials[0];
    assert!(!t.ok);
    let f = t.failure.as_ref().expect("refused");
    assert_eq!(f.kind, "machine_busy");
    assert!(f.message.contains("(bound 20%)"), "{}", f.message);
    // Not credited: no cell statistics from it.
    let cell = &r.summary[0];
    assert_eq!((cell.trials_ok, cell.trials_failed), (0, 1));
    validate_schema(&out);
    let _ = std::fs::remove_dir_all(&out);
}

fn busy_trial_is_run_again() {
    // Busy for the first attempt only: the spinner stops by itself after 3 s.
    let spinner = Spinner::start(3.0);
    let (r, out) = run("retry", "on_busy = \"retry\"\nbusy_limit = 50");
    drop(spinner);
    assert_eq!(r.trials.len(), 1, "discarded attempts are not trials");
    let t = &r.trials[0];
    let o = t.outside_cpu.as_ref().expect("outside CPU recorded");
    assert!(!o.discarded_pct.is_empty(), "{o:?}");
    assert!(o.discarded_pct[0] > 50.0, "{o:?}");
    // Then quiet, or (another program busy all along) failed after every retry: never kept busy.
    if t.ok {
        assert!(!o.busy, "{o:?}");
    } else {
        assert_eq!(t.failure.as_ref().unwrap().kind, "machine_busy");
        assert_eq!(o.discarded_pct.len(), 3);
    }
    assert!(r
        .warnings
        .iter()
        .any(|w| w.kind == "machine_busy" && w.message.contains("run again")));
    validate_schema(&out);
    let _ = std::fs::remove_dir_all(&out);
}

//! `barrage run` killed the hard ways: `kill -9` mid-trial leaves no process of the contender's
//! (found by a token in their environment, whatever they named themselves or whichever group or
//! session they moved to), and the next run removes the cgroups the dead one left; Ctrl-C twice
//! ends at once and still writes results.json as interrupted.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BARRAGE: &str = env!("CARGO_BIN_EXE_barrage");

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("barrage-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A pre-forking server (two workers) with a double-forked sidecar in a session of its own,
/// all ignoring the stop signal, marked by `token`.
fn study(dir: &Path, token: &str, trials: u32) -> PathBuf {
    let file = dir.join("study.toml");
    std::fs::write(
        &file,
        format!(
            r#"
[study]
name = "hard-kill"
trials = {trials}
cooldown = "0s"
sample_interval = "100ms"
stop_grace = "30s"
[load]
connections = 1
duration = "20s"
[[contender]]
name = "prefork"
env = {{ BARRAGE_SURVIVOR_TOKEN = "{token}" }}
start = "trap '' TERM; sleep 300 & sleep 300 & (setsid sh -c 'sleep 301 & wait' &) ; exec {{barrage}} serve --addr 127.0.0.1:{{port}}"
"#
        ),
    )
    .unwrap();
    file
}

fn wait_for(what: &str, max: Duration, mut f: impl FnMut() -> bool) {
    let end = Instant::now() + max;
    while !f() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Cgroup directories (any hierarchy, a few levels deep) whose name contains `part`.
fn cgroups_named(part: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![(PathBuf::from("/sys/fs/cgroup"), 0)];
    while let Some((d, depth)) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                if e.file_name().to_string_lossy().contains(part) {
                    out.push(e.path());
                }
                if depth < 4 {
                    stack.push((e.path(), depth + 1));
                }
            }
        }
    }
    out
}

fn root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[test]
fn kill_9_of_barrage_run_leaves_no_process_and_the_next_run_sweeps_its_cgroups() {
    if !root() {
        eprintln!("SKIPPED: PID namespaces and cgroups need root");
        return;
    }
    let dir = scratch("kill9");
    let token = format!("kill9-run-{}", std::process::id());
    let file = study(&dir, &token, 2);
    let mut run = Command::new(BARRAGE)
        .arg("run")
        .arg(&file)
        .arg("--out")
        .arg(dir.join("out"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // sh's two workers, the sidecar's sh and sleep, the server.
    wait_for(
        "the contender's 5 processes",
        Duration::from_secs(60),
        || barrage_testkit::processes_with_env(&token).len() >= 5,
    );
    let pid = run.id();
    run.kill().unwrap(); // SIGKILL: none of barrage's cleanup runs
    run.wait().unwrap();
    let end = Instant::now() + Duration::from_secs(10);
    let mut left = barrage_testkit::processes_with_env(&token);
    while !left.is_empty() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
        left = barrage_testkit::processes_with_env(&token);
    }
    assert!(left.is_empty(), "survived kill -9 of barrage run: {left:?}");
    // Its cgroups are still there, named after it; the next run removes them and says so.
    let tag = format!("-{pid}.");
    let stale = cgroups_named(&tag);
    let quiet = dir.join("quiet.toml");
    std::fs::write(
        &quiet,
        "[study]\nname = \"next\"\ntrials = 1\n[load]\nconnections = 1\nduration = \"300ms\"\n\
         [[contender]]\nname = \"serve\"\nstart = \"{barrage} serve --addr 127.0.0.1:{port}\"\n",
    )
    .unwrap();
    let next = Command::new(BARRAGE)
        .arg("run")
        .arg(&quiet)
        .arg("--out")
        .arg(dir.join("next"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&next.stderr);
    assert!(next.status.success(), "{err}");
    assert!(
        cgroups_named(&tag).is_empty(),
        "not swept: {:?}",
        cgroups_named(&tag)
    );
    if !stale.is_empty() {
        assert!(err.contains("cgroup(s) left by"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ctrl_c_twice_ends_at_once_and_keeps_the_results() {
    let dir = scratch("twice");
    let token = format!("twice-run-{}", std::process::id());
    let file = study(&dir, &token, 3);
    let out = dir.join("out");
    let mut run = Command::new(BARRAGE)
        .arg("run")
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for("the contender's processes", Duration::from_secs(60), || {
        barrage_testkit::processes_with_env(&token).len() >= 5
    });
    let pid = run.id() as i32;
    let t0 = Instant::now();
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(pid, libc::SIGINT) };
    std::thread::sleep(Duration::from_millis(200));
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGINT) };
    let status = run.wait().unwrap();
    // Without the second Ctrl-C the stop would wait out the contender's 30 s grace.
    assert!(t0.elapsed() < Duration::from_secs(20), "{:?}", t0.elapsed());
    assert_eq!(status.code(), Some(130), "{status:?}");
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(doc["status"], "interrupted");
    wait_for("no process left", Duration::from_secs(10), || {
        barrage_testkit::processes_with_env(&token).is_empty()
    });
    let _ = std::fs::remove_dir_all(&dir);
}

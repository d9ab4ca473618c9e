//! Ctrl-C leaves no process behind. Each test re-runs this test binary as a child process (a
//! stand-in for barrage) selected by an environment variable; the child installs the interrupt
//! cleanup, starts a contender with grandchildren, reports the pids on stdout, and then the
//! parent sends it SIGINT (or SIGKILL) and checks /proc.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use barrage_proc::sample::procfs;
use barrage_proc::supervise::{
    group_members, install_interrupt_cleanup, interrupted, live_groups, on_interrupt, Contender,
    Outcome, Spec,
};

const MODE: &str = "BARRAGE_LAB_INTERRUPT_MODE";

fn dead(pid: i32) -> bool {
    match procfs::read_stat(pid) {
        None => true,
        Some(s) => s.state == b'Z' || s.state == b'X',
    }
}

fn wait_dead(pids: &[i32], max: Duration) -> Vec<i32> {
    let end = Instant::now() + max;
    loop {
        let alive: Vec<i32> = pids.iter().copied().filter(|p| !dead(*p)).collect();
        if alive.is_empty() || Instant::now() >= end {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Run this test (by name) in a child process in `mode`; returns it and the pids it reported.
fn start_child(test: &str, mode: &str) -> (Child, Vec<i32>, BufReader<std::process::ChildStdout>) {
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new(exe)
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(MODE, mode)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let pids = loop {
        line.clear();
        if out.read_line(&mut line).unwrap() == 0 {
            let _ = child.kill();
            let _ = child.wait();
            panic!("child ended before reporting its pids");
        }
        // The harness may print "test name ... " on the same line first.
        if let Some(at) = line.find("PIDS ") {
            break line[at + 5..]
                .split_whitespace()
                .map(|p| p.parse().unwrap())
                .collect::<Vec<i32>>();
        }
    };
    (child, pids, out)
}

fn wait_child(child: &mut Child, max: Duration) -> Option<std::process::ExitStatus> {
    let end = Instant::now() + max;
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return Some(st);
        }
        if Instant::now() >= end {
            // Say where it hangs before killing it.
            for t in std::fs::read_dir(format!("/proc/{}/task", child.id()))
                .into_iter()
                .flatten()
                .flatten()
            {
                let p = t.path();
                let comm = std::fs::read_to_string(p.join("comm")).unwrap_or_default();
                let wchan = std::fs::read_to_string(p.join("wchan")).unwrap_or_default();
                let stack = std::fs::read_to_string(p.join("stack")).unwrap_or_default();
                eprintln!(
                    "hung child thread {}: {} wchan {wchan}\n{stack}",
                    t.file_name().to_string_lossy(),
                    comm.trim()
                );
            }
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Every descendant of `root`.
fn descendants(root: i32) -> Vec<i32> {
    let all = procfs::all_stats();
    let mut out = Vec::new();
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        for s in all.iter().filter(|s| s.ppid == p) {
            out.push(s.pid);
            frontier.push(s.pid);
        }
    }
    out
}

/// The child side: a contender whose shell ignores SIGTERM, with two grandchildren in its group
/// and one that left the group (setsid).
fn child_spawn() -> Contender {
    install_interrupt_cleanup().unwrap();
    let mut spec = Spec::new(
        "victim",
        "trap '' TERM; sleep 300 & sleep 300 & setsid sleep 302 & wait",
    );
    spec.grace = Duration::from_millis(500);
    let c = Contender::spawn(&spec).unwrap();
    let end = Instant::now() + Duration::from_secs(20);
    while group_members(c.pid()).len() < 3 && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(10));
    }
    let escaped = || {
        descendants(c.pid())
            .into_iter()
            .filter(|p| procfs::read_stat(*p).is_some_and(|s| s.pgrp != c.pid()))
            .collect::<Vec<i32>>()
    };
    while escaped().is_empty() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut pids = vec![c.pid()];
    pids.extend(group_members(c.pid()).into_iter().filter(|p| *p != c.pid()));
    // The setsid one is a descendant (of the shell, or of the shell's namespace init) outside
    // the group.
    pids.extend(escaped());
    println!(
        "PIDS {}",
        pids.iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    c
}

#[test]
fn sigint_stops_and_reaps_every_contender_process() {
    if std::env::var(MODE).as_deref() == Ok("cooperative") {
        // A runner that polls `interrupted()` between steps, like `barrage run`.
        let c = child_spawn();
        let cancelled = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = cancelled.clone();
        on_interrupt(move || flag.store(true, std::sync::atomic::Ordering::SeqCst));
        let end = Instant::now() + Duration::from_secs(60);
        while !interrupted() {
            assert!(Instant::now() < end, "no interrupt arrived");
            std::thread::sleep(Duration::from_millis(10));
        }
        let exit = c.stop();
        // The callback runs on the cleanup thread, concurrently with this one.
        while !cancelled.load(std::sync::atomic::Ordering::SeqCst) {
            assert!(Instant::now() < end, "the on_interrupt callback never ran");
            std::thread::sleep(Duration::from_millis(10));
        }
        println!(
            "OUTCOME {}",
            if exit.outcome == Outcome::Interrupted {
                "interrupted"
            } else {
                "other"
            }
        );
        assert!(live_groups().is_empty());
        return;
    }
    let (mut child, pids, mut out) = start_child(
        "sigint_stops_and_reaps_every_contender_process",
        "cooperative",
    );
    assert!(
        pids.len() >= 4,
        "leader, 2 group members, 1 escaped: {pids:?}"
    );
    assert!(pids.iter().all(|p| !dead(*p)));
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status =
        wait_child(&mut child, Duration::from_secs(30)).expect("child finished after SIGINT");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    assert!(status.success(), "child status {status:?}; output {rest}");
    assert!(rest.contains("OUTCOME interrupted"), "{rest}");
    let alive = wait_dead(&pids, Duration::from_secs(10));
    assert!(alive.is_empty(), "still alive after SIGINT: {alive:?}");
    assert!(group_members(pids[0]).is_empty());
}

#[test]
fn sigint_kills_contenders_even_if_the_runner_is_stuck() {
    if std::env::var(MODE).as_deref() == Ok("stuck") {
        // A runner that never looks at the flag: the cleanup thread must still kill the groups.
        let _c = child_spawn();
        std::thread::sleep(Duration::from_secs(60));
        return;
    }
    let (mut child, pids, _out) = start_child(
        "sigint_kills_contenders_even_if_the_runner_is_stuck",
        "stuck",
    );
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let alive = wait_dead(&pids, Duration::from_secs(15));
    let _ = child.kill();
    let _ = child.wait();
    assert!(alive.is_empty(), "still alive after SIGINT: {alive:?}");
}

#[test]
fn contender_leader_dies_when_barrage_is_sigkilled() {
    if std::env::var(MODE).as_deref() == Ok("pdeathsig") {
        let c = Contender::spawn(&Spec::new("orphan", "exec sleep 300")).unwrap();
        println!("PIDS {}", c.pid());
        std::thread::sleep(Duration::from_secs(60));
        return;
    }
    let (mut child, pids, _out) = start_child(
        "contender_leader_dies_when_barrage_is_sigkilled",
        "pdeathsig",
    );
    assert!(!dead(pids[0]));
    child.kill().unwrap(); // SIGKILL: no cleanup code runs in the child
    child.wait().unwrap();
    // PR_SET_PDEATHSIG kills the leader (not its descendants: see the supervise module doc).
    let alive = wait_dead(&pids, Duration::from_secs(10));
    assert!(
        alive.is_empty(),
        "leader survived barrage's SIGKILL: {alive:?}"
    );
}

/// A pre-forking server with a sidecar that double-forks out of its group and session.
const PREFORK: &str = "trap '' TERM; sleep 300 & sleep 300 & \
    (setsid sh -c 'sleep 301 & sleep 302 & wait' &) ; \
    (setsid sleep 303 &) ; wait";

fn token_spec(token: &str) -> Spec {
    let mut spec = Spec::new("prefork", PREFORK);
    spec.env
        .push(("BARRAGE_SURVIVOR_TOKEN".into(), token.into()));
    spec.grace = Duration::from_secs(30);
    spec
}

/// Waits until at least `n` processes carry `token`.
fn await_token(token: &str, n: usize) -> Vec<i32> {
    let end = Instant::now() + Duration::from_secs(20);
    loop {
        let found = barrage_testkit::processes_with_env(token);
        if found.len() >= n || Instant::now() >= end {
            return found;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn can_unshare_pid() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[test]
fn nothing_a_contender_started_outlives_barrage_killed_with_sigkill() {
    let token = format!("kill9-{}", std::process::id());
    if std::env::var(MODE).as_deref() == Ok("kill9") {
        let token = std::env::var("TOKEN").unwrap();
        let _c = Contender::spawn(&token_spec(&token)).unwrap();
        await_token(&token, 7);
        println!("PIDS {}", std::process::id());
        std::thread::sleep(Duration::from_secs(60));
        return;
    }
    if !can_unshare_pid() {
        eprintln!("SKIPPED: a PID namespace needs root (CAP_SYS_ADMIN)");
        return;
    }
    std::env::set_var("TOKEN", &token);
    let (mut child, _, _out) = start_child(
        "nothing_a_contender_started_outlives_barrage_killed_with_sigkill",
        "kill9",
    );
    let before = barrage_testkit::processes_with_env(&token);
    // sh, two workers, the sidecar's sh and its two sleeps, the double-forked sleep.
    assert!(before.len() >= 7, "{before:?}");
    let child_pid = child.id();
    child.kill().unwrap(); // SIGKILL: no cleanup code of barrage's runs
    child.wait().unwrap();
    let end = Instant::now() + Duration::from_secs(10);
    let mut left = barrage_testkit::processes_with_env(&token);
    while !left.is_empty() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
        left = barrage_testkit::processes_with_env(&token);
    }
    assert!(left.is_empty(), "survived barrage's SIGKILL: {left:?}");
    // Its cgroups stay (directories) until the next run sweeps them, and only them.
    let tag = format!("-{child_pid}.");
    let mine = format!("-{}.", std::process::id());
    let swept = barrage_proc::supervise::sweep_dead_runs();
    assert!(
        swept
            .cgroups
            .iter()
            .all(|c| !c.to_string_lossy().contains(&mine)),
        "{swept:?}"
    );
    let stale = cgroups_named(&tag);
    assert!(stale.is_empty(), "left after the sweep: {stale:?}");
    if barrage_proc::supervise::Spec::new("x", "true").cgroup {
        assert!(
            swept
                .cgroups
                .iter()
                .any(|c| c.to_string_lossy().contains(&tag)),
            "the dead run's cgroup was not swept: {swept:?}"
        );
    }
}

/// Cgroup directories (any hierarchy) whose name contains `part`.
fn cgroups_named(part: &str) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![std::path::PathBuf::from("/sys/fs/cgroup")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                if e.file_name().to_string_lossy().contains(part) {
                    out.push(e.path());
                }
                if out.len() < 100 && stack.len() < 10_000 {
                    stack.push(e.path());
                }
            }
        }
    }
    out
}

#[test]
fn a_second_ctrl_c_kills_everything_at_once_and_the_runner_still_returns() {
    let token = format!("twice-{}", std::process::id());
    if std::env::var(MODE).as_deref() == Ok("twice") {
        install_interrupt_cleanup().unwrap();
        let token = std::env::var("TOKEN").unwrap();
        // Ignores the stop signal, with a grace far longer than the test waits.
        let c = Contender::spawn(&token_spec(&token)).unwrap();
        await_token(&token, 7);
        println!("PIDS {}", c.pid());
        while !interrupted() {
            std::thread::sleep(Duration::from_millis(10));
        }
        let exit = c.stop();
        println!("OUTCOME {:?}", exit.outcome);
        return;
    }
    std::env::set_var("TOKEN", &token);
    let (mut child, _, mut out) = start_child(
        "a_second_ctrl_c_kills_everything_at_once_and_the_runner_still_returns",
        "twice",
    );
    let pid = child.id() as i32;
    unsafe { libc::kill(pid, libc::SIGINT) };
    std::thread::sleep(Duration::from_millis(300));
    unsafe { libc::kill(pid, libc::SIGINT) };
    // Without the second signal the stop would wait out the 30 s grace.
    let status = wait_child(&mut child, Duration::from_secs(15)).expect("returned after 2 signals");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    assert!(status.success(), "{status:?}: {rest}");
    assert!(rest.contains("OUTCOME Interrupted"), "{rest}");
    let end = Instant::now() + Duration::from_secs(10);
    let mut left = barrage_testkit::processes_with_env(&token);
    while !left.is_empty() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
        left = barrage_testkit::processes_with_env(&token);
    }
    assert!(left.is_empty(), "survived two Ctrl-C: {left:?}");
}

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
    while !procfs::all_stats()
        .iter()
        .any(|s| s.ppid == c.pid() && s.pgrp != c.pid())
        && Instant::now() < end
    {
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut pids = vec![c.pid()];
    pids.extend(group_members(c.pid()).into_iter().filter(|p| *p != c.pid()));
    // The setsid one is a child of the shell outside the group.
    for s in procfs::all_stats() {
        if s.ppid == c.pid() && s.pgrp != c.pid() {
            pids.push(s.pid);
        }
    }
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

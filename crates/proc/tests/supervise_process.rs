//! Supervision end to end with real processes: group stop reaches grandchildren, crashes,
//! never-ready servers, clients with exit codes and time budgets, OOM under a memory limit, CPU
//! pinning, and cleanup on drop. Every test stops what it starts and is bounded in time.

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use barrage_proc::sample::procfs;
use barrage_proc::supervise::{
    group_members, Contender, MemoryLimitApplied, MemoryLimitMode, NotReady, Outcome, Probe, Role,
    Spec, StdoutMode, Termination,
};

fn dead(pid: i32) -> bool {
    match procfs::read_stat(pid) {
        None => true,
        Some(s) => s.state == b'Z' || s.state == b'X',
    }
}

/// Wait (bounded) for a condition that another process makes true.
fn eventually(what: &str, max: Duration, mut f: impl FnMut() -> bool) {
    let end = Instant::now() + max;
    while !f() {
        assert!(Instant::now() < end, "timed out waiting for: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn free_addr() -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap()
}

/// An address nothing listens on, for a probe that must never succeed: port 1 (tcpmux,
/// privileged, never handed out for port 0). A port from [`free_addr`] is free only until another
/// test of this binary binds it: a probe of it once found that test's server (seen once: `Ok`
/// where `Exited` was due).
fn closed_addr() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 1))
}

fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("barrage-lab-{}-{name}", std::process::id()))
}

fn has_python() -> bool {
    std::process::Command::new("python3")
        .arg("-c")
        .arg("pass")
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

#[test]
fn stop_kills_the_whole_group_and_escaped_descendants() {
    let pidfile = tmp("escaped");
    let _ = std::fs::remove_file(&pidfile);
    // Two background grandchildren in the group, a subshell's child, and one that left the group
    // with setsid; the shell itself ignores TERM, so the stop needs the KILL after the grace.
    let cmd = format!(
        "trap '' TERM; sleep 300 & sleep 300 & (sleep 300 & wait) & setsid sleep 301 & echo $! > {}; wait",
        pidfile.display()
    );
    let mut spec = Spec::new("group", cmd);
    spec.grace = Duration::from_millis(300);
    let c = Contender::spawn(&spec).unwrap();
    let pgid = c.pid();
    eventually("group has 5 members", Duration::from_secs(10), || {
        group_members(pgid).len() >= 5
    });
    eventually("pid file", Duration::from_secs(10), || {
        std::fs::read_to_string(&pidfile)
            .map(|s| s.trim().parse::<i32>().is_ok())
            .unwrap_or(false)
    });
    let escaped: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // `$!` is a pid of the contender's namespace when it has one.
    let escaped = if c.in_pid_namespace() {
        global_pid(c.pid(), escaped).expect("the setsid sleep, by its namespace pid")
    } else {
        escaped
    };
    assert!(!dead(escaped));
    let members = group_members(pgid);
    let exit = c.stop();
    std::fs::remove_file(&pidfile).ok();
    assert_eq!(exit.outcome, Outcome::Ok, "{exit:?}");
    assert!(exit.stop.signal_sent);
    assert!(exit.stop.killed_after_grace, "the shell ignores TERM");
    assert!(
        group_members(pgid).is_empty(),
        "group {pgid} still has members"
    );
    for p in members {
        eventually(&format!("member {p} gone"), Duration::from_secs(5), || {
            dead(p)
        });
    }
    eventually("setsid descendant gone", Duration::from_secs(5), || {
        dead(escaped)
    });
    // No process of the group is left anywhere in /proc.
    assert!(procfs::all_stats()
        .iter()
        .all(|s| s.pgrp != pgid || s.state == b'Z'));
}

#[test]
fn server_that_crashes_mid_run_is_recorded_with_its_stderr() {
    if !has_python() {
        eprintln!("python3 missing: skipped");
        return;
    }
    let addr = free_addr();
    let script = format!(
        "import socket,time,sys,os\ns=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n\
         s.bind(('127.0.0.1',{})); s.listen(8)\ntime.sleep(0.4)\nsys.stderr.write('fatal: giving up\\n'); sys.stderr.flush()\nos.abort()\n",
        addr.port()
    );
    let file = tmp("crasher.py");
    std::fs::write(&file, script).unwrap();
    let mut spec = Spec::new("crasher", format!("exec python3 {}", file.display()));
    spec.grace = Duration::from_millis(500);
    let mut c = Contender::spawn(&spec).unwrap();
    let ready = c.wait_ready(&Probe::Tcp { addr }, Duration::from_secs(10));
    assert!(ready.is_ok(), "{ready:?}");
    eventually("crash", Duration::from_secs(10), || c.has_exited());
    let exit = c.stop();
    std::fs::remove_file(&file).ok();
    match &exit.outcome {
        Outcome::Crashed { signal, name } => {
            assert_eq!(*signal, libc::SIGABRT);
            assert_eq!(name, "SIGABRT");
        }
        o => panic!("expected a crash, got {o:?}"),
    }
    assert!(
        exit.stderr_tail.contains("fatal: giving up"),
        "{:?}",
        exit.stderr_tail
    );
    assert!(!exit.stop.signal_sent, "it had exited before the stop");
    assert!(exit.outcome.is_failure());
}

#[test]
fn server_that_never_gets_ready_is_stopped_and_recorded() {
    let addr = closed_addr(); // nothing will listen there
    let mut spec = Spec::new("sleeper", "sleep 300");
    spec.grace = Duration::from_millis(500);
    let mut c = Contender::spawn(&spec).unwrap();
    let pid = c.pid();
    let r = c.wait_ready(&Probe::Tcp { addr }, Duration::from_millis(400));
    assert!(matches!(r, Err(NotReady::Timeout { .. })), "{r:?}");
    let exit = c.stop();
    assert!(
        matches!(
            exit.outcome,
            Outcome::NeverReady {
                reason: NotReady::Timeout { .. }
            }
        ),
        "{exit:?}"
    );
    assert!(group_members(pid).is_empty());

    // Exiting before becoming ready is noticed at once, not at the timeout.
    let mut c = Contender::spawn(&Spec::new("quitter", "echo 'bad config' >&2; exit 3")).unwrap();
    let t0 = Instant::now();
    let r = c.wait_ready(
        &Probe::Http {
            addr,
            path: "/".into(),
            expect_status: Some(200),
        },
        Duration::from_secs(60),
    );
    assert_eq!(r, Err(NotReady::Exited));
    assert!(t0.elapsed() < Duration::from_secs(30));
    let exit = c.stop();
    assert_eq!(
        exit.outcome,
        Outcome::NeverReady {
            reason: NotReady::Exited
        }
    );
    assert_eq!(exit.termination, Some(Termination::Exited { code: 3 }));
    assert!(exit.stderr_tail.contains("bad config"));
}

#[test]
fn clients_exit_codes_stdout_and_time_budget() {
    let mut spec = Spec::new(
        "client",
        "printf 'hello\\n'; head -c 100000 /dev/zero >&2; echo tail-marker >&2",
    );
    spec.role = Role::Client;
    spec.stdout = StdoutMode::Capture { limit: 1 << 20 };
    spec.stderr_tail = 1024;
    let exit = Contender::spawn(&spec)
        .unwrap()
        .wait(Duration::from_secs(30));
    assert_eq!(exit.outcome, Outcome::Ok, "{exit:?}");
    assert_eq!(exit.stdout, b"hello\n");
    assert_eq!(exit.stdout_bytes, 6);
    assert!(exit.stderr_tail.len() <= 1024);
    assert!(exit.stderr_tail.ends_with("tail-marker\n"));
    assert!(exit.wall > Duration::ZERO);

    let mut spec = Spec::new("failing", "exit 7");
    spec.role = Role::Client;
    let exit = Contender::spawn(&spec)
        .unwrap()
        .wait(Duration::from_secs(30));
    assert_eq!(exit.outcome, Outcome::Exited { code: 7 });

    let mut spec = Spec::new("slow", "sleep 300");
    spec.role = Role::Client;
    spec.grace = Duration::from_millis(500);
    let c = Contender::spawn(&spec).unwrap();
    let pid = c.pid();
    let exit = c.wait(Duration::from_millis(300));
    assert_eq!(
        exit.outcome,
        Outcome::TimeBudgetExceeded {
            budget: Duration::from_millis(300)
        }
    );
    assert!(
        exit.wall >= Duration::from_millis(300) && exit.wall < Duration::from_secs(20),
        "{:?}",
        exit.wall
    );
    assert!(group_members(pid).is_empty());
}

#[test]
fn wait4_rusage_counts_the_cpu_of_waited_children() {
    // Two sequential CPU-bound children of the shell: the leader's wait4 covers both.
    let mut spec = Spec::new(
        "busy",
        "for i in 1 2; do timeout 0.3 sh -c 'while :; do :; done'; done; true",
    );
    spec.role = Role::Client;
    let exit = Contender::spawn(&spec)
        .unwrap()
        .wait(Duration::from_secs(60));
    assert_eq!(exit.outcome, Outcome::Ok, "{exit:?}");
    let cpu = exit.rusage.user + exit.rusage.sys;
    assert!(cpu >= Duration::from_millis(200), "cpu {cpu:?}");
    assert!(exit.rusage.maxrss_bytes > 0);
}

#[test]
fn memory_limit_turns_allocation_failure_into_oom() {
    if !has_python() {
        eprintln!("python3 missing: skipped");
        return;
    }
    let mut spec = Spec::new(
        "hog",
        "exec python3 -c 'x = bytearray(600 * 1024 * 1024); print(len(x))'",
    );
    spec.role = Role::Client;
    spec.memory_limit = Some(200 << 20);
    spec.memory_limit_mode = MemoryLimitMode::Rlimit;
    let exit = Contender::spawn(&spec)
        .unwrap()
        .wait(Duration::from_secs(60));
    assert_eq!(
        exit.memory_limit,
        MemoryLimitApplied::Rlimit { bytes: 200 << 20 }
    );
    assert!(matches!(exit.outcome, Outcome::Oom { .. }), "{exit:?}");
}

#[test]
fn memory_limit_auto_prefers_a_cgroup_and_catches_the_oom_kill() {
    if !has_python() {
        eprintln!("python3 missing: skipped");
        return;
    }
    // Touch 400 MB under a 100 MB limit: under a cgroup the kernel OOM-kills it; under RLIMIT_AS
    // (no writable cgroup) the allocation fails. Either way the outcome is an OOM, and the spec
    // says which limit was used.
    let mut spec = Spec::new(
        "hog",
        "exec python3 -c 'x = b\"x\" * (400 * 1024 * 1024); print(len(x))'",
    );
    spec.role = Role::Client;
    spec.memory_limit = Some(100 << 20);
    let exit = Contender::spawn(&spec)
        .unwrap()
        .wait(Duration::from_secs(60));
    eprintln!(
        "{:?} {:?} {:?}",
        exit.memory_limit, exit.outcome, exit.cgroup_peak_bytes
    );
    assert!(matches!(exit.outcome, Outcome::Oom { .. }), "{exit:?}");
    match &exit.memory_limit {
        MemoryLimitApplied::CgroupV1 { path, .. } | MemoryLimitApplied::CgroupV2 { path, .. } => {
            assert!(
                !std::path::Path::new(path).exists(),
                "cgroup {path} removed"
            );
        }
        MemoryLimitApplied::Rlimit { bytes } => assert_eq!(*bytes, 100 << 20),
        MemoryLimitApplied::None => panic!("a limit was asked for"),
    }
}

#[test]
fn cpu_pinning_applies_to_the_contender() {
    let cpus = barrage_proc::supervise::allowed_cpus();
    let last = *cpus.last().unwrap();
    let mut spec = Spec::new("pinned", "grep Cpus_allowed_list /proc/self/status");
    spec.role = Role::Client;
    spec.cpus = Some(vec![last]);
    spec.stdout = StdoutMode::Capture { limit: 4096 };
    let exit = Contender::spawn(&spec)
        .unwrap()
        .wait(Duration::from_secs(30));
    assert_eq!(exit.outcome, Outcome::Ok);
    let out = String::from_utf8(exit.stdout).unwrap();
    assert_eq!(
        out.split(':').nth(1).unwrap().trim(),
        last.to_string(),
        "{out}"
    );
    spec.cpus = Some(vec![100_000]);
    assert!(Contender::spawn(&spec).is_err());
}

#[test]
fn dropping_a_contender_stops_and_reaps_it() {
    let c = Contender::spawn(&Spec::new("dropped", "sleep 300 & sleep 300")).unwrap();
    let pid = c.pid();
    eventually("two members", Duration::from_secs(10), || {
        group_members(pid).len() >= 2
    });
    drop(c);
    assert!(group_members(pid).is_empty());
    assert!(
        procfs::read_stat(pid).is_none(),
        "leader reaped, not a zombie"
    );
    assert!(!barrage_proc::supervise::live_groups().contains(&pid));
}

#[test]
fn http_probe_waits_for_the_expected_status() {
    if !has_python() {
        eprintln!("python3 missing: skipped");
        return;
    }
    let addr = free_addr();
    let mut spec = Spec::new(
        "http",
        format!(
            "exec python3 -m http.server {} --bind 127.0.0.1",
            addr.port()
        ),
    );
    spec.grace = Duration::from_secs(2);
    spec.dir = std::env::temp_dir();
    let mut c = Contender::spawn(&spec).unwrap();
    let r = c.wait_ready(
        &Probe::Http {
            addr,
            path: "/".into(),
            expect_status: Some(200),
        },
        Duration::from_secs(20),
    );
    assert!(r.is_ok(), "{r:?}");
    let exit = c.stop();
    assert_eq!(exit.outcome, Outcome::Ok);
    // The port is free again.
    TcpListener::bind(addr).expect("port released after stop");
}

#[test]
fn exit_serializes_as_plain_numbers_and_tagged_outcomes() {
    let mut spec = Spec::new("json", "echo out; echo err >&2; exit 4");
    spec.role = Role::Client;
    spec.stdout = StdoutMode::Capture { limit: 16 };
    let exit = Contender::spawn(&spec)
        .unwrap()
        .wait(Duration::from_secs(30));
    let j = serde_json::to_value(&exit).unwrap();
    assert_eq!(j["outcome"]["kind"], "exited");
    assert_eq!(j["outcome"]["code"], 4);
    assert_eq!(j["termination"]["kind"], "exited");
    assert!(j["wall_s"].as_f64().unwrap() > 0.0);
    assert!(j["rusage"]["user_s"].is_number());
    assert_eq!(j["stdout_bytes"], 4);
    assert!(
        j.get("stdout").is_none(),
        "captured stdout stays out of results files"
    );
    assert_eq!(j["stderr_tail"], "err\n");
    assert_eq!(j["memory_limit"]["kind"], "none");
    let back: barrage_proc::supervise::Exit = serde_json::from_value(j).unwrap();
    assert_eq!(back.outcome, Outcome::Exited { code: 4 });
}

/// A daemonizing contender (as nginx without `daemon off`): its command double-forks a busy
/// process into a new session and exits. The daemon left the process group and the tree (it is
/// reparented away), but not its cgroup: it is killed at the end, its CPU is counted, and the
/// outcome says it went to the background.
#[test]
fn a_double_forking_contender_leaves_nothing_behind_and_its_cpu_is_counted() {
    for role in [Role::Client, Role::Server] {
        let pidfile = tmp(&format!("daemon-{role:?}.pid"));
        let _ = std::fs::remove_file(&pidfile);
        // Found by a token in its environment: in a PID namespace the pid it sees is not ours.
        let token = format!(
            "BARRAGE_DAEMON_TOKEN=daemon-{}-{role:?}",
            std::process::id()
        );
        // The subshell starts the daemon in a new session and exits at once (the double fork);
        // the command itself waits until the daemon has burnt ~0.4 s of CPU, then exits 0.
        let cmd = format!(
            "( setsid env {token} sh -c 'echo started > {p}; exec sh -c \"while :; do :; done\"' </dev/null >/dev/null 2>&1 & ); \
             while [ ! -s {p} ]; do sleep 0.01; done; sleep 0.4",
            p = pidfile.display()
        );
        let mut spec = Spec::new("daemonizer", cmd);
        spec.role = role;
        let mut c = Contender::spawn(&spec).unwrap();
        let in_ns = c.in_pid_namespace();
        if c.cgroup_procs().is_none() {
            eprintln!("no cgroup can be made here: containment is not available; skipped");
            return;
        }
        if role == Role::Server {
            // Like nginx's foreground process: it exits before ever being ready.
            let r = c.wait_ready(
                &Probe::Tcp {
                    addr: closed_addr(),
                },
                Duration::from_secs(5),
            );
            assert_eq!(r, Err(NotReady::Exited), "{role:?}");
        }
        let exit = match role {
            Role::Client => c.wait(Duration::from_secs(20)),
            Role::Server => c.stop(),
        };
        let _ = std::fs::remove_file(&pidfile);
        assert_eq!(
            exit.outcome,
            Outcome::Daemonized { processes: 1 },
            "{role:?}: {exit:?}"
        );
        eventually("the daemon is gone", Duration::from_secs(5), || {
            barrage_testkit::processes_with_env(&token).is_empty()
        });
        assert!(
            exit.stop.stragglers_killed >= 1,
            "{role:?}: {:?}",
            exit.stop
        );
        // Its CPU (about 0.4 s of busy loop) is counted by the cgroup; wait4 sees it only in a
        // PID namespace, whose init reaps every process of the namespace.
        let cg = exit.cgroup_cpu.expect("cgroup CPU").as_secs_f64();
        let rusage = (exit.rusage.user + exit.rusage.sys).as_secs_f64();
        assert!(cg >= 0.25, "{role:?}: cgroup CPU {cg}");
        if in_ns {
            assert!(rusage >= 0.25, "{role:?}: rusage {rusage}");
        } else {
            assert!(
                cg > rusage + 0.2,
                "{role:?}: cgroup {cg} vs rusage {rusage}"
            );
        }
    }
}

/// The pid (as barrage sees it) of the process numbered `ns_pid` in the PID namespace whose
/// init is `init`.
fn global_pid(init: i32, ns_pid: i32) -> Option<i32> {
    let ns = std::fs::read_link(format!("/proc/{init}/ns/pid")).ok()?;
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<i32>().ok())
        .find(|pid| {
            std::fs::read_link(format!("/proc/{pid}/ns/pid")).is_ok_and(|n| n == ns)
                && std::fs::read_to_string(format!("/proc/{pid}/status")).is_ok_and(|st| {
                    st.lines()
                        .find_map(|l| l.strip_prefix("NSpid:"))
                        .and_then(|l| l.split_whitespace().last()?.parse::<i32>().ok())
                        == Some(ns_pid)
                })
        })
}

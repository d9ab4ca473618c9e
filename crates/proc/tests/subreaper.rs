//! Containment without a cgroup (no permission, no cgroupfs): barrage becomes the subreaper, so
//! a double-forked daemon reparents to it instead of init, and the stop finds, kills and reaps it.
//! A test binary of its own: the subreaper setting is process-wide. (With a PID namespace, the
//! default as root, the namespace's init adopts orphans instead: supervise_process.rs.)

use std::time::{Duration, Instant};

use barrage_proc::sample::procfs;
use barrage_proc::supervise::{Contender, Outcome, Role, Spec};

fn dead(pid: i32) -> bool {
    match procfs::read_stat(pid) {
        None => true,
        Some(s) => s.state == b'Z' || s.state == b'X',
    }
}

#[test]
fn without_a_cgroup_a_daemon_is_adopted_and_killed() {
    let pidfile =
        std::env::temp_dir().join(format!("barrage-subreaper-{}.pid", std::process::id()));
    let _ = std::fs::remove_file(&pidfile);
    let cmd = format!(
        "( setsid sh -c 'echo $$ > {p}; exec sleep 300' </dev/null >/dev/null 2>&1 & ); \
         while [ ! -s {p} ]; do sleep 0.01; done",
        p = pidfile.display()
    );
    let mut spec = Spec::new("daemonizer", cmd);
    spec.role = Role::Client;
    spec.cgroup = false;
    // The last resort, without a PID namespace either (no CAP_SYS_ADMIN).
    spec.pid_namespace = false;
    let c = Contender::spawn(&spec).unwrap();
    assert!(c.cgroup_procs().is_none());
    let exit = c.wait(Duration::from_secs(20));
    let daemon: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let _ = std::fs::remove_file(&pidfile);
    assert_eq!(
        exit.outcome,
        Outcome::Daemonized { processes: 1 },
        "{exit:?}"
    );
    let end = Instant::now() + Duration::from_secs(5);
    while !dead(daemon) {
        assert!(Instant::now() < end, "the daemon {daemon} is still running");
        std::thread::sleep(Duration::from_millis(10));
    }
    // Reaped too, not left a zombie: its pid is gone from /proc.
    assert!(procfs::read_stat(daemon).is_none(), "left a zombie");
    assert!(exit.cgroup_cpu.is_none());
}

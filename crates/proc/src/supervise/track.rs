//! The contender's own cgroup, for containment and exact accounting: every process it starts
//! stays in it whatever it does (double-fork, `setsid`, reparenting to init), so stopping can kill
//! them all, and the cgroup's CPU counter covers every process that ran there.
//!
//! cgroup v2: a child of barrage's own cgroup (the memory-limit cgroup when there is one, since v2
//! has one hierarchy). cgroup v1: a child in the `cpuacct` hierarchy (`cpuacct.usage`), beside the
//! memory cgroup of a limit. Where none can be made (no permission, no cgroupfs) barrage is the
//! subreaper of the contender's orphans instead (`signals::become_subreaper`).

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

static SEQ: AtomicU32 = AtomicU32::new(0);

/// A tracking cgroup.
#[derive(Debug)]
pub(super) struct Track {
    dir: PathBuf,
    v2: bool,
    /// Removed on cleanup (a v2 memory cgroup shared with the limit is removed by it).
    owned: bool,
}

/// Our own cgroup path in the hierarchy whose controllers include `ctrl` (v1), or in the unified
/// hierarchy (`ctrl` empty).
pub(super) fn own_cgroup(ctrl: &str) -> Option<String> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    text.lines().find_map(|l| {
        let mut f = l.splitn(3, ':');
        let (_, ctrls, path) = (f.next()?, f.next()?, f.next()?);
        let ok = if ctrl.is_empty() {
            ctrls.is_empty()
        } else {
            ctrls.split(',').any(|c| c == ctrl)
        };
        ok.then(|| path.to_string())
    })
}

/// Whether the machine has the unified (v2) hierarchy at /sys/fs/cgroup.
pub(super) fn is_v2() -> bool {
    Path::new("/sys/fs/cgroup/cgroup.controllers").exists()
}

impl Track {
    /// A new tracking cgroup, or `None` where none can be made.
    pub(super) fn create() -> Option<Track> {
        let name = format!(
            "barrage-track-{}-{}",
            super::sweep::owner_tag(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        );
        let root = Path::new("/sys/fs/cgroup");
        let (base, v2) = if is_v2() {
            (root.join(own_cgroup("")?.trim_start_matches('/')), true)
        } else {
            let own = own_cgroup("cpuacct")?;
            (
                root.join("cpuacct").join(own.trim_start_matches('/')),
                false,
            )
        };
        let dir = base.join(name);
        std::fs::create_dir(&dir).ok()?;
        super::sweep::record(&dir);
        // A directory made on a plain tmpfs (no cgroupfs) has no procs file: not a cgroup.
        if !dir.join("cgroup.procs").exists() {
            let _ = std::fs::remove_dir(&dir);
            return None;
        }
        Some(Track {
            dir,
            v2,
            owned: true,
        })
    }

    /// The memory-limit cgroup of a v2 machine, which is also where tracking happens.
    pub(super) fn shared_v2(dir: PathBuf) -> Track {
        Track {
            dir,
            v2: true,
            owned: false,
        }
    }

    pub(super) fn dir(&self) -> &Path {
        &self.dir
    }

    /// `cgroup.procs` as a C string, for the child's pre-exec hook.
    pub(super) fn procs_cstring(&self) -> Option<CString> {
        CString::new(
            self.dir
                .join("cgroup.procs")
                .into_os_string()
                .into_encoded_bytes(),
        )
        .ok()
    }

    /// The processes in the cgroup now.
    pub(super) fn pids(&self) -> Vec<i32> {
        std::fs::read_to_string(self.dir.join("cgroup.procs"))
            .map(|t| t.lines().filter_map(|l| l.trim().parse().ok()).collect())
            .unwrap_or_default()
    }

    /// Processes other than `leader` still alive in the cgroup after waiting up to `grace` for
    /// them to end on their own (a helper such as a resource tracker exits just after its parent;
    /// a daemon does not).
    pub(super) fn still_running(&self, leader: i32, grace: Duration) -> u32 {
        let end = Instant::now() + grace;
        loop {
            let n = self
                .pids()
                .into_iter()
                .filter(|p| *p != leader && !super::signals::is_zombie(*p))
                .count() as u32;
            if n == 0 || Instant::now() >= end {
                return n;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// CPU time of every process that ran in the cgroup (v2 `cpu.stat` usage_usec, v1
    /// `cpuacct.usage` in ns).
    pub(super) fn cpu(&self) -> Option<Duration> {
        if self.v2 {
            let text = std::fs::read_to_string(self.dir.join("cpu.stat")).ok()?;
            let us: u64 = text
                .lines()
                .find_map(|l| l.strip_prefix("usage_usec ")?.trim().parse().ok())?;
            Some(Duration::from_micros(us))
        } else {
            let ns: u64 = std::fs::read_to_string(self.dir.join("cpuacct.usage"))
                .ok()?
                .trim()
                .parse()
                .ok()?;
            Some(Duration::from_nanos(ns))
        }
    }

    /// SIGKILLs every process in the cgroup until it is empty (a process may fork while being
    /// killed, so the list is read again) or `within` passes. Returns how many were killed.
    pub(super) fn kill_all(&self, within: Duration) -> u32 {
        let end = Instant::now() + within;
        let mut killed = 0;
        loop {
            let pids = self.pids();
            if pids.is_empty() || Instant::now() >= end {
                return killed;
            }
            for p in pids {
                // SAFETY: kill has no memory-safety preconditions.
                if unsafe { libc::kill(p, libc::SIGKILL) } == 0 {
                    killed += 1;
                }
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Removes the cgroup once empty.
    pub(super) fn cleanup(&self) {
        if !self.owned {
            return;
        }
        for _ in 0..50 {
            if std::fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

//! Turning how a contender ended into an [`Outcome`].
//!
//! OOM is claimed only where the kernel says so, and says what it is based on: exact when the
//! contender's memory cgroup counted an OOM kill; a SIGKILL that barrage did not send while the
//! kernel's own count of OOM kills (`/proc/vmstat` `oom_kill`, machine-wide) rose during the
//! contender's life (a SIGKILL from anyone else is a crash by SIGKILL); or a failure (non-zero exit or abort) whose stderr tail carries an out-of-memory
//! message, which is how allocation failures under `RLIMIT_AS` surface (Rust "memory allocation
//! of N bytes failed", C++ `std::bad_alloc`, Python `MemoryError`, Go "out of memory", Node "heap
//! out of memory", Java `OutOfMemoryError`). A shell reports a command killed by signal N as exit
//! code 128 + N, so such codes are read as that signal.

use super::signals::signal_name;
use super::{NotReady, Outcome, Role, Termination};

pub(super) struct Facts<'a> {
    pub role: Role,
    pub forced: Option<Outcome>,
    pub not_ready: Option<NotReady>,
    pub interrupted: bool,
    pub termination: Option<Termination>,
    /// The leader had exited before barrage began stopping it.
    pub exited_before_stop: bool,
    pub memory_limit: Option<u64>,
    pub maxrss: u64,
    pub cgroup_peak: Option<u64>,
    pub cgroup_oom_kills: Option<u64>,
    /// How much the kernel's machine-wide OOM kill count rose while the contender lived.
    pub kernel_oom_kills: Option<u64>,
    pub stderr_tail: &'a str,
    /// Processes still in the contender's cgroup when its leader had exited on its own.
    pub left_behind: u32,
}

/// The kernel's count of OOM kills since boot (`oom_kill` in /proc/vmstat, Linux 4.13+).
pub(super) fn kernel_oom_kills() -> Option<u64> {
    std::fs::read_to_string("/proc/vmstat")
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("oom_kill ")?.trim().parse().ok())
}

const OOM_PATTERNS: &[&str] = &[
    "out of memory",
    "memory allocation of",
    "cannot allocate memory",
    "bad_alloc",
    "memoryerror",
    "outofmemoryerror",
    "failed to allocate",
    "allocation failed",
    "enomem",
];

fn oom_message(stderr: &str) -> Option<&'static str> {
    let low = stderr.to_ascii_lowercase();
    OOM_PATTERNS.iter().copied().find(|p| low.contains(p))
}

pub(super) fn classify(f: &Facts) -> Outcome {
    if let Some(o) = &f.forced {
        return o.clone();
    }
    if f.interrupted {
        return Outcome::Interrupted;
    }
    let clean_exit = matches!(f.termination, Some(Termination::Exited { code: 0 }));
    if f.exited_before_stop && clean_exit && f.left_behind > 0 {
        // The command returned success while its work went on in the background. (A crash or a
        // failing exit is reported as such; what it left behind is killed all the same.)
        return Outcome::Daemonized {
            processes: f.left_behind,
        };
    }
    if let Some(r) = &f.not_ready {
        return Outcome::NeverReady { reason: r.clone() };
    }
    if let Some(n) = f.cgroup_oom_kills.filter(|n| *n > 0) {
        return Outcome::Oom {
            evidence: format!("the memory cgroup counted {n} OOM kill(s)"),
        };
    }
    if f.role == Role::Server && !f.exited_before_stop {
        // Running until we stopped it: how it reacted to the stop is recorded in StopInfo.
        return Outcome::Ok;
    }
    let Some(term) = f.termination else {
        return Outcome::Exited { code: -1 };
    };
    let (code, signal) = match term {
        Termination::Exited { code } if (129..=192).contains(&code) => {
            (Some(code), Some(code - 128))
        }
        Termination::Exited { code } => (Some(code), None),
        Termination::Signaled { signal, .. } => (None, Some(signal)),
    };
    let near_limit = |what: &str| -> String {
        match f.memory_limit {
            Some(lim) => {
                let used = f.cgroup_peak.unwrap_or(f.maxrss);
                format!("{what}; memory limit {lim} bytes, peak seen {used} bytes")
            }
            None => what.to_string(),
        }
    };
    if let Some(sig) = signal {
        // Signals barrage sent: the stop signal, and SIGKILL after the grace.
        let ours = !f.exited_before_stop;
        if sig == libc::SIGKILL && !ours {
            if let Some(n) = f.kernel_oom_kills.filter(|n| *n > 0) {
                return Outcome::Oom {
                    evidence: near_limit(&format!(
                        "killed by SIGKILL that barrage did not send while the kernel counted \
                         {n} OOM kill(s) (/proc/vmstat oom_kill, machine-wide)"
                    )),
                };
            }
        }
        if let Some(m) = oom_message(f.stderr_tail) {
            return Outcome::Oom {
                evidence: near_limit(&format!("{} with \"{m}\" on stderr", signal_name(sig))),
            };
        }
        return Outcome::Crashed {
            signal: sig,
            name: signal_name(sig),
        };
    }
    match code {
        Some(0) if f.role == Role::Client => Outcome::Ok,
        Some(c) => {
            if c != 0 {
                if let Some(m) = oom_message(f.stderr_tail) {
                    return Outcome::Oom {
                        evidence: near_limit(&format!("exit code {c} with \"{m}\" on stderr")),
                    };
                }
            }
            Outcome::Exited { code: c }
        }
        None => Outcome::Exited { code: -1 },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(role: Role, term: Termination, before_stop: bool, stderr: &str) -> Facts<'_> {
        Facts {
            role,
            forced: None,
            not_ready: None,
            interrupted: false,
            termination: Some(term),
            exited_before_stop: before_stop,
            memory_limit: None,
            maxrss: 0,
            cgroup_peak: None,
            cgroup_oom_kills: None,
            kernel_oom_kills: Some(0),
            stderr_tail: stderr,
            left_behind: 0,
        }
    }

    #[test]
    fn table() {
        use Termination::*;
        let seg = Signaled {
            signal: libc::SIGSEGV,
            core_dumped: false,
        };
        let kill = Signaled {
            signal: libc::SIGKILL,
            core_dumped: false,
        };
        let abrt = Signaled {
            signal: libc::SIGABRT,
            core_dumped: false,
        };
        let cases: Vec<(Facts, &str)> = vec![
            (facts(Role::Client, Exited { code: 0 }, true, ""), "ok"),
            (facts(Role::Client, Exited { code: 3 }, true, ""), "exited"),
            (
                facts(
                    Role::Client,
                    Exited { code: 1 },
                    true,
                    "Traceback...\nMemoryError\n",
                ),
                "oom",
            ),
            (facts(Role::Client, seg, true, ""), "crashed"),
            (
                facts(Role::Client, Exited { code: 139 }, true, ""),
                "crashed",
            ),
            // A SIGKILL nobody can tie to the OOM killer (the kernel's count did not move) is a
            // crash by SIGKILL, not an OOM.
            (facts(Role::Client, kill, true, ""), "crashed"),
            (
                facts(Role::Client, Exited { code: 137 }, true, ""),
                "crashed",
            ),
            (facts(Role::Server, kill, true, ""), "crashed"),
            (
                facts(
                    Role::Client,
                    abrt,
                    true,
                    "memory allocation of 1073741824 bytes failed",
                ),
                "oom",
            ),
            (facts(Role::Server, Exited { code: 0 }, false, ""), "ok"),
            (
                facts(
                    Role::Server,
                    Signaled {
                        signal: libc::SIGTERM,
                        core_dumped: false,
                    },
                    false,
                    "",
                ),
                "ok",
            ),
            (facts(Role::Server, Exited { code: 0 }, true, ""), "exited"),
            (facts(Role::Server, seg, true, ""), "crashed"),
        ];
        for (f, want) in cases {
            let o = classify(&f);
            let got = serde_json::to_value(&o).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_string();
            assert_eq!(got, want, "{:?} -> {o:?}", f.termination);
        }
        for term in [kill, Exited { code: 137 }] {
            let mut f = facts(Role::Client, term, true, "");
            f.kernel_oom_kills = Some(2);
            match classify(&f) {
                Outcome::Oom { evidence } => {
                    assert!(evidence.contains("counted 2 OOM"), "{evidence}")
                }
                o => panic!("{o:?}"),
            }
            // Unknown (no /proc/vmstat): no claim either.
            f.kernel_oom_kills = None;
            assert!(matches!(classify(&f), Outcome::Crashed { .. }));
        }
        let mut f = facts(Role::Server, Exited { code: 0 }, false, "");
        f.cgroup_oom_kills = Some(1);
        assert!(matches!(classify(&f), Outcome::Oom { .. }));
        let mut f = facts(Role::Client, Exited { code: 0 }, true, "");
        f.forced = Some(Outcome::Interrupted);
        assert_eq!(classify(&f), Outcome::Interrupted);
    }
}

//! Process supervision of contenders (Linux only).
//!
//! A contender is started as `sh -c <command>` in its own process group, optionally pinned to CPUs
//! and memory-limited, with stdout captured (bounded) and a bounded tail of stderr, both drained by
//! threads so the child never blocks on a full pipe. It is always stopped and reaped: the stop
//! signal goes to the whole group, then SIGKILL after a grace, then `wait4` — on [`Contender::stop`],
//! on [`Contender::wait`] when the time budget runs out, on drop, and on Ctrl-C through
//! [`install_interrupt_cleanup`]. Descendants that left the group (setsid, daemons) are found
//! through the process tree and killed as well; and every contender has a cgroup of its own
//! (`track`), so a double-forked daemon that left both the group and the tree is still found,
//! killed, and its CPU counted.
//!
//! Orphan-proofing when barrage itself is SIGKILLed (no cleanup code can run then): the leader
//! gets `PR_SET_PDEATHSIG(SIGKILL)`, so it dies with barrage. Two limits: the death signal is tied
//! to the *thread* that spawned the contender (spawn from a thread that outlives the contender,
//! such as the runner's main thread, not from a short-lived helper thread), and it does not reach
//! the leader's own children, which a `kill -9` of barrage can still orphan.
//!
//! What the resource totals measure: [`Rusage`] comes from `wait4` on the group leader (the `sh`),
//! which covers the leader itself plus every descendant that was reaped by a waited-for process of
//! the tree (a shell waits for its commands, so `sh -c 'a; b'` is fully covered). Descendants that
//! were orphaned and reaped by init, or children of a process ignoring SIGCHLD, are not included;
//! the sampler (see [`crate::sample`]) still sees them while they live. `maxrss` is the maximum over
//! those processes, not a sum: the tree's summed peak comes from the sampler.

mod capture;
mod classify;
mod contain;
mod interrupt;
mod limits;
mod ready;
mod signals;
mod spec;
mod sweep;
mod track;

use std::io;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub use interrupt::{
    install_interrupt_cleanup, interrupted, live_groups, on_interrupt, CLEANUP_GRACE,
};
pub use limits::{allowed_cpus, find_command, pin_current_thread};
pub use ready::probe_once;
pub use signals::group_members;
pub use signals::{parse_signal, signal_name};
pub use spec::{MemoryLimitMode, Probe, Role, Spec, StdoutMode, SuperviseError};
pub use sweep::{sweep_dead_runs, Swept};

pub use barrage_model::process::{
    Exit, MemoryLimitApplied, NotReady, Outcome, Rusage, StopInfo, Termination,
};

/// A running contender. Dropping it stops and reaps it.
pub struct Contender {
    spec: Spec,
    pid: i32,
    spawned_at: Instant,
    exited_at: Option<Instant>,
    reaped: Option<(Termination, Rusage)>,
    pidfd: Option<std::os::fd::OwnedFd>,
    stdout: Option<capture::Reader>,
    stderr: Option<capture::Reader>,
    limit: limits::Applied,
    not_ready: Option<NotReady>,
    registered: bool,
    finished: bool,
    /// The contender's own cgroup (containment and exact CPU), when one could be made.
    track: Option<track::Track>,
    /// The leader's start time (clock ticks since boot): processes adopted later are its orphans.
    spawned_at_ticks: u64,
    /// The report of the init of the contender's PID namespace, when it has one.
    report: Option<contain::Report>,
    /// The kernel's count of OOM kills (`/proc/vmstat` `oom_kill`) when the contender started.
    oom_kills_at_spawn: Option<u64>,
}

impl Contender {
    /// Start the contender. On success it is registered for interrupt cleanup.
    pub fn spawn(spec: &Spec) -> Result<Contender, SuperviseError> {
        let limit = limits::prepare(spec)?;
        let cpu_set = match &spec.cpus {
            Some(cpus) => Some(limits::cpu_set(cpus)?),
            None => None,
        };
        // From here to the spawn, this thread's next child starts a PID namespace (see contain).
        let pidns = if spec.pid_namespace {
            contain::begin()
        } else {
            None
        };
        let mut cmd = match &pidns {
            Some(ns) => {
                let (program, args) = ns.argv(&spec.command);
                let mut c = Command::new(program);
                c.arg0("barrage-init").args(args);
                c
            }
            None => {
                let mut c = Command::new("/bin/sh");
                c.arg("-c").arg(&spec.command);
                c
            }
        };
        let report_fd = pidns.as_ref().map(|ns| ns.report_fd());
        let lifeline = contain::lifeline();
        cmd.current_dir(&spec.dir)
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        // SAFETY: getpid has no preconditions.
        let parent = unsafe { libc::getpid() };
        let rlimit_as = limit.rlimit_bytes();
        // Every process of the contender stays in its own cgroup, whatever it does (see track).
        let track = match limit.v2_cgroup_dir() {
            Some(dir) => Some(track::Track::shared_v2(dir)),
            None if spec.cgroup => track::Track::create(),
            None => None,
        };
        if track.is_none() {
            // No cgroup: orphans of the contender (a double-forked daemon) reparent to barrage
            // rather than to init, so the stop can still find, kill and reap them.
            signals::become_subreaper();
        }
        let cgroup_procs: Vec<std::ffi::CString> = limit
            .procs_path_cstring()
            .into_iter()
            .chain(track.as_ref().and_then(|t| t.procs_cstring()))
            .fold(Vec::new(), |mut v, p| {
                if !v.contains(&p) {
                    v.push(p);
                }
                v
            });
        // SAFETY: the closure runs between fork and exec and only makes async-signal-safe system
        // calls on data prepared before the fork (no allocation, no locks).
        unsafe {
            cmd.pre_exec(move || {
                // Die with barrage even if barrage is SIGKILLed (no orphan). Note: the signal is
                // tied to the *thread* that spawned us, so spawn from a long-lived thread.
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // barrage died between fork and prctl? (The namespace's init sees its parent,
                // outside the namespace, as pid 0: it asks the lifeline instead.)
                let orphaned = match report_fd {
                    None => libc::getppid() != parent,
                    Some(_) => contain::barrage_gone(lifeline),
                };
                if orphaned {
                    libc::_exit(137);
                }
                if let Some(fd) = report_fd {
                    // The init writes its report here: inherited across exec.
                    if libc::fcntl(fd, libc::F_SETFD, 0) != 0 {
                        return Err(io::Error::last_os_error());
                    }
                }
                if let Some(set) = &cpu_set {
                    if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) != 0
                    {
                        return Err(io::Error::last_os_error());
                    }
                }
                for path in &cgroup_procs {
                    // Writing "0" to cgroup.procs moves the writing process itself.
                    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                    if fd < 0 {
                        return Err(io::Error::last_os_error());
                    }
                    let ok = libc::write(fd, b"0".as_ptr().cast(), 1) == 1;
                    libc::close(fd);
                    if !ok {
                        return Err(io::Error::last_os_error());
                    }
                }
                if let Some(bytes) = rlimit_as {
                    let lim = libc::rlimit {
                        rlim_cur: bytes,
                        rlim_max: bytes,
                    };
                    if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                        return Err(io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        // Registration must not race with an interrupt: hold the registry while spawning so the
        // cleanup thread either sees the new group or runs before it exists.
        let guard = interrupt::spawn_guard();
        let oom_kills_at_spawn = classify::kernel_oom_kills();
        let spawned = cmd.spawn();
        // The thread goes back to its own PID namespace before anything else it does.
        let report = pidns.map(contain::Pending::spawned);
        let mut child = match spawned {
            Ok(c) => c,
            Err(source) => {
                if let Some(t) = &track {
                    t.cleanup();
                }
                return Err(SuperviseError::Spawn {
                    command: spec.command.clone(),
                    source,
                });
            }
        };
        let pid = child.id() as i32;
        let registered = interrupt::register(&guard, pid);
        drop(guard);
        let spawned_at = Instant::now();
        let stdout_limit = match spec.stdout {
            StdoutMode::Discard => capture::Keep::Head(0),
            StdoutMode::Capture { limit } => capture::Keep::Head(limit),
        };
        let stdout = child
            .stdout
            .take()
            .map(|p| capture::Reader::start(p, stdout_limit));
        let stderr = child
            .stderr
            .take()
            .map(|p| capture::Reader::start(p, capture::Keep::Tail(spec.stderr_tail)));
        // The std Child is dropped without waiting: we reap with wait4 ourselves for the rusage.
        drop(child);
        let pidfd = signals::pidfd_open(pid);
        Ok(Contender {
            spec: spec.clone(),
            pid,
            spawned_at,
            exited_at: None,
            reaped: None,
            pidfd,
            stdout,
            stderr,
            limit,
            not_ready: None,
            registered,
            finished: false,
            track,
            spawned_at_ticks: crate::sample::procfs::read_stat(pid).map_or(0, |s| s.starttime),
            report,
            oom_kills_at_spawn,
        })
    }

    /// `cgroup.procs` of the contender's own cgroup, when it has one (for the sampler: every
    /// process in it belongs to the tree, daemons included).
    pub fn cgroup_procs(&self) -> Option<PathBuf> {
        self.track.as_ref().map(|t| t.dir().join("cgroup.procs"))
    }

    /// Whether the contender runs in a PID namespace of its own (its leader is then
    /// `barrage-init`, the namespace's PID 1, and `sh -c COMMAND` its child).
    pub fn in_pid_namespace(&self) -> bool {
        self.report.is_some()
    }

    /// The group leader's pid (also the process group id).
    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// When the process was spawned.
    pub fn spawned_at(&self) -> Instant {
        self.spawned_at
    }

    /// The memory limit that was applied.
    pub fn memory_limit(&self) -> MemoryLimitApplied {
        self.limit.applied()
    }

    /// Whether the leader has exited. It is not reaped yet (that happens in [`Contender::stop`] or
    /// [`Contender::wait`]), so its pid, which is also the process group id, stays reserved while
    /// the rest of the group is killed.
    pub fn has_exited(&mut self) -> bool {
        if self.reaped.is_some() {
            return true;
        }
        // In a PID namespace the command ended when its init says so (the init itself ends up
        // to half a second later, once it has dealt with what the command left).
        let ended = self
            .report
            .as_mut()
            .is_some_and(|r| r.command_ended().is_some());
        if ended || signals::exited_nowait(self.pid) {
            self.exited_at.get_or_insert_with(Instant::now);
            return true;
        }
        false
    }

    /// Probe until ready, the timeout passes, the contender exits, or barrage is interrupted.
    /// Returns the time from spawn to ready. On failure the contender keeps running until
    /// [`Contender::stop`], whose outcome is then [`Outcome::NeverReady`].
    pub fn wait_ready(&mut self, probe: &Probe, timeout: Duration) -> Result<Duration, NotReady> {
        let res = ready::wait(self, probe, timeout);
        if let Err(e) = &res {
            self.not_ready = Some(e.clone());
        }
        res
    }

    /// For clients: wait for the contender to exit on its own within `budget` (counted from
    /// spawn); past it, stop the group and classify as [`Outcome::TimeBudgetExceeded`].
    pub fn wait(mut self, budget: Duration) -> Exit {
        let deadline = self.spawned_at + budget;
        loop {
            if self.has_exited() {
                return self.finish(None);
            }
            if interrupted() {
                return self.finish(Some(Outcome::Interrupted));
            }
            let now = Instant::now();
            if now >= deadline {
                return self.finish(Some(Outcome::TimeBudgetExceeded { budget }));
            }
            // Wake on exit (pidfd), on the deadline, or every 50 ms to notice an interrupt.
            let step = (deadline - now).min(Duration::from_millis(50));
            self.wait_exit_for(step);
        }
    }

    /// Stop the group (stop signal, SIGKILL after the grace), reap, and classify.
    pub fn stop(mut self) -> Exit {
        self.finish(None)
    }

    /// Block up to `d` or until the leader exits, without reaping.
    fn wait_exit_for(&mut self, d: Duration) {
        if self.reaped.is_some() {
            return;
        }
        match &self.pidfd {
            Some(fd) => signals::poll_readable(fd, self.report.as_ref().map(|r| r.fd()), d),
            None => {
                // No pidfd (old kernel): poll without reaping.
                let end = Instant::now() + d;
                while Instant::now() < end && !signals::exited_nowait(self.pid) {
                    std::thread::sleep(Duration::from_millis(2));
                }
            }
        }
        self.has_exited();
    }

    /// In a PID namespace, once the command ended: waits (bounded) for the init to finish with
    /// what the command left, so its count and its rusage are complete.
    fn await_init(&mut self) {
        if self.report.is_none() {
            return;
        }
        let end = Instant::now() + Duration::from_secs(5);
        while !signals::exited_nowait(self.pid) && Instant::now() < end {
            match &self.pidfd {
                Some(fd) => signals::poll_readable(fd, None, end - Instant::now()),
                None => std::thread::sleep(Duration::from_millis(2)),
            }
        }
    }

    /// The single path to the end: stop if needed, reap, drain pipes, classify.
    fn finish(&mut self, forced: Option<Outcome>) -> Exit {
        self.finished = true;
        let mut stop = StopInfo::default();
        let exited_before_stop = self.has_exited();
        if exited_before_stop {
            self.await_init();
        }
        // The namespace's init reports the command's status and what it left.
        let mut reported = match exited_before_stop {
            true => self.report.as_mut().and_then(|r| r.done()),
            false => None,
        };
        // A leader that exited on its own with processes still in its cgroup went to the
        // background; they are counted here, before anything is killed (in a namespace, by its
        // init, which then ended them with the namespace).
        let left_behind = match (&self.track, exited_before_stop) {
            _ if reported.is_some() => reported.map_or(0, |r| r.left),
            (Some(t), true) => t.still_running(self.pid, Duration::from_millis(500)),
            (None, true) => signals::adopted_since(self.spawned_at_ticks)
                .into_iter()
                .chain(signals::descendants(self.pid))
                .filter(|(p, _)| !signals::is_zombie(*p))
                .count() as u32,
            _ => 0,
        };
        // Collect the tree before signalling so descendants that left the group still get killed.
        let tree = signals::descendants(self.pid);
        if !exited_before_stop {
            stop.signal_sent = true;
            signals::kill_group(self.pid, self.spec.stop_signal);
            self.wait_exit_for(self.spec.grace);
            if self.has_exited() {
                self.await_init();
            } else {
                stop.killed_after_grace = true;
            }
        }
        // SIGKILL whatever is left of the group and tree, even after a clean leader exit: a
        // backgrounded grandchild must not outlive the trial (it could hold the port).
        let leftover = signals::kill_group(self.pid, libc::SIGKILL) as u32;
        let mut tree_left = 0;
        for p in &tree {
            if signals::kill_pid_if_alive(*p) {
                tree_left += 1;
            }
        }
        if self.reaped.is_none() {
            if let Some(r) = signals::wait4(self.pid, true) {
                self.exited_at.get_or_insert_with(Instant::now);
                self.reaped = Some(r);
            }
        }
        stop.stragglers_killed = if exited_before_stop || stop.killed_after_grace {
            leftover + tree_left
        } else {
            tree_left
        };
        signals::await_group_gone(self.pid, Duration::from_secs(2));
        // Whatever left the group and the tree (double-forked daemons) is still in the cgroup,
        // or, without one, was adopted by barrage as subreaper.
        match &self.track {
            Some(t) => stop.stragglers_killed += t.kill_all(Duration::from_secs(2)),
            None => stop.stragglers_killed += signals::kill_adopted(self.spawned_at_ticks),
        }
        if reported.is_none() {
            reported = self.report.as_mut().and_then(|r| r.done());
        }
        // What the init found still running when the command ended died with the namespace.
        stop.stragglers_killed += reported.map_or(0, |r| r.left);
        let cgroup_cpu = self.track.as_ref().and_then(|t| t.cpu());
        if self.registered {
            interrupt::unregister(self.pid);
            self.registered = false;
        }
        let (stdout, stdout_bytes, stdout_truncated) = match self.stdout.take() {
            Some(r) => r.finish(),
            None => (Vec::new(), 0, false),
        };
        let (stderr, _, _) = match self.stderr.take() {
            Some(r) => r.finish(),
            None => (Vec::new(), 0, false),
        };
        let stderr_tail = String::from_utf8_lossy(&stderr).into_owned();
        let (termination, rusage) = match self.reaped {
            // The init exits with the command's code (128 + N for a signal): its report has the
            // exact status.
            Some((t, r)) => (Some(reported.map_or(t, |rep| rep.termination)), r),
            None => (None, Rusage::default()),
        };
        let cgroup_oom = self.limit.oom_kills();
        let kernel_oom_kills = match (self.oom_kills_at_spawn, classify::kernel_oom_kills()) {
            (Some(a), Some(b)) => Some(b.saturating_sub(a)),
            _ => None,
        };
        let cgroup_peak_bytes = self.limit.peak_bytes();
        let outcome = classify::classify(&classify::Facts {
            role: self.spec.role,
            forced,
            not_ready: self.not_ready.clone(),
            interrupted: interrupted(),
            termination,
            exited_before_stop,
            memory_limit: self.spec.memory_limit,
            maxrss: rusage.maxrss_bytes,
            cgroup_peak: cgroup_peak_bytes,
            cgroup_oom_kills: cgroup_oom,
            kernel_oom_kills,
            stderr_tail: &stderr_tail,
            left_behind,
        });
        self.limit.cleanup();
        if let Some(t) = &self.track {
            t.cleanup();
        }
        let exited_at = self.exited_at;
        Exit {
            outcome,
            termination,
            wall: exited_at.unwrap_or_else(Instant::now) - self.spawned_at,
            rusage,
            stdout,
            stdout_bytes,
            stdout_truncated,
            stderr_tail,
            stop,
            memory_limit: self.limit.applied(),
            cgroup_peak_bytes,
            cgroup_cpu,
            spawned_at: Some(self.spawned_at),
            exited_at,
        }
    }
}

impl Drop for Contender {
    fn drop(&mut self) {
        if !self.finished {
            // Not finished through stop()/wait(): make sure nothing is left behind.
            let _ = self.finish(None);
        }
    }
}

//! Thin wrappers over the process system calls the supervisor needs: signal names, pidfds,
//! non-reaping exit checks, `wait4` with rusage, group and tree scans under /proc.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

use super::{Rusage, Termination};
use crate::sample::procfs;

const SIGNALS: &[(&str, i32)] = &[
    ("HUP", libc::SIGHUP),
    ("INT", libc::SIGINT),
    ("QUIT", libc::SIGQUIT),
    ("ILL", libc::SIGILL),
    ("TRAP", libc::SIGTRAP),
    ("ABRT", libc::SIGABRT),
    ("BUS", libc::SIGBUS),
    ("FPE", libc::SIGFPE),
    ("KILL", libc::SIGKILL),
    ("USR1", libc::SIGUSR1),
    ("SEGV", libc::SIGSEGV),
    ("USR2", libc::SIGUSR2),
    ("PIPE", libc::SIGPIPE),
    ("ALRM", libc::SIGALRM),
    ("TERM", libc::SIGTERM),
    ("CHLD", libc::SIGCHLD),
    ("CONT", libc::SIGCONT),
    ("STOP", libc::SIGSTOP),
    ("TSTP", libc::SIGTSTP),
    ("XCPU", libc::SIGXCPU),
    ("XFSZ", libc::SIGXFSZ),
    ("SYS", libc::SIGSYS),
    ("WINCH", libc::SIGWINCH),
];

/// Parse a signal given as `TERM`, `SIGTERM`, `sigterm` or `15`.
pub fn parse_signal(s: &str) -> Option<i32> {
    let s = s.trim();
    if let Ok(n) = s.parse::<i32>() {
        return (1..=64).contains(&n).then_some(n);
    }
    let up = s.to_ascii_uppercase();
    let name = up.strip_prefix("SIG").unwrap_or(&up);
    SIGNALS.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
}

/// `SIGTERM` for 15, `SIG42` for unnamed ones.
pub fn signal_name(sig: i32) -> String {
    match SIGNALS.iter().find(|(_, v)| *v == sig) {
        Some((n, _)) => format!("SIG{n}"),
        None => format!("SIG{sig}"),
    }
}

/// `pidfd_open(2)` (Linux 5.3+); `None` when unsupported.
pub(super) fn pidfd_open(pid: i32) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes integers only; the fd it returns is checked before use.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        None
    } else {
        // SAFETY: fd was just returned by pidfd_open, is valid (fd >= 0) and owned by nothing else.
        Some(unsafe { OwnedFd::from_raw_fd(fd as i32) })
    }
}

/// Wait until the fd is readable (a pidfd is readable once the process exits), or `also` is,
/// or `d` passes.
pub(super) fn poll_readable(fd: &OwnedFd, also: Option<i32>, d: Duration) {
    let mut p = [fd.as_raw_fd(), also.unwrap_or(-1)].map(|fd| libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    });
    let ms = d.as_millis().min(i32::MAX as u128) as i32;
    // EINTR just ends the wait early; callers loop. (A negative fd is ignored by poll.)
    // SAFETY: two valid pollfd entries.
    unsafe { libc::poll(p.as_mut_ptr(), 2, ms.max(if d.is_zero() { 0 } else { 1 })) };
}

/// Whether `pid` (our child) has exited, without reaping it (so its pid, and thus its process
/// group id, cannot be reused while we still signal the group). Also true if already reaped.
pub(super) fn exited_nowait(pid: i32) -> bool {
    // SAFETY: siginfo_t is plain old data; all-zero is what waitid expects to find si_pid 0 in.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: waitid writes one siginfo_t into info, a live local; WNOWAIT leaves the child unreaped.
    let r = unsafe {
        libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        )
    };
    if r != 0 {
        return true; // ECHILD: no such child any more
    }
    // SAFETY: info was zeroed and then filled by waitid for a child event, whose si_pid field is valid.
    unsafe { info.si_pid() != 0 }
}

fn tv(t: libc::timeval) -> Duration {
    Duration::new(t.tv_sec.max(0) as u64, (t.tv_usec.max(0) as u32) * 1000)
}

/// A wait status (`wait4`'s, or the one barrage-init reports) as a termination.
pub(super) fn termination(status: i32) -> Termination {
    if libc::WIFSIGNALED(status) {
        Termination::Signaled {
            signal: libc::WTERMSIG(status),
            core_dumped: libc::WCOREDUMP(status),
        }
    } else {
        Termination::Exited {
            code: libc::WEXITSTATUS(status),
        }
    }
}

/// Reap `pid` with `wait4`, blocking or not. Returns its termination and rusage once reaped.
pub(super) fn wait4(pid: i32, block: bool) -> Option<(Termination, Rusage)> {
    let mut status = 0;
    // SAFETY: rusage is plain old data; all-zero is a valid value for wait4 to overwrite.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        let flags = if block { 0 } else { libc::WNOHANG };
        // SAFETY: wait4 writes into status and ru, both live locals.
        let r = unsafe { libc::wait4(pid, &mut status, flags, &mut ru) };
        if r == pid {
            break;
        }
        if r < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        return None;
    }
    let term = termination(status);
    let rusage = Rusage {
        user: tv(ru.ru_utime),
        sys: tv(ru.ru_stime),
        maxrss_bytes: ru.ru_maxrss.max(0) as u64 * 1024,
        minor_faults: ru.ru_minflt.max(0) as u64,
        major_faults: ru.ru_majflt.max(0) as u64,
        voluntary_switches: ru.ru_nvcsw.max(0) as u64,
        involuntary_switches: ru.ru_nivcsw.max(0) as u64,
    };
    Some((term, rusage))
}

/// Live (non-zombie) processes whose process group is `pgid`.
pub fn group_members(pgid: i32) -> Vec<i32> {
    procfs::all_stats()
        .into_iter()
        .filter(|s| s.pgrp == pgid && s.state != b'Z' && s.state != b'X')
        .map(|s| s.pid)
        .collect()
}

/// Send `sig` to the group; returns how many live members it had.
pub(super) fn kill_group(pgid: i32, sig: i32) -> usize {
    let members = group_members(pgid).len();
    // SAFETY: kill(2) takes integers only; -pgid names a process group this supervisor created.
    unsafe { libc::kill(-pgid, sig) };
    members
}

/// Descendants of `root` (not `root` itself) as (pid, starttime), from one /proc scan.
pub(super) fn descendants(root: i32) -> Vec<(i32, u64)> {
    let all = procfs::all_stats();
    let mut out: Vec<(i32, u64)> = Vec::new();
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        for s in all.iter().filter(|s| s.ppid == p) {
            if !out.iter().any(|(q, _)| *q == s.pid) {
                out.push((s.pid, s.starttime));
                frontier.push(s.pid);
            }
        }
    }
    out
}

/// SIGKILL `pid` if it is still the same process (same start time) and not a zombie.
pub(super) fn kill_pid_if_alive((pid, start): (i32, u64)) -> bool {
    match procfs::read_stat(pid) {
        Some(s) if s.starttime == start && s.state != b'Z' && s.state != b'X' => {
            // SAFETY: kill(2) takes integers only; pid's start time was just checked, so the pid was not reused.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            true
        }
        _ => false,
    }
}

/// Wait (bounded) until no live process is left in the group, SIGKILLing again meanwhile.
pub(super) fn await_group_gone(pgid: i32, max: Duration) {
    let end = Instant::now() + max;
    loop {
        if group_members(pgid).is_empty() || Instant::now() >= end {
            return;
        }
        // SAFETY: kill(2) takes integers only; -pgid names a process group this supervisor created.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Whether `pid` is a zombie (exited, not yet reaped): it holds no resources and does no work.
pub(super) fn is_zombie(pid: i32) -> bool {
    crate::sample::procfs::read_stat(pid).is_some_and(|s| s.state == b'Z' || s.state == b'X')
}

/// Makes barrage the subreaper of its descendants (`PR_SET_CHILD_SUBREAPER`), once.
pub(super) fn become_subreaper() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: prctl with integer arguments has no memory-safety preconditions.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    });
}

/// Barrage's adopted children started at or after `since` (clock ticks since boot): orphans of
/// the contenders, reparented here by the subreaper. Contender leaders are barrage's own
/// children too, and are left out.
pub(super) fn adopted_since(since: u64) -> Vec<(i32, u64)> {
    // SAFETY: getpid has no preconditions.
    let me = unsafe { libc::getpid() };
    let leaders = super::live_groups();
    procfs::all_stats()
        .into_iter()
        .filter(|s| s.ppid == me && s.starttime >= since && !leaders.contains(&s.pid))
        .filter(|s| s.pgrp != s.pid || !leaders.contains(&s.pgrp))
        .map(|s| (s.pid, s.starttime))
        .collect()
}

/// SIGKILLs and reaps the adopted orphans of a contender started at `since`; returns how many
/// were alive.
pub(super) fn kill_adopted(since: u64) -> u32 {
    let mut n = 0;
    for (pid, start) in adopted_since(since) {
        if kill_pid_if_alive((pid, start)) {
            n += 1;
        }
        // Ours to reap now: nobody else will wait for it.
        let mut status = 0;
        // SAFETY: waitpid on a pid that is our child, with a valid status pointer.
        unsafe { libc::waitpid(pid, &mut status, 0) };
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signal_names() {
        assert_eq!(parse_signal("TERM"), Some(libc::SIGTERM));
        assert_eq!(parse_signal("sigint"), Some(libc::SIGINT));
        assert_eq!(parse_signal("9"), Some(9));
        assert_eq!(parse_signal("NOPE"), None);
        assert_eq!(parse_signal("0"), None);
        assert_eq!(signal_name(libc::SIGSEGV), "SIGSEGV");
    }
}

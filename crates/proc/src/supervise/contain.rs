//! A contender's PID namespace: everything the contender starts dies with barrage, whatever
//! barrage dies of (bubblewrap's `--unshare-pid --die-with-parent`).
//!
//! The contender's group leader is `barrage-init` (`init.c`, built by build.rs and run from a
//! memfd), started as barrage's own child in a new PID namespace: it is the namespace's PID 1 and
//! runs `sh -c COMMAND` as PID 2. Every process the contender starts (workers, `setsid` sidecars,
//! double-forked daemons) is a member of the namespace, and nothing leaves a PID namespace. The
//! kernel SIGKILLs every member when the init dies; the init carries barrage's death signal, so
//! `kill -9` of barrage ends the namespace, and the supervisor's SIGKILL to the group (after the
//! grace, or on a second Ctrl-C) reaches the init, which signals from a parent namespace always
//! do. The stop signal (TERM) is dropped by the init (an init gets only signals it handles) and
//! reaches the command and its group as before.
//!
//! `wait4` on the init covers every process of the namespace (the init reaps them all, and kills
//! and reaps what the command left running 500 ms after it ended). The init reports on a pipe
//! the command's exact wait status as soon as it ends ("the leader exited"), then how many
//! processes it left ([`Report`]). Where the namespace cannot be made (no
//! `CAP_SYS_ADMIN`, no memfd) the contender runs as `sh -c` without one, contained by its cgroup
//! and the death signal as before.

use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::OnceLock;

use super::Termination;

static INIT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/barrage-init"));

/// The init program, written once into a memfd: its `/proc/self/fd` path for exec.
fn init_path() -> Option<&'static str> {
    static PATH: OnceLock<Option<(OwnedFd, String)>> = OnceLock::new();
    PATH.get_or_init(|| {
        // SAFETY: a valid NUL-terminated name; the returned descriptor is ours.
        let fd = unsafe { libc::memfd_create(c"barrage-init".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return None;
        }
        // SAFETY: just created, owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let mut file = std::fs::File::from(fd.try_clone().ok()?);
        file.write_all(INIT).ok()?;
        // Exec through /proc/self/fd: in the child, "self" is the child, which holds the fd until
        // exec (close-on-exec closes it only once the kernel has the program open).
        let path = format!("/proc/self/fd/{}", fd.as_raw_fd());
        Some((fd, path))
    })
    .as_ref()
    .map(|(_, p)| p.as_str())
}

/// barrage's lifeline: a pipe whose write end only barrage holds (close-on-exec), so its read end
/// hangs up once barrage is gone. Returns (read end, write end).
pub(super) fn lifeline() -> Option<(RawFd, RawFd)> {
    static PIPE: OnceLock<Option<(OwnedFd, OwnedFd)>> = OnceLock::new();
    PIPE.get_or_init(|| {
        let mut fds = [0i32; 2];
        // SAFETY: pipe2 fills two descriptors we then own.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return None;
        }
        // SAFETY: both were just created.
        Some(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
    })
    .as_ref()
    .map(|(r, w)| (r.as_raw_fd(), w.as_raw_fd()))
}

/// In a freshly forked child, after its death signal is set: whether barrage died before that
/// (then nothing would kill this child with barrage). The child drops its own copy of the write
/// end first; other copies live only between another fork and its exec, so a hang-up means
/// barrage is gone (a copy elsewhere can only hide it, never fake it).
///
/// # Safety
/// Only system calls: for the pre-exec hook.
pub(super) unsafe fn barrage_gone(lifeline: Option<(RawFd, RawFd)>) -> bool {
    let Some((r, w)) = lifeline else {
        return false;
    };
    libc::close(w);
    let mut p = libc::pollfd {
        fd: r,
        events: libc::POLLIN,
        revents: 0,
    };
    libc::poll(&mut p, 1, 0) == 1 && p.revents & libc::POLLHUP != 0
}

/// The calling thread's "PID namespace for children", held to return to it after a spawn.
struct Home(OwnedFd);

impl Drop for Home {
    fn drop(&mut self) {
        // SAFETY: a namespace descriptor we own. Returning to the thread's own namespace cannot
        // be refused; if it were, this thread's next child would land in the contender's
        // namespace, so it is checked.
        let r = unsafe { libc::setns(self.0.as_raw_fd(), libc::CLONE_NEWPID) };
        assert_eq!(r, 0, "cannot return to barrage's own PID namespace");
    }
}

/// A namespace being made: the calling thread's next child is its init. Dropping it puts the
/// thread back (its later children, and its threads, in barrage's own namespace).
pub(super) struct Pending {
    _home: Home,
    report_r: OwnedFd,
    report_w: OwnedFd,
    path: &'static str,
}

/// Starts making a namespace on the calling thread, or `None` where it cannot be made.
pub(super) fn begin() -> Option<Pending> {
    let path = init_path()?;
    let home = std::fs::File::open("/proc/thread-self/ns/pid_for_children").ok()?;
    let mut fds = [0i32; 2];
    // SAFETY: pipe2 fills two descriptors we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return None;
    }
    // SAFETY: both were just created.
    let (report_r, report_w) =
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // SAFETY: unshare(CLONE_NEWPID) changes only where this thread's next child is created.
    if unsafe { libc::unshare(libc::CLONE_NEWPID) } != 0 {
        return None;
    }
    Some(Pending {
        _home: Home(home.into()),
        report_r,
        report_w,
        path,
    })
}

impl Pending {
    /// The program and arguments that run `command` under the init.
    pub(super) fn argv(&self, command: &str) -> (String, Vec<String>) {
        (
            self.path.to_string(),
            vec![
                self.report_w.as_raw_fd().to_string(),
                "/bin/sh".into(),
                "-c".into(),
                command.into(),
            ],
        )
    }

    /// The report pipe's write end, which the child must inherit (cleared close-on-exec in the
    /// pre-exec hook).
    pub(super) fn report_fd(&self) -> RawFd {
        self.report_w.as_raw_fd()
    }

    /// After the spawn: the thread is back in its own namespace; the report's read end stays.
    /// Returns once the init has named itself and started the command (its "S" line), so that
    /// whatever looks at the contender from now on (the sampler) sees the init as the init and
    /// the command as its child, never the instant before.
    pub(super) fn spawned(self) -> Report {
        let mut report = Report {
            fd: self.report_r,
            text: Vec::new(),
        };
        drop(self.report_w);
        // Bounded: the init forks at once; it writes "S" or exits (then the pipe hangs up,
        // since the command's process closed its copy and nobody else holds one).
        let mut p = libc::pollfd {
            fd: report.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: polling one live descriptor.
        unsafe { libc::poll(&mut p, 1, 10_000) };
        // SAFETY: the read end is ours; non-blocking, so a read after the init's exit never
        // waits for a writer (the contender's processes never hold the write end).
        unsafe { libc::fcntl(report.fd.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) };
        report.fill();
        report
    }
}

/// The init's report: the command's wait status as soon as it ends, then the processes it left.
pub(super) struct Report {
    fd: OwnedFd,
    text: Vec<u8>,
}

/// What the init reported once it was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Reported {
    pub termination: Termination,
    /// Processes still running 500 ms after the command ended (killed by the init).
    pub left: u32,
}

impl Report {
    /// The report pipe's read end (readable once the command ended).
    pub(super) fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Takes what the init wrote so far (bounded: it writes two short lines).
    fn fill(&mut self) {
        let mut buf = [0u8; 64];
        while self.text.len() <= 256 {
            // SAFETY: reading into a live buffer of its length.
            let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                break;
            }
            self.text.extend_from_slice(&buf[..n as usize]);
        }
    }

    /// The command's termination, once it ended.
    pub(super) fn command_ended(&mut self) -> Option<Termination> {
        self.fill();
        parse(&self.text).0
    }

    /// The whole report, once the init is done (`None` if it was killed before).
    pub(super) fn done(&mut self) -> Option<Reported> {
        self.fill();
        match parse(&self.text) {
            (Some(termination), Some(left)) => Some(Reported { termination, left }),
            _ => None,
        }
    }
}

/// Parses "S\nWAIT_STATUS\nLEFT\n" as far as it was written.
fn parse(text: &[u8]) -> (Option<Termination>, Option<u32>) {
    let Ok(text) = std::str::from_utf8(text) else {
        return (None, None);
    };
    // Only whole lines, after the "started" line.
    let mut lines = text.split_inclusive('\n').filter(|l| l.ends_with('\n'));
    if lines.next() != Some("S\n") {
        return (None, None);
    }
    let status = lines.next().and_then(|l| l.trim().parse::<i32>().ok());
    let left = lines.next().and_then(|l| l.trim().parse::<u32>().ok());
    let termination = status.map(super::signals::termination);
    (termination, left.filter(|_| termination.is_some()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_parse_into_exact_terminations() {
        // Raw wait statuses: exit code in bits 8-15, the signal in the low 7, core in bit 7.
        let exited = Termination::Exited { code: 3 };
        assert_eq!(parse(b"S\n768\n0\n"), (Some(exited), Some(0)));
        let segv = Termination::Signaled {
            signal: 11,
            core_dumped: true,
        };
        assert_eq!(parse(b"S\n139\n2\n"), (Some(segv), Some(2)));
        // As it is written: started, the status, the count half a second later.
        assert_eq!(parse(b"S\n768\n"), (Some(exited), None));
        assert_eq!(parse(b"S\n768\n1"), (Some(exited), None));
        assert_eq!(parse(b"S\n76"), (None, None));
        assert_eq!(parse(b"S\n"), (None, None));
        assert_eq!(parse(b""), (None, None));
        assert_eq!(parse(b"S\nx\n1\n"), (None, None));
        // Never started: no "S" line, nothing to believe.
        assert_eq!(parse(b"768\n0\n"), (None, None));
    }

    #[test]
    fn the_init_program_is_embedded() {
        assert_eq!(&INIT[..4], b"\x7fELF");
    }
}

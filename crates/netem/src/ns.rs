//! Network namespaces without names: made with `unshare(CLONE_NEWNET)` on a short-lived thread
//! and held by a file descriptor, so a namespace lives exactly as long as barrage holds it or a
//! process runs in it. When barrage exits in any way (also `kill -9`), the descriptors close and
//! the kernel removes the namespace, with its TUN device, once its last process is gone:
//! nothing to sweep, and `ip netns list` never sees them.
//!
//! Namespaces are per thread. A thread enters one with [`Netns::enter`]; threads (and processes)
//! it then creates start in it. [`Netns::run`] runs a closure on a new thread inside the
//! namespace; [`Netns::with`] runs one on the calling thread and returns it to its own namespace
//! afterwards (for spawning a process that must stay tied to the calling thread).

use crate::NetError;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};

/// A network namespace, held open.
#[derive(Debug)]
pub struct Netns {
    fd: OwnedFd,
}

fn thread_ns() -> io::Result<OwnedFd> {
    Ok(File::open("/proc/thread-self/ns/net")?.into())
}

impl Netns {
    /// A new, empty namespace (only `lo`, brought up).
    pub fn new() -> Result<Netns, NetError> {
        std::thread::spawn(|| {
            // SAFETY: unshare affects only the calling thread's namespaces.
            if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
                return Err(NetError::Namespace(io::Error::last_os_error()));
            }
            crate::tun::link_up("lo")?;
            let fd = thread_ns().map_err(NetError::Namespace)?;
            Ok(Netns { fd })
        })
        .join()
        .map_err(|_| NetError::Panicked)?
    }

    /// The calling thread's namespace.
    pub fn current() -> Result<Netns, NetError> {
        Ok(Netns {
            fd: thread_ns().map_err(NetError::Enter)?,
        })
    }

    /// Moves the calling thread into this namespace for good.
    pub fn enter(&self) -> Result<(), NetError> {
        // SAFETY: the fd is a namespace descriptor this value owns.
        if unsafe { libc::setns(self.fd.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
            return Err(NetError::Enter(io::Error::last_os_error()));
        }
        Ok(())
    }

    /// Runs `f` on a new thread inside this namespace and returns what it returns.
    pub fn run<T: Send>(&self, f: impl FnOnce() -> T + Send) -> Result<T, NetError> {
        std::thread::scope(|s| {
            s.spawn(|| {
                self.enter()?;
                Ok(f())
            })
            .join()
            .map_err(|_| NetError::Panicked)?
        })
    }

    /// Runs `f` on the calling thread inside this namespace, then puts the thread back where it
    /// was (an error then is [`NetError::Restore`]: the thread is in the wrong namespace).
    pub fn with<T>(&self, f: impl FnOnce() -> T) -> Result<T, NetError> {
        let mut home = Home {
            ns: Netns::current()?,
            back: false,
        };
        self.enter()?;
        let out = f();
        home.restore()?;
        Ok(out)
    }

    /// The namespace's inode (its identity, as `ls -l /proc/PID/ns/net` shows it).
    pub fn inode(&self) -> u64 {
        // SAFETY: fstat fills the struct for a valid fd.
        unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstat(self.fd.as_raw_fd(), &mut st) != 0 {
                return 0;
            }
            st.st_ino
        }
    }
}

/// The namespace a thread came from: it goes back there, also when the closure panics.
struct Home {
    ns: Netns,
    back: bool,
}

impl Home {
    fn restore(&mut self) -> Result<(), NetError> {
        self.back = true;
        // SAFETY: as in `Netns::enter`.
        if unsafe { libc::setns(self.ns.fd.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
            return Err(NetError::Restore(io::Error::last_os_error()));
        }
        Ok(())
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        if !self.back {
            let _ = self.restore();
        }
    }
}

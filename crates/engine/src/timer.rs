//! A precise wakeup for the open-loop schedule: a timerfd in the worker's poll set.
//!
//! epoll's own timeout has millisecond resolution (mio rounds it up), which would make every
//! paced send up to 1 ms late; a timerfd armed at the absolute CLOCK_MONOTONIC time of the next
//! send wakes the loop within microseconds.

use mio::unix::SourceFd;
use mio::{Interest, Registry, Token};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Instant;

pub struct Timer {
    fd: OwnedFd,
    armed: Option<Instant>,
}

impl Timer {
    pub fn new(registry: &Registry, token: Token) -> io::Result<Timer> {
        // SAFETY: timerfd_create returns a new descriptor (or -1), which we own from here on.
        let raw = unsafe {
            libc::timerfd_create(
                libc::CLOCK_MONOTONIC,
                libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
            )
        };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a fresh descriptor nobody else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        registry.register(&mut SourceFd(&fd.as_raw_fd()), token, Interest::READABLE)?;
        Ok(Timer { fd, armed: None })
    }

    /// Makes the poll wake at `at` (no syscall if already armed for it).
    pub fn arm(&mut self, at: Instant) {
        if self.armed == Some(at) {
            return;
        }
        self.armed = Some(at);
        // Instant is CLOCK_MONOTONIC on Linux, but opaque: translate through "now".
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes into the struct we pass.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
        let ahead = at.saturating_duration_since(Instant::now());
        let mut nanos = now.tv_nsec as u64 + u64::from(ahead.subsec_nanos());
        let mut secs = now.tv_sec as u64 + ahead.as_secs() + nanos / 1_000_000_000;
        nanos %= 1_000_000_000;
        if secs == 0 && nanos == 0 {
            // An all-zero it_value would disarm the timer.
            nanos = 1;
            secs = 0;
        }
        let spec = libc::itimerspec {
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: libc::timespec {
                tv_sec: secs as libc::time_t,
                tv_nsec: nanos as libc::c_long,
            },
        };
        // SAFETY: valid descriptor and spec; the old value is not wanted.
        unsafe {
            libc::timerfd_settime(
                self.fd.as_raw_fd(),
                libc::TFD_TIMER_ABSTIME,
                &spec,
                std::ptr::null_mut(),
            )
        };
    }

    /// Consumes the expiration so the next one is a new edge.
    pub fn fired(&mut self) {
        let mut buf = [0u8; 8];
        // SAFETY: reads at most 8 bytes into our buffer; errors (EAGAIN) are fine.
        unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), 8) };
        self.armed = None;
    }
}

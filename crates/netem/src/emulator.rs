//! The I/O loop: one thread moves packets between the two TUN devices through a [`Link`] each
//! way. It waits in `ppoll` on both devices and a stop eventfd, with a timeout to the next
//! release (nanosecond resolution, timer slack 1 ns); reads every packet that is there, asks its
//! direction's link when it leaves, queues it (releases are in order, so a queue per direction
//! is a FIFO), and writes each packet to the other device when its time comes. It measures how
//! late each packet left (its own accuracy) and its own CPU, per second.

use crate::link::{Link, LinkConfig, Verdict};
use crate::tun::Tun;
use hdrhistogram::Histogram;
use std::collections::VecDeque;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Packets held in one direction at most (beyond it they are dropped as a full queue): bounds
/// the emulator's memory on a link without a rate (about 150 MB at 1500 bytes).
const MAX_HELD: usize = 100_000;
/// Packets read from one device before looking at the other and at due releases.
const READ_BATCH: usize = 64;
/// The longest wait in ppoll, so the CPU windows advance on an idle link.
const IDLE_WAIT: Duration = Duration::from_millis(100);

/// What the emulator did, both directions together.
#[derive(Debug, Clone)]
pub struct Stats {
    pub packets: u64,
    pub bytes: u64,
    pub dropped_loss: u64,
    pub dropped_queue: u64,
    /// Writes to a device that failed (the kernel refused the packet).
    pub write_errors: u64,
    /// How late packets left, µs.
    pub late_us: Histogram<u64>,
    /// The emulator thread's CPU, and its life.
    pub cpu: Duration,
    pub wall: Duration,
    /// The busiest whole second's CPU, % of one CPU (the whole life's if shorter than a second).
    pub peak_cpu_pct: f64,
    /// The thread ran under SCHED_FIFO (else the normal scheduler: other work can delay it).
    pub realtime: bool,
}

/// The running emulator thread.
pub struct Emulator {
    stop: OwnedFd,
    handle: Option<JoinHandle<Stats>>,
    cpu_clock: Option<libc::clockid_t>,
}

struct Held {
    at: u64,
    len: usize,
    buf: Vec<u8>,
}

struct Dir {
    from: RawFd,
    to: RawFd,
    link: Link,
    held: VecDeque<Held>,
}

impl Emulator {
    /// Starts the thread; `a_to_b` applies to packets the `a` side sends. The thread owns the
    /// devices (they go when it stops), is pinned to `cpus` when given, and reads packets of
    /// at most `mtu` bytes.
    pub fn start(
        a: Tun,
        b: Tun,
        a_to_b: LinkConfig,
        b_to_a: LinkConfig,
        mtu: u32,
        cpus: Option<Vec<usize>>,
    ) -> io::Result<Emulator> {
        // SAFETY: a plain eventfd.
        let efd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if efd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: just made, owned here.
        let stop = unsafe { OwnedFd::from_raw_fd(efd) };
        let stop_fd = stop.as_raw_fd();
        let handle = std::thread::Builder::new()
            .name("barrage-netem".into())
            .spawn(move || {
                if let Some(c) = &cpus {
                    pin(c);
                }
                let realtime = realtime();
                // SAFETY: prctl with an integer argument; 1 ns of slack makes ppoll's timeout exact.
                unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
                let dirs = [
                    Dir {
                        from: a.fd().as_raw_fd(),
                        to: b.fd().as_raw_fd(),
                        link: Link::new(a_to_b),
                        held: VecDeque::new(),
                    },
                    Dir {
                        from: b.fd().as_raw_fd(),
                        to: a.fd().as_raw_fd(),
                        link: Link::new(b_to_a),
                        held: VecDeque::new(),
                    },
                ];
                let mut stats = run(dirs, stop_fd, mtu as usize);
                stats.realtime = realtime;
                drop((a, b));
                stats
            })?;
        let cpu_clock = {
            use std::os::unix::thread::JoinHandleExt;
            let mut id: libc::clockid_t = 0;
            // SAFETY: the thread is alive until joined; `id` is filled on success.
            (unsafe { libc::pthread_getcpuclockid(handle.as_pthread_t(), &mut id) } == 0)
                .then_some(id)
        };
        Ok(Emulator {
            stop,
            handle: Some(handle),
            cpu_clock,
        })
    }

    /// The emulator thread's CPU so far (zero if it cannot be read).
    pub fn cpu(&self) -> Duration {
        self.cpu_clock.map_or(Duration::ZERO, clock)
    }

    /// Stops the thread and returns what it did (None if it panicked).
    pub fn stop(mut self) -> Option<Stats> {
        self.halt()
    }

    fn halt(&mut self) -> Option<Stats> {
        let one: u64 = 1;
        // SAFETY: writes 8 bytes to our eventfd.
        unsafe { libc::write(self.stop.as_raw_fd(), (&one as *const u64).cast(), 8) };
        self.handle.take()?.join().ok()
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.halt();
    }
}

fn clock(id: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime fills ts.
    if unsafe { libc::clock_gettime(id, &mut ts) } != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Real-time priority for the emulator thread: a link does not pause because a compiler or the
/// contender wants the CPU. Priority 1, the lowest real-time one; the kernel's RT throttling
/// (`sched_rt_runtime_us`, 95% by default) still leaves the CPU to others if it ever spun.
fn realtime() -> bool {
    let p = libc::sched_param { sched_priority: 1 };
    // SAFETY: sets the calling thread's policy; fails harmlessly without privileges.
    unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &p) == 0 }
}

fn pin(cpus: &[usize]) {
    // SAFETY: cpu_set_t is plain data; pid 0 is the calling thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

fn run(mut dirs: [Dir; 2], stop: RawFd, mtu: usize) -> Stats {
    let origin = Instant::now();
    let now_ns = || origin.elapsed().as_nanos() as u64;
    let mut st = Stats {
        packets: 0,
        bytes: 0,
        dropped_loss: 0,
        dropped_queue: 0,
        write_errors: 0,
        late_us: Histogram::new_with_bounds(1, 60_000_000, 2).expect("valid histogram bounds"),
        cpu: Duration::ZERO,
        wall: Duration::ZERO,
        peak_cpu_pct: 0.0,
        realtime: false,
    };
    let mut pool: Vec<Vec<u8>> = Vec::new();
    let (mut win_start, mut win_cpu) = (Instant::now(), Duration::ZERO);
    let mut fds = [
        libc::pollfd {
            fd: dirs[0].from,
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: dirs[1].from,
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: stop,
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    loop {
        // Due packets leave.
        for d in &mut dirs {
            while d.held.front().is_some_and(|h| h.at <= now_ns()) {
                let Some(h) = d.held.pop_front() else { break };
                let now = now_ns();
                // SAFETY: writes `len` initialised bytes of the buffer to the device.
                let n = unsafe { libc::write(d.to, h.buf.as_ptr().cast(), h.len) };
                if n < 0 {
                    st.write_errors += 1;
                }
                let _ = st.late_us.record(((now - h.at) / 1000).max(1));
                pool.push(h.buf);
            }
        }
        let since = win_start.elapsed();
        if since >= Duration::from_secs(1) {
            let cpu = clock(libc::CLOCK_THREAD_CPUTIME_ID);
            let pct = 100.0 * (cpu - win_cpu).as_secs_f64() / since.as_secs_f64();
            st.peak_cpu_pct = st.peak_cpu_pct.max(pct);
            (win_start, win_cpu) = (Instant::now(), cpu);
        }
        let now = now_ns();
        let wait = dirs
            .iter()
            .filter_map(|d| d.held.front().map(|h| h.at.saturating_sub(now)))
            .min()
            .map_or(IDLE_WAIT, |ns| Duration::from_nanos(ns).min(IDLE_WAIT));
        let ts = libc::timespec {
            tv_sec: wait.as_secs() as libc::time_t,
            tv_nsec: wait.subsec_nanos() as libc::c_long,
        };
        // SAFETY: three valid pollfds and a timespec; no signal mask change.
        let r = unsafe { libc::ppoll(fds.as_mut_ptr(), 3, &ts, std::ptr::null()) };
        if r < 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            break;
        }
        if fds[2].revents != 0 {
            break;
        }
        for (i, d) in dirs.iter_mut().enumerate() {
            if fds[i].revents == 0 {
                continue;
            }
            for _ in 0..READ_BATCH {
                let mut buf = pool.pop().unwrap_or_else(|| vec![0; mtu]);
                // SAFETY: reads at most the buffer's length into it.
                let n = unsafe { libc::read(d.from, buf.as_mut_ptr().cast(), buf.len()) };
                if n <= 0 {
                    pool.push(buf);
                    break;
                }
                let len = n as usize;
                st.packets += 1;
                st.bytes += len as u64;
                match d.link.send(now_ns(), len) {
                    Verdict::Deliver(_) if d.held.len() >= MAX_HELD => {
                        st.dropped_queue += 1;
                        pool.push(buf);
                    }
                    Verdict::Deliver(at) => d.held.push_back(Held { at, len, buf }),
                    Verdict::Lost => {
                        st.dropped_loss += 1;
                        pool.push(buf);
                    }
                    Verdict::QueueFull => {
                        st.dropped_queue += 1;
                        pool.push(buf);
                    }
                }
            }
        }
    }
    st.cpu = clock(libc::CLOCK_THREAD_CPUTIME_ID);
    st.wall = origin.elapsed();
    if st.wall < Duration::from_secs(1) || st.peak_cpu_pct == 0.0 {
        st.peak_cpu_pct = st
            .peak_cpu_pct
            .max(100.0 * st.cpu.as_secs_f64() / st.wall.as_secs_f64().max(1e-9));
    }
    st
}

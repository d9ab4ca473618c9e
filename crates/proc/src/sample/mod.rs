//! Resource sampling of a contender's whole process tree (Linux, direct /proc reads).
//!
//! A [`Sampler`] thread wakes every interval (default 100 ms) on a fixed schedule and records one
//! [`Sample`]: the tree's CPU user and sys as % of one core over the interval (and per process),
//! RSS summed over the tree (from `/proc/PID/stat`), PSS summed (from `smaps_rollup`, every tick
//! while those page-table walks cost under 0.05% of a core), process and thread counts, and the
//! machine-wide busy % of every core (from `/proc/stat`) with barrage's own CPU beside it (so what
//! other programs took can be told apart: [`Samples::outside_cpu_pct`]). Times are measured from
//! an `origin` `Instant` the caller passes in, so samples, load windows and trial marks share one
//! clock.
//!
//! The tree is the leader plus every process whose parent is in the tree or whose process group
//! is the leader's; once in, a process stays in even if reparented (daemonized children count).
//! CPU of processes that exit between samples is not lost when a tree process reaps them: their
//! totals appear in the reaper's `cutime`/`cstime`, which the tree CPU includes (see `tree.rs`).
//!
//! Cost: one `getdents` pass over /proc plus one `pread` per tree process per tick (the stat files
//! stay open), and a `read` of each *new* pid's stat once. The sampler's own thread CPU time is
//! measured ([`Samples::sampler_cpu`]) and reported as % of a core.

pub mod procfs;
pub use barrage_model::units::secs;
mod tree;

use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub use barrage_model::process::{ProcSample, Sample, SamplerConfig, Samples};

struct Shared {
    stop: Mutex<bool>,
    wake: Condvar,
}

/// A running sampler thread; [`Sampler::stop`] ends it and returns what it recorded.
pub struct Sampler {
    shared: Arc<Shared>,
    handle: Option<JoinHandle<Samples>>,
}

impl Sampler {
    /// Start sampling the tree rooted at `root` (normally [`crate::supervise::Contender::pid`],
    /// which is also the process group id). The first sample is taken immediately.
    pub fn start(root: i32, origin: Instant, config: SamplerConfig) -> std::io::Result<Sampler> {
        Self::start_in(root, None, origin, config)
    }

    /// [`Sampler::start`] for a contender with its own cgroup: every process listed in
    /// `cgroup_procs` belongs to the tree too (a double-forked daemon that left the tree by
    /// parentage and group).
    pub fn start_in(
        root: i32,
        cgroup_procs: Option<std::path::PathBuf>,
        origin: Instant,
        config: SamplerConfig,
    ) -> std::io::Result<Sampler> {
        let shared = Arc::new(Shared {
            stop: Mutex::new(false),
            wake: Condvar::new(),
        });
        let sh = shared.clone();
        let handle = std::thread::Builder::new()
            .name(format!("sampler-{root}"))
            .spawn(move || run(root, cgroup_procs, origin, config, &sh))?;
        Ok(Sampler {
            shared,
            handle: Some(handle),
        })
    }

    /// Stop the thread (takes one last sample) and return the samples.
    pub fn stop(mut self) -> Samples {
        self.signal_stop();
        self.handle
            .take()
            .expect("joined once")
            .join()
            .expect("sampler thread panicked")
    }

    fn signal_stop(&self) {
        let mut stop = self.shared.stop.lock().unwrap_or_else(|e| e.into_inner());
        *stop = true;
        self.shared.wake.notify_all();
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        if let Some(h) = self.handle.take() {
            self.signal_stop();
            let _ = h.join();
        }
    }
}

/// CPUs the process may run on (its affinity mask; every online CPU if it cannot be read).
fn cpus_of(pid: i32) -> usize {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity fills it for `pid`.
    let n = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(pid, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0 {
            libc::CPU_COUNT(&set) as usize
        } else {
            0
        }
    };
    if n > 0 {
        n
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}

fn run(
    root: i32,
    cgroup_procs: Option<std::path::PathBuf>,
    origin: Instant,
    config: SamplerConfig,
    shared: &Shared,
) -> Samples {
    let cpu0 = procfs::thread_cpu_time();
    // The contender is pinned (or not) at spawn and its children inherit the mask.
    let cpus = cpus_of(root);
    let wall0 = Instant::now();
    let mut tree = tree::Tree::new(root, config.clone());
    tree.cgroup_procs = cgroup_procs;
    let mut out = Samples {
        config: config.clone(),
        ..Samples::default()
    };
    let interval = config.interval.max(Duration::from_millis(1));
    let mut tick: u64 = 0;
    loop {
        let s = tree.sample(origin);
        out.peak_rss_bytes = out.peak_rss_bytes.max(s.rss_bytes);
        out.peak_processes = out.peak_processes.max(s.processes);
        if let Some(p) = s.pss_bytes {
            out.peak_pss_bytes = Some(out.peak_pss_bytes.unwrap_or(0).max(p));
        }
        out.samples.push(s);
        tick += 1;
        // Fixed schedule from the sampler's start, skipping ticks we fell behind on.
        let mut next = wall0 + interval * tick as u32;
        let now = Instant::now();
        if next < now {
            let behind = ((now - wall0).as_nanos() / interval.as_nanos()) as u64 + 1;
            tick = tick.max(behind);
            next = wall0 + interval * tick as u32;
        }
        let mut stop = shared.stop.lock().unwrap_or_else(|e| e.into_inner());
        let mut stopping = *stop;
        while !stopping {
            let now = Instant::now();
            if now >= next {
                break;
            }
            let (g, _) = shared
                .wake
                .wait_timeout(stop, next - now)
                .unwrap_or_else(|e| e.into_inner());
            stop = g;
            stopping = *stop;
        }
        drop(stop);
        if stopping {
            // One final sample so the series reaches the stop time.
            let s = tree.sample(origin);
            out.peak_rss_bytes = out.peak_rss_bytes.max(s.rss_bytes);
            out.peak_processes = out.peak_processes.max(s.processes);
            out.samples.push(s);
            break;
        }
    }
    // No interval may show more CPU than the tree's CPUs could give (see `bound_cpu`, which
    // counts what it drops; the tick says how much of that the readings' rounding explains).
    out.clock_tick = Duration::from_secs_f64(1.0 / procfs::clock_ticks().max(1) as f64);
    out.bound_cpu(cpus);
    let (user, sys) = tree.cpu_totals();
    out.listings = tree.listings;
    out.cpu_user = user;
    out.cpu_sys = sys;
    out.sampler_cpu = procfs::thread_cpu_time().saturating_sub(cpu0);
    out.sampler_wall = wall0.elapsed();
    out.sampler_cpu_pct = if out.sampler_wall.is_zero() {
        0.0
    } else {
        out.sampler_cpu.as_secs_f64() / out.sampler_wall.as_secs_f64() * 100.0
    };
    out
}

/// CPU time (user + sys) of this whole process so far (zero if the kernel will not say).
pub fn self_cpu() -> Duration {
    // SAFETY: getrusage fills the struct it is given.
    unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut ru) != 0 {
            return Duration::ZERO;
        }
        let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
        tv(ru.ru_utime) + tv(ru.ru_stime)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn own_cpu_time_grows_with_work() {
        let before = super::self_cpu();
        let mut spins = 0u64;
        while super::self_cpu() == before && spins < 1 << 34 {
            spins = std::hint::black_box(spins + 1);
        }
        assert!(
            super::self_cpu() > before,
            "no CPU time after {spins} spins"
        );
    }

    use super::*;

    fn sample(t_ms: u64, user: f64, sys: f64, rss: u64) -> Sample {
        Sample {
            t: Duration::from_millis(t_ms),
            cpu_user_pct: user,
            cpu_sys_pct: sys,
            rss_bytes: rss,
            pss_bytes: None,
            processes: 1,
            threads: 1,
            procs: Vec::new(),
            cores_busy_pct: Vec::new(),
            barrage_cpu_pct: None,
        }
    }

    fn samples(list: Vec<Sample>) -> Samples {
        Samples {
            config: SamplerConfig::default(),
            samples: list,
            peak_processes: 1,
            ..Samples::default()
        }
    }

    #[test]
    fn windows_and_cpu_between() {
        // 100 ms intervals: 50% user + 10% sys of a core in (100, 200], 100% user in (200, 300].
        let s = samples(vec![
            sample(100, 0.0, 0.0, 10),
            sample(200, 50.0, 10.0, 30),
            sample(300, 100.0, 0.0, 20),
        ]);
        let ms = Duration::from_millis;
        assert_eq!(s.window(ms(150), ms(300)).len(), 2);
        assert_eq!(s.window(ms(0), ms(99)).len(), 0);
        assert_eq!(s.peak_rss_between(ms(0), ms(1000)), 30);
        assert_eq!(s.peak_rss_between(ms(250), ms(1000)), 20);
        let (u, sy) = s.cpu_between(ms(0), ms(300));
        assert!((u.as_secs_f64() - 0.15).abs() < 1e-9, "{u:?}");
        assert!((sy.as_secs_f64() - 0.01).abs() < 1e-9);
        // Half of the first interval and all of the second.
        let (u, _) = s.cpu_between(ms(150), ms(300));
        assert!((u.as_secs_f64() - 0.125).abs() < 1e-9, "{u:?}");
    }

    #[test]
    fn samples_serialize_with_seconds() {
        let s = samples(vec![sample(1500, 1.0, 2.0, 3)]);
        let j = serde_json::to_value(&s).unwrap();
        assert_eq!(j["samples"][0]["t_s"], 1.5);
        assert_eq!(j["config"]["interval_s"], 0.1);
        let back: Samples = serde_json::from_value(j).unwrap();
        assert_eq!(back, s);
    }
}

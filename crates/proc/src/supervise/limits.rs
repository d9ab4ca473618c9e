//! Memory limits (a memory cgroup, v2 or v1, or `RLIMIT_AS`) and CPU pinning sets, prepared before
//! the fork so the child's pre-exec hook only makes system calls.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use super::{MemoryLimitApplied, MemoryLimitMode, Spec, SuperviseError};

static SEQ: AtomicU32 = AtomicU32::new(0);

#[derive(Debug)]
struct Cgroup {
    dir: PathBuf,
    v2: bool,
    bytes: u64,
}

/// The limit chosen for one contender.
#[derive(Debug, Default)]
pub(super) struct Applied {
    rlimit: Option<u64>,
    cgroup: Option<Cgroup>,
}

impl Applied {
    pub(super) fn rlimit_bytes(&self) -> Option<libc::rlim_t> {
        self.rlimit.map(|b| b as libc::rlim_t)
    }

    /// `<cgroup>/cgroup.procs` for the child to move itself into.
    pub(super) fn procs_path_cstring(&self) -> Option<CString> {
        let c = self.cgroup.as_ref()?;
        CString::new(
            c.dir
                .join("cgroup.procs")
                .into_os_string()
                .into_encoded_bytes(),
        )
        .ok()
    }

    pub(super) fn applied(&self) -> MemoryLimitApplied {
        match (&self.cgroup, self.rlimit) {
            (Some(c), _) if c.v2 => MemoryLimitApplied::CgroupV2 {
                bytes: c.bytes,
                path: c.dir.display().to_string(),
            },
            (Some(c), _) => MemoryLimitApplied::CgroupV1 {
                bytes: c.bytes,
                path: c.dir.display().to_string(),
            },
            (None, Some(bytes)) => MemoryLimitApplied::Rlimit { bytes },
            (None, None) => MemoryLimitApplied::None,
        }
    }

    /// The memory cgroup's directory on a cgroup v2 machine (one hierarchy: it is also the
    /// contender's tracking cgroup).
    pub(super) fn v2_cgroup_dir(&self) -> Option<PathBuf> {
        self.cgroup.as_ref().filter(|c| c.v2).map(|c| c.dir.clone())
    }

    /// OOM kills the cgroup counted (v2 `memory.events`, v1 `memory.oom_control`).
    pub(super) fn oom_kills(&self) -> Option<u64> {
        self.read("memory.events", "memory.oom_control")?
            .lines()
            .find_map(|l| l.strip_prefix("oom_kill ")?.trim().parse().ok())
    }

    /// A file of the memory cgroup, by its v2 or v1 name.
    fn read(&self, v2: &str, v1: &str) -> Option<String> {
        let c = self.cgroup.as_ref()?;
        std::fs::read_to_string(c.dir.join(if c.v2 { v2 } else { v1 })).ok()
    }

    /// Peak memory of the cgroup (v2 `memory.peak`, v1 `memory.max_usage_in_bytes`).
    pub(super) fn peak_bytes(&self) -> Option<u64> {
        self.read("memory.peak", "memory.max_usage_in_bytes")?
            .trim()
            .parse()
            .ok()
    }

    /// Remove the cgroup (it must be empty: called after the group is gone).
    pub(super) fn cleanup(&mut self) {
        if let Some(c) = &self.cgroup {
            for _ in 0..50 {
                if std::fs::remove_dir(&c.dir).is_ok() || !c.dir.exists() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
    }
}

/// Our own cgroup path for a hierarchy, from /proc/self/cgroup (`0::/x` for v2, `N:memory:/x`).
fn own_cgroup(v2: bool) -> Option<String> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    text.lines().find_map(|l| {
        let mut f = l.splitn(3, ':');
        let (_, ctrl, path) = (f.next()?, f.next()?, f.next()?);
        let ok = if v2 {
            ctrl.is_empty()
        } else {
            ctrl.split(',').any(|c| c == "memory")
        };
        ok.then(|| path.to_string())
    })
}

fn try_cgroup(bytes: u64) -> std::io::Result<Cgroup> {
    let v2_root = Path::new("/sys/fs/cgroup");
    let name = format!(
        "barrage-{}-{}",
        super::sweep::owner_tag(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    );
    let attempt = |root: &Path, v2: bool| -> std::io::Result<Cgroup> {
        let own = own_cgroup(v2).ok_or_else(|| std::io::Error::other("no cgroup entry"))?;
        let dir = root.join(own.trim_start_matches('/')).join(&name);
        std::fs::create_dir(&dir)?;
        super::sweep::record(&dir);
        let (file, value) = if v2 {
            ("memory.max", bytes.to_string())
        } else {
            ("memory.limit_in_bytes", bytes.to_string())
        };
        let res = std::fs::write(dir.join(file), value);
        if let Err(e) = res {
            let _ = std::fs::remove_dir(&dir);
            return Err(e);
        }
        // Keep swap out of it so the limit means RAM (ignored: swap accounting may be off).
        if v2 {
            let _ = std::fs::write(dir.join("memory.swap.max"), "0");
        } else {
            let _ = std::fs::write(dir.join("memory.memsw.limit_in_bytes"), bytes.to_string());
        }
        Ok(Cgroup { dir, v2, bytes })
    };
    if v2_root.join("cgroup.controllers").exists() {
        return attempt(v2_root, true);
    }
    attempt(&v2_root.join("memory"), false)
}

/// Decide and prepare the memory limit for `spec`.
pub(super) fn prepare(spec: &Spec) -> Result<Applied, SuperviseError> {
    let Some(bytes) = spec.memory_limit else {
        return Ok(Applied::default());
    };
    match spec.memory_limit_mode {
        MemoryLimitMode::Rlimit => Ok(Applied {
            rlimit: Some(bytes),
            cgroup: None,
        }),
        MemoryLimitMode::Cgroup => {
            let c = try_cgroup(bytes).map_err(SuperviseError::Cgroup)?;
            Ok(Applied {
                rlimit: None,
                cgroup: Some(c),
            })
        }
        MemoryLimitMode::Auto => match try_cgroup(bytes) {
            Ok(c) => Ok(Applied {
                rlimit: None,
                cgroup: Some(c),
            }),
            Err(_) => Ok(Applied {
                rlimit: Some(bytes),
                cgroup: None,
            }),
        },
    }
}

/// A CPU set for `sched_setaffinity` from CPU numbers.
pub(super) fn cpu_set(cpus: &[usize]) -> Result<libc::cpu_set_t, SuperviseError> {
    if cpus.is_empty() {
        return Err(SuperviseError::Cpus("empty cpu list".into()));
    }
    let online = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    // SAFETY: cpu_set_t is a plain bit array; all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        if c >= libc::CPU_SETSIZE as usize || c >= online.max(64) {
            return Err(SuperviseError::Cpus(format!("cpu {c} does not exist")));
        }
        // SAFETY: c < CPU_SETSIZE (checked above), so CPU_SET stays inside set.
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    Ok(set)
}

/// The CPUs the calling thread may run on (to plan pinning: contender vs load generator).
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: cpu_set_t is a plain bit array; all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: sched_getaffinity writes at most size_of::<cpu_set_t>() bytes into set, a live local of that size.
    if unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } != 0
    {
        return (0..std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1))
            .collect();
    }
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: c < CPU_SETSIZE by the range, so CPU_ISSET reads inside set.
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect()
}

/// Pins the calling thread (and the threads it starts later, which inherit its mask) to `cpus`.
pub fn pin_current_thread(cpus: &[usize]) -> Result<(), SuperviseError> {
    let set = cpu_set(cpus)?;
    // SAFETY: `set` is a filled cpu_set_t; pid 0 is the calling thread.
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) } != 0 {
        return Err(SuperviseError::Cpus(
            std::io::Error::last_os_error().to_string(),
        ));
    }
    Ok(())
}

/// Whether a command exists: a path that is an executable file, or a name on PATH.
pub fn find_command(cmd: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let exec = |p: &std::path::Path| {
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if cmd.contains('/') {
        return exec(std::path::Path::new(cmd));
    }
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| exec(&d.join(cmd))))
}

#[cfg(test)]
mod this_thread_tests {
    use super::*;

    #[test]
    fn commands_are_found_on_path_or_by_path() {
        assert!(find_command("sh"));
        assert!(find_command("/bin/sh"));
        assert!(!find_command("surely-no-such-command-barrage"));
    }

    #[test]
    fn a_thread_pinned_runs_where_it_was_pinned() {
        let cpu = allowed_cpus()[0];
        let got = std::thread::spawn(move || {
            pin_current_thread(&[cpu]).unwrap();
            allowed_cpus()
        })
        .join()
        .unwrap();
        assert_eq!(got, vec![cpu]);
        assert!(pin_current_thread(&[]).is_err());
    }
}

//! What a dead barrage left behind, found and removed by the next one.
//!
//! Processes cannot outlive barrage (see `contain`), but the cgroups it made for its contenders
//! are directories that stay when it is killed before it removes them. Each is named after its
//! owner, `barrage-[track-]PID.START-N` (START: the owner's start time in clock ticks since boot,
//! so a reused pid is never taken for the owner), and listed in a record file named `PID.START` in
//! the state directory (`/run/barrage` as root, else `$XDG_RUNTIME_DIR/barrage`, else
//! `$TMPDIR/barrage-UID`). [`sweep_dead_runs`] reads every record whose owner is no longer alive,
//! kills whatever is still in its cgroups, removes them and the record; it also removes cgroups
//! named after dead owners under barrage's own cgroups (a record that could not be written).
//! Nothing of a live barrage is touched.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::sample::procfs;

/// What [`sweep_dead_runs`] removed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Swept {
    /// Cgroup directories of dead runs, removed.
    pub cgroups: Vec<PathBuf>,
    /// Processes that were still in them, killed.
    pub processes_killed: u32,
    /// Dead runs whose record was read and removed.
    pub runs: u32,
}

/// `PID.START` of this process: its name in records and cgroup names.
pub(super) fn owner_tag() -> &'static str {
    static TAG: OnceLock<String> = OnceLock::new();
    TAG.get_or_init(|| {
        let pid = std::process::id() as i32;
        let start = procfs::read_stat(pid).map_or(0, |s| s.starttime);
        format!("{pid}.{start}")
    })
}

/// The directory of the records.
fn state_dir() -> PathBuf {
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    if uid == 0 {
        return PathBuf::from("/run/barrage");
    }
    match std::env::var_os("XDG_RUNTIME_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d).join("barrage"),
        _ => std::env::temp_dir().join(format!("barrage-{uid}")),
    }
}

/// Adds a cgroup this process made to its record (best effort: the name alone still lets a later
/// sweep find it under barrage's own cgroups).
pub(super) fn record(cgroup: &Path) {
    let dir = state_dir();
    let _ = std::fs::create_dir_all(&dir);
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(owner_tag()))
    {
        let _ = writeln!(f, "{}", cgroup.display());
    }
}

/// Whether the owner `PID.START` is a live process.
fn alive(tag: &str) -> bool {
    let Some((pid, start)) = tag.split_once('.') else {
        return true; // not ours to judge
    };
    match (pid.parse::<i32>(), start.parse::<u64>()) {
        (Ok(pid), Ok(start)) => procfs::read_stat(pid)
            .is_some_and(|s| s.starttime == start && s.state != b'Z' && s.state != b'X'),
        _ => true,
    }
}

/// The owner tag in a cgroup's name (`barrage-track-PID.START-N` or `barrage-PID.START-N`).
fn owner_of(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("barrage-")?;
    let rest = rest.strip_prefix("track-").unwrap_or(rest);
    let (tag, seq) = rest.rsplit_once('-')?;
    (tag.contains('.') && seq.parse::<u32>().is_ok()).then_some(tag)
}

/// Kills every process in the cgroup at `dir` and removes it; true when it is gone.
fn remove_cgroup(dir: &Path, killed: &mut u32) -> bool {
    let procs = dir.join("cgroup.procs");
    let end = Instant::now() + Duration::from_secs(2);
    loop {
        let pids: Vec<i32> = std::fs::read_to_string(&procs)
            .map(|t| t.lines().filter_map(|l| l.trim().parse().ok()).collect())
            .unwrap_or_default();
        if pids.is_empty() || Instant::now() >= end {
            break;
        }
        for p in pids {
            // SAFETY: kill has no memory-safety preconditions.
            if unsafe { libc::kill(p, libc::SIGKILL) } == 0 {
                *killed += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    for _ in 0..100 {
        if std::fs::remove_dir(dir).is_ok() || !dir.exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// Barrage's own cgroups, where its contenders' cgroups are made (v2, v1 memory and cpuacct).
fn own_parents() -> Vec<PathBuf> {
    let root = Path::new("/sys/fs/cgroup");
    let mut v = Vec::new();
    if super::track::is_v2() {
        v.extend(super::track::own_cgroup("").map(|o| root.join(o.trim_start_matches('/'))));
    } else {
        for ctrl in ["memory", "cpuacct"] {
            v.extend(
                super::track::own_cgroup(ctrl)
                    .map(|o| root.join(ctrl).join(o.trim_start_matches('/'))),
            );
        }
    }
    v
}

/// Removes what dead barrage runs left: their cgroups (killing anything still in them) and
/// their records. Safe beside a live barrage: only owners that are no longer alive are swept.
pub fn sweep_dead_runs() -> Swept {
    let mut out = Swept::default();
    let me = owner_tag();
    let remove = |dir: &Path, out: &mut Swept| {
        if dir.exists() && remove_cgroup(dir, &mut out.processes_killed) {
            out.cgroups.push(dir.to_path_buf());
        }
    };
    if let Ok(records) = std::fs::read_dir(state_dir()) {
        for e in records.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name == me || alive(&name) {
                continue;
            }
            let listed = std::fs::read_to_string(e.path()).unwrap_or_default();
            for line in listed.lines().filter(|l| !l.is_empty()) {
                // Only barrage's own cgroups, named after this very owner.
                let p = Path::new(line);
                let named = p
                    .file_name()
                    .and_then(|n| owner_of(&n.to_string_lossy()).map(|t| t == name))
                    .unwrap_or(false);
                if named && p.starts_with("/sys/fs/cgroup") {
                    remove(p, &mut out);
                }
            }
            let _ = std::fs::remove_file(e.path());
            out.runs += 1;
        }
    }
    for parent in own_parents() {
        let Ok(entries) = std::fs::read_dir(&parent) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(tag) = owner_of(&name) {
                if tag != me && !alive(tag) {
                    remove(&e.path(), &mut out);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cgroup_names_carry_their_owner() {
        assert_eq!(owner_of("barrage-track-12.345-0"), Some("12.345"));
        assert_eq!(owner_of("barrage-12.345-7"), Some("12.345"));
        assert_eq!(owner_of("barrage-12-7"), None); // an old name: no start time, not judged
        assert_eq!(owner_of("other-12.345-7"), None);
        assert_eq!(owner_of("barrage-track-12.345-x"), None);
    }

    #[test]
    fn only_dead_owners_are_dead() {
        assert!(alive(owner_tag()));
        let pid = std::process::id();
        // This pid with another start time is a process that no longer exists.
        assert!(!alive(&format!("{pid}.1")));
        assert!(!alive("2147483646.5"));
        assert!(alive("garbage"));
    }
}

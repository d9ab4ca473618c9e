//! The `barrage.study/2` results document: the study, the machine, the pinning, every trial with
//! its samples, windows and load results, and the statistics. Written atomically (temp file +
//! rename) after every trial, so an interrupted study keeps what it measured and can be resumed.
//!
//! The JSON Schema is `docs/schema/study.schema.json`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

pub use barrage_model::study::*;

/// Errors reading or writing a results directory.
#[derive(Debug, Error)]
pub enum ResultsError {
    #[error("cannot write {path}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a barrage.study results file: {why}")]
    Format { path: PathBuf, why: String },
}

/// Write `results.json` atomically into `dir` (temp file, fsync, rename).
pub fn write(r: &Results, dir: &Path) -> Result<(), ResultsError> {
    let json = serde_json::to_vec_pretty(r).map_err(|e| ResultsError::Write {
        path: dir.join("results.json"),
        source: std::io::Error::other(e),
    })?;
    write_atomic(&dir.join("results.json"), &json)
}

/// Read a `results.json` (a file, or a directory holding one).
pub fn read(path: &Path) -> Result<Results, ResultsError> {
    let path = if path.is_dir() {
        path.join("results.json")
    } else {
        path.to_path_buf()
    };
    let bytes = std::fs::read(&path).map_err(|source| ResultsError::Read {
        path: path.clone(),
        source,
    })?;
    let v: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| ResultsError::Format {
            path: path.clone(),
            why: e.to_string(),
        })?;
    let schema = v.get("schema").and_then(|s| s.as_str()).unwrap_or_default();
    if !SCHEMAS_READ.contains(&schema) {
        return Err(ResultsError::Format {
            path,
            why: format!("schema {schema:?} is none of {SCHEMAS_READ:?}"),
        });
    }
    serde_json::from_value(v).map_err(|e| ResultsError::Format {
        path,
        why: e.to_string(),
    })
}

/// Write `bytes` to `path` atomically: a temp file in the same directory, fsync, rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ResultsError> {
    let err = |source| ResultsError::Write {
        path: path.to_path_buf(),
        source,
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp{}", std::process::id()));
    let written = std::fs::File::create(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    let res = written.and_then(|()| std::fs::rename(&tmp, path));
    if res.is_err() {
        // A write that failed (a full disk) must not leave its partial copy on that disk; the
        // previous results file, if any, is untouched.
        let _ = std::fs::remove_file(&tmp);
    }
    res.map_err(err)
}

pub use barrage_model::time::{now_rfc3339, rfc3339, stamp};

/// Facts about this machine, best effort (missing files give empty fields).
pub fn machine() -> Machine {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let cpu_model = read("/proc/cpuinfo")
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_default();
    let memory_bytes = read("/proc/meminfo")
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|k| k.parse::<u64>().ok())
        .map_or(0, |k| k * 1024);
    let os = read("/etc/os-release")
        .lines()
        .find(|l| l.starts_with("PRETTY_NAME="))
        .map(|l| {
            l.trim_start_matches("PRETTY_NAME=")
                .trim_matches('"')
                .to_string()
        })
        .unwrap_or_else(|| std::env::consts::OS.to_string());
    // SAFETY: sysconf has no preconditions.
    let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    Machine {
        hostname: read("/proc/sys/kernel/hostname").trim().to_string(),
        os,
        kernel: read("/proc/sys/kernel/osrelease").trim().to_string(),
        cpu_model,
        cpus: usize::try_from(online).unwrap_or(1),
        available_cpus: available_cpus(),
        memory_bytes,
    }
}

/// CPUs this process may run on (its affinity mask).
pub fn available_cpus() -> Vec<usize> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity fills it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// Key of a (point, contender) cell.
pub type CellKey = (usize, String);

/// The index trials run now record as their machine (`Trial::machine`): 0 for the machine the
/// results began on, else that of `other_machines`, added when a resumed run goes on elsewhere
/// (a machine is its CPU model, CPU count, memory and host name).
pub fn machine_index(r: &mut Results, now: Machine) -> u32 {
    let same = |m: &Machine| {
        m.cpu_model == now.cpu_model
            && m.cpus == now.cpus
            && m.memory_bytes == now.memory_bytes
            && m.hostname == now.hostname
    };
    if same(&r.machine) || r.machine.cpu_model.is_empty() && r.machine.hostname.is_empty() {
        return 0;
    }
    if let Some(i) = r.other_machines.iter().position(same) {
        return i as u32 + 1;
    }
    r.other_machines.push(now);
    r.other_machines.len() as u32
}

/// Count of trials already recorded per cell (for resume).
pub fn done_counts(r: &Results) -> BTreeMap<CellKey, u32> {
    let mut m = BTreeMap::new();
    for t in &r.trials {
        *m.entry((t.point, t.contender.clone())).or_insert(0) += 1;
    }
    m
}

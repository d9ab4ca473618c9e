//! What a contender is before it starts: its [`Spec`] (command, role, stop, pinning, limits,
//! output), its readiness [`Probe`], and the errors of supervision itself.

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Whether the contender is a server (runs until barrage stops it) or a client (runs to its own
/// completion within a time budget). It decides how an exit is classified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Expected to run until stopped; exiting on its own before the stop is a failure.
    Server,
    /// Expected to exit by itself with code 0 within the budget.
    Client,
}

/// What to do with the contender's stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StdoutMode {
    /// Read and drop (still drained, so the child never blocks); only the byte count is kept.
    Discard,
    /// Keep the first `limit` bytes (for validation); the total byte count is always kept.
    Capture { limit: usize },
}

/// How a memory limit is enforced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryLimitMode {
    /// A cgroup (v2 `memory.max`, else v1 `memory.limit_in_bytes`) when one can be created under
    /// /sys/fs/cgroup, otherwise `RLIMIT_AS`.
    #[default]
    Auto,
    /// Only `RLIMIT_AS` (address space per process: counts reservations, not residency; runtimes
    /// that reserve large heaps, like Go or the JVM, may fail at start under a tight limit).
    Rlimit,
    /// Only a cgroup; spawning fails if none can be created.
    Cgroup,
}

/// Everything needed to start one contender process.
#[derive(Debug, Clone)]
pub struct Spec {
    /// For messages only.
    pub name: String,
    /// Shell command, run as `sh -c <command>`.
    pub command: String,
    /// Working directory.
    pub dir: PathBuf,
    /// Extra environment (added to barrage's own environment).
    pub env: Vec<(String, String)>,
    pub role: Role,
    /// Signal sent to the whole group to stop it (default SIGTERM).
    pub stop_signal: i32,
    /// Time between the stop signal and SIGKILL (default 5 s).
    pub grace: Duration,
    /// Pin the contender (and everything it starts) to these CPUs.
    pub cpus: Option<Vec<usize>>,
    /// Memory limit in bytes.
    pub memory_limit: Option<u64>,
    pub memory_limit_mode: MemoryLimitMode,
    pub stdout: StdoutMode,
    /// How many bytes of the end of stderr to keep (default 64 KiB).
    pub stderr_tail: usize,
    /// Contain the contender in a cgroup of its own when one can be made (default true); without
    /// one, barrage is the subreaper of what the contender leaves behind.
    pub cgroup: bool,
    /// Start the contender's processes in a PID namespace of their own, which the kernel empties
    /// when barrage dies in any way (default true; see `contain`). Without `CAP_SYS_ADMIN` the
    /// contender runs without one.
    pub pid_namespace: bool,
}

impl Spec {
    /// A spec with the defaults: server role, SIGTERM, 5 s grace, no pinning, no limit, stdout
    /// discarded, 64 KiB stderr tail, current directory.
    pub fn new(name: impl Into<String>, command: impl Into<String>) -> Spec {
        Spec {
            name: name.into(),
            command: command.into(),
            dir: PathBuf::from("."),
            env: Vec::new(),
            role: Role::Server,
            stop_signal: libc::SIGTERM,
            grace: Duration::from_secs(5),
            cpus: None,
            memory_limit: None,
            memory_limit_mode: MemoryLimitMode::Auto,
            stdout: StdoutMode::Discard,
            stderr_tail: 64 * 1024,
            cgroup: true,
            pid_namespace: true,
        }
    }
}

/// A readiness probe for servers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// Ready when a TCP connect to `addr` succeeds.
    Tcp { addr: SocketAddr },
    /// Ready when `GET path` on `addr` answers with `expect_status` (any status when `None`).
    Http {
        addr: SocketAddr,
        path: String,
        expect_status: Option<u16>,
    },
    /// Ready when a UDP socket is bound at `port` in the network namespace of process `pid`
    /// (its `/proc/PID/net/udp` and `udp6`): a server of datagrams (QUIC) answers nothing a
    /// probe could send, so the probe asks the kernel instead.
    UdpBound { pid: i32, port: u16 },
}

/// Errors of supervision itself (not of the contender, whose failures are [`super::Outcome`]s).
#[derive(Debug, thiserror::Error)]
pub enum SuperviseError {
    #[error("cannot spawn `{command}`: {source}")]
    Spawn { command: String, source: io::Error },
    #[error("cannot set up the memory cgroup: {0}")]
    Cgroup(io::Error),
    #[error("invalid cpu list: {0}")]
    Cpus(String),
    #[error("cannot install the interrupt handler: {0}")]
    Signal(io::Error),
    #[error("system call failed: {0}")]
    Sys(io::Error),
}

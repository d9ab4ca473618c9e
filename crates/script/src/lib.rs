//! wrk's Lua scripting API (wrk's SCRIPTING document) for `barrage load -s SCRIPT`: the global
//! `wrk` table (`scheme`, `host`, `port`, `method`, `path`, `headers`, `body`, `thread`),
//! `wrk.format`, `wrk.request`, `wrk.lookup`, `wrk.connect`, and the hooks `setup(thread)`,
//! `init(args)`, `delay()`, `request()`, `response(status, headers, body)` and
//! `done(summary, latency, requests)`, so the scripts wrk's users keep run unchanged.
//!
//! As in wrk, each worker thread has its own Lua state ([`Thread`], LuaJIT) and the setup and
//! done phases run in another ([`Setup`]). What a script's `request()` returns is HTTP/1.1
//! text (one request or several: wrk's pipeline.lua); it is parsed into [`Request`]s the engine
//! encodes for whatever protocol it speaks, and parsed again only when the text changes (the
//! same Lua string back, which LuaJIT interns, is [`Produced::Same`]). `response()` is called
//! only when the script defines it (wrk's rule: handing headers and body to Lua costs).
//!
//! Nothing here prints, ends the process or touches the network by itself: what a script
//! prints (`print`, `io.write`) is kept for the caller ([`Thread::take_output`], [`Setup::done`]'s
//! text, [`Failed::printed`] when it stopped), `os.exit(n)` comes back as
//! [`ScriptError::Exit`] for the caller to carry out, and `wrk.lookup` and `wrk.connect` go
//! through the caller's [`Resolver`].
//!
//! The states are LuaJIT's with all its libraries and `require` as wrk's (Debian's) LuaJIT has
//! it: `package.path`/`package.cpath` as there ([`env`]), so C modules such as lua-cjson load
//! (the binary exports the Lua API for them: see `build.rs` in the crates that link one). The
//! hooks that run once (the script's top level, `setup()`, `init()`, `done()`, and the probe's
//! `request()`) run under a [`Bound`]: interpreted, with an instruction-count hook that stops
//! them at its time or when its flag is set. The per-request hooks run compiled, unbounded.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod env;
mod request;
mod setup;
mod thread;
mod transfer;

pub use env::{DEFAULT_CPATH, DEFAULT_PATH};
pub use request::{parse_requests, request_spans, split_requests, Request};
pub use setup::{Distribution, Errors, Setup, Summary, ThreadSetup};
pub use thread::{Produced, Thread};
pub use transfer::Transfer;

/// A script that failed, in one line: the file and line where Lua knows them, and the hook.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScriptError {
    #[error("{path}: {message}")]
    Read { path: String, message: String },
    /// The script does not compile (Lua's message names the file and the line).
    #[error("{0}")]
    Syntax(String),
    /// A hook (or the script's top level, `hook` = "the script") raised an error.
    #[error("{message} (in {hook})")]
    Hook { hook: &'static str, message: String },
    /// A hook returned what wrk would not take.
    #[error("{file}: {hook} returned {what}")]
    BadReturn {
        file: String,
        hook: &'static str,
        what: String,
    },
    /// `request()` returned text that is not HTTP/1.1 requests.
    #[error("{file}: request() returned text that is not an HTTP/1.1 request: {reason}")]
    BadRequest { file: String, reason: String },
    /// The script called `os.exit(status)`: wrk's process would end there, with `status` (the
    /// low 8 bits of the number, as exit(3) keeps them; `true` or nothing 0, `false` 1).
    #[error("{file}: os.exit({status}) in {hook}")]
    Exit {
        file: String,
        hook: &'static str,
        status: u8,
    },
    /// A hook that runs once did not return by its [`Bound`]'s time.
    #[error("{file}: {hook} did not return {limit} (stopped after {ran:.1?})")]
    Stuck {
        file: String,
        hook: &'static str,
        /// What the time was ([`Bound::limit`]).
        limit: String,
        ran: Duration,
    },
    /// A hook that runs once was stopped by its [`Bound`]'s flag (Ctrl-C).
    #[error("{file}: {hook} was interrupted")]
    Interrupted { file: String, hook: &'static str },
}

impl ScriptError {
    /// The status `os.exit` asked for, when that is what this is.
    pub fn exit_status(&self) -> Option<u8> {
        match self {
            ScriptError::Exit { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// A script that stopped before it could run (its top level, `setup()` or `init()` failed, was
/// stopped, or called `os.exit`): why, and what it printed before, which is never lost.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{error}")]
pub struct Failed {
    pub error: ScriptError,
    pub printed: Vec<u8>,
}

impl From<ScriptError> for Failed {
    fn from(error: ScriptError) -> Failed {
        Failed {
            error,
            printed: Vec::new(),
        }
    }
}

/// What stops a hook that runs once (the script's top level, `setup()`, `init()`, `done()`,
/// the probe's `request()`) when it does not return: a time ([`ScriptError::Stuck`]) and a flag
/// the caller sets, for Ctrl-C ([`ScriptError::Interrupted`]). Without either it may run for
/// ever, as under wrk.
#[derive(Debug, Clone, Default)]
pub struct Bound {
    pub until: Option<Instant>,
    /// When `until` is, in the words of the error: `"by the run's end plus 2s"`.
    pub limit: String,
    pub cancel: Option<Arc<AtomicBool>>,
}

/// The run's target, as wrk puts it in the `wrk` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The URL as given on the command line: `init(args)`'s `args[0]`, as wrk gives it.
    pub url: String,
    pub scheme: String,
    pub host: String,
    /// The port the URL names (wrk leaves `wrk.port` nil when the URL has none).
    pub port: Option<u16>,
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
}

/// `wrk.lookup` and `wrk.connect`, the script's only way to the network, done by the caller.
pub trait Resolver {
    /// The addresses of `host` for `service` (a port number or a name), as getaddrinfo.
    fn lookup(&self, host: &str, service: &str) -> Vec<SocketAddr>;
    /// Whether a connection to `addr` can be made.
    fn connect(&self, addr: SocketAddr) -> bool;
}

/// A script file, read and compiled once (a syntax error is found before any load is sent).
#[derive(Debug, Clone)]
pub struct Script {
    path: PathBuf,
    /// The name Lua gives the chunk (`@file`), so errors read `file:line:`.
    name: String,
    source: String,
    /// Extra arguments after `--`, handed to `init(args)`.
    pub args: Vec<String>,
}

impl Script {
    /// Reads and compiles `path`.
    pub fn load(path: &Path, args: Vec<String>) -> Result<Script, ScriptError> {
        let source = std::fs::read_to_string(path).map_err(|e| ScriptError::Read {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Script::from_source(path, source, args)
    }

    /// A script from its text (`path` names it in errors).
    pub fn from_source(
        path: &Path,
        source: String,
        args: Vec<String>,
    ) -> Result<Script, ScriptError> {
        let script = Script {
            name: format!("@{}", path.display()),
            path: path.to_path_buf(),
            source,
            args,
        };
        // Compiled only (nothing runs): the safe state will do.
        let lua = mlua::Lua::new();
        lua.load(&script.source)
            .set_name(&script.name)
            .into_function()
            .map_err(|e| ScriptError::Syntax(env::one_line(&e)))?;
        Ok(script)
    }

    /// The file, as errors name it.
    pub fn file(&self) -> String {
        self.path.display().to_string()
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_wild;

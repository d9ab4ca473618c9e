//! One Lua environment with wrk's API in it: LuaJIT with all its libraries and `require` as
//! wrk's (Debian's) LuaJIT has them, the `wrk` table filled from the [`Target`], the prelude's
//! `wrk.format` and thread start, `wrk.lookup`/`wrk.connect` through the caller's
//! [`Resolver`], `print`/`io.write` kept in a buffer rather than written (the caller prints),
//! `os.exit` kept as a status rather than carried out (the caller ends the process), and the
//! watch that stops a hook that runs once at its [`Bound`].

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use mlua::{Function, HookTriggers, Lua, LuaOptions, MultiValue, StdLib, Table, Value, VmState};

use crate::{Bound, Failed, Resolver, Script, ScriptError, Target};

const PRELUDE: &str = include_str!("prelude.lua");

/// Debian's multiarch directory for this machine, where its Lua C modules live.
#[cfg(target_arch = "aarch64")]
macro_rules! multiarch {
    () => {
        "aarch64-linux-gnu"
    };
}
#[cfg(target_arch = "riscv64")]
macro_rules! multiarch {
    () => {
        "riscv64-linux-gnu"
    };
}
#[cfg(not(any(target_arch = "aarch64", target_arch = "riscv64")))]
macro_rules! multiarch {
    () => {
        "x86_64-linux-gnu"
    };
}

/// `package.path` as Debian's wrk has it (its LuaJIT 2.1's default, printed by wrk 4.1.0 on
/// Debian 12): scripts `require` Lua modules from the same places. `LUA_PATH` replaces it as
/// LuaJIT reads that variable (`;;` in it stands for this).
pub const DEFAULT_PATH: &str = "./?.lua;/usr/share/luajit-2.1.0-beta3/?.lua;\
/usr/local/share/lua/5.1/?.lua;/usr/local/share/lua/5.1/?/init.lua;\
/usr/share/lua/5.1/?.lua;/usr/share/lua/5.1/?/init.lua";

/// `package.cpath` as Debian's wrk has it: C modules (lua-cjson's `cjson.so`) load from
/// Debian's multiarch directory. `LUA_CPATH` replaces it as LuaJIT reads that variable.
pub const DEFAULT_CPATH: &str = concat!(
    "./?.so;/usr/local/lib/lua/5.1/?.so;/usr/lib/",
    multiarch!(),
    "/lua/5.1/?.so;/usr/local/lib/lua/5.1/loadall.so"
);

/// What a script printed, kept for the caller.
pub(crate) type Output = Rc<RefCell<Vec<u8>>>;

/// Instructions between two looks at a [`Bound`] (a hook that runs once is interpreted: some
/// ten microseconds of work).
const WATCH_EVERY: u32 = 10_000;

/// Why a watched hook was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trip {
    Time,
    Cancel,
    Exit,
}

/// A Lua state with wrk's API, what it printed, and what `os.exit` asked.
pub(crate) struct Env {
    pub lua: Lua,
    pub out: Output,
    /// The status `os.exit` asked for: once set, the state is done (as wrk's process would be).
    pub exit: Rc<Cell<Option<u8>>>,
    /// The file, as errors name it.
    pub file: String,
    /// LuaJIT's `jit.on` and `jit.off`, taken before the script could change them.
    jit_on: Function,
    jit_off: Function,
}

impl Env {
    /// A fresh state with wrk's API and the script loaded (its top level run under `bound`).
    /// The JIT compiler is left off: [`Env::compiled`] turns it on for the per-request hooks.
    pub fn new(
        script: &Script,
        target: &Target,
        resolver: Arc<dyn Resolver + Send + Sync>,
        bound: &Bound,
    ) -> Result<Env, Failed> {
        // SAFETY: the state gets every LuaJIT library (ffi, debug) and loads C modules, as wrk
        // gives its scripts: what a script does with them is the user's own program, run as
        // wrk runs it (a C module or the ffi can break any invariant, as in any Lua host that
        // allows them). Nothing of barrage's is handed to the state but the functions below.
        let lua = unsafe { Lua::unsafe_new_with(StdLib::ALL, LuaOptions::new()) };
        let out: Output = Rc::default();
        let exit = Rc::new(Cell::new(None));
        let file = script.file();
        let (jit_on, jit_off) =
            setup(&lua, target, resolver, out.clone(), exit.clone()).map_err(|e| Failed {
                error: hook("the prelude", &e),
                printed: Vec::new(),
            })?;
        let env = Env {
            lua,
            out,
            exit,
            file,
            jit_on,
            jit_off,
        };
        // Cold code until the per-request hooks: interpreted, so the watch can stop it.
        env.jit_off
            .call::<()>(())
            .map_err(|e| env.failed(hook("the prelude", &e)))?;
        let chunk = env
            .lua
            .load(&script.source)
            .set_name(&script.name)
            .into_function()
            .map_err(|e| env.failed(hook("the script's top level", &e)))?;
        env.watched("the script's top level", bound, || chunk.call::<()>(()))
            .map_err(|e| env.failed(e))?;
        Ok(env)
    }

    /// `error` with what the state printed so far.
    pub fn failed(&self, error: ScriptError) -> Failed {
        Failed {
            error,
            printed: std::mem::take(&mut self.out.borrow_mut()),
        }
    }

    /// Runs `f` (a hook that runs once) under `bound`: the watch looks every
    /// [`WATCH_EVERY`] instructions and stops it at the bound's time, when its flag is set, or
    /// once `os.exit` was called (also when a `pcall` caught the exit). The JIT compiler must
    /// be off (LuaJIT calls no hook from compiled code).
    pub fn watched<R>(
        &self,
        name: &'static str,
        bound: &Bound,
        f: impl FnOnce() -> mlua::Result<R>,
    ) -> Result<R, ScriptError> {
        let tripped = Rc::new(Cell::new(None));
        let started = Instant::now();
        watch(
            &self.lua,
            Watch {
                until: bound.until,
                cancel: bound.cancel.clone(),
                exit: self.exit.clone(),
                tripped: tripped.clone(),
            },
            WATCH_EVERY,
        )
        .map_err(|e| hook(name, &e))?;
        let r = f();
        self.lua.remove_global_hook();
        self.lua.remove_hook();
        if let Some(status) = self.exit.get() {
            return Err(self.exit_error(name, status));
        }
        match tripped.get() {
            Some(Trip::Time) => Err(ScriptError::Stuck {
                file: self.file.clone(),
                hook: name,
                limit: bound.limit.clone(),
                ran: started.elapsed(),
            }),
            Some(Trip::Cancel) => Err(ScriptError::Interrupted {
                file: self.file.clone(),
                hook: name,
            }),
            Some(Trip::Exit) | None => r.map_err(|e| hook(name, &e)),
        }
    }

    /// A per-request hook's result: `os.exit` first (a `pcall` may have caught it), else the
    /// hook's error, named.
    pub fn checked<R>(&self, name: &'static str, r: mlua::Result<R>) -> Result<R, ScriptError> {
        if let Some(status) = self.exit.get() {
            return Err(self.exit_error(name, status));
        }
        r.map_err(|e| hook(name, &e))
    }

    /// Turns LuaJIT's compiler on, for the per-request hooks (which then run unbounded).
    pub fn compiled(&self) -> Result<(), ScriptError> {
        self.jit_on
            .call::<()>(())
            .map_err(|e| hook("the prelude", &e))
    }

    fn exit_error(&self, name: &'static str, status: u8) -> ScriptError {
        ScriptError::Exit {
            file: self.file.clone(),
            hook: name,
            status,
        }
    }
}

/// What the watch looks at.
#[derive(Clone)]
struct Watch {
    until: Option<Instant>,
    cancel: Option<Arc<std::sync::atomic::AtomicBool>>,
    exit: Rc<Cell<Option<u8>>>,
    tripped: Rc<Cell<Option<Trip>>>,
}

/// Sets the count hook. Once tripped it raises at every instruction: a `pcall` in a loop cannot
/// catch every one of them, so the stop reaches the hook's caller.
fn watch(lua: &Lua, w: Watch, every: u32) -> mlua::Result<()> {
    lua.set_global_hook(
        HookTriggers::new().every_nth_instruction(every),
        move |lua, _| {
            let why = w.tripped.get().or_else(|| {
                if w.exit.get().is_some() {
                    Some(Trip::Exit)
                } else if w.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed)) {
                    Some(Trip::Cancel)
                } else if w.until.is_some_and(|u| Instant::now() >= u) {
                    Some(Trip::Time)
                } else {
                    None
                }
            });
            let Some(why) = why else {
                return Ok(VmState::Continue);
            };
            w.tripped.set(Some(why));
            if every > 1 {
                watch(lua, w.clone(), 1)?;
            }
            Err(mlua::Error::runtime("stopped by barrage"))
        },
    )
}

/// `package.path` or `package.cpath` as LuaJIT sets it: the variable `var` when set, its `;;`
/// standing for `default`, else `default`.
fn search_path(var: &str, default: &str) -> String {
    search_path_from(std::env::var(var).ok().as_deref(), default)
}

/// [`search_path`] from the variable's value.
pub(crate) fn search_path_from(value: Option<&str>, default: &str) -> String {
    match value {
        Some(p) => p.replace(";;", ";\u{1};").replace('\u{1}', default),
        None => default.to_owned(),
    }
}

/// The status `os.exit(code)` ends a process with, as LuaJIT's: nothing or `true` 0, `false`
/// 1, a number (or a string of one) its low 8 bits, as exit(3) keeps them.
fn exit_status(lua: &Lua, code: Option<Value>) -> mlua::Result<u8> {
    Ok(match code {
        None | Some(Value::Nil) | Some(Value::Boolean(true)) => 0,
        Some(Value::Boolean(false)) => 1,
        Some(v) => {
            let kind = v.type_name();
            match lua.coerce_number(v)? {
                // luaL_optint truncates to an int; exit keeps its low byte.
                Some(n) => (n.trunc() as i64 as i32) as u8,
                None => {
                    return Err(located(
                        lua,
                        format!("bad argument #1 to 'exit' (number expected, got {kind})"),
                    ))
                }
            }
        }
    })
}

/// The `wrk` table, the prelude, the search paths, `print`/`io.write` into `out` and `os.exit`
/// into `exit`; gives `jit.on` and `jit.off`.
fn setup(
    lua: &Lua,
    target: &Target,
    resolver: Arc<dyn Resolver + Send + Sync>,
    out: Output,
    exit: Rc<Cell<Option<u8>>>,
) -> mlua::Result<(Function, Function)> {
    let g = lua.globals();
    // wrk's LuaJIT opens ffi for `require "ffi"` only: no global.
    g.set("ffi", Value::Nil)?;
    let package: Table = g.get("package")?;
    package.set("path", search_path("LUA_PATH", DEFAULT_PATH))?;
    package.set("cpath", search_path("LUA_CPATH", DEFAULT_CPATH))?;
    let jit: Table = g.get("jit")?;
    let (jit_on, jit_off) = (jit.get("on")?, jit.get("off")?);
    let wrk = lua.create_table()?;
    wrk.set("scheme", target.scheme.as_str())?;
    wrk.set("host", target.host.as_str())?;
    wrk.set("port", target.port)?;
    wrk.set("method", target.method.as_str())?;
    wrk.set("path", target.path.as_str())?;
    if let Some(b) = &target.body {
        wrk.set("body", lua.create_string(b)?)?;
    }
    let r = resolver.clone();
    wrk.set(
        "lookup",
        lua.create_function(move |_, (host, service): (String, Value)| {
            let service = match service {
                Value::Nil => "80".to_owned(),
                v => v.to_string()?,
            };
            Ok(r.lookup(&host, &service)
                .iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>())
        })?,
    )?;
    wrk.set(
        "connect",
        lua.create_function(move |_, addr: String| {
            Ok(addr.parse().map(|a| resolver.connect(a)).unwrap_or(false))
        })?,
    )?;
    g.set("wrk", wrk.clone())?;
    lua.load(PRELUDE).set_name("@barrage-prelude.lua").exec()?;
    let headers: Table = wrk.get("headers")?;
    for (k, v) in &target.headers {
        headers.set(k.as_str(), v.as_str())?;
    }
    // print and io.write into the buffer.
    let o = out.clone();
    let print = lua.create_function(move |lua, args: MultiValue| {
        let tostring: Function = lua.globals().get("tostring")?;
        let mut line = Vec::new();
        for (i, a) in args.into_iter().enumerate() {
            if i > 0 {
                line.push(b'\t');
            }
            let s: mlua::String = tostring.call(a)?;
            line.extend_from_slice(&s.as_bytes());
        }
        line.push(b'\n');
        o.borrow_mut().extend_from_slice(&line);
        Ok(())
    })?;
    g.set("print", print)?;
    let io: Table = g.get("io")?;
    let write = lua.create_function(move |_, args: MultiValue| {
        for a in args {
            match a {
                Value::String(s) => out.borrow_mut().extend_from_slice(&s.as_bytes()),
                Value::Integer(_) | Value::Number(_) => out
                    .borrow_mut()
                    .extend_from_slice(a.to_string()?.as_bytes()),
                other => {
                    return Err(mlua::Error::runtime(format!(
                        "bad argument to 'write' (string expected, got {})",
                        other.type_name()
                    )))
                }
            }
        }
        Ok(())
    })?;
    io.set("write", write)?;
    // os.exit ends wrk's process at once; here it ends the state (the hook stops with
    // ScriptError::Exit) and the caller ends the process, after the run's report is out.
    let os: Table = g.get("os")?;
    let os_exit = lua.create_function(move |lua, args: MultiValue| -> mlua::Result<()> {
        let status = exit_status(lua, args.into_iter().next())?;
        // The first exit is the process's: later hooks of an ended state cannot change it.
        if exit.get().is_none() {
            exit.set(Some(status));
        }
        Err(mlua::Error::runtime(format!("os.exit({status})")))
    })?;
    os.set("exit", os_exit)?;
    Ok((jit_on, jit_off))
}

/// An error raised by one of the functions given to the script, located as Lua's own
/// (`file:line: ` of the script's code that called it, as luaL_error writes; mlua's own
/// wrappers, such as its `__newindex`, are passed over).
pub(crate) fn located(lua: &Lua, message: impl std::fmt::Display) -> mlua::Error {
    let at = (1..8)
        .find_map(|level| {
            lua.inspect_stack(level, |d| {
                let line = d.current_line()?;
                let src = d.source().short_src?.into_owned();
                (!src.starts_with("__mlua")).then(|| format!("{src}:{line}: "))
            })?
        })
        .unwrap_or_default();
    mlua::Error::runtime(format!("{at}{message}"))
}

/// A hook's error as one line: Lua's message (`file:line: what`), without the traceback.
pub(crate) fn hook(hook: &'static str, e: &mlua::Error) -> ScriptError {
    ScriptError::Hook {
        hook,
        message: one_line(e),
    }
}

/// The first line of a Lua error, without mlua's "runtime error: " or "syntax error: ".
pub(crate) fn one_line(e: &mlua::Error) -> String {
    let mut cause = e;
    while let mlua::Error::CallbackError { cause: c, .. } = cause {
        cause = c;
    }
    let text = cause.to_string();
    let first = text.lines().next().unwrap_or("").trim();
    first
        .strip_prefix("runtime error: ")
        .or_else(|| first.strip_prefix("syntax error: "))
        .unwrap_or(first)
        .to_owned()
}

//! The setup and done phases, in an environment of their own as in wrk: `setup(thread)` once
//! for each thread before any starts (its `thread.addr` and `thread:set` values go to that
//! thread), and `done(summary, latency, requests)` once after the run, where `thread:get`
//! reads each thread's globals as they were when it finished.

use std::cell::RefCell;
use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::Arc;

use mlua::{Function, Lua, MetaMethod, UserData, UserDataFields, UserDataMethods, Value};

use crate::env::{self, Output};
use crate::transfer::Transfer;
use crate::{Resolver, Script, ScriptError, Target};

/// What the setup phase gives one thread.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ThreadSetup {
    /// `thread.addr` ("ip:port"), as setup left it.
    pub addr: Option<String>,
    /// The globals `thread:set` gave it, in order.
    pub globals: Vec<(String, Transfer)>,
}

/// A thread as the setup and done phases see it.
#[derive(Default)]
struct Handle {
    setup: ThreadSetup,
    /// The thread's globals when it finished (the done phase's `thread:get`).
    finished: Option<Vec<(String, Transfer)>>,
}

#[derive(Clone)]
struct Shared(Rc<RefCell<Handle>>);

impl UserData for Shared {
    fn add_fields<F: UserDataFields<Self>>(f: &mut F) {
        f.add_field_method_get("addr", |_, this| Ok(this.0.borrow().setup.addr.clone()));
        f.add_field_method_set("addr", |_, this, addr: Option<String>| {
            this.0.borrow_mut().setup.addr = addr;
            Ok(())
        });
    }

    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("get", |lua, this, name: String| {
            let h = this.0.borrow();
            let from = h.finished.as_ref().unwrap_or(&h.setup.globals);
            match from.iter().rev().find(|(n, _)| *n == name) {
                Some((_, v)) => v.to_lua(lua),
                None => Ok(Value::Nil),
            }
        });
        m.add_method("set", |_, this, (name, value): (String, Value)| {
            let v = Transfer::from_lua(&value).map_err(mlua::Error::runtime)?;
            this.0.borrow_mut().setup.globals.push((name, v));
            Ok(())
        });
        m.add_method("stop", |_, _, ()| -> mlua::Result<()> {
            Err(mlua::Error::runtime(
                "thread:stop() can only be called while the thread runs",
            ))
        });
    }
}

/// A run's figures, as `done`'s `summary` table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub duration_us: u64,
    pub requests: u64,
    pub bytes: u64,
    pub errors: Errors,
}

/// wrk's error counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Errors {
    pub connect: u64,
    pub read: u64,
    pub write: u64,
    /// Responses with a status above 399.
    pub status: u64,
    pub timeout: u64,
}

/// `done`'s `latency` (µs) and `requests` (per-thread requests/s) objects.
pub trait Distribution {
    fn min(&self) -> f64;
    fn max(&self) -> f64;
    fn mean(&self) -> f64;
    fn stdev(&self) -> f64;
    /// The value at percentile `p` (0-100).
    fn percentile(&self, p: f64) -> f64;
    /// The `i`-th recorded value (from 1 over the distinct values, ascending) and its count.
    fn raw(&self, i: usize) -> Option<(f64, u64)>;
}

struct Dist(Rc<dyn Distribution>);

impl UserData for Dist {
    fn add_fields<F: UserDataFields<Self>>(f: &mut F) {
        f.add_field_method_get("min", |_, d| Ok(d.0.min()));
        f.add_field_method_get("max", |_, d| Ok(d.0.max()));
        f.add_field_method_get("mean", |_, d| Ok(d.0.mean()));
        f.add_field_method_get("stdev", |_, d| Ok(d.0.stdev()));
    }

    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("percentile", |_, d, p: f64| Ok(d.0.percentile(p)));
        // latency(i): the i-th value and its count, or nothing past the last.
        m.add_meta_method(MetaMethod::Call, |_, d, i: usize| {
            Ok(match d.0.raw(i) {
                Some((v, n)) => (Some(v), Some(n)),
                None => (None, None),
            })
        });
    }
}

/// The setup and done environment.
pub struct Setup {
    lua: Lua,
    out: Output,
    handles: Vec<Shared>,
}

impl Setup {
    /// Runs the setup phase for `threads` threads, each starting at `addr`; returns what each
    /// thread gets.
    pub fn new(
        script: &Script,
        target: &Target,
        resolver: Arc<dyn Resolver + Send + Sync>,
        threads: usize,
        addr: Option<SocketAddr>,
    ) -> Result<(Setup, Vec<ThreadSetup>), ScriptError> {
        let (lua, out) = env::new(script, target, resolver)?;
        let host: Function = lua
            .globals()
            .get("__barrage_host")
            .map_err(|e| env::hook("setup()", &e))?;
        host.call::<()>(()).map_err(|e| env::hook("setup()", &e))?;
        let setup: Option<Function> = lua.globals().get("setup").ok().flatten();
        let mut handles = Vec::with_capacity(threads);
        for _ in 0..threads {
            let h = Shared(Rc::new(RefCell::new(Handle {
                setup: ThreadSetup {
                    addr: addr.map(|a| a.to_string()),
                    globals: Vec::new(),
                },
                finished: None,
            })));
            if let Some(f) = &setup {
                let ud = lua
                    .create_userdata(h.clone())
                    .map_err(|e| env::hook("setup()", &e))?;
                f.call::<()>(ud).map_err(|e| env::hook("setup()", &e))?;
            }
            handles.push(h);
        }
        let given = handles.iter().map(|h| h.0.borrow().setup.clone()).collect();
        Ok((Setup { lua, out, handles }, given))
    }

    /// What the setup phase printed.
    pub fn take_output(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out.borrow_mut())
    }

    /// Whether the script defines `done`.
    pub fn has_done(&self) -> bool {
        matches!(
            self.lua.globals().get::<Value>("done"),
            Ok(Value::Function(_))
        )
    }

    /// Calls `done(summary, latency, requests)`, each thread's globals as it finished
    /// (`finished[i]` for thread i) readable by `thread:get`; returns what it printed.
    pub fn done(
        &mut self,
        summary: &Summary,
        latency: Rc<dyn Distribution>,
        requests: Rc<dyn Distribution>,
        finished: Vec<Vec<(String, Transfer)>>,
    ) -> Result<Vec<u8>, ScriptError> {
        for (h, g) in self.handles.iter().zip(finished) {
            h.0.borrow_mut().finished = Some(g);
        }
        let Ok(Value::Function(f)) = self.lua.globals().get::<Value>("done") else {
            return Ok(self.take_output());
        };
        let lua = &self.lua;
        let call = || -> mlua::Result<()> {
            let s = lua.create_table()?;
            s.set("duration", summary.duration_us)?;
            s.set("requests", summary.requests)?;
            s.set("bytes", summary.bytes)?;
            let e = lua.create_table()?;
            e.set("connect", summary.errors.connect)?;
            e.set("read", summary.errors.read)?;
            e.set("write", summary.errors.write)?;
            e.set("status", summary.errors.status)?;
            e.set("timeout", summary.errors.timeout)?;
            s.set("errors", e)?;
            f.call::<()>((s, Dist(latency), Dist(requests)))
        };
        call().map_err(|e| env::hook("done()", &e))?;
        Ok(self.take_output())
    }
}

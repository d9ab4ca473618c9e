//! The setup and done phases, in an environment of their own as in wrk: `setup(thread)` once
//! for each thread before any starts (its `thread.addr` and `thread:set` values go to that
//! thread), and `done(summary, latency, requests)` once after the run, where `thread:get`
//! reads each thread's globals as they were when it finished. This state runs hooks that run
//! once only: interpreted, each under the caller's [`Bound`].

use std::cell::RefCell;
use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::Arc;

use mlua::{Function, Lua, MetaMethod, UserData, UserDataFields, UserDataMethods, Value};

use crate::env::{self, Env};
use crate::transfer::Transfer;
use crate::{Bound, Failed, Resolver, Script, Target};

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
        f.add_field_method_set("addr", |lua, this, addr: Value| {
            this.0.borrow_mut().setup.addr = Some(crate::thread::address(lua, addr)?);
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
    /// How many distinct values were recorded (`#latency`).
    fn distinct(&self) -> usize;
    /// The `i`-th recorded value (from 1 over the distinct values, ascending) and its count.
    fn raw(&self, i: usize) -> Option<(f64, u64)>;
}

/// A [`Distribution`] as wrk's `wrk.stats` userdata: the fields `min`, `max`, `mean`, `stdev`
/// and the method `percentile`; `#d` the number of distinct values; `d(i)` the `i`-th value
/// and its count, or 0 and `#d` past the last (wrk's stats_value_at); any other key indexes to
/// itself as a string (wrk's `__index` leaves the key it converted: `latency[1]` is `"1"`).
struct Dist(Rc<dyn Distribution>);

impl UserData for Dist {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_meta_method(MetaMethod::Index, |lua, d, key: Value| {
            let name = match &key {
                Value::String(s) => s.to_str()?.to_string(),
                _ => String::new(),
            };
            Ok(match name.as_str() {
                "min" => Value::Number(d.0.min()),
                "max" => Value::Number(d.0.max()),
                "mean" => Value::Number(d.0.mean()),
                "stdev" => Value::Number(d.0.stdev()),
                "percentile" => Value::Function(lua.create_function(
                    |_, (this, p): (mlua::UserDataRef<Dist>, f64)| Ok(this.0.percentile(p)),
                )?),
                _ => match key {
                    Value::Integer(_) | Value::Number(_) => {
                        Value::String(lua.create_string(key.to_string()?)?)
                    }
                    other => other,
                },
            })
        });
        m.add_meta_method(MetaMethod::Len, |_, d, ()| Ok(d.0.distinct()));
        // d(i): the i-th value and its count; past the last (or before the first) 0 and the
        // number of distinct values, as wrk's loop leaves its counter.
        m.add_meta_method(MetaMethod::Call, |_, d, i: Option<f64>| {
            let i = i.unwrap_or(0.0).trunc();
            let found = (i >= 1.0 && i.is_finite())
                .then(|| d.0.raw(i as usize))
                .flatten();
            Ok(found.unwrap_or((0.0, d.0.distinct() as u64)))
        });
    }
}

/// The setup and done environment.
pub struct Setup {
    env: Env,
    handles: Vec<Shared>,
}

impl Setup {
    /// Runs the setup phase for `threads` threads, each starting at `addr`, under `bound`;
    /// returns what each thread gets. On failure, what the script printed before comes with
    /// the error.
    pub fn new(
        script: &Script,
        target: &Target,
        resolver: Arc<dyn Resolver + Send + Sync>,
        threads: usize,
        addr: Option<SocketAddr>,
        bound: &Bound,
    ) -> Result<(Setup, Vec<ThreadSetup>), Failed> {
        let env = Env::new(script, target, resolver, bound)?;
        let lua: &Lua = &env.lua;
        let host: Function = lua
            .globals()
            .get("__barrage_host")
            .map_err(|e| env.failed(env::hook("setup()", &e)))?;
        env.watched("setup()", bound, || host.call::<()>(()))
            .map_err(|e| env.failed(e))?;
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
                    .map_err(|e| env.failed(env::hook("setup()", &e)))?;
                env.watched("setup()", bound, || f.call::<()>(ud))
                    .map_err(|e| env.failed(e))?;
            }
            handles.push(h);
        }
        let given = handles.iter().map(|h| h.0.borrow().setup.clone()).collect();
        Ok((Setup { env, handles }, given))
    }

    /// What the setup phase printed.
    pub fn take_output(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.env.out.borrow_mut())
    }

    /// Whether the script defines `done`.
    pub fn has_done(&self) -> bool {
        matches!(
            self.env.lua.globals().get::<Value>("done"),
            Ok(Value::Function(_))
        )
    }

    /// Calls `done(summary, latency, requests)` under `bound`, each thread's globals as it
    /// finished (`finished[i]` for thread i) readable by `thread:get`; returns what it printed,
    /// or why it stopped with what it printed before.
    pub fn done(
        &mut self,
        summary: &Summary,
        latency: Rc<dyn Distribution>,
        requests: Rc<dyn Distribution>,
        finished: Vec<Vec<(String, Transfer)>>,
        bound: &Bound,
    ) -> Result<Vec<u8>, Failed> {
        for (h, g) in self.handles.iter().zip(finished) {
            h.0.borrow_mut().finished = Some(g);
        }
        let Ok(Value::Function(f)) = self.env.lua.globals().get::<Value>("done") else {
            return Ok(self.take_output());
        };
        let lua = &self.env.lua;
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
        self.env
            .watched("done()", bound, call)
            .map_err(|e| self.env.failed(e))?;
        Ok(self.take_output())
    }
}

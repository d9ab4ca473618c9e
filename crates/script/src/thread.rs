//! One worker thread's Lua state, as wrk gives each of its threads: `init(args)` at start, then
//! `request()` (or the default request) for each request, `response()` for each response when
//! the script defines it, `delay()` before each send when it defines that. The requests a
//! `request()` returns are parsed once per distinct text: the same Lua string again (LuaJIT
//! interns strings, so the same text is the same string) is [`Produced::Same`].
//!
//! The script's top level and `init` run interpreted under the caller's [`Bound`]; the JIT
//! compiler starts with the first per-request hook.

use std::cell::{Cell, RefCell};
use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use mlua::{Function, Table, UserData, UserDataFields, UserDataMethods, Value};

use crate::env::{self, Env};
use crate::transfer::Transfer;
use crate::{
    request_spans, Bound, Failed, Request, Resolver, Script, ScriptError, Target, ThreadSetup,
};

/// What one call of `request()` gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Produced {
    /// The same text as the call before: [`Thread::requests`] still holds its requests.
    Same,
    /// New text: [`Thread::requests`] now holds its requests.
    New,
}

/// `wrk.thread` in a running thread: its address (which the script may set, as wrk's
/// `thread.addr`), its globals and `stop()`.
struct Running {
    addr: Rc<RefCell<Option<String>>>,
    /// Set when the script set `addr` (the caller takes it: [`Thread::take_addr`]).
    moved: Rc<Cell<bool>>,
    stop: Rc<Cell<bool>>,
}

impl UserData for Running {
    fn add_fields<F: UserDataFields<Self>>(f: &mut F) {
        f.add_field_method_get("addr", |_, this| Ok(this.addr.borrow().clone()));
        f.add_field_method_set("addr", |lua, this, v: Value| {
            *this.addr.borrow_mut() = Some(address(lua, v)?);
            this.moved.set(true);
            Ok(())
        });
    }

    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("get", |lua, _, name: String| {
            lua.globals().get::<Value>(name)
        });
        m.add_method("set", |lua, _, (name, value): (String, Value)| {
            Transfer::from_lua(&value).map_err(mlua::Error::runtime)?;
            lua.globals().set(name, value)
        });
        m.add_method("stop", |_, this, ()| {
            this.stop.set(true);
            Ok(())
        });
    }
}

/// A value given to `thread.addr`: an address as `wrk.lookup` gives them (`"ip:port"`; wrk's
/// are userdata whose tostring is that text), checked here so a wrong one fails where it is set.
pub(crate) fn address(lua: &mlua::Lua, v: Value) -> mlua::Result<String> {
    let text = match &v {
        Value::String(s) => s.to_str()?.to_string(),
        Value::UserData(_) => v.to_string()?,
        other => {
            return Err(env::located(
                lua,
                format!(
                    "thread.addr must be an address (\"ip:port\", as wrk.lookup gives), not {}",
                    describe(other)
                ),
            ))
        }
    };
    match text.parse::<SocketAddr>() {
        Ok(a) => Ok(a.to_string()),
        Err(_) => Err(env::located(
            lua,
            format!(
                "thread.addr must be an address (\"ip:port\", as wrk.lookup gives), not {text:?}"
            ),
        )),
    }
}

/// One worker thread's script.
pub struct Thread {
    env: Env,
    /// The JIT compiler is on (the first per-request hook turned it on).
    hot: bool,
    request: Option<Function>,
    response: Option<Function>,
    /// The metatable of `response()`'s header table (the prelude's: any case finds a name).
    any_case: Option<Table>,
    delay: Option<Function>,
    /// The text last parsed, held so it cannot be collected (its address then names it
    /// alone), and its requests.
    last: Option<mlua::String>,
    /// The last text's requests, parsed when first asked for ([`Thread::requests`]): the
    /// engine's HTTP/1.1 path needs only the spans.
    current: std::cell::OnceCell<Vec<Request>>,
    /// The last text, where each of its requests lies in it and whether it is a HEAD.
    text: Vec<u8>,
    spans: Vec<(std::ops::Range<usize>, bool)>,
    stop: Rc<Cell<bool>>,
    addr: Rc<RefCell<Option<String>>>,
    moved: Rc<Cell<bool>>,
}

impl Thread {
    /// The thread's environment: the script loaded, the setup phase's globals set, `init(args)`
    /// called (`args[0]` the URL, then the script's arguments, as wrk gives them) and the
    /// default request made (`wrk.request()`), all under `bound`. On failure, what the script
    /// printed before comes with the error.
    pub fn new(
        script: &Script,
        target: &Target,
        resolver: Arc<dyn Resolver + Send + Sync>,
        setup: &ThreadSetup,
        bound: &Bound,
    ) -> Result<Thread, Failed> {
        let env = Env::new(script, target, resolver, bound)?;
        let fail = |e: &mlua::Error| env.failed(env::hook("init()", e));
        let stop = Rc::new(Cell::new(false));
        let addr = Rc::new(RefCell::new(setup.addr.clone()));
        let moved = Rc::new(Cell::new(false));
        let lua = &env.lua;
        let g = lua.globals();
        let wrk: Table = g.get("wrk").map_err(|e| fail(&e))?;
        let handle = lua
            .create_userdata(Running {
                addr: addr.clone(),
                moved: moved.clone(),
                stop: stop.clone(),
            })
            .map_err(|e| fail(&e))?;
        wrk.set("thread", handle).map_err(|e| fail(&e))?;
        for (name, value) in &setup.globals {
            let v = value.to_lua(lua).map_err(|e| fail(&e))?;
            g.set(name.as_str(), v).map_err(|e| fail(&e))?;
        }
        // wrk's init(args): args[0] is the URL, args[1..] what followed it.
        let args = lua.create_table().map_err(|e| fail(&e))?;
        args.raw_set(0, target.url.as_str()).map_err(|e| fail(&e))?;
        for (i, a) in script.args.iter().enumerate() {
            args.raw_set(i + 1, a.as_str()).map_err(|e| fail(&e))?;
        }
        let init: Function = g.get("__barrage_init").map_err(|e| fail(&e))?;
        env.watched("init()", bound, || init.call::<()>(args))
            .map_err(|e| env.failed(e))?;
        let hook =
            |name: &str| -> Option<Function> { g.get::<Option<Function>>(name).ok().flatten() };
        let request = hook("request");
        let response = hook("response");
        let any_case: Option<Table> = g.get("__barrage_response_headers").ok();
        let delay = hook("delay");
        // The default request, which a script without request() sends every time.
        let default: Function = wrk
            .get("request")
            .map_err(|e| env.failed(env::hook("wrk.request()", &e)))?;
        let v: Value = env
            .watched("wrk.request()", bound, || default.call(()))
            .map_err(|e| env.failed(e))?;
        drop(g);
        let mut t = Thread {
            hot: false,
            request: None,
            response,
            any_case,
            delay,
            last: None,
            current: std::cell::OnceCell::new(),
            text: Vec::new(),
            spans: Vec::new(),
            stop,
            addr,
            moved,
            env,
        };
        if let Err(e) = t.take(v, "wrk.request()") {
            return Err(t.env.failed(e));
        }
        t.request = request;
        Ok(t)
    }

    /// Whether every request is the default one (no `request()` hook: nothing to call).
    pub fn is_static(&self) -> bool {
        self.request.is_none()
    }

    /// The requests the last `request()` (or the default) gave: one, or a pipelined batch.
    pub fn requests(&self) -> &[Request] {
        self.current
            .get_or_init(|| crate::parse_requests(&self.text).unwrap_or_default())
    }

    /// The HTTP/1.1 text of request `i` of [`Thread::requests`], as the script wrote it.
    pub fn text(&self, i: usize) -> &[u8] {
        &self.text[self.spans[i].0.clone()]
    }

    /// How many requests the last `request()` (or the default) gave.
    pub fn count(&self) -> usize {
        self.spans.len()
    }

    /// Whether request `i` of the last text is a HEAD (its response has no body).
    pub fn is_head(&self, i: usize) -> bool {
        self.spans[i].1
    }

    /// Whether the script defines `delay()`.
    pub fn wants_delay(&self) -> bool {
        self.delay.is_some()
    }

    /// Calls `request()` (when defined) for the next request or batch.
    pub fn request(&mut self) -> Result<Produced, ScriptError> {
        let Some(f) = &self.request else {
            return Ok(Produced::Same);
        };
        if !self.hot {
            self.env.compiled()?;
            self.hot = true;
        }
        let v: Value = self.env.checked("request()", f.call(()))?;
        self.take(v, "request()")
    }

    /// [`Thread::request`] under `bound`, interpreted (a call that runs once: the probe's, and
    /// the one wrk makes to check a script). Before any other per-request hook only.
    pub fn request_within(&mut self, bound: &Bound) -> Result<Produced, ScriptError> {
        let Some(f) = &self.request else {
            return Ok(Produced::Same);
        };
        let v: Value = self.env.watched("request()", bound, || f.call(()))?;
        self.take(v, "request()")
    }

    /// Whether the script reads responses (`response` is a function after `init`).
    pub fn wants_response(&self) -> bool {
        self.response.is_some()
    }

    /// Calls `response(status, headers, body)`.
    pub fn response(
        &mut self,
        status: u16,
        headers: &[(&str, &[u8])],
        body: &[u8],
    ) -> Result<(), ScriptError> {
        self.response_with(status, headers.iter().copied(), body)
    }

    /// [`Thread::response`] with the header fields as they are read (no list made for them).
    pub fn response_with<'h>(
        &mut self,
        status: u16,
        headers: impl Iterator<Item = (&'h str, &'h [u8])>,
        body: &[u8],
    ) -> Result<(), ScriptError> {
        let Some(f) = &self.response else {
            return Ok(());
        };
        if !self.hot {
            self.env.compiled()?;
            self.hot = true;
        }
        let lua = &self.env.lua;
        let call = || -> mlua::Result<()> {
            let h = lua.create_table_with_capacity(0, 8)?;
            h.set_metatable(self.any_case.clone())?;
            for (name, value) in headers {
                // wrk hands the names as the server wrote them. Text goes onto Lua's stack as
                // it is; other bytes through a string of mlua's (a registry entry, slower).
                match std::str::from_utf8(value) {
                    Ok(v) => h.raw_set(name, v)?,
                    Err(_) => h.raw_set(name, lua.create_string(value)?)?,
                }
            }
            match std::str::from_utf8(body) {
                Ok(b) => f.call::<()>((status, h, b)),
                Err(_) => f.call::<()>((status, h, lua.create_string(body)?)),
            }
        };
        self.env.checked("response()", call())
    }

    /// Calls `delay()` (when defined): how long to wait before the next send.
    pub fn delay(&mut self) -> Result<Option<Duration>, ScriptError> {
        let Some(f) = &self.delay else {
            return Ok(None);
        };
        if !self.hot {
            self.env.compiled()?;
            self.hot = true;
        }
        let v: Value = self.env.checked("delay()", f.call(()))?;
        match v {
            Value::Integer(ms) if ms >= 0 => Ok(Some(Duration::from_millis(ms as u64))),
            Value::Number(ms) if ms >= 0.0 && ms.is_finite() => {
                Ok(Some(Duration::from_secs_f64(ms / 1000.0)))
            }
            Value::Nil => Ok(None),
            other => Err(ScriptError::BadReturn {
                file: self.env.file.clone(),
                hook: "delay()",
                what: describe(&other),
            }),
        }
    }

    /// Whether the script called `wrk.thread:stop()`.
    pub fn stopped(&self) -> bool {
        self.stop.get()
    }

    /// Where the script pointed this thread (`wrk.thread.addr = ...` in `init()` or a later
    /// hook), once each time it did: wrk's later connections go there.
    pub fn take_addr(&self) -> Option<SocketAddr> {
        if !self.moved.replace(false) {
            return None;
        }
        self.addr.borrow().as_deref()?.parse().ok()
    }

    /// What the script printed since the last call.
    pub fn take_output(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.env.out.borrow_mut())
    }

    /// The thread's globals that may move to the done phase (`thread:get` there), the
    /// environment's own (functions, libraries, `wrk`) left out.
    pub fn snapshot(&self) -> Vec<(String, Transfer)> {
        let mut v = Vec::new();
        for (k, val) in self.env.lua.globals().pairs::<Value, Value>().flatten() {
            let Value::String(name) = &k else { continue };
            let Ok(name) = name.to_str().map(|s| s.to_string()) else {
                continue;
            };
            if name == "wrk" || name == "_G" || name.starts_with("__barrage") {
                continue;
            }
            if let Ok(t) = Transfer::from_lua(&val) {
                if !matches!(val, Value::Table(_)) || !is_library(&name) {
                    v.push((name, t));
                }
            }
        }
        v
    }

    fn take(&mut self, v: Value, hook: &'static str) -> Result<Produced, ScriptError> {
        let Value::String(s) = &v else {
            return Err(ScriptError::BadReturn {
                file: self.env.file.clone(),
                hook,
                what: describe(&v),
            });
        };
        if self
            .last
            .as_ref()
            .is_some_and(|l| l.to_pointer() == s.to_pointer())
        {
            return Ok(Produced::Same);
        }
        let bytes = s.as_bytes();
        request_spans(&bytes, &mut self.spans).map_err(|reason| ScriptError::BadRequest {
            file: self.env.file.clone(),
            reason,
        })?;
        self.current = std::cell::OnceCell::new();
        self.text.clear();
        self.text.extend_from_slice(&bytes);
        self.last = Some(s.clone());
        Ok(Produced::New)
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::Nil => "nothing".into(),
        Value::Integer(_) | Value::Number(_) => "a number".into(),
        other => format!("a {}", other.type_name()),
    }
}

/// Lua's own library tables, never a script's state.
fn is_library(name: &str) -> bool {
    matches!(
        name,
        "string"
            | "table"
            | "math"
            | "io"
            | "os"
            | "coroutine"
            | "debug"
            | "package"
            | "bit"
            | "jit"
            | "ffi"
            | "utf8"
    )
}

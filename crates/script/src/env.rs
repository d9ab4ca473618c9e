//! One Lua environment with wrk's API in it: the `wrk` table filled from the [`Target`], the
//! prelude's `wrk.format` and thread start, `wrk.lookup`/`wrk.connect` through the caller's
//! [`Resolver`], and `print`/`io.write` kept in a buffer rather than written (the caller prints).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use mlua::{Function, Lua, MultiValue, Table, Value};

use crate::{Resolver, Script, ScriptError, Target};

const PRELUDE: &str = include_str!("prelude.lua");

/// What a script printed, kept for the caller.
pub(crate) type Output = Rc<RefCell<Vec<u8>>>;

/// A fresh state with wrk's API and the script loaded (its top level run).
pub(crate) fn new(
    script: &Script,
    target: &Target,
    resolver: Arc<dyn Resolver + Send + Sync>,
) -> Result<(Lua, Output), ScriptError> {
    let lua = Lua::new();
    let out: Output = Rc::default();
    setup(&lua, target, resolver, out.clone()).map_err(|e| hook("the prelude", &e))?;
    lua.load(&script.source)
        .set_name(&script.name)
        .exec()
        .map_err(|e| hook("the script's top level", &e))?;
    Ok((lua, out))
}

fn setup(
    lua: &Lua,
    target: &Target,
    resolver: Arc<dyn Resolver + Send + Sync>,
    out: Output,
) -> mlua::Result<()> {
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
    lua.globals().set("wrk", wrk.clone())?;
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
    lua.globals().set("print", print)?;
    let io: Table = lua.globals().get("io")?;
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
    Ok(())
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

//! The values `thread:get` and `thread:set` move between environments: wrk allows booleans,
//! nil, numbers, strings and tables of the same, and so does this (anything else is refused by
//! name, and tables deeper than a bound are cut, so a cycle cannot hang a run).

use mlua::{Lua, Value};

/// A value that may cross from one Lua environment to another.
#[derive(Debug, Clone, PartialEq)]
pub enum Transfer {
    Nil,
    Bool(bool),
    Number(f64),
    Str(Vec<u8>),
    Table(Vec<(Transfer, Transfer)>),
}

/// The deepest table copied.
const MAX_DEPTH: usize = 16;

impl Transfer {
    /// Copies `v` out of its environment, or says why it cannot.
    pub fn from_lua(v: &Value) -> Result<Transfer, String> {
        Transfer::copy(v, 0)
    }

    fn copy(v: &Value, depth: usize) -> Result<Transfer, String> {
        Ok(match v {
            Value::Nil => Transfer::Nil,
            Value::Boolean(b) => Transfer::Bool(*b),
            Value::Integer(i) => Transfer::Number(*i as f64),
            Value::Number(n) => Transfer::Number(*n),
            Value::String(s) => Transfer::Str(s.as_bytes().to_vec()),
            Value::Table(t) if depth < MAX_DEPTH => {
                let mut items = Vec::new();
                for pair in t.clone().pairs::<Value, Value>() {
                    let (k, v) = pair.map_err(|e| e.to_string())?;
                    items.push((Transfer::copy(&k, depth + 1)?, Transfer::copy(&v, depth + 1)?));
                }
                Transfer::Table(items)
            }
            Value::Table(_) => return Err(format!("a table nested deeper than {MAX_DEPTH}")),
            other => return Err(format!("a {} (only booleans, nil, numbers, strings and tables of them move between threads)", other.type_name())),
        })
    }

    /// The value in `lua`'s environment.
    pub fn to_lua(&self, lua: &Lua) -> mlua::Result<Value> {
        Ok(match self {
            Transfer::Nil => Value::Nil,
            Transfer::Bool(b) => Value::Boolean(*b),
            Transfer::Number(n) => Value::Number(*n),
            Transfer::Str(s) => Value::String(lua.create_string(s)?),
            Transfer::Table(items) => {
                let t = lua.create_table()?;
                for (k, v) in items {
                    t.raw_set(k.to_lua(lua)?, v.to_lua(lua)?)?;
                }
                Value::Table(t)
            }
        })
    }
}

//! The JSON Schema of a load document's `config` (`docs/schema/load.schema.json`, `$defs.config`)
//! and of a study point's phase load (`docs/schema/study.schema.json`, `$defs.load_point`),
//! generated from the declaration of the load options: each option's type from its value
//! grammar, its description from its help, `null` allowed where a `Config` writes null, and
//! `required` the fields a `Config` always writes. The committed files are held to it by a test
//! (`BARRAGE_BLESS=1` rewrites their parts).

use super::spec::{Grammar, Group};
use super::{Config, OPTIONS};
use serde_json::{json, Map, Value};

/// `$defs.config` of the load document's schema.
pub fn config() -> Value {
    let written = match serde_json::to_value(Config::default()) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    let mut properties = Map::new();
    let mut required = Vec::new();
    for o in OPTIONS.iter().filter(|o| o.group != Group::Phase) {
        let mut p = of(o.grammar);
        // An option a default `Config` writes as null may be null.
        if written.get(o.name) == Some(&Value::Null) {
            p = nullable(p);
        }
        if let Value::Object(m) = &mut p {
            let help = o.help();
            let unit = match o.grammar {
                Grammar::Duration => " In documents: seconds.",
                Grammar::Size { .. } => " In documents: bytes.",
                _ => "",
            };
            m.insert("description".into(), Value::String(format!("{help}{unit}")));
        }
        properties.insert(o.name.to_string(), p);
        if written.contains_key(o.name) {
            required.push(Value::String(o.name.to_string()));
        }
    }
    json!({
        "type": "object",
        "required": required,
        "additionalProperties": false,
        "properties": properties,
    })
}

/// A value of the grammar as a document writes it.
fn of(g: Grammar) -> Value {
    let int = |min: u64, max: u64| {
        let mut v = json!({ "type": "integer", "minimum": min });
        // The largest bound is the type's, not the grammar's: left out.
        if max < u64::MAX {
            v["maximum"] = json!(max);
        }
        v
    };
    match g {
        Grammar::Url | Grammar::Text => json!({ "type": "string" }),
        Grammar::File => json!({ "type": "string", "description": "a file's path" }),
        Grammar::Token => json!({ "type": "string", "minLength": 1 }),
        Grammar::Bytes => json!({ "$ref": "#/$defs/bytes" }),
        Grammar::Int { min, max } | Grammar::Size { min, max } => int(min, max),
        Grammar::Status => int(0, 999),
        Grammar::Rate => json!({ "type": "number", "exclusiveMinimum": 0 }),
        Grammar::Duration | Grammar::Time => json!({ "type": "number", "minimum": 0 }),
        Grammar::Switch => json!({ "type": "boolean" }),
        Grammar::Choice(words) => json!({ "enum": words }),
        Grammar::Stages => json!({
            "type": "array",
            "items": {
                "type": "object",
                "required": ["duration", "target"],
                "additionalProperties": false,
                "properties": {
                    "duration": { "type": "number", "exclusiveMinimum": 0 },
                    "target": { "type": "number", "minimum": 0 }
                }
            }
        }),
        Grammar::Header => json!({
            "type": "array",
            "items": {
                "type": "array",
                "prefixItems": [{ "type": "string" }, { "type": "string" }],
                "minItems": 2,
                "maxItems": 2
            }
        }),
        Grammar::Shard => json!({
            "type": "object",
            "required": ["index", "count"],
            "additionalProperties": false,
            "properties": {
                "index": { "type": "integer", "minimum": 1 },
                "count": { "type": "integer", "minimum": 1 }
            }
        }),
    }
}

/// `p` or null.
fn nullable(mut p: Value) -> Value {
    match p.get("type").and_then(Value::as_str).map(str::to_string) {
        Some(t) => {
            p["type"] = json!([t, "null"]);
            p
        }
        None => json!({ "oneOf": [{ "type": "null" }, p] }),
    }
}

/// `v` as one line in the schema file's style: `{ "k": v, ... }`, `[a, b]`.
pub fn one_line(v: &Value) -> String {
    match v {
        Value::Object(m) if m.is_empty() => "{}".into(),
        Value::Object(m) => {
            let items: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", Value::String(k.clone()), one_line(v)))
                .collect();
            format!("{{ {} }}", items.join(", "))
        }
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(one_line).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

/// `$defs.load_point` of the study results' schema: a phase's load is a `Config` whose `url` is
/// the path (the runner puts the contender's address in front), its bodies inline (that file
/// has no `bytes`).
pub fn load_point() -> Value {
    let mut c = config();
    inline_bytes(&mut c);
    c["description"] = json!(
        "the load of a phase: the engine's config (docs/schema/load.schema.json `config`) with only the path in `url`; files older than that (the study's form: `path`, text bodies, durations like \"1s\") do not match it, though barrage still reads them"
    );
    c["properties"]["url"]["pattern"] = json!("^/");
    c
}

/// Every `{"$ref": "#/$defs/bytes"}` in `v` with the bytes' own schema in its place.
fn inline_bytes(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if m.get("$ref").and_then(Value::as_str) == Some("#/$defs/bytes") {
                m.remove("$ref");
                m.insert("type".into(), json!("array"));
                m.insert(
                    "items".into(),
                    json!({ "type": "integer", "minimum": 0, "maximum": 255 }),
                );
            }
            m.values_mut().for_each(inline_bytes);
        }
        Value::Array(a) => a.iter_mut().for_each(inline_bytes),
        _ => {}
    }
}

/// The definition `name` as the schema files write it, at `indent` spaces: one line for each
/// of its keys, one for each property.
pub fn def_text(name: &str, def: &Value, indent: usize) -> String {
    let pad = " ".repeat(indent);
    let mut lines = vec![format!("{pad}\"{name}\": {{")];
    let Some(m) = def.as_object() else {
        return String::new();
    };
    let keys: Vec<&String> = m.keys().collect();
    for (i, k) in keys.iter().enumerate() {
        let comma = if i + 1 < keys.len() { "," } else { "" };
        if *k != "properties" {
            lines.push(format!("{pad}  \"{k}\": {}{comma}", one_line(&m[*k])));
            continue;
        }
        lines.push(format!("{pad}  \"properties\": {{"));
        let props = m[*k].as_object().cloned().unwrap_or_default();
        // In the declaration's order, not the map's.
        let names: Vec<&str> = OPTIONS
            .iter()
            .filter(|o| props.contains_key(o.name))
            .map(|o| o.name)
            .collect();
        for (j, name) in names.iter().enumerate() {
            let c = if j + 1 < names.len() { "," } else { "" };
            lines.push(format!(
                "{pad}    \"{name}\": {}{c}",
                one_line(&props[*name])
            ));
        }
        lines.push(format!("{pad}  }}{comma}"));
    }
    lines.push(format!("{pad}}}"));
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/schema/");

    /// The committed schema `file`'s `$defs.name` is `want`. `BARRAGE_BLESS=1` writes it into
    /// the file in place of the old one (the rest of the file as it is).
    fn committed(file: &str, name: &str, want: &Value) {
        let path = format!("{DIR}{file}");
        let text = std::fs::read_to_string(&path).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        if &doc["$defs"][name] == want {
            return;
        }
        if std::env::var_os("BARRAGE_BLESS").is_some() {
            let open = format!("\n    \"{name}\": {{\n");
            let start = text.find(&open).expect("the definition") + 1;
            let end = start + text[start..].find("\n    }").expect("its end") + "\n    }".len();
            let new = format!(
                "{}{}{}",
                &text[..start],
                def_text(name, want, 4),
                &text[end..]
            );
            let back: Value = serde_json::from_str(&new).unwrap();
            assert_eq!(&back["$defs"][name], want, "the splice");
            std::fs::write(&path, new).unwrap();
            return;
        }
        panic!(
            "docs/schema/{file}'s $defs.{name} is not the declared one; run \
             `BARRAGE_BLESS=1 cargo test -p barrage-model committed_schema` and commit it. \
             Declared:\n{}",
            def_text(name, want, 4)
        );
    }

    #[test]
    fn the_committed_schemas_have_the_declared_load() {
        committed("load.schema.json", "config", &config());
        committed("study.schema.json", "load_point", &load_point());
    }

    /// The study schema has no `bytes` of its own: the phase load's bodies are inline.
    #[test]
    fn the_load_point_refers_to_nothing_outside_its_file() {
        let p = load_point();
        assert!(!p.to_string().contains("$ref"), "{p}");
        assert_eq!(p["properties"]["body"]["items"]["maximum"], 255);
        assert_eq!(p["properties"]["expect_body"]["oneOf"][1]["type"], "array");
        assert_eq!(p["properties"]["url"]["pattern"], "^/");
    }

    #[test]
    fn types_follow_the_grammar_and_null_follows_the_default() {
        let c = config();
        let p = &c["properties"];
        assert_eq!(p["connections"]["type"], "integer");
        assert_eq!(p["connections"]["minimum"], 1);
        assert_eq!(p["duration"]["type"], json!(["number", "null"]));
        assert_eq!(p["timeout"]["type"], "number");
        assert_eq!(p["expect_body"]["oneOf"][0]["type"], "null");
        assert_eq!(p["targets_order"]["enum"], json!(["round-robin", "random"]));
        assert!(p["tls"].is_null(), "a phase's option is no Config field");
        let req = c["required"].as_array().unwrap();
        assert!(req.contains(&json!("timeout")) && req.contains(&json!("h2_window")));
        // Written only when set: not required.
        for f in [
            "ws",
            "http3",
            "stages",
            "targets",
            "shard",
            "ws_max_message",
        ] {
            assert!(!req.contains(&json!(f)), "{f}");
        }
        assert!(p["connections"]["description"]
            .as_str()
            .unwrap()
            .starts_with("Connections to keep open."));
    }
}

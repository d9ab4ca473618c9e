//! The JSON Schema of a load document's `config` (`docs/schema/load.schema.json`, `$defs.config`),
//! generated from the declaration of the load options: each option's type from its value
//! grammar, its description from its help, `null` allowed where a `Config` writes null, and
//! `required` the fields a `Config` always writes. The committed file is held to it by a test
//! (`BARRAGE_BLESS=1` rewrites it).

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

/// `$defs.config` as the schema file writes it: one property a line, at `indent` spaces.
pub fn config_text(indent: usize) -> String {
    let c = config();
    let pad = " ".repeat(indent);
    let mut lines = vec![
        format!("{pad}\"config\": {{"),
        format!("{pad}  \"type\": \"object\","),
        format!("{pad}  \"required\": {},", one_line(&c["required"])),
        format!("{pad}  \"additionalProperties\": false,"),
        format!("{pad}  \"properties\": {{"),
    ];
    let props = c["properties"].as_object().cloned().unwrap_or_default();
    let n = props.len();
    // In the declaration's order, not the map's.
    let names = OPTIONS
        .iter()
        .filter(|o| props.contains_key(o.name))
        .map(|o| o.name);
    for (i, name) in names.enumerate() {
        let comma = if i + 1 < n { "," } else { "" };
        lines.push(format!(
            "{pad}    \"{name}\": {}{comma}",
            one_line(&props[name])
        ));
    }
    lines.push(format!("{pad}  }}"));
    lines.push(format!("{pad}}}"));
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/schema/load.schema.json"
    );

    /// The committed schema's `config` is the one the declaration gives. `BARRAGE_BLESS=1`
    /// writes it into the file in place of the old one (the rest of the file as it is).
    #[test]
    fn the_committed_schema_has_the_declared_config() {
        let text = std::fs::read_to_string(FILE).unwrap();
        let file: Value = serde_json::from_str(&text).unwrap();
        if file["$defs"]["config"] == config() {
            return;
        }
        if std::env::var_os("BARRAGE_BLESS").is_some() {
            let start = text.find("\n    \"config\": {\n").expect("$defs.config") + 1;
            let end = start + text[start..].find("\n    }").expect("its end") + "\n    }".len();
            let new = format!("{}{}{}", &text[..start], config_text(4), &text[end..]);
            let back: Value = serde_json::from_str(&new).unwrap();
            assert_eq!(back["$defs"]["config"], config(), "the splice");
            std::fs::write(FILE, new).unwrap();
            return;
        }
        panic!(
            "docs/schema/load.schema.json's $defs.config is not the declared one; run \
             `BARRAGE_BLESS=1 cargo test -p barrage-model committed_schema` and commit it. \
             Declared:\n{}",
            config_text(4)
        );
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

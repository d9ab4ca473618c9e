//! The committed results documents of the current version (`studies/*/results*/results.json`)
//! read into the model's types and write back as the same JSON values: typed kinds and statuses
//! change nothing in a document, and a field the model lost would show here (a field an older
//! writer did not have comes out as its default). Numbers compare to
//! 1e-9 (relative): durations read into nanoseconds, such as rusage times, do not keep every
//! last digit of a decimal fraction, and are not what this test is about.

use barrage_model::study::Results;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Every `results.json` under `dir`, recursively.
fn results_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            results_files(&p, out);
        } else if p.file_name().is_some_and(|n| n == "results.json") {
            out.push(p);
        }
    }
}

#[test]
fn committed_results_round_trip_value_identically() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    results_files(&root.join("studies"), &mut files);
    assert!(files.len() >= 10, "found {files:?}");
    let mut checked = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let before: Value = serde_json::from_str(&text).unwrap();
        // Version 1 files read as version 2 (a phase's load in the engine's form): they change
        // by design when written again.
        if before["schema"] != barrage_model::study::SCHEMA {
            continue;
        }
        checked += 1;
        let doc: Results =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let after = serde_json::to_value(&doc).unwrap();
        if !same(&before, &after) {
            panic!(
                "{} changes when read and written: {}",
                f.display(),
                first_difference(&before, &after, String::new())
            );
        }
    }
    assert!(
        checked >= 3,
        "only {checked} version 2 documents among {files:?}"
    );
}

/// Fields added to the documents after some committed files were written whose default is not
/// empty (a load's `h2_window`, 2^30-1, and `streams`, 1; a WebSocket load's `ws_max_message`,
/// 16 MiB, and `echo_check`, true).
const ADDED_LATER: &[&str] = &["h2_window", "streams", "ws_max_message", "echo_check"];

/// A default value: null, 0, false, "", [] or {}.
fn empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.values().all(empty),
    }
}

/// Equal values (numbers to 1e-9 relative; fields only `b` has may be defaults).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs())
        }
        // A field written now that an older writer did not have comes out as its default.
        (Value::Object(x), Value::Object(y)) => {
            x.iter().all(|(k, u)| y.get(k).is_some_and(|v| same(u, v)))
                && y.iter().all(|(k, v)| {
                    x.contains_key(k) || empty(v) || ADDED_LATER.contains(&k.as_str())
                })
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(u, v)| same(u, v))
        }
        _ => a == b,
    }
}

/// The path of the first place two values differ, with both sides.
fn first_difference(a: &Value, b: &Value, at: String) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                let (u, v) = (x.get(k), y.get(k));
                let fine = match (u, v) {
                    (Some(u), Some(v)) => same(u, v),
                    (None, Some(v)) => empty(v) || ADDED_LATER.contains(&k.as_str()),
                    _ => false,
                };
                if !fine {
                    return match (u, v) {
                        (Some(u), Some(v)) => first_difference(u, v, format!("{at}.{k}")),
                        _ => format!("{at}.{k}: {u:?} vs {v:?}"),
                    };
                }
            }
            format!("{at}: ?")
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                if !same(u, v) {
                    return first_difference(u, v, format!("{at}[{i}]"));
                }
            }
            format!("{at}: ?")
        }
        _ => {
            let short = |v: &Value| v.to_string().chars().take(120).collect::<String>();
            format!("{at}: {} vs {}", short(a), short(b))
        }
    }
}

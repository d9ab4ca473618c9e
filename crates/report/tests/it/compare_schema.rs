//! `barrage compare -f json` (`barrage.compare/1`) of real results validates against
//! docs/schema/compare.schema.json, and the schema rejects documents that break it.

use barrage_model::compare::Options;
use barrage_report::diff::{self, render};
use barrage_report::parse;
use serde_json::Value;
use std::path::PathBuf;

fn schema() -> jsonschema::Validator {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/schema/compare.schema.json"
    );
    let text = std::fs::read_to_string(path).expect("schema file");
    let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
    jsonschema::validator_for(&schema).expect("schema compiles")
}

fn fixture(name: &str) -> barrage_report::Input {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    parse(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn errors(v: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    v.iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect()
}

#[test]
fn real_comparisons_validate() {
    let v = schema();
    for (a, b, kind, rows) in [
        ("load-keepalive.json", "load-close.json", "load", 9),
        ("load-open.json", "load-keepalive.json", "load", 9),
        ("server-study.json", "server-study-b.json", "study", 36),
        ("single-trial.json", "single-trial.json", "study", 18),
        ("client-failed.json", "client-failed.json", "study", 36),
    ] {
        let (x, y) = (fixture(a), fixture(b));
        let d = diff::compare((a, &x), (b, &y), &Options::default()).unwrap();
        let doc: Value = serde_json::from_str(&render::json(&d)).unwrap();
        let errs = errors(&v, &doc);
        assert!(errs.is_empty(), "{a} vs {b}: {errs:#?}");
        assert_eq!(doc["kind"], kind);
        assert_eq!(doc["rows"].as_array().unwrap().len(), rows, "{a} vs {b}");
    }
}

#[test]
fn the_schema_rejects_broken_documents() {
    let v = schema();
    let (x, y) = (fixture("server-study.json"), fixture("server-study-b.json"));
    let d = diff::compare(("a", &x), ("b", &y), &Options::default()).unwrap();
    let good: Value = serde_json::from_str(&render::json(&d)).unwrap();
    assert!(errors(&v, &good).is_empty());
    let broken = |f: &dyn Fn(&mut Value)| {
        let mut doc = good.clone();
        f(&mut doc);
        doc
    };
    for (what, doc) in [
        (
            "schema",
            broken(&|d| d["schema"] = "barrage.compare/2".into()),
        ),
        (
            "verdict",
            broken(&|d| d["rows"][0]["verdict"] = "worse".into()),
        ),
        ("negative noise", broken(&|d| d["noise"] = (-0.05).into())),
        (
            "p above 1",
            broken(&|d| d["rows"][0]["test"]["p"] = 1.5.into()),
        ),
        (
            "unknown field",
            broken(&|d| d["rows"][0]["extra"] = 1.into()),
        ),
        (
            "missing rows",
            broken(&|d| {
                d.as_object_mut().unwrap().remove("rows");
            }),
        ),
    ] {
        assert!(!errors(&v, &doc).is_empty(), "{what} was accepted");
    }
}

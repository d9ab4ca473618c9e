//! Shared by the lab's integration tests: the results file checked against its JSON Schema.

use std::path::Path;

/// Asserts that `out/results.json` matches docs/schema/study.schema.json.
pub fn validate_schema(out: &Path) {
    let schema_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schema/study.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let v = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = v
        .iter_errors(&doc)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .take(10)
        .collect();
    assert!(
        errors.is_empty(),
        "results.json does not match the schema:\n{}",
        errors.join("\n")
    );
}

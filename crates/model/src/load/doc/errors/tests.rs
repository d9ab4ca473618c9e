//! The classes against the document's JSON and the JSON Schema.

use super::*;

/// The schema the documents are checked against (docs/schema/load.schema.json).
fn schema() -> serde_json::Value {
    let text = include_str!("../../../../../../docs/schema/load.schema.json");
    serde_json::from_str(text).expect("the schema is JSON")
}

#[test]
fn the_errors_object_is_written_and_read_as_before() {
    let mut e = Errors::default();
    e.count(ErrorClass::Timeout, 2);
    e.count(ErrorClass::Connect, 1);
    e.count(ErrorClass::Unasked, 4);
    let json = serde_json::to_string(&e).unwrap();
    assert_eq!(
        json,
        r#"{"connect":1,"timeout":2,"reset":0,"parse":0,"status":0,"body":0,"rst_stream":0,"protocol":0,"header_too_large":0,"message_too_large":0,"grpc_status":0,"grpc":0,"grpc_no_trailers":0,"grpc_cardinality":0,"unasked":4,"total":7}"#
    );
    assert_eq!(serde_json::from_str::<Errors>(&json).unwrap(), e);
    assert_eq!(
        (e[ErrorClass::Timeout], e.total(), e.of_requests()),
        (2, 7, 2)
    );
    assert_eq!(e.breakdown(), "connect 1, timeout 2, unasked 4");
}

#[test]
fn an_older_document_reads_with_the_classes_it_lacks_at_zero() {
    // A barrage.load/1 document from before header_too_large, message_too_large and unasked,
    // and a key a later version may add: kept out of the classes, still in the total.
    let e: Errors = serde_json::from_str(
        r#"{"connect":3,"timeout":1,"reset":0,"parse":0,"status":0,"body":0,"rst_stream":0,"protocol":0,"later":2,"total":6}"#,
    )
    .unwrap();
    assert_eq!((e[ErrorClass::Connect], e[ErrorClass::Unasked]), (3, 0));
    assert_eq!(e.total(), 6, "the total as the document says");
    // Without a total, the classes' sum.
    let e: Errors = serde_json::from_str(r#"{"timeout":5,"body":2}"#).unwrap();
    assert_eq!(e.total(), 7);
    assert!(serde_json::from_str::<Errors>(r#"{"timeout":-1}"#).is_err());
}

#[test]
fn adding_goes_by_class() {
    let (mut a, mut b) = (Errors::default(), Errors::default());
    a.count(ErrorClass::Status, 3);
    b.count(ErrorClass::StreamReset, 5);
    b.count(ErrorClass::Status, 1);
    a.add(&b);
    assert_eq!(a[ErrorClass::Status], 4);
    assert_eq!(a[ErrorClass::StreamReset], 5);
    assert_eq!(a.total(), 9);
}

#[test]
fn every_class_has_a_name_of_its_own() {
    for c in ErrorClass::ALL {
        assert_eq!(ErrorClass::named(c.name()), Some(c));
        assert_eq!(ErrorClass::ALL[c.index()], c);
        assert!(c.about().ends_with('.'), "{c}: {}", c.about());
    }
    assert_eq!(ErrorClass::named("total"), None);
}

/// The schema's `errors` object has a property for each class and the total, each described by
/// the class's words, and `error_examples` takes each class's name: adding a class to the enum
/// or to the schema alone fails here.
#[test]
fn the_schema_describes_every_class_and_no_other() {
    let s = schema();
    let errors = &s["properties"]["errors"];
    let props = errors["properties"]
        .as_object()
        .expect("errors' properties");
    let mut want: Vec<&str> = ErrorClass::ALL.iter().map(|c| c.name()).collect();
    want.push("total");
    let mut got: Vec<&str> = props.keys().map(String::as_str).collect();
    got.sort_unstable();
    let mut sorted = want.clone();
    sorted.sort_unstable();
    assert_eq!(got, sorted, "the schema's error classes");
    for c in ErrorClass::ALL {
        let about = props[c.name()]["description"].as_str().unwrap_or("");
        assert!(
            about.starts_with(c.about()),
            "{c}: the schema says {about:?}, the class {:?}",
            c.about()
        );
    }
    for r in errors["required"].as_array().expect("required") {
        assert!(want.contains(&r.as_str().unwrap()), "{r} is required");
    }
    let examples: Vec<&str> = s["properties"]["error_examples"]["propertyNames"]["enum"]
        .as_array()
        .expect("error_examples' names")
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(examples, want[..ErrorClass::COUNT], "error_examples' names");
}

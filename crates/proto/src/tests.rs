//! Schemas from the shipped test service's .proto, a descriptor set and reflection's files;
//! request bodies encoded to known bytes; errors that name what to fix.

use super::*;
use crate::reflection::{Answer, Reflection, Request, Version};

fn proto() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/grpc/barrage.proto")
}

fn schema() -> Schema {
    Schema::from_proto_files(&[proto()], &[]).unwrap()
}

#[test]
fn methods_by_any_spelling_with_their_kinds() {
    let s = schema();
    assert_eq!(s.services(), ["barrage.test.v1.Test"]);
    for (call, path, kind) in [
        (
            "barrage.test.v1.Test/Echo",
            "/barrage.test.v1.Test/Echo",
            Kind::Unary,
        ),
        (
            "/barrage.test.v1.Test/Stream",
            "/barrage.test.v1.Test/Stream",
            Kind::ServerStreaming,
        ),
        (
            "barrage.test.v1.Test.Sum",
            "/barrage.test.v1.Test/Sum",
            Kind::ClientStreaming,
        ),
        (
            "barrage.test.v1.Test/Chat",
            "/barrage.test.v1.Test/Chat",
            Kind::Bidi,
        ),
    ] {
        let m = s.method(call).unwrap();
        assert_eq!(m.path(), path, "{call}");
        assert_eq!(m.kind(), kind, "{call}");
    }
    let m = s.method("barrage.test.v1.Test/Sum").unwrap();
    assert_eq!(
        (m.input(), m.output()),
        (
            "barrage.test.v1.SumRequest".into(),
            "barrage.test.v1.SumReply".into()
        )
    );
}

#[test]
fn encodes_json_to_known_bytes() {
    let echo = schema().method("barrage.test.v1.Test/Echo").unwrap();
    for (json, want) in [
        (r#"{}"#, vec![]),
        (r#"{"text":"x"}"#, vec![0x1a, 0x01, b'x']),
        // uint32 300 as a varint: field 2, wire type 0.
        (r#"{"size":300}"#, vec![0x10, 0xac, 0x02]),
        // bytes are base64 in protobuf's JSON mapping.
        (r#"{"payload":"AQI="}"#, vec![0x0a, 0x02, 0x01, 0x02]),
        // Field order in the JSON does not matter: encoded by field number.
        (
            r#"{"text":"a","payload":"AQ=="}"#,
            vec![0x0a, 0x01, 0x01, 0x1a, 0x01, b'a'],
        ),
    ] {
        assert_eq!(echo.encode_data(json).unwrap(), vec![want], "{json}");
    }
    // An array: one message per element (a client stream); int64 -1 is ten varint bytes.
    let sum = schema().method("barrage.test.v1.Test/Sum").unwrap();
    assert_eq!(
        sum.encode_data(r#"[{"value":1},{"value":"-1"}]"#).unwrap(),
        vec![
            vec![0x08, 0x01],
            [&[0x08][..], &[0xff; 9], &[0x01]].concat()
        ]
    );
    assert_eq!(
        sum.encode_lines("{\"value\":2}\n\n{\"value\":3}\n")
            .unwrap(),
        vec![vec![0x08, 0x02], vec![0x08, 0x03]]
    );
}

#[test]
fn bad_bodies_say_what_and_where() {
    let echo = schema().method("barrage.test.v1.Test/Echo").unwrap();
    let e = echo.encode_data(r#"{"nope":1}"#).unwrap_err().to_string();
    assert!(
        e.starts_with("barrage.test.v1.EchoRequest: ") && e.contains("nope"),
        "{e}"
    );
    let e = echo
        .encode_data(r#"{"size":"many"}"#)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("barrage.test.v1.EchoRequest: "), "{e}");
    let e = echo.encode_data("{").unwrap_err();
    assert!(matches!(e, SchemaError::Json { line: None, .. }), "{e}");
    let e = echo
        .encode_lines("{\"text\":\"ok\"}\n{\"size\":-1}\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("line 2: barrage.test.v1.EchoRequest: "),
        "{e}"
    );
}

#[test]
fn unknown_names_list_what_there_is() {
    let s = schema();
    assert_eq!(
        s.method("barrage.test.v1.Nope/Echo")
            .unwrap_err()
            .to_string(),
        "no service \"barrage.test.v1.Nope\" in the schema; it has: barrage.test.v1.Test"
    );
    assert_eq!(
        s.method("barrage.test.v1.Test/Ech")
            .unwrap_err()
            .to_string(),
        "service barrage.test.v1.Test has no method \"Ech\"; it has: Echo, Stream, Sum, Chat"
    );
    for bad in ["", "Echo", "/", "a/", "/b"] {
        assert_eq!(
            s.method(bad).unwrap_err(),
            SchemaError::BadCall(bad.into()),
            "{bad:?}"
        );
    }
}

#[test]
fn a_proto_that_does_not_compile_names_its_file_and_line() {
    let dir = std::env::temp_dir().join(format!("barrage-proto-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("bad.proto");
    std::fs::write(&f, "syntax = \"proto3\";\nmessage A {\n  string x = ;\n}\n").unwrap();
    let e = Schema::from_proto_files(std::slice::from_ref(&f), &[])
        .unwrap_err()
        .to_string();
    assert!(!e.contains('\n'), "one line: {e}");
    assert!(e.contains("bad.proto") && e.contains(":3:"), "{e}");
    let e = Schema::from_proto_files(&[dir.join("missing.proto")], &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing.proto"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_protoset_gives_the_same_schema() {
    let mut c = protox::Compiler::new([proto().parent().unwrap()]).unwrap();
    c.include_imports(true);
    c.open_files([proto()]).unwrap();
    let set = c.encode_file_descriptor_set();
    let s = Schema::from_protoset(&set).unwrap();
    let m = s.method("barrage.test.v1.Test/Echo").unwrap();
    assert_eq!(
        m.encode_data(r#"{"size":300}"#).unwrap(),
        vec![vec![0x10, 0xac, 0x02]]
    );
    assert!(matches!(
        Schema::from_protoset(b"\xff\xff"),
        Err(SchemaError::Descriptors(_))
    ));
}

#[test]
fn replies_decode_to_json() {
    let m = schema().method("barrage.test.v1.Test/Sum").unwrap();
    assert_eq!(
        m.decode_reply(&[0x08, 0x02, 0x10, 0x05]).unwrap(),
        r#"{"count":"2","sum":"5"}"#
    );
    assert!(matches!(
        m.decode_reply(&[0x08]),
        Err(SchemaError::Decode { .. })
    ));
}

#[test]
fn reflection_round_trips_both_versions() {
    for v in [Version::V1, Version::V1Alpha] {
        let r = Reflection::new(v);
        for req in [
            Request::ListServices,
            Request::FileContainingSymbol("barrage.test.v1.Test".into()),
            Request::FileByFilename("barrage.proto".into()),
        ] {
            assert_eq!(r.read_request(&r.request(&req)).unwrap(), req, "{v:?}");
        }
        for a in [
            Answer::Services(vec!["a.B".into(), "grpc.health.v1.Health".into()]),
            Answer::Files(vec![vec![1, 2, 3], vec![]]),
            Answer::Error {
                code: 5,
                message: "not found".into(),
            },
        ] {
            assert_eq!(r.read_answer(&r.answer(&a)).unwrap(), a, "{v:?}");
        }
    }
    assert_eq!(
        Version::V1Alpha.path(),
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"
    );
    // Known bytes: list_services is field 7, a string.
    assert_eq!(
        Reflection::new(Version::V1).request(&Request::ListServices),
        [0x3a, 0x01, b'*']
    );
}

#[test]
fn files_from_reflection_link_in_any_order() {
    // A file importing another, sent importer first (servers send them in no set order).
    let base = protox::file::File::from_source(
        "base.proto",
        "syntax = \"proto3\"; package p; message B { int32 v = 1; }",
    )
    .unwrap();
    let top = protox::file::File::from_source(
        "top.proto",
        "syntax = \"proto3\"; package p; import \"base.proto\"; service S { rpc M(B) returns (B); }",
    )
    .unwrap();
    let enc = |f: &protox::file::File| f.file_descriptor_proto().encode_to_vec();
    let s = Schema::from_file_descriptors(&[enc(&top), enc(&base)]).unwrap();
    assert_eq!(
        s.method("p.S/M")
            .unwrap()
            .encode_data(r#"{"v":1}"#)
            .unwrap(),
        vec![vec![0x08, 0x01]]
    );
    let e = Schema::from_file_descriptors(&[enc(&top)])
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "descriptor set: top.proto imports base.proto which no file provides"
    );
}

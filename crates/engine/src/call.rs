//! A gRPC load's request: `call`'s method found in `proto` (compiled at run time, no protoc) or
//! `protoset`, `data` (or `data_file`) encoded once into the call's length-prefixed messages,
//! `metadata` as header fields. Every call of the run sends these bytes; the HTTP/2 session
//! reads each reply as gRPC's (wire's `grpc::Response`).

use crate::config::{check_header, ConfigError, ResolvedRequest};
use barrage_model::load::Config;
use barrage_proto::Schema;
use barrage_wire::grpc::encode_message;
use std::path::PathBuf;

/// The one request of a gRPC load.
pub(crate) fn request(cfg: &Config) -> Result<ResolvedRequest, ConfigError> {
    let err = ConfigError::Grpc;
    // `check` made sure `call` is there.
    let call = cfg.call.as_deref().unwrap_or_default();
    let schema = match (&cfg.proto, &cfg.protoset) {
        (Some(p), _) => {
            // protox would say the file "is not in any include path".
            std::fs::metadata(p).map_err(|e| err(format!("{p}: {e}")))?;
            Schema::from_proto_files(&[PathBuf::from(p)], &[])
        }
        (None, Some(set)) => {
            let bytes = std::fs::read(set).map_err(|e| err(format!("{set}: {e}")))?;
            Schema::from_protoset(&bytes)
        }
        (None, None) => {
            return Err(err(
                "gRPC needs the call's schema: give --proto FILE or --protoset FILE (server \
                 reflection is not read yet)"
                    .into(),
            ))
        }
    }
    .map_err(|e| err(e.to_string()))?;
    let method = schema.method(call).map_err(|e| err(e.to_string()))?;
    let json = match (&cfg.data, &cfg.data_file) {
        (Some(d), _) => d.clone(),
        (None, Some(f)) => std::fs::read_to_string(f).map_err(|e| err(format!("{f}: {e}")))?,
        (None, None) => "{}".into(),
    };
    let messages = method
        .encode_data(&json)
        .map_err(|e| err(format!("--data: {e}")))?;
    let mut body = Vec::new();
    for m in &messages {
        encode_message(m, false, &mut body).map_err(|e| err(e.to_string()))?;
    }
    let mut headers = vec![
        ("content-type".to_string(), "application/grpc".to_string()),
        ("te".to_string(), "trailers".to_string()),
    ];
    headers.extend(cfg.headers.iter().cloned());
    if let Some(m) = &cfg.metadata {
        headers.extend(metadata(m).map_err(err)?);
    }
    Ok(ResolvedRequest {
        method: "POST".into(),
        path: method.path(),
        headers,
        body,
    })
}

/// `--metadata`'s JSON object as header fields (names lower-cased, as HTTP/2 sends them).
fn metadata(json: &str) -> Result<Vec<(String, String)>, String> {
    let bad = |why: &str| format!("--metadata {json:?}: {why}");
    let v: serde_json::Value = serde_json::from_str(json).map_err(|e| bad(&e.to_string()))?;
    let obj = v
        .as_object()
        .ok_or_else(|| bad("expected a JSON object of strings"))?;
    let mut out = Vec::with_capacity(obj.len());
    for (k, v) in obj {
        let v = v
            .as_str()
            .ok_or_else(|| bad(&format!("the value of {k:?} is not a string")))?;
        let name = k.to_ascii_lowercase();
        check_header(&name, v).map_err(|h| bad(&format!("invalid header {h:?}")))?;
        out.push((name, v.to_string()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_is_an_object_of_strings() {
        assert_eq!(
            metadata(r#"{"Authorization": "Bearer x", "x-id": "7"}"#),
            Ok(vec![
                ("authorization".into(), "Bearer x".into()),
                ("x-id".into(), "7".into())
            ])
        );
        for bad in [r#"["a"]"#, r#"{"a": 1}"#, "{", r#"{"a b": "c"}"#] {
            assert!(metadata(bad).is_err(), "{bad}");
        }
    }
}

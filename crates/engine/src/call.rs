//! A gRPC load's request: `call`'s method found in `proto` (compiled at run time, no protoc),
//! `protoset`, or the server's reflection service when neither is given (`reflect.rs`), `data` (or `data_file`) encoded once into the call's length-prefixed messages,
//! `metadata` as header fields. Every call of the run sends these bytes; the HTTP/2 session
//! reads each reply as gRPC's (wire's `grpc::Response`).

use crate::config::{check_header, ConfigError, ResolvedRequest, Target};
use barrage_model::load::Config;
use barrage_proto::Schema;
use barrage_wire::grpc::encode_message;
use std::path::PathBuf;

/// The one request of a gRPC load.
pub(crate) fn request(cfg: &Config, target: &Target) -> Result<ResolvedRequest, ConfigError> {
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
        (None, None) => return reflected(cfg, target, call),
    }
    .map_err(|e| err(e.to_string()))?;
    build(cfg, &schema, call)
}

/// The schema from the server's reflection service, then the request.
fn reflected(cfg: &Config, target: &Target, call: &str) -> Result<ResolvedRequest, ConfigError> {
    let err = ConfigError::Grpc;
    let service = call
        .trim_start_matches('/')
        .split_once('/')
        .map(|(s, _)| s)
        .or_else(|| call.rsplit_once('.').map(|(s, _)| s))
        .ok_or_else(|| err(format!("--call {call:?}: expected package.Service/Method")))?;
    let (host, port) = match &cfg.connect_to {
        Some(to) => match to.rsplit_once(':') {
            Some((h, p)) => (
                h.trim_matches(['[', ']']).to_string(),
                p.parse().unwrap_or(0),
            ),
            None => (to.clone(), target.port),
        },
        None => (target.host.clone(), target.port),
    };
    let addr = std::net::ToSocketAddrs::to_socket_addrs(&(host.as_str(), port))
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| err(format!("cannot resolve {host}")))?;
    let peer = crate::reflect::Peer {
        addr,
        authority: &target.authority,
        host: &target.host,
        tls: target.tls,
        insecure: cfg.insecure,
        timeout: cfg.timeout,
    };
    let schema = crate::reflect::schema(&peer, service).map_err(err)?;
    build(cfg, &schema, call)
}

/// The request of `call` in `schema` with the load's data and metadata.
fn build(cfg: &Config, schema: &Schema, call: &str) -> Result<ResolvedRequest, ConfigError> {
    let err = ConfigError::Grpc;
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

//! A gRPC load's request: `call`'s method found in `proto` (compiled at run time, no protoc),
//! `protoset`, or the server's reflection service when neither is given (`reflect.rs`); `data`
//! (or `data_file`) encoded once into the call's length-prefixed messages (compressed once
//! with `grpc_compression` gzip); `metadata` as header fields; the load's `timeout` as each
//! call's deadline (`grpc-timeout`). Every call of the run sends these bytes; the HTTP/2
//! session reads each reply as gRPC's (wire's `grpc::Response`).

use crate::config::{check_header, ConfigError, ResolvedRequest, Target};
use barrage_model::load::Config;
use barrage_proto::{Kind, Schema};
use barrage_wire::grpc::{encode_message, timeout, Encoding};
use std::path::PathBuf;

/// The one call of a gRPC load: its request, and whether its method answers with exactly one
/// message.
pub(crate) struct Call {
    pub request: ResolvedRequest,
    /// The method is unary or client-streaming: a reply of another number of messages breaks
    /// the call (gRPC's response cardinality).
    pub one_reply: bool,
}

/// The one call of a gRPC load.
pub(crate) fn request(cfg: &Config, target: &Target) -> Result<Call, ConfigError> {
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
fn reflected(cfg: &Config, target: &Target, call: &str) -> Result<Call, ConfigError> {
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
fn build(cfg: &Config, schema: &Schema, call: &str) -> Result<Call, ConfigError> {
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
    // Compressed once, here, for every call of the run.
    let gzip = cfg.grpc_compression.as_deref() == Some("gzip");
    let mut body = Vec::new();
    for m in &messages {
        match gzip {
            true => encode_message(&Encoding::Gzip.compress(m), true, &mut body),
            false => encode_message(m, false, &mut body),
        }
        .map_err(|e| err(e.to_string()))?;
    }
    let metadata = match &cfg.metadata {
        Some(m) => metadata(m).map_err(err)?,
        None => Vec::new(),
    };
    // The call's deadline is the load's timeout, so the server can give up when this side
    // does; metadata may name another (a server's deadline shorter than this side's patience).
    let deadline = match metadata.iter().find(|(n, _)| n == "grpc-timeout") {
        Some(_) => None,
        None => Some(timeout::format(cfg.timeout)),
    };
    let mut headers = vec![("te".to_string(), "trailers".to_string())];
    headers.extend(deadline.map(|d| ("grpc-timeout".to_string(), d)));
    headers.push(("content-type".to_string(), "application/grpc".to_string()));
    if gzip {
        for name in ["grpc-encoding", "grpc-accept-encoding"] {
            headers.push((name.to_string(), Encoding::Gzip.name().to_string()));
        }
    }
    headers.extend(cfg.headers.iter().cloned());
    headers.extend(metadata);
    let request = ResolvedRequest {
        method: "POST".into(),
        path: method.path(),
        headers,
        body,
    };
    let one_reply = matches!(method.kind(), Kind::Unary | Kind::ClientStreaming);
    Ok(Call { request, one_reply })
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
        if name == "grpc-timeout" {
            timeout::parse(v.as_bytes()).map_err(|e| bad(&e.to_string()))?;
        }
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
        for bad in [
            r#"["a"]"#,
            r#"{"a": 1}"#,
            "{",
            r#"{"a b": "c"}"#,
            r#"{"grpc-timeout": "1s"}"#,
        ] {
            assert!(metadata(bad).is_err(), "{bad}");
        }
    }

    const PROTO: &str = "syntax = \"proto3\"; package p; message M { string t = 1; } \
                         service S { rpc U(M) returns (M); rpc SS(M) returns (stream M); \
                         rpc CS(stream M) returns (M); rpc B(stream M) returns (stream M); }";

    fn built(cfg: Config) -> ResolvedRequest {
        let schema = Schema::from_sources(&[("p.proto", PROTO)]).unwrap();
        build(&cfg, &schema, "p.S/U").unwrap().request
    }

    fn header<'a>(r: &'a ResolvedRequest, name: &str) -> Vec<&'a str> {
        let h = r.headers.iter().filter(|(n, _)| n == name);
        h.map(|(_, v)| v.as_str()).collect()
    }

    #[test]
    fn the_timeout_is_each_calls_deadline_unless_metadata_names_one() {
        let cfg = Config {
            timeout: std::time::Duration::from_millis(1500),
            data: Some(r#"{"t": "x"}"#.into()),
            ..Config::default()
        };
        let r = built(cfg.clone());
        assert_eq!(header(&r, "grpc-timeout"), ["1500000u"]);
        assert_eq!(header(&r, "grpc-encoding"), Vec::<&str>::new());
        // M { t: "x" } = 0a 01 'x', plain.
        assert_eq!(r.body, [0, 0, 0, 0, 3, 0x0a, 1, b'x']);
        let r = built(Config {
            metadata: Some(r#"{"grpc-timeout": "100m"}"#.into()),
            ..cfg
        });
        assert_eq!(header(&r, "grpc-timeout"), ["100m"]);
    }

    #[test]
    fn gzip_compresses_each_message_once_and_says_so() {
        let r = built(Config {
            data: Some(r#"[{"t": "x"}, {"t": "yy"}]"#.into()),
            grpc_compression: Some("gzip".into()),
            ..Config::default()
        });
        assert_eq!(header(&r, "grpc-encoding"), ["gzip"]);
        assert_eq!(header(&r, "grpc-accept-encoding"), ["gzip"]);
        let mut got = Vec::new();
        let mut d = barrage_wire::grpc::MessageDecoder::new(1 << 20);
        d.feed(&r.body, |compressed, m| {
            assert!(compressed);
            got.push(Encoding::Gzip.decompress(true, m, 1 << 20).unwrap());
        })
        .unwrap();
        assert_eq!(got, [vec![0x0a, 1, b'x'], vec![0x0a, 2, b'y', b'y']]);
    }

    /// A unary or client-streaming method answers with exactly one message; a streaming
    /// reply with any number.
    #[test]
    fn the_methods_kind_says_how_many_replies_a_call_takes() {
        let schema = Schema::from_sources(&[("p.proto", PROTO)]).unwrap();
        for (method, one) in [("U", true), ("SS", false), ("CS", true), ("B", false)] {
            let call = build(&Config::default(), &schema, &format!("p.S/{method}")).unwrap();
            assert_eq!(call.one_reply, one, "{method}");
        }
    }
}

//! `barrage serve`'s gRPC services, on the port and through the answers every other route
//! uses ([`crate::answer`]): a call is a request whose `content-type` is `application/grpc`
//! over a stream protocol (HTTP/2, h2c or TLS), routed by its `:path`. Served:
//! `barrage.test.v1.Test` (docs/grpc/barrage.proto: unary `Echo`, server-streaming `Stream`,
//! client-streaming `Sum`, bidirectional `Chat`), `grpc.health.v1.Health/Check`, and server
//! reflection (`grpc.reflection.v1` and `v1alpha`, over both: their descriptors compiled from
//! the bundled .proto sources at first use); any other method is a trailers-only
//! UNIMPLEMENTED.
//!
//! [`Call`] is one call's state, pure (no clock, no socket): the request's messages in as they
//! come, the reply's messages out as the stream takes them, the status once the reply is whole.
//! Replies to `Stream` are made one message at a time as the stream takes them, so a call asking
//! for a million messages holds one; `Chat` echoes and stops reading while its echoes wait
//! (bounded like `/echo`).
//!
//! A call asks for a fault in its metadata ([`fault`]): a status, a trailers-only status or a
//! delay acted out on its answer (a delay past the call's `grpc-timeout` ends at it with
//! DEADLINE_EXCEEDED), or the stream's reset or stall. Request messages may be gzip-compressed
//! (`grpc-encoding: gzip`); replies are sent uncompressed.

use barrage_proto::reflection::{Answer, Reflection, Request, Version};
use barrage_proto::Schema;
use barrage_wire::grpc::{encode_message, Code, Encoding, GrpcError, MessageDecoder};
use prost::Message;
use std::sync::OnceLock;

pub(crate) mod fault;

/// The methods served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Echo,
    Stream,
    Sum,
    Chat,
    Health,
    /// `ServerReflectionInfo`: bidirectional, one answer per request.
    Reflection(Version),
    /// Any other path: UNIMPLEMENTED, trailers-only.
    Unimplemented,
}

/// The method a call's `:path` names.
pub(crate) fn method(path: &str) -> Method {
    match path {
        "/barrage.test.v1.Test/Echo" => Method::Echo,
        "/barrage.test.v1.Test/Stream" => Method::Stream,
        "/barrage.test.v1.Test/Sum" => Method::Sum,
        "/barrage.test.v1.Test/Chat" => Method::Chat,
        "/grpc.health.v1.Health/Check" => Method::Health,
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo" => {
            Method::Reflection(Version::V1)
        }
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo" => {
            Method::Reflection(Version::V1Alpha)
        }
        _ => Method::Unimplemented,
    }
}

/// What reflection answers from: the served services' schema and the protocol's messages in
/// both versions, made once.
struct Reflected {
    schema: Schema,
    v1: Reflection,
    v1alpha: Reflection,
}

/// The services reflection lists.
const SERVICES: [&str; 4] = [
    "barrage.test.v1.Test",
    "grpc.health.v1.Health",
    "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection",
];

fn reflected() -> &'static Reflected {
    static R: OnceLock<Reflected> = OnceLock::new();
    R.get_or_init(|| Reflected {
        schema: Schema::from_sources(&[
            (
                "barrage.proto",
                include_str!("../../../docs/grpc/barrage.proto"),
            ),
            (
                "grpc/health/v1/health.proto",
                include_str!("grpc/health.proto"),
            ),
        ])
        .expect("the bundled .proto files compile"),
        v1: Reflection::new(Version::V1),
        v1alpha: Reflection::new(Version::V1Alpha),
    })
}

/// One reflection request's answer.
fn reflect(version: Version, msg: &[u8]) -> Vec<u8> {
    let r = reflected();
    let proto = match version {
        Version::V1 => &r.v1,
        Version::V1Alpha => &r.v1alpha,
    };
    let not_found = |what: &str| Answer::Error {
        code: Code::NotFound.as_u32() as i32,
        message: format!("{what} not found"),
    };
    let answer = match proto.read_request(msg) {
        Ok(Request::ListServices) => {
            Answer::Services(SERVICES.iter().map(|s| s.to_string()).collect())
        }
        Ok(Request::FileContainingSymbol(sym)) => match r.schema.file_containing(&sym) {
            Some(files) => Answer::Files(files),
            None => not_found(&format!("symbol {sym}")),
        },
        Ok(Request::FileByFilename(name)) => match r.schema.file_by_name(&name) {
            Some(files) => Answer::Files(files),
            None => not_found(&format!("file {name}")),
        },
        Ok(Request::Other) => Answer::Error {
            code: Code::Unimplemented.as_u32() as i32,
            message: "extension requests are not answered".into(),
        },
        Err(e) => Answer::Error {
            code: Code::InvalidArgument.as_u32() as i32,
            message: e.to_string(),
        },
    };
    proto.answer(&answer)
}

/// The largest request message taken (gRPC's usual default for what a side receives).
const MAX_MESSAGE: u32 = 4 << 20;
/// The largest reply message made (`size` asks for more: INVALID_ARGUMENT).
const MAX_REPLY: u32 = 4 << 20;

/// docs/grpc/barrage.proto's messages and health.proto's, as prost derives them.
mod pb {
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct EchoRequest {
        #[prost(bytes = "vec", tag = "1")]
        pub payload: Vec<u8>,
        #[prost(uint32, tag = "2")]
        pub size: u32,
        #[prost(string, tag = "3")]
        pub text: String,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct EchoReply {
        #[prost(bytes = "vec", tag = "1")]
        pub payload: Vec<u8>,
        #[prost(string, tag = "2")]
        pub text: String,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct StreamRequest {
        #[prost(uint32, tag = "1")]
        pub count: u32,
        #[prost(uint32, tag = "2")]
        pub size: u32,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct SumRequest {
        #[prost(int64, tag = "1")]
        pub value: i64,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct SumReply {
        #[prost(uint64, tag = "1")]
        pub count: u64,
        #[prost(int64, tag = "2")]
        pub sum: i64,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct HealthCheckRequest {
        #[prost(string, tag = "1")]
        pub service: String,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct HealthCheckResponse {
        #[prost(int32, tag = "1")]
        pub status: i32,
    }
}

/// HealthCheckResponse.ServingStatus.SERVING.
const SERVING: i32 = 1;

/// How a call ended, for its trailers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ended {
    pub code: Code,
    pub message: String,
}

impl Ended {
    fn ok() -> Ended {
        Ended {
            code: Code::Ok,
            message: String::new(),
        }
    }

    pub(crate) fn err(code: Code, message: impl Into<String>) -> Ended {
        Ended {
            code,
            message: message.into(),
        }
    }
}

/// One call in progress.
#[derive(Debug)]
pub(crate) struct Call {
    method: Method,
    /// The request messages' `grpc-encoding` (a compressed one is inflated to at most
    /// `MAX_MESSAGE` bytes: a gzip bomb costs no more).
    encoding: Encoding,
    decoder: MessageDecoder,
    /// Reply bytes (length-prefixed messages) the stream has not taken yet, from `at`.
    out: Vec<u8>,
    at: usize,
    /// The unary request (Echo, Stream, Health: the first message; a second is an error).
    first: Option<Vec<u8>>,
    /// Stream: replies still to make, and their size.
    left: u32,
    size: u32,
    /// Sum: messages and their total.
    count: u64,
    sum: i64,
    /// The request's end came.
    ended: bool,
    /// The reply is whole: its status (sent once `out` is taken).
    status: Option<Ended>,
}

impl Call {
    pub(crate) fn new(method: Method) -> Call {
        Call {
            method,
            encoding: Encoding::Identity,
            decoder: MessageDecoder::new(MAX_MESSAGE),
            out: Vec::new(),
            at: 0,
            first: None,
            left: 0,
            size: 0,
            count: 0,
            sum: 0,
            ended: false,
            status: None,
        }
    }

    /// The same call, its request messages in `encoding` (`grpc-encoding`).
    pub(crate) fn with_encoding(mut self, encoding: Encoding) -> Call {
        self.encoding = encoding;
        self
    }

    /// Body bytes of the request, the last ones with `end`.
    pub(crate) fn body(&mut self, data: &[u8], end: bool) {
        if self.status.is_some() {
            return;
        }
        let mut bad: Option<Ended> = None;
        let Call {
            method,
            encoding,
            decoder,
            out,
            first,
            count,
            sum,
            ..
        } = self;
        let fed = decoder.feed(data, |compressed, msg| {
            if bad.is_some() {
                return;
            }
            // A compressed message is inflated (the only copy a message gets here); one
            // without a grpc-encoding, or that does not inflate, is the client's error.
            let inflated;
            let msg = match compressed {
                false => msg,
                true => match encoding.decompress(true, msg, MAX_MESSAGE) {
                    Ok(m) => {
                        inflated = m;
                        &inflated[..]
                    }
                    Err(e) => {
                        bad = Some(decode_error(&e));
                        return;
                    }
                },
            };
            match method {
                Method::Reflection(v) => {
                    if let Err(e) = push(&reflect(*v, msg), out) {
                        bad = Some(e);
                    }
                }
                Method::Chat => match pb::EchoRequest::decode(msg) {
                    Ok(req) => {
                        if let Err(e) = echo_reply(req, out) {
                            bad = Some(e);
                        }
                    }
                    Err(e) => bad = Some(Ended::err(Code::Internal, e.to_string())),
                },
                Method::Sum => match pb::SumRequest::decode(msg) {
                    Ok(req) => {
                        *count += 1;
                        *sum = sum.wrapping_add(req.value);
                    }
                    Err(e) => bad = Some(Ended::err(Code::Internal, e.to_string())),
                },
                _ if first.is_some() => {
                    bad = Some(Ended::err(
                        Code::Unimplemented,
                        "a second request message on a unary call",
                    ))
                }
                _ => *first = Some(msg.to_vec()),
            }
        });
        if let Err(e) = fed {
            bad = Some(decode_error(&e));
        }
        if bad.is_none() && end {
            if let Err(e) = self.decoder.finish() {
                bad = Some(decode_error(&e));
            }
        }
        if let Some(e) = bad {
            self.fail(e);
            return;
        }
        if end {
            self.ended = true;
            self.reply();
        }
    }

    /// The request is whole: the reply of a method that answers at the end.
    fn reply(&mut self) {
        let first = self.first.take().unwrap_or_default();
        let done = match self.method {
            Method::Echo => pb::EchoRequest::decode(&first[..])
                .map_err(|e| Ended::err(Code::Internal, e.to_string()))
                .and_then(|req| echo_reply(req, &mut self.out)),
            Method::Stream => match pb::StreamRequest::decode(&first[..]) {
                Ok(req) if req.size > MAX_REPLY => Err(too_large(req.size)),
                Ok(req) => {
                    self.left = req.count;
                    self.size = req.size;
                    Ok(())
                }
                Err(e) => Err(Ended::err(Code::Internal, e.to_string())),
            },
            Method::Sum => {
                let r = pb::SumReply {
                    count: self.count,
                    sum: self.sum,
                };
                push_reply(&r, &mut self.out);
                Ok(())
            }
            Method::Chat | Method::Reflection(_) => Ok(()),
            Method::Health => match pb::HealthCheckRequest::decode(&first[..]) {
                Ok(req) if req.service.is_empty() || req.service == "barrage.test.v1.Test" => {
                    let r = pb::HealthCheckResponse { status: SERVING };
                    push_reply(&r, &mut self.out);
                    Ok(())
                }
                Ok(req) => Err(Ended::err(
                    Code::NotFound,
                    format!("unknown service {}", req.service),
                )),
                Err(e) => Err(Ended::err(Code::Internal, e.to_string())),
            },
            Method::Unimplemented => Err(unimplemented()),
        };
        self.status = Some(done.err().unwrap_or_else(Ended::ok));
    }

    /// The call fails: what was made of the reply is dropped, the status goes out next.
    pub(crate) fn fail(&mut self, e: Ended) {
        self.out.clear();
        self.at = 0;
        self.left = 0;
        self.status = Some(e);
    }

    /// The reply bytes to send now (a `Stream` reply made when the last one went).
    pub(crate) fn pending(&mut self) -> &[u8] {
        if self.at == self.out.len() {
            self.out.clear();
            self.at = 0;
            if self.left > 0 && self.status.as_ref().is_some_and(|s| s.code == Code::Ok) {
                self.left -= 1;
                let r = pb::EchoReply {
                    payload: pattern_bytes(self.size),
                    text: String::new(),
                };
                push_reply(&r, &mut self.out);
            }
        }
        &self.out[self.at..]
    }

    /// `n` bytes of [`Call::pending`] went.
    pub(crate) fn sent(&mut self, n: usize) {
        self.at += n;
    }

    /// Reply bytes waiting for the stream.
    pub(crate) fn held(&self) -> usize {
        self.out.len() - self.at
    }

    /// The status, once the reply is whole and sent.
    pub(crate) fn done(&self) -> Option<&Ended> {
        let sent = self.at == self.out.len() && self.left == 0;
        self.status.as_ref().filter(|_| sent)
    }

    /// Whether the request's end came (a `Chat` may still be reading).
    pub(crate) fn ended(&self) -> bool {
        self.ended
    }
}

/// UNIMPLEMENTED for a method not served.
pub(crate) fn unimplemented() -> Ended {
    Ended::err(Code::Unimplemented, "method not served by barrage serve")
}

/// Echo's and Chat's reply: the payload back, or `size` bytes of the pattern when asked.
fn echo_reply(req: pb::EchoRequest, out: &mut Vec<u8>) -> Result<(), Ended> {
    if req.size > MAX_REPLY {
        return Err(too_large(req.size));
    }
    let payload = if req.size > 0 {
        pattern_bytes(req.size)
    } else {
        req.payload
    };
    let r = pb::EchoReply {
        payload,
        text: req.text,
    };
    push_reply(&r, out);
    Ok(())
}

/// Appends `m` as one message, encoded in place after its prefix (its length is known first:
/// no intermediate buffer). Replies are within `MAX_REPLY`, so the length fits the prefix.
fn push_reply(m: &impl Message, out: &mut Vec<u8>) {
    let len = m.encoded_len();
    out.reserve(barrage_wire::grpc::PREFIX_LEN + len);
    out.push(0);
    out.extend_from_slice(&(len as u32).to_be_bytes());
    m.encode_raw(out);
}

/// `n` bytes of the `/bytes` pattern (a client can check what it got).
fn pattern_bytes(n: u32) -> Vec<u8> {
    let mut v = vec![0; n as usize];
    crate::pattern::fill(0, &mut v);
    v
}

fn too_large(size: u32) -> Ended {
    Ended::err(
        Code::InvalidArgument,
        format!("size {size} is over the {MAX_REPLY} bytes a reply may have"),
    )
}

fn push(msg: &[u8], out: &mut Vec<u8>) -> Result<(), Ended> {
    encode_message(msg, false, out).map_err(|e| Ended::err(Code::Internal, e.to_string()))
}

/// A request body that does not split into messages: the status gRPC gives it.
fn decode_error(e: &GrpcError) -> Ended {
    let code = match e {
        GrpcError::TooLarge { .. } => Code::ResourceExhausted,
        _ => Code::Internal,
    };
    Ended::err(code, e.to_string())
}

#[cfg(test)]
mod tests;

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
//! Replies are made as the stream takes them, a piece at a time: `Stream`'s next message once the
//! last one went, a payload of `size` pattern bytes [`PIECE`] at a time, `Chat`'s (and
//! reflection's) answer to its next request message once the answer before it went, the
//! requests waiting meanwhile as the bytes they came in. So a call holds at most a piece of its
//! reply and what its client sent, whatever it asked for: 1 KB of `Chat` requests asking for
//! 4 MiB each made every reply of a read at once before (444 MiB). The stream takes what its
//! flow control and the connection's high-water mark allow, and a call whose replies wait is
//! not read further (like `/echo`).
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
    /// Made by hand as it is sent (`Call::start_reply`); the tests hold that to prost's.
    #[cfg(test)]
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

/// The most reply bytes a call makes at a time of a pattern payload (`size`): a reply is made
/// as the stream takes it, so a call holds at most this much of one, whatever it asked for.
const PIECE: usize = 16 * 1024;

/// One call in progress.
#[derive(Debug)]
pub(crate) struct Call {
    method: Method,
    /// The request messages' `grpc-encoding` (a compressed one is inflated to at most
    /// `MAX_MESSAGE` bytes: a gzip bomb costs no more).
    encoding: Encoding,
    decoder: MessageDecoder,
    /// Reply bytes made that the stream has not taken yet, from `at`: a message's head, an
    /// echoed payload, a piece of a pattern payload, a small reply whole.
    out: Vec<u8>,
    at: usize,
    /// The reply message being made: the pattern bytes of its payload still to make, then its
    /// tail.
    making: Option<Making>,
    /// Chat, Reflection: request bytes not decoded yet, from `inbox_at`. Each message is
    /// decoded once the reply before it went, so what a client asks for waits here as the few
    /// bytes it sent, never as the replies it asked for (before: every reply of a read made at
    /// once, 400 MiB for 1 KB of requests).
    inbox: Vec<u8>,
    inbox_at: usize,
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

/// A reply message whose payload is made as it is sent.
#[derive(Debug)]
struct Making {
    /// The pattern's next offset and the payload bytes still to make.
    offset: u64,
    left: u64,
    /// What follows the payload (the `text` field, encoded).
    tail: Vec<u8>,
}

/// A reply's payload: bytes it has, or `n` bytes of the pattern to make as they go.
enum Payload {
    Bytes(Vec<u8>),
    Pattern(u32),
}

impl Call {
    pub(crate) fn new(method: Method) -> Call {
        Call {
            method,
            encoding: Encoding::Identity,
            decoder: MessageDecoder::new(MAX_MESSAGE),
            out: Vec::new(),
            at: 0,
            making: None,
            inbox: Vec::new(),
            inbox_at: 0,
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

    /// A bidirectional method: one reply per request message, made when the one before went.
    fn answers_each(&self) -> bool {
        matches!(self.method, Method::Chat | Method::Reflection(_))
    }

    /// Body bytes of the request, the last ones with `end`.
    pub(crate) fn body(&mut self, data: &[u8], end: bool) {
        if self.status.is_some() {
            return;
        }
        if self.answers_each() {
            // Kept as they came; [`Call::pending`] decodes them one message at a time.
            if self.inbox_at == self.inbox.len() {
                self.inbox.clear();
                self.inbox_at = 0;
            } else if self.inbox_at > self.inbox.len() / 2 {
                self.inbox.drain(..self.inbox_at);
                self.inbox_at = 0;
            }
            self.inbox.extend_from_slice(data);
            self.ended |= end;
            self.settle_end();
            return;
        }
        let mut bad: Option<Ended> = None;
        let Call {
            method,
            encoding,
            decoder,
            first,
            count,
            sum,
            ..
        } = self;
        let fed = decoder.feed(data, |compressed, msg| {
            if bad.is_some() {
                return;
            }
            let inflated;
            let msg = match inflate(*encoding, compressed, msg) {
                Ok(Some(m)) => {
                    inflated = m;
                    &inflated[..]
                }
                Ok(None) => msg,
                Err(e) => {
                    bad = Some(e);
                    return;
                }
            };
            match method {
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
                .and_then(|req| self.echo(req)),
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
        match done {
            Ok(()) => self.status = Some(Ended::ok()),
            Err(e) => self.fail(e),
        }
    }

    /// The call fails: what was made of the reply, and what was not read of the request, is
    /// dropped; the status goes out next.
    pub(crate) fn fail(&mut self, e: Ended) {
        self.out.clear();
        self.at = 0;
        self.left = 0;
        self.making = None;
        self.inbox = Vec::new();
        self.inbox_at = 0;
        self.status = Some(e);
    }

    /// The reply bytes to send now: the next piece is made once the last one went (a pattern
    /// payload's next bytes, `Stream`'s next message, the answer to `Chat`'s next request).
    pub(crate) fn pending(&mut self) -> &[u8] {
        if self.at == self.out.len() {
            self.out.clear();
            self.at = 0;
            self.make();
        }
        &self.out[self.at..]
    }

    /// Makes the next reply bytes into the empty `out` (nothing when there are none yet).
    fn make(&mut self) {
        if let Some(m) = &mut self.making {
            if m.left > 0 {
                let mut n = m.left.min(PIECE as u64) as usize;
                self.out.reserve(n);
                while n > 0 {
                    let s = crate::pattern::slice_at(m.offset, n);
                    self.out.extend_from_slice(s);
                    m.offset += s.len() as u64;
                    m.left -= s.len() as u64;
                    n -= s.len();
                }
                return;
            }
            let m = self.making.take().expect("making");
            self.out.extend_from_slice(&m.tail);
            if !self.out.is_empty() {
                return;
            }
        }
        if self.left > 0 && self.status.as_ref().is_some_and(|s| s.code == Code::Ok) {
            self.left -= 1;
            self.start_reply(Payload::Pattern(self.size), "");
            return;
        }
        if self.answers_each() && self.status.is_none() {
            self.answer_next();
        }
    }

    /// Decodes the next whole request message of the inbox and starts its reply.
    fn answer_next(&mut self) {
        let mut got: Result<Option<Vec<u8>>, Ended> = Ok(None);
        let encoding = self.encoding;
        let fed = self
            .decoder
            .feed_one(&self.inbox[self.inbox_at..], |compressed, msg| {
                got = inflate(encoding, compressed, msg).map(|m| {
                    // Borrowed from the decoder or the inbox: one copy of one message.
                    Some(m.unwrap_or_else(|| msg.to_vec()))
                });
            });
        let used = match fed {
            Ok((used, _)) => used,
            Err(e) => return self.fail(decode_error(&e)),
        };
        self.inbox_at += used;
        let msg = match got {
            Ok(Some(m)) => m,
            Ok(None) => return self.settle_end(),
            Err(e) => return self.fail(e),
        };
        let answered = match self.method {
            Method::Chat => pb::EchoRequest::decode(&msg[..])
                .map_err(|e| Ended::err(Code::Internal, e.to_string()))
                .and_then(|req| self.echo(req)),
            Method::Reflection(v) => push(&reflect(v, &msg), &mut self.out),
            _ => Ok(()),
        };
        match answered {
            Ok(()) => self.settle_end(),
            Err(e) => self.fail(e),
        }
    }

    /// A bidirectional call whose request ended and whose every message was answered: its
    /// status (an error if the body ended inside a message).
    fn settle_end(&mut self) {
        if !self.answers_each()
            || !self.ended
            || self.status.is_some()
            || self.inbox_at < self.inbox.len()
        {
            return;
        }
        self.status = Some(match self.decoder.finish() {
            Ok(()) => Ended::ok(),
            Err(e) => decode_error(&e),
        });
    }

    /// Echo's and Chat's reply: the payload back, or `size` bytes of the pattern when asked.
    fn echo(&mut self, req: pb::EchoRequest) -> Result<(), Ended> {
        if req.size > MAX_REPLY {
            return Err(too_large(req.size));
        }
        let payload = if req.size > 0 {
            Payload::Pattern(req.size)
        } else {
            Payload::Bytes(req.payload)
        };
        self.start_reply(payload, &req.text);
        Ok(())
    }

    /// Starts an `EchoReply { payload, text }` message: its prefix and as much as it has now
    /// into `out`, a pattern payload into `making` (encoded as prost does: fields in order,
    /// empty ones left out).
    fn start_reply(&mut self, payload: Payload, text: &str) {
        use prost::encoding::{encode_varint, encoded_len_varint};
        let plen = match &payload {
            Payload::Bytes(b) => b.len() as u64,
            Payload::Pattern(n) => u64::from(*n),
        };
        let field = |len: u64| {
            if len == 0 {
                0
            } else {
                1 + encoded_len_varint(len) as u64 + len
            }
        };
        let mut tail = Vec::new();
        if !text.is_empty() {
            tail.push(0x12);
            encode_varint(text.len() as u64, &mut tail);
            tail.extend_from_slice(text.as_bytes());
        }
        // Within MAX_REPLY plus a text within MAX_MESSAGE: the length fits the prefix.
        let len = field(plen) + tail.len() as u64;
        self.out.push(0);
        self.out.extend_from_slice(&(len as u32).to_be_bytes());
        if plen > 0 {
            self.out.push(0x0a);
            encode_varint(plen, &mut self.out);
        }
        match payload {
            Payload::Bytes(b) => {
                self.out.extend_from_slice(&b);
                self.out.extend_from_slice(&tail);
            }
            Payload::Pattern(n) => {
                self.making = Some(Making {
                    offset: 0,
                    left: u64::from(n),
                    tail,
                });
            }
        }
    }

    /// `n` bytes of [`Call::pending`] went.
    pub(crate) fn sent(&mut self, n: usize) {
        self.at += n;
    }

    /// Bytes the call holds for the client: reply bytes made and not taken, and request bytes
    /// not answered yet.
    pub(crate) fn held(&self) -> usize {
        self.out.len() - self.at + self.inbox.len() - self.inbox_at
    }

    /// The status, once the reply is whole and sent.
    pub(crate) fn done(&self) -> Option<&Ended> {
        let sent = self.at == self.out.len() && self.left == 0 && self.making.is_none();
        self.status.as_ref().filter(|_| sent)
    }

    /// Whether the request's end came (a `Chat` may still be reading).
    pub(crate) fn ended(&self) -> bool {
        self.ended
    }
}

/// A request message as it came, inflated when it is compressed (`Some`: the inflated copy);
/// one compressed without a grpc-encoding, or that does not inflate, is the client's error.
fn inflate(encoding: Encoding, compressed: bool, msg: &[u8]) -> Result<Option<Vec<u8>>, Ended> {
    if !compressed {
        return Ok(None);
    }
    encoding
        .decompress(true, msg, MAX_MESSAGE)
        .map(Some)
        .map_err(|e| decode_error(&e))
}

/// UNIMPLEMENTED for a method not served.
pub(crate) fn unimplemented() -> Ended {
    Ended::err(Code::Unimplemented, "method not served by barrage serve")
}

/// Appends `m` as one message, encoded in place after its prefix (its length is known first:
/// no intermediate buffer). Small replies only (Sum's, Health's).
fn push_reply(m: &impl Message, out: &mut Vec<u8>) {
    let len = m.encoded_len();
    out.reserve(barrage_wire::grpc::PREFIX_LEN + len);
    out.push(0);
    out.extend_from_slice(&(len as u32).to_be_bytes());
    m.encode_raw(out);
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

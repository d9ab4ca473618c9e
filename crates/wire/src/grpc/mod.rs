//! gRPC over HTTP/2's own layer (the "gRPC over HTTP2" protocol document): the length-prefixed
//! messages of a call's DATA frames (`message`), the status codes and the percent-encoded
//! `grpc-message` of its trailers (`status`), the `grpc-timeout` deadline (`timeout`) and the
//! message compression of `grpc-encoding` (`compress`). Sans I/O like the rest of this crate:
//! bytes in, values out, no clock; the HTTP/2 framing under it is [`crate::h2`]'s.
//!
//! Every limit a hostile peer could push is the caller's and checked before memory is taken: a
//! message length is compared with the most the caller accepts before a byte of it is buffered,
//! and a compressed message is inflated no further than the same limit (a gzip bomb stops there).

pub mod compress;
pub mod message;
pub mod response;
pub mod status;
pub mod timeout;

pub use compress::Encoding;
pub use message::{encode_message, MessageDecoder, PREFIX_LEN};
pub use response::{Outcome, Response};
pub use status::{Brief, Code, Status};

use barrage_model::load::ErrorClass;

/// The content type of a gRPC call (`application/grpc`, optionally `+proto` or another suffix).
pub fn is_grpc_content_type(value: &[u8]) -> bool {
    const BASE: &[u8] = b"application/grpc";
    value.len() >= BASE.len()
        && value[..BASE.len()].eq_ignore_ascii_case(BASE)
        && matches!(value.get(BASE.len()), None | Some(b'+') | Some(b';'))
}

/// What a gRPC peer did wrong at this layer. Each is a counted error of its own class for the
/// caller (the load) or a status for the peer (the server), never a panic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GrpcError {
    /// The byte before a message's length was neither 0 (plain) nor 1 (compressed).
    #[error("a message's compressed flag is {0}, not 0 or 1")]
    BadFlag(u8),
    /// A message longer than the most the caller accepts (checked before it is read).
    #[error("a message of {len} bytes is over the limit of {max}")]
    TooLarge { len: u64, max: u64 },
    /// The stream ended inside a message.
    #[error("the stream ended {have} bytes into a message of {want} (prefix included)")]
    Truncated { have: u64, want: u64 },
    /// A compressed message on a call whose `grpc-encoding` is identity or absent.
    #[error("a compressed message without a grpc-encoding")]
    CompressedWithoutEncoding,
    /// A compressed message that does not inflate (corrupt or not the encoding named).
    #[error("a compressed message does not inflate: {0}")]
    Inflate(String),
    /// `grpc-encoding` names an encoding this side does not speak.
    #[error("unsupported grpc-encoding {0:?}")]
    UnknownEncoding(String),
    /// `grpc-status` is not a decimal code from 0 to 16.
    #[error("grpc-status {0:?} is not a code from 0 to 16")]
    BadStatus(String),
    /// The trailers (or a trailers-only response) carry no `grpc-status`.
    #[error("no grpc-status in the trailers")]
    MissingStatus,
    /// A response whose HTTP status is not 200 and that carries no `grpc-status`: gRPC maps
    /// the HTTP status to a code (http-grpc-status-mapping).
    #[error("HTTP status {0} without grpc-status (read as {name})", name = .1.name())]
    HttpStatus(u16, Code),
    /// A response with a body whose content type is not `application/grpc`.
    #[error("a response that is not gRPC (its content-type is not application/grpc)")]
    NotGrpc,
    /// `grpc-timeout` is not 1 to 8 digits and a unit of H, M, S, m, u or n.
    #[error("grpc-timeout {0:?} is not 1-8 digits and a unit (H M S m u n)")]
    BadTimeout(String),
    /// A response with a body (its head did not end the stream) whose stream ended without
    /// trailers, so without a status: a `grpc-status` in the head does not count, since a
    /// status comes in the trailers or in a trailers-only response, which ends the stream
    /// (grpcio fails such a call as UNKNOWN, grpc-go as INTERNAL).
    #[error("the stream ended after the head without trailers{}", in_head(.status_in_head))]
    NoTrailers { status_in_head: bool },
    /// A call of a method that answers with one message (unary, client-streaming) answered
    /// with another number of them: none with OK, or more than one (gRPC's status-code
    /// document: the client fails it as UNIMPLEMENTED).
    #[error("{messages} reply messages to a call of a method that answers with exactly one")]
    Cardinality { messages: u64 },
}

/// The words [`GrpcError::NoTrailers`] adds when the head had a `grpc-status`.
fn in_head(status_in_head: &bool) -> &'static str {
    match status_in_head {
        true => " (its grpc-status was in the head)",
        false => "",
    }
}

impl GrpcError {
    /// What went wrong in a few fixed words (`Copy`: a failed call carries it to the
    /// recorder, which formats it only for an example).
    pub fn kind(&self) -> &'static str {
        match self {
            GrpcError::BadFlag(_) => "a compressed flag other than 0 or 1",
            GrpcError::TooLarge { .. } => "a message over the limit",
            GrpcError::Truncated { .. } => "the stream ended inside a message",
            GrpcError::CompressedWithoutEncoding => "a compressed message without grpc-encoding",
            GrpcError::Inflate(_) => "a compressed message that does not inflate",
            GrpcError::UnknownEncoding(_) => "an unknown grpc-encoding",
            GrpcError::BadStatus(_) => "a grpc-status outside 0-16",
            GrpcError::MissingStatus => "no grpc-status",
            GrpcError::HttpStatus(..) => "an HTTP status other than 200 without grpc-status",
            GrpcError::NotGrpc => "a content-type other than application/grpc",
            GrpcError::BadTimeout(_) => "a bad grpc-timeout",
            GrpcError::NoTrailers {
                status_in_head: false,
            } => "a body without trailers",
            GrpcError::NoTrailers {
                status_in_head: true,
            } => "grpc-status in the response head, then a body without trailers",
            GrpcError::Cardinality { messages: 0 } => {
                "no reply message to a call whose method answers with one"
            }
            GrpcError::Cardinality { .. } => {
                "more than one reply message to a call whose method answers with one"
            }
        }
    }

    /// The class a load counts it as: a call cut off without trailers and a reply count its
    /// method does not allow have classes of their own; every other breakage is `grpc`.
    pub fn class(&self) -> ErrorClass {
        match self {
            GrpcError::NoTrailers { .. } => ErrorClass::GrpcNoTrailers,
            GrpcError::Cardinality { .. } => ErrorClass::GrpcCardinality,
            _ => ErrorClass::Grpc,
        }
    }
}

/// How a call ended, in a form that copies: its status code and the first bytes of its
/// `grpc-message`, or what broke it (the reply messages were counted as each arrived).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    Status { code: Code, message: Brief },
    Broken(Broken),
}

/// What broke a call, in a form that copies: its class ([`GrpcError::class`]) and its kind
/// ([`GrpcError::kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Broken {
    pub class: ErrorClass,
    pub kind: &'static str,
}

impl From<&GrpcError> for Broken {
    fn from(e: &GrpcError) -> Broken {
        Broken {
            class: e.class(),
            kind: e.kind(),
        }
    }
}

impl From<&Outcome> for Ended {
    fn from(o: &Outcome) -> Ended {
        match o {
            Outcome::Status { code, message, .. } => Ended::Status {
                code: *code,
                message: *message,
            },
            Outcome::Broken(e) => Ended::Broken(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types() {
        for (v, want) in [
            (&b"application/grpc"[..], true),
            (b"application/grpc+proto", true),
            (b"Application/GRPC+json", true),
            (b"application/grpc; charset=utf-8", true),
            (b"application/grpcx", false),
            (b"application/json", false),
            (b"application/grp", false),
            (b"", false),
        ] {
            assert_eq!(
                is_grpc_content_type(v),
                want,
                "{:?}",
                String::from_utf8_lossy(v)
            );
        }
    }
}

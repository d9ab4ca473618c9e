//! The error classes, declared once: every failure wire's sessions report, the engine counts,
//! the document writes (`errors`, `error_examples`), the merge adds, the summaries list and the
//! JSON Schema describes is an [`ErrorClass`], and a class's name and words are here only.
//! [`Errors`] is a count per class, indexed by the class, serialised as the document's
//! `{"connect": n, ..., "total": n}` object.

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Index;

/// Declares the classes: each one's variant, its name in documents and metrics, and its words
/// (its doc comment, and what the schema's description says).
macro_rules! classes {
    ($($variant:ident = $name:literal: $about:literal,)*) => {
        /// The class of a failed request or connection attempt. Counted by class, never by
        /// message.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ErrorClass {
            $(#[doc = $about] $variant,)*
        }

        impl ErrorClass {
            /// The number of classes.
            pub const COUNT: usize = [$($name),*].len();
            /// Every class, in the documents' order.
            pub const ALL: [ErrorClass; Self::COUNT] = [$(ErrorClass::$variant),*];

            /// The class's name: its key in the document's `errors` and `error_examples`, and
            /// its label in metrics and summaries.
            pub fn name(self) -> &'static str {
                match self {
                    $(ErrorClass::$variant => $name,)*
                }
            }

            /// What the class counts, in words (the schema's description begins with them).
            pub fn about(self) -> &'static str {
                match self {
                    $(ErrorClass::$variant => $about,)*
                }
            }
        }
    };
}

classes! {
    Connect = "connect": "A connection could not be established (its TCP connect, TLS or QUIC handshake, or WebSocket upgrade): counted once per attempt, with no request in flight.",
    Timeout = "timeout": "No complete response within the timeout.",
    Reset = "reset": "The peer reset or closed the connection with requests outstanding.",
    Parse = "parse": "The response was malformed (HTTP/1.1).",
    Status = "status": "The status differed from expect_status.",
    Body = "body": "The body differed from the one expected (expect_body, or a WebSocket reply that did not echo its message).",
    StreamReset = "rst_stream": "HTTP/2 and HTTP/3: the server reset the request's stream (HTTP/2's by code in http2.rst_stream).",
    Protocol = "protocol": "The server broke the protocol (HTTP/2, HTTP/3, WebSocket), on a stream or the whole connection: a bad :status, DATA that disagrees with content-length or passes the receive window, a connection error.",
    HeaderTooLarge = "header_too_large": "HTTP/2 and HTTP/3: response header lists larger than the size barrage announced (64 KiB), or header blocks larger than four times it (the connection's streams).",
    MessageTooLarge = "message_too_large": "WebSocket: replies longer than config.ws_max_message (their frames together); the connection is closed with 1009 and the messages in flight on it are counted here.",
    GrpcStatus = "grpc_status": "gRPC: a call that ended with a status other than OK (each code counted in grpc.calls).",
    Grpc = "grpc": "gRPC: a reply that broke gRPC: trailers without grpc-status, one outside 0-16, a message over the limit or cut short, a compressed message without grpc-encoding, a body that is not gRPC.",
    GrpcNoTrailers = "grpc_no_trailers": "gRPC: a response whose stream ended after a body (its head did not end the stream) without trailers, so without a status, even when the head carried a grpc-status (grpcio fails such a call as UNKNOWN).",
    GrpcCardinality = "grpc_cardinality": "gRPC: a call of a method that answers with exactly one message (unary, client-streaming) answered with another number of them: none with OK, or more than one (gRPC's clients fail it as UNIMPLEMENTED).",
    Unasked = "unasked": "Messages (WebSocket) or responses (HTTP/1.1) the server sent with none in flight, such as a second reply to one message: each answers no request and is counted once, like a failed connect (requests_written = requests + total - connect - unasked + in_flight).",
}

impl ErrorClass {
    /// The class's position in [`ErrorClass::ALL`] (and in arrays indexed by class).
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// Whether an error of this class ends a request: all but a failed connect and an unasked
    /// message, which are counted once each, by themselves (no request was in flight).
    pub fn of_request(self) -> bool {
        !matches!(self, ErrorClass::Connect | ErrorClass::Unasked)
    }

    /// Whether a summary lists the class even when none occurred: HTTP/1.1's own classes, as
    /// the terminal always listed them; the others are listed when they occurred.
    pub fn always_listed(self) -> bool {
        use ErrorClass::*;
        matches!(self, Connect | Timeout | Reset | Parse | Status | Body)
    }

    /// The class named `name` (a document's key).
    pub fn named(name: &str) -> Option<ErrorClass> {
        ErrorClass::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl fmt::Display for ErrorClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Errors by class, and their total (which includes connect and unasked errors, which belong
/// to no request). The engine counts into it ([`Errors::count`]), the merge adds
/// ([`Errors::add`]), readers index it by class (`errors[ErrorClass::Timeout]`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Errors {
    by_class: [u64; ErrorClass::COUNT],
    /// As counted, or as the document says (a document from a later version may count a class
    /// this one does not know).
    total: u64,
}

impl Errors {
    /// Counts `n` errors of `class`.
    #[inline]
    pub fn count(&mut self, class: ErrorClass, n: u64) {
        self.by_class[class.index()] += n;
        self.total += n;
    }

    /// Every error, of whatever class.
    #[inline]
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Adds another count's errors (a worker's, a shard's) to these.
    pub fn add(&mut self, o: &Errors) {
        for (a, b) in self.by_class.iter_mut().zip(o.by_class) {
            *a += b;
        }
        self.total += o.total;
    }

    /// Every class with its count, in [`ErrorClass::ALL`]'s order.
    pub fn iter(&self) -> impl Iterator<Item = (ErrorClass, u64)> + '_ {
        ErrorClass::ALL.into_iter().zip(self.by_class)
    }

    /// The classes that occurred, in words: "timeout 12, reset 3".
    pub fn breakdown(&self) -> String {
        self.iter()
            .filter(|(_, n)| *n > 0)
            .map(|(c, n)| format!("{c} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Errors that ended a written request (all but connect and unasked errors).
    pub fn of_requests(&self) -> u64 {
        let alone: u64 = self
            .iter()
            .filter(|(c, _)| !c.of_request())
            .map(|(_, n)| n)
            .sum();
        self.total - alone
    }
}

impl Index<ErrorClass> for Errors {
    type Output = u64;
    #[inline]
    fn index(&self, c: ErrorClass) -> &u64 {
        &self.by_class[c.index()]
    }
}

impl Serialize for Errors {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(ErrorClass::COUNT + 1))?;
        for (c, n) in self.iter() {
            m.serialize_entry(c.name(), &n)?;
        }
        m.serialize_entry("total", &self.total)?;
        m.end()
    }
}

impl<'de> Deserialize<'de> for Errors {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Errors, D::Error> {
        d.deserialize_map(ErrorsVisitor)
    }
}

/// Reads the `errors` object: a class missing is 0 (older documents lack the later classes), a
/// key this version does not know is skipped, and a missing `total` is the classes' sum.
struct ErrorsVisitor;

impl<'de> Visitor<'de> for ErrorsVisitor {
    type Value = Errors;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("errors by class")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Errors, A::Error> {
        let mut e = Errors::default();
        let mut total = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "total" {
                total = Some(map.next_value::<u64>()?);
            } else if let Some(c) = ErrorClass::named(&key) {
                e.by_class[c.index()] = map.next_value::<u64>()?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        e.total = total.unwrap_or_else(|| e.by_class.iter().sum());
        Ok(e)
    }
}

#[cfg(test)]
mod tests;

//! One call's response as a client reads it, whatever carries it (the HTTP/2 session hands
//! each header field, each header block's end, each DATA chunk and the stream's end): the
//! response headers (`:status` 200 and a gRPC content type, or a trailers-only response), the
//! reply messages in between (decoded across any cut, inflated per `grpc-encoding`, each handed
//! to the caller, who counts and times them), and the trailers' `grpc-status`. It ends in one
//! [`Outcome`]: the call's status, or the protocol error that broke it: among them a stream
//! that ends after a body without trailers (a `grpc-status` in a head that does not end the
//! stream is no status), and a reply count the call's method does not allow (a unary or
//! client-streaming method answers with exactly one message). Sans I/O and clockless.

use super::{is_grpc_content_type, Code, Encoding, GrpcError, MessageDecoder};
use crate::grpc::status::Brief;

/// How a call ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The server's status (OK or another code: a counted status, not a protocol error), with
    /// its `grpc-message` (the first bytes, kept without allocating) and the reply messages
    /// read.
    Status {
        code: Code,
        message: Brief,
        messages: u64,
    },
    /// The response broke gRPC: no status, a bad one, a bad message, a body that is not gRPC.
    Broken(GrpcError),
}

/// Where the response is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// Reading the first header block.
    Head,
    /// Between the head and the trailers: messages.
    Body,
    /// Reading the trailers (a header block after the body).
    Trailers,
    Done,
}

/// A call's response being read.
#[derive(Debug)]
pub struct Response {
    part: Part,
    max: u32,
    http_status: u16,
    content_type: bool,
    encoding: Option<Result<Encoding, GrpcError>>,
    status: Option<Result<Code, GrpcError>>,
    message: Brief,
    decoder: MessageDecoder,
    messages: u64,
    /// The method answers with exactly one message (unary, client-streaming).
    one_reply: bool,
    /// The head (one that did not end the stream) carried a `grpc-status`, which does not
    /// count: a status comes in the trailers.
    status_in_head: bool,
}

impl Response {
    /// A response whose reply messages may be at most `max` bytes (inflated); `one_reply`: the
    /// call's method answers with exactly one message (unary, client-streaming), so any other
    /// number of them breaks it (none is allowed with a status other than OK).
    pub fn new(max: u32, one_reply: bool) -> Response {
        Response {
            part: Part::Head,
            max,
            http_status: 0,
            content_type: false,
            encoding: None,
            status: None,
            message: Brief::EMPTY,
            decoder: MessageDecoder::new(max),
            messages: 0,
            one_reply,
            status_in_head: false,
        }
    }

    /// One field of the current header block (names in lower case, as HTTP/2 sends them).
    pub fn header(&mut self, name: &[u8], value: &[u8]) {
        if self.part == Part::Body {
            // A header block after the body: the trailers.
            self.part = Part::Trailers;
        }
        match (self.part, name) {
            (Part::Head, b":status") => {
                self.http_status = std::str::from_utf8(value)
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0)
            }
            (Part::Head, b"content-type") => self.content_type = is_grpc_content_type(value),
            (Part::Head, b"grpc-encoding") => self.encoding = Some(Encoding::parse(Some(value))),
            (Part::Head | Part::Trailers, b"grpc-status") => self.status = Some(Code::parse(value)),
            (Part::Head | Part::Trailers, b"grpc-message") => self.message = Brief::new(value),
            _ => {}
        }
    }

    /// The current header block ended. `end_stream`: the stream ended with it (trailers, or a
    /// trailers-only response). Returns the call's outcome when it is over.
    pub fn headers_end(&mut self, end_stream: bool) -> Option<Outcome> {
        match self.part {
            // An interim response (1xx): another head follows.
            Part::Head if (100..200).contains(&self.http_status) && !end_stream => {
                self.http_status = 0;
                None
            }
            Part::Head if end_stream => Some(self.finish()),
            Part::Head => {
                if let Some(broken) = self.head_error() {
                    self.part = Part::Done;
                    return Some(Outcome::Broken(broken));
                }
                // A head with a body is no trailers-only response: its status, if any, is not
                // the call's (the trailers must say it).
                if self.status.take().is_some() {
                    self.status_in_head = true;
                    self.message = Brief::EMPTY;
                }
                self.part = Part::Body;
                None
            }
            Part::Body | Part::Trailers => {
                self.part = Part::Trailers;
                end_stream.then(|| self.finish())
            }
            Part::Done => None,
        }
    }

    /// A DATA chunk; `on_message` gets each reply message it completes (inflated). Returns the
    /// outcome when the chunk broke the call (or `end_stream` ended it without trailers).
    pub fn data(
        &mut self,
        bytes: &[u8],
        end_stream: bool,
        on_message: &mut dyn FnMut(&[u8]),
    ) -> Option<Outcome> {
        if self.part != Part::Body {
            // DATA before the head or after the trailers: not a gRPC response.
            if self.part == Part::Done {
                return None;
            }
            self.part = Part::Done;
            return Some(Outcome::Broken(GrpcError::MissingStatus));
        }
        let encoding = match &self.encoding {
            None => Encoding::Identity,
            Some(Ok(e)) => *e,
            // Refused at the head already; kept as the outcome should a caller feed on.
            Some(Err(e)) => return Some(Outcome::Broken(e.clone())),
        };
        let Response {
            decoder,
            messages,
            max,
            ..
        } = self;
        // Each message is handed out as the decoder completes it: a plain one without a copy,
        // a compressed one inflated. A message that does not inflate stops the handing out and
        // comes before the decoder's error, which lies further on in the stream; so a body
        // reads the same however it was cut.
        let mut broken = None;
        let fed = decoder.feed(bytes, |compressed, payload| {
            if broken.is_some() {
                return;
            }
            if !compressed {
                *messages += 1;
                return on_message(payload);
            }
            match encoding.decompress(true, payload, *max) {
                Ok(p) => {
                    *messages += 1;
                    on_message(&p);
                }
                Err(e) => broken = Some(e),
            }
        });
        if let Some(e) = broken.or(fed.err()) {
            self.part = Part::Done;
            return Some(Outcome::Broken(e));
        }
        // END_STREAM on DATA: the response had no trailers, so no status.
        end_stream.then(|| self.finish())
    }

    /// The stream ended (END_STREAM, on the last header block or on DATA): the outcome now.
    pub fn finish(&mut self) -> Outcome {
        let was = std::mem::replace(&mut self.part, Part::Done);
        if was == Part::Head {
            // A trailers-only response: the head is the trailers.
            if let Some(broken) = self.head_error_trailers_only() {
                return Outcome::Broken(broken);
            }
        } else if let Err(e) = self.decoder.finish() {
            return Outcome::Broken(e);
        } else if was == Part::Body {
            // The stream ended on DATA: no trailers, so no status.
            return Outcome::Broken(GrpcError::NoTrailers {
                status_in_head: self.status_in_head,
            });
        }
        match self.status.take() {
            // gRPC's status-code document: a client fails a call whose method answers with one
            // message when the server sent another number of them (none is every failed
            // call's answer, so only OK needs the one).
            Some(Ok(code))
                if self.one_reply
                    && (self.messages > 1 || (self.messages == 0 && code == Code::Ok)) =>
            {
                Outcome::Broken(GrpcError::Cardinality {
                    messages: self.messages,
                })
            }
            Some(Ok(code)) => Outcome::Status {
                code,
                message: self.message,
                messages: self.messages,
            },
            Some(Err(e)) => Outcome::Broken(e),
            None => Outcome::Broken(GrpcError::MissingStatus),
        }
    }

    /// Reply messages read so far.
    pub fn messages(&self) -> u64 {
        self.messages
    }

    /// What is wrong with a head that carries a body.
    fn head_error(&self) -> Option<GrpcError> {
        if self.http_status != 200 {
            return Some(GrpcError::HttpStatus(
                self.http_status,
                Code::from_http_status(self.http_status),
            ));
        }
        if !self.content_type {
            return Some(GrpcError::NotGrpc);
        }
        match &self.encoding {
            Some(Err(e)) => Some(e.clone()),
            _ => None,
        }
    }

    /// What is wrong with a trailers-only response: a non-200 without `grpc-status` is mapped
    /// from its HTTP status; one with `grpc-status` stands whatever its content type.
    fn head_error_trailers_only(&self) -> Option<GrpcError> {
        if self.status.is_none() && self.http_status != 200 {
            return Some(GrpcError::HttpStatus(
                self.http_status,
                Code::from_http_status(self.http_status),
            ));
        }
        None
    }
}

#[cfg(test)]
mod tests;

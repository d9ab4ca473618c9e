//! One request stream's response, decoded as its bytes arrive, whatever their split: frames
//! through a [`FrameDecoder`] (a partial frame head or HEADERS frame carried to the next chunk,
//! DATA passed through), the header sections through the connection's QPACK decoder, the status
//! and `content-length` checked as HTTP/2's client does, and the body compared with the expected
//! one as it goes by, never kept (unless a script's `response()` hook asks for it whole:
//! [`Response::keeping`]).
//!
//! A header section that needs dynamic-table inserts not yet received is kept (bounded by the
//! frame size limit) and the stream reads nothing more until [`Response::resume`] decodes it.

use crate::fields::{parse_length, parse_status};
use crate::h3::error::{ErrorCode, H3Error};
use crate::h3::frame::{Event, Frame, FrameReader};
use crate::h3::qpack::{Decoded, Decoder, QpackError};
use crate::kept::Kept;

/// Where a response stands after some of its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Waiting for more bytes (or the stream's end).
    More,
    /// A header section waits for QPACK inserts: read nothing more until [`Response::resume`].
    Blocked,
    /// The response broke HTTP/3's message rules (RFC 9114 §4.1.2): the stream fails, the
    /// connection goes on.
    Malformed(ErrorCode),
    /// The response's header section passed the limit this side announced.
    TooLarge,
}

/// What a response stream's end means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    Response { status: u16, body_ok: bool },
    Malformed(ErrorCode),
}

/// The decoding state of one response.
#[derive(Debug)]
pub struct Response {
    /// Its frames; what it keeps is the bytes after a frame boundary not yet decodable (a
    /// partial frame head or non-DATA frame), or, while blocked, everything after the blocked
    /// section.
    reader: FrameReader,
    /// A header section waiting for inserts.
    blocked: Vec<u8>,
    is_blocked: bool,
    /// 0 until the final (non-1xx) status arrived.
    status: u16,
    /// Trailers arrived: nothing may follow.
    trailers: bool,
    body_at: u64,
    body_ok: bool,
    content_length: Option<u64>,
    bad_length: bool,
    /// The response has no content by definition (HEAD, 204, 304).
    no_content: bool,
    /// The final response's fields and body, kept for a script's `response()` hook.
    kept: Option<Box<Kept>>,
}

/// A malformed message (RFC 9114 §4.1.2).
const MESSAGE: ErrorCode = ErrorCode::Message;

impl Response {
    pub fn new(head: bool) -> Response {
        Response {
            reader: FrameReader::default(),
            blocked: Vec::new(),
            is_blocked: false,
            status: 0,
            trailers: false,
            body_at: 0,
            body_ok: true,
            content_length: None,
            bad_length: false,
            no_content: head,
            kept: None,
        }
    }

    /// Keeps the final response's fields (as `name: value` lines) and its body in `into`.
    pub fn keeping(mut self, into: Box<Kept>) -> Response {
        self.kept = Some(into);
        self
    }

    /// What [`Response::keeping`] kept (its status is the caller's to set, from the end).
    pub fn take_kept(&mut self) -> Option<Box<Kept>> {
        self.kept.take()
    }

    pub fn is_blocked(&self) -> bool {
        self.is_blocked
    }

    /// Decodes the next bytes of stream `stream`. Decoded sections that referred to the dynamic
    /// table are acknowledged into `acks` (the decoder stream's bytes). An error is the
    /// connection's (a frame the stream may not carry, a broken frame or QPACK section).
    pub fn feed(
        &mut self,
        stream: u64,
        data: &[u8],
        qpack: &mut Decoder,
        acks: &mut Vec<u8>,
        expect: Option<&[u8]>,
    ) -> Result<Step, H3Error> {
        if self.is_blocked {
            // Only [`Response::resume`] goes on; the caller reads nothing while blocked, but
            // keeps what it read already.
            self.reader.keep(data);
            return Ok(Step::Blocked);
        }
        // What is left is kept: a partial frame, or, blocked or failed, what follows.
        let mut reader = std::mem::take(&mut self.reader);
        let step = reader.read(data, Step::More, |ev| {
            self.event(stream, ev, qpack, acks, expect)
        });
        self.reader = reader;
        step
    }

    /// Decodes the blocked section again (after inserts arrived), then what followed it.
    pub fn resume(
        &mut self,
        stream: u64,
        qpack: &mut Decoder,
        acks: &mut Vec<u8>,
        expect: Option<&[u8]>,
    ) -> Result<Step, H3Error> {
        if !self.is_blocked {
            return Ok(Step::More);
        }
        let block = std::mem::take(&mut self.blocked);
        self.is_blocked = false;
        let step = self.headers(stream, &block, qpack, acks)?;
        self.blocked = block;
        self.blocked.clear();
        if step != Step::More {
            return Ok(step);
        }
        let rest = self.reader.take_kept();
        self.feed(stream, &rest, qpack, acks, expect)
    }

    fn event(
        &mut self,
        stream: u64,
        ev: Event<'_>,
        qpack: &mut Decoder,
        acks: &mut Vec<u8>,
        expect: Option<&[u8]>,
    ) -> Result<Step, H3Error> {
        match ev {
            Event::Frame(Frame::Headers(block)) => {
                if self.trailers {
                    return Err(unexpected("HEADERS after the response's trailers"));
                }
                let step = self.headers(stream, block, qpack, acks)?;
                if step == Step::Blocked {
                    self.blocked.clear();
                    self.blocked.extend_from_slice(block);
                }
                Ok(step)
            }
            Event::Data { .. } => {
                // DATA before the final HEADERS, or after trailers: an invalid sequence of
                // frames, the connection's error (RFC 9114 §4.1), as the server side has it.
                // It failed only the stream (H3_MESSAGE_ERROR) before.
                if self.status < 200 {
                    return Err(unexpected("DATA before the response's HEADERS"));
                }
                if self.trailers {
                    return Err(unexpected("DATA after the response's trailers"));
                }
                Ok(Step::More)
            }
            Event::DataChunk(data) => {
                if let Some(b) = expect {
                    let at = usize::try_from(self.body_at).unwrap_or(usize::MAX);
                    let end = at.saturating_add(data.len());
                    self.body_ok &= b.get(at..end) == Some(data);
                }
                self.body_at += data.len() as u64;
                if let Some(k) = self.kept.as_mut() {
                    k.body(data);
                }
                let over =
                    !self.no_content && self.content_length.is_some_and(|c| self.body_at > c);
                // A response without content by definition carries none (RFC 9110 §6.4.1).
                if over || (self.no_content && self.body_at > 0) {
                    return Ok(Step::Malformed(MESSAGE));
                }
                Ok(Step::More)
            }
            Event::Frame(Frame::PushPromise { .. }) => Err(H3Error::new(
                ErrorCode::Id,
                "PUSH_PROMISE though no push was allowed (no MAX_PUSH_ID sent)",
            )),
            Event::Frame(_) => Err(H3Error::new(
                ErrorCode::FrameUnexpected,
                "a control frame on a request stream",
            )),
        }
    }

    /// One header section: the response's (interim or final) or its trailers.
    fn headers(
        &mut self,
        stream: u64,
        block: &[u8],
        qpack: &mut Decoder,
        acks: &mut Vec<u8>,
    ) -> Result<Step, H3Error> {
        let trailers = self.status >= 200;
        let mut status = 0u16;
        let mut length: Option<Option<u64>> = None;
        let mut bad = false;
        let mut kept = self.kept.as_mut().filter(|_| !trailers);
        if let Some(k) = kept.as_mut() {
            // A first line, as HTTP/1.1's head has (the hook reads the lines after it); an
            // interim response's fields, kept before, give way to the final one's.
            k.head.clear();
            k.head.extend_from_slice(b"HTTP/3\r\n");
        }
        let r = qpack.decode(stream, block, |name, value| {
            if trailers {
                // Pseudo-header fields are not allowed in trailers (RFC 9114 §4.1.2, §4.3).
                bad |= name.first() == Some(&b':');
                return;
            }
            if let Some(k) = kept.as_mut().filter(|_| name.first() != Some(&b':')) {
                k.head.extend_from_slice(name);
                k.head.extend_from_slice(b": ");
                k.head.extend_from_slice(value);
                k.head.extend_from_slice(b"\r\n");
            }
            if name == b":status" {
                bad |= status != 0;
                status = parse_status(value);
            } else if name == b"content-length" {
                let n = parse_length(value);
                bad |= length.is_some_and(|l| l != n);
                length = Some(n);
            }
        });
        match r {
            Ok(Decoded::Blocked { .. }) => {
                self.is_blocked = true;
                return Ok(Step::Blocked);
            }
            Ok(Decoded::Done {
                required_insert_count,
            }) => qpack.ack_section(stream, required_insert_count, acks),
            Err(QpackError::FieldSectionTooLarge { .. }) => return Ok(Step::TooLarge),
            Err(e) => return Err(H3Error::new(e.code(), qpack_what(e))),
        }
        if trailers {
            self.trailers = true;
            return Ok(if bad {
                Step::Malformed(MESSAGE)
            } else {
                Step::More
            });
        }
        match status {
            // An interim (1xx) response: the final one follows.
            100..=199 => Ok(Step::More),
            200..=999 if !bad => {
                self.status = status;
                self.no_content |= matches!(status, 204 | 304);
                match length {
                    Some(None) => self.bad_length = true,
                    Some(n) => self.content_length = n,
                    None => {}
                }
                if self.bad_length {
                    return Ok(Step::Malformed(MESSAGE));
                }
                Ok(Step::More)
            }
            _ => Ok(Step::Malformed(MESSAGE)),
        }
    }

    /// The stream's end (FIN): the response, or malformed when it ended inside a frame, without
    /// a final status, or short of its `content-length`. A FIN inside a frame is the
    /// connection's error (RFC 9114 §7.1).
    pub fn end(&self, expect: Option<&[u8]>) -> Result<Ended, H3Error> {
        if !self.reader.at_boundary() || self.is_blocked {
            return Err(H3Error::new(
                ErrorCode::Frame,
                "request stream ended inside a frame",
            ));
        }
        if self.status < 200 {
            return Ok(Ended::Malformed(MESSAGE));
        }
        if !self.no_content && self.content_length.is_some_and(|c| c != self.body_at) {
            return Ok(Ended::Malformed(MESSAGE));
        }
        let whole = expect.is_none_or(|b| self.body_at == b.len() as u64);
        Ok(Ended::Response {
            status: self.status,
            body_ok: self.body_ok && whole,
        })
    }
}

fn unexpected(what: &'static str) -> H3Error {
    H3Error::new(ErrorCode::FrameUnexpected, what)
}

fn qpack_what(e: QpackError) -> &'static str {
    match e {
        QpackError::Decompression(w)
        | QpackError::EncoderStream(w)
        | QpackError::DecoderStream(w) => w,
        QpackError::FieldSectionTooLarge { .. } => "field section too large",
    }
}

#[cfg(test)]
mod tests;

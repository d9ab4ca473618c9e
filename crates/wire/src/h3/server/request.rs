//! One request stream as the server reads it, whatever the split of its bytes: frames through a
//! [`FrameDecoder`] (a partial frame head or HEADERS frame carried to the next chunk, DATA passed
//! through as it arrives, never kept), the header section through the connection's QPACK
//! decoder (static table only: this side announces a dynamic table of 0, so a section that
//! refers to one is a decompression failure), and the request's message rules (RFC 9114
//! §4.1.2, §4.3.1): pseudo-headers present and once, none after a regular field nor in
//! trailers, DATA only after HEADERS, nothing after trailers, `content-length` agreeing with the
//! body.

use crate::h3::error::{ErrorCode, H3Error};
use crate::h3::frame::{Event, Frame, FrameReader};
use crate::h3::qpack::{Decoded, Decoder, QpackError};

/// A request's header section, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    pub method: String,
    /// `:path` (with its query).
    pub path: String,
    pub scheme: String,
    pub authority: String,
    /// The regular fields, names lower-case as HTTP/3 sends them.
    pub headers: Vec<(String, String)>,
    pub content_length: Option<u64>,
}

/// What a request stream's bytes gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Part<'a> {
    Head(Head),
    /// The next bytes of the body.
    Data(&'a [u8]),
}

/// Where a request stands after some of its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    More,
    /// The request broke HTTP/3's message rules: the stream is reset with this code, the
    /// connection goes on.
    Malformed(ErrorCode),
    /// The header section passed the limit this side announced (a 431 answers it).
    TooLarge,
}

/// The decoding state of one request stream.
#[derive(Debug)]
pub struct Request {
    /// Its frames, a partial frame kept for the next bytes.
    reader: FrameReader,
    head: bool,
    trailers: bool,
    body_at: u64,
    content_length: Option<u64>,
    /// Stopped: nothing more is decoded (malformed, too large).
    stopped: bool,
}

const MESSAGE: ErrorCode = ErrorCode::Message;

impl Default for Request {
    fn default() -> Self {
        Request::new()
    }
}

impl Request {
    pub fn new() -> Request {
        Request {
            reader: FrameReader::default(),
            head: false,
            trailers: false,
            body_at: 0,
            content_length: None,
            stopped: false,
        }
    }

    /// Whether the header section arrived.
    pub fn has_head(&self) -> bool {
        self.head
    }

    /// Decodes the next bytes of stream `stream`, handing each part to `on`. An error is the
    /// connection's (a broken frame, a control frame here, a QPACK section no decoder takes).
    pub fn feed(
        &mut self,
        stream: u64,
        data: &[u8],
        qpack: &mut Decoder,
        on: &mut impl FnMut(Part<'_>),
    ) -> Result<Step, H3Error> {
        if self.stopped {
            return Ok(Step::More);
        }
        let mut reader = std::mem::take(&mut self.reader);
        let step = reader.read(data, Step::More, |ev| self.event(stream, ev, qpack, on));
        self.reader = reader;
        if step.as_ref().is_ok_and(|s| *s != Step::More) {
            self.stopped = true;
            self.reader.forget();
        }
        step
    }

    fn event(
        &mut self,
        stream: u64,
        ev: Event<'_>,
        qpack: &mut Decoder,
        on: &mut impl FnMut(Part<'_>),
    ) -> Result<Step, H3Error> {
        match ev {
            Event::Frame(Frame::Headers(block)) => {
                if self.trailers {
                    return Ok(Step::Malformed(MESSAGE));
                }
                if self.head {
                    // Trailers: decoded (the QPACK state must see them) and dropped; a
                    // pseudo-header field in them makes the request malformed (§4.1.2, §4.3).
                    self.trailers = true;
                    let mut pseudo = false;
                    let step = section(qpack.decode(stream, block, |name, _| {
                        pseudo |= name.first() == Some(&b':');
                    }))?;
                    return Ok(if step == Step::More && pseudo {
                        Step::Malformed(MESSAGE)
                    } else {
                        step
                    });
                }
                self.headers(stream, block, qpack, on)
            }
            Event::Data { .. } => {
                if !self.head {
                    return Err(H3Error::new(
                        ErrorCode::FrameUnexpected,
                        "DATA before the request's HEADERS",
                    ));
                }
                if self.trailers {
                    return Ok(Step::Malformed(MESSAGE));
                }
                Ok(Step::More)
            }
            Event::DataChunk(data) => {
                let before = self.body_at;
                self.body_at += data.len() as u64;
                if let Some(c) = self.content_length.filter(|&c| self.body_at > c) {
                    // What fits is handed on first, so that any split hands on the same bytes.
                    let fits = (c - before) as usize;
                    if fits > 0 {
                        on(Part::Data(&data[..fits]));
                    }
                    return Ok(Step::Malformed(MESSAGE));
                }
                on(Part::Data(data));
                Ok(Step::More)
            }
            Event::Frame(_) => Err(H3Error::new(
                ErrorCode::FrameUnexpected,
                "a control or push frame on a request stream",
            )),
        }
    }

    fn headers(
        &mut self,
        stream: u64,
        block: &[u8],
        qpack: &mut Decoder,
        on: &mut impl FnMut(Part<'_>),
    ) -> Result<Step, H3Error> {
        let mut h = Head {
            method: String::new(),
            path: String::new(),
            scheme: String::new(),
            authority: String::new(),
            headers: Vec::new(),
            content_length: None,
        };
        let mut bad = false;
        let mut regular = false;
        let mut length: Option<Option<u64>> = None;
        let r = qpack.decode(stream, block, |name, value| {
            let (Ok(n), Ok(v)) = (std::str::from_utf8(name), std::str::from_utf8(value)) else {
                bad = true;
                return;
            };
            let pseudo = |slot: &mut String, bad: &mut bool| {
                *bad |= regular || !slot.is_empty() || v.is_empty();
                *slot = v.to_string();
            };
            match n {
                ":method" => pseudo(&mut h.method, &mut bad),
                ":path" => pseudo(&mut h.path, &mut bad),
                ":scheme" => pseudo(&mut h.scheme, &mut bad),
                ":authority" => pseudo(&mut h.authority, &mut bad),
                _ if n.starts_with(':') => bad = true,
                _ => {
                    regular = true;
                    // Upper case is malformed in HTTP/3 (§4.2), as are connection fields.
                    bad |= n.bytes().any(|b| b.is_ascii_uppercase())
                        || matches!(
                            n,
                            "connection"
                                | "keep-alive"
                                | "proxy-connection"
                                | "transfer-encoding"
                                | "upgrade"
                        );
                    if n == "content-length" {
                        let l = parse_length(value);
                        bad |= length.is_some_and(|p| p != l) || l.is_none();
                        length = Some(l);
                    }
                    h.headers.push((n.to_string(), v.to_string()));
                }
            }
        });
        let step = section(r)?;
        if step != Step::More {
            return Ok(step);
        }
        // CONNECT (no :path) is not served; every other request needs :method, :scheme, :path.
        if bad || h.method.is_empty() || h.path.is_empty() || h.scheme.is_empty() {
            return Ok(Step::Malformed(MESSAGE));
        }
        self.head = true;
        self.content_length = length.flatten();
        h.content_length = self.content_length;
        on(Part::Head(h));
        Ok(Step::More)
    }

    /// The stream's end (FIN): Ok(true) when the request is whole, Ok(false) when it is
    /// malformed (no header section, a body short of its `content-length`). A FIN inside a frame
    /// is the connection's error (RFC 9114 §7.1).
    pub fn end(&self) -> Result<bool, H3Error> {
        if self.stopped {
            return Ok(false);
        }
        if !self.reader.at_boundary() {
            return Err(H3Error::new(
                ErrorCode::Frame,
                "request stream ended inside a frame",
            ));
        }
        Ok(self.head && self.content_length.is_none_or(|c| c == self.body_at))
    }
}

/// A decoded section's outcome: a section that waits for inserts cannot happen with a table of
/// 0 (its Required Insert Count is refused first), so it counts as a decompression failure.
fn section(r: Result<Decoded, QpackError>) -> Result<Step, H3Error> {
    match r {
        Ok(Decoded::Done { .. }) => Ok(Step::More),
        Ok(Decoded::Blocked { .. }) => Err(H3Error::new(
            ErrorCode::QpackDecompressionFailed,
            "a section waiting for inserts, with no dynamic table",
        )),
        Err(QpackError::FieldSectionTooLarge { .. }) => Ok(Step::TooLarge),
        Err(e) => Err(H3Error::new(e.code(), "QPACK field section broken")),
    }
}

/// A `content-length` value: one decimal number (RFC 9110 §8.6), else None.
fn parse_length(v: &[u8]) -> Option<u64> {
    if v.is_empty() || v.len() > 19 || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(v.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0')))
}

#[cfg(test)]
mod tests;

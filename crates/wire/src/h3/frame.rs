//! HTTP/3 frames (RFC 9114 §7): [`FrameDecoder`] reads one stream's bytes as they arrive and
//! yields events; the `write_*` functions append frames to a buffer; [`StreamType`] reads the
//! type that opens a unidirectional stream (§6.2).
//!
//! A DATA frame's payload is passed through in chunks as it arrives ([`Event::DataChunk`]),
//! borrowed from the input and never buffered, so a body of any length streams in constant
//! memory. Every other frame is taken whole, which the caller buffers until it is: that is why
//! those are bounded by the decoder's `max_frame` (a larger HEADERS, PUSH_PROMISE or SETTINGS is
//! H3_EXCESSIVE_LOAD before its payload is read). Frames of unknown and reserved types are
//! skipped as they arrive, whatever their length (§7.2.8, §9).

use super::error::{ErrorCode, H3Error};
use super::settings::Settings;
use super::varint;

/// Frame types (RFC 9114 §7.2).
pub mod kind {
    pub const DATA: u64 = 0x00;
    pub const HEADERS: u64 = 0x01;
    pub const CANCEL_PUSH: u64 = 0x03;
    pub const SETTINGS: u64 = 0x04;
    pub const PUSH_PROMISE: u64 = 0x05;
    pub const GOAWAY: u64 = 0x07;
    pub const MAX_PUSH_ID: u64 = 0x0d;
}

/// HTTP/2's PRIORITY, PING, WINDOW_UPDATE and CONTINUATION: reserved in HTTP/3, and receiving
/// one is H3_FRAME_UNEXPECTED (§7.2.8).
pub fn is_http2_only(ty: u64) -> bool {
    matches!(ty, 0x02 | 0x06 | 0x08 | 0x09)
}

/// One whole non-DATA frame, its payload borrowed from the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame<'a> {
    /// An encoded field section (QPACK: [`super::qpack`]).
    Headers(&'a [u8]),
    CancelPush(u64),
    Settings(Settings),
    PushPromise {
        push_id: u64,
        block: &'a [u8],
    },
    /// A stream id (from a server) or push id (from a client): the last that will be processed.
    GoAway(u64),
    MaxPushId(u64),
}

/// What the decoder read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event<'a> {
    /// A DATA frame's header: `len` payload bytes follow, as [`Event::DataChunk`]s.
    Data {
        len: u64,
    },
    /// The next bytes of the current DATA frame's payload.
    DataChunk(&'a [u8]),
    Frame(Frame<'a>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// At a frame's start.
    Head,
    /// Inside a DATA payload, this many bytes left.
    Data(u64),
    /// Inside an unknown frame's payload, this many bytes left.
    Skip(u64),
}

/// Decodes the frames of one stream (a request stream or the control stream).
#[derive(Debug, Clone)]
pub struct FrameDecoder {
    max_frame: u64,
    state: State,
}

fn frame_error(what: &'static str) -> H3Error {
    H3Error::new(ErrorCode::Frame, what)
}

impl FrameDecoder {
    /// A decoder that takes non-DATA frames of up to `max_frame` payload bytes.
    pub fn new(max_frame: u64) -> FrameDecoder {
        FrameDecoder {
            max_frame,
            state: State::Head,
        }
    }

    /// Whether the stream may end here: between frames. A stream that ends inside a frame is
    /// H3_FRAME_ERROR (§7.1); the caller checks this at the stream's FIN.
    pub fn at_frame_boundary(&self) -> bool {
        matches!(self.state, State::Head | State::Data(0) | State::Skip(0))
    }

    /// Reads from the front of `buf`: (bytes used, the next event). `None` means everything
    /// usable was used (unknown frames skipped) and the next event needs more bytes; the caller
    /// keeps `buf[used..]` and calls again when more arrive. While an event comes back, the
    /// caller calls again on the rest.
    pub fn next<'a>(&mut self, buf: &'a [u8]) -> Result<(usize, Option<Event<'a>>), H3Error> {
        let mut used = 0;
        loop {
            let rest = &buf[used..];
            match self.state {
                State::Data(0) | State::Skip(0) => self.state = State::Head,
                State::Data(left) => {
                    if rest.is_empty() {
                        return Ok((used, None));
                    }
                    let n = rest.len().min(usize::try_from(left).unwrap_or(usize::MAX));
                    self.state = State::Data(left - n as u64);
                    return Ok((used + n, Some(Event::DataChunk(&rest[..n]))));
                }
                State::Skip(left) => {
                    let n = rest.len().min(usize::try_from(left).unwrap_or(usize::MAX));
                    used += n;
                    self.state = State::Skip(left - n as u64);
                    if left > n as u64 {
                        return Ok((used, None));
                    }
                }
                State::Head => {
                    let Some((ty, a)) = varint::decode(rest) else {
                        return Ok((used, None));
                    };
                    let Some((len, b)) = varint::decode(&rest[a..]) else {
                        return Ok((used, None));
                    };
                    let head = a + b;
                    match ty {
                        kind::DATA => {
                            self.state = State::Data(len);
                            return Ok((used + head, Some(Event::Data { len })));
                        }
                        kind::HEADERS
                        | kind::CANCEL_PUSH
                        | kind::SETTINGS
                        | kind::PUSH_PROMISE
                        | kind::GOAWAY
                        | kind::MAX_PUSH_ID => {
                            if len > self.max_frame {
                                return Err(H3Error::new(
                                    ErrorCode::ExcessiveLoad,
                                    "frame above the size limit",
                                ));
                            }
                            let end = usize::try_from(len)
                                .ok()
                                .and_then(|l| head.checked_add(l))
                                .ok_or(H3Error::new(ErrorCode::ExcessiveLoad, "frame too large"))?;
                            let Some(payload) = rest.get(head..end) else {
                                return Ok((used, None));
                            };
                            let f = parse_payload(ty, payload)?;
                            return Ok((used + end, Some(Event::Frame(f))));
                        }
                        t if is_http2_only(t) => {
                            return Err(H3Error::new(
                                ErrorCode::FrameUnexpected,
                                "an HTTP/2 frame type",
                            ))
                        }
                        _ => {
                            used += head;
                            self.state = State::Skip(len);
                        }
                    }
                }
            }
        }
    }
}

/// One message stream's frames across reads: the decoder, and the bytes of a frame not yet whole
/// kept for the next read (bounded by `max_frame` while a frame is taken whole, by QUIC's flow
/// control otherwise). The client's response and the server's request read through it.
#[derive(Debug)]
pub(crate) struct FrameReader {
    frames: FrameDecoder,
    carry: Vec<u8>,
}

impl Default for FrameReader {
    fn default() -> Self {
        FrameReader {
            frames: FrameDecoder::new(super::DEFAULT_MAX_FRAME),
            carry: Vec::new(),
        }
    }
}

impl FrameReader {
    /// Reads `data` after what the last read kept (without a copy when it kept nothing), handing
    /// each event to `event` until one returns other than `more`; keeps what is left (a partial
    /// frame, or what follows the event that stopped) for the next read. Its callers take the
    /// reader out of themselves for the read (`std::mem::take`, two moves) so that `event` may
    /// borrow them whole: `event` must not look at their reader then.
    pub(crate) fn read<S: PartialEq + Copy>(
        &mut self,
        data: &[u8],
        more: S,
        mut event: impl FnMut(Event<'_>) -> Result<S, H3Error>,
    ) -> Result<S, H3Error> {
        let mut input = std::mem::take(&mut self.carry);
        let from_carry = !input.is_empty();
        if from_carry {
            input.extend_from_slice(data);
        }
        let buf: &[u8] = if from_carry { &input } else { data };
        let mut at = 0;
        let step = loop {
            let (used, ev) = self.frames.next(&buf[at..])?;
            at += used;
            let Some(ev) = ev else { break more };
            let step = event(ev)?;
            if step != more {
                break step;
            }
        };
        if from_carry {
            input.drain(..at);
        } else {
            // `input` is the empty carry, its capacity kept.
            input.extend_from_slice(&data[at..]);
        }
        self.carry = input;
        Ok(step)
    }

    /// Keeps `data` unread for the next read (a reader that may not read now).
    pub(crate) fn keep(&mut self, data: &[u8]) {
        self.carry.extend_from_slice(data);
    }

    /// Takes what was kept, to read it again.
    pub(crate) fn take_kept(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.carry)
    }

    /// Forgets what was kept (a stream that reads no more).
    pub(crate) fn forget(&mut self) {
        self.carry = Vec::new();
    }

    /// Whether the stream may end here: between frames, nothing kept (a stream that ends
    /// inside a frame is H3_FRAME_ERROR, RFC 9114 §7.1).
    pub(crate) fn at_boundary(&self) -> bool {
        self.frames.at_frame_boundary() && self.carry.is_empty()
    }
}

/// A payload that is exactly one varint (§7.1: more or fewer bytes are H3_FRAME_ERROR).
fn one_varint(p: &[u8]) -> Result<u64, H3Error> {
    match varint::decode(p) {
        Some((v, n)) if n == p.len() => Ok(v),
        Some(_) => Err(frame_error("bytes after the frame's fields")),
        None => Err(frame_error("frame ends inside its fields")),
    }
}

fn parse_payload(ty: u64, p: &[u8]) -> Result<Frame<'_>, H3Error> {
    Ok(match ty {
        kind::HEADERS => Frame::Headers(p),
        kind::CANCEL_PUSH => Frame::CancelPush(one_varint(p)?),
        kind::SETTINGS => Frame::Settings(Settings::parse(p)?),
        kind::PUSH_PROMISE => {
            let (push_id, n) =
                varint::decode(p).ok_or(frame_error("PUSH_PROMISE ends inside its push id"))?;
            Frame::PushPromise {
                push_id,
                block: &p[n..],
            }
        }
        kind::GOAWAY => Frame::GoAway(one_varint(p)?),
        kind::MAX_PUSH_ID => Frame::MaxPushId(one_varint(p)?),
        _ => unreachable!("only known types are parsed"),
    })
}

/// Appends a frame header.
pub fn write_header(ty: u64, len: u64, out: &mut Vec<u8>) {
    varint::encode(ty, out);
    varint::encode(len, out);
}

/// Appends a DATA frame's header only: the caller writes (or sends) the `len` payload bytes.
pub fn write_data_header(len: u64, out: &mut Vec<u8>) {
    write_header(kind::DATA, len, out);
}

/// Appends a DATA frame.
pub fn write_data(data: &[u8], out: &mut Vec<u8>) {
    write_data_header(data.len() as u64, out);
    out.extend_from_slice(data);
}

/// Appends a HEADERS frame holding an encoded field section.
pub fn write_headers(block: &[u8], out: &mut Vec<u8>) {
    write_header(kind::HEADERS, block.len() as u64, out);
    out.extend_from_slice(block);
}

fn write_one_varint(ty: u64, v: u64, out: &mut Vec<u8>) {
    write_header(ty, varint::len(v) as u64, out);
    varint::encode(v, out);
}

pub fn write_cancel_push(push_id: u64, out: &mut Vec<u8>) {
    write_one_varint(kind::CANCEL_PUSH, push_id, out);
}

pub fn write_settings(s: &Settings, out: &mut Vec<u8>) {
    write_header(kind::SETTINGS, s.payload_len() as u64, out);
    s.write_payload(out);
}

pub fn write_push_promise(push_id: u64, block: &[u8], out: &mut Vec<u8>) {
    write_header(
        kind::PUSH_PROMISE,
        (varint::len(push_id) + block.len()) as u64,
        out,
    );
    varint::encode(push_id, out);
    out.extend_from_slice(block);
}

pub fn write_goaway(id: u64, out: &mut Vec<u8>) {
    write_one_varint(kind::GOAWAY, id, out);
}

pub fn write_max_push_id(push_id: u64, out: &mut Vec<u8>) {
    write_one_varint(kind::MAX_PUSH_ID, push_id, out);
}

/// Appends any frame (for tests and tools; a sender writes DATA with [`write_data`]).
pub fn write_frame(f: &Frame<'_>, out: &mut Vec<u8>) {
    match *f {
        Frame::Headers(b) => write_headers(b, out),
        Frame::CancelPush(id) => write_cancel_push(id, out),
        Frame::Settings(s) => write_settings(&s, out),
        Frame::PushPromise { push_id, block } => write_push_promise(push_id, block, out),
        Frame::GoAway(id) => write_goaway(id, out),
        Frame::MaxPushId(id) => write_max_push_id(id, out),
    }
}

/// The type that opens a unidirectional stream (§6.2, RFC 9204 §4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamType {
    Control,
    /// Followed by a push id.
    Push,
    QpackEncoder,
    QpackDecoder,
    /// Reserved (grease, 0x1f * N + 0x21) or unknown: the receiver stops reading it and must
    /// not treat it as an error (§6.2).
    Unknown(u64),
}

impl StreamType {
    pub fn from_u64(t: u64) -> StreamType {
        match t {
            0x00 => StreamType::Control,
            0x01 => StreamType::Push,
            0x02 => StreamType::QpackEncoder,
            0x03 => StreamType::QpackDecoder,
            t => StreamType::Unknown(t),
        }
    }

    pub fn to_u64(self) -> u64 {
        match self {
            StreamType::Control => 0x00,
            StreamType::Push => 0x01,
            StreamType::QpackEncoder => 0x02,
            StreamType::QpackDecoder => 0x03,
            StreamType::Unknown(t) => t,
        }
    }

    /// Reads a stream's type at the front of its bytes: (type, bytes used), `None` until whole.
    pub fn decode(buf: &[u8]) -> Option<(StreamType, usize)> {
        varint::decode(buf).map(|(t, n)| (StreamType::from_u64(t), n))
    }

    pub fn write(self, out: &mut Vec<u8>) {
        varint::encode(self.to_u64(), out);
    }
}

#[cfg(test)]
mod tests;

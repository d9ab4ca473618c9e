//! HTTP/2 frames: [`parse_frame`] reads one frame from the front of a buffer and checks it as
//! RFC 9113 §4 and §6 require; the `write_*` functions append frames to a buffer.
//!
//! Payloads are borrowed from the input (no copy): a DATA frame's data, a header block fragment,
//! a GOAWAY's debug data. Padding is removed; a DATA frame keeps its whole length in
//! [`Frame::Data::flow_len`] because flow control counts the padding too.

use thiserror::Error;

use super::FRAME_HEADER_LEN;

/// The frame types of RFC 9113 §6 (others are [`Kind::Unknown`] and ignored, as §4.1 requires).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Data,
    Headers,
    Priority,
    RstStream,
    Settings,
    PushPromise,
    Ping,
    GoAway,
    WindowUpdate,
    Continuation,
    Unknown(u8),
}

impl Kind {
    pub fn from_u8(t: u8) -> Kind {
        match t {
            0 => Kind::Data,
            1 => Kind::Headers,
            2 => Kind::Priority,
            3 => Kind::RstStream,
            4 => Kind::Settings,
            5 => Kind::PushPromise,
            6 => Kind::Ping,
            7 => Kind::GoAway,
            8 => Kind::WindowUpdate,
            9 => Kind::Continuation,
            t => Kind::Unknown(t),
        }
    }

    pub fn to_u8(self) -> u8 {
        match self {
            Kind::Data => 0,
            Kind::Headers => 1,
            Kind::Priority => 2,
            Kind::RstStream => 3,
            Kind::Settings => 4,
            Kind::PushPromise => 5,
            Kind::Ping => 6,
            Kind::GoAway => 7,
            Kind::WindowUpdate => 8,
            Kind::Continuation => 9,
            Kind::Unknown(t) => t,
        }
    }
}

/// Frame flags (RFC 9113 §6).
pub mod flags {
    pub const END_STREAM: u8 = 0x1;
    pub const ACK: u8 = 0x1;
    pub const END_HEADERS: u8 = 0x4;
    pub const PADDED: u8 = 0x8;
    pub const PRIORITY: u8 = 0x20;
}

/// Error codes (RFC 9113 §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    NoError,
    Protocol,
    Internal,
    FlowControl,
    SettingsTimeout,
    StreamClosed,
    FrameSize,
    RefusedStream,
    Cancel,
    Compression,
    Connect,
    EnhanceYourCalm,
    InadequateSecurity,
    Http11Required,
    /// A code this version does not know (counted by its number).
    Other(u32),
}

impl ErrorCode {
    pub fn from_u32(c: u32) -> ErrorCode {
        use ErrorCode::*;
        match c {
            0x0 => NoError,
            0x1 => Protocol,
            0x2 => Internal,
            0x3 => FlowControl,
            0x4 => SettingsTimeout,
            0x5 => StreamClosed,
            0x6 => FrameSize,
            0x7 => RefusedStream,
            0x8 => Cancel,
            0x9 => Compression,
            0xa => Connect,
            0xb => EnhanceYourCalm,
            0xc => InadequateSecurity,
            0xd => Http11Required,
            c => Other(c),
        }
    }

    pub fn to_u32(self) -> u32 {
        use ErrorCode::*;
        match self {
            NoError => 0x0,
            Protocol => 0x1,
            Internal => 0x2,
            FlowControl => 0x3,
            SettingsTimeout => 0x4,
            StreamClosed => 0x5,
            FrameSize => 0x6,
            RefusedStream => 0x7,
            Cancel => 0x8,
            Compression => 0x9,
            Connect => 0xa,
            EnhanceYourCalm => 0xb,
            InadequateSecurity => 0xc,
            Http11Required => 0xd,
            Other(c) => c,
        }
    }

    /// The name RFC 9113 gives it ("PROTOCOL_ERROR"), for counts by class.
    pub fn name(self) -> &'static str {
        use ErrorCode::*;
        match self {
            NoError => "NO_ERROR",
            Protocol => "PROTOCOL_ERROR",
            Internal => "INTERNAL_ERROR",
            FlowControl => "FLOW_CONTROL_ERROR",
            SettingsTimeout => "SETTINGS_TIMEOUT",
            StreamClosed => "STREAM_CLOSED",
            FrameSize => "FRAME_SIZE_ERROR",
            RefusedStream => "REFUSED_STREAM",
            Cancel => "CANCEL",
            Compression => "COMPRESSION_ERROR",
            Connect => "CONNECT_ERROR",
            EnhanceYourCalm => "ENHANCE_YOUR_CALM",
            InadequateSecurity => "INADEQUATE_SECURITY",
            Http11Required => "HTTP_1_1_REQUIRED",
            Other(_) => "UNKNOWN_ERROR",
        }
    }
}

/// A frame that breaks RFC 9113: the code to send, and whether it ends the connection (a
/// GOAWAY) or only one stream (an RST_STREAM on `stream`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("{}: {what}", code.name())]
pub struct H2Error {
    pub code: ErrorCode,
    /// `Some(id)`: a stream error on that stream; `None`: a connection error.
    pub stream: Option<u32>,
    pub what: &'static str,
}

impl H2Error {
    fn conn(code: ErrorCode, what: &'static str) -> H2Error {
        H2Error {
            code,
            stream: None,
            what,
        }
    }
}

/// One parsed frame, its payload borrowed from the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame<'a> {
    Data {
        stream: u32,
        end_stream: bool,
        data: &'a [u8],
        /// The frame's whole payload length, padding included: what flow control counts.
        flow_len: u32,
    },
    Headers {
        stream: u32,
        end_stream: bool,
        end_headers: bool,
        block: &'a [u8],
    },
    Priority {
        stream: u32,
    },
    RstStream {
        stream: u32,
        code: ErrorCode,
    },
    Settings {
        ack: bool,
        /// 6-byte (identifier, value) entries; see [`super::Settings::apply`].
        params: &'a [u8],
    },
    PushPromise {
        stream: u32,
        promised: u32,
        end_headers: bool,
        block: &'a [u8],
    },
    Ping {
        ack: bool,
        data: [u8; 8],
    },
    GoAway {
        last_stream: u32,
        code: ErrorCode,
        debug: &'a [u8],
    },
    WindowUpdate {
        stream: u32,
        increment: u32,
    },
    Continuation {
        stream: u32,
        end_headers: bool,
        block: &'a [u8],
    },
    /// A frame of an unknown type: ignored (RFC 9113 §4.1), but it may not split a header block.
    Unknown {
        kind: u8,
        stream: u32,
    },
}

fn u32_at(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// Strips a PADDED payload: (the payload without its pad length byte and padding).
fn unpad(flags_: u8, p: &[u8]) -> Result<&[u8], H2Error> {
    if flags_ & flags::PADDED == 0 {
        return Ok(p);
    }
    let Some((&pad, rest)) = p.split_first() else {
        return Err(H2Error::conn(
            ErrorCode::FrameSize,
            "PADDED frame without a pad length",
        ));
    };
    if pad as usize > rest.len() {
        return Err(H2Error::conn(
            ErrorCode::Protocol,
            "padding longer than the payload",
        ));
    }
    Ok(&rest[..rest.len() - pad as usize])
}

/// Parses the frame at the front of `buf`: `Ok(None)` until it is whole, else the frame and the
/// bytes it took. `max_frame_size` is the SETTINGS_MAX_FRAME_SIZE this side advertised.
pub fn parse_frame(buf: &[u8], max_frame_size: u32) -> Result<Option<(Frame<'_>, usize)>, H2Error> {
    if buf.len() < FRAME_HEADER_LEN {
        return Ok(None);
    }
    let len = u32::from_be_bytes([0, buf[0], buf[1], buf[2]]);
    let kind = Kind::from_u8(buf[3]);
    let fl = buf[4];
    let stream = u32_at(&buf[5..9]) & 0x7fff_ffff;
    if len > max_frame_size {
        return Err(H2Error::conn(
            ErrorCode::FrameSize,
            "frame larger than SETTINGS_MAX_FRAME_SIZE",
        ));
    }
    let total = FRAME_HEADER_LEN + len as usize;
    if buf.len() < total {
        return Ok(None);
    }
    let p = &buf[FRAME_HEADER_LEN..total];
    let conn = H2Error::conn;
    let stream_err = |code, what| H2Error {
        code,
        stream: Some(stream),
        what,
    };
    let frame = match kind {
        Kind::Data => {
            if stream == 0 {
                return Err(conn(ErrorCode::Protocol, "DATA on stream 0"));
            }
            Frame::Data {
                stream,
                end_stream: fl & flags::END_STREAM != 0,
                data: unpad(fl, p)?,
                flow_len: len,
            }
        }
        Kind::Headers => {
            if stream == 0 {
                return Err(conn(ErrorCode::Protocol, "HEADERS on stream 0"));
            }
            let mut block = unpad(fl, p)?;
            if fl & flags::PRIORITY != 0 {
                if block.len() < 5 {
                    return Err(conn(
                        ErrorCode::FrameSize,
                        "HEADERS too short for its priority",
                    ));
                }
                if u32_at(block) & 0x7fff_ffff == stream {
                    return Err(stream_err(ErrorCode::Protocol, "stream depends on itself"));
                }
                block = &block[5..];
            }
            Frame::Headers {
                stream,
                end_stream: fl & flags::END_STREAM != 0,
                end_headers: fl & flags::END_HEADERS != 0,
                block,
            }
        }
        Kind::Priority => {
            if stream == 0 {
                return Err(conn(ErrorCode::Protocol, "PRIORITY on stream 0"));
            }
            if len != 5 {
                return Err(stream_err(ErrorCode::FrameSize, "PRIORITY is not 5 bytes"));
            }
            if u32_at(p) & 0x7fff_ffff == stream {
                return Err(stream_err(ErrorCode::Protocol, "stream depends on itself"));
            }
            Frame::Priority { stream }
        }
        Kind::RstStream => {
            if stream == 0 {
                return Err(conn(ErrorCode::Protocol, "RST_STREAM on stream 0"));
            }
            if len != 4 {
                return Err(conn(ErrorCode::FrameSize, "RST_STREAM is not 4 bytes"));
            }
            Frame::RstStream {
                stream,
                code: ErrorCode::from_u32(u32_at(p)),
            }
        }
        Kind::Settings => {
            if stream != 0 {
                return Err(conn(ErrorCode::Protocol, "SETTINGS on a stream"));
            }
            let ack = fl & flags::ACK != 0;
            if ack && len != 0 {
                return Err(conn(ErrorCode::FrameSize, "SETTINGS ack with a payload"));
            }
            if !len.is_multiple_of(6) {
                return Err(conn(
                    ErrorCode::FrameSize,
                    "SETTINGS not a multiple of 6 bytes",
                ));
            }
            Frame::Settings { ack, params: p }
        }
        Kind::PushPromise => {
            if stream == 0 {
                return Err(conn(ErrorCode::Protocol, "PUSH_PROMISE on stream 0"));
            }
            let b = unpad(fl, p)?;
            if b.len() < 4 {
                return Err(conn(ErrorCode::FrameSize, "PUSH_PROMISE too short"));
            }
            Frame::PushPromise {
                stream,
                promised: u32_at(b) & 0x7fff_ffff,
                end_headers: fl & flags::END_HEADERS != 0,
                block: &b[4..],
            }
        }
        Kind::Ping => {
            if stream != 0 {
                return Err(conn(ErrorCode::Protocol, "PING on a stream"));
            }
            if len != 8 {
                return Err(conn(ErrorCode::FrameSize, "PING is not 8 bytes"));
            }
            let mut data = [0; 8];
            data.copy_from_slice(p);
            Frame::Ping {
                ack: fl & flags::ACK != 0,
                data,
            }
        }
        Kind::GoAway => {
            if stream != 0 {
                return Err(conn(ErrorCode::Protocol, "GOAWAY on a stream"));
            }
            if len < 8 {
                return Err(conn(ErrorCode::FrameSize, "GOAWAY shorter than 8 bytes"));
            }
            Frame::GoAway {
                last_stream: u32_at(p) & 0x7fff_ffff,
                code: ErrorCode::from_u32(u32_at(&p[4..])),
                debug: &p[8..],
            }
        }
        Kind::WindowUpdate => {
            if len != 4 {
                return Err(conn(ErrorCode::FrameSize, "WINDOW_UPDATE is not 4 bytes"));
            }
            let increment = u32_at(p) & 0x7fff_ffff;
            if increment == 0 {
                return Err(if stream == 0 {
                    conn(ErrorCode::Protocol, "WINDOW_UPDATE of 0 on the connection")
                } else {
                    stream_err(ErrorCode::Protocol, "WINDOW_UPDATE of 0")
                });
            }
            Frame::WindowUpdate { stream, increment }
        }
        Kind::Continuation => {
            if stream == 0 {
                return Err(conn(ErrorCode::Protocol, "CONTINUATION on stream 0"));
            }
            Frame::Continuation {
                stream,
                end_headers: fl & flags::END_HEADERS != 0,
                block: p,
            }
        }
        Kind::Unknown(t) => Frame::Unknown { kind: t, stream },
    };
    Ok(Some((frame, total)))
}

/// Appends a frame header.
pub fn write_header(out: &mut Vec<u8>, len: usize, kind: Kind, fl: u8, stream: u32) {
    debug_assert!(len < 1 << 24);
    let l = (len as u32).to_be_bytes();
    out.extend_from_slice(&[l[1], l[2], l[3], kind.to_u8(), fl]);
    out.extend_from_slice(&(stream & 0x7fff_ffff).to_be_bytes());
}

/// Appends a SETTINGS frame with these (identifier, value) parameters.
pub fn write_settings(out: &mut Vec<u8>, params: &[(u16, u32)]) {
    write_header(out, params.len() * 6, Kind::Settings, 0, 0);
    for (id, v) in params {
        out.extend_from_slice(&id.to_be_bytes());
        out.extend_from_slice(&v.to_be_bytes());
    }
}

/// Appends a SETTINGS acknowledgement.
pub fn write_settings_ack(out: &mut Vec<u8>) {
    write_header(out, 0, Kind::Settings, flags::ACK, 0);
}

/// Appends a PING (or its acknowledgement).
pub fn write_ping(out: &mut Vec<u8>, ack: bool, data: [u8; 8]) {
    write_header(out, 8, Kind::Ping, if ack { flags::ACK } else { 0 }, 0);
    out.extend_from_slice(&data);
}

/// Appends a WINDOW_UPDATE (stream 0: the connection's window).
pub fn write_window_update(out: &mut Vec<u8>, stream: u32, increment: u32) {
    write_header(out, 4, Kind::WindowUpdate, 0, stream);
    out.extend_from_slice(&(increment & 0x7fff_ffff).to_be_bytes());
}

/// Appends an RST_STREAM.
pub fn write_rst_stream(out: &mut Vec<u8>, stream: u32, code: ErrorCode) {
    write_header(out, 4, Kind::RstStream, 0, stream);
    out.extend_from_slice(&code.to_u32().to_be_bytes());
}

/// Appends a GOAWAY.
pub fn write_goaway(out: &mut Vec<u8>, last_stream: u32, code: ErrorCode, debug: &[u8]) {
    write_header(out, 8 + debug.len(), Kind::GoAway, 0, 0);
    out.extend_from_slice(&(last_stream & 0x7fff_ffff).to_be_bytes());
    out.extend_from_slice(&code.to_u32().to_be_bytes());
    out.extend_from_slice(debug);
}

/// Appends a header block as HEADERS and as many CONTINUATION frames as `max_frame_size` needs.
pub fn write_headers(
    out: &mut Vec<u8>,
    stream: u32,
    block: &[u8],
    end_stream: bool,
    max_frame_size: u32,
) {
    let max = (max_frame_size as usize).max(1);
    let mut chunks = block.chunks(max).peekable();
    let first = chunks.next().unwrap_or(&[]);
    let es = if end_stream { flags::END_STREAM } else { 0 };
    let eh = if chunks.peek().is_none() {
        flags::END_HEADERS
    } else {
        0
    };
    write_header(out, first.len(), Kind::Headers, es | eh, stream);
    out.extend_from_slice(first);
    while let Some(c) = chunks.next() {
        let eh = if chunks.peek().is_none() {
            flags::END_HEADERS
        } else {
            0
        };
        write_header(out, c.len(), Kind::Continuation, eh, stream);
        out.extend_from_slice(c);
    }
}

/// Appends a DATA frame's header; the caller appends `len` bytes of data after it (so a body
/// can be written straight from where it lies, e.g. the /bytes pattern).
pub fn write_data_header(out: &mut Vec<u8>, stream: u32, len: usize, end_stream: bool) {
    let fl = if end_stream { flags::END_STREAM } else { 0 };
    write_header(out, len, Kind::Data, fl, stream);
}

#[cfg(test)]
mod tests;

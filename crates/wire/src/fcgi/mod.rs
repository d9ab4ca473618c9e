//! FastCGI (the FastCGI Specification 1.0, Open Market 1996): the records a web server and an
//! application (php-fpm, a FastCGI upstream of nginx's `fastcgi_pass`) exchange over one byte
//! stream, as the load engine's client ([`client`]) and `barrage serve` ([`server`]) speak
//! them. No crate on crates.io reads FastCGI without its own I/O (tokio's or std's sockets),
//! and the record layer is a few lines, so it is written here, sans I/O like every codec of
//! this crate.
//!
//! A record is an 8-byte header (version 1, type, request id, content length, padding length)
//! then its content (at most 65,535 bytes) and padding. A request is a `BEGIN_REQUEST`, its CGI
//! variables as name-value pairs in `PARAMS` records ended by an empty one, its body in `STDIN`
//! records ended by an empty one; its answer a CGI response (a `Status:` header, the header
//! fields, a blank line, the body) in `STDOUT` records ended by an empty one, then
//! `END_REQUEST`. [`Reader`] takes records from any cut of the input and hands out their content
//! as it arrives, so neither side keeps more than 7 bytes of a header between reads.

pub mod client;
pub mod server;
#[cfg(test)]
mod tests;

use thiserror::Error;

/// The only version of the protocol.
pub const VERSION: u8 = 1;
pub const BEGIN_REQUEST: u8 = 1;
pub const ABORT_REQUEST: u8 = 2;
pub const END_REQUEST: u8 = 3;
pub const PARAMS: u8 = 4;
pub const STDIN: u8 = 5;
pub const STDOUT: u8 = 6;
pub const STDERR: u8 = 7;
pub const DATA: u8 = 8;
pub const GET_VALUES: u8 = 9;
pub const GET_VALUES_RESULT: u8 = 10;
pub const UNKNOWN_TYPE: u8 = 11;

/// `BEGIN_REQUEST`'s role: the application answers the request (the only role served here).
pub const RESPONDER: u16 = 1;
/// `BEGIN_REQUEST`'s flag: the application keeps the connection after answering.
pub const KEEP_CONN: u8 = 1;

/// `END_REQUEST`'s protocol status: the request was answered.
pub const REQUEST_COMPLETE: u8 = 0;
/// The application takes one request at a time on a connection.
pub const CANT_MPX_CONN: u8 = 1;
/// The application is out of a resource (it takes no more requests now).
pub const OVERLOADED: u8 = 2;
/// The application does not play the role asked.
pub const UNKNOWN_ROLE: u8 = 3;

/// The most content one record carries.
pub const MAX_CONTENT: usize = 0xffff;

/// A record header's size.
pub const HEADER: usize = 8;

/// Why FastCGI input cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum FcgiError {
    /// A record header whose version is not 1 (the stream is not FastCGI, or lost its place).
    #[error("a FastCGI record of version {0} (only 1 exists)")]
    Version(u8),
    /// Name-value pairs that end inside a length or a name or value.
    #[error("FastCGI name-value pairs cut short")]
    Pairs,
}

/// A piece of one record's content, as [`Reader::next`] hands it out: the whole of an empty
/// record (`len` 0, which ends a stream), or the next bytes of its content (`end` with its last).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece<'a> {
    pub kind: u8,
    pub id: u16,
    /// The record's content length (0: an empty record, the end of a stream).
    pub len: u16,
    pub data: &'a [u8],
    /// The record's content ends with `data`.
    pub end: bool,
}

/// Records from a byte stream cut anywhere: a partial header is kept (at most 7 bytes), content
/// is handed out as it arrives, padding skipped.
#[derive(Debug, Default, Clone)]
pub struct Reader {
    header: [u8; HEADER],
    have: usize,
    kind: u8,
    id: u16,
    len: u16,
    /// Content bytes of the current record still to come.
    left: usize,
    /// Padding bytes of the current record still to come.
    pad: usize,
}

impl Reader {
    /// The next piece of content in `input`: the bytes used and the piece, or `None` when
    /// `input` is used up (every byte of it is always taken).
    pub fn next<'a>(&mut self, input: &'a [u8]) -> Result<(usize, Option<Piece<'a>>), FcgiError> {
        let mut pos = 0;
        loop {
            if self.left > 0 {
                if pos == input.len() {
                    return Ok((pos, None));
                }
                let take = self.left.min(input.len() - pos);
                let data = &input[pos..pos + take];
                self.left -= take;
                return Ok((pos + take, Some(self.piece(data))));
            }
            if self.pad > 0 {
                let take = self.pad.min(input.len() - pos);
                (self.pad, pos) = (self.pad - take, pos + take);
                if self.pad > 0 {
                    return Ok((pos, None));
                }
                continue;
            }
            let take = (HEADER - self.have).min(input.len() - pos);
            self.header[self.have..self.have + take].copy_from_slice(&input[pos..pos + take]);
            (self.have, pos) = (self.have + take, pos + take);
            if self.have < HEADER {
                return Ok((pos, None));
            }
            self.have = 0;
            let h = self.header;
            if h[0] != VERSION {
                return Err(FcgiError::Version(h[0]));
            }
            self.kind = h[1];
            self.id = u16::from_be_bytes([h[2], h[3]]);
            self.len = u16::from_be_bytes([h[4], h[5]]);
            (self.left, self.pad) = (usize::from(self.len), usize::from(h[6]));
            if self.len == 0 {
                return Ok((pos, Some(self.piece(&[]))));
            }
        }
    }

    fn piece<'a>(&self, data: &'a [u8]) -> Piece<'a> {
        Piece {
            kind: self.kind,
            id: self.id,
            len: self.len,
            data,
            end: self.left == 0,
        }
    }
}

/// Appends one record (`content` at most [`MAX_CONTENT`] bytes; no padding: it is optional).
pub fn record(out: &mut Vec<u8>, kind: u8, id: u16, content: &[u8]) {
    debug_assert!(content.len() <= MAX_CONTENT);
    let [i0, i1] = id.to_be_bytes();
    let [l0, l1] = (content.len() as u16).to_be_bytes();
    out.extend_from_slice(&[VERSION, kind, i0, i1, l0, l1, 0, 0]);
    out.extend_from_slice(content);
}

/// Appends `data` as records of a stream (`PARAMS`, `STDIN`, `STDOUT`), as many as it takes;
/// nothing for empty `data` (an empty record ends the stream: [`record`] with no content).
pub fn stream(out: &mut Vec<u8>, kind: u8, id: u16, data: &[u8]) {
    for part in data.chunks(MAX_CONTENT) {
        record(out, kind, id, part);
    }
}

/// Appends a `BEGIN_REQUEST` for a responder, keeping the connection with `keep`.
pub fn begin_request(out: &mut Vec<u8>, id: u16, keep: bool) {
    let [r0, r1] = RESPONDER.to_be_bytes();
    let flags = if keep { KEEP_CONN } else { 0 };
    record(out, BEGIN_REQUEST, id, &[r0, r1, flags, 0, 0, 0, 0, 0]);
}

/// Appends an `END_REQUEST` with the application's exit status and the protocol status.
pub fn end_request(out: &mut Vec<u8>, id: u16, app_status: u32, protocol_status: u8) {
    let mut body = [0u8; 8];
    body[..4].copy_from_slice(&app_status.to_be_bytes());
    body[4] = protocol_status;
    record(out, END_REQUEST, id, &body);
}

/// The name of an `END_REQUEST` protocol status, as the specification spells it.
pub fn protocol_status_name(status: u8) -> &'static str {
    match status {
        REQUEST_COMPLETE => "FCGI_REQUEST_COMPLETE",
        CANT_MPX_CONN => "FCGI_CANT_MPX_CONN",
        OVERLOADED => "FCGI_OVERLOADED",
        UNKNOWN_ROLE => "FCGI_UNKNOWN_ROLE",
        _ => "an unknown FastCGI protocol status",
    }
}

/// Appends one name-value pair (a length of 127 or less in one byte, else in four with the top
/// bit set).
pub fn pair(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    for len in [name.len(), value.len()] {
        if len < 0x80 {
            out.push(len as u8);
        } else {
            out.extend_from_slice(&(len as u32 | 0x8000_0000).to_be_bytes());
        }
    }
    out.extend_from_slice(name);
    out.extend_from_slice(value);
}

/// The name-value pairs of a whole stream's content, in order.
pub fn pairs(mut data: &[u8]) -> impl Iterator<Item = Result<(&[u8], &[u8]), FcgiError>> {
    fn length(data: &mut &[u8]) -> Option<usize> {
        let first = *data.first()?;
        if first < 0x80 {
            *data = &data[1..];
            return Some(usize::from(first));
        }
        let bytes: [u8; 4] = data.get(..4)?.try_into().ok()?;
        *data = &data[4..];
        Some((u32::from_be_bytes(bytes) & 0x7fff_ffff) as usize)
    }
    std::iter::from_fn(move || {
        if data.is_empty() {
            return None;
        }
        let whole = (|| {
            let (n, v) = (length(&mut data)?, length(&mut data)?);
            let name = data.get(..n)?;
            let value = data.get(n..n.checked_add(v)?)?;
            data = &data[n + v..];
            Some((name, value))
        })();
        if whole.is_none() {
            data = &[];
        }
        Some(whole.ok_or(FcgiError::Pairs))
    })
}

//! Server side: parsing a request head strictly and deciding how its body is framed.
//!
//! A tokeniser — httparse by default, or one of the C parsers of the parser experiment
//! ([`Parser`]: picohttpparser, nodejs's http-parser, each behind a cargo feature) — splits the
//! head into method, target, version and header lines; everything after that is common, so every
//! parser yields the same [`RequestHead`] and the same errors. On top of the tokens this module
//! refuses what a lenient parser would let through and what request smuggling relies on: a bare
//! LF line ending, Content-Length together with Transfer-Encoding, several Content-Length values
//! (even agreeing ones), a Transfer-Encoding whose final coding is not `chunked`, Transfer-Encoding in
//! an HTTP/1.0 request, and an HTTP/1.1 request without exactly one Host. A head larger than the
//! caller's limit is its own error, so a server can answer 431 rather than 400.

#[cfg(feature = "parser-http-parser")]
mod http_parser;
#[cfg(any(feature = "parser-pico", feature = "parser-http-parser"))]
mod line;
mod parser;
#[cfg(feature = "parser-pico")]
mod pico;
#[cfg(test)]
mod tests;

pub use parser::{HeadParser, Parser, ParserUnavailable, UnknownParser};

use crate::body::{connection_has, declared_framing, DeclaredFraming};
use crate::{Framing, WireError, MAX_HEADERS};
use std::mem::MaybeUninit;
use thiserror::Error;

/// Why a request head was refused. [`RequestError::status`] is the status a server should answer
/// with (and then close the connection).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RequestError {
    /// Malformed head or framing (400).
    #[error(transparent)]
    Malformed(#[from] WireError),
    /// The head is longer than the limit (431).
    #[error("request head larger than {limit} bytes")]
    HeadTooLarge { limit: usize },
    /// HTTP/1.1 requires exactly one Host header (400).
    #[error("HTTP/1.1 request without exactly one Host header")]
    BadHost,
    /// Transfer-Encoding in an HTTP/1.0 request (400: its length cannot be trusted).
    #[error("Transfer-Encoding in an HTTP/1.0 request")]
    TransferEncodingInHttp10,
    /// The parser asked for is not compiled into this build (500; a server checks
    /// [`Parser::ensure_compiled`] before it starts, so it never answers this).
    #[error(transparent)]
    Unavailable(#[from] ParserUnavailable),
}

impl RequestError {
    /// The status code to answer with: 431 for oversized heads, 400 for everything else.
    pub fn status(&self) -> u16 {
        match self {
            RequestError::HeadTooLarge { .. }
            | RequestError::Malformed(WireError::TooManyHeaders { .. }) => 431,
            RequestError::Unavailable(_) => 500,
            _ => 400,
        }
    }
}

/// A parsed request head, borrowing from the read buffer and the caller's header array.
#[derive(Debug)]
pub struct RequestHead<'h, 'b> {
    pub method: &'b str,
    /// The request target as sent (origin form `/path?query` normally).
    pub target: &'b str,
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    pub version_minor: u8,
    pub headers: &'h [httparse::Header<'b>],
    /// `Empty`, `Length(n)` or `Chunked` (never `Close`: a request has no close-delimited body).
    pub framing: Framing,
    /// Whether the client lets the connection carry another request after this one.
    pub keep_alive: bool,
    /// `Expect: 100-continue` was sent.
    pub expect_continue: bool,
    /// Length of the head in bytes, up to and including the blank line.
    pub head_len: usize,
}

impl RequestHead<'_, '_> {
    /// The target's path (before any `?`).
    pub fn path(&self) -> &str {
        self.target.split_once('?').map_or(self.target, |(p, _)| p)
    }

    /// The target's query (after the first `?`), if any.
    pub fn query(&self) -> Option<&str> {
        self.target.split_once('?').map(|(_, q)| q)
    }

    /// The first header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value)
    }
}

/// Scratch space for the header lines of one request: `[const { MaybeUninit::uninit() };
/// MAX_HEADERS]`. Left uninitialised because filling 100 empty headers costs more than parsing a
/// small request.
pub type HeaderSlots<'b> = [MaybeUninit<httparse::Header<'b>>; MAX_HEADERS];

/// Fresh, uninitialised header slots.
pub fn header_slots<'b>() -> HeaderSlots<'b> {
    [const { MaybeUninit::uninit() }; MAX_HEADERS]
}

/// Parses a request head from the start of `buf` with httparse (see [`Parser::parse_head`] for
/// the others). `Ok(None)` means more bytes are needed (and the head is still within `limit`
/// bytes). `headers` is scratch space for the header lines (see [`header_slots`]); it can be
/// reused for the next request once the head is dropped.
pub fn parse_request_head<'h, 'b>(
    buf: &'b [u8],
    headers: &'h mut [MaybeUninit<httparse::Header<'b>>],
    limit: usize,
) -> Result<Option<RequestHead<'h, 'b>>, RequestError> {
    Parser::Httparse.parse_head(buf, headers, limit)
}

/// What a tokeniser found in a complete head; the rest of the checks are common.
struct Tokens<'h, 'b> {
    method: &'b str,
    target: &'b str,
    version_minor: u8,
    headers: &'h [httparse::Header<'b>],
    head_len: usize,
}

/// A tokeniser's answer: a complete head, or more bytes needed.
enum Step<'h, 'b> {
    Complete(Tokens<'h, 'b>),
    Partial,
}

/// httparse's tokens (the default parser).
fn httparse_tokens<'h, 'b>(
    buf: &'b [u8],
    headers: &'h mut [MaybeUninit<httparse::Header<'b>>],
) -> Result<Step<'h, 'b>, WireError> {
    let mut req = httparse::Request::new(&mut []);
    let head_len = match req.parse_with_uninit_headers(buf, headers) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Ok(Step::Partial),
        Err(e) => return Err(e.into()),
    };
    Ok(Step::Complete(Tokens {
        method: req.method.ok_or(WireError::Head("missing method"))?,
        target: req.path.ok_or(WireError::Head("missing target"))?,
        version_minor: req.version.ok_or(WireError::Head("missing version"))?,
        headers: req.headers,
        head_len,
    }))
}

/// The first `n` slots as headers: the C parsers' tokenisers fill them one by one.
///
/// # Safety
/// The first `n` slots must have been written.
#[cfg(any(feature = "parser-pico", feature = "parser-http-parser"))]
unsafe fn written<'h, 'b>(
    slots: &'h mut [MaybeUninit<httparse::Header<'b>>],
    n: usize,
) -> &'h [httparse::Header<'b>] {
    let n = n.min(slots.len());
    // SAFETY: MaybeUninit<T> has T's layout, and the caller wrote the first n slots.
    unsafe { std::slice::from_raw_parts(slots.as_ptr().cast(), n) }
}

/// A C parser's answer when it is not a complete head: when to refuse, and whether with 400 or
/// 431, follows httparse's grammar, so that every parser refuses alike. The parsers find a
/// malformed prefix at different bytes (picohttpparser takes any byte but space in a method and
/// waits; http-parser knows its methods by their first letters and refuses at once), and a head
/// that is both malformed and longer than the limit would otherwise be 400 with one and 431 with
/// another. httparse runs only here, off the path of a good request: when the C parser refuses,
/// or still waits with the limit reached.
#[cfg(any(feature = "parser-pico", feature = "parser-http-parser"))]
fn refuse_like_httparse<'h, 'b>(
    buf: &'b [u8],
    step: Result<Step<'h, 'b>, WireError>,
    limit: usize,
) -> Result<Option<RequestHead<'h, 'b>>, RequestError> {
    match step {
        Ok(Step::Partial) if buf.len() < limit => return Ok(None),
        Ok(Step::Complete(_)) => return finish(buf, step, limit),
        _ => {}
    }
    let mut scratch = header_slots();
    let reference = match httparse_tokens(buf, &mut scratch) {
        Ok(Step::Partial) if buf.len() >= limit => Err(RequestError::HeadTooLarge { limit }),
        // httparse would still wait: so do we, up to the limit.
        Ok(Step::Partial) => return Ok(None),
        complete_or_refused => finish(buf, complete_or_refused, limit).map(|head| head.is_some()),
    };
    match (step, reference) {
        // The same class: the C parser's own words.
        (Err(e), Err(h)) if RequestError::from(e.clone()).status() == h.status() => Err(e.into()),
        (_, Err(h)) => Err(h),
        // httparse takes the head: the C parser's own refusal (http-parser's methods and URL
        // grammar), or it waits past the limit on a head httparse reads whole.
        (Err(e), Ok(_)) => Err(e.into()),
        (_, Ok(_)) => Err(RequestError::HeadTooLarge { limit }),
    }
}

/// The common part of every parser: the size limit, then the strict rules on the tokens.
fn finish<'h, 'b>(
    buf: &'b [u8],
    step: Result<Step<'h, 'b>, WireError>,
    limit: usize,
) -> Result<Option<RequestHead<'h, 'b>>, RequestError> {
    let t = match step {
        Ok(Step::Complete(t)) => t,
        Ok(Step::Partial) if buf.len() >= limit => {
            return Err(RequestError::HeadTooLarge { limit })
        }
        Ok(Step::Partial) => return Ok(None),
        // A head that is still arriving can look malformed only if it is.
        Err(e) => return Err(e.into()),
    };
    let head_len = t.head_len;
    if head_len > limit {
        return Err(RequestError::HeadTooLarge { limit });
    }
    if has_bare_lf(&buf[..head_len]) {
        return Err(WireError::Head("bare LF line ending").into());
    }
    let version_minor = t.version_minor;
    let headers = t.headers;

    let mut hosts = 0;
    let mut lengths = 0;
    let mut close = version_minor == 0;
    let mut expect_continue = false;
    let mut has_te = false;
    for h in headers {
        let name = h.name;
        if name.eq_ignore_ascii_case("host") {
            hosts += 1;
        } else if name.eq_ignore_ascii_case("connection") {
            if connection_has(h.value, b"close") {
                close = true;
            } else if connection_has(h.value, b"keep-alive") {
                close = false;
            }
        } else if name.eq_ignore_ascii_case("expect") {
            expect_continue = h.value.eq_ignore_ascii_case(b"100-continue");
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            has_te = true;
        } else if name.eq_ignore_ascii_case("content-length") {
            lengths += 1;
        }
    }
    // A repeated Content-Length is refused even when the values agree (RFC 9112 6.3 allows
    // either; nginx and http-parser refuse, and every parser here must give the same answer).
    if lengths > 1 {
        return Err(WireError::ConflictingContentLength.into());
    }
    if version_minor == 1 && hosts != 1 {
        return Err(RequestError::BadHost);
    }
    if version_minor == 0 && has_te {
        return Err(RequestError::TransferEncodingInHttp10);
    }
    let framing = match declared_framing(headers)? {
        DeclaredFraming::None | DeclaredFraming::Length(0) => Framing::Empty,
        DeclaredFraming::Length(n) => Framing::Length(n),
        DeclaredFraming::Chunked => Framing::Chunked,
        DeclaredFraming::OtherEncoding => return Err(WireError::UnsupportedTransferEncoding.into()),
    };
    Ok(Some(RequestHead {
        method: t.method,
        target: t.target,
        version_minor,
        headers,
        framing,
        keep_alive: !close,
        expect_continue: expect_continue && framing != Framing::Empty,
        head_len,
    }))
}

/// True when some LF in `head` is not preceded by CR (httparse accepts bare LF; we do not, since
/// a proxy that disagrees about line ends is a smuggling vector).
fn has_bare_lf(head: &[u8]) -> bool {
    let Some((&first, rest)) = head.split_first() else {
        return false;
    };
    // Branch-free over the whole head so it vectorises: this runs on every request.
    let bare = rest.iter().zip(head).fold(false, |acc, (&b, &prev)| {
        acc | ((b == b'\n') & (prev != b'\r'))
    });
    bare || first == b'\n'
}

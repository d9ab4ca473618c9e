//! Server side: parsing a request head strictly and deciding how its body is framed.
//!
//! httparse does the tokenising; on top of it this module refuses what a lenient parser would
//! let through and what request smuggling relies on: a bare LF line ending, Content-Length together
//! with Transfer-Encoding, several Content-Length values that disagree, a Transfer-Encoding whose
//! final coding is not `chunked`, Transfer-Encoding in an HTTP/1.0 request, and an HTTP/1.1
//! request without exactly one Host. A head larger than the caller's limit is its own error, so
//! a server can answer 431 rather than 400.

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
}

impl RequestError {
    /// The status code to answer with: 431 for oversized heads, 400 for everything else.
    pub fn status(&self) -> u16 {
        match self {
            RequestError::HeadTooLarge { .. }
            | RequestError::Malformed(WireError::TooManyHeaders { .. }) => 431,
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

/// Parses a request head from the start of `buf`. `Ok(None)` means more bytes are needed (and the
/// head is still within `limit` bytes). `headers` is scratch space for httparse (see
/// [`header_slots`]); it can be reused for the next request once the head is dropped.
pub fn parse_request_head<'h, 'b>(
    buf: &'b [u8],
    headers: &'h mut [MaybeUninit<httparse::Header<'b>>],
    limit: usize,
) -> Result<Option<RequestHead<'h, 'b>>, RequestError> {
    let mut req = httparse::Request::new(&mut []);
    let head_len = match req.parse_with_uninit_headers(buf, headers) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) if buf.len() >= limit => {
            return Err(RequestError::HeadTooLarge { limit })
        }
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(httparse::Error::TooManyHeaders) => {
            return Err(WireError::TooManyHeaders { max: MAX_HEADERS }.into())
        }
        // A head that is still arriving can look malformed only if it is; but a head cut at the
        // limit must say "too large" even when httparse stops at the cut.
        Err(e) => return Err(WireError::from(e).into()),
    };
    if head_len > limit {
        return Err(RequestError::HeadTooLarge { limit });
    }
    if has_bare_lf(&buf[..head_len]) {
        return Err(WireError::Head("bare LF line ending").into());
    }
    let method = req.method.ok_or(WireError::Head("missing method"))?;
    let target = req.path.ok_or(WireError::Head("missing target"))?;
    let version_minor = req.version.ok_or(WireError::Head("missing version"))?;
    let headers: &'h [httparse::Header<'b>] = req.headers;

    let mut hosts = 0;
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
        }
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
        method,
        target,
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, PartialEq)]
    struct Summary {
        method: String,
        target: String,
        minor: u8,
        framing: Framing,
        keep_alive: bool,
        expect: bool,
        head_len: usize,
    }

    fn parse(buf: &[u8], limit: usize) -> Result<Option<Summary>, RequestError> {
        let mut headers = header_slots();
        Ok(
            parse_request_head(buf, &mut headers, limit)?.map(|h| Summary {
                method: h.method.to_string(),
                target: h.target.to_string(),
                minor: h.version_minor,
                framing: h.framing,
                keep_alive: h.keep_alive,
                expect: h.expect_continue,
                head_len: h.head_len,
            }),
        )
    }

    fn ok(
        method: &str,
        target: &str,
        minor: u8,
        framing: Framing,
        ka: bool,
        len: usize,
    ) -> Summary {
        Summary {
            method: method.into(),
            target: target.into(),
            minor,
            framing,
            keep_alive: ka,
            expect: false,
            head_len: len,
        }
    }

    #[test]
    fn good_requests() {
        let r = b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /next";
        assert_eq!(
            parse(r, 8192).unwrap().unwrap(),
            ok("GET", "/", 1, Framing::Empty, true, 27)
        );
        let r = b"POST /ping HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nping";
        assert_eq!(
            parse(r, 8192).unwrap().unwrap(),
            ok("POST", "/ping", 1, Framing::Length(4), true, 51)
        );
        let r = b"POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
        let s = parse(r, 8192).unwrap().unwrap();
        assert_eq!((s.framing, s.keep_alive), (Framing::Chunked, false));
        let r = b"GET /x?y=1 HTTP/1.0\r\n\r\n";
        assert_eq!(
            parse(r, 8192).unwrap().unwrap(),
            ok("GET", "/x?y=1", 0, Framing::Empty, false, r.len())
        );
        let r = b"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n";
        assert!(parse(r, 8192).unwrap().unwrap().keep_alive);
        let r =
            b"PUT /echo HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 9\r\n\r\n";
        assert!(parse(r, 8192).unwrap().unwrap().expect);
    }

    #[test]
    fn partial_heads_need_more() {
        let full = b"GET /abc HTTP/1.1\r\nHost: a\r\nX: y\r\n\r\n";
        for cut in 0..full.len() {
            assert_eq!(parse(&full[..cut], 8192), Ok(None), "cut {cut}");
        }
    }

    #[test]
    fn refused_shapes() {
        let e400 = |r: &[u8]| {
            let e = parse(r, 8192).unwrap_err();
            assert_eq!(e.status(), 400, "{:?}: {e}", String::from_utf8_lossy(r));
            e
        };
        assert_eq!(
            e400(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"),
            RequestError::Malformed(WireError::LengthAndTransferEncoding)
        );
        assert_eq!(
            e400(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n"),
            RequestError::Malformed(WireError::ConflictingContentLength)
        );
        assert_eq!(
            e400(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -3\r\n\r\n"),
            RequestError::Malformed(WireError::BadContentLength)
        );
        assert_eq!(
            e400(b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n"),
            RequestError::Malformed(WireError::UnsupportedTransferEncoding)
        );
        assert_eq!(
            e400(b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"),
            RequestError::TransferEncodingInHttp10
        );
        assert_eq!(e400(b"GET / HTTP/1.1\r\n\r\n"), RequestError::BadHost);
        assert_eq!(
            e400(b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
            RequestError::BadHost
        );
        e400(b"GET / HTTP/1.1\nHost: a\n\n");
        e400(b"GET / HTTP/1.1\r\nHost: a\nX: 1\r\n\r\n");
        e400(b"GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n\n");
        e400(b"\nGET / HTTP/1.1\r\nHost: a\r\n\r\n");
        e400(b"GET / HTTP/2.0\r\nHost: a\r\n\r\n");
        e400(b"GET  / HTTP/1.1\r\nHost: a\r\n\r\n");
        e400(b"GET / HTTP/1.1\r\nHost : a\r\n\r\n");
        e400(b"GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n");
        e400(b"\x00\x01\x02 garbage\r\n\r\n");
    }

    #[test]
    fn oversized_heads_are_431() {
        let mut r = b"GET / HTTP/1.1\r\nHost: a\r\nX-Big: ".to_vec();
        r.extend(std::iter::repeat_n(b'a', 200));
        // Still arriving but already past the limit.
        assert_eq!(
            parse(&r, 100),
            Err(RequestError::HeadTooLarge { limit: 100 })
        );
        r.extend_from_slice(b"\r\n\r\n");
        assert_eq!(parse(&r, 100).unwrap_err().status(), 431);
        assert!(parse(&r, 1000).unwrap().is_some());
        let mut many = b"GET / HTTP/1.1\r\nHost: a\r\n".to_vec();
        for i in 0..MAX_HEADERS + 1 {
            many.extend_from_slice(format!("X-{i}: 1\r\n").as_bytes());
        }
        many.extend_from_slice(b"\r\n");
        assert_eq!(parse(&many, 1 << 20).unwrap_err().status(), 431);
    }

    proptest! {
        /// Any bytes: no panic, and a prefix of a parseable head is either incomplete or an error.
        #[test]
        fn garbage_never_panics(input in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = parse(&input, 256);
        }

        /// Every cut of a valid head is "need more", never an error.
        #[test]
        fn cuts_of_valid_heads(path in "/[a-z0-9/]{0,20}", n in 0usize..5, cut in 0usize..200) {
            let mut r = format!("GET {path} HTTP/1.1\r\nHost: h\r\n");
            for i in 0..n {
                r.push_str(&format!("X-{i}: v{i}\r\n"));
            }
            r.push_str("\r\n");
            let cut = cut.min(r.len());
            let got = parse(&r.as_bytes()[..cut], 8192).unwrap();
            prop_assert_eq!(got.is_some(), cut == r.len());
        }
    }
}

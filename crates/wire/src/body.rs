//! Body framing: how a message's body is delimited, and one decoder for all three kinds.

use crate::{ChunkedDecoder, WireError};

/// How the body of a message is delimited (RFC 9112 section 6.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// No body at all (HEAD responses, 1xx, 204, 304; requests without length).
    Empty,
    /// Exactly this many bytes.
    Length(u64),
    /// `Transfer-Encoding: chunked`.
    Chunked,
    /// Everything until the peer closes (responses only).
    Close,
}

/// Reads one body of any framing in constant memory, handing the body bytes to a callback.
#[derive(Debug, Clone)]
pub enum BodyDecoder {
    Empty,
    Length { remaining: u64 },
    Chunked(ChunkedDecoder),
    Close { read: u64 },
}

impl BodyDecoder {
    pub fn new(framing: Framing) -> Self {
        match framing {
            Framing::Empty | Framing::Length(0) => BodyDecoder::Empty,
            Framing::Length(n) => BodyDecoder::Length { remaining: n },
            Framing::Chunked => BodyDecoder::Chunked(ChunkedDecoder::new()),
            Framing::Close => BodyDecoder::Close { read: 0 },
        }
    }

    /// True when the body is complete. A close-delimited body is never complete before EOF.
    pub fn is_done(&self) -> bool {
        match self {
            BodyDecoder::Empty => true,
            BodyDecoder::Length { remaining } => *remaining == 0,
            BodyDecoder::Chunked(d) => d.is_done(),
            BodyDecoder::Close { .. } => false,
        }
    }

    /// Decodes from `input`, giving body bytes to `on_data`; returns the bytes consumed (the rest
    /// of `input` belongs to the next message).
    pub fn decode<F: FnMut(&[u8])>(
        &mut self,
        input: &[u8],
        mut on_data: F,
    ) -> Result<usize, WireError> {
        match self {
            BodyDecoder::Empty => Ok(0),
            BodyDecoder::Length { remaining } => {
                let take = (input.len() as u64).min(*remaining) as usize;
                if take > 0 {
                    on_data(&input[..take]);
                }
                *remaining -= take as u64;
                Ok(take)
            }
            BodyDecoder::Chunked(d) => d.decode(input, on_data),
            BodyDecoder::Close { read } => {
                if !input.is_empty() {
                    on_data(input);
                }
                *read += input.len() as u64;
                Ok(input.len())
            }
        }
    }

    /// The peer closed the connection: fine for a close-delimited body (which is then complete),
    /// an error for any other body that is not complete yet.
    pub fn finish_on_eof(&mut self) -> Result<(), WireError> {
        match self {
            BodyDecoder::Close { .. } => {
                *self = BodyDecoder::Empty;
                Ok(())
            }
            _ if self.is_done() => Ok(()),
            _ => Err(WireError::IncompleteBody),
        }
    }
}

/// What the framing headers of a message say, before message-specific rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclaredFraming {
    /// Neither Content-Length nor Transfer-Encoding.
    None,
    Length(u64),
    /// Transfer-Encoding whose final coding is `chunked`.
    Chunked,
    /// Transfer-Encoding whose final coding is something else (a response is then close-delimited;
    /// a request must be refused).
    OtherEncoding,
}

/// Reads Content-Length and Transfer-Encoding strictly: both at once, disagreeing or malformed
/// lengths are errors (the shapes behind request smuggling).
pub fn declared_framing(headers: &[httparse::Header<'_>]) -> Result<DeclaredFraming, WireError> {
    let mut length: Option<u64> = None;
    let mut last_coding_chunked: Option<bool> = None;
    for h in headers {
        if h.name.eq_ignore_ascii_case("content-length") {
            let n = parse_content_length(h.value)?;
            match length {
                Some(prev) if prev != n => return Err(WireError::ConflictingContentLength),
                _ => length = Some(n),
            }
        } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
            for coding in h.value.split(|&b| b == b',') {
                let coding = trim(coding);
                if coding.is_empty() {
                    continue;
                }
                last_coding_chunked = Some(coding.eq_ignore_ascii_case(b"chunked"));
            }
            if last_coding_chunked.is_none() {
                return Err(WireError::UnsupportedTransferEncoding);
            }
        }
    }
    match (length, last_coding_chunked) {
        (Some(_), Some(_)) => Err(WireError::LengthAndTransferEncoding),
        (Some(n), None) => Ok(DeclaredFraming::Length(n)),
        (None, Some(true)) => Ok(DeclaredFraming::Chunked),
        (None, Some(false)) => Ok(DeclaredFraming::OtherEncoding),
        (None, None) => Ok(DeclaredFraming::None),
    }
}

/// A Content-Length value: ASCII digits only (no sign, no list), at most 19 of them.
pub fn parse_content_length(value: &[u8]) -> Result<u64, WireError> {
    let v = trim(value);
    if v.is_empty() || v.len() > 19 || !v.iter().all(u8::is_ascii_digit) {
        return Err(WireError::BadContentLength);
    }
    Ok(v.iter()
        .fold(0u64, |acc, &d| acc * 10 + u64::from(d - b'0')))
}

/// Whether a `Connection` header value lists `token` (case-insensitive, comma-separated).
pub fn connection_has(value: &[u8], token: &[u8]) -> bool {
    value
        .split(|&b| b == b',')
        .any(|t| trim(t).eq_ignore_ascii_case(token))
}

fn trim(mut s: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = s {
        s = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = s {
        s = rest;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(framing: Framing, input: &[u8]) -> (Vec<u8>, usize, bool) {
        let mut d = BodyDecoder::new(framing);
        let mut body = Vec::new();
        let n = d.decode(input, |b| body.extend_from_slice(b)).unwrap();
        (body, n, d.is_done())
    }

    #[test]
    fn framings() {
        assert_eq!(run(Framing::Empty, b"abc"), (vec![], 0, true));
        assert_eq!(run(Framing::Length(0), b"abc"), (vec![], 0, true));
        assert_eq!(run(Framing::Length(2), b"abc"), (b"ab".to_vec(), 2, true));
        assert_eq!(run(Framing::Length(5), b"abc"), (b"abc".to_vec(), 3, false));
        assert_eq!(
            run(Framing::Chunked, b"1\r\na\r\n0\r\n\r\nX"),
            (b"a".to_vec(), 11, true)
        );
        assert_eq!(run(Framing::Close, b"abc"), (b"abc".to_vec(), 3, false));
    }

    #[test]
    fn declared() {
        use httparse::Header;
        let h = |n: &'static str, v: &'static str| Header {
            name: n,
            value: v.as_bytes(),
        };
        let cases: &[(&[Header], Result<DeclaredFraming, WireError>)] = &[
            (&[], Ok(DeclaredFraming::None)),
            (
                &[h("Content-Length", " 12 ")],
                Ok(DeclaredFraming::Length(12)),
            ),
            (
                &[h("content-length", "5"), h("Content-Length", "5")],
                Ok(DeclaredFraming::Length(5)),
            ),
            (
                &[h("content-length", "5"), h("Content-Length", "6")],
                Err(WireError::ConflictingContentLength),
            ),
            (
                &[h("content-length", "+5")],
                Err(WireError::BadContentLength),
            ),
            (
                &[h("content-length", "5, 5")],
                Err(WireError::BadContentLength),
            ),
            (&[h("content-length", "")], Err(WireError::BadContentLength)),
            (
                &[h("content-length", "99999999999999999999")],
                Err(WireError::BadContentLength),
            ),
            (
                &[h("Transfer-Encoding", "chunked")],
                Ok(DeclaredFraming::Chunked),
            ),
            (
                &[h("Transfer-Encoding", "gzip, Chunked")],
                Ok(DeclaredFraming::Chunked),
            ),
            (
                &[h("Transfer-Encoding", "chunked, gzip")],
                Ok(DeclaredFraming::OtherEncoding),
            ),
            (
                &[
                    h("Transfer-Encoding", "gzip"),
                    h("Transfer-Encoding", "chunked"),
                ],
                Ok(DeclaredFraming::Chunked),
            ),
            (
                &[h("Transfer-Encoding", " , ")],
                Err(WireError::UnsupportedTransferEncoding),
            ),
            (
                &[h("Transfer-Encoding", "chunked"), h("Content-Length", "3")],
                Err(WireError::LengthAndTransferEncoding),
            ),
        ];
        for (headers, want) in cases {
            assert_eq!(&declared_framing(headers), want, "{headers:?}");
        }
        assert!(connection_has(b"Keep-Alive, Upgrade", b"upgrade"));
        assert!(connection_has(b" close ", b"close"));
        assert!(!connection_has(b"closed", b"close"));
    }

    #[test]
    fn eof() {
        let mut close = BodyDecoder::new(Framing::Close);
        close.decode(b"xyz", |_| {}).unwrap();
        assert_eq!(close.finish_on_eof(), Ok(()));
        assert!(close.is_done());
        let mut short = BodyDecoder::new(Framing::Length(10));
        short.decode(b"xyz", |_| {}).unwrap();
        assert_eq!(short.finish_on_eof(), Err(WireError::IncompleteBody));
        let mut chunked = BodyDecoder::new(Framing::Chunked);
        chunked.decode(b"5\r\nab", |_| {}).unwrap();
        assert_eq!(chunked.finish_on_eof(), Err(WireError::IncompleteBody));
    }
}

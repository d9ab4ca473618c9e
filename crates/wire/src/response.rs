//! Client side: parsing a response head and deciding how its body is framed.

use crate::body::{connection_has, declared_framing, DeclaredFraming};
use crate::{Framing, WireError, MAX_HEADERS};

/// What the load engine needs from a response head; it borrows nothing, so the read buffer can
/// be reused at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResponseHead {
    pub status: u16,
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    pub version_minor: u8,
    pub framing: Framing,
    /// Whether the connection may carry another request after this response.
    pub keep_alive: bool,
    /// Length of the head in bytes, up to and including the blank line.
    pub head_len: usize,
}

impl ResponseHead {
    /// 1xx responses (other than 101) are interim: the real response follows on the same
    /// connection.
    pub fn is_interim(&self) -> bool {
        (100..200).contains(&self.status) && self.status != 101
    }
}

/// Parses a response head from the start of `buf`. `Ok(None)` means more bytes are needed.
/// `request_was_head` must be true when answering a HEAD request (such responses have no body
/// whatever their headers say).
pub fn parse_response_head(
    buf: &[u8],
    request_was_head: bool,
) -> Result<Option<ResponseHead>, WireError> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut resp = httparse::Response::new(&mut headers);
    let head_len = match resp.parse(buf)? {
        httparse::Status::Complete(n) => n,
        httparse::Status::Partial => return Ok(None),
    };
    let status = resp.code.ok_or(WireError::Head("missing status"))?;
    let version_minor = resp.version.ok_or(WireError::Head("missing version"))?;
    let mut close = version_minor == 0;
    for h in resp.headers.iter() {
        if h.name.eq_ignore_ascii_case("connection") {
            if connection_has(h.value, b"close") {
                close = true;
            } else if connection_has(h.value, b"keep-alive") {
                close = false;
            }
        }
    }
    let no_body =
        request_was_head || (100..200).contains(&status) || status == 204 || status == 304;
    let framing = if no_body {
        Framing::Empty
    } else {
        match declared_framing(resp.headers)? {
            DeclaredFraming::Length(n) => Framing::Length(n),
            DeclaredFraming::Chunked => Framing::Chunked,
            DeclaredFraming::None | DeclaredFraming::OtherEncoding => Framing::Close,
        }
    };
    let keep_alive = !close && framing != Framing::Close;
    Ok(Some(ResponseHead {
        status,
        version_minor,
        framing,
        keep_alive,
        head_len,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BodyDecoder;
    use proptest::prelude::*;

    /// Parses a whole stream of responses (head + body, repeated), fed in the given pieces, the
    /// way the engine does: accumulate until a head parses, then stream the body.
    fn parse_stream(wire: &[u8], cuts: &[usize]) -> Result<Vec<(u16, Vec<u8>)>, WireError> {
        let mut out = Vec::new();
        let mut buf: Vec<u8> = Vec::new();
        let mut body: Option<(u16, BodyDecoder, Vec<u8>)> = None;
        let mut points: Vec<usize> = cuts.iter().copied().filter(|&c| c <= wire.len()).collect();
        points.push(wire.len());
        points.sort_unstable();
        let mut pos = 0;
        for p in points {
            buf.extend_from_slice(&wire[pos..p.max(pos)]);
            pos = p.max(pos);
            loop {
                if let Some((_, dec, got)) = body.as_mut() {
                    let n = dec.decode(&buf, |b| got.extend_from_slice(b))?;
                    buf.drain(..n);
                    if dec.is_done() {
                        let (s, _, g) = body.take().unwrap();
                        out.push((s, g));
                        continue;
                    }
                    break;
                }
                match parse_response_head(&buf, false)? {
                    None => break,
                    Some(h) => {
                        buf.drain(..h.head_len);
                        body = Some((h.status, BodyDecoder::new(h.framing), Vec::new()));
                    }
                }
            }
        }
        if let Some((s, mut dec, g)) = body.take() {
            dec.finish_on_eof()?;
            out.push((s, g));
        }
        Ok(out)
    }

    const STREAM: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello\
HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\nT: 1\r\n\r\n\
HTTP/1.1 204 No Content\r\nContent-Length: 99\r\n\r\n\
HTTP/1.0 200 OK\r\n\r\nuntil close";

    #[test]
    fn stream_whole() {
        let got = parse_stream(STREAM, &[]).unwrap();
        assert_eq!(
            got,
            vec![
                (200, b"hello".to_vec()),
                (201, b"abc".to_vec()),
                (204, vec![]),
                (200, b"until close".to_vec())
            ]
        );
    }

    #[test]
    fn stream_split_at_every_boundary() {
        let whole = parse_stream(STREAM, &[]).unwrap();
        for cut in 0..=STREAM.len() {
            assert_eq!(parse_stream(STREAM, &[cut]).unwrap(), whole, "cut at {cut}");
        }
        let every: Vec<usize> = (0..STREAM.len()).collect();
        assert_eq!(parse_stream(STREAM, &every).unwrap(), whole);
    }

    #[test]
    fn heads() {
        let h = parse_response_head(
            b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
            false,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (h.status, h.keep_alive, h.framing, h.head_len),
            (200, false, Framing::Length(2), 57)
        );
        let h = parse_response_head(
            b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n",
            false,
        )
        .unwrap()
        .unwrap();
        assert!(h.keep_alive);
        let h = parse_response_head(b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n", true)
            .unwrap()
            .unwrap();
        assert_eq!(h.framing, Framing::Empty);
        let h = parse_response_head(b"HTTP/1.1 100 Continue\r\n\r\n", false)
            .unwrap()
            .unwrap();
        assert!(h.is_interim());
        assert_eq!(
            parse_response_head(b"HTTP/1.1 200 OK\r\nContent-Le", false),
            Ok(None)
        );
        assert!(parse_response_head(b"HTTP/1.1 2000 OK\r\n\r\n", false).is_err());
        assert!(parse_response_head(b"garbage\r\n\r\n", false).is_err());
        assert_eq!(
            parse_response_head(b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", false),
            Err(WireError::BadContentLength)
        );
    }

    #[test]
    fn truncated_bodies_are_errors() {
        assert_eq!(
            parse_stream(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel", &[]),
            Err(WireError::IncompleteBody)
        );
        assert_eq!(
            parse_stream(
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
                &[]
            ),
            Err(WireError::IncompleteBody)
        );
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(input in proptest::collection::vec(any::<u8>(), 0..300), cut in 0usize..300) {
            let _ = parse_stream(&input, &[cut]);
        }

        #[test]
        fn random_splits_agree(cuts in proptest::collection::vec(0usize..STREAM.len(), 0..10)) {
            prop_assert_eq!(parse_stream(STREAM, &cuts).unwrap(), parse_stream(STREAM, &[]).unwrap());
        }
    }
}

//! Fuzzes the server's request parser with every tokeniser (httparse, picohttpparser,
//! http-parser): head parsing (strict framing rules, size limit) and the body that follows, the
//! way the server consumes a stream of pipelined requests; and the three must agree — the same
//! head whenever one completes it, errors of the same status (a C parser may still wait on a
//! malformed prefix that httparse refuses). http-parser's own, documented refusals of what httparse
//! takes (methods outside its list, targets outside its URL grammar, a tab after a
//! Content-Length, a Content-Length beside a `Transfer-Encoding...` field) are the only
//! exceptions.

use barrage_wire::{header_slots, BodyDecoder, Framing, Parser, RequestError, WireError};

/// What a server keeps of a parsed head.
#[derive(Debug, PartialEq)]
struct Head {
    method: String,
    target: String,
    minor: u8,
    headers: Vec<(String, Vec<u8>)>,
    framing: Framing,
    keep_alive: bool,
    expect: bool,
    head_len: usize,
}

fn head(parser: Parser, buf: &[u8], limit: usize) -> Result<Option<Head>, RequestError> {
    let mut slots = header_slots();
    Ok(parser.parse_head(buf, &mut slots, limit)?.map(|h| Head {
        method: h.method.into(),
        target: h.target.into(),
        minor: h.version_minor,
        headers: h
            .headers
            .iter()
            .map(|x| (x.name.to_string(), x.value.to_vec()))
            .collect(),
        framing: h.framing,
        keep_alive: h.keep_alive,
        expect: h.expect_continue,
        head_len: h.head_len,
    }))
}

/// http-parser's documented refusals of heads httparse accepts (docs/serve.md): methods and
/// targets outside its grammar, a tab after a Content-Length, and a Content-Length beside a
/// field whose name starts with `Transfer-Encoding` (`Transfer-Encodingst`), which it takes
/// for one.
fn http_parser_may_refuse(head: &Head, e: &RequestError) -> bool {
    match e {
        RequestError::Malformed(
            WireError::Head("HPE_INVALID_METHOD" | "HPE_INVALID_URL") | WireError::BadContentLength,
        ) => true,
        RequestError::Malformed(
            WireError::ConflictingContentLength | WireError::LengthAndTransferEncoding,
        ) => head.headers.iter().any(|(n, _)| {
            n.len() > 17 && n.as_bytes()[..17].eq_ignore_ascii_case(b"transfer-encoding")
        }),
        _ => false,
    }
}

fn agree(buf: &[u8], limit: usize) {
    let reference = head(Parser::Httparse, buf, limit);
    for parser in [Parser::Picohttpparser, Parser::HttpParser] {
        let other = head(parser, buf, limit);
        match (&reference, &other) {
            (Err(a), Err(b)) => assert_eq!(a.status(), b.status(), "{parser}: {a} vs {b}"),
            (Err(_), Ok(None)) => {}
            (Ok(Some(h)), Err(e))
                if parser == Parser::HttpParser && http_parser_may_refuse(h, e) => {}
            (a, b) => assert_eq!(a, b, "{parser}"),
        }
    }
}

/// The server's loop over one buffer with one parser, checking the invariants.
fn stream(parser: Parser, mut rest: &[u8], limit: usize) {
    for _ in 0..64 {
        agree(rest, limit);
        let mut headers = header_slots();
        let head = match parser.parse_head(rest, &mut headers, limit) {
            Ok(Some(h)) => h,
            Ok(None) => {
                assert!(
                    rest.len() < limit,
                    "a partial head past the limit must be refused"
                );
                return;
            }
            Err(e) => {
                assert!(matches!(e.status(), 400 | 431));
                return;
            }
        };
        assert!(head.head_len <= rest.len() && head.head_len <= limit);
        assert!(
            head.framing != Framing::Close,
            "requests are never close-delimited"
        );
        let framing = head.framing;
        rest = &rest[head.head_len..];
        let mut body = BodyDecoder::new(framing);
        let mut seen = 0u64;
        match body.decode(rest, |b| seen += b.len() as u64) {
            Ok(used) => {
                assert!(used <= rest.len());
                if let Framing::Length(n) = framing {
                    assert!(seen <= n);
                }
                if !body.is_done() {
                    return;
                }
                rest = &rest[used..];
            }
            Err(_) => return,
        }
    }
}

pub fn run(data: &[u8]) {
    // The first byte picks the head size limit, so 431 paths are exercised too.
    let (limit, rest) = match data.split_first() {
        Some((&b, rest)) => (64 + usize::from(b) * 64, rest),
        None => return,
    };
    for parser in Parser::ALL {
        stream(parser, rest, limit);
    }
}

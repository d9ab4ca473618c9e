//! The request head parser's tests, run with every parser compiled in: each case is parsed by
//! all of them, which must give the same head (or the same error status), and the expectations
//! are checked on that common answer.

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
    headers: Vec<(String, Vec<u8>)>,
}

#[cfg(feature = "parser-http-parser")]
mod stream;

fn parse_with(parser: Parser, buf: &[u8], limit: usize) -> Result<Option<Summary>, RequestError> {
    let mut headers = header_slots();
    Ok(parser
        .parse_head(buf, &mut headers, limit)?
        .map(|h| Summary {
            method: h.method.to_string(),
            target: h.target.to_string(),
            minor: h.version_minor,
            framing: h.framing,
            keep_alive: h.keep_alive,
            expect: h.expect_continue,
            head_len: h.head_len,
            headers: h
                .headers
                .iter()
                .map(|x| (x.name.to_string(), x.value.to_vec()))
                .collect(),
        }))
}

/// httparse's answer, after checking that every other compiled parser gives the same head, or
/// an error of the same status.
fn parse(buf: &[u8], limit: usize) -> Result<Option<Summary>, RequestError> {
    let reference = parse_with(Parser::Httparse, buf, limit);
    for parser in Parser::compiled().skip(1) {
        let other = parse_with(parser, buf, limit);
        match (&reference, &other) {
            (Err(a), Err(b)) => assert_eq!(
                a.status(),
                b.status(),
                "{parser} on {:?}: {a} vs {b}",
                String::from_utf8_lossy(buf)
            ),
            _ => assert_eq!(
                reference,
                other,
                "{parser} on {:?}",
                String::from_utf8_lossy(buf)
            ),
        }
    }
    reference
}

/// A parsed head without its header lines, to compare with [`ok`].
fn bare(r: Result<Option<Summary>, RequestError>) -> Summary {
    Summary {
        headers: Vec::new(),
        ..r.unwrap().unwrap()
    }
}

fn ok(method: &str, target: &str, minor: u8, framing: Framing, ka: bool, len: usize) -> Summary {
    Summary {
        method: method.into(),
        target: target.into(),
        minor,
        framing,
        keep_alive: ka,
        expect: false,
        head_len: len,
        headers: Vec::new(),
    }
}

#[test]
fn good_requests() {
    let r = b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /next";
    assert_eq!(
        bare(parse(r, 8192)),
        ok("GET", "/", 1, Framing::Empty, true, 27)
    );
    let r = b"POST /ping HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nping";
    assert_eq!(
        bare(parse(r, 8192)),
        ok("POST", "/ping", 1, Framing::Length(4), true, 51)
    );
    let r = b"POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    let s = parse(r, 8192).unwrap().unwrap();
    assert_eq!((s.framing, s.keep_alive), (Framing::Chunked, false));
    let r = b"GET /x?y=1 HTTP/1.0\r\n\r\n";
    assert_eq!(
        bare(parse(r, 8192)),
        ok("GET", "/x?y=1", 0, Framing::Empty, false, r.len())
    );
    let r = b"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n";
    assert!(parse(r, 8192).unwrap().unwrap().keep_alive);
    let r = b"PUT /echo HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 9\r\n\r\n";
    assert!(parse(r, 8192).unwrap().unwrap().expect);
}

#[test]
fn header_lines_in_order_with_values_trimmed() {
    let r = b"GET /h HTTP/1.1\r\nHost:a\r\nX-Pad:  \t spaced \t \r\nEmpty:\r\nX-Pad: 2\r\nObs: caf\xc3\xa9 \xff\r\n\r\n";
    let got = parse(r, 8192).unwrap().unwrap();
    let want: Vec<(String, Vec<u8>)> = [
        ("Host", &b"a"[..]),
        ("X-Pad", b"spaced"),
        ("Empty", b""),
        ("X-Pad", b"2"),
        ("Obs", b"caf\xc3\xa9 \xff"),
    ]
    .iter()
    .map(|(n, v)| (n.to_string(), v.to_vec()))
    .collect();
    assert_eq!(got.headers, want);
    assert_eq!(got.head_len, r.len());
}

#[test]
fn leading_empty_lines_and_odd_but_valid_shapes() {
    // Empty lines before a request (after a body, some clients add CRLF) are skipped.
    let r = b"\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n";
    assert_eq!(
        bare(parse(r, 8192)),
        ok("GET", "/", 1, Framing::Empty, true, r.len())
    );
    let r = b"DELETE /a%20b?x=%2F&y=\xc3\xa9#frag HTTP/1.1\r\nHost: a\r\n\r\n";
    assert_eq!(
        bare(parse(r, 8192)),
        ok(
            "DELETE",
            "/a%20b?x=%2F&y=\u{e9}#frag",
            1,
            Framing::Empty,
            true,
            r.len()
        )
    );
    let r = b"OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n";
    assert_eq!(bare(parse(r, 8192)).target, "*");
    let r = b"GET http://a.example/x HTTP/1.1\r\nHost: a.example\r\n\r\n";
    assert_eq!(bare(parse(r, 8192)).target, "http://a.example/x");
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
        e400(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nContent-Length: 4\r\n\r\n"),
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
    e400(b"GET / HTTP/1.1\r\nHost: a\r\nEmpty:\r\n folded\r\n\r\n");
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
    // Malformed and past the limit: every parser gives httparse's answer, 400 when httparse has
    // already found the fault, else 431 (picohttpparser would wait on the first, http-parser
    // refuse the second's method at once).
    let mut r = b"o\xff".to_vec();
    r.extend(std::iter::repeat_n(b'x', 200));
    assert_eq!(parse(&r, 100).unwrap_err().status(), 400);
    let mut r = b"BREW /".to_vec();
    r.extend(std::iter::repeat_n(b'x', 200));
    assert_eq!(parse(&r, 100).unwrap_err().status(), 431);
}

/// The parsers agree on `buf` as far as a server can tell: the same head when one completes
/// it, errors of the same status. A C parser may still wait on a malformed prefix that httparse
/// refuses (it refuses too once the head is complete or the limit is reached), so its "need
/// more" against httparse's error passes; never the other way round.
fn agree(buf: &[u8], limit: usize) -> Result<(), String> {
    let reference = parse_with(Parser::Httparse, buf, limit);
    for parser in Parser::compiled().skip(1) {
        let other = parse_with(parser, buf, limit);
        let same = match (&reference, &other) {
            (Err(a), Err(b)) => a.status() == b.status(),
            (Err(_), Ok(None)) => true,
            (Ok(Some(head)), Err(e))
                if matches!(parser, Parser::HttpParser | Parser::HttpParserStream) =>
            {
                http_parser_refuses(head, e)
            }
            (a, b) => a == b,
        };
        if !same {
            return Err(format!(
                "{parser} on {:?}: httparse {reference:?}, {parser} {other:?}",
                String::from_utf8_lossy(buf)
            ));
        }
    }
    Ok(())
}

/// http-parser's own rules, stricter than httparse's and documented (docs/serve.md): it knows
/// a fixed list of methods and a URL grammar (origin form, `*`, absolute form; authority form
/// for CONNECT only), takes no tab after a Content-Length's digits, and counts a field whose
/// name starts with `Transfer-Encoding` (`Transfer-Encodingst`) as one, so with a
/// Content-Length it refuses the head.
fn http_parser_refuses(head: &Summary, e: &RequestError) -> bool {
    const METHODS: &[&str] = &[
        "DELETE",
        "GET",
        "HEAD",
        "POST",
        "PUT",
        "CONNECT",
        "OPTIONS",
        "TRACE",
        "COPY",
        "LOCK",
        "MKCOL",
        "MOVE",
        "PROPFIND",
        "PROPPATCH",
        "SEARCH",
        "UNLOCK",
        "BIND",
        "REBIND",
        "UNBIND",
        "ACL",
        "REPORT",
        "MKACTIVITY",
        "CHECKOUT",
        "MERGE",
        "M-SEARCH",
        "NOTIFY",
        "SUBSCRIBE",
        "UNSUBSCRIBE",
        "PATCH",
        "PURGE",
        "MKCALENDAR",
        "LINK",
        "UNLINK",
        "SOURCE",
    ];
    match e {
        RequestError::Malformed(WireError::Head("HPE_INVALID_METHOD")) => {
            !METHODS.contains(&head.method.as_str())
        }
        RequestError::Malformed(WireError::Head("HPE_INVALID_URL")) => true,
        // Its Content-Length grammar takes spaces after the digits, not tabs.
        RequestError::Malformed(WireError::BadContentLength) => true,
        RequestError::Malformed(
            WireError::ConflictingContentLength | WireError::LengthAndTransferEncoding,
        ) => transfer_encoding_prefix(&head.headers),
        _ => false,
    }
}

/// Found by the `request` fuzz target: a blank continuation line after an empty value
/// (`ty:` then ` `), which httparse and picohttpparser refuse, went through http-parser (it
/// calls back nothing for it).
#[test]
fn every_parser_refuses_a_blank_continuation_of_an_empty_value() {
    for r in [
        &b"GET /x HTTP/1.1\r\nty:\r\n \r\nHost: a\r\n\r\n"[..],
        b"GET /x HTTP/1.1\r\nHost: a\r\nty:\r\n\t\r\n\r\n",
    ] {
        for parser in Parser::ALL {
            let e = parse_with(parser, r, 4096).unwrap_err();
            assert_eq!(e.status(), 400, "{parser}: {e}");
        }
    }
}

/// A field named `Transfer-Encoding` and more, which http-parser takes for Transfer-Encoding.
fn transfer_encoding_prefix(headers: &[(String, Vec<u8>)]) -> bool {
    headers
        .iter()
        .any(|(n, _)| n.len() > 17 && n.as_bytes()[..17].eq_ignore_ascii_case(b"transfer-encoding"))
}

/// Found by the `request` fuzz target: http-parser marks Transfer-Encoding as soon as a name's
/// first 17 bytes match it, so `Transfer-Encodingst` with a Content-Length is refused (400)
/// where httparse and picohttpparser frame the body by its length.
#[test]
fn http_parser_takes_a_longer_name_for_transfer_encoding() {
    let r = b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encodingst: a\r\nContent-Length: 3\r\n\r\nabc";
    for parser in [Parser::Httparse, Parser::Picohttpparser] {
        let h = parse_with(parser, r, 4096).unwrap().unwrap();
        assert_eq!(h.framing, Framing::Length(3), "{parser}");
    }
    let e = parse_with(Parser::HttpParser, r, 4096).unwrap_err();
    assert_eq!(
        e,
        RequestError::Malformed(WireError::ConflictingContentLength)
    );
    assert_eq!(e.status(), 400);
    let h = parse_with(Parser::Httparse, r, 4096).unwrap().unwrap();
    assert!(http_parser_refuses(&h, &e));
}

/// Bytes that matter to a request head's grammar, for mutations.
const INTERESTING: &[u8] = b" \t\r\n:/?#%*@aZ0H1.,;=\"()<>[]{}\\\x00\x01\x7f\x80\xc3\xff";

proptest! {
    /// Any bytes: no panic, and the parsers agree.
    #[test]
    fn garbage_never_panics(input in proptest::collection::vec(any::<u8>(), 0..300)) {
        agree(&input, 256).map_err(TestCaseError::fail)?;
    }

    /// Valid requests with a few bytes replaced, inserted or deleted: the parsers agree.
    #[test]
    fn mutated_requests_agree(
        pick in 0usize..4,
        edits in proptest::collection::vec((0usize..3, any::<prop::sample::Index>(), prop::sample::select(INTERESTING)), 1..4),
    ) {
        let bases: [&[u8]; 4] = [
            b"GET /a/b?c=d HTTP/1.1\r\nHost: h\r\nUser-Agent: x/1.0\r\n\r\n",
            b"POST /ping HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nping",
            b"PUT /echo HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n",
            b"\r\nHEAD / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nX: a, b\r\n\r\n",
        ];
        let mut r = bases[pick].to_vec();
        for (kind, at, byte) in edits {
            let i = at.index(r.len());
            match kind {
                0 => r[i] = byte,
                1 => r.insert(i, byte),
                _ => { r.remove(i); }
            }
        }
        agree(&r, 8192).map_err(TestCaseError::fail)?;
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

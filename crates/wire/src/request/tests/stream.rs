//! http-parser driven across reads ([`HeadParser`] with [`Parser::HttpParserStream`]) against
//! the one-shot form: whatever the reads, at every read the stream gives what a fresh parser
//! gives on all the bytes so far — "need more" while the head is incomplete, then the same head
//! (or the same refusal) at the same byte. A request split at every byte parses the same.

use super::*;

fn summary(
    r: Result<Option<RequestHead<'_, '_>>, RequestError>,
) -> Result<Option<Summary>, RequestError> {
    Ok(r?.map(|h| Summary {
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

/// Feeds `r` to one stream as reads ending at `cuts` (then the rest), each read's buffer a fresh
/// copy (as the server's buffer moves between reads), checking each answer against the one-shot
/// parser on the same bytes; returns the answer that ended the head.
fn feed(r: &[u8], cuts: &[usize], limit: usize) -> Result<Option<Summary>, RequestError> {
    let mut stream = HeadParser::new(Parser::HttpParserStream);
    let mut ends: Vec<usize> = cuts.iter().map(|&c| c.min(r.len())).collect();
    ends.push(r.len());
    ends.dedup();
    let mut last = Ok(None);
    for end in ends {
        let bytes = r[..end].to_vec();
        let mut headers = header_slots();
        let got = summary(stream.parse_head(&bytes, &mut headers, limit));
        let want = parse_with(Parser::HttpParser, &bytes, limit);
        assert_eq!(
            got,
            want,
            "read ending at byte {end} of {:?} (cuts {cuts:?})",
            String::from_utf8_lossy(r)
        );
        if !matches!(got, Ok(None)) {
            return got;
        }
        last = got;
    }
    last
}

const REQUESTS: &[&[u8]] = &[
    b"GET /a/b?c=d HTTP/1.1\r\nHost: h\r\nUser-Agent: x/1.0\r\nAccept: */*\r\n\r\n",
    b"POST /ping HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nping",
    b"\r\n\r\nHEAD / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nX: a, b\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: h\r\nX-Empty:\r\nX-Long: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n",
    // Refused: a folded value, a repeated Content-Length, a bare LF, an unknown method,
    // Transfer-Encoding in HTTP/1.0.
    b"GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n",
    b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx",
    b"GET / HTTP/1.1\nHost: h\r\n\r\n",
    b"BREW /pot HTTP/1.1\r\nHost: h\r\n\r\n",
    b"PUT /echo HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n",
];

/// Every request, one byte per read: the same answer as the one-shot parser at every read, and
/// the same head (or refusal) as on the whole request at once.
#[test]
fn a_request_split_at_every_byte_parses_the_same() {
    for r in REQUESTS {
        let every: Vec<usize> = (1..r.len()).collect();
        let split = feed(r, &every, 8192);
        let whole = parse_with(Parser::HttpParser, r, 8192);
        assert_eq!(split, whole, "{:?}", String::from_utf8_lossy(r));
    }
    // The good ones are heads; the rest refusals.
    for r in &REQUESTS[..4] {
        assert!(parse_with(Parser::HttpParserStream, r, 8192)
            .unwrap()
            .is_some());
    }
    for r in &REQUESTS[4..] {
        assert_eq!(
            parse_with(Parser::HttpParserStream, r, 8192)
                .unwrap_err()
                .status(),
            400
        );
    }
}

/// Every request in two reads, cut at every byte.
#[test]
fn a_request_in_two_reads_cut_anywhere_parses_the_same() {
    for r in REQUESTS {
        let whole = parse_with(Parser::HttpParser, r, 8192);
        for cut in 0..=r.len() {
            assert_eq!(feed(r, &[cut], 8192), whole, "cut {cut}");
        }
    }
}

/// Pipelined heads through one stream: after a complete head the stream starts the next one
/// where the caller's buffer now starts.
#[test]
fn one_stream_reads_head_after_head() {
    let mut stream = HeadParser::new(Parser::HttpParserStream);
    let two = b"GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\n";
    let mut pos = 0;
    let mut targets = Vec::new();
    // Reads of 7 bytes; the unconsumed bytes stay at the front of the buffer.
    let mut end = 0;
    while pos < two.len() {
        end = (end + 7).min(two.len());
        loop {
            let mut headers = header_slots();
            match stream
                .parse_head(&two[pos..end], &mut headers, 8192)
                .unwrap()
            {
                Some(h) => {
                    targets.push(h.target.to_string());
                    pos += h.head_len;
                }
                None => break,
            }
        }
    }
    assert_eq!(targets, ["/1", "/2"]);
}

/// A head longer than the limit is refused with 431 in pieces as at once.
#[test]
fn the_limit_holds_across_reads() {
    let mut r = b"GET / HTTP/1.1\r\nHost: h\r\n".to_vec();
    r.extend(std::iter::repeat_n(b'a', 300));
    let every: Vec<usize> = (1..r.len()).step_by(13).collect();
    let e = feed(&r, &every, 128).unwrap_err();
    assert_eq!(e.status(), 431);
}

proptest! {
    /// Mutated requests, in up to four reads cut anywhere: the stream answers as the one-shot
    /// parser does on the same bytes, at every read.
    #[test]
    fn mutated_requests_in_pieces(
        pick in 0usize..4,
        edits in proptest::collection::vec((0usize..3, any::<prop::sample::Index>(), prop::sample::select(INTERESTING)), 0..4),
        cuts in proptest::collection::vec(0usize..120, 0..4),
    ) {
        let mut r = REQUESTS[pick].to_vec();
        for (kind, at, byte) in edits {
            let i = at.index(r.len());
            match kind {
                0 => r[i] = byte,
                1 => r.insert(i, byte),
                _ => { r.remove(i); }
            }
        }
        let mut cuts = cuts;
        cuts.sort_unstable();
        // `feed` checks every read against the one-shot parser.
        let _ = feed(&r, &cuts, 8192);
    }
}

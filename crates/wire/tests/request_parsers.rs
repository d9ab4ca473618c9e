//! barrage's request parser with each of its tokenisers (`Parser`: httparse, picohttpparser,
//! http-parser, and http-parser kept across reads, through a `HeadParser` per stream as the
//! server holds one per connection) reads a stream of requests the way the server does — head, then the body through
//! the body decoder, then the next head — and must see the same requests: method, target,
//! version, headers, framing, keep-alive, body. The stream arrives whole, and split in two at
//! every byte (a partial head or body waits for more); pipelined buffers hold up to 16 requests.

#[path = "../benches/duel/corpus.rs"]
#[allow(dead_code)]
mod corpus;

use barrage_wire::{header_slots, BodyDecoder, Framing, HeadParser, Parser};

#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    method: String,
    target: String,
    minor: u8,
    headers: Vec<(String, Vec<u8>)>,
    framing: Framing,
    keep_alive: bool,
    body: Vec<u8>,
}

/// The server's loop over what has arrived so far: complete requests are taken off the front;
/// an error status ends the stream.
#[derive(Default)]
struct Stream {
    input: Vec<u8>,
    seen: Vec<Seen>,
    body: Option<(BodyDecoder, Seen)>,
    error: Option<u16>,
    /// The stream's parser, with what it keeps between reads.
    head: Option<HeadParser>,
}

impl Stream {
    fn feed(&mut self, parser: Parser, bytes: &[u8]) {
        self.input.extend_from_slice(bytes);
        while self.error.is_none() {
            if let Some((dec, seen)) = &mut self.body {
                let used = match dec.decode(&self.input, |b| seen.body.extend_from_slice(b)) {
                    Ok(n) => n,
                    Err(_) => {
                        self.error = Some(400);
                        return;
                    }
                };
                self.input.drain(..used);
                if !dec.is_done() {
                    return;
                }
                let (_, seen) = self.body.take().expect("present");
                self.seen.push(seen);
                continue;
            }
            if self.input.is_empty() {
                return;
            }
            let mut slots = header_slots();
            let head = self.head.get_or_insert_with(|| HeadParser::new(parser));
            let (seen, len) = match head.parse_head(&self.input, &mut slots, 16 * 1024) {
                Ok(None) => return,
                Err(e) => {
                    self.error = Some(e.status());
                    return;
                }
                Ok(Some(h)) => (
                    Seen {
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
                        body: Vec::new(),
                    },
                    h.head_len,
                ),
            };
            self.input.drain(..len);
            self.body = Some((BodyDecoder::new(seen.framing), seen));
        }
    }

    /// Requests read, and the error status if the stream was refused. A body that is still
    /// arriving (or a head) counts as not read.
    fn result(self) -> (Vec<Seen>, Option<u16>) {
        (self.seen, self.error)
    }
}

fn whole(parser: Parser, bytes: &[u8]) -> (Vec<Seen>, Option<u16>) {
    let mut s = Stream::default();
    s.feed(parser, bytes);
    s.result()
}

/// The stream, whole and split at every byte, must read the same with every parser; returns
/// what httparse read whole.
fn same_everywhere(name: &str, bytes: &[u8]) -> (Vec<Seen>, Option<u16>) {
    let reference = whole(Parser::Httparse, bytes);
    assert!(
        Parser::compiled().count() == Parser::ALL.len(),
        "the tests build every parser"
    );
    for parser in Parser::compiled() {
        assert_eq!(whole(parser, bytes), reference, "{parser} on {name}");
        for cut in 0..=bytes.len() {
            let mut s = Stream::default();
            s.feed(parser, &bytes[..cut]);
            s.feed(parser, &bytes[cut..]);
            let got = s.result();
            if reference.1.is_some() {
                // A refused stream: the same status (a C parser may refuse a malformed prefix
                // before the head is complete, so what was read before may differ only there).
                assert_eq!(got.1, reference.1, "{parser} on {name}, cut at {cut}");
            } else {
                assert_eq!(got, reference, "{parser} on {name}, cut at {cut}");
            }
        }
    }
    reference
}

#[test]
fn the_duel_corpus_reads_the_same_with_every_parser_at_every_split() {
    for case in corpus::corpus() {
        let (seen, error) = same_everywhere(case.name, &case.bytes);
        assert_eq!(error, None, "{}", case.name);
        assert_eq!(seen.len(), case.requests, "{}", case.name);
    }
}

#[test]
fn keep_alive_and_pipelined_gets_like_the_study_sends() {
    let get = b"GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n";
    let (seen, error) = same_everywhere("keep-alive GET", get);
    assert_eq!(error, None);
    assert_eq!(seen.len(), 1);
    assert_eq!(
        (seen[0].method.as_str(), seen[0].target.as_str()),
        ("GET", "/")
    );
    assert_eq!(
        (seen[0].framing, seen[0].keep_alive, seen[0].minor),
        (Framing::Empty, true, 1)
    );
    let sixteen = get.repeat(16);
    let (seen, error) = same_everywhere("pipelined 16", &sixteen);
    assert_eq!((seen.len(), error), (16, None));
    assert!(seen.iter().all(|s| *s == seen[0]));
}

#[test]
fn bodies_chunked_and_connection_close_in_one_stream() {
    let stream = b"POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n\
        4\r\nping\r\n3;x=y\r\n-ok\r\n0\r\nTrailer: t\r\n\r\n\
        \r\n\
        PUT /up HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhello\
        GET /x?q=1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n\
        GET /last HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n";
    let (seen, error) = same_everywhere("mixed", stream);
    assert_eq!(error, None);
    let got: Vec<(&str, Framing, bool, &[u8])> = seen
        .iter()
        .map(|s| {
            (
                s.target.as_str(),
                s.framing,
                s.keep_alive,
                s.body.as_slice(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("/echo", Framing::Chunked, true, &b"ping-ok"[..]),
            ("/up", Framing::Length(5), true, b"hello"),
            ("/x?q=1", Framing::Empty, true, b""),
            ("/last", Framing::Empty, false, b""),
        ]
    );
}

#[test]
fn malformed_streams_are_refused_with_the_same_status() {
    let good = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
    let bad: &[(&str, u16)] = &[
        ("GET / HTTP/1.1\nHost: a\n\n", 400),
        ("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: \x01\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\n\r ", 400),
        ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\n\r\n", 400),
        (
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx",
            400,
        ),
        (
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: x\r\n\r\n",
            400,
        ),
        (
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
            400,
        ),
        (
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n",
            400,
        ),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        (
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            400,
        ),
        ("\x00\x01\x02 garbage\r\n\r\n", 400),
    ];
    for (req, status) in bad {
        // After a good request, as the second of a pipeline.
        let stream = format!("{good}{req}");
        let (seen, error) = same_everywhere(req, stream.as_bytes());
        assert_eq!((seen.len(), error), (1, Some(*status)), "{req:?}");
    }
    let mut many = String::from("GET / HTTP/1.1\r\nHost: a\r\n");
    for i in 0..=barrage_wire::MAX_HEADERS {
        many.push_str(&format!("X-{i}: v\r\n"));
    }
    many.push_str("\r\n");
    assert_eq!(
        same_everywhere("101 headers", many.as_bytes()),
        (Vec::new(), Some(431))
    );
}

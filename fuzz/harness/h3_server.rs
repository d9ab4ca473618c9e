//! HTTP/3's server request path (`barrage_wire::h3::server::request::Request`, what a request
//! stream's bytes go through in the server session): the input read as a client's request
//! stream, decoded with a table of 0 (what the server announces), fed whole, split at random
//! points and a byte at a time, with the stream's end after them.
//!
//! Input: 2 control bytes, then the stream's bytes.
//! - `c0`: a field section limit of 512 bytes (bit 0, else 16 KiB);
//! - `c1`: the seed of the split points.
//!
//! Checked: no panic; the three feeds hand on the same head and body bytes and reach the same
//! step, end or error; the body handed on never passes a `content-length` the head gave.

use barrage_wire::h3::qpack::Decoder;
use barrage_wire::h3::server::request::{Part, Request, Step};

use crate::split::{cuts, Feed};

/// What one feed came to: the head (debug form), the body, and the outcome.
type Outcome = (Option<String>, Vec<u8>, String);

fn feed_all(stream: &[u8], c0: u8, feed: Feed) -> Outcome {
    let limit = if c0 & 1 != 0 { 512 } else { 16 * 1024 };
    let mut q = Decoder::new(0, 0, Some(limit));
    let mut r = Request::new();
    let mut head = None;
    let mut length = None;
    let mut body = Vec::new();
    let parts: Vec<&[u8]> = match feed {
        Feed::Whole => vec![stream],
        Feed::Bytewise => stream.chunks(1).collect(),
        Feed::Split(seed) => {
            let mut v = Vec::new();
            let mut at = 0;
            for c in cuts(seed, 3, stream.len()) {
                v.push(&stream[at..c]);
                at = c;
            }
            v.push(&stream[at..]);
            v
        }
    };
    let mut on = |p: Part<'_>| match p {
        Part::Head(h) => {
            assert!(head.is_none(), "one head per request");
            length = h.content_length;
            head = Some(format!("{h:?}"));
        }
        Part::Data(d) => {
            body.extend_from_slice(d);
            if let Some(l) = length {
                assert!(body.len() as u64 <= l, "body past content-length handed on");
            }
        }
    };
    for p in parts {
        match r.feed(0, p, &mut q, &mut on) {
            Ok(Step::More) => {}
            Ok(s) => return (head, body, format!("{s:?}")),
            Err(e) => return (head, body, format!("error {}", e.code.name())),
        }
    }
    let end = match r.end() {
        Ok(e) => format!("end {e}"),
        Err(e) => format!("error {}", e.code.name()),
    };
    (head, body, end)
}

pub fn run(data: &[u8]) {
    let [c0, c1, stream @ ..] = data else {
        return;
    };
    let seed = u64::from(*c1) << 8 | 5;
    let whole = feed_all(stream, *c0, Feed::Whole);
    for feed in [Feed::Split(seed), Feed::Bytewise] {
        assert_eq!(feed_all(stream, *c0, feed), whole);
    }
}

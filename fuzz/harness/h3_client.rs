//! HTTP/3's client response path (`barrage_wire::h3::client::response::Response`): the input
//! read as a QPACK encoder stream (which fills the decoder's dynamic table) and a request
//! stream's bytes (the server's response), fed whole, split at random points and a byte at a
//! time, with the stream's end after them.
//!
//! Input: 3 control bytes, then the bytes.
//! - `c0`: a HEAD request (bit 0), an expected body (bit 1: the first 16 bytes of the stream
//!   part), a field section limit of 512 bytes (bit 2, else 64 KiB), the response kept whole
//!   for a script's `response()` (bit 3);
//! - `c1`: the seed of the split points;
//! - `c2`: how many of the bytes are the encoder stream (the rest is the request stream).
//!
//! Checked: no panic; the three feeds reach the same step, the same end or error, write the
//! same decoder-stream acknowledgments, and keep the same fields and body.

use barrage_wire::h3::client::response::{Response, Step};
use barrage_wire::h3::qpack::Decoder;

use crate::split::{cuts, Feed};

/// What one feed of the response came to: the first step that was not `More` (or the end) and
/// the decoder-stream bytes written.
type Outcome = (String, Vec<u8>);

fn feed_all(enc: &[u8], stream: &[u8], c0: u8, feed: Feed) -> Outcome {
    let limit = if c0 & 4 != 0 { 512 } else { 64 * 1024 };
    let mut q = Decoder::new(4096, 16, Some(limit));
    if q.feed_encoder_stream(enc).is_err() {
        return ("encoder stream refused".into(), Vec::new());
    }
    let expect = (c0 & 2 != 0).then(|| &stream[..stream.len().min(16)]);
    let mut r = Response::new(c0 & 1 != 0);
    if c0 & 8 != 0 {
        r = r.keeping(Box::default());
    }
    let mut acks = Vec::new();
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
    for p in parts {
        match r.feed(0, p, &mut q, &mut acks, expect) {
            Ok(Step::More) => {}
            // Blocked: the caller reads nothing more; what was fed is kept for the resume.
            Ok(Step::Blocked) => return ("blocked".into(), acks),
            Ok(s) => return (format!("{s:?}"), acks),
            Err(e) => return (format!("error {}", e.code.name()), acks),
        }
    }
    let end = match r.end(expect) {
        Ok(e) => format!("{e:?}"),
        Err(e) => format!("error {}", e.code.name()),
    };
    let kept = r.take_kept().map(|k| (k.head, k.body));
    (format!("{end} {kept:?}"), acks)
}

pub fn run(data: &[u8]) {
    let [c0, c1, c2, input @ ..] = data else {
        return;
    };
    let n = usize::from(*c2).min(input.len());
    let (enc, stream) = input.split_at(n);
    let seed = u64::from(*c1) << 8 | 3;
    let whole = feed_all(enc, stream, *c0, Feed::Whole);
    for feed in [Feed::Split(seed), Feed::Bytewise] {
        assert_eq!(feed_all(enc, stream, *c0, feed), whole);
    }
}

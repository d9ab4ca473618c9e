//! The HTTP/3 codec (`barrage_wire::h3`): the input read as one stream's frames, as a QPACK
//! encoder stream, and as field sections (itself and each HEADERS payload), each fed whole,
//! split at random points and a byte at a time; and what the QPACK encoder and the varint
//! coder write read back.
//!
//! Input: 2 control bytes, then the bytes.
//! - `c0`: the frame decoder's limit for non-DATA frames (16, 256, 4096 or 65536, bits 0-1), the
//!   QPACK table capacity announced (220 or 4096, bit 2), a field section limit of 512 bytes
//!   (bit 3, else none), the blocked streams allowed (bits 4-5);
//! - `c1`: the seed of the split points.
//!
//! Checked: no panic; the three feeds yield the same frames (DATA payloads joined per frame),
//! the same error and the same end state, and build the same dynamic table with the same error;
//! the table never exceeds its capacity; a decoded section's lines fit the size limit, and a
//! section refused for its size handed on no more than the limit; the encoder's sections decode
//! to the fields it was given; varints re-encode to a value that decodes the same.

use barrage_wire::h3::frame::{Event, Frame, FrameDecoder};
use barrage_wire::h3::qpack::{entry_size, Decoded, Decoder, Encoder, QpackError};
use barrage_wire::h3::varint;

use crate::split::{cuts, Feed};

/// A table's entries, or a section's fields.
type Lines = Vec<(Vec<u8>, Vec<u8>)>;

/// What a frame feed saw: the log, the error, whether it ended between frames, the HEADERS and
/// PUSH_PROMISE field sections.
type FrameRun = (Vec<String>, Option<String>, bool, Vec<Vec<u8>>);

/// The parts `data` is fed as.
fn parts(data: &[u8], feed: Feed) -> Vec<&[u8]> {
    match feed {
        Feed::Whole => vec![data],
        Feed::Bytewise => data.chunks(1).collect(),
        Feed::Split(seed) => {
            let mut v = Vec::new();
            let mut at = 0;
            for c in cuts(seed, 3, data.len()) {
                v.push(&data[at..c]);
                at = c;
            }
            v.push(&data[at..]);
            v
        }
    }
}

/// The frames of `data` fed as `feed`: a log, the error, whether it ended between frames, and
/// the HEADERS payloads.
fn frames(data: &[u8], max: u64, feed: Feed) -> FrameRun {
    let mut d = FrameDecoder::new(max);
    let mut log = Vec::new();
    let mut headers = Vec::new();
    let mut payload: Option<Vec<u8>> = None;
    let mut carry = Vec::new();
    let flush = |p: &mut Option<Vec<u8>>, log: &mut Vec<String>| {
        if let Some(b) = p.take() {
            log.push(format!("payload {b:?}"));
        }
    };
    for p in parts(data, feed) {
        carry.extend_from_slice(p);
        loop {
            match d.next(&carry) {
                Err(e) => {
                    flush(&mut payload, &mut log);
                    return (log, Some(e.to_string()), d.at_frame_boundary(), headers);
                }
                Ok((n, ev)) => {
                    assert!(n <= carry.len());
                    let more = ev.is_some();
                    match ev {
                        Some(Event::Data { len }) => {
                            flush(&mut payload, &mut log);
                            log.push(format!("data {len}"));
                            payload = Some(Vec::new());
                        }
                        Some(Event::DataChunk(c)) => {
                            assert!(!c.is_empty());
                            payload
                                .as_mut()
                                .expect("a chunk inside DATA")
                                .extend_from_slice(c);
                        }
                        Some(Event::Frame(f)) => {
                            flush(&mut payload, &mut log);
                            if let Frame::Headers(b) | Frame::PushPromise { block: b, .. } = f {
                                assert!(b.len() as u64 <= max);
                                headers.push(b.to_vec());
                            }
                            log.push(format!("{f:?}"));
                        }
                        None => {}
                    }
                    carry.drain(..n);
                    if !more {
                        break;
                    }
                }
            }
        }
        // What is carried is at most one non-DATA frame and its header.
        assert!(carry.len() as u64 <= max + 16);
    }
    flush(&mut payload, &mut log);
    (log, None, d.at_frame_boundary(), headers)
}

/// A decoder fed `data` as its encoder stream: the decoder, the table's entries, the error.
fn encoder_stream(
    data: &[u8],
    cfg: (u64, u64, Option<u64>),
    feed: Feed,
) -> (Decoder, Lines, Option<QpackError>) {
    let mut d = Decoder::new(cfg.0, cfg.1, cfg.2);
    let mut carry = Vec::new();
    let mut err = None;
    for p in parts(data, feed) {
        carry.extend_from_slice(p);
        match d.feed_encoder_stream(&carry) {
            Ok(n) => {
                carry.drain(..n);
                // An unfinished instruction is bounded by the table (a few bytes of header
                // and, Huffman-coded, 4 bytes an octet).
                assert!(carry.len() as u64 <= 4 * d.table().capacity() + 64);
            }
            Err(e) => {
                err = Some(e);
                break;
            }
        }
        assert!(d.table().size() <= d.table().capacity());
    }
    let t = d.table();
    let entries = (0..t.insert_count())
        .filter_map(|a| t.get(a))
        .map(|(n, v)| (n.to_vec(), v.to_vec()))
        .collect();
    (d, entries, err)
}

/// Decodes `block`; checks the size limit against what was handed on.
fn section(d: &mut Decoder, stream: u64, block: &[u8], limit: Option<u64>) {
    let mut total = 0u64;
    let r = d.decode(stream, block, |n, v| total += entry_size(n, v));
    match r {
        Ok(Decoded::Done {
            required_insert_count,
        }) => {
            assert!(total <= limit.unwrap_or(u64::MAX));
            assert!(required_insert_count <= d.table().insert_count());
            let mut out = Vec::new();
            d.ack_section(stream, required_insert_count, &mut out);
            assert_eq!(out.is_empty(), required_insert_count == 0);
        }
        Ok(Decoded::Blocked { .. }) => {
            assert_eq!(total, 0);
            d.cancel_stream(stream, &mut Vec::new());
        }
        Err(QpackError::FieldSectionTooLarge { limit: l }) => {
            assert_eq!(Some(l), limit);
            assert!(total <= l);
        }
        Err(_) => {}
    }
}

pub fn run(data: &[u8]) {
    let [c0, c1, input @ ..] = data else {
        return;
    };
    let max = [16u64, 256, 4096, 65_536][usize::from(c0 & 3)];
    let capacity = if c0 & 4 != 0 { 4096 } else { 220 };
    let limit = (c0 & 8 != 0).then_some(512);
    let cfg = (capacity, u64::from(c0 >> 4 & 3), limit);
    let seed = u64::from(*c1) << 8 | 1;

    let whole = frames(input, max, Feed::Whole);
    for feed in [Feed::Split(seed), Feed::Bytewise] {
        assert_eq!(frames(input, max, feed), whole);
    }

    let (mut d, table, err) = encoder_stream(input, cfg, Feed::Whole);
    for feed in [Feed::Split(seed), Feed::Bytewise] {
        let (_, t, e) = encoder_stream(input, cfg, feed);
        assert_eq!((t, e), (table.clone(), err));
    }
    for (i, block) in whole.3.iter().chain([&input.to_vec()]).enumerate() {
        section(&mut d, 4 * i as u64, block, limit);
    }
    d.ack_inserts(&mut Vec::new());

    // The encoder: fields cut from the input at its NULs, in (name, value) pairs.
    let segs: Vec<&[u8]> = input.split(|&b| b == 0).collect();
    let fields: Vec<(&[u8], &[u8])> = segs.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    let mut block = Vec::new();
    Encoder::new().encode(fields.iter().copied(), &mut block);
    let mut got = Vec::new();
    let r = Decoder::new(0, 0, None).decode(0, &block, |n, v| got.push((n.to_vec(), v.to_vec())));
    assert_eq!(
        r,
        Ok(Decoded::Done {
            required_insert_count: 0
        })
    );
    let want: Lines = fields
        .iter()
        .map(|(n, v)| (n.to_vec(), v.to_vec()))
        .collect();
    assert_eq!(got, want);

    // Varints.
    let mut at = 0;
    while let Some((v, n)) = varint::decode(&input[at..]) {
        let mut b = Vec::new();
        varint::encode(v, &mut b);
        assert!(b.len() <= n);
        assert_eq!(varint::decode(&b), Some((v, b.len())));
        at += n;
    }
}

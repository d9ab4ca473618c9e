//! A QPACK encoder that uses the static table only (RFC 9204 §2.1 allows an encoder never to
//! touch the dynamic table): exact static matches are indexed, static names referenced, the
//! rest written as literals, every string Huffman-coded when that is shorter. Its field sections
//! have a Required Insert Count of 0, so they never block and are never acknowledged, and it
//! sends nothing on its encoder stream. It still reads its decoder stream, where a peer may
//! only cancel streams.

use super::table::static_index;
use super::{read_int, write_int, write_string, QpackError, Read};

/// How many encoded field lines [`Encoder`] remembers: a server's answers repeat the same few
/// (server, date, content-type, a content-length), each looked up in the static table and
/// Huffman-coded anew otherwise, which was a tenth of `barrage serve --http3`'s CPU.
const MEMO: usize = 16;

/// A field line's name, value and encoding.
type Line = (Box<[u8]>, Box<[u8]>, Box<[u8]>);

/// Encodes field sections with the static table; reads the peer decoder's instructions.
#[derive(Debug, Default, Clone)]
pub struct Encoder {
    /// Field lines encoded lately (replaced in turn).
    memo: Vec<Line>,
    next: usize,
}

impl Encoder {
    pub fn new() -> Encoder {
        Encoder::default()
    }

    /// Appends the encoded field section of `fields` (names lowercase, as HTTP/3 requires).
    pub fn encode<'a>(
        &mut self,
        fields: impl IntoIterator<Item = (&'a [u8], &'a [u8])>,
        out: &mut Vec<u8>,
    ) {
        // Required Insert Count 0, Base 0 (§4.5.1).
        out.extend_from_slice(&[0, 0]);
        for (name, value) in fields {
            if let Some((_, _, line)) = self
                .memo
                .iter()
                .find(|(n, v, _)| **n == *name && **v == *value)
            {
                out.extend_from_slice(line);
                continue;
            }
            let at = out.len();
            encode_line(name, value, out);
            // Long lines are rare and would make the memo big: not kept.
            if name.len() + value.len() > 128 {
                continue;
            }
            let entry = (name.into(), value.into(), out[at..].into());
            if self.memo.len() < MEMO {
                self.memo.push(entry);
            } else {
                self.memo[self.next] = entry;
                self.next = (self.next + 1) % MEMO;
            }
        }
    }

    /// Reads the decoder-stream instructions at the front of `buf` (§4.4): the bytes used
    /// (whole instructions). Stream Cancellations are taken; a Section Acknowledgment or an
    /// Insert Count Increment can only be wrong, since nothing this encoder sent refers to the
    /// dynamic table (§4.4.1, §4.4.3).
    pub fn feed_decoder_stream(&mut self, buf: &[u8]) -> Result<usize, QpackError> {
        let mut at = 0;
        while let Some(&first) = buf.get(at) {
            let b = &buf[at..];
            let r = if first & 0x80 != 0 {
                read_int(b, 7).map(|_| {
                    Err(QpackError::DecoderStream(
                        "Section Acknowledgment of a section without dynamic references",
                    ))
                })
            } else if first & 0x40 != 0 {
                read_int(b, 6).map(|(_, n)| Ok(n))
            } else {
                read_int(b, 6).map(|_| {
                    Err(QpackError::DecoderStream(
                        "Insert Count Increment without inserts",
                    ))
                })
            };
            match r {
                Ok(Ok(n)) => at += n,
                Ok(Err(e)) => return Err(e),
                Err(Read::Truncated) => break,
                Err(Read::Bad(w)) => return Err(QpackError::DecoderStream(w)),
            }
        }
        Ok(at)
    }
}

/// Appends one field line: an exact static match indexed, a static name referenced, or both
/// written as literals.
fn encode_line(name: &[u8], value: &[u8], out: &mut Vec<u8>) {
    match static_index(name, value) {
        // Indexed field line, static: 1 1 index(6).
        Some((i, true)) => write_int(out, i as u64, 6, 0xc0),
        // Literal with name reference, static, N = 0: 0 1 0 1 index(4), value.
        Some((i, false)) => {
            write_int(out, i as u64, 4, 0x50);
            write_string(out, value, 7, 0);
        }
        // Literal with literal name, N = 0: 0 0 1 0 H length(3) name, value.
        None => {
            write_string(out, name, 3, 0x20);
            write_string(out, value, 7, 0);
        }
    }
}

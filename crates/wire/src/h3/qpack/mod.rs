//! QPACK (RFC 9204): HTTP/3's field compression.
//!
//! - [`table`]: the static table (Appendix A) and the bounded dynamic table a decoder keeps.
//! - [`encoder`]: a static-table-only encoder: what barrage sends, announcing no dynamic table
//!   use, so nothing it writes can block a peer's decoder or needs acknowledging.
//! - [`decoder`]: a decoder with the dynamic table: the peer's encoder-stream instructions
//!   applied, field sections decoded (or reported blocked until their inserts arrive), and the
//!   decoder-stream instructions written back as bytes.
//!
//! Integers and string literals are HPACK's (RFC 7541 §5), with QPACK's prefix widths: the
//! integer coder and the Huffman code are the HPACK module's, shared, not copied.
//!
//! A peer's bytes can ask for a lot of memory with few bytes (one large dynamic entry referenced
//! many times: a "QPACK bomb"). The decoder bounds it: entries never exceed the capacity this side
//! announced, and a field section's decoded size (name + value + 32 per line) is counted while it
//! is decoded and refused at the first line past the limit ([`QpackError::FieldSectionTooLarge`]),
//! before the lines are handed on.

pub mod decoder;
pub mod encoder;
pub mod table;

pub use decoder::{Decoded, Decoder};
pub use encoder::Encoder;

use super::error::ErrorCode;
use crate::h2::hpack::{self, huffman, HpackError};
use thiserror::Error;

/// A QPACK failure. Each but the size limit is a connection error with its code
/// ([`QpackError::code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum QpackError {
    /// A field section that breaks RFC 9204 (QPACK_DECOMPRESSION_FAILED).
    #[error("QPACK_DECOMPRESSION_FAILED: {0}")]
    Decompression(&'static str),
    /// An encoder-stream instruction that breaks RFC 9204 (QPACK_ENCODER_STREAM_ERROR).
    #[error("QPACK_ENCODER_STREAM_ERROR: {0}")]
    EncoderStream(&'static str),
    /// A decoder-stream instruction that breaks RFC 9204 (QPACK_DECODER_STREAM_ERROR).
    #[error("QPACK_DECODER_STREAM_ERROR: {0}")]
    DecoderStream(&'static str),
    /// A field section larger than the SETTINGS_MAX_FIELD_SECTION_SIZE this side announced:
    /// the message is refused (counted as a header too large), the connection and the dynamic
    /// table are intact. The caller resets the stream and sends a Stream Cancellation.
    #[error("field section above {limit} bytes")]
    FieldSectionTooLarge { limit: u64 },
}

impl QpackError {
    /// The code to close the connection (or, for a section too large, reset the stream) with.
    pub fn code(self) -> ErrorCode {
        match self {
            QpackError::Decompression(_) => ErrorCode::QpackDecompressionFailed,
            QpackError::EncoderStream(_) => ErrorCode::QpackEncoderStream,
            QpackError::DecoderStream(_) => ErrorCode::QpackDecoderStream,
            // A message this side will not process; RFC 9114 §4.2.2 leaves the code to the
            // receiver, and the load it would cause is what the limit is about.
            QpackError::FieldSectionTooLarge { .. } => ErrorCode::ExcessiveLoad,
        }
    }
}

/// Why reading an integer or a string stopped: the input ended (wait for more, or, inside a
/// field section, which arrives whole, an error), or the bytes are wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Read {
    Truncated,
    Bad(&'static str),
}

impl From<HpackError> for Read {
    fn from(e: HpackError) -> Read {
        match e {
            HpackError::Truncated => Read::Truncated,
            HpackError::Huffman(_) => Read::Bad("Huffman coding broken"),
            _ => Read::Bad("integer too large"),
        }
    }
}

/// Reads an integer with an `n`-bit prefix (RFC 7541 §5.1): (value, bytes used).
pub(crate) fn read_int(buf: &[u8], n: u8) -> Result<(u64, usize), Read> {
    let (v, used) = hpack::decode_int(buf, n)?;
    Ok((v as u64, used))
}

/// Appends an integer with an `n`-bit prefix; `flags` holds the first byte's high bits.
pub(crate) fn write_int(out: &mut Vec<u8>, v: u64, n: u8, flags: u8) {
    hpack::encode_int(
        out,
        usize::try_from(v).expect("a QPACK integer fits usize"),
        n,
        flags,
    );
}

/// A string literal's header: whether it is Huffman-coded, its length in bytes on the wire, and
/// the bytes the header took. `n` is the length's prefix; the H bit is the bit above it.
pub(crate) fn read_string_len(buf: &[u8], n: u8) -> Result<(bool, usize, usize), Read> {
    let huff = buf.first().ok_or(Read::Truncated)? & (1 << n) != 0;
    let (len, used) = hpack::decode_int(buf, n)?;
    Ok((huff, len, used))
}

/// Reads a string literal with an `n`-bit length prefix into `out` (cleared first): the bytes
/// used.
pub(crate) fn read_string(buf: &[u8], n: u8, out: &mut Vec<u8>) -> Result<usize, Read> {
    let (huff, len, used) = read_string_len(buf, n)?;
    let end = used.checked_add(len).ok_or(Read::Bad("string length"))?;
    let s = buf.get(used..end).ok_or(Read::Truncated)?;
    out.clear();
    if huff {
        huffman::decode(s, out).map_err(|_| Read::Bad("Huffman coding broken"))?;
    } else {
        out.extend_from_slice(s);
    }
    Ok(end)
}

/// A Huffman coding and the octets it decodes to.
type Coded = (Box<[u8]>, Box<[u8]>);

/// How many Huffman-coded strings [`HuffMemo`] keeps.
const HUFF_MEMO: usize = 8;

/// Huffman-coded strings decoded lately, by their coding: a peer repeats the same values in
/// every section (a date for a second, a server name, a content type, an authority), and
/// comparing the coded bytes costs less than decoding them again (decoding was a tenth of
/// `barrage load --http3`'s CPU). Only strings that decoded are kept, so a coding seen again
/// decodes to what it did.
#[derive(Debug, Default)]
pub(crate) struct HuffMemo {
    lines: Vec<Coded>,
    next: usize,
}

impl HuffMemo {
    /// [`read_string`], through the memo.
    pub(crate) fn read_string(
        &mut self,
        buf: &[u8],
        n: u8,
        out: &mut Vec<u8>,
    ) -> Result<usize, Read> {
        let (huff, len, used) = read_string_len(buf, n)?;
        let end = used.checked_add(len).ok_or(Read::Bad("string length"))?;
        let s = buf.get(used..end).ok_or(Read::Truncated)?;
        out.clear();
        if !huff {
            out.extend_from_slice(s);
            return Ok(end);
        }
        if let Some((_, plain)) = self.lines.iter().find(|(coded, _)| **coded == *s) {
            out.extend_from_slice(plain);
            return Ok(end);
        }
        huffman::decode(s, out).map_err(|_| Read::Bad("Huffman coding broken"))?;
        // Long strings are rare in repeats and would make the memo big: not kept.
        if s.len() <= 64 {
            let line = (s.into(), out[..].into());
            if self.lines.len() < HUFF_MEMO {
                self.lines.push(line);
            } else {
                self.lines[self.next] = line;
                self.next = (self.next + 1) % HUFF_MEMO;
            }
        }
        Ok(end)
    }
}

/// Appends a string literal with an `n`-bit length prefix, Huffman-coded when that is shorter;
/// `flags` holds the first byte's bits above the H bit.
pub(crate) fn write_string(out: &mut Vec<u8>, s: &[u8], n: u8, flags: u8) {
    let h = huffman::encoded_len(s);
    if h < s.len() {
        write_int(out, h as u64, n, flags | (1 << n));
        huffman::encode(s, out);
    } else {
        write_int(out, s.len() as u64, n, flags);
        out.extend_from_slice(s);
    }
}

/// The size a field line counts for, in the dynamic table and against
/// MAX_FIELD_SECTION_SIZE (RFC 9204 §3.2.1, RFC 9114 §4.2.2).
pub fn entry_size(name: &[u8], value: &[u8]) -> u64 {
    name.len() as u64 + value.len() as u64 + 32
}

#[cfg(test)]
mod tests;

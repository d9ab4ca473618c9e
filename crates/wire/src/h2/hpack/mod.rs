//! HPACK (RFC 7541): header block decoding with the dynamic table, and the few encodings
//! barrage writes (indexed fields and raw literals).
//!
//! Written here rather than taken from a crate: the maintained HPACK crates outside `h2` (whose
//! codec is private) build a HashMap-based Huffman table for every Huffman-coded string they
//! decode, and nginx Huffman-codes its `date` on every response (see `docs/architecture.md`).
//! Here decoded strings go to two buffers the decoder keeps and reuses, so a steady stream of
//! responses decodes without allocating; only an insertion into the dynamic table allocates.

pub mod huffman;
pub mod tables;

use std::collections::VecDeque;
use thiserror::Error;

/// A header block that breaks RFC 7541: a COMPRESSION_ERROR on the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum HpackError {
    #[error("header block ends inside a field")]
    Truncated,
    #[error("integer does not fit")]
    IntegerOverflow,
    #[error("index {0} is not in the header table")]
    BadIndex(usize),
    #[error("Huffman coding broken: {0:?}")]
    Huffman(huffman::HuffmanError),
    #[error("dynamic table size update to {0} above the allowed maximum")]
    TableSizeTooLarge(usize),
    #[error("dynamic table size update after a header field")]
    LateTableSizeUpdate,
}

/// Reads an integer with an `n`-bit prefix (§5.1) at the front of `buf`: (value, bytes used).
pub fn decode_int(buf: &[u8], n: u8) -> Result<(usize, usize), HpackError> {
    let first = *buf.first().ok_or(HpackError::Truncated)?;
    let max = (1usize << n) - 1;
    let mut v = usize::from(first) & max;
    if v < max {
        return Ok((v, 1));
    }
    let mut shift = 0u32;
    for (i, &b) in buf[1..].iter().enumerate() {
        let add = usize::from(b & 0x7f)
            .checked_shl(shift)
            .filter(|x| x >> shift == usize::from(b & 0x7f))
            .ok_or(HpackError::IntegerOverflow)?;
        v = v.checked_add(add).ok_or(HpackError::IntegerOverflow)?;
        if b & 0x80 == 0 {
            return Ok((v, i + 2));
        }
        shift += 7;
        if shift > 28 {
            return Err(HpackError::IntegerOverflow);
        }
    }
    Err(HpackError::Truncated)
}

/// Appends an integer with an `n`-bit prefix; `flags` holds the prefix byte's high bits.
pub fn encode_int(out: &mut Vec<u8>, v: usize, n: u8, flags: u8) {
    let max = (1usize << n) - 1;
    if v < max {
        out.push(flags | v as u8);
        return;
    }
    out.push(flags | max as u8);
    let mut r = v - max;
    while r >= 128 {
        out.push((r % 128) as u8 | 0x80);
        r /= 128;
    }
    out.push(r as u8);
}

/// How a literal field is represented (§6.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Indexing {
    /// Added to the dynamic table (§6.2.1).
    Incremental,
    /// Not added (§6.2.2).
    Without,
    /// Not added, and intermediaries must not either (§6.2.3).
    Never,
}

/// Appends an indexed field (§6.1).
pub fn encode_indexed(out: &mut Vec<u8>, index: usize) {
    encode_int(out, index, 7, 0x80);
}

/// Appends a literal field, its name by index (`name_index > 0`) or as a literal, every string
/// raw or Huffman-coded, whichever is shorter.
pub fn encode_literal(
    out: &mut Vec<u8>,
    name_index: usize,
    name: &[u8],
    value: &[u8],
    ix: Indexing,
) {
    let (n, flags) = match ix {
        Indexing::Incremental => (6, 0x40),
        Indexing::Without => (4, 0x00),
        Indexing::Never => (4, 0x10),
    };
    encode_int(out, name_index, n, flags);
    if name_index == 0 {
        encode_string(out, name);
    }
    encode_string(out, value);
}

/// Appends a string literal (§5.2), Huffman-coded when that is shorter.
pub fn encode_string(out: &mut Vec<u8>, s: &[u8]) {
    let h = huffman::encoded_len(s);
    if h < s.len() {
        encode_int(out, h, 7, 0x80);
        huffman::encode(s, out);
    } else {
        encode_int(out, s.len(), 7, 0);
        out.extend_from_slice(s);
    }
}

/// The static table's index of `name` (and whether `value` matched there too).
pub fn static_index(name: &[u8], value: &[u8]) -> Option<(usize, bool)> {
    let mut by_name = None;
    for (i, (n, v)) in tables::STATIC.iter().enumerate() {
        if *n == name {
            if *v == value {
                return Some((i + 1, true));
            }
            by_name.get_or_insert((i + 1, false));
        }
    }
    by_name
}

/// The size an entry counts for in the dynamic table (§4.1).
pub fn entry_size(name: &[u8], value: &[u8]) -> usize {
    name.len() + value.len() + 32
}

/// The dynamic table: newest first; each entry's name and value in one buffer.
#[derive(Debug, Default)]
struct Dynamic {
    entries: VecDeque<(Box<[u8]>, usize)>,
    size: usize,
    max: usize,
}

impl Dynamic {
    fn get(&self, i: usize) -> Option<(&[u8], &[u8])> {
        self.entries.get(i).map(|(b, n)| b.split_at(*n))
    }

    fn evict_to(&mut self, max: usize) {
        while self.size > max {
            let (b, _) = self.entries.pop_back().expect("size > 0 means entries");
            self.size -= b.len() + 32;
        }
    }

    fn insert(&mut self, name: &[u8], value: &[u8]) {
        let size = entry_size(name, value);
        self.evict_to(self.max.saturating_sub(size));
        // An entry larger than the table empties it and is not added (§4.4).
        if size <= self.max {
            let mut b = Vec::with_capacity(name.len() + value.len());
            b.extend_from_slice(name);
            b.extend_from_slice(value);
            self.entries.push_front((b.into_boxed_slice(), name.len()));
            self.size += size;
        }
    }
}

/// Decodes header blocks of one connection, in order.
#[derive(Debug)]
pub struct Decoder {
    table: Dynamic,
    /// The SETTINGS_HEADER_TABLE_SIZE this side announced: the most a size update may ask for.
    allowed: usize,
    name: Vec<u8>,
    value: Vec<u8>,
}

impl Decoder {
    /// A decoder whose side announced `allowed` as SETTINGS_HEADER_TABLE_SIZE (4096 by default).
    pub fn new(allowed: usize) -> Decoder {
        Decoder {
            table: Dynamic {
                max: allowed,
                ..Dynamic::default()
            },
            allowed,
            name: Vec::new(),
            value: Vec::new(),
        }
    }

    /// The dynamic table's current size (§4.1), for tests and statistics.
    pub fn table_size(&self) -> usize {
        self.table.size
    }

    fn lookup(&self, index: usize) -> Result<(&[u8], &[u8]), HpackError> {
        match index {
            0 => Err(HpackError::BadIndex(0)),
            1..=61 => Ok(tables::STATIC[index - 1]),
            i => self.table.get(i - 62).ok_or(HpackError::BadIndex(i)),
        }
    }

    /// Decodes one whole header block (HEADERS and its CONTINUATIONs joined), calling `field`
    /// with each (name, value) in order.
    pub fn decode(
        &mut self,
        block: &[u8],
        mut field: impl FnMut(&[u8], &[u8]),
    ) -> Result<(), HpackError> {
        let mut at = 0;
        let mut fields = 0usize;
        while at < block.len() {
            let b = &block[at..];
            let first = b[0];
            if first & 0x80 != 0 {
                let (i, n) = decode_int(b, 7)?;
                let (name, value) = self.lookup(i)?;
                field(name, value);
                at += n;
                fields += 1;
                continue;
            }
            if first & 0xe0 == 0x20 {
                // A table size update: only before the block's first field (§4.2).
                if fields > 0 {
                    return Err(HpackError::LateTableSizeUpdate);
                }
                let (size, n) = decode_int(b, 5)?;
                if size > self.allowed {
                    return Err(HpackError::TableSizeTooLarge(size));
                }
                self.table.max = size;
                self.table.evict_to(size);
                at += n;
                continue;
            }
            let (prefix, ix) = if first & 0xc0 == 0x40 {
                (6, Indexing::Incremental)
            } else {
                (
                    4,
                    if first & 0x10 != 0 {
                        Indexing::Never
                    } else {
                        Indexing::Without
                    },
                )
            };
            let (i, mut n) = decode_int(b, prefix)?;
            let mut name = std::mem::take(&mut self.name);
            let mut value = std::mem::take(&mut self.value);
            name.clear();
            value.clear();
            let r = (|| {
                if i == 0 {
                    n += read_string(&b[n..], &mut name)?;
                } else {
                    name.extend_from_slice(self.lookup(i)?.0);
                }
                n += read_string(&b[n..], &mut value)?;
                Ok(())
            })();
            if r.is_ok() {
                field(&name, &value);
                if ix == Indexing::Incremental {
                    self.table.insert(&name, &value);
                }
            }
            self.name = name;
            self.value = value;
            r?;
            at += n;
            fields += 1;
        }
        Ok(())
    }
}

/// Reads a string literal (§5.2) at the front of `buf` into `out`: the bytes used.
fn read_string(buf: &[u8], out: &mut Vec<u8>) -> Result<usize, HpackError> {
    let (len, n) = decode_int(buf, 7)?;
    let end = n.checked_add(len).ok_or(HpackError::Truncated)?;
    let s = buf.get(n..end).ok_or(HpackError::Truncated)?;
    if buf[0] & 0x80 != 0 {
        huffman::decode(s, out).map_err(HpackError::Huffman)?;
    } else {
        out.extend_from_slice(s);
    }
    Ok(end)
}

#[cfg(test)]
mod tests;

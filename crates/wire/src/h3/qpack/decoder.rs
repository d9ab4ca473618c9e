//! The QPACK decoder (RFC 9204 §2.2, §4.3 to §4.5): the peer encoder's instructions applied to
//! the dynamic table, field sections decoded against it, and the decoder-stream instructions
//! (Section Acknowledgment, Insert Count Increment, Stream Cancellation) written as bytes for
//! the caller to send.
//!
//! A field section that refers to inserts not yet received is [`Decoded::Blocked`]: the caller
//! keeps it and decodes it again after more encoder-stream bytes arrived (up to the
//! SETTINGS_QPACK_BLOCKED_STREAMS this side announced; one more is an error). Decoding never
//! changes the table, so a section refused for its size leaves the connection usable.

use super::table::{Dynamic, STATIC};
use super::{
    entry_size, read_int, read_string, read_string_len, write_int, HuffMemo, QpackError, Read,
};

/// The outcome of decoding one field section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoded {
    /// Every field line was handed on. A non-zero `required_insert_count` wants a Section
    /// Acknowledgment ([`Decoder::ack_section`]) once the caller has processed the section.
    Done { required_insert_count: u64 },
    /// The section needs `required_insert_count` inserts and fewer have arrived; nothing was
    /// handed on. Decode it again after feeding more of the encoder stream.
    Blocked { required_insert_count: u64 },
}

/// Decodes the field sections of one connection, with the table the peer's encoder builds.
#[derive(Debug)]
pub struct Decoder {
    table: Dynamic,
    max_blocked: u64,
    max_section: u64,
    /// Streams whose section is blocked now.
    blocked: Vec<u64>,
    /// The insert count the peer's encoder knows we have: what acknowledgments and increments
    /// told it (§2.1.4).
    known_received: u64,
    /// Reused for literal names and values, so that steady decoding does not allocate.
    name: Vec<u8>,
    value: Vec<u8>,
    /// Field sections' Huffman-coded strings decoded lately.
    memo: HuffMemo,
}

/// Why an instruction stopped: it is not whole yet, or it is wrong.
enum Stop {
    Truncated,
    Err(QpackError),
}

impl From<QpackError> for Stop {
    fn from(e: QpackError) -> Stop {
        Stop::Err(e)
    }
}

fn enc_stream(r: Read) -> Stop {
    match r {
        Read::Truncated => Stop::Truncated,
        Read::Bad(w) => Stop::Err(QpackError::EncoderStream(w)),
    }
}

/// Inside a field section, which arrives whole, running out of bytes is an error too.
fn section(r: Read) -> QpackError {
    match r {
        Read::Truncated => QpackError::Decompression("field section ends inside a line"),
        Read::Bad(w) => QpackError::Decompression(w),
    }
}

fn out_of_range() -> QpackError {
    QpackError::Decompression("reference outside the table")
}

impl Decoder {
    /// A decoder for a side that announced these SETTINGS: QPACK_MAX_TABLE_CAPACITY,
    /// QPACK_BLOCKED_STREAMS and MAX_FIELD_SECTION_SIZE (`None`: unlimited).
    pub fn new(
        max_table_capacity: u64,
        max_blocked_streams: u64,
        max_field_section_size: Option<u64>,
    ) -> Decoder {
        Decoder {
            table: Dynamic::new(max_table_capacity),
            max_blocked: max_blocked_streams,
            max_section: max_field_section_size.unwrap_or(u64::MAX),
            blocked: Vec::new(),
            known_received: 0,
            name: Vec::new(),
            value: Vec::new(),
            memo: HuffMemo::default(),
        }
    }

    /// The dynamic table, for tests and statistics.
    pub fn table(&self) -> &Dynamic {
        &self.table
    }

    /// Applies the encoder-stream instructions at the front of `buf`: the bytes used (whole
    /// instructions; the caller keeps the rest for when more arrive).
    pub fn feed_encoder_stream(&mut self, buf: &[u8]) -> Result<usize, QpackError> {
        let mut at = 0;
        while at < buf.len() {
            match self.instruction(&buf[at..]) {
                Ok(n) => at += n,
                Err(Stop::Truncated) => break,
                Err(Stop::Err(e)) => return Err(e),
            }
        }
        Ok(at)
    }

    /// A string about to be read for an entry of `size_so_far` bytes (+ 32) must fit the table:
    /// refused from its length, so a peer cannot make the caller buffer more than the capacity.
    fn fits(&self, buf: &[u8], n: u8, size_so_far: usize) -> Result<(), Stop> {
        let (huff, len, _) = read_string_len(buf, n).map_err(enc_stream)?;
        // A Huffman code is at most 30 bits an octet: fewer than 4 bytes each.
        let least = if huff { len.saturating_sub(1) / 4 } else { len };
        if (least as u64).saturating_add(size_so_far as u64 + 32) > self.table.capacity() {
            return Err(QpackError::EncoderStream("entry larger than the table").into());
        }
        Ok(())
    }

    /// Applies one instruction (§4.3): the bytes it took.
    fn instruction(&mut self, b: &[u8]) -> Result<usize, Stop> {
        let first = b[0];
        let mut name = std::mem::take(&mut self.name);
        let mut value = std::mem::take(&mut self.value);
        let r = (|| {
            if first & 0x80 != 0 {
                // Insert With Name Reference: 1 T index(6), value.
                let (i, mut n) = read_int(b, 6).map_err(enc_stream)?;
                let entry = if first & 0x40 != 0 {
                    usize::try_from(i).ok().and_then(|i| STATIC.get(i).copied())
                } else {
                    self.relative(i)
                };
                let (nm, _) =
                    entry.ok_or(QpackError::EncoderStream("reference outside the table"))?;
                name.clear();
                name.extend_from_slice(nm);
                self.fits(&b[n..], 7, name.len())?;
                n += read_string(&b[n..], 7, &mut value).map_err(enc_stream)?;
                self.table.insert(&name, &value)?;
                Ok(n)
            } else if first & 0x40 != 0 {
                // Insert With Literal Name: 01 H length(5) name, value.
                self.fits(b, 5, 0)?;
                let mut n = read_string(b, 5, &mut name).map_err(enc_stream)?;
                self.fits(&b[n..], 7, name.len())?;
                n += read_string(&b[n..], 7, &mut value).map_err(enc_stream)?;
                self.table.insert(&name, &value)?;
                Ok(n)
            } else if first & 0x20 != 0 {
                // Set Dynamic Table Capacity: 001 capacity(5).
                let (c, n) = read_int(b, 5).map_err(enc_stream)?;
                self.table.set_capacity(c)?;
                Ok(n)
            } else {
                // Duplicate: 000 index(5).
                let (i, n) = read_int(b, 5).map_err(enc_stream)?;
                let (nm, v) = self
                    .relative(i)
                    .ok_or(QpackError::EncoderStream("reference outside the table"))?;
                name.clear();
                name.extend_from_slice(nm);
                value.clear();
                value.extend_from_slice(v);
                self.table.insert(&name, &value)?;
                Ok(n)
            }
        })();
        self.name = name;
        self.value = value;
        r
    }

    /// An encoder instruction's relative index: counted back from the newest insert (§3.2.5).
    fn relative(&self, i: u64) -> Option<(&[u8], &[u8])> {
        let abs = self.table.insert_count().checked_sub(i.checked_add(1)?)?;
        self.table.get(abs)
    }

    /// The Required Insert Count from its encoding (§4.5.1.1).
    fn required_insert_count(&self, encoded: u64) -> Result<u64, QpackError> {
        if encoded == 0 {
            return Ok(0);
        }
        let bad = QpackError::Decompression("Required Insert Count out of range");
        let max_entries = self.table.max_capacity() / 32;
        let full = 2 * max_entries;
        if encoded > full {
            return Err(bad);
        }
        let max_value = self.table.insert_count() + max_entries;
        let mut ric = max_value / full * full + encoded - 1;
        if ric > max_value {
            if ric <= full {
                return Err(bad);
            }
            ric -= full;
        }
        if ric == 0 {
            return Err(bad);
        }
        Ok(ric)
    }

    /// Decodes the field section `block` of stream `stream` (a HEADERS or PUSH_PROMISE payload),
    /// calling `field` with each (name, value) in order. The size limit is checked at each line,
    /// before it is handed on; when decoding fails, lines before the failure may have been
    /// handed on already, and the caller treats them as void.
    pub fn decode(
        &mut self,
        stream: u64,
        block: &[u8],
        mut field: impl FnMut(&[u8], &[u8]),
    ) -> Result<Decoded, QpackError> {
        let (encoded, n) = read_int(block, 8).map_err(section)?;
        let ric = self.required_insert_count(encoded)?;
        let b = &block[n..];
        let sign = b.first().ok_or(section(Read::Truncated))? & 0x80 != 0;
        let (delta, m) = read_int(b, 7).map_err(section)?;
        let base = if sign {
            // Base = RIC - delta - 1 (§4.5.1.2): below zero is an error.
            delta.checked_add(1).and_then(|d| ric.checked_sub(d))
        } else {
            ric.checked_add(delta)
        }
        .ok_or(QpackError::Decompression("Base out of range"))?;
        if ric > self.table.insert_count() {
            if !self.blocked.contains(&stream) {
                if self.blocked.len() as u64 >= self.max_blocked {
                    return Err(QpackError::Decompression(
                        "more streams blocked than allowed",
                    ));
                }
                self.blocked.push(stream);
            }
            return Ok(Decoded::Blocked {
                required_insert_count: ric,
            });
        }
        self.blocked.retain(|&s| s != stream);
        let mut name = std::mem::take(&mut self.name);
        let mut value = std::mem::take(&mut self.value);
        let mut memo = std::mem::take(&mut self.memo);
        let r = self.lines(
            &block[n + m..],
            ric,
            base,
            (&mut name, &mut value, &mut memo),
            &mut field,
        );
        self.name = name;
        self.value = value;
        self.memo = memo;
        r.map(|()| Decoded::Done {
            required_insert_count: ric,
        })
    }

    /// The field lines after the prefix (§4.5.2 to §4.5.6).
    fn lines(
        &self,
        mut b: &[u8],
        ric: u64,
        base: u64,
        (name, value, memo): (&mut Vec<u8>, &mut Vec<u8>, &mut HuffMemo),
        field: &mut impl FnMut(&[u8], &[u8]),
    ) -> Result<(), QpackError> {
        let table = &self.table;
        // A dynamic entry by absolute index: below the Required Insert Count and still held.
        let dynamic = |abs: Option<u64>| -> Result<(&[u8], &[u8]), QpackError> {
            let abs = abs.filter(|&a| a < ric).ok_or_else(out_of_range)?;
            table.get(abs).ok_or_else(out_of_range)
        };
        let stat = |i: u64| -> Result<(&'static [u8], &'static [u8]), QpackError> {
            usize::try_from(i)
                .ok()
                .and_then(|i| STATIC.get(i).copied())
                .ok_or_else(out_of_range)
        };
        let relative = |i: u64| i.checked_add(1).and_then(|i| base.checked_sub(i));
        let post_base = |i: u64| base.checked_add(i);
        let mut total = 0u64;
        // The largest absolute index referred to, against the Required Insert Count at the end.
        let mut largest: Option<u64> = None;
        let mut note = |abs: Option<u64>| {
            if let Some(a) = abs {
                largest = Some(largest.map_or(a, |l: u64| l.max(a)));
            }
        };
        while let Some(&first) = b.first() {
            let (n, v, used): (&[u8], &[u8], usize);
            if first & 0x80 != 0 {
                // Indexed: 1 T index(6).
                let (i, k) = read_int(b, 6).map_err(section)?;
                (n, v) = if first & 0x40 != 0 {
                    stat(i)?
                } else {
                    note(relative(i));
                    dynamic(relative(i))?
                };
                used = k;
            } else if first & 0xf0 == 0x10 {
                // Indexed with post-base index: 0001 index(4).
                let (i, k) = read_int(b, 4).map_err(section)?;
                note(post_base(i));
                (n, v) = dynamic(post_base(i))?;
                used = k;
            } else if first & 0xc0 == 0x40 || first & 0xf0 == 0x00 {
                // Literal with (post-base) name reference: 01 N T index(4) or 0000 N index(3).
                let (nm, k) = if first & 0x40 != 0 {
                    let (i, k) = read_int(b, 4).map_err(section)?;
                    if first & 0x10 != 0 {
                        (stat(i)?.0, k)
                    } else {
                        note(relative(i));
                        (dynamic(relative(i))?.0, k)
                    }
                } else {
                    let (i, k) = read_int(b, 3).map_err(section)?;
                    note(post_base(i));
                    (dynamic(post_base(i))?.0, k)
                };
                let s = memo.read_string(&b[k..], 7, value).map_err(section)?;
                (n, v, used) = (nm, &value[..], k + s);
            } else {
                // Literal with literal name: 001 N H length(3) name, value.
                let k = memo.read_string(b, 3, name).map_err(section)?;
                let s = memo.read_string(&b[k..], 7, value).map_err(section)?;
                (n, v, used) = (&name[..], &value[..], k + s);
            }
            total = total.saturating_add(entry_size(n, v));
            if total > self.max_section {
                return Err(QpackError::FieldSectionTooLarge {
                    limit: self.max_section,
                });
            }
            field(n, v);
            b = &b[used..];
        }
        // A Required Insert Count above what the lines need is an error (§4.5.1.1).
        if ric != largest.map_or(0, |l| l + 1) {
            return Err(QpackError::Decompression(
                "Required Insert Count is not the one the lines need",
            ));
        }
        Ok(())
    }

    /// Appends a Section Acknowledgment for a section of `stream` decoded with this Required
    /// Insert Count (none when it is 0: such a section is never acknowledged, §4.4.1).
    pub fn ack_section(&mut self, stream: u64, required_insert_count: u64, out: &mut Vec<u8>) {
        if required_insert_count == 0 {
            return;
        }
        write_int(out, stream, 7, 0x80);
        self.known_received = self.known_received.max(required_insert_count);
    }

    /// Appends an Insert Count Increment for the inserts the peer's encoder does not know we
    /// received (nothing when it knows them all, §4.4.3).
    pub fn ack_inserts(&mut self, out: &mut Vec<u8>) {
        let count = self.table.insert_count();
        if count > self.known_received {
            write_int(out, count - self.known_received, 6, 0x00);
            self.known_received = count;
        }
    }

    /// A stream was reset or abandoned before its section was decoded: forget it as blocked and
    /// append a Stream Cancellation (§4.4.2; omitted when this side allows no dynamic table, as
    /// the RFC lets it).
    pub fn cancel_stream(&mut self, stream: u64, out: &mut Vec<u8>) {
        self.blocked.retain(|&s| s != stream);
        if self.table.max_capacity() > 0 {
            write_int(out, stream, 6, 0x40);
        }
    }

    /// How many streams wait on inserts now.
    pub fn blocked_streams(&self) -> usize {
        self.blocked.len()
    }
}

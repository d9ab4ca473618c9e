//! QUIC variable-length integers (RFC 9000 §16): the two high bits of the first byte give the
//! length (1, 2, 4 or 8 bytes), the rest is the value, big-endian, up to 2^62 - 1.

/// The largest value a varint holds.
pub const MAX: u64 = (1 << 62) - 1;

/// Reads a varint at the front of `buf`: (value, bytes used), or `None` when `buf` ends before
/// it does (the caller waits for more; a truncated varint is never an error by itself).
pub fn decode(buf: &[u8]) -> Option<(u64, usize)> {
    let first = *buf.first()?;
    let len = 1usize << (first >> 6);
    let bytes = buf.get(..len)?;
    let v = bytes[1..]
        .iter()
        .fold(u64::from(first & 0x3f), |v, &b| (v << 8) | u64::from(b));
    Some((v, len))
}

/// The bytes `v` takes in its shortest encoding.
pub fn len(v: u64) -> usize {
    match v {
        0..=63 => 1,
        64..=16_383 => 2,
        16_384..=1_073_741_823 => 4,
        _ => 8,
    }
}

/// Appends `v` in its shortest encoding.
///
/// # Panics
/// When `v` is above [`MAX`]: every value HTTP/3 sends is a count or an id the caller chose,
/// so a larger one is a bug, not input.
pub fn encode(v: u64, out: &mut Vec<u8>) {
    assert!(v <= MAX, "varint {v} above 2^62-1");
    match len(v) {
        1 => out.push(v as u8),
        2 => out.extend_from_slice(&(v as u16 | 0x4000).to_be_bytes()),
        4 => out.extend_from_slice(&(v as u32 | 0x8000_0000).to_be_bytes()),
        _ => out.extend_from_slice(&(v | 0xc000_0000_0000_0000).to_be_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 9000 §16 and Appendix A.1's examples, and each length's bounds.
    const TABLE: &[(&[u8], u64)] = &[
        (
            &[0xc2, 0x19, 0x7c, 0x5e, 0xff, 0x14, 0xe8, 0x8c],
            151_288_809_941_952_652,
        ),
        (&[0x9d, 0x7f, 0x3e, 0x7d], 494_878_333),
        (&[0x7b, 0xbd], 15_293),
        (&[0x25], 37),
        (&[0x00], 0),
        (&[0x3f], 63),
        (&[0x40, 0x40], 64),
        (&[0x7f, 0xff], 16_383),
        (&[0x80, 0x00, 0x40, 0x00], 16_384),
        (&[0xbf, 0xff, 0xff, 0xff], 1_073_741_823),
        (&[0xc0, 0, 0, 0, 0x40, 0, 0, 0], 1_073_741_824),
        (&[0xff; 8], MAX),
    ];

    #[test]
    fn the_rfcs_examples_decode_and_encode() {
        for (bytes, v) in TABLE {
            assert_eq!(decode(bytes), Some((*v, bytes.len())), "{v}");
            let mut out = Vec::new();
            encode(*v, &mut out);
            assert_eq!(out, *bytes, "{v}");
            assert_eq!(len(*v), bytes.len());
        }
        // Not the shortest form, still 37 (RFC 9000 §16: "0x4025 also decodes to 37").
        assert_eq!(decode(&[0x40, 0x25]), Some((37, 2)));
        // The bytes after a varint are not its business.
        assert_eq!(decode(&[0x25, 0xff]), Some((37, 1)));
    }

    #[test]
    fn truncated_input_asks_for_more() {
        for (bytes, _) in TABLE {
            for cut in 0..bytes.len() {
                assert_eq!(decode(&bytes[..cut]), None, "{bytes:02x?} cut at {cut}");
            }
        }
    }

    #[test]
    #[should_panic(expected = "above 2^62-1")]
    fn a_value_above_the_max_is_refused() {
        encode(MAX + 1, &mut Vec::new());
    }
}

//! The first chunk-size line of a chunked request body, checked before `/echo` sends its head.
//!
//! `/echo` streams the body back as it arrives, so its `200 OK` head goes out before the body is
//! read; a body whose very first chunk is malformed would then get a 200 and a cut body. Waiting
//! for the first size line (bounded) and checking it first lets the server answer 400 for a
//! malformed size and 413 for one that overflows or exceeds the body limit, as nginx does. A body
//! that goes bad after the head has gone out can only be cut: the connection is closed.

use barrage_wire::chunked::ChunkedDecoder;

/// Longest first line (size and extensions) waited for before calling the body malformed.
pub const MAX_LINE: usize = 4096;

/// What the start of a chunked body says about its first chunk.
#[derive(Debug, PartialEq, Eq)]
pub enum FirstChunk {
    /// The size line has not fully arrived.
    Pending,
    /// Well-formed and within `limit`.
    Ok,
    /// Malformed (400).
    Malformed,
    /// Its size overflows or exceeds `limit` (413).
    TooLarge,
}

/// Checks the first size line at the start of `inp` (nothing of the body consumed yet).
pub fn check(inp: &[u8], limit: u64) -> FirstChunk {
    let Some(lf) = inp.iter().position(|&b| b == b'\n') else {
        return if inp.len() > MAX_LINE {
            FirstChunk::Malformed
        } else {
            FirstChunk::Pending
        };
    };
    // The wire decoder is the judge of the syntax (the same rules as for the rest of the body).
    let mut dec = ChunkedDecoder::new();
    match dec.decode(&inp[..=lf], |_| {}) {
        Err(barrage_wire::WireError::ChunkSizeOverflow) => return FirstChunk::TooLarge,
        Err(_) => return FirstChunk::Malformed,
        Ok(_) => {}
    }
    let digits = inp.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    let size = std::str::from_utf8(&inp[..digits])
        .ok()
        .and_then(|h| u64::from_str_radix(h, 16).ok());
    match size {
        Some(n) if n <= limit => FirstChunk::Ok,
        Some(_) => FirstChunk::TooLarge,
        None => FirstChunk::Malformed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        let limit = 1 << 20;
        let cases: &[(&[u8], FirstChunk)] = &[
            (b"", FirstChunk::Pending),
            (b"5", FirstChunk::Pending),
            (b"5\r", FirstChunk::Pending),
            (b"5\r\nhello", FirstChunk::Ok),
            (b"5;ext=1\r\nhello", FirstChunk::Ok),
            (b"0\r\n\r\n", FirstChunk::Ok),
            (b"zz\r\n", FirstChunk::Malformed),
            (b"\r\n", FirstChunk::Malformed),
            (b"5\n", FirstChunk::Malformed),
            (b"-1\r\n", FirstChunk::Malformed),
            (b"0123456789abcdef0123\r\n", FirstChunk::TooLarge),
            (b"100001\r\n", FirstChunk::TooLarge),
            (b"100000\r\n", FirstChunk::Ok),
        ];
        for (inp, want) in cases {
            assert_eq!(
                &check(inp, limit),
                want,
                "{:?}",
                String::from_utf8_lossy(inp)
            );
        }
        assert_eq!(check(&[b'1'; MAX_LINE + 1], limit), FirstChunk::Malformed);
    }
}

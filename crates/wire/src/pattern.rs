//! The `/bytes/{n}` body pattern, simple enough to verify in any language.
//!
//! Byte `i` of every `/bytes` body (and of `/fault/drip` bodies) is `i % 251`: a prime period, so
//! a chunk that a client delivers at the wrong offset, twice, or not at all breaks the sequence
//! wherever it happens. `X-Checksum` carries `crc32=xxxxxxxx`: the CRC-32 (IEEE 802.3, the one of
//! zlib, gzip and PNG; `zlib.crc32` in Python, `hash/crc32` in Go, `java.util.zip.CRC32`) of the
//! whole body, as 8 lowercase hex digits.
//!
//! The server writes the body from one precomputed buffer whose length is a multiple of the
//! period, so any offset maps to a slice of it and consecutive slices continue the sequence.

use std::sync::OnceLock;

/// Period of the pattern: byte `i` is `(i % PERIOD) as u8`.
pub const PERIOD: u64 = 251;

/// Periods in the shared buffer (about 256 KiB).
const BLOCK_PERIODS: usize = 1045;

/// The byte at `offset`.
pub fn byte_at(offset: u64) -> u8 {
    (offset % PERIOD) as u8
}

/// Fills `buf` with the pattern bytes starting at `offset`.
pub fn fill(offset: u64, buf: &mut [u8]) {
    let mut v = byte_at(offset);
    for b in buf {
        *b = v;
        v = if u64::from(v) + 1 == PERIOD { 0 } else { v + 1 };
    }
}

/// The CRC-32 of the first `n` pattern bytes.
///
/// Computed in O(log n) CRC combinations rather than O(n) bytes: the body is `n / PERIOD` copies
/// of one period followed by a partial one, and copies are doubled with `crc32fast`'s combine.
pub fn crc32(n: u64) -> u32 {
    let period = &block()[..PERIOD as usize];
    if n <= 1 << 16 {
        // Short bodies: hashing the bytes is cheaper than the combinations.
        let mut h = crc32fast::Hasher::new();
        let mut left = n as usize;
        let b = block();
        while left > 0 {
            let take = left.min(b.len());
            h.update(&b[..take]);
            left -= take;
        }
        return h.finalize();
    }
    let mut acc = crc32fast::Hasher::new();
    let mut pow = crc32fast::Hasher::new();
    pow.update(period);
    let mut copies = n / PERIOD;
    while copies > 0 {
        if copies & 1 == 1 {
            acc.combine(&pow);
        }
        copies >>= 1;
        if copies > 0 {
            let p = pow.clone();
            pow.combine(&p);
        }
    }
    acc.update(&period[..(n % PERIOD) as usize]);
    acc.finalize()
}

/// The `X-Checksum` value of a body of `n` pattern bytes: `crc32=` and 8 lowercase hex digits.
pub fn checksum(n: u64) -> String {
    format!("crc32={:08x}", crc32(n))
}

/// The shared pattern buffer: starts at offset 0, length a multiple of [`PERIOD`].
pub(crate) fn block() -> &'static [u8] {
    static BLOCK: OnceLock<Vec<u8>> = OnceLock::new();
    BLOCK.get_or_init(|| {
        let mut v = vec![0u8; PERIOD as usize * BLOCK_PERIODS];
        fill(0, &mut v);
        v
    })
}

/// The longest slice of [`block`] that starts with the pattern byte at `offset`, at most `max`
/// long. Never empty when `max > 0`.
pub fn slice_at(offset: u64, max: usize) -> &'static [u8] {
    let b = block();
    let start = (offset % PERIOD) as usize;
    let len = (b.len() - PERIOD as usize).min(max);
    &b[start..start + len]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes() {
        let mut v = vec![0u8; 600];
        fill(0, &mut v);
        assert_eq!(&v[..3], &[0, 1, 2]);
        assert_eq!(v[250], 250);
        assert_eq!(v[251], 0);
        assert_eq!(v[502], 0);
        let mut w = vec![0u8; 100];
        fill(1000, &mut w);
        assert_eq!(w[0], (1000 % 251) as u8);
        assert!(w
            .iter()
            .enumerate()
            .all(|(i, &b)| b == byte_at(1000 + i as u64)));
        let s = slice_at(1000, 1 << 20);
        assert!(s.len() >= 256 * 1024 - 251);
        assert!(s
            .iter()
            .enumerate()
            .all(|(i, &b)| b == byte_at(1000 + i as u64)));
    }

    #[test]
    fn checksum_matches_direct_crc() {
        for n in [
            0u64,
            1,
            13,
            250,
            251,
            252,
            65_535,
            65_536,
            65_537,
            100_000,
            1_000_003,
            3 << 20,
        ] {
            let mut v = vec![0u8; n as usize];
            fill(0, &mut v);
            assert_eq!(crc32(n), crc32fast::hash(&v), "n={n}");
        }
        // Known values (python3 -c 'import zlib; print(hex(zlib.crc32(bytes(i % 251 for i in range(n)))))').
        assert_eq!(checksum(0), "crc32=00000000");
        assert_eq!(checksum(3), "crc32=0854897f");
        assert_eq!(checksum(1000), "crc32=721746a6");
        assert_eq!(checksum(1 << 20), "crc32=ef0e6054");
    }
}

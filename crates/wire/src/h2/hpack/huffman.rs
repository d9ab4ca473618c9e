//! HPACK's Huffman code (RFC 7541 §5.2, Appendix B), decoded canonically: the code is canonical
//! (the codes of each length are consecutive, shorter lengths first), so a symbol is found from
//! the code's value and length alone, with no tree and no allocation. The decoder appends to the
//! caller's buffer, which the caller reuses.

use super::tables::HUFFMAN;
use std::sync::OnceLock;

/// The canonical code's shape: per length, its first code and where its symbols start.
struct Canon {
    first: [u32; 31],
    count: [u16; 31],
    offset: [u16; 31],
    /// Symbols ordered by (length, code).
    symbols: [u16; 257],
    /// Per length L, the first code longer than L, as a 32-bit left-aligned value: the next 32
    /// bits of input are a code of length L when below `limit[L]` and not below `limit[L - 1]`.
    limit: [u64; 31],
    /// Per value of the next 8 bits: the symbol and length of a code of 8 bits or fewer that
    /// they begin with (length 0: a longer code).
    fast: [(u8, u8); 256],
}

fn canon() -> &'static Canon {
    static C: OnceLock<Canon> = OnceLock::new();
    C.get_or_init(|| {
        let mut order: Vec<u16> = (0..257).collect();
        order.sort_by_key(|&s| (HUFFMAN[s as usize].1, HUFFMAN[s as usize].0));
        let mut c = Canon {
            first: [0; 31],
            count: [0; 31],
            offset: [0; 31],
            symbols: [0; 257],
            limit: [0; 31],
            fast: [(0, 0); 256],
        };
        for (i, &s) in order.iter().enumerate() {
            let (code, len) = HUFFMAN[s as usize];
            let l = len as usize;
            if c.count[l] == 0 {
                c.first[l] = code;
                c.offset[l] = i as u16;
            }
            // Canonical: each code of a length follows the previous one.
            assert_eq!(
                code,
                c.first[l] + u32::from(c.count[l]),
                "HPACK code not canonical"
            );
            c.count[l] += 1;
            c.symbols[i] = s;
            if l <= 8 {
                // Every 8-bit value this code begins.
                let lo = (code << (8 - l)) as usize;
                for v in lo..lo + (1 << (8 - l)) {
                    c.fast[v] = (s as u8, len);
                }
            }
        }
        for l in 1..31 {
            let end = (u64::from(c.first[l]) + u64::from(c.count[l])) << (32 - l);
            // A length no code has keeps the limit of the one before.
            c.limit[l] = if c.count[l] == 0 { c.limit[l - 1] } else { end };
        }
        c
    })
}

/// A Huffman-coded string that breaks §5.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HuffmanError {
    /// The EOS symbol inside a string.
    Eos,
    /// More than 7 bits of padding, or padding that is not all ones.
    Padding,
}

/// Decodes `input`, appending the octets to `out`.
///
/// Up to 64 bits at a time: a code of 8 bits or fewer (the letters, digits and common
/// punctuation of header values) is found by one lookup of the next 8 bits, a longer one by its
/// length, the shortest whose canonical limit is above the next 32 bits (so no bit-at-a-time
/// walk: this was 16% of `barrage load --http3`'s CPU).
pub fn decode(input: &[u8], out: &mut Vec<u8>) -> Result<(), HuffmanError> {
    let c = canon();
    let (mut acc, mut nbits, mut i) = (0u64, 0u32, 0usize);
    out.reserve(input.len() * 8 / 5);
    loop {
        while nbits <= 56 && i < input.len() {
            acc = (acc << 8) | u64::from(input[i]);
            nbits += 8;
            i += 1;
        }
        if nbits == 0 {
            return Ok(());
        }
        // The next 32 bits, left-aligned; past the end, ones (what padding must be).
        let w = if nbits >= 32 {
            (acc >> (nbits - 32)) as u32
        } else {
            ((acc << (32 - nbits)) as u32) | (u32::MAX >> nbits)
        };
        let (sym, len) = match c.fast[(w >> 24) as usize] {
            (sym, len) if len > 0 => (u16::from(sym), u32::from(len)),
            _ => {
                let mut len = 9;
                while u64::from(w) >= c.limit[len] {
                    len += 1;
                }
                let code = w >> (32 - len);
                let k = u32::from(c.offset[len]) + code - c.first[len];
                (c.symbols[k as usize], len as u32)
            }
        };
        if len > nbits {
            // What is left is no whole code: padding, which must be fewer than 8 ones.
            let rest = acc & ((1u64 << nbits) - 1);
            if nbits > 7 || rest != (1u64 << nbits) - 1 {
                return Err(HuffmanError::Padding);
            }
            return Ok(());
        }
        if sym == 256 {
            return Err(HuffmanError::Eos);
        }
        out.push(sym as u8);
        nbits -= len;
        acc &= (1u64 << nbits) - 1;
    }
}

/// Appends the Huffman coding of `input` (padded with ones to a byte) to `out`.
pub fn encode(input: &[u8], out: &mut Vec<u8>) {
    let (mut acc, mut bits) = (0u64, 0u32);
    for &b in input {
        let (code, len) = HUFFMAN[b as usize];
        acc = (acc << len) | u64::from(code);
        bits += u32::from(len);
        while bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    if bits > 0 {
        out.push(((acc << (8 - bits)) | ((1 << (8 - bits)) - 1)) as u8);
    }
}

/// The length of `input` Huffman-coded, in bytes.
pub fn encoded_len(input: &[u8]) -> usize {
    let bits: usize = input.iter().map(|&b| HUFFMAN[b as usize].1 as usize).sum();
    bits.div_ceil(8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// RFC 7541 Appendix C.4 and C.6: strings and their Huffman codings as the RFC prints them.
    const KNOWN: &[(&str, &str)] = &[
        ("www.example.com", "f1e3 c2e5 f23a 6ba0 ab90 f4ff"),
        ("no-cache", "a8eb 1064 9cbf"),
        ("custom-key", "25a8 49e9 5ba9 7d7f"),
        ("custom-value", "25a8 49e9 5bb8 e8b4 bf"),
        ("302", "6402"),
        ("private", "aec3 771a 4b"),
        ("Mon, 21 Oct 2013 20:13:21 GMT", "d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff"),
        ("https://www.example.com", "9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3"),
        (
            "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
            "94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07",
        ),
    ];

    #[test]
    fn the_rfcs_examples_decode_and_encode() {
        for (text, hex) in KNOWN {
            let coded = unhex(hex);
            let mut out = Vec::new();
            decode(&coded, &mut out).unwrap();
            assert_eq!(out, text.as_bytes(), "{text}");
            let mut enc = Vec::new();
            encode(text.as_bytes(), &mut enc);
            assert_eq!(enc, coded, "{text}");
            assert_eq!(encoded_len(text.as_bytes()), coded.len());
        }
    }

    #[test]
    fn every_octet_round_trips() {
        let all: Vec<u8> = (0..=255).collect();
        let mut enc = Vec::new();
        encode(&all, &mut enc);
        let mut out = Vec::new();
        decode(&enc, &mut out).unwrap();
        assert_eq!(out, all);
    }

    #[test]
    fn bad_padding_and_eos_are_errors() {
        // "0" is 00000 (5 bits): padded with 111 is fine, with 000 or 110 it is not.
        let mut out = Vec::new();
        assert_eq!(decode(&[0b0000_0111], &mut out), Ok(()));
        assert_eq!(out, b"0");
        assert_eq!(
            decode(&[0b0000_0000], &mut Vec::new()),
            Err(HuffmanError::Padding)
        );
        assert_eq!(
            decode(&[0b0000_0110], &mut Vec::new()),
            Err(HuffmanError::Padding)
        );
        // A whole byte of padding (8 ones) is too long.
        assert_eq!(
            decode(&[0b0000_0111, 0xff], &mut Vec::new()),
            Err(HuffmanError::Padding)
        );
        // EOS itself: 30 ones, padded with ones to 32 bits.
        assert_eq!(
            decode(&[0xff, 0xff, 0xff, 0xff], &mut Vec::new()),
            Err(HuffmanError::Eos)
        );
    }

    /// The bit-at-a-time decoder this module had: the reference the fast one is held to.
    fn decode_bitwise(input: &[u8], out: &mut Vec<u8>) -> Result<(), HuffmanError> {
        let c = canon();
        let (mut code, mut len) = (0u32, 0usize);
        for &byte in input {
            for k in (0..8).rev() {
                code = (code << 1) | u32::from((byte >> k) & 1);
                len += 1;
                if len > 30 {
                    return Err(HuffmanError::Padding);
                }
                let n = u32::from(c.count[len]);
                if n > 0 && code >= c.first[len] && code - c.first[len] < n {
                    let s = c.symbols[(u32::from(c.offset[len]) + code - c.first[len]) as usize];
                    if s == 256 {
                        return Err(HuffmanError::Eos);
                    }
                    out.push(s as u8);
                    code = 0;
                    len = 0;
                }
            }
        }
        // What is left must be a prefix of EOS (all ones) shorter than a byte.
        if len > 7 || code != (1 << len) - 1 {
            return Err(HuffmanError::Padding);
        }
        Ok(())
    }

    proptest::proptest! {
        #[test]
        fn the_fast_decoder_agrees_with_the_bitwise_one(input in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40)) {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let ra = decode(&input, &mut a);
            let rb = decode_bitwise(&input, &mut b);
            proptest::prop_assert_eq!(ra, rb);
            if ra.is_ok() {
                proptest::prop_assert_eq!(a, b);
            }
        }

        #[test]
        fn any_string_round_trips(text in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)) {
            let mut enc = Vec::new();
            encode(&text, &mut enc);
            let mut out = Vec::new();
            proptest::prop_assert_eq!(decode(&enc, &mut out), Ok(()));
            proptest::prop_assert_eq!(out, text);
        }
    }

    #[test]
    fn codes_near_every_length_boundary_decode_as_the_bitwise_decoder_does() {
        // Each symbol alone and after each other symbol of a few lengths, then cut at every
        // bit count: whole codes, padding and broken padding agree.
        for s in 0..=255u8 {
            for t in [b'a', b'0', b'{', 0u8, 255u8] {
                let mut enc = Vec::new();
                encode(&[t, s, t], &mut enc);
                for cut in 0..=enc.len() {
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    assert_eq!(
                        decode(&enc[..cut], &mut a),
                        decode_bitwise(&enc[..cut], &mut b),
                        "{t} {s} cut {cut}"
                    );
                    assert_eq!(a, b);
                }
            }
        }
    }
}

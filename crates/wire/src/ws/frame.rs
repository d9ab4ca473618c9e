//! WebSocket frames (RFC 6455 §5.2): [`parse_header`] reads a frame header from the front of a
//! buffer and checks what can be checked without knowing the connection's state; the `write_*`
//! functions append frames to a caller's buffer (growing it only past its capacity);
//! [`apply_mask`] masks and unmasks in place.

use super::WsError;

/// The most a frame header takes: 2 bytes, an 8-byte length, a 4-byte mask key.
pub const MAX_HEADER_LEN: usize = 14;

/// The largest payload of a control frame (§5.5).
pub const MAX_CONTROL_PAYLOAD: usize = 125;

/// The opcodes of §5.2 (the reserved ones are refused by [`parse_header`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opcode {
    Continuation,
    Text,
    Binary,
    Close,
    Ping,
    Pong,
}

impl Opcode {
    pub fn from_u8(op: u8) -> Result<Opcode, WsError> {
        Ok(match op {
            0x0 => Opcode::Continuation,
            0x1 => Opcode::Text,
            0x2 => Opcode::Binary,
            0x8 => Opcode::Close,
            0x9 => Opcode::Ping,
            0xA => Opcode::Pong,
            op => return Err(WsError::ReservedOpcode(op)),
        })
    }

    pub fn to_u8(self) -> u8 {
        match self {
            Opcode::Continuation => 0x0,
            Opcode::Text => 0x1,
            Opcode::Binary => 0x2,
            Opcode::Close => 0x8,
            Opcode::Ping => 0x9,
            Opcode::Pong => 0xA,
        }
    }

    /// Close, ping and pong: never fragmented, at most 125 bytes, allowed between fragments.
    pub fn is_control(self) -> bool {
        matches!(self, Opcode::Close | Opcode::Ping | Opcode::Pong)
    }
}

/// A frame header as it came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub fin: bool,
    pub opcode: Opcode,
    /// The masking key, when the mask bit was set.
    pub mask: Option<[u8; 4]>,
    /// The payload length.
    pub len: u64,
}

/// Reads a frame header from the front of `buf`: `Ok(None)` when more bytes are needed, else the
/// header and its length in bytes. Refused here: reserved bits (no extension is negotiated),
/// reserved opcodes, a 64-bit length with its top bit set, and a control frame that is
/// fragmented or longer than 125 bytes. Lengths not in their shortest form are accepted (the
/// rule binds senders, and most receivers let it pass).
pub fn parse_header(buf: &[u8]) -> Result<Option<(Header, usize)>, WsError> {
    let [b0, b1, ..] = *buf else {
        return Ok(None);
    };
    if b0 & 0x70 != 0 {
        return Err(WsError::ReservedBits);
    }
    let fin = b0 & 0x80 != 0;
    let opcode = Opcode::from_u8(b0 & 0x0F)?;
    let masked = b1 & 0x80 != 0;
    let (len, mut at) = match b1 & 0x7F {
        126 => match buf.get(2..4) {
            Some(b) => (u64::from(u16::from_be_bytes([b[0], b[1]])), 4),
            None => return Ok(None),
        },
        127 => match buf.get(2..10) {
            Some(b) => {
                let len = u64::from_be_bytes(b.try_into().expect("8 bytes"));
                if len >> 63 != 0 {
                    return Err(WsError::LengthTopBit);
                }
                (len, 10)
            }
            None => return Ok(None),
        },
        n => (u64::from(n), 2),
    };
    if opcode.is_control() {
        if !fin {
            return Err(WsError::ControlFragmented);
        }
        if len > MAX_CONTROL_PAYLOAD as u64 {
            return Err(WsError::ControlTooLong(len));
        }
    }
    let mask = if masked {
        let Some(k) = buf.get(at..at + 4) else {
            return Ok(None);
        };
        at += 4;
        Some([k[0], k[1], k[2], k[3]])
    } else {
        None
    };
    Ok(Some((
        Header {
            fin,
            opcode,
            mask,
            len,
        },
        at,
    )))
}

/// Appends a frame header.
pub fn write_header(out: &mut Vec<u8>, fin: bool, opcode: Opcode, len: u64, mask: Option<[u8; 4]>) {
    let mut h = [0u8; MAX_HEADER_LEN];
    h[0] = (u8::from(fin) << 7) | opcode.to_u8();
    let m = if mask.is_some() { 0x80 } else { 0 };
    let mut n = 2;
    if len < 126 {
        h[1] = m | len as u8;
    } else if len <= u64::from(u16::MAX) {
        h[1] = m | 126;
        h[2..4].copy_from_slice(&(len as u16).to_be_bytes());
        n = 4;
    } else {
        h[1] = m | 127;
        h[2..10].copy_from_slice(&len.to_be_bytes());
        n = 10;
    }
    if let Some(k) = mask {
        h[n..n + 4].copy_from_slice(&k);
        n += 4;
    }
    out.extend_from_slice(&h[..n]);
}

/// Appends a whole frame: its header and `payload`, masked with `mask` when given (the copy and
/// the mask are one pass over the bytes appended).
pub fn write_frame(
    out: &mut Vec<u8>,
    fin: bool,
    opcode: Opcode,
    payload: &[u8],
    mask: Option<[u8; 4]>,
) {
    write_header(out, fin, opcode, payload.len() as u64, mask);
    let start = out.len();
    out.extend_from_slice(payload);
    if let Some(k) = mask {
        apply_mask(&mut out[start..], k, 0);
    }
}

/// Appends a Close frame: no payload without a code, else the code and the reason (which the
/// caller keeps within 123 bytes; longer reasons are cut to fit).
pub fn write_close(out: &mut Vec<u8>, code: Option<u16>, reason: &str, mask: Option<[u8; 4]>) {
    let mut p = [0u8; MAX_CONTROL_PAYLOAD];
    let n = match code {
        None => 0,
        Some(c) => {
            p[..2].copy_from_slice(&c.to_be_bytes());
            let mut r = reason.len().min(MAX_CONTROL_PAYLOAD - 2);
            while !reason.is_char_boundary(r) {
                r -= 1;
            }
            p[2..2 + r].copy_from_slice(&reason.as_bytes()[..r]);
            2 + r
        }
    };
    write_frame(out, true, Opcode::Close, &p[..n], mask);
}

/// XORs `data` with the mask `key` (§5.3), in place, as if `data` began `offset` bytes into the
/// frame's payload (a frame may arrive in pieces). Eight bytes a step: the key repeated to a
/// word, rotated to the offset, so the work is one XOR per word whatever the alignment.
pub fn apply_mask(data: &mut [u8], key: [u8; 4], offset: u64) {
    let r = (offset % 4) as usize;
    let k = [key[r], key[(r + 1) % 4], key[(r + 2) % 4], key[(r + 3) % 4]];
    let word = u64::from_ne_bytes([k[0], k[1], k[2], k[3], k[0], k[1], k[2], k[3]]);
    let mut chunks = data.chunks_exact_mut(8);
    for c in &mut chunks {
        let v = u64::from_ne_bytes((&*c).try_into().expect("8 bytes")) ^ word;
        c.copy_from_slice(&v.to_ne_bytes());
    }
    // The tail starts at a multiple of 8 from `offset`, so the rotated key lines up with it.
    for (i, b) in chunks.into_remainder().iter_mut().enumerate() {
        *b ^= k[i % 4];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(fin: bool, opcode: Opcode, mask: Option<[u8; 4]>, len: u64) -> Header {
        Header {
            fin,
            opcode,
            mask,
            len,
        }
    }

    /// What `parse_header` answers.
    type Parsed = Result<Option<(Header, usize)>, WsError>;

    #[test]
    fn headers() {
        let k = Some([1, 2, 3, 4]);
        let cases: Vec<(&[u8], Parsed)> = vec![
            (b"", Ok(None)),
            (b"\x81", Ok(None)),
            (b"\x81\x05", Ok(Some((h(true, Opcode::Text, None, 5), 2)))),
            (b"\x01\x00", Ok(Some((h(false, Opcode::Text, None, 0), 2)))),
            (
                b"\x80\x7d",
                Ok(Some((h(true, Opcode::Continuation, None, 125), 2))),
            ),
            (b"\x82\x7e\x00", Ok(None)),
            (
                b"\x82\x7e\x00\x7e",
                Ok(Some((h(true, Opcode::Binary, None, 126), 4))),
            ),
            (
                b"\x82\x7e\xff\xff",
                Ok(Some((h(true, Opcode::Binary, None, 65535), 4))),
            ),
            (
                b"\x82\x7f\x00\x00\x00\x00\x00\x01\x00\x00",
                Ok(Some((h(true, Opcode::Binary, None, 65536), 10))),
            ),
            (b"\x82\x7f\x00\x00\x00\x00\x00\x01\x00", Ok(None)),
            (
                b"\x82\x7f\x7f\xff\xff\xff\xff\xff\xff\xff",
                Ok(Some((h(true, Opcode::Binary, None, (1 << 63) - 1), 10))),
            ),
            (
                b"\x82\x7f\x80\x00\x00\x00\x00\x00\x00\x00",
                Err(WsError::LengthTopBit),
            ),
            (b"\x81\x85\x01\x02\x03", Ok(None)),
            (
                b"\x81\x85\x01\x02\x03\x04",
                Ok(Some((h(true, Opcode::Text, k, 5), 6))),
            ),
            // A 16-bit length of 5 is not the shortest form; accepted.
            (
                b"\x89\xfe\x00\x05\x01\x02\x03\x04",
                Ok(Some((h(true, Opcode::Ping, k, 5), 8))),
            ),
            (b"\x89\x7e\x00\x7e", Err(WsError::ControlTooLong(126))),
            (b"\x89\x7d", Ok(Some((h(true, Opcode::Ping, None, 125), 2)))),
            (b"\x8a\x00", Ok(Some((h(true, Opcode::Pong, None, 0), 2)))),
            (b"\x88\x02", Ok(Some((h(true, Opcode::Close, None, 2), 2)))),
            (b"\x09\x00", Err(WsError::ControlFragmented)),
            (b"\xc1\x00", Err(WsError::ReservedBits)),
            (b"\xa1\x00", Err(WsError::ReservedBits)),
            (b"\x91\x00", Err(WsError::ReservedBits)),
            (b"\x83\x00", Err(WsError::ReservedOpcode(3))),
            (b"\x87\x00", Err(WsError::ReservedOpcode(7))),
            (b"\x8b\x00", Err(WsError::ReservedOpcode(0xb))),
            (b"\x8f\x00", Err(WsError::ReservedOpcode(0xf))),
        ];
        for (input, want) in cases {
            assert_eq!(parse_header(input), want, "{input:?}");
        }
    }

    #[test]
    fn written_headers_parse_back() {
        for len in [0u64, 1, 125, 126, 127, 65535, 65536, 1 << 32, (1 << 63) - 1] {
            for mask in [None, Some([9, 8, 7, 6])] {
                for (fin, op) in [
                    (true, Opcode::Binary),
                    (false, Opcode::Text),
                    (true, Opcode::Continuation),
                ] {
                    let mut out = Vec::new();
                    write_header(&mut out, fin, op, len, mask);
                    let want =
                        2 + match len {
                            0..=125 => 0,
                            126..=65535 => 2,
                            _ => 8,
                        } + if mask.is_some() { 4 } else { 0 };
                    assert_eq!(out.len(), want, "{len}");
                    assert_eq!(parse_header(&out), Ok(Some((h(fin, op, mask, len), want))));
                }
            }
        }
    }

    #[test]
    fn rfc_examples() {
        // RFC 6455 §5.7.
        let mut out = Vec::new();
        write_frame(&mut out, true, Opcode::Text, b"Hello", None);
        assert_eq!(out, b"\x81\x05\x48\x65\x6c\x6c\x6f");
        out.clear();
        write_frame(
            &mut out,
            true,
            Opcode::Text,
            b"Hello",
            Some([0x37, 0xfa, 0x21, 0x3d]),
        );
        assert_eq!(out, b"\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58");
        out.clear();
        write_frame(&mut out, true, Opcode::Ping, b"Hello", None);
        assert_eq!(out, b"\x89\x05\x48\x65\x6c\x6c\x6f");
        out.clear();
        write_frame(
            &mut out,
            true,
            Opcode::Pong,
            b"Hello",
            Some([0x37, 0xfa, 0x21, 0x3d]),
        );
        assert_eq!(out, b"\x8a\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58");
        out.clear();
        write_header(&mut out, true, Opcode::Binary, 256, None);
        assert_eq!(out, b"\x82\x7e\x01\x00");
        out.clear();
        write_header(&mut out, true, Opcode::Binary, 65536, None);
        assert_eq!(out, b"\x82\x7f\x00\x00\x00\x00\x00\x01\x00\x00");
    }

    #[test]
    fn close_frames() {
        let mut out = Vec::new();
        write_close(&mut out, None, "ignored", None);
        assert_eq!(out, b"\x88\x00");
        out.clear();
        write_close(&mut out, Some(1000), "bye", None);
        assert_eq!(out, b"\x88\x05\x03\xe8bye");
        out.clear();
        // A reason cut to fit 125 bytes, on a character boundary.
        let long = "é".repeat(100);
        write_close(&mut out, Some(1001), &long, None);
        assert_eq!(out[1], 124);
        assert!(std::str::from_utf8(&out[4..]).is_ok());
    }

    #[test]
    fn mask_by_words_equals_mask_by_bytes() {
        let key = [0x37, 0xfa, 0x21, 0x3d];
        let data: Vec<u8> = (0..100u8).map(|i| i.wrapping_mul(31)).collect();
        for offset in 0..9u64 {
            for start in 0..20 {
                for end in start..data.len() {
                    let mut fast = data[start..end].to_vec();
                    apply_mask(&mut fast, key, offset);
                    let slow: Vec<u8> = data[start..end]
                        .iter()
                        .enumerate()
                        .map(|(i, b)| b ^ key[(offset as usize + i) % 4])
                        .collect();
                    assert_eq!(fast, slow, "offset {offset} {start}..{end}");
                }
            }
        }
        // In pieces, each at its offset, the same as whole.
        let mut whole = data.clone();
        apply_mask(&mut whole, key, 0);
        let mut pieces = data.clone();
        let mut at = 0;
        for n in [3usize, 1, 8, 13, 75] {
            apply_mask(&mut pieces[at..at + n], key, at as u64);
            at += n;
        }
        assert_eq!(pieces, whole);
    }
}

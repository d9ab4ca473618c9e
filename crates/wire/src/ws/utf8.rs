//! UTF-8 validation of a text message that arrives in pieces (fragments, and fragments cut by
//! reads): std's validator on each piece, with the up to three bytes of a character cut at a
//! piece's end carried to the next. It fails at the first piece that holds a byte no valid text
//! can have there, not at the message's end (Autobahn's "fail fast" cases, 6.4.x).

use super::WsError;

/// The state of one message's validation.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Utf8 {
    /// The start of a character cut at the last piece's end: always a valid prefix.
    carry: [u8; 4],
    n: u8,
}

/// Bytes in the character a valid lead byte begins.
fn width(lead: u8) -> usize {
    match lead {
        0xF0..=0xF7 => 4,
        0xE0..=0xEF => 3,
        _ => 2,
    }
}

impl Utf8 {
    /// Checks the next piece; [`WsError::InvalidUtf8`] as soon as the text cannot be valid
    /// whatever follows.
    pub fn feed(&mut self, mut data: &[u8]) -> Result<(), WsError> {
        if self.n > 0 {
            let have = usize::from(self.n);
            let w = width(self.carry[0]);
            let take = (w - have).min(data.len());
            self.carry[have..have + take].copy_from_slice(&data[..take]);
            self.n += take as u8;
            data = &data[take..];
            match std::str::from_utf8(&self.carry[..usize::from(self.n)]) {
                Ok(_) => self.n = 0,
                // Still a valid prefix of a character: wait for more.
                Err(e) if e.error_len().is_none() => return Ok(()),
                Err(_) => return Err(WsError::InvalidUtf8),
            }
        }
        match std::str::from_utf8(data) {
            Ok(_) => Ok(()),
            Err(e) if e.error_len().is_none() => {
                let tail = &data[e.valid_up_to()..];
                self.carry[..tail.len()].copy_from_slice(tail);
                self.n = tail.len() as u8;
                Ok(())
            }
            Err(_) => Err(WsError::InvalidUtf8),
        }
    }

    /// The message ended: [`WsError::InvalidUtf8`] if it ended inside a character. Ready for
    /// the next message.
    pub fn finish(&mut self) -> Result<(), WsError> {
        let cut = self.n > 0;
        *self = Utf8::default();
        if cut {
            Err(WsError::InvalidUtf8)
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `input` fed in pieces of every size from 1 up, the same verdict as std's on the whole,
    /// and a failure no later than the piece holding the first bad byte.
    fn check(input: &[u8]) {
        let whole_ok = std::str::from_utf8(input).is_ok();
        for size in 1..=input.len().max(1) {
            let mut v = Utf8::default();
            let mut failed_at = None;
            for (i, piece) in input.chunks(size).enumerate() {
                if v.feed(piece).is_err() {
                    failed_at = Some(i);
                    break;
                }
            }
            let ok = failed_at.is_none() && v.finish().is_ok();
            assert_eq!(ok, whole_ok, "{input:?} in pieces of {size}");
            if let (Some(i), Err(e)) = (failed_at, std::str::from_utf8(input)) {
                if let Some(bad_len) = e.error_len() {
                    // The byte after a bad sequence is the last that can reveal it.
                    let reveal = e.valid_up_to() + bad_len;
                    assert!(
                        i * size <= reveal,
                        "{input:?} failed late, in pieces of {size}"
                    );
                }
            }
        }
    }

    #[test]
    fn table() {
        let cases: &[&[u8]] = &[
            b"",
            b"Hello-\xc2\xb5@\xc3\x9f\xc3\xb6\xc3\xa4\xc3\xbc\xc3\xa0\xc3\xa1-UTF-8!!",
            "κόσμε".as_bytes(),
            b"\xf0\x90\x80\x80",
            b"\xf4\x8f\xbf\xbf",
            b"\xef\xbf\xbf",
            b"\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80edited",
            b"\xf4\x90\x80\x80",
            b"\xed\xa0\x80",
            b"\xed\xbf\xbf",
            b"\xc0\xaf",
            b"\xe0\x80\xaf",
            b"\xf8\x88\x80\x80\x80",
            b"\x80",
            b"\xbf",
            b"\xfe",
            b"\xff",
            b"\xc2",
            b"\xe2\x82",
            b"\xf0\x9f\x98",
            b"a\xf0\x9f\x98\x80b\xc3",
            b"\xf0\x9f\x98\x80\xf0\x9f",
            b"\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xf4\x90\x80\x80\x65\x64\x69\x74\x65\x64",
        ];
        for c in cases {
            check(c);
        }
    }

    #[test]
    fn every_two_byte_and_some_three_byte_sequences() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                check(&[a, b]);
                check(&[b'x', a, b, b'y']);
            }
        }
        for a in [0xe0u8, 0xed, 0xef, 0xf0, 0xf4, 0xf5] {
            for b in 0x70..=0xc0u8 {
                for c in [0x7f, 0x80, 0xbf, 0xc0] {
                    check(&[a, b, c, 0x80]);
                }
            }
        }
    }
}

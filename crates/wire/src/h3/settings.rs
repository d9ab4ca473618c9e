//! SETTINGS (RFC 9114 §7.2.4): the parameters HTTP/3 and QPACK define, parsed from a frame's
//! payload with the checks the RFC makes (HTTP/2's identifiers and repeats refused), and written
//! back with only what differs from the defaults.

use super::error::{ErrorCode, H3Error};
use super::varint;

/// Setting identifiers (RFC 9114 §7.2.4.1, RFC 9204 §5).
pub mod id {
    pub const QPACK_MAX_TABLE_CAPACITY: u64 = 0x01;
    pub const MAX_FIELD_SECTION_SIZE: u64 = 0x06;
    pub const QPACK_BLOCKED_STREAMS: u64 = 0x07;
}

/// The parameters a peer announced; an absent one has its default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Settings {
    /// The most the peer's QPACK decoder lets our encoder's dynamic table hold (default 0).
    pub qpack_max_table_capacity: u64,
    /// The largest field section the peer takes (name + value + 32 per line); `None`: unlimited.
    pub max_field_section_size: Option<u64>,
    /// How many streams may wait on the peer's decoder for table inserts (default 0).
    pub qpack_blocked_streams: u64,
}

fn settings_error(what: &'static str) -> H3Error {
    H3Error::new(ErrorCode::Settings, what)
}

impl Settings {
    /// Parses a SETTINGS frame's payload. Unknown identifiers (grease among them) are skipped as
    /// §7.2.4 requires.
    pub fn parse(mut p: &[u8]) -> Result<Settings, H3Error> {
        let mut s = Settings::default();
        // The three known identifiers seen so far: a repeat is an error (§7.2.4).
        let mut seen = 0u8;
        while !p.is_empty() {
            let (k, a) = varint::decode(p).ok_or(H3Error::new(
                ErrorCode::Frame,
                "SETTINGS ends inside an identifier",
            ))?;
            let (v, b) = varint::decode(&p[a..]).ok_or(H3Error::new(
                ErrorCode::Frame,
                "SETTINGS ends inside a value",
            ))?;
            p = &p[a + b..];
            let bit = match k {
                id::QPACK_MAX_TABLE_CAPACITY => {
                    s.qpack_max_table_capacity = v;
                    1
                }
                id::MAX_FIELD_SECTION_SIZE => {
                    s.max_field_section_size = Some(v);
                    2
                }
                id::QPACK_BLOCKED_STREAMS => {
                    s.qpack_blocked_streams = v;
                    4
                }
                // HTTP/2's ENABLE_PUSH, MAX_CONCURRENT_STREAMS, INITIAL_WINDOW_SIZE and
                // MAX_FRAME_SIZE: reserved, and receiving them is an error (§7.2.4.1).
                0x02..=0x05 => return Err(settings_error("an HTTP/2 setting in SETTINGS")),
                _ => 0,
            };
            if seen & bit != 0 {
                return Err(settings_error("a setting repeated in SETTINGS"));
            }
            seen |= bit;
        }
        Ok(s)
    }

    /// Appends the payload: the parameters that differ from their defaults.
    pub fn write_payload(&self, out: &mut Vec<u8>) {
        let mut put = |k, v| {
            varint::encode(k, out);
            varint::encode(v, out);
        };
        if self.qpack_max_table_capacity != 0 {
            put(id::QPACK_MAX_TABLE_CAPACITY, self.qpack_max_table_capacity);
        }
        if let Some(v) = self.max_field_section_size {
            put(id::MAX_FIELD_SECTION_SIZE, v);
        }
        if self.qpack_blocked_streams != 0 {
            put(id::QPACK_BLOCKED_STREAMS, self.qpack_blocked_streams);
        }
    }

    /// The payload's length, for the frame header.
    pub fn payload_len(&self) -> usize {
        let mut v = Vec::new();
        self.write_payload(&mut v);
        v.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_settings_parse_and_unknown_ones_are_skipped() {
        // 0x21 is a grease identifier (0x1f * 0 + 0x21), 0x33 H3_DATAGRAM: both skipped.
        let p = [
            0x01, 0x44, 0x00, 0x21, 0x05, 0x06, 0x80, 0x01, 0x00, 0x00, 0x07, 0x10, 0x33, 0x01,
        ];
        assert_eq!(
            Settings::parse(&p),
            Ok(Settings {
                qpack_max_table_capacity: 0x400,
                max_field_section_size: Some(0x10000),
                qpack_blocked_streams: 16,
            })
        );
        assert_eq!(Settings::parse(&[]), Ok(Settings::default()));
    }

    #[test]
    fn http2_ids_repeats_and_truncation_are_errors() {
        for k in 2..=5u8 {
            let e = Settings::parse(&[k, 0]).unwrap_err();
            assert_eq!(e.code, ErrorCode::Settings, "{k}");
        }
        let e = Settings::parse(&[0x01, 0x00, 0x01, 0x01]).unwrap_err();
        assert_eq!(e.code, ErrorCode::Settings);
        assert_eq!(Settings::parse(&[0x01]).unwrap_err().code, ErrorCode::Frame);
        assert_eq!(Settings::parse(&[0x40]).unwrap_err().code, ErrorCode::Frame);
    }

    #[test]
    fn written_settings_parse_back() {
        for s in [
            Settings::default(),
            Settings {
                qpack_max_table_capacity: 4096,
                max_field_section_size: Some(0),
                qpack_blocked_streams: 100,
            },
            Settings {
                max_field_section_size: Some(varint::MAX),
                ..Settings::default()
            },
        ] {
            let mut p = Vec::new();
            s.write_payload(&mut p);
            assert_eq!(p.len(), s.payload_len());
            assert_eq!(Settings::parse(&p), Ok(s));
        }
    }
}

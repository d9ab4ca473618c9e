//! SETTINGS parameters (RFC 9113 §6.5.2): the values a peer announced, and their checks.

use super::frame::{ErrorCode, H2Error};
use super::{DEFAULT_MAX_FRAME_SIZE, DEFAULT_WINDOW, MAX_WINDOW};

pub const HEADER_TABLE_SIZE: u16 = 0x1;
pub const ENABLE_PUSH: u16 = 0x2;
pub const MAX_CONCURRENT_STREAMS: u16 = 0x3;
pub const INITIAL_WINDOW_SIZE: u16 = 0x4;
pub const MAX_FRAME_SIZE: u16 = 0x5;
pub const MAX_HEADER_LIST_SIZE: u16 = 0x6;

/// One side's settings, starting from the protocol's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub header_table_size: u32,
    pub enable_push: bool,
    /// `None`: no limit announced.
    pub max_concurrent_streams: Option<u32>,
    pub initial_window_size: u32,
    pub max_frame_size: u32,
    pub max_header_list_size: Option<u32>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            header_table_size: 4096,
            enable_push: true,
            max_concurrent_streams: None,
            initial_window_size: DEFAULT_WINDOW,
            max_frame_size: DEFAULT_MAX_FRAME_SIZE,
            max_header_list_size: None,
        }
    }
}

impl Settings {
    /// Applies a SETTINGS frame's parameters in order (unknown ones are ignored, as §6.5.2
    /// requires). Returns by how much INITIAL_WINDOW_SIZE changed, which every open stream's
    /// send window moves by (§6.9.2).
    pub fn apply(&mut self, params: &[u8]) -> Result<i64, H2Error> {
        let before = i64::from(self.initial_window_size);
        for p in params.chunks_exact(6) {
            let id = u16::from_be_bytes([p[0], p[1]]);
            let v = u32::from_be_bytes([p[2], p[3], p[4], p[5]]);
            let bad = |code, what| {
                Err(H2Error {
                    code,
                    stream: None,
                    what,
                })
            };
            match id {
                HEADER_TABLE_SIZE => self.header_table_size = v,
                ENABLE_PUSH => match v {
                    0 => self.enable_push = false,
                    1 => self.enable_push = true,
                    _ => return bad(ErrorCode::Protocol, "SETTINGS_ENABLE_PUSH not 0 or 1"),
                },
                MAX_CONCURRENT_STREAMS => self.max_concurrent_streams = Some(v),
                INITIAL_WINDOW_SIZE => {
                    if v > MAX_WINDOW {
                        return bad(
                            ErrorCode::FlowControl,
                            "SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1",
                        );
                    }
                    self.initial_window_size = v;
                }
                MAX_FRAME_SIZE => {
                    if !(DEFAULT_MAX_FRAME_SIZE..(1 << 24)).contains(&v) {
                        return bad(ErrorCode::Protocol, "SETTINGS_MAX_FRAME_SIZE out of range");
                    }
                    self.max_frame_size = v;
                }
                MAX_HEADER_LIST_SIZE => self.max_header_list_size = Some(v),
                _ => {}
            }
        }
        Ok(i64::from(self.initial_window_size) - before)
    }

    /// The parameters that differ from the defaults, to announce in a SETTINGS frame.
    pub fn params(&self) -> Vec<(u16, u32)> {
        let d = Settings::default();
        let mut v = Vec::new();
        if self.header_table_size != d.header_table_size {
            v.push((HEADER_TABLE_SIZE, self.header_table_size));
        }
        if self.enable_push != d.enable_push {
            v.push((ENABLE_PUSH, u32::from(self.enable_push)));
        }
        if let Some(m) = self.max_concurrent_streams {
            v.push((MAX_CONCURRENT_STREAMS, m));
        }
        if self.initial_window_size != d.initial_window_size {
            v.push((INITIAL_WINDOW_SIZE, self.initial_window_size));
        }
        if self.max_frame_size != d.max_frame_size {
            v.push((MAX_FRAME_SIZE, self.max_frame_size));
        }
        if let Some(m) = self.max_header_list_size {
            v.push((MAX_HEADER_LIST_SIZE, m));
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(ps: &[(u16, u32)]) -> Vec<u8> {
        ps.iter()
            .flat_map(|(i, v)| i.to_be_bytes().into_iter().chain(v.to_be_bytes()))
            .collect()
    }

    #[test]
    fn applies_in_order_and_reports_the_window_change() {
        let mut s = Settings::default();
        let d = s
            .apply(&enc(&[
                (INITIAL_WINDOW_SIZE, 1000),
                (MAX_CONCURRENT_STREAMS, 100),
                (0x99, 7), // unknown: ignored
                (INITIAL_WINDOW_SIZE, 70_000),
                (MAX_FRAME_SIZE, 1 << 20),
                (ENABLE_PUSH, 0),
            ]))
            .unwrap();
        assert_eq!(d, 70_000 - 65_535);
        assert_eq!(s.max_concurrent_streams, Some(100));
        assert_eq!(s.max_frame_size, 1 << 20);
        assert!(!s.enable_push);
        assert_eq!(
            s.params(),
            vec![
                (ENABLE_PUSH, 0),
                (MAX_CONCURRENT_STREAMS, 100),
                (INITIAL_WINDOW_SIZE, 70_000),
                (MAX_FRAME_SIZE, 1 << 20)
            ]
        );
    }

    #[test]
    fn out_of_range_values_are_connection_errors_with_their_codes() {
        let cases = [
            (ENABLE_PUSH, 2, ErrorCode::Protocol),
            (INITIAL_WINDOW_SIZE, 1 << 31, ErrorCode::FlowControl),
            (MAX_FRAME_SIZE, 16_383, ErrorCode::Protocol),
            (MAX_FRAME_SIZE, 1 << 24, ErrorCode::Protocol),
        ];
        for (id, v, code) in cases {
            let e = Settings::default().apply(&enc(&[(id, v)])).unwrap_err();
            assert_eq!((e.code, e.stream), (code, None), "{id} = {v}");
        }
        // The bounds themselves are fine.
        let mut s = Settings::default();
        s.apply(&enc(&[
            (MAX_FRAME_SIZE, (1 << 24) - 1),
            (INITIAL_WINDOW_SIZE, MAX_WINDOW),
        ]))
        .unwrap();
        assert_eq!(
            (s.max_frame_size, s.initial_window_size),
            ((1 << 24) - 1, MAX_WINDOW)
        );
    }
}

//! The connection-level half of HTTP/2 that client and server share, sans I/O: the SETTINGS
//! exchange (acknowledging the peer's, applying them), PING replies, header blocks assembled
//! across CONTINUATION and decoded with HPACK, and receive flow control (WINDOW_UPDATEs that keep
//! the windows this side announced open, so flow control never throttles a benchmark).
//!
//! The caller feeds the bytes it read ([`Session::feed`]); the session appends what must be sent
//! in reply to `out` and reports each stream-level happening as an [`Event`]. Streams themselves
//! (ids, requests, responses, send windows) are the caller's: the engine and the server keep them
//! in their own per-connection slots.

use super::frame::{self, ErrorCode, Frame, H2Error};
use super::hpack::{self, Decoder};
use super::settings::Settings;
use super::{DEFAULT_WINDOW, MAX_WINDOW};

/// What a fed frame means for the caller.
#[derive(Debug, PartialEq, Eq)]
pub enum Event<'a> {
    /// One header field of the block being decoded on `stream` (before its [`Event::HeadersEnd`]).
    Header {
        stream: u32,
        name: &'a [u8],
        value: &'a [u8],
    },
    /// A whole header block was decoded.
    HeadersEnd {
        stream: u32,
        end_stream: bool,
    },
    Data {
        stream: u32,
        data: &'a [u8],
        end_stream: bool,
    },
    Reset {
        stream: u32,
        code: ErrorCode,
    },
    GoAway {
        last_stream: u32,
        code: ErrorCode,
    },
    /// The peer's settings changed; open streams' send windows move by `window_delta`.
    PeerSettings {
        window_delta: i64,
    },
    /// The peer acknowledged our SETTINGS.
    SettingsAcked,
    /// Send window credit: on the connection (`stream` 0) or one stream.
    WindowUpdate {
        stream: u32,
        increment: u32,
    },
    /// A stream error the session found (e.g. a bad PRIORITY): reset by the session already.
    StreamError {
        stream: u32,
        code: ErrorCode,
    },
    PingAck,
}

/// One connection's shared state.
#[derive(Debug)]
pub struct Session {
    /// What this side announced.
    pub local: Settings,
    /// What the peer announced (defaults until its SETTINGS arrive).
    pub peer: Settings,
    pub peer_settings_seen: bool,
    decoder: Decoder,
    /// A header block in progress: (stream, END_STREAM of its HEADERS, the fragments so far).
    block: Option<(u32, bool)>,
    fragments: Vec<u8>,
    /// The connection receive window this side keeps open, and what arrived since its last
    /// WINDOW_UPDATE.
    conn_window: u32,
    conn_unacked: u32,
    /// Per stream: DATA received since its last WINDOW_UPDATE (a few streams at a time).
    stream_unacked: Vec<(u32, u32)>,
    /// Header bytes received (frames' payload) and decoded (names + values + 32 per field, as
    /// h2load counts): HPACK's saving is 1 - received/decoded.
    pub header_bytes_received: u64,
    pub header_bytes_decoded: u64,
}

impl Session {
    /// A session announcing `local`; `conn_window` is the connection-level receive window this
    /// side opens at start (RFC 9113 starts it at 65,535; h2load and oha open ~2^30).
    pub fn new(local: Settings, conn_window: u32) -> Session {
        Session {
            decoder: Decoder::new(local.header_table_size as usize),
            local,
            peer: Settings::default(),
            peer_settings_seen: false,
            block: None,
            fragments: Vec::new(),
            conn_window: conn_window.clamp(DEFAULT_WINDOW, MAX_WINDOW),
            conn_unacked: 0,
            stream_unacked: Vec::new(),
            header_bytes_received: 0,
            header_bytes_decoded: 0,
        }
    }

    /// Appends this side's opening: SETTINGS and the connection window's first WINDOW_UPDATE
    /// (the client's preface goes before them: the caller writes [`super::PREFACE`]).
    pub fn start(&self, out: &mut Vec<u8>) {
        frame::write_settings(out, &self.local.params());
        if self.conn_window > DEFAULT_WINDOW {
            frame::write_window_update(out, 0, self.conn_window - DEFAULT_WINDOW);
        }
    }

    /// Parses every whole frame in `buf`, appending replies to `out` and reporting events.
    /// Returns the bytes used (the rest is an incomplete frame to feed again with more).
    pub fn feed(
        &mut self,
        buf: &[u8],
        out: &mut Vec<u8>,
        on: &mut dyn FnMut(Event<'_>),
    ) -> Result<usize, H2Error> {
        let mut at = 0;
        loop {
            match frame::parse_frame(&buf[at..], self.local.max_frame_size) {
                Ok(None) => return Ok(at),
                Ok(Some((f, n))) => {
                    at += n;
                    self.frame(f, out, on)?;
                }
                // A stream error resets that stream and the connection goes on. Stream errors
                // are only found in a whole frame, so its length is known and it is skipped.
                Err(H2Error {
                    code,
                    stream: Some(stream),
                    ..
                }) => {
                    let h = &buf[at..];
                    at += super::FRAME_HEADER_LEN
                        + u32::from_be_bytes([0, h[0], h[1], h[2]]) as usize;
                    frame::write_rst_stream(out, stream, code);
                    self.forget(stream);
                    on(Event::StreamError { stream, code });
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Handles one parsed frame (what [`Session::feed`] does for each): the server checks a
    /// frame's stream state first, then hands it here.
    pub fn frame(
        &mut self,
        f: Frame<'_>,
        out: &mut Vec<u8>,
        on: &mut dyn FnMut(Event<'_>),
    ) -> Result<(), H2Error> {
        let conn = |code, what| H2Error {
            code,
            stream: None,
            what,
        };
        // A header block in progress admits only its own CONTINUATIONs (§6.10).
        if let Some((s, _)) = self.block {
            if !matches!(f, Frame::Continuation { stream, .. } if stream == s) {
                return Err(conn(ErrorCode::Protocol, "header block interrupted"));
            }
        }
        match f {
            Frame::Settings { ack: true, .. } => on(Event::SettingsAcked),
            Frame::Settings { ack: false, params } => {
                let window_delta = self.peer.apply(params)?;
                self.peer_settings_seen = true;
                frame::write_settings_ack(out);
                on(Event::PeerSettings { window_delta });
            }
            Frame::Ping { ack: false, data } => frame::write_ping(out, true, data),
            Frame::Ping { ack: true, .. } => on(Event::PingAck),
            Frame::Headers {
                stream,
                end_stream,
                end_headers,
                block,
            } => {
                self.header_bytes_received += block.len() as u64;
                if end_headers {
                    self.decode(stream, block, end_stream, on)?;
                } else {
                    self.block = Some((stream, end_stream));
                    self.fragments.clear();
                    self.fragments.extend_from_slice(block);
                }
            }
            Frame::Continuation {
                stream,
                end_headers,
                block,
            } => {
                let Some((s, es)) = self.block else {
                    return Err(conn(
                        ErrorCode::Protocol,
                        "CONTINUATION without a header block",
                    ));
                };
                debug_assert_eq!(s, stream);
                self.header_bytes_received += block.len() as u64;
                self.fragments.extend_from_slice(block);
                if end_headers {
                    self.block = None;
                    let frags = std::mem::take(&mut self.fragments);
                    let r = self.decode(stream, &frags, es, on);
                    self.fragments = frags;
                    r?;
                }
            }
            Frame::Data {
                stream,
                data,
                end_stream,
                flow_len,
            } => {
                self.received(stream, flow_len, end_stream, out);
                on(Event::Data {
                    stream,
                    data,
                    end_stream,
                });
            }
            Frame::RstStream { stream, code } => {
                self.forget(stream);
                on(Event::Reset { stream, code });
            }
            Frame::GoAway {
                last_stream, code, ..
            } => on(Event::GoAway { last_stream, code }),
            Frame::WindowUpdate { stream, increment } => {
                on(Event::WindowUpdate { stream, increment })
            }
            Frame::PushPromise { .. } => {
                // We announce ENABLE_PUSH = 0 (a client) or are a server: a push is an error.
                return Err(conn(ErrorCode::Protocol, "PUSH_PROMISE received"));
            }
            Frame::Priority { .. } | Frame::Unknown { .. } => {}
        }
        Ok(())
    }

    fn decode(
        &mut self,
        stream: u32,
        block: &[u8],
        end_stream: bool,
        on: &mut dyn FnMut(Event<'_>),
    ) -> Result<(), H2Error> {
        let mut decoded = 0u64;
        self.decoder
            .decode(block, |name, value| {
                decoded += hpack::entry_size(name, value) as u64;
                on(Event::Header {
                    stream,
                    name,
                    value,
                })
            })
            .map_err(|_| H2Error {
                code: ErrorCode::Compression,
                stream: None,
                what: "header block does not decode",
            })?;
        self.header_bytes_decoded += decoded;
        on(Event::HeadersEnd { stream, end_stream });
        Ok(())
    }

    /// Whether a header block is waiting for its CONTINUATIONs (no other frame may come).
    pub fn block_in_progress(&self) -> bool {
        self.block.is_some()
    }

    /// Flow control of received DATA: WINDOW_UPDATEs once half a window has arrived.
    pub fn received(&mut self, stream: u32, flow_len: u32, end_stream: bool, out: &mut Vec<u8>) {
        if flow_len == 0 {
            return;
        }
        self.conn_unacked += flow_len;
        if self.conn_unacked >= self.conn_window / 2 {
            frame::write_window_update(out, 0, self.conn_unacked);
            self.conn_unacked = 0;
        }
        if end_stream {
            // The stream is done: its window no longer matters.
            self.forget(stream);
            return;
        }
        let window = self.local.initial_window_size;
        let slot = match self.stream_unacked.iter_mut().find(|(s, _)| *s == stream) {
            Some(slot) => slot,
            None => {
                self.stream_unacked.push((stream, 0));
                self.stream_unacked.last_mut().expect("just pushed")
            }
        };
        slot.1 += flow_len;
        if slot.1 >= window / 2 {
            frame::write_window_update(out, stream, slot.1);
            slot.1 = 0;
        }
    }

    /// Forgets a stream's receive accounting (it ended or was reset).
    pub fn forget(&mut self, stream: u32) {
        self.stream_unacked.retain(|(s, _)| *s != stream);
    }
}

#[cfg(test)]
mod tests;

//! The connection-level half of HTTP/2 that client and server share, sans I/O: the SETTINGS
//! exchange (acknowledging the peer's, applying them), PING replies, header blocks assembled
//! across CONTINUATION and decoded with HPACK, and receive flow control (WINDOW_UPDATEs that keep
//! the windows this side announced open, so flow control never throttles a benchmark).
//!
//! What a peer can make this side hold is bounded by what this side announced: a header block
//! in progress by [`Session::block_limit`] (four times SETTINGS_MAX_HEADER_LIST_SIZE, see there),
//! a decoded header list by SETTINGS_MAX_HEADER_LIST_SIZE (the fields past it are not handed on,
//! and the block's end says so), and received DATA by the windows announced (more than a window
//! is a FLOW_CONTROL_ERROR, RFC 9113 §6.9.1).
//!
//! The caller feeds the bytes it read ([`Session::feed`]); the session appends what must be sent
//! in reply to `out` and reports each stream-level happening as an [`Event`]. Streams themselves
//! (ids, requests, responses, send windows) are the caller's: the engine and the server keep them
//! in their own per-connection slots.

use super::frame::{self, ErrorCode, Frame, H2Error};
use super::hpack::{self, Decoder};
use super::settings::Settings;
use super::{DEFAULT_WINDOW, MAX_WINDOW};

/// The [`H2Error::what`] of a header block past [`Session::block_limit`] (a connection error,
/// ENHANCE_YOUR_CALM): the load engine counts it as `header_too_large`.
pub const HEADER_BLOCK_TOO_LARGE: &str = "header block larger than the header list size allows";

/// Receive flow control as the peer can know it: DATA received and not yet covered by credit
/// the peer could have seen, and the credit written since the last [`Session::commit_credit`].
/// DATA beyond a window is found only this way: the WINDOW_UPDATEs go out at half a window, so
/// what arrived since the last one never passes a window, whatever the peer sends.
#[derive(Debug, Default, Clone, Copy)]
struct Credit {
    outstanding: u64,
    written: u64,
}

impl Credit {
    fn commit(&mut self) {
        self.outstanding = self.outstanding.saturating_sub(self.written);
        self.written = 0;
    }
}

/// [`Session::block_limit`] when this side announced no header list size.
const DEFAULT_BLOCK_LIMIT: usize = 256 * 1024;

/// What a fed frame means for the caller.
#[derive(Debug, PartialEq, Eq)]
pub enum Event<'a> {
    /// One header field of the block being decoded on `stream` (before its [`Event::HeadersEnd`]).
    Header {
        stream: u32,
        name: &'a [u8],
        value: &'a [u8],
    },
    /// A whole header block was decoded. `too_large`: its header list passed this side's
    /// SETTINGS_MAX_HEADER_LIST_SIZE; the fields after the one that passed it were decoded (the
    /// HPACK table must stay in step) but not handed on.
    HeadersEnd {
        stream: u32,
        end_stream: bool,
        too_large: bool,
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
    /// What the peer may have in flight against the connection window, as the peer can know
    /// it: DATA received minus the credit written before the current input arrived.
    conn_credit: Credit,
    /// Per stream (a few at a time): (id, DATA since its last WINDOW_UPDATE, its credit).
    stream_unacked: Vec<(u32, u32, Credit)>,
    /// This side's SETTINGS were acknowledged: the peer now sends within the windows they
    /// announced (before, it may still use the protocol's defaults).
    local_acked: bool,
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
            conn_credit: Credit::default(),
            stream_unacked: Vec::new(),
            local_acked: false,
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
            Frame::Settings { ack: true, .. } => {
                self.local_acked = true;
                on(Event::SettingsAcked)
            }
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
                    self.take_fragment(block)?;
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
                self.take_fragment(block)?;
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
                if let Err(e) = self.check_window(stream, flow_len) {
                    if e.stream.is_none() {
                        return Err(e);
                    }
                    // A stream's window passed: that stream is reset, the connection goes on
                    // (its DATA still counted against the connection's window).
                    self.received(stream, flow_len, true, out);
                    frame::write_rst_stream(out, stream, e.code);
                    on(Event::StreamError {
                        stream,
                        code: e.code,
                    });
                    return Ok(());
                }
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

    /// The largest header block (HEADERS and its CONTINUATIONs, as received) this side holds
    /// while it waits for the block's end: four times the header list size it announced (a
    /// Huffman-coded literal can take up to 30 bits per byte it decodes to, so a block within
    /// the list size may be up to 3.75 times larger than it), else 256 KiB. Past it the
    /// connection ends (ENHANCE_YOUR_CALM) before anything more is buffered: the "CONTINUATION
    /// flood" of 2024 (nginx and h2o stop at 5-6 MiB).
    pub fn block_limit(&self) -> usize {
        self.local
            .max_header_list_size
            .map_or(DEFAULT_BLOCK_LIMIT, |l| (l as usize).saturating_mul(4))
    }

    /// Keeps one fragment of a header block in progress, within [`Session::block_limit`].
    fn take_fragment(&mut self, block: &[u8]) -> Result<(), H2Error> {
        if self.fragments.len() + block.len() > self.block_limit() {
            self.fragments = Vec::new();
            self.block = None;
            return Err(H2Error {
                code: ErrorCode::EnhanceYourCalm,
                stream: None,
                what: HEADER_BLOCK_TOO_LARGE,
            });
        }
        self.fragments.extend_from_slice(block);
        Ok(())
    }

    /// Received DATA against the windows this side announced (what arrived since the last
    /// WINDOW_UPDATE may not pass them). Before this side's SETTINGS are acknowledged the peer
    /// may still go by the default window (RFC 9113 §6.9.2), so the larger of the two holds.
    fn check_window(&self, stream: u32, flow_len: u32) -> Result<(), H2Error> {
        if self.conn_credit.outstanding + u64::from(flow_len) > u64::from(self.conn_window) {
            return Err(H2Error {
                code: ErrorCode::FlowControl,
                stream: None,
                what: "DATA beyond the connection's receive window",
            });
        }
        let mut window = self.local.initial_window_size;
        if !self.local_acked {
            window = window.max(DEFAULT_WINDOW);
        }
        let outstanding = self
            .stream_unacked
            .iter()
            .find(|(s, ..)| *s == stream)
            .map_or(0, |(.., c)| c.outstanding);
        if outstanding + u64::from(flow_len) > u64::from(window) {
            return Err(H2Error {
                code: ErrorCode::FlowControl,
                stream: Some(stream),
                what: "DATA beyond the stream's receive window",
            });
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
        let limit = self.local.max_header_list_size.map_or(u64::MAX, u64::from);
        self.decoder
            .decode(block, |name, value| {
                // Past the limit the fields are still decoded (the HPACK table must stay in
                // step with the peer's) but no longer handed on: a block of references to one
                // large table entry decodes to many MiB from a few KiB.
                if decoded <= limit {
                    on(Event::Header {
                        stream,
                        name,
                        value,
                    });
                }
                decoded += hpack::entry_size(name, value) as u64;
            })
            .map_err(|_| H2Error {
                code: ErrorCode::Compression,
                stream: None,
                what: "header block does not decode",
            })?;
        self.header_bytes_decoded += decoded;
        on(Event::HeadersEnd {
            stream,
            end_stream,
            too_large: decoded > limit,
        });
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
        self.conn_credit.outstanding += u64::from(flow_len);
        if self.conn_unacked >= self.conn_window / 2 {
            frame::write_window_update(out, 0, self.conn_unacked);
            self.conn_credit.written += u64::from(self.conn_unacked);
            self.conn_unacked = 0;
        }
        if end_stream {
            // The stream is done: its window no longer matters.
            self.forget(stream);
            return;
        }
        let window = self.local.initial_window_size;
        let slot = match self.stream_unacked.iter_mut().find(|(s, ..)| *s == stream) {
            Some(slot) => slot,
            None => {
                self.stream_unacked.push((stream, 0, Credit::default()));
                self.stream_unacked.last_mut().expect("just pushed")
            }
        };
        slot.1 += flow_len;
        slot.2.outstanding += u64::from(flow_len);
        if slot.1 >= window / 2 {
            frame::write_window_update(out, stream, slot.1);
            slot.2.written += u64::from(slot.1);
            slot.1 = 0;
        }
    }

    /// Forgets a stream's receive accounting (it ended or was reset).
    pub fn forget(&mut self, stream: u32) {
        self.stream_unacked.retain(|(s, ..)| *s != stream);
    }

    /// The WINDOW_UPDATEs written so far have gone out (or will before the peer can answer
    /// them): the peer may count on them from now on. The caller calls it once per socket
    /// read, before feeding what it read (however it feeds it: whole, in pieces, frame by
    /// frame), since nothing in one read can have been sent on credit written while reading
    /// it. Without it, credit is never counted and a window is all a peer may ever send.
    pub fn commit_credit(&mut self) {
        self.conn_credit.commit();
        for (.., c) in &mut self.stream_unacked {
            c.commit();
        }
    }
}

#[cfg(test)]
mod tests;

//! The server half of an HTTP/2 connection as `barrage serve` drives it, sans I/O: the stream
//! states of RFC 9113 §5.1 (which frame on which stream is a stream or a connection error), the
//! checks §8.1-§8.3 make of a request (pseudo-header fields, connection-specific fields,
//! content-length against the DATA received), and the sending side of flow control.
//!
//! The caller pulls one happening at a time ([`Server::next`]): a request whose header block is
//! complete, request body data, or a stream the client reset; it answers with
//! [`Server::respond`] and [`Server::send_data`] (which sends what the windows allow and says how
//! much), and retries bodies it could not finish after each feed, since any frame may have opened
//! a window. Nothing here allocates per request once the buffers have grown.

use super::frame::{self, ErrorCode, Frame, H2Error};
use super::session::{Event as SessionEvent, Session};
use super::settings::Settings;
use super::{FRAME_HEADER_LEN, MAX_WINDOW};

mod request;
mod seam;
mod send;
use request::{check_field, Block, Fields};
pub use request::{FieldsRef, Request};

/// What the server announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// SETTINGS_MAX_CONCURRENT_STREAMS: streams beyond it are refused (REFUSED_STREAM).
    pub max_concurrent_streams: u32,
    /// SETTINGS_INITIAL_WINDOW_SIZE: each request body's receive window.
    pub stream_window: u32,
    /// The connection receive window opened at start.
    pub conn_window: u32,
    /// The largest request header list (names + values + 32 per field, as HPACK counts); a
    /// larger one is answered 431 ([`Event::TooLarge`]).
    pub max_header_list: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_concurrent_streams: 256,
            stream_window: 1 << 20,
            conn_window: 1 << 24,
            max_header_list: 16 * 1024,
        }
    }
}

/// What a frame meant for the caller.
#[derive(Debug)]
pub enum Event<'s, 'b> {
    Request(Request<'s>),
    /// A request whose header list is larger than [`Config::max_header_list`]: answer 431.
    TooLarge {
        stream: u32,
        end_stream: bool,
    },
    /// Request body data (`end_stream` also for the end of trailers, with no data).
    Data {
        stream: u32,
        data: &'b [u8],
        end_stream: bool,
    },
    /// The stream is gone (the client reset it, or a stream error reset it): drop its state.
    Reset {
        stream: u32,
    },
}

/// One stream of this connection while either half of it is open.
#[derive(Debug)]
struct Stream {
    id: u32,
    /// The client may still send (no END_STREAM yet).
    recv_open: bool,
    /// We may still send (no END_STREAM yet).
    send_open: bool,
    /// The send window (may go negative when the client shrinks INITIAL_WINDOW_SIZE, §6.9.2).
    window: i64,
    content_length: Option<u64>,
    received: u64,
}

/// Owned form of an event found inside [`Server::next`]'s loop (the borrowed one is built after
/// it, from offsets into the input).
#[derive(Debug, Clone, Copy)]
enum Found {
    Request(u32),
    TooLarge(u32, bool),
    Data {
        stream: u32,
        at: usize,
        len: usize,
        end: bool,
    },
    Reset(u32),
}

/// Streams recently reset by this side: a frame on them is a stream error (§5.1 "closed"), on
/// other closed streams a connection error.
const RECENT: usize = 32;

/// One server connection's HTTP/2 state.
#[derive(Debug)]
pub struct Server {
    pub session: Session,
    cfg: Config,
    streams: Vec<Stream>,
    /// The highest stream id the client has used (streams up to it are no longer idle).
    last_id: u32,
    /// The connection send window.
    window: i64,
    recent: [u32; RECENT],
    recent_at: usize,
    block: Block,
    fields: Fields,
    /// We sent GOAWAY: new streams are ignored.
    going_away: bool,
    /// The client sent GOAWAY.
    pub peer_gone: bool,
    /// Scratch for encoding response header blocks.
    hpack_buf: Vec<u8>,
    /// This side ends the connection at once, without GOAWAY (a fault: [`Server::ended`]).
    ended: bool,
}

impl Server {
    pub fn new(cfg: Config) -> Server {
        let local = Settings {
            max_concurrent_streams: Some(cfg.max_concurrent_streams),
            initial_window_size: cfg.stream_window.clamp(1, MAX_WINDOW),
            max_header_list_size: Some(cfg.max_header_list),
            ..Settings::default()
        };
        Server {
            session: Session::new(local, cfg.conn_window),
            cfg,
            streams: Vec::new(),
            last_id: 0,
            window: i64::from(super::DEFAULT_WINDOW),
            recent: [0; RECENT],
            recent_at: 0,
            block: Block::default(),
            fields: Fields::default(),
            going_away: false,
            peer_gone: false,
            hpack_buf: Vec::new(),
            ended: false,
        }
    }

    /// Appends the server's opening: SETTINGS and the connection window (after the client's
    /// preface has been read and dropped by the caller).
    pub fn start(&self, out: &mut Vec<u8>) {
        self.session.start(out);
    }

    /// What this server announces.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// Streams with a half still open.
    pub fn open_streams(&self) -> usize {
        self.streams.len()
    }

    /// The connection is to end once the output is written, with no word more
    /// ([`crate::server::ServerSession::close`] or `garbage`).
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// The highest stream id the client opened (a GOAWAY's last-stream-id).
    pub fn last_stream(&self) -> u32 {
        self.last_id
    }

    /// Parses frames from `buf` until one means something to the caller; returns the bytes used
    /// and that happening (`None`: no whole frame left). An error is a connection error: write
    /// [`Server::goaway`] with its code and close.
    pub fn next<'s, 'b>(
        &'s mut self,
        buf: &'b [u8],
        out: &mut Vec<u8>,
    ) -> Result<(usize, Option<Event<'s, 'b>>), H2Error> {
        let (at, found) = self.advance(buf, out)?;
        Ok((at, found.map(|f| self.event(buf, f))))
    }

    /// [`Server::next`]'s parsing: the bytes used and what was found, borrowing nothing.
    fn advance(
        &mut self,
        buf: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(usize, Option<Found>), H2Error> {
        let mut at = 0;
        let found = loop {
            match frame::parse_frame(&buf[at..], self.session.local.max_frame_size) {
                Ok(None) => return Ok((at, None)),
                Ok(Some((f, n))) => {
                    let base = at;
                    at += n;
                    if let Some(found) = self.frame(f, buf, base, out)? {
                        break found;
                    }
                }
                Err(H2Error {
                    code,
                    stream: Some(stream),
                    ..
                }) => {
                    // A stream error found in a whole frame: skip the frame, reset the stream.
                    let h = &buf[at..];
                    at += FRAME_HEADER_LEN + u32::from_be_bytes([0, h[0], h[1], h[2]]) as usize;
                    self.last_id = self.last_id.max(stream);
                    if let Some(found) = self.reset(out, stream, code) {
                        break found;
                    }
                }
                Err(e) => return Err(e),
            }
        };
        Ok((at, Some(found)))
    }

    /// The event `found` names, borrowing the decoded block and the input.
    fn event<'s, 'b>(&'s self, buf: &'b [u8], found: Found) -> Event<'s, 'b> {
        match found {
            Found::Request(stream) => {
                let b = &self.block;
                let f = &self.fields;
                let s = |r: Option<(u32, u32)>| {
                    r.map_or("", |(a, z)| {
                        std::str::from_utf8(&f.bytes[a as usize..z as usize]).unwrap_or("")
                    })
                };
                Event::Request(Request {
                    stream,
                    method: s(b.method),
                    path: s(b.path),
                    authority: s(b.authority),
                    end_stream: b.end_stream,
                    content_length: b.content_length,
                    fields: f,
                })
            }
            Found::TooLarge(stream, end_stream) => Event::TooLarge { stream, end_stream },
            Found::Data {
                stream,
                at: d,
                len,
                end,
            } => Event::Data {
                stream,
                data: &buf[d..d + len],
                end_stream: end,
            },
            Found::Reset(stream) => Event::Reset { stream },
        }
    }

    fn find(&mut self, id: u32) -> Option<&mut Stream> {
        self.streams.iter_mut().find(|s| s.id == id)
    }

    fn recently_reset(&self, id: u32) -> bool {
        self.recent.contains(&id)
    }

    fn remember_reset(&mut self, id: u32) {
        self.recent[self.recent_at] = id;
        self.recent_at = (self.recent_at + 1) % RECENT;
    }

    /// A frame on a stream that is neither idle nor open: a stream error on a stream this side
    /// reset lately, a connection error otherwise (§5.1 "closed").
    fn closed(&mut self, id: u32, out: &mut Vec<u8>) -> Result<Option<Found>, H2Error> {
        if self.recently_reset(id) {
            frame::write_rst_stream(out, id, ErrorCode::StreamClosed);
            Ok(None)
        } else {
            Err(conn_err(
                ErrorCode::StreamClosed,
                "frame on a closed stream",
            ))
        }
    }

    /// Resets a stream with `code`; the caller hears of it if it knew the stream.
    fn reset(&mut self, out: &mut Vec<u8>, id: u32, code: ErrorCode) -> Option<Found> {
        frame::write_rst_stream(out, id, code);
        self.session.forget(id);
        self.remember_reset(id);
        let known = self.streams.iter().position(|s| s.id == id);
        known.map(|i| {
            self.streams.swap_remove(i);
            Found::Reset(id)
        })
    }

    fn frame(
        &mut self,
        f: Frame<'_>,
        buf: &[u8],
        base: usize,
        out: &mut Vec<u8>,
    ) -> Result<Option<Found>, H2Error> {
        match f {
            Frame::Headers {
                stream, end_stream, ..
            } => {
                if self.block_in_progress() {
                    return Err(conn_err(ErrorCode::Protocol, "header block interrupted"));
                }
                if stream % 2 == 0 {
                    return Err(conn_err(
                        ErrorCode::Protocol,
                        "even stream id from a client",
                    ));
                }
                self.block = Block {
                    stream,
                    end_stream,
                    ..Block::default()
                };
                self.fields.bytes.clear();
                self.fields.idx.clear();
                if stream > self.last_id {
                    self.last_id = stream;
                    if self.going_away {
                        self.block.ignore = true;
                    } else if self.streams.len() >= self.cfg.max_concurrent_streams as usize {
                        self.block.discard = Some(ErrorCode::RefusedStream);
                    } else {
                        self.streams.push(Stream {
                            id: stream,
                            recv_open: !end_stream,
                            send_open: true,
                            window: i64::from(self.session.peer.initial_window_size),
                            content_length: None,
                            received: 0,
                        });
                    }
                } else {
                    let recent = self.recently_reset(stream);
                    let state = self.streams.iter_mut().find(|s| s.id == stream).map(|s| {
                        let open = s.recv_open;
                        if open && end_stream {
                            s.recv_open = false;
                        }
                        open
                    });
                    match state {
                        // Trailers: they end the request (§8.1), so they carry END_STREAM.
                        Some(true) => {
                            self.block.trailers = true;
                            if !end_stream {
                                self.block.discard = Some(ErrorCode::Protocol);
                            }
                        }
                        Some(false) => self.block.discard = Some(ErrorCode::StreamClosed),
                        None if recent => self.block.discard = Some(ErrorCode::StreamClosed),
                        None => {
                            return Err(conn_err(
                                ErrorCode::StreamClosed,
                                "HEADERS on a closed stream",
                            ))
                        }
                    }
                }
                self.session_frame(f, out)
            }
            Frame::Continuation { stream, .. } => {
                if !self.block_in_progress() {
                    let _ = stream;
                    return Err(conn_err(
                        ErrorCode::Protocol,
                        "CONTINUATION without a header block",
                    ));
                }
                self.session_frame(f, out)
            }
            Frame::Data {
                stream,
                end_stream,
                data,
                flow_len,
            } => {
                if self.block_in_progress() {
                    return Err(conn_err(ErrorCode::Protocol, "header block interrupted"));
                }
                if stream > self.last_id {
                    return Err(conn_err(ErrorCode::Protocol, "DATA on an idle stream"));
                }
                // Flow control counts every DATA frame, whatever its stream's state.
                self.session.received(stream, flow_len, end_stream, out);
                let Some(s) = self.find(stream) else {
                    return self.closed(stream, out);
                };
                if !s.recv_open {
                    return Ok(self.reset(out, stream, ErrorCode::StreamClosed));
                }
                s.received += data.len() as u64;
                let too_long = s.content_length.is_some_and(|cl| s.received > cl);
                let too_short = end_stream && s.content_length.is_some_and(|cl| s.received != cl);
                if too_long || too_short {
                    return Ok(self.reset(out, stream, ErrorCode::Protocol));
                }
                if end_stream {
                    s.recv_open = false;
                }
                let at = data.as_ptr() as usize - buf.as_ptr() as usize;
                debug_assert!(at >= base);
                Ok(Some(Found::Data {
                    stream,
                    at,
                    len: data.len(),
                    end: end_stream,
                }))
            }
            Frame::RstStream { stream, .. } => {
                if self.block_in_progress() {
                    return Err(conn_err(ErrorCode::Protocol, "header block interrupted"));
                }
                if stream > self.last_id {
                    return Err(conn_err(
                        ErrorCode::Protocol,
                        "RST_STREAM on an idle stream",
                    ));
                }
                self.session.forget(stream);
                // Frames after a RST_STREAM are stream errors STREAM_CLOSED (§5.1), as after ours.
                self.remember_reset(stream);
                let known = self.streams.iter().position(|s| s.id == stream);
                Ok(known.map(|i| {
                    self.streams.swap_remove(i);
                    Found::Reset(stream)
                }))
            }
            Frame::WindowUpdate { stream, increment } if stream != 0 => {
                if self.block_in_progress() {
                    return Err(conn_err(ErrorCode::Protocol, "header block interrupted"));
                }
                if stream > self.last_id {
                    return Err(conn_err(
                        ErrorCode::Protocol,
                        "WINDOW_UPDATE on an idle stream",
                    ));
                }
                let Some(s) = self.find(stream) else {
                    return Ok(None);
                };
                s.window += i64::from(increment);
                if s.window > i64::from(MAX_WINDOW) {
                    return Ok(self.reset(out, stream, ErrorCode::FlowControl));
                }
                Ok(None)
            }
            Frame::PushPromise { .. } => {
                Err(conn_err(ErrorCode::Protocol, "PUSH_PROMISE from a client"))
            }
            _ => {
                if self.block_in_progress() {
                    return Err(conn_err(ErrorCode::Protocol, "header block interrupted"));
                }
                self.session_frame(f, out)
            }
        }
    }

    fn block_in_progress(&self) -> bool {
        self.session.block_in_progress()
    }

    /// Hands a frame to the session, checking the header fields it decodes.
    fn session_frame(&mut self, f: Frame<'_>, out: &mut Vec<u8>) -> Result<Option<Found>, H2Error> {
        let Server {
            session,
            block,
            fields,
            streams,
            window,
            cfg,
            peer_gone,
            ..
        } = self;
        let mut ended = false;
        let mut err = None;
        session.frame(f, out, &mut |ev| match ev {
            SessionEvent::Header { name, value, .. } => {
                check_field(block, fields, name, value, cfg.max_header_list)
            }
            SessionEvent::HeadersEnd { .. } => ended = true,
            SessionEvent::PeerSettings { window_delta } => {
                for s in streams.iter_mut() {
                    s.window += window_delta;
                    if s.window > i64::from(MAX_WINDOW) {
                        err = Some(conn_err(
                            ErrorCode::FlowControl,
                            "INITIAL_WINDOW_SIZE takes a window above 2^31-1",
                        ));
                    }
                }
            }
            SessionEvent::WindowUpdate {
                stream: 0,
                increment,
            } => {
                *window += i64::from(increment);
                if *window > i64::from(MAX_WINDOW) {
                    err = Some(conn_err(
                        ErrorCode::FlowControl,
                        "connection window above 2^31-1",
                    ));
                }
            }
            SessionEvent::GoAway { .. } => *peer_gone = true,
            _ => {}
        })?;
        if let Some(e) = err {
            return Err(e);
        }
        if !ended {
            return Ok(None);
        }
        Ok(self.block_done(out))
    }

    /// A header block was decoded: the request, its trailers, or a stream error.
    fn block_done(&mut self, out: &mut Vec<u8>) -> Option<Found> {
        let b = &self.block;
        let stream = b.stream;
        if b.ignore {
            return None;
        }
        if let Some(code) = b.discard {
            return self.reset(out, stream, code);
        }
        // CONNECT (no :scheme or :path) is not served here: a request needs all three (§8.3.1).
        let missing = !b.trailers
            && (b.method.is_none() || !b.scheme || !matches!(b.path, Some((a, z)) if a < z));
        if b.malformed || missing {
            return self.reset(out, stream, ErrorCode::Protocol);
        }
        if b.size > u64::from(self.cfg.max_header_list) && !b.trailers {
            return Some(Found::TooLarge(stream, b.end_stream));
        }
        if b.trailers {
            let short = self
                .find(stream)
                .is_some_and(|s| s.content_length.is_some_and(|cl| cl != s.received));
            if short {
                return self.reset(out, stream, ErrorCode::Protocol);
            }
            return Some(Found::Data {
                stream,
                at: 0,
                len: 0,
                end: true,
            });
        }
        let cl = b.content_length;
        let end = b.end_stream;
        let s = self.find(stream).expect("a new stream is in the table");
        s.content_length = cl;
        if end && cl.is_some_and(|n| n != 0) {
            return self.reset(out, stream, ErrorCode::Protocol);
        }
        Some(Found::Request(stream))
    }
}

fn conn_err(code: ErrorCode, what: &'static str) -> H2Error {
    H2Error {
        code,
        stream: None,
        what,
    }
}

#[cfg(test)]
mod tests;

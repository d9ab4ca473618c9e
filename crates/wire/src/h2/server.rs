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
use super::hpack;
use super::session::{Event as SessionEvent, Session};
use super::settings::Settings;
use super::{FRAME_HEADER_LEN, MAX_WINDOW};

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

/// A request whose header block is complete and valid.
#[derive(Debug)]
pub struct Request<'a> {
    pub stream: u32,
    pub method: &'a str,
    /// `:path`, query included.
    pub path: &'a str,
    pub authority: &'a str,
    /// The request has no body (END_STREAM on its HEADERS).
    pub end_stream: bool,
    pub content_length: Option<u64>,
    fields: &'a Fields,
}

impl<'a> Request<'a> {
    /// The regular header fields in order (pseudo-header fields left out).
    pub fn headers(&self) -> impl Iterator<Item = (&'a str, &'a [u8])> + 'a {
        let f = self.fields;
        f.idx
            .iter()
            .map(move |&(n0, n1, v1)| {
                let name = std::str::from_utf8(&f.bytes[n0 as usize..n1 as usize]).unwrap_or("");
                (name, &f.bytes[n1 as usize..v1 as usize])
            })
            .filter(|(n, _)| !n.starts_with(':'))
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

/// The header fields of the block being decoded: names and values back to back in `bytes`,
/// `idx` holding (name start, name end = value start, value end) per field.
#[derive(Debug, Default)]
struct Fields {
    bytes: Vec<u8>,
    idx: Vec<(u32, u32, u32)>,
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

/// The checks of the header block being decoded (§8.3.1).
#[derive(Debug, Default)]
struct Block {
    stream: u32,
    end_stream: bool,
    /// A trailer block (the stream's request head came before).
    trailers: bool,
    /// Decode it to keep HPACK in step, then reset the stream with this code (no request).
    discard: Option<ErrorCode>,
    /// Ignore it altogether (a new stream after our GOAWAY).
    ignore: bool,
    malformed: bool,
    regular_seen: bool,
    method: Option<(u32, u32)>,
    path: Option<(u32, u32)>,
    scheme: bool,
    authority: Option<(u32, u32)>,
    content_length: Option<u64>,
    size: u64,
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
        }
    }

    /// Appends the server's opening: SETTINGS and the connection window (after the client's
    /// preface has been read and dropped by the caller).
    pub fn start(&self, out: &mut Vec<u8>) {
        self.session.start(out);
    }

    /// Streams with a half still open.
    pub fn open_streams(&self) -> usize {
        self.streams.len()
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
        let ev = match found {
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
        };
        Ok((at, Some(ev)))
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

    /// How many body bytes `stream` may send now.
    pub fn send_room(&self, stream: u32) -> usize {
        self.streams
            .iter()
            .find(|s| s.id == stream && s.send_open)
            .map_or(0, |s| s.window.min(self.window).max(0) as usize)
    }

    /// Whether `stream` is still open for sending (not reset, not ended).
    pub fn can_send(&self, stream: u32) -> bool {
        self.streams.iter().any(|s| s.id == stream && s.send_open)
    }

    /// Appends a response head: `:status` and `headers` (names lowercase), END_STREAM when
    /// there is no body.
    pub fn respond(
        &mut self,
        out: &mut Vec<u8>,
        stream: u32,
        status: u16,
        headers: &[(&str, &[u8])],
        end_stream: bool,
    ) {
        if !self.can_send(stream) {
            return;
        }
        let mut block = std::mem::take(&mut self.hpack_buf);
        block.clear();
        encode_status(&mut block, status);
        for (name, value) in headers {
            match hpack::static_index(name.as_bytes(), value) {
                Some((i, true)) => hpack::encode_indexed(&mut block, i),
                Some((i, false)) => {
                    hpack::encode_literal(&mut block, i, b"", value, hpack::Indexing::Without)
                }
                None => hpack::encode_literal(
                    &mut block,
                    0,
                    name.as_bytes(),
                    value,
                    hpack::Indexing::Without,
                ),
            }
        }
        frame::write_headers(
            out,
            stream,
            &block,
            end_stream,
            self.session.peer.max_frame_size,
        );
        self.hpack_buf = block;
        if end_stream {
            self.sent_end(out, stream);
        }
    }

    /// Appends as much of `data` as the windows allow, in DATA frames no larger than the client
    /// allows; END_STREAM on the last when `end_stream` and all of it went. Returns the bytes
    /// taken (the caller keeps the rest for when a window opens).
    pub fn send_data(
        &mut self,
        out: &mut Vec<u8>,
        stream: u32,
        data: &[u8],
        end_stream: bool,
    ) -> usize {
        let max_frame = self.session.peer.max_frame_size as usize;
        let Some(i) = self
            .streams
            .iter()
            .position(|s| s.id == stream && s.send_open)
        else {
            return 0;
        };
        let mut sent = 0;
        loop {
            let s = &mut self.streams[i];
            let room = s.window.min(self.window).max(0) as usize;
            let n = (data.len() - sent).min(room).min(max_frame);
            let last = sent + n == data.len();
            if n == 0 && !(last && end_stream) {
                break;
            }
            frame::write_data_header(out, stream, n, last && end_stream);
            out.extend_from_slice(&data[sent..sent + n]);
            s.window -= n as i64;
            self.window -= n as i64;
            sent += n;
            if last {
                if end_stream {
                    self.sent_end(out, stream);
                }
                break;
            }
        }
        sent
    }

    /// Our half of `stream` ended; a client still sending a body is told to stop (§8.1).
    fn sent_end(&mut self, out: &mut Vec<u8>, stream: u32) {
        let Some(i) = self.streams.iter().position(|s| s.id == stream) else {
            return;
        };
        if self.streams[i].recv_open {
            frame::write_rst_stream(out, stream, ErrorCode::NoError);
            self.session.forget(stream);
        }
        self.streams.swap_remove(i);
    }

    /// Resets a stream from this side (a fault, or a body we will not read); the caller drops
    /// its own state for it.
    pub fn cancel(&mut self, out: &mut Vec<u8>, stream: u32, code: ErrorCode) {
        let _ = self.reset(out, stream, code);
    }

    /// Appends a GOAWAY naming the last stream this side will handle; new streams are ignored
    /// from now on.
    pub fn goaway(&mut self, out: &mut Vec<u8>, code: ErrorCode, debug: &[u8]) {
        if !self.going_away || code != ErrorCode::NoError {
            frame::write_goaway(out, self.last_id, code, debug);
        }
        self.going_away = true;
    }
}

fn conn_err(code: ErrorCode, what: &'static str) -> H2Error {
    H2Error {
        code,
        stream: None,
        what,
    }
}

/// Appends `:status`: indexed when the static table has it (200, 204, 206, 304, 400, 404, 500).
fn encode_status(out: &mut Vec<u8>, status: u16) {
    let mut digits = [0u8; 3];
    let s = status.clamp(100, 999);
    digits[0] = b'0' + (s / 100) as u8;
    digits[1] = b'0' + (s / 10 % 10) as u8;
    digits[2] = b'0' + (s % 10) as u8;
    match hpack::static_index(b":status", &digits) {
        Some((i, true)) => hpack::encode_indexed(out, i),
        _ => hpack::encode_literal(out, 8, b"", &digits, hpack::Indexing::Without),
    }
}

/// Header fields that belong to one HTTP/1.1 connection and may not appear in HTTP/2 (§8.2.2).
fn connection_specific(name: &[u8]) -> bool {
    matches!(
        name,
        b"connection" | b"keep-alive" | b"proxy-connection" | b"transfer-encoding" | b"upgrade"
    )
}

/// Checks one decoded field of the block in progress and keeps it (§8.2, §8.3.1).
fn check_field(block: &mut Block, fields: &mut Fields, name: &[u8], value: &[u8], limit: u32) {
    if block.ignore || block.discard.is_some() {
        return;
    }
    block.size += hpack::entry_size(name, value) as u64;
    if block.size > u64::from(limit) {
        // Too large: stop keeping fields (the stream is answered 431), but go on checking.
        return;
    }
    let bad = name.is_empty()
        || name.iter().any(|c| c.is_ascii_uppercase())
        || value.iter().any(|&c| c == 0 || c == b'\r' || c == b'\n');
    if bad {
        block.malformed = true;
        return;
    }
    let start = fields.bytes.len() as u32;
    fields.bytes.extend_from_slice(name);
    let mid = fields.bytes.len() as u32;
    fields.bytes.extend_from_slice(value);
    let end = fields.bytes.len() as u32;
    fields.idx.push((start, mid, end));
    if name[0] == b':' {
        if block.regular_seen || block.trailers {
            block.malformed = true;
            return;
        }
        let slot = match name {
            b":method" => &mut block.method,
            b":path" => &mut block.path,
            b":authority" => &mut block.authority,
            b":scheme" => {
                if block.scheme {
                    block.malformed = true;
                }
                block.scheme = true;
                return;
            }
            _ => {
                block.malformed = true;
                return;
            }
        };
        if slot.is_some() {
            block.malformed = true;
        }
        *slot = Some((mid, end));
        return;
    }
    block.regular_seen = true;
    if connection_specific(name) || (name == b"te" && value != b"trailers") {
        block.malformed = true;
    } else if name == b"content-length" {
        let n = std::str::from_utf8(value)
            .ok()
            .filter(|v| !v.is_empty() && v.bytes().all(|c| c.is_ascii_digit()))
            .and_then(|v| v.parse::<u64>().ok());
        match (n, block.content_length) {
            (Some(n), None) => block.content_length = Some(n),
            (Some(n), Some(m)) if n == m => {}
            _ => block.malformed = true,
        }
    }
}

#[cfg(test)]
mod tests;

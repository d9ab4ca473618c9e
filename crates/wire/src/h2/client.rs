//! The client half of an HTTP/2 connection, sans I/O, as the load engine drives it: one request
//! encoded once ([`Request`]) and sent on many streams, at most `max_streams` at a time (h2load's
//! `-m`, capped by the server's SETTINGS_MAX_CONCURRENT_STREAMS), request bodies under the
//! server's flow-control windows, and each stream's end reported as an [`End`] carrying the
//! caller's tag (the engine's send times).
//!
//! The caller owns the socket: it writes [`Client::out`] and feeds what it reads to
//! [`Client::feed`]. Nothing here allocates per request once the buffers have grown. [`Conn`]
//! puts a `Client` behind the client-session interface the engine's worker loop talks to.

use super::frame::{self, ErrorCode, H2Error};
use super::hpack;
use super::session::{Event, Session};
use super::settings::Settings;
use super::{DEFAULT_WINDOW, MAX_WINDOW, PREFACE};
use crate::fields::{parse_length, parse_status};
use crate::kept::{Keeper, Kept};

mod conn;
mod request;
pub use conn::{Conn, Counts, Setup};
pub use request::Request;

/// The dynamic table size every peer starts with (RFC 7541 §4.2, RFC 9113 §6.5.2).
pub(crate) const DEFAULT_TABLE: usize = 4096;
/// The highest stream id a client may open (ids are odd, 31 bits).
const LAST_ID: u32 = (1 << 31) - 1;

/// How a connection's client sends its header blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Table {
    /// No request sent yet: the next block is `first`.
    Fresh,
    /// `first` went out: the server's table holds its entries.
    Indexed,
    /// The server's table cannot hold them: the next block starts with a size update to this
    /// size, and every block is `plain` from then on.
    Shrink(u32),
    Plain,
}

/// What the caller asks of a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Concurrent streams wanted (h2load's `-m`).
    pub max_streams: u32,
    /// The stream receive window announced (SETTINGS_INITIAL_WINDOW_SIZE).
    pub stream_window: u32,
    /// The connection receive window opened at start.
    pub conn_window: u32,
    /// SETTINGS_MAX_HEADER_LIST_SIZE announced and enforced: a response header list larger
    /// than it ends its stream as [`End::HeaderTooLarge`], and a header block more than four
    /// times larger ends the connection ([`super::session::HEADER_BLOCK_TOO_LARGE`]).
    pub max_header_list: u32,
}

/// [`Config::max_header_list`] by default: nghttp2's own limit for a received header list.
pub const MAX_HEADER_LIST: u32 = 64 * 1024;

/// How a stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End<T> {
    /// A whole response: its final status, and whether its body was the expected one (always
    /// true when none is expected).
    Response { tag: T, status: u16, body_ok: bool },
    /// The server reset the stream (RST_STREAM with this code).
    Reset { tag: T, code: ErrorCode },
    /// The response broke the protocol on this stream (e.g. DATA before HEADERS, no or a bad
    /// `:status`); the stream was reset and the connection goes on.
    Malformed { tag: T, code: ErrorCode },
    /// The server never processed this stream (a GOAWAY's last stream id was below it, or
    /// it refused the stream with REFUSED_STREAM): it may be sent again.
    Unprocessed { tag: T },
    /// The response's header list passed [`Config::max_header_list`]; the stream was reset.
    HeaderTooLarge { tag: T },
    /// A gRPC call's end: its status, or what broke it (the stream is reset if it was open).
    Grpc { tag: T, ended: crate::grpc::Ended },
    /// A reply message of a gRPC call, as it arrives: not an end (the call ends later with
    /// [`End::Grpc`]), so the caller can time each message of a streaming call.
    GrpcMessage { tag: T },
}

#[derive(Debug)]
struct Stream<T> {
    id: u32,
    tag: T,
    /// 0 until the final (non-1xx) status arrived.
    status: u16,
    body_at: usize,
    body_ok: bool,
    /// The request (an index into the caller's requests), its body bytes sent, and the
    /// stream's send window.
    req: usize,
    /// The body of a request of the stream's own ([`Client::open_own`]: a script's), sent
    /// instead of `reqs[req]`'s.
    own_body: Option<Box<[u8]>>,
    sent: usize,
    window: i64,
    /// The response's `content-length`, which its DATA must match (RFC 9113 §8.1.1) unless
    /// the response has no content by definition (HEAD, 204, 304: `no_content`).
    content_length: Option<u64>,
    no_content: bool,
    /// A gRPC call's response being read (boxed: most streams are not calls).
    grpc: Option<Box<crate::grpc::Response>>,
    /// A `content-length` that is not one decimal number: the response is malformed.
    bad_length: bool,
    /// The response being kept for a script's `response()` hook.
    kept: Option<Box<Kept>>,
}

/// One HTTP/2 client connection's state.
#[derive(Debug)]
pub struct Client<T> {
    pub session: Session,
    /// Bytes to write to the socket, in order; the caller drains it.
    pub out: Vec<u8>,
    max_streams: u32,
    streams: Vec<Stream<T>>,
    next_id: u32,
    /// The connection send window.
    window: i64,
    table: Table,
    goaway: Option<u32>,
    /// Streams whose receive bookkeeping is dropped after a feed (the session is busy during
    /// it), and the code to reset them with when this side ended them.
    forget: Vec<(u32, Option<ErrorCode>)>,
    scratch: Vec<u8>,
    /// Whole responses kept for a script's `response()` hook ([`Client::keep_responses`]).
    keep: Option<Box<Keeper>>,
}

impl<T: Copy> Client<T> {
    /// A connection that has written its preface, SETTINGS and connection window.
    pub fn new(cfg: Config) -> Client<T> {
        let local = Settings {
            enable_push: false,
            initial_window_size: cfg.stream_window.clamp(1, MAX_WINDOW),
            max_header_list_size: Some(cfg.max_header_list),
            ..Settings::default()
        };
        let session = Session::new(local, cfg.conn_window);
        let mut out = Vec::with_capacity(4096);
        out.extend_from_slice(PREFACE);
        session.start(&mut out);
        Client {
            session,
            out,
            max_streams: cfg.max_streams.max(1),
            streams: Vec::with_capacity(cfg.max_streams as usize),
            next_id: 1,
            window: i64::from(DEFAULT_WINDOW),
            table: Table::Fresh,
            goaway: None,
            forget: Vec::new(),
            scratch: Vec::new(),
            keep: None,
        }
    }

    /// Keeps every whole response from now on, for a script's `response()` hook: its fields as
    /// `name: value` lines after a first line, its body.
    pub fn keep_responses(&mut self) {
        self.keep = Some(Box::default());
    }

    /// Moves the oldest whole response kept into `into` (false: none).
    pub fn take_kept(&mut self, into: &mut Kept) -> bool {
        self.keep.as_mut().is_some_and(|k| k.take(into))
    }

    /// Concurrent streams allowed now: the wanted count, capped by the server's
    /// SETTINGS_MAX_CONCURRENT_STREAMS.
    pub fn limit(&self) -> u32 {
        self.session
            .peer
            .max_concurrent_streams
            .map_or(self.max_streams, |m| m.min(self.max_streams))
    }

    /// Whether the server's limit is below the wanted count.
    pub fn capped(&self) -> bool {
        self.limit() < self.max_streams
    }

    /// Streams that may be opened now (0 after a GOAWAY or when the ids ran out).
    pub fn room(&self) -> usize {
        if self.goaway.is_some() || self.next_id > LAST_ID {
            return 0;
        }
        (self.limit() as usize).saturating_sub(self.streams.len())
    }

    /// Open streams.
    pub fn open_streams(&self) -> usize {
        self.streams.len()
    }

    /// The server sent GOAWAY: no new stream goes out on this connection.
    pub fn going_away(&self) -> bool {
        self.goaway.is_some()
    }

    /// The connection has nothing more to do: the server is going away (or the ids ran out)
    /// and every stream has ended. The caller closes it and connects anew.
    pub fn finished(&self) -> bool {
        (self.goaway.is_some() || self.next_id > LAST_ID) && self.streams.is_empty()
    }

    /// The open streams' ids and tags, oldest first.
    pub fn streams(&self) -> impl Iterator<Item = (u32, &T)> {
        self.streams.iter().map(|s| (s.id, &s.tag))
    }

    /// Sends `reqs[which]` on a new stream; None when there is no room (see [`Client::room`]).
    /// `reqs` is the same list on every call (bodies go out later, as windows open).
    pub fn open(&mut self, reqs: &[Request], which: usize, tag: T) -> Option<u32> {
        self.open_from(reqs, &reqs[which], which, None, tag)
    }

    /// Sends `req`, a request of its own (not one of the run's: a script's), on a new stream;
    /// its fields go as literals without indexing (no other request refers to them), its body
    /// is kept with the stream until sent. `reqs` is the run's list, for the other streams.
    pub fn open_own(&mut self, reqs: &[Request], req: Request, tag: T) -> Option<u32> {
        let mut req = req.without_indexing();
        let body = std::mem::take(&mut req.body);
        let own = (!body.is_empty()).then(|| body.into_boxed_slice());
        self.open_from(reqs, &req, usize::MAX, own, tag)
    }

    /// Opens a stream for `req`, whose body is `own_body` when it is a request of its own.
    fn open_from(
        &mut self,
        reqs: &[Request],
        req: &Request,
        which: usize,
        own_body: Option<Box<[u8]>>,
        tag: T,
    ) -> Option<u32> {
        let has_body = !req.body.is_empty() || own_body.is_some();
        if self.room() == 0 {
            return None;
        }
        let id = self.next_id;
        self.next_id += 2;
        let block: &[u8] = match self.table {
            Table::Fresh if req.table_bytes > 0 => {
                self.table = Table::Indexed;
                &req.first
            }
            Table::Fresh | Table::Plain => &req.plain,
            Table::Indexed => &req.rest,
            Table::Shrink(size) => {
                self.scratch.clear();
                hpack::encode_int(&mut self.scratch, size as usize, 5, 0x20);
                self.scratch.extend_from_slice(&req.plain);
                self.table = Table::Plain;
                &self.scratch
            }
        };
        let max_frame = self.session.peer.max_frame_size;
        frame::write_headers(&mut self.out, id, block, !has_body, max_frame);
        self.streams.push(Stream {
            id,
            tag,
            status: 0,
            body_at: 0,
            body_ok: true,
            req: which,
            own_body,
            sent: 0,
            window: i64::from(self.session.peer.initial_window_size),
            content_length: None,
            no_content: req.head,
            bad_length: false,
            grpc: req
                .grpc
                .map(|max| Box::new(crate::grpc::Response::new(max))),
            kept: self.keep.as_mut().map(|k| {
                let mut r = k.fresh();
                r.head.extend_from_slice(b"HTTP/2\r\n");
                Box::new(r)
            }),
        });
        if has_body {
            self.send_bodies(reqs);
        }
        Some(id)
    }

    /// Writes as much of each open stream's request body as the windows allow.
    fn send_bodies(&mut self, reqs: &[Request]) {
        let max_frame = self.session.peer.max_frame_size as usize;
        for s in &mut self.streams {
            let body: &[u8] = match (&s.own_body, s.req) {
                (Some(b), _) => b,
                (None, usize::MAX) => &[],
                (None, i) => &reqs[i].body,
            };
            while s.sent < body.len() && self.window > 0 && s.window > 0 {
                let n = (body.len() - s.sent)
                    .min(max_frame)
                    .min(self.window as usize)
                    .min(s.window as usize);
                let end = s.sent + n == body.len();
                frame::write_data_header(&mut self.out, s.id, n, end);
                self.out.extend_from_slice(&body[s.sent..s.sent + n]);
                s.sent += n;
                s.window -= n as i64;
                self.window -= n as i64;
            }
        }
    }

    /// Ends stream `id` early (a timeout): RST_STREAM(CANCEL), and its tag back.
    pub fn cancel(&mut self, id: u32) -> Option<T> {
        let at = self.streams.iter().position(|s| s.id == id)?;
        let s = self.streams.remove(at);
        frame::write_rst_stream(&mut self.out, id, ErrorCode::Cancel);
        self.session.forget(id);
        Some(s.tag)
    }

    /// Every open stream's tag, the streams forgotten (the connection failed).
    pub fn drain(&mut self) -> impl Iterator<Item = T> + '_ {
        self.streams.drain(..).map(|s| s.tag)
    }

    /// A new socket read begins: the credit written so far counts (see
    /// [`Session::commit_credit`]). Call it once per read, before [`Client::feed`].
    pub fn commit_credit(&mut self) {
        self.session.commit_credit();
    }

    /// Feeds bytes read from the socket: replies go to `out`, each ended stream to `on`.
    /// `expect_body` is compared with every response body. Returns the bytes used; the rest is
    /// an incomplete frame to feed again with more. An error is the connection's end (the
    /// caller may write a GOAWAY with its code and closes).
    pub fn feed(
        &mut self,
        buf: &[u8],
        reqs: &[Request],
        expect_body: Option<&[u8]>,
        on: &mut dyn FnMut(End<T>),
    ) -> Result<usize, H2Error> {
        let Client {
            session,
            out,
            streams,
            window,
            goaway,
            forget,
            keep,
            ..
        } = self;
        let mut credit = false;
        let mut overflow = None;
        let used = session.feed(buf, out, &mut |ev| {
            // After a connection error nothing counts: the connection is over (and a split
            // input ends the same streams as a whole one).
            if overflow.is_some() {
                return;
            }
            match ev {
                Event::Header {
                    stream,
                    name,
                    value,
                } => {
                    if let Some(s) = streams.iter_mut().find(|s| s.id == stream) {
                        if let Some(g) = s.grpc.as_mut() {
                            g.header(name, value);
                        }
                        if let Some(k) = s.kept.as_mut().filter(|_| s.status >= 200) {
                            if !name.starts_with(b":") {
                                k.head.extend_from_slice(name);
                                k.head.extend_from_slice(b": ");
                                k.head.extend_from_slice(value);
                                k.head.extend_from_slice(b"\r\n");
                            }
                        }
                        if name == b":status" {
                            s.status = parse_status(value);
                            s.no_content |= matches!(s.status, 204 | 304);
                        } else if name == b"content-length" && s.status >= 200 {
                            match parse_length(value) {
                                Some(n) if s.content_length.is_none_or(|c| c == n) => {
                                    s.content_length = Some(n)
                                }
                                _ => s.bad_length = true,
                            }
                        }
                    }
                }
                Event::HeadersEnd {
                    stream,
                    end_stream,
                    too_large,
                } => {
                    let Some(at) = streams.iter().position(|s| s.id == stream) else {
                        return;
                    };
                    if too_large {
                        let s = streams.remove(at);
                        if !end_stream {
                            forget.push((s.id, Some(ErrorCode::Cancel)));
                        }
                        return on(End::HeaderTooLarge { tag: s.tag });
                    }
                    let s = &mut streams[at];
                    if let Some(g) = s.grpc.as_mut() {
                        if let Some(o) = g.headers_end(end_stream) {
                            on(grpc_end(streams, at, &o, end_stream, forget));
                        }
                        return;
                    }
                    match s.status {
                        // An interim (1xx) response: the final one follows.
                        100..=199 if !end_stream => s.status = 0,
                        200..=999 if s.bad_length => {
                            on(malformed(streams, at, ErrorCode::Protocol, forget))
                        }
                        200..=999 if end_stream => on(end(streams, at, expect_body, forget, keep)),
                        200..=999 => {}
                        _ => on(malformed(streams, at, ErrorCode::Protocol, forget)),
                    }
                }
                Event::Data {
                    stream,
                    data,
                    end_stream,
                } => {
                    let Some(at) = streams.iter().position(|s| s.id == stream) else {
                        // A stream we cancelled: its late DATA still counted on the connection.
                        if !end_stream {
                            forget.push((stream, None));
                        }
                        return;
                    };
                    let s = &mut streams[at];
                    if let Some(g) = s.grpc.as_mut() {
                        // Reply messages are counted by the reader and each reported as it
                        // completes; their bytes go no further.
                        let tag = s.tag;
                        let mut each = |_: &[u8]| on(End::GrpcMessage { tag });
                        if let Some(o) = g.data(data, end_stream, &mut each) {
                            on(grpc_end(streams, at, &o, end_stream, forget));
                        }
                        return;
                    }
                    if s.status < 200 {
                        return on(malformed(streams, at, ErrorCode::Protocol, forget));
                    }
                    if let Some(b) = expect_body {
                        let end = s.body_at + data.len();
                        s.body_ok &= b.get(s.body_at..end) == Some(data);
                    }
                    s.body_at += data.len();
                    if let Some(k) = s.kept.as_mut() {
                        k.body(data);
                    }
                    let over = s.content_length.is_some_and(|c| s.body_at as u64 > c);
                    if over {
                        on(malformed(streams, at, ErrorCode::Protocol, forget));
                    } else if end_stream {
                        on(end(streams, at, expect_body, forget, keep));
                    }
                }
                Event::Reset { stream, code } => {
                    if let Some(at) = streams.iter().position(|s| s.id == stream) {
                        let s = streams.remove(at);
                        // REFUSED_STREAM guarantees the request was not processed (RFC 9113
                        // §8.7): streams opened before the server's SETTINGS arrived, above its
                        // limit, end so and go out again.
                        if code == ErrorCode::RefusedStream {
                            on(End::Unprocessed { tag: s.tag });
                        } else {
                            on(End::Reset { tag: s.tag, code });
                        }
                    }
                }
                Event::StreamError { stream, code } => {
                    if let Some(at) = streams.iter().position(|s| s.id == stream) {
                        let s = streams.remove(at);
                        on(End::Malformed { tag: s.tag, code });
                    }
                }
                Event::GoAway { last_stream, .. } => {
                    *goaway = Some(goaway.map_or(last_stream, |g| g.min(last_stream)));
                    streams.retain(|s| {
                        let keep = s.id <= last_stream;
                        if !keep {
                            on(End::Unprocessed { tag: s.tag });
                        }
                        keep
                    });
                }
                Event::PeerSettings { window_delta } => {
                    for s in streams.iter_mut() {
                        s.window += window_delta;
                    }
                    credit = true;
                }
                Event::WindowUpdate {
                    stream: 0,
                    increment,
                } => {
                    *window += i64::from(increment);
                    if *window > i64::from(MAX_WINDOW) {
                        overflow = Some(H2Error {
                            code: ErrorCode::FlowControl,
                            stream: None,
                            what: "connection send window above 2^31-1",
                        });
                    }
                    credit = true;
                }
                Event::WindowUpdate { stream, increment } => {
                    if let Some(at) = streams.iter().position(|s| s.id == stream) {
                        let s = &mut streams[at];
                        s.window += i64::from(increment);
                        if s.window > i64::from(MAX_WINDOW) {
                            on(malformed(streams, at, ErrorCode::FlowControl, forget));
                        }
                        credit = true;
                    }
                }
                Event::SettingsAcked | Event::PingAck => {}
            }
        });
        for (stream, reset) in self.forget.drain(..) {
            if let Some(code) = reset {
                frame::write_rst_stream(&mut self.out, stream, code);
            }
            self.session.forget(stream);
        }
        // The overflow came before anything the session failed on after it (its frame was
        // whole and earlier), so it is the error, whether the input came whole or split.
        if let Some(e) = overflow {
            return Err(e);
        }
        let used = used?;
        let peer_table = self.session.peer.header_table_size as usize;
        if peer_table < DEFAULT_TABLE && matches!(self.table, Table::Fresh | Table::Indexed) {
            self.table = Table::Shrink(peer_table as u32);
        }
        // Only the open streams are looked at (at most `-m`), not every request of the run: a
        // stream whose body went out whole writes nothing.
        if credit {
            self.send_bodies(reqs);
        }
        Ok(used)
    }
}

impl<T> Stream<T> {
    /// The stream's whole response: its status, and whether its body was the expected one.
    fn response(self, expect_body: Option<&[u8]>) -> End<T> {
        let whole = expect_body.is_none_or(|b| self.body_at == b.len());
        End::Response {
            tag: self.tag,
            status: self.status,
            body_ok: self.body_ok && whole,
        }
    }
}

/// Stream `at` ended (END_STREAM): its response, or malformed when its DATA fell short of its
/// `content-length` (a response that has content by definition must match it).
fn end<T>(
    streams: &mut Vec<Stream<T>>,
    at: usize,
    expect_body: Option<&[u8]>,
    forget: &mut Vec<(u32, Option<ErrorCode>)>,
    keep: &mut Option<Box<Keeper>>,
) -> End<T> {
    let s = &streams[at];
    if !s.no_content && s.content_length.is_some_and(|c| s.body_at as u64 != c) {
        let s = streams.remove(at);
        // The stream is closed on both sides: nothing to reset.
        forget.push((s.id, None));
        return End::Malformed {
            tag: s.tag,
            code: ErrorCode::Protocol,
        };
    }
    let mut s = streams.remove(at);
    if let (Some(mut k), Some(keeper)) = (s.kept.take(), keep.as_mut()) {
        k.status = s.status;
        keeper.done(*k);
    }
    s.response(expect_body)
}

/// Ends gRPC call `at` with `o`; a stream still open (a broken reply) is reset with CANCEL once
/// the feed is over.
fn grpc_end<T>(
    streams: &mut Vec<Stream<T>>,
    at: usize,
    o: &crate::grpc::Outcome,
    end_stream: bool,
    forget: &mut Vec<(u32, Option<ErrorCode>)>,
) -> End<T> {
    let s = streams.remove(at);
    if !end_stream {
        forget.push((s.id, Some(ErrorCode::Cancel)));
    }
    End::Grpc {
        tag: s.tag,
        ended: o.into(),
    }
}

/// Ends stream `at` as malformed; it is reset with `code` once the feed is over.
fn malformed<T>(
    streams: &mut Vec<Stream<T>>,
    at: usize,
    code: ErrorCode,
    forget: &mut Vec<(u32, Option<ErrorCode>)>,
) -> End<T> {
    let s = streams.remove(at);
    forget.push((s.id, Some(code)));
    End::Malformed { tag: s.tag, code }
}

#[cfg(test)]
mod tests;

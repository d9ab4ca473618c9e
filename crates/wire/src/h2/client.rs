//! The client half of an HTTP/2 connection, sans I/O, as the load engine drives it: one request
//! encoded once ([`Request`]) and sent on many streams, at most `max_streams` at a time (h2load's
//! `-m`, capped by the server's SETTINGS_MAX_CONCURRENT_STREAMS), request bodies under the
//! server's flow-control windows, and each stream's end reported as an [`End`] carrying the
//! caller's tag (the engine's send times).
//!
//! The caller owns the socket: it writes [`Client::out`] and feeds what it reads to
//! [`Client::feed`]. Nothing here allocates per request once the buffers have grown. [`Conn`]
//! puts a `Client` behind the client-session interface the engine's worker loop talks to.

use super::frame::{self, ErrorCode};
use super::hpack;
use super::session::Session;
use super::settings::Settings;
use super::{DEFAULT_WINDOW, MAX_WINDOW, PREFACE};
use crate::kept::{Keeper, Kept};

mod conn;
mod feed;
mod request;
pub use conn::{Conn, Counts, Setup};
pub use request::Request;

/// The longest gRPC reply message read (gRPC's usual default for what a side receives); a
/// longer one is an error of class `grpc`, refused before it is read.
const GRPC_MAX_MESSAGE: u32 = 4 << 20;

/// HTTP/2 (and gRPC over it): every request encoded once for a stream, and the connections'
/// settings.
impl Setup {
    pub fn for_run(run: &crate::client::Run<'_>) -> Setup {
        use barrage_model::load::{Protocol, DEFAULT_H2_WINDOW};
        let c = run.load;
        let scheme = if run.tls { "https" } else { "http" };
        let several = run.requests.len() > 1;
        let window = match c.protocol {
            Protocol::Http2 { window, .. } | Protocol::Grpc { window, .. } => window,
            _ => DEFAULT_H2_WINDOW,
        };
        let grpc = matches!(c.protocol, Protocol::Grpc { .. });
        let requests = run.requests.iter().map(|r| {
            let req = Request::new(
                &r.method,
                scheme,
                run.authority,
                &r.path,
                &r.headers,
                &r.body,
            );
            // Different requests on one connection cannot share HPACK table entries.
            let req = if several { req.without_indexing() } else { req };
            match grpc {
                true => req.grpc(GRPC_MAX_MESSAGE, run.grpc_one_reply),
                false => req,
            }
        });
        Setup {
            requests: requests.collect(),
            scheme: scheme.to_string(),
            authority: run.authority.to_string(),
            keep_responses: run.keep_responses,
            config: Config {
                max_streams: c.protocol.streams() as u32,
                stream_window: window,
                conn_window: window,
                max_header_list: MAX_HEADER_LIST,
            },
            timeout: c.timeout,
            expect_body: c.expect_body.clone(),
            // `check` made sure a gRPC load's expected status is a code (0-16).
            grpc: grpc.then(|| {
                c.expect_status
                    .and_then(|n| crate::grpc::Code::from_u32(n.into()))
                    .unwrap_or(crate::grpc::Code::Ok)
            }),
        }
    }
}

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
                .map(|(max, one)| Box::new(crate::grpc::Response::new(max, one))),
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
}

#[cfg(test)]
mod tests;

//! HTTP/2 on a connection that opened with the client preface (h2c with prior knowledge): the
//! same endpoints and faults as HTTP/1.1, every stream answered as soon as it can be, bodies
//! sent as the flow-control windows allow.
//!
//! The protocol itself (stream states, request checks, windows) is the wire crate's
//! [`barrage_wire::h2::server::Server`]; this module maps its requests to routes and keeps what
//! each unfinished stream still owes: the rest of a body the windows held back, a `/bytes`
//! stream, a sleep or a drip waiting on the connection's timer, a request body being read.
//!
//! Faults: `/fault/reset` resets the stream (RST_STREAM INTERNAL_ERROR) and the connection goes
//! on; `/fault/garbage` answers with a header block no HPACK decoder accepts (a connection error
//! for the client) and closes; `/fault/close` closes the connection; `/fault/stall` never
//! answers the stream.

use super::{answer::headers_json_h2, End};
use crate::pattern;
use crate::respond::{reason, HELLO, JSON};
use crate::route::{route, Fault, Route};
use crate::worker::Ctx;
use barrage_wire::h2::server::{Config, Event, Server};
use barrage_wire::h2::{frame, ErrorCode};
use std::time::{Duration, Instant};

mod respond;
use respond::{log, log_line};

/// Bytes of one `/bytes` DATA frame run: bounded by the windows and the peer's frame size too.
const BYTES_WRITE: usize = 64 * 1024;

// What one connection can make the server hold, each bound tied to a setting:
// - a header block in progress: four times the header list size announced (the session; past
//   it GOAWAY ENHANCE_YOUR_CALM), a decoded header list: that size (past it 431);
// - request body DATA: the receive windows announced (past them FLOW_CONTROL_ERROR);
// - `/echo` bodies held while the client does not read the echo: each at most `echo_limit`
//   (the stream is cancelled past it) and all together at most the connection receive window
//   announced ([`Config::conn_window`], 16 MiB; past it GOAWAY ENHANCE_YOUR_CALM);
// - output: parsing stops at the connection's high-water mark until the client reads;
// - owed answers: one per open stream, which SETTINGS_MAX_CONCURRENT_STREAMS bounds.

/// The debug text of the GOAWAY that ends a connection holding too much echo.
const ECHO_HELD_TOO_LONG: &[u8] =
    b"echo bodies held past the connection window (client not reading)";

/// What an unfinished stream still owes.
#[derive(Debug)]
enum Owed {
    /// Body bytes the windows held back.
    Body(Vec<u8>),
    /// The `/bytes` pattern from `offset`, `left` bytes to go.
    Bytes {
        offset: u64,
        left: u64,
    },
    /// `/sleep`: answer at `at`.
    Sleep {
        at: Instant,
        ms: u64,
    },
    /// `/fault/drip`: one byte at `at`, then every `every`.
    Drip {
        at: Instant,
        every: Duration,
        offset: u64,
        left: u64,
    },
    /// `/fault/stall`: nothing, until the client resets the stream or leaves.
    Stall,
    /// A request body being read: echoed as it arrives (what the windows hold back waits in
    /// `held`), compared with `ping`, or dropped before the route is answered.
    Echo {
        held: Vec<u8>,
        ended: bool,
        seen: u64,
    },
    Ping {
        first: [u8; 4],
        seen: u64,
    },
    Discard(Route),
}

#[derive(Debug)]
struct Pending {
    stream: u32,
    owed: Owed,
    /// `METHOD target` when access logging is on, and the status to log at the end.
    log: Option<Box<str>>,
    status: u16,
}

/// One HTTP/2 connection's state beside its socket.
pub(crate) struct H2 {
    server: Server,
    pending: Vec<Pending>,
    /// The connection's timer is armed for this instant (the earliest sleep or drip).
    armed: Option<Instant>,
    /// A response or fault ends the connection once the output is written.
    pub closing: Option<End>,
    /// GOAWAY sent for a shutdown: close once no stream is left.
    draining: bool,
}

impl H2 {
    pub(crate) fn new(cfg: &crate::ServerConfig) -> H2 {
        H2 {
            server: Server::new(Config {
                max_header_list: cfg.header_limit.min(u32::MAX as usize) as u32,
                max_concurrent_streams: cfg.h2_max_streams,
                ..Config::default()
            }),
            pending: Vec::new(),
            armed: None,
            closing: None,
            draining: false,
        }
    }

    pub(crate) fn start(&self, out: &mut Vec<u8>) {
        self.server.start(out);
    }

    /// A sleep or drip is pending: the idle timeout does not apply.
    pub(crate) fn is_working(&self) -> bool {
        self.pending
            .iter()
            .any(|p| matches!(p.owed, Owed::Sleep { .. } | Owed::Drip { .. }))
    }

    /// Nothing owed and nothing more to do: the connection may close (when draining or the
    /// peer left).
    pub(crate) fn idle(&self) -> bool {
        self.pending.is_empty()
    }

    /// Parses and answers the frames in `inp`; returns the bytes used. A connection error
    /// writes GOAWAY and sets `closing`.
    pub(crate) fn feed(&mut self, ctx: &mut Ctx<'_>, inp: &[u8], out: &mut Vec<u8>) -> usize {
        // One read's frames: the window credit written before it is the client's to use.
        self.server.session.commit_credit();
        let mut pos = 0;
        while self.closing.is_none() && out.len() < super::HIGH_WATER {
            let (used, ev) = match self.server.next(&inp[pos..], out) {
                Ok(x) => x,
                Err(e) => {
                    self.server.goaway(out, e.code, e.what.as_bytes());
                    self.closing = Some(End::Close);
                    return inp.len();
                }
            };
            pos += used;
            let Some(ev) = ev else { break };
            match ev {
                Event::Request(r) => {
                    let stream = r.stream;
                    let end_stream = r.end_stream;
                    let log = ctx
                        .cfg()
                        .log
                        .then(|| format!("{} {}", r.method, r.path).into_boxed_str());
                    let (path, query) = match r.path.split_once('?') {
                        Some((p, q)) => (p, Some(q)),
                        None => (r.path, None),
                    };
                    let too_big = r.content_length.is_some_and(|n| n > ctx.cfg().echo_limit);
                    let is_head = r.method == "HEAD";
                    let mut rt = route(r.method, path, query, || headers_json_h2(&r));
                    if let Some(f) = ctx.pick_fault() {
                        rt = Route::Fault(f);
                    }
                    self.request(ctx, out, stream, rt, end_stream, too_big, is_head, log);
                }
                Event::TooLarge { stream, .. } => self.simple(
                    ctx,
                    out,
                    stream,
                    431,
                    b"request header fields too large\n",
                    None,
                ),
                Event::Data {
                    stream,
                    data,
                    end_stream,
                } => self.body(ctx, out, stream, data, end_stream),
                Event::Reset { stream } => self.pending.retain(|p| p.stream != stream),
            }
        }
        pos
    }

    #[allow(clippy::too_many_arguments)]
    fn request(
        &mut self,
        ctx: &mut Ctx<'_>,
        out: &mut Vec<u8>,
        stream: u32,
        rt: Route,
        end_stream: bool,
        too_big: bool,
        is_head: bool,
        log: Option<Box<str>>,
    ) {
        if end_stream {
            return self.respond(ctx, out, stream, rt, is_head, log);
        }
        if too_big {
            return self.simple(ctx, out, stream, 413, b"request body too large\n", log);
        }
        let owed = match rt {
            Route::Fault(_) => return self.respond(ctx, out, stream, rt, is_head, log),
            Route::Echo if !is_head => {
                self.head(
                    ctx,
                    out,
                    stream,
                    200,
                    "application/octet-stream",
                    None,
                    &[],
                    false,
                );
                Owed::Echo {
                    held: Vec::new(),
                    ended: false,
                    seen: 0,
                }
            }
            Route::Ping => Owed::Ping {
                first: [0; 4],
                seen: 0,
            },
            other => Owed::Discard(other),
        };
        self.pending.push(Pending {
            stream,
            owed,
            log,
            status: 200,
        });
    }

    /// Request body data of `stream`.
    fn body(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>, stream: u32, data: &[u8], end: bool) {
        let Some(i) = self.pending.iter().position(|p| p.stream == stream) else {
            return;
        };
        match &mut self.pending[i].owed {
            Owed::Echo { held, ended, seen } => {
                *seen += data.len() as u64;
                if *seen > ctx.cfg().echo_limit {
                    // The head is out: all that is left is to cut the stream short.
                    self.server.cancel(out, stream, ErrorCode::Cancel);
                    self.pending.swap_remove(i);
                    return;
                }
                *ended = end;
                if held.is_empty() {
                    let sent = self.server.send_data(out, stream, data, end);
                    held.extend_from_slice(&data[sent..]);
                } else {
                    held.extend_from_slice(data);
                }
                let holding = !held.is_empty();
                if holding && self.held() > self.server.config().conn_window as usize {
                    self.server
                        .goaway(out, ErrorCode::EnhanceYourCalm, ECHO_HELD_TOO_LONG);
                    self.closing = Some(End::Close);
                    return;
                }
                if !self.server.can_send(stream) {
                    let p = self.pending.swap_remove(i);
                    log(&p, 200);
                }
            }
            Owed::Ping { first, seen } => {
                for (k, &b) in data.iter().enumerate() {
                    if let Some(slot) = first.get_mut(*seen as usize + k) {
                        *slot = b;
                    }
                }
                *seen += data.len() as u64;
                if end {
                    let ok = *seen == 4 && first == b"ping";
                    let p = self.pending.swap_remove(i);
                    if ok {
                        self.simple(ctx, out, stream, 200, b"pong", p.log);
                    } else {
                        self.simple(ctx, out, stream, 400, b"expected the body ping\n", p.log);
                    }
                }
            }
            Owed::Discard(_) if end => {
                let p = self.pending.swap_remove(i);
                if let Owed::Discard(rt) = p.owed {
                    self.respond(ctx, out, stream, rt, false, p.log);
                }
            }
            _ => {}
        }
    }

    /// Echo bytes held across the connection's streams (the slow path: only when some are).
    fn held(&self) -> usize {
        self.pending
            .iter()
            .map(|p| match &p.owed {
                Owed::Echo { held, .. } => held.len(),
                _ => 0,
            })
            .sum()
    }

    /// Answers a routed request whose body (if any) has been read.
    fn respond(
        &mut self,
        ctx: &mut Ctx<'_>,
        out: &mut Vec<u8>,
        stream: u32,
        rt: Route,
        is_head: bool,
        log: Option<Box<str>>,
    ) {
        let text = "text/plain";
        match rt {
            Route::Hello => self.full(ctx, out, stream, 200, text, HELLO, is_head, log),
            Route::Json => self.full(
                ctx,
                out,
                stream,
                200,
                "application/json",
                JSON,
                is_head,
                log,
            ),
            Route::Echo => {
                let ct = "application/octet-stream";
                self.full(ctx, out, stream, 200, ct, b"", is_head, log)
            }
            Route::Headers(json) => self.full(
                ctx,
                out,
                stream,
                200,
                "application/json",
                &json,
                is_head,
                log,
            ),
            Route::Ping => self.simple(ctx, out, stream, 400, b"expected the body ping\n", log),
            Route::Status(code) => {
                let msg = format!("{code} {}\n", reason(code));
                let body = if matches!(code, 204 | 304) {
                    &b""[..]
                } else {
                    msg.as_bytes()
                };
                self.full(ctx, out, stream, code, text, body, is_head, log)
            }
            Route::NotFound => self.simple(ctx, out, stream, 404, b"not found\n", log),
            // RFC 8441's extended CONNECT is not served: WebSocket is over HTTP/1.1 only.
            Route::WsEcho(_) => {
                let msg = b"WebSocket is served over HTTP/1.1 only (no RFC 8441)\n";
                self.simple(ctx, out, stream, 400, msg, log)
            }
            Route::MethodNotAllowed(allow) => {
                let extra = [("allow", allow.as_bytes())];
                self.head(ctx, out, stream, 405, text, Some(19), &extra, false);
                self.data(out, stream, b"method not allowed\n", log, 405);
            }
            Route::BadParam(msg) => {
                let msg = format!("{msg}\n");
                self.simple(ctx, out, stream, 400, msg.as_bytes(), log)
            }
            Route::Sleep { ms } => {
                let at = ctx.shared.sleep_until(ctx.now, Duration::from_millis(ms));
                self.owe(stream, Owed::Sleep { at, ms }, log, 200);
            }
            Route::Bytes { n, chunked, .. } => {
                let sum = ctx.checksum(n);
                let extra = [("x-checksum", sum.as_bytes())];
                // HTTP/2 has no chunked framing: `?chunked=1` only leaves out content-length.
                let len = (!chunked).then_some(n);
                let ct = "application/octet-stream";
                let end = is_head || n == 0;
                self.head(ctx, out, stream, 200, ct, len, &extra, end);
                if end {
                    log_line(&log, 200);
                } else {
                    self.owe(stream, Owed::Bytes { offset: 0, left: n }, log, 200);
                }
            }
            Route::Fault(Fault::Reset) => {
                self.server.cancel(out, stream, ErrorCode::Internal);
            }
            Route::Fault(Fault::Close) => self.closing = Some(End::Close),
            Route::Fault(Fault::Garbage) => {
                // A HEADERS frame whose block starts with index 0, which no HPACK decoder
                // accepts (RFC 7541 §6.1): a malformed frame, a connection error for the client.
                frame::write_header(out, 1, frame::Kind::Headers, 0x5, stream);
                out.push(0x80);
                self.closing = Some(End::Close);
            }
            Route::Fault(Fault::Stall) => self.owe(stream, Owed::Stall, log, 0),
            Route::Fault(Fault::Drip { bytes, every_ms }) => {
                let sum = ctx.checksum(bytes);
                let extra = [("x-checksum", sum.as_bytes())];
                let ct = "application/octet-stream";
                let end = is_head || bytes == 0;
                self.head(ctx, out, stream, 200, ct, Some(bytes), &extra, end);
                if end {
                    log_line(&log, 200);
                } else {
                    let every = Duration::from_millis(every_ms);
                    let owed = Owed::Drip {
                        at: ctx.now + every,
                        every,
                        offset: 0,
                        left: bytes,
                    };
                    self.owe(stream, owed, log, 200);
                }
            }
        }
    }

    fn owe(&mut self, stream: u32, owed: Owed, log: Option<Box<str>>, status: u16) {
        self.pending.push(Pending {
            stream,
            owed,
            log,
            status,
        });
    }

    /// Sends what the windows allow of every body owed, up to the high-water mark.
    pub(crate) fn pump(&mut self, out: &mut Vec<u8>) {
        let mut i = 0;
        while i < self.pending.len() && out.len() < super::HIGH_WATER {
            let stream = self.pending[i].stream;
            let done = match &mut self.pending[i].owed {
                Owed::Body(rest) => {
                    let sent = self.server.send_data(out, stream, rest, true);
                    rest.drain(..sent);
                    !self.server.can_send(stream)
                }
                Owed::Echo { held, ended, .. } if !held.is_empty() || *ended => {
                    let sent = self.server.send_data(out, stream, held, *ended);
                    held.drain(..sent);
                    !self.server.can_send(stream)
                }
                Owed::Bytes { offset, left } => {
                    loop {
                        let room = self.server.send_room(stream);
                        if room == 0 || *left == 0 || out.len() >= super::HIGH_WATER {
                            break;
                        }
                        let max = room.min(BYTES_WRITE).min(*left as usize);
                        let chunk = pattern::slice_at(*offset, max);
                        let last = chunk.len() as u64 == *left;
                        let sent = self.server.send_data(out, stream, chunk, last);
                        *offset += sent as u64;
                        *left -= sent as u64;
                        if sent == 0 {
                            break;
                        }
                    }
                    !self.server.can_send(stream)
                }
                _ => false,
            };
            if done {
                let p = self.pending.swap_remove(i);
                log(&p, p.status);
            } else {
                i += 1;
            }
        }
    }

    /// Answers the sleeps and drips that are due ([`H2::timer_wanted`] arms the next).
    pub(crate) fn fire(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>) {
        let now = ctx.now;
        let mut i = 0;
        while i < self.pending.len() {
            let stream = self.pending[i].stream;
            match &mut self.pending[i].owed {
                Owed::Sleep { at, ms } if *at <= now => {
                    let msg = format!("slept {ms} ms\n");
                    let p = self.pending.swap_remove(i);
                    self.simple(ctx, out, stream, 200, msg.as_bytes(), p.log);
                    continue;
                }
                Owed::Drip {
                    at,
                    every,
                    offset,
                    left,
                } if *at <= now => {
                    let b = [pattern::byte_at(*offset)];
                    if self.server.send_data(out, stream, &b, *left == 1) == 1 {
                        *offset += 1;
                        *left -= 1;
                    }
                    *at = now + *every;
                    if *left == 0 || !self.server.can_send(stream) {
                        let p = self.pending.swap_remove(i);
                        log(&p, 200);
                        continue;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        self.armed = None;
    }

    /// The earliest sleep or drip deadline, if the timer is not already armed for it.
    pub(crate) fn timer_wanted(&mut self) -> Option<Instant> {
        let next = self.next_timer()?;
        if self.armed.is_some_and(|a| a <= next) {
            return None;
        }
        self.armed = Some(next);
        Some(next)
    }

    fn next_timer(&self) -> Option<Instant> {
        self.pending
            .iter()
            .filter_map(|p| match p.owed {
                Owed::Sleep { at, .. } | Owed::Drip { at, .. } => Some(at),
                _ => None,
            })
            .min()
    }

    /// The server is shutting down: GOAWAY (streams already opened are still answered).
    pub(crate) fn drain(&mut self, out: &mut Vec<u8>) {
        if !self.draining {
            self.draining = true;
            self.server.goaway(out, ErrorCode::NoError, b"");
        }
        // Stalled streams would hold the connection to the grace period for nothing.
        let stalled: Vec<u32> = self
            .pending
            .iter()
            .filter(|p| matches!(p.owed, Owed::Stall))
            .map(|p| p.stream)
            .collect();
        for s in stalled {
            self.server.cancel(out, s, ErrorCode::Cancel);
            self.pending.retain(|p| p.stream != s);
        }
    }

    pub(crate) fn draining(&self) -> bool {
        self.draining
    }
}

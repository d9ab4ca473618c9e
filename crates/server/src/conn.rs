//! One client connection: reading requests, answering them in order, streaming, timers.
//!
//! A connection owns no buffer while it is idle: reads go into the worker's scratch buffer and
//! responses into the worker's scratch output, so ten thousand idle keep-alive connections cost
//! a few hundred bytes each. Only what is left over (a partial request, output the socket did not
//! take) is copied into the connection's own small buffers.
//!
//! Requests are answered strictly in order: a request whose answer is not immediate (sleep, a
//! streamed body, a drip, a stall) makes the connection busy, and the requests behind it wait
//! in the input until it is done. All requests parsed from one read are answered with one write.

mod answer;
mod first_chunk;
mod h2;
mod socket;
use socket::keep_unread;
mod ws;

use answer::headers_json;
pub(crate) use answer::random_fault;
use first_chunk::FirstChunk;

use crate::respond::{push_chunk_header, BodyLen};
use crate::route::{route, Fault, Route};
use crate::stream::Stream;
use crate::transport::Transport;
use crate::worker::Ctx;
use barrage_wire::h2::PREFACE;
use barrage_wire::{header_slots, BodyDecoder, Framing, HeadParser, RequestHead};
use std::io;
use std::time::{Duration, Instant};

/// Stop parsing requests while this much output is waiting for the socket (backpressure).
const HIGH_WATER: usize = 256 * 1024;

/// The first byte of a TLS record carrying a handshake (a ClientHello sent to the plain port).
const TLS_HANDSHAKE: u8 = 0x16;

/// A first line shaped like a request line (three words of printable ASCII) whose last word
/// is no HTTP version: another protocol's client, which closes rather than reads a 400.
fn other_protocol(line: &[u8]) -> bool {
    let mut words = line.split(|&b| b == b' ');
    let shaped = line.split(|&b| b == b' ').count() == 3
        && line.split(|&b| b == b' ').all(|w| !w.is_empty())
        && line.iter().all(|&b| b == b' ' || b.is_ascii_graphic());
    shaped && !words.nth(2).is_some_and(|v| v.starts_with(b"HTTP/"))
}

/// A malformed response for `/fault/garbage`: not a status line any HTTP parser accepts.
const GARBAGE: &[u8] = b"HTTP/1.1 2x0 GARBAGE\r\n\x00\x01\x02 not a header\r\n\r\n";

/// How a connection ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// FIN after the output is written.
    Close,
    /// RST (SO_LINGER 0).
    Reset,
}

/// What the worker does with the connection after running it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    Keep,
    End(End),
}

/// Why the connection is being run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cause {
    /// Socket readiness; `drain` says the peer closed or errored, so read until EOF.
    Io { drain: bool },
    /// Its timer fired.
    Timer,
    /// The server began shutting down.
    Drain,
}

/// Per-worker scratch buffers shared by all its connections.
pub(crate) struct Scratch {
    pub input: Box<[u8]>,
    pub output: Vec<u8>,
}

/// What a response needs to know about its request once the head is gone.
#[derive(Debug)]
struct Req {
    keep_alive: bool,
    minor: u8,
    is_head: bool,
    /// `METHOD target` when access logging is on.
    log: Option<Box<str>>,
}

/// An answer that is not written at once.
#[derive(Debug)]
enum Busy {
    None,
    Sleep {
        req: Req,
        ms: u64,
    },
    Stream {
        req: Req,
        stream: Stream,
    },
    Drip {
        req: Req,
        left: u64,
        offset: u64,
        every: Duration,
    },
    Stall,
}

/// A request body being read.
#[derive(Debug)]
struct Body {
    dec: BodyDecoder,
    seen: u64,
    kind: BodyKind,
    req: Req,
    /// A chunked `/echo` whose head waits until its first chunk-size line is known to be good
    /// (see `first_chunk`).
    head_pending: bool,
}

#[derive(Debug)]
enum BodyKind {
    /// Read and drop, then answer the route.
    Discard(Route),
    /// Keep the first bytes to compare with `ping`.
    Ping { first: [u8; 4] },
    /// Forward to the response as it arrives (as chunks when the request was chunked).
    Echo { chunked: bool },
}

pub(crate) struct Conn {
    pub stream: Transport,
    /// Unique per worker; timers carry it so a reused slot ignores stale timers.
    pub id: u64,
    /// Sequence number of the one timer this connection may have armed.
    pub timer_seq: u64,
    pub last_active: Instant,
    inbuf: Vec<u8>,
    out: Vec<u8>,
    body: Option<Body>,
    busy: Busy,
    closing: Option<End>,
    peer_eof: bool,
    /// No byte has been read yet: the first bytes tell HTTP/2's preface from HTTP/1.1.
    fresh: bool,
    /// HTTP/2 (h2c with prior knowledge): the connection's state once the preface came.
    h2: Option<Box<h2::H2>>,
    /// WebSocket: the connection's state once `/ws/echo` upgraded it.
    ws: Option<Box<ws::Ws>>,
    /// The configured request parser with what it keeps across reads (http-parser-stream).
    head: Option<HeadParser>,
}

impl Conn {
    pub(crate) fn new(stream: Transport, id: u64, now: Instant) -> Self {
        Conn {
            stream,
            id,
            timer_seq: 0,
            last_active: now,
            inbuf: Vec::new(),
            out: Vec::new(),
            body: None,
            busy: Busy::None,
            closing: None,
            peer_eof: false,
            fresh: true,
            h2: None,
            ws: None,
            head: None,
        }
    }

    /// True while the server itself is holding the answer back (a sleep or a drip between
    /// bytes): the idle timeout does not apply then. A connection whose client stops reading a
    /// response makes no progress and does time out.
    pub(crate) fn is_working(&self) -> bool {
        matches!(self.busy, Busy::Sleep { .. } | Busy::Drip { .. })
            || self.h2.as_ref().is_some_and(|h| h.is_working())
            || self.ws.as_ref().is_some_and(|w| w.is_working())
    }

    /// Runs the connection until it has to wait for the socket or a timer.
    pub(crate) fn run(&mut self, ctx: &mut Ctx<'_>, scratch: &mut Scratch, cause: Cause) -> Next {
        let mut len = self.inbuf.len();
        scratch.input[..len].copy_from_slice(&self.inbuf);
        self.inbuf.clear();
        let own_out = !self.out.is_empty();
        let mut out = if own_out {
            std::mem::take(&mut self.out)
        } else {
            let mut o = std::mem::take(&mut scratch.output);
            o.clear();
            o
        };
        if cause == Cause::Timer {
            if let Some(h2) = self.h2.as_mut() {
                h2.fire(ctx, &mut out);
            } else if let Some(ws) = self.ws.as_mut() {
                ws.fire(ctx, &mut out);
            } else {
                self.fire_timer(ctx, &mut out);
            }
        }
        let drain = matches!(cause, Cause::Io { drain: true });
        let next = self.run_inner(ctx, &mut scratch.input, &mut len, &mut out, drain);
        if next == Next::Keep && len > 0 {
            self.inbuf.extend_from_slice(&scratch.input[..len]);
        } else if self.inbuf.capacity() > 16 * 1024 {
            self.inbuf = Vec::new();
        }
        if own_out {
            self.out = out;
            if self.out.is_empty() && self.out.capacity() > 64 * 1024 {
                self.out = Vec::new();
            }
        } else {
            if next == Next::Keep && !out.is_empty() {
                self.out.extend_from_slice(&out);
            }
            scratch.output = out;
        }
        next
    }

    fn run_inner(
        &mut self,
        ctx: &mut Ctx<'_>,
        buf: &mut [u8],
        len: &mut usize,
        out: &mut Vec<u8>,
        drain: bool,
    ) -> Next {
        let mut pos = 0;
        let mut exhausted = false;
        loop {
            if self.h2.is_some() {
                return self.run_h2(ctx, buf, len, pos, out, drain);
            }
            if self.ws.is_some() {
                return self.run_ws(ctx, buf, len, pos, out, drain);
            }
            let mut progress = false;
            if matches!(self.busy, Busy::None) {
                let used = self.process(ctx, &buf[pos..*len], out);
                pos += used;
                progress |= used > 0;
            }
            match self.pump(ctx, out) {
                Ok(finished) => progress |= finished,
                Err(_) => return Next::End(End::Close),
            }
            // Ciphertext still waiting for the socket is output too (TLS).
            let quiet =
                matches!(self.busy, Busy::None) && out.is_empty() && !self.stream.has_pending();
            if let Some(end) = self.closing {
                if quiet {
                    return Next::End(end);
                }
            }
            if matches!(self.busy, Busy::Stall) && (self.peer_eof || ctx.draining) {
                return Next::End(End::Close);
            }
            if quiet && self.body.is_none() && ctx.draining && !progress {
                return Next::End(End::Close);
            }
            if quiet && self.peer_eof && !progress {
                return Next::End(End::Close);
            }
            match self.read_more(ctx, buf, len, &mut pos, out, drain, &mut exhausted) {
                Ok(read) => progress |= read,
                Err(()) => return Next::End(End::Close),
            }
            if !progress {
                break;
            }
        }
        keep_unread(buf, len, pos)
    }

    /// Writes pending output, then any streamed body. Returns true when a stream finished.
    fn pump(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>) -> io::Result<bool> {
        if !self.write_out(ctx, out)? {
            return Ok(false);
        }
        if let Busy::Stream { stream, .. } = &mut self.busy {
            let before = stream.sent();
            let done = stream.pump(&mut self.stream)?;
            if stream.sent() != before {
                self.last_active = ctx.now;
            }
            if done {
                if let Busy::Stream { req, .. } = std::mem::replace(&mut self.busy, Busy::None) {
                    self.finish(ctx, &req, 200);
                }
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Parses and answers complete requests from `inp`; returns the bytes consumed.
    fn process(&mut self, ctx: &mut Ctx<'_>, inp: &[u8], out: &mut Vec<u8>) -> usize {
        if self.fresh && !inp.is_empty() {
            // HTTP/2 with prior knowledge starts with the preface, which no HTTP/1.1 request
            // line can (RFC 9113 §3.4): wait until it is whole or ruled out.
            let n = inp.len().min(PREFACE.len());
            if inp[..n] == PREFACE[..n] {
                if n < PREFACE.len() {
                    return 0;
                }
                let h2 = h2::H2::new(ctx.cfg());
                h2.start(out);
                self.h2 = Some(Box::new(h2));
                self.fresh = false;
                return PREFACE.len();
            }
            // A TLS client that chose h2 by ALPN must open with the preface (RFC 9113 §3.4).
            if self.stream.alpn_h2() {
                self.closing = Some(End::Close);
                return inp.len();
            }
            // A TLS hello on the plain port (a handshake record, 0x16), a broken HTTP/2
            // preface, or a request line of another protocol (three printable words whose
            // last is no HTTP version: h2spec 3.5/2's "INVALID CONNECTION PREFACE", which
            // must see the connection close, not an answer) comes from a client that could
            // not read an HTTP/1.1 answer: closed without one. Anything else that is not HTTP
            // (binary junk, a line without spaces) gets its 400 from the parser below, as
            // nginx answers.
            if inp[0] == TLS_HANDSHAKE || inp.starts_with(b"PRI ") {
                self.closing = Some(End::Close);
                return inp.len();
            }
            if let Some(eol) = inp.iter().position(|&b| b == b'\n') {
                self.fresh = false;
                let line = inp[..eol].strip_suffix(b"\r").unwrap_or(&inp[..eol]);
                if other_protocol(line) {
                    self.closing = Some(End::Close);
                    return inp.len();
                }
            }
        }
        let mut pos = 0;
        let mut headers = header_slots();
        while matches!(self.busy, Busy::None)
            && self.closing.is_none()
            && self.ws.is_none()
            && out.len() < HIGH_WATER
        {
            if self.body.is_some() {
                pos += self.feed_body(ctx, &inp[pos..], out);
                if self.body.is_some() {
                    break;
                }
                continue;
            }
            if pos == inp.len() {
                break;
            }
            // The one place a request head is parsed: the configured parser, dispatched here.
            let cfg = ctx.cfg();
            let parser = self.head.get_or_insert_with(|| HeadParser::new(cfg.parser));
            match parser.parse_head(&inp[pos..], &mut headers, cfg.header_limit) {
                Ok(None) => break,
                Ok(Some(h)) => {
                    pos += h.head_len;
                    self.on_head(ctx, &h, out);
                }
                Err(e) => {
                    let req = Req {
                        keep_alive: false,
                        minor: 1,
                        is_head: false,
                        log: ctx.cfg().log.then(|| "- -".into()),
                    };
                    let msg = format!("{e}\n");
                    self.simple(ctx, out, &req, e.status(), msg.as_bytes(), &[]);
                    return inp.len();
                }
            }
        }
        pos
    }

    fn on_head(&mut self, ctx: &mut Ctx<'_>, h: &RequestHead<'_, '_>, out: &mut Vec<u8>) {
        let req = Req {
            keep_alive: h.keep_alive,
            minor: h.version_minor,
            is_head: h.method == "HEAD",
            log: ctx
                .cfg()
                .log
                .then(|| format!("{} {}", h.method, h.target).into_boxed_str()),
        };
        let mut r = route(h.method, h.path(), h.query(), || headers_json(h));
        if let Some(f) = ctx.pick_fault() {
            r = Route::Fault(f);
        }
        if let Route::WsEcho(params) = r {
            return self.upgrade(ctx, h, params, req, out);
        }
        if h.framing == Framing::Empty {
            return self.respond(ctx, out, r, req);
        }
        if let Framing::Length(n) = h.framing {
            if n > ctx.cfg().echo_limit {
                let req = Req {
                    keep_alive: false,
                    ..req
                };
                return self.simple(ctx, out, &req, 413, b"request body too large\n", &[]);
            }
        }
        if matches!(
            r,
            Route::Fault(Fault::Reset | Fault::Close | Fault::Garbage | Fault::Stall)
        ) {
            // Faults act at once: the body does not matter to them.
            return self.respond(ctx, out, r, req);
        }
        if h.expect_continue {
            out.extend_from_slice(b"HTTP/1.1 100 Continue\r\n\r\n");
        }
        let mut head_pending = false;
        let kind = match r {
            Route::Echo if !req.is_head => {
                let chunked = h.framing == Framing::Chunked;
                match h.framing {
                    Framing::Length(n) => {
                        let ci = self.conn_info(ctx, &req);
                        ctx.templates.head(
                            out,
                            200,
                            Some("application/octet-stream"),
                            BodyLen::Fixed(n),
                            ci,
                            &[],
                        );
                    }
                    _ => head_pending = true,
                }
                BodyKind::Echo { chunked }
            }
            Route::Ping => BodyKind::Ping { first: [0; 4] },
            other => BodyKind::Discard(other),
        };
        self.body = Some(Body {
            dec: BodyDecoder::new(h.framing),
            seen: 0,
            kind,
            req,
            head_pending,
        });
    }

    /// `/ws/echo`: the opening handshake; on success the connection is WebSocket from the
    /// next byte on.
    fn upgrade(
        &mut self,
        ctx: &mut Ctx<'_>,
        h: &RequestHead<'_, '_>,
        params: crate::route::WsEcho,
        req: Req,
        out: &mut Vec<u8>,
    ) {
        use barrage_wire::ws::handshake;
        match handshake::server_accept(h) {
            Ok(accept) => {
                handshake::write_accept(out, &accept, b"Server: barrage\r\n");
                ctx.counters.ws_upgrade();
                let req = Req {
                    keep_alive: true,
                    ..req
                };
                self.finish(ctx, &req, 101);
                self.ws = Some(Box::new(ws::Ws::new(ctx.cfg(), params)));
            }
            Err(e) => {
                let req = Req {
                    keep_alive: false,
                    ..req
                };
                let msg = format!("{e}\n");
                let extra: &[(&str, &str)] = if e.status() == 426 {
                    &[("Upgrade", "websocket"), ("Sec-WebSocket-Version", "13")]
                } else {
                    &[]
                };
                self.simple(ctx, out, &req, e.status(), msg.as_bytes(), extra);
            }
        }
    }

    /// Feeds request body bytes; answers when the body is complete. Returns the bytes consumed.
    fn feed_body(&mut self, ctx: &mut Ctx<'_>, inp: &[u8], out: &mut Vec<u8>) -> usize {
        let limit = ctx.cfg().echo_limit;
        if self.body.as_ref().is_some_and(|b| b.head_pending) {
            let failed = match first_chunk::check(inp, limit) {
                FirstChunk::Pending => return 0,
                FirstChunk::Ok => None,
                FirstChunk::Malformed => Some((400, &b"malformed chunked body\n"[..])),
                FirstChunk::TooLarge => Some((413, &b"request body too large\n"[..])),
            };
            if let Some((status, msg)) = failed {
                let req = Req {
                    keep_alive: false,
                    ..self.body.take().expect("checked above").req
                };
                self.simple(ctx, out, &req, status, msg, &[]);
                return inp.len();
            }
            let ci = {
                let req = &self.body.as_ref().expect("checked above").req;
                self.conn_info(ctx, req)
            };
            ctx.templates.head(
                out,
                200,
                Some("application/octet-stream"),
                BodyLen::Chunked,
                ci,
                &[],
            );
            if let Some(b) = self.body.as_mut() {
                b.head_pending = false;
            }
        }
        let Some(body) = self.body.as_mut() else {
            return 0;
        };
        let Body {
            dec, seen, kind, ..
        } = body;
        let mut too_big = false;
        let result = dec.decode(inp, |data| {
            let before = *seen;
            *seen += data.len() as u64;
            if *seen > limit {
                too_big = true;
                return;
            }
            match kind {
                BodyKind::Discard(_) => {}
                BodyKind::Ping { first } => {
                    for (i, &b) in data.iter().enumerate() {
                        if let Some(slot) = first.get_mut(before as usize + i) {
                            *slot = b;
                        }
                    }
                }
                BodyKind::Echo { chunked: true } => {
                    push_chunk_header(out, data.len());
                    out.extend_from_slice(data);
                    out.extend_from_slice(b"\r\n");
                }
                BodyKind::Echo { chunked: false } => out.extend_from_slice(data),
            }
        });
        let echoing = matches!(kind, BodyKind::Echo { .. });
        let failed = match result {
            Err(_) => Some((400, &b"malformed request body\n"[..])),
            Ok(_) if too_big => Some((413, &b"request body too large\n"[..])),
            Ok(_) => None,
        };
        if let Some((status, msg)) = failed {
            let body = self.body.take().expect("body present");
            if echoing {
                // The echo's head is out: all we can do is cut the response short.
                self.closing = Some(End::Close);
            } else {
                let req = Req {
                    keep_alive: false,
                    ..body.req
                };
                self.simple(ctx, out, &req, status, msg, &[]);
            }
            return inp.len();
        }
        let used = result.unwrap_or(0);
        if body.dec.is_done() {
            let body = self.body.take().expect("body present");
            match body.kind {
                BodyKind::Echo { chunked } => {
                    if chunked {
                        out.extend_from_slice(b"0\r\n\r\n");
                    }
                    self.finish(ctx, &body.req, 200);
                }
                BodyKind::Ping { first } => {
                    if body.seen == 4 && &first == b"ping" {
                        self.simple(ctx, out, &body.req, 200, b"pong", &[]);
                    } else {
                        self.simple(ctx, out, &body.req, 400, b"expected the body ping\n", &[]);
                    }
                }
                BodyKind::Discard(r) => self.respond(ctx, out, r, body.req),
            }
        }
        used
    }
}

//! One client connection: reading requests, answering them in order, streaming, timers.
//!
//! A connection owns no buffer while it is idle: reads go into the worker's scratch buffer and
//! responses into the worker's scratch output, so ten thousand idle keep-alive connections cost
//! a few hundred bytes each. Only what is left over (a partial request, output the socket did not
//! take) is copied into the connection's own small buffers.
//!
//! Requests are answered strictly in order, by the one answer of each route
//! ([`crate::answer`], with HTTP/1.1's way of writing them in `reply`): a request whose answer
//! is not immediate (sleep, a streamed body, a drip, a stall) makes the connection busy, and the
//! requests behind it wait in the input until it is done. All requests parsed from one read are
//! answered with one write.
//!
//! A connection's protocol is one [`Mode`]: HTTP/1.1 until HTTP/2's preface (the wire's HTTP/2
//! session, run by `session` as any byte-stream session), FastCGI's first byte (its session,
//! run the same way) or a WebSocket upgrade (`ws`) switches it for good; one loop (`drive`) runs every mode, asking a switched one through
//! `drive::Switched`.

/// HTTP/1.1's [`H1Reply`] and the answers' [`Env`] for one step, from the connection's fields
/// (a macro, so that the borrows stay apart from `pending` and `body`). `$io`: the reply may
/// write a `/bytes` body to the socket now (only after the output went).
macro_rules! h1 {
    ($c:ident, $ctx:ident, $out:ident, $io:expr) => {
        (
            H1Reply {
                out: &mut *$out,
                transport: &mut $c.stream,
                ci: ConnInfo {
                    keep_alive: $c.ci.keep_alive && !$ctx.draining,
                    minor: $c.ci.minor,
                },
                body_end: &mut $c.body_end,
                closing: &mut $c.closing,
                last_active: &mut $c.last_active,
                templates: $ctx.templates,
                counters: $ctx.counters,
                shared: $ctx.shared,
                now: $ctx.now,
                io: $io,
                failed: false,
            },
            Env {
                shared: $ctx.shared,
                now: $ctx.now,
                checksums: &mut *$ctx.checksums,
            },
        )
    };
}

/// The protocol a connection switched to, as a [`drive::Switched`]: `$p` bound to its state
/// (shared or mutable as `$mode` is `&self.mode` or `&mut self.mode`), HTTP/1.1's arm `$h1`.
/// Static dispatch: each arm is compiled for its own type, so a switched protocol costs what it
/// did as a match of its own (a `Box<dyn Switched>` measured 2-3.5% more server CPU per HTTP/2
/// response). A new switched protocol is its [`Mode`] variant and its arm here, in this file.
macro_rules! switched {
    ($mode:expr, $p:ident => $e:expr, h1 => $h1:expr) => {
        match $mode {
            Mode::H1 => $h1,
            Mode::H2($p) => $e,
            Mode::Ws($p) => $e,
            Mode::Fcgi($p) => $e,
        }
    };
}

mod body;
mod drive;
mod first_chunk;
mod reply;
mod session;
mod socket;
mod ws;

use drive::Switched as _;
use reply::{BodyEnd, H1Reply};

use crate::answer::{self, Env, Extra, Pending, Req};
use crate::respond::ConnInfo;
use crate::route::{Fault, Route};
use crate::transport::Transport;
use crate::worker::Ctx;
use barrage_wire::h2::PREFACE;
use barrage_wire::{header_slots, BodyDecoder, Framing, HeadParser, RequestHead};
use std::io;
use std::time::Instant;

/// Stop parsing requests while this much output is waiting for the socket (backpressure).
const HIGH_WATER: usize = 256 * 1024;

/// HTTP/2's ALPN name.
const H2: &[u8] = b"h2";

/// What a TLS connection may choose by ALPN, in the server's order of preference (`tls.rs`
/// offers it): the protocols this file switches a connection to, each where it comes to speak
/// it (h2: the preface, which must open a connection that chose it), and HTTP/1.1.
pub(crate) const ALPN: [&[u8]; 2] = [H2, b"http/1.1"];

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

/// The protocol a connection speaks.
enum Mode {
    /// HTTP/1.1 (until the first bytes say HTTP/2's preface, or an upgrade).
    H1,
    /// HTTP/2 (h2c with prior knowledge, or h2 by ALPN): any wire `StreamServer` runs as
    /// [`session::Streamed`].
    H2(Box<session::Streamed<barrage_wire::h2::server::Server>>),
    /// WebSocket, once `/ws/echo` upgraded the connection.
    Ws(Box<ws::Ws>),
    /// FastCGI (a web server's `fastcgi_pass`), by its first byte.
    Fcgi(Box<session::Streamed<barrage_wire::fcgi::server::Server>>),
}

/// A request body being read (HTTP/1.1's framing; the answer that waits for it is the
/// connection's [`Pending`]).
#[derive(Debug)]
struct Body {
    dec: BodyDecoder,
    seen: u64,
    /// A chunked `/echo` whose answer (its head) waits until its first chunk-size line is known
    /// to be good (see `first_chunk`).
    deferred: Option<(Route, Req)>,
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
    mode: Mode,
    /// HTTP/1.1: the body of the request being read.
    body: Option<Body>,
    /// HTTP/1.1: the answer in progress (with `body`, the one waiting for it).
    pending: Option<Pending>,
    /// HTTP/1.1: what the response in progress says about the connection.
    ci: ConnInfo,
    /// HTTP/1.1: how the body of the response in progress ends (chunked: an echo of a chunked
    /// body, `/bytes?chunked=1`; with the connection: the same to an HTTP/1.0 request).
    body_end: BodyEnd,
    closing: Option<End>,
    peer_eof: bool,
    /// No byte has been read yet: the first bytes tell HTTP/2's preface from HTTP/1.1.
    fresh: bool,
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
            mode: Mode::H1,
            body: None,
            pending: None,
            ci: ConnInfo {
                keep_alive: true,
                minor: 1,
            },
            body_end: BodyEnd::Length,
            closing: None,
            peer_eof: false,
            fresh: true,
            head: None,
        }
    }

    /// True while the server itself is holding the answer back (a sleep or a drip between
    /// bytes): the idle timeout does not apply. A connection whose client stops reading a
    /// response makes no progress and does time out.
    pub(crate) fn is_working(&self) -> bool {
        switched!(&self.mode, p => p.is_working(),
            h1 => self.pending.as_ref().is_some_and(Pending::is_working))
    }

    /// HTTP/1.1: an answer is in progress once its request was read (the requests behind it
    /// wait).
    fn busy(&self) -> bool {
        self.body.is_none() && self.pending.is_some()
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
            switched!(&mut self.mode, p => p.fire(ctx, &mut out),
                h1 => self.fire_timer(ctx, &mut out))
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

    /// Writes pending output, then any streamed body. Returns true when a stream finished.
    fn pump(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>) -> io::Result<bool> {
        if !self.write_out(ctx, out)? {
            return Ok(false);
        }
        if !self.busy() {
            return Ok(false);
        }
        let Some(p) = self.pending.as_mut() else {
            return Ok(false);
        };
        let (mut r, _) = h1!(self, ctx, out, true);
        let done = answer::pump((), p, &mut r);
        if r.failed {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        if done {
            self.pending = None;
        }
        Ok(done)
    }

    /// Parses and answers complete requests from `inp`; returns the bytes consumed.
    fn process(&mut self, ctx: &mut Ctx<'_>, inp: &mut [u8], out: &mut Vec<u8>) -> usize {
        if self.fresh && !inp.is_empty() {
            // HTTP/2 with prior knowledge starts with the preface, which no HTTP/1.1 request
            // line can (RFC 9113 §3.4): wait until it is whole or ruled out.
            let n = inp.len().min(PREFACE.len());
            if inp[..n] == PREFACE[..n] {
                if n < PREFACE.len() {
                    return 0;
                }
                let cfg = ctx.cfg();
                let h2 = barrage_wire::h2::server::Server::new(barrage_wire::h2::server::Config {
                    max_header_list: cfg.header_limit.min(u32::MAX as usize) as u32,
                    max_concurrent_streams: cfg.h2_max_streams,
                    ..Default::default()
                });
                self.mode = Mode::H2(Box::new(session::Streamed::new(h2, out)));
                self.fresh = false;
                return PREFACE.len();
            }
            // A TLS client that chose h2 by ALPN must open with the preface (RFC 9113 §3.4).
            if self.stream.alpn() == Some(H2) {
                self.closing = Some(End::Close);
                return inp.len();
            }
            // FastCGI's first record says version 1, a byte no HTTP/1.1 request starts with;
            // it has no preface, so the switched session takes the input from its first byte.
            if inp[0] == barrage_wire::fcgi::VERSION {
                let cfg = ctx.cfg();
                let fcgi =
                    barrage_wire::fcgi::server::Server::new(barrage_wire::fcgi::server::Config {
                        max_params: cfg.header_limit,
                        max_requests: cfg.h2_max_streams as usize,
                    });
                self.mode = Mode::Fcgi(Box::new(session::Streamed::new(fcgi, out)));
                self.fresh = false;
                // The loop's own feed, now in the switched mode (and arming its timer).
                return self.feed(ctx, inp, out);
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
        while !self.busy()
            && self.closing.is_none()
            && matches!(self.mode, Mode::H1)
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
                    self.ci = ConnInfo {
                        keep_alive: false,
                        minor: 1,
                    };
                    let msg = format!("{e}\n");
                    let req = answer::unnamed(ctx.shared);
                    self.full(ctx, out, e.status(), msg.as_bytes(), req);
                    return inp.len();
                }
            }
        }
        pos
    }

    fn on_head(&mut self, ctx: &mut Ctx<'_>, h: &RequestHead<'_, '_>, out: &mut Vec<u8>) {
        self.ci = ConnInfo {
            keep_alive: h.keep_alive,
            minor: h.version_minor,
        };
        let (rt, req) = answer::route_request(ctx.shared, h.method, h.target, || {
            let version = if h.version_minor == 0 {
                "HTTP/1.0"
            } else {
                "HTTP/1.1"
            };
            let fields = h.headers.iter().map(|x| (x.name, x.value));
            answer::headers_json(h.method, h.target, version, fields)
        });
        if let Route::WsEcho(params) = rt {
            return self.upgrade(ctx, h, params, req, out);
        }
        let length = match h.framing {
            Framing::Empty => return self.start(ctx, out, rt, req, None),
            Framing::Length(n) => Some(n),
            _ => None,
        };
        let too_big = length.is_some_and(|n| n > ctx.cfg().echo_limit);
        let at_once = matches!(rt, Route::Fault(f) if !matches!(f, Fault::Drip { .. }));
        if too_big {
            // The body is not read: the connection cannot go on after the answer.
            self.ci.keep_alive = false;
        } else if !at_once {
            if h.expect_continue {
                out.extend_from_slice(b"HTTP/1.1 100 Continue\r\n\r\n");
            }
            let body = Body {
                dec: BodyDecoder::new(h.framing),
                seen: 0,
                deferred: None,
            };
            if h.framing == Framing::Chunked && rt == Route::Echo && !req.is_head {
                self.body = Some(Body {
                    deferred: Some((rt, req)),
                    ..body
                });
                return;
            }
            self.body = Some(body);
        }
        self.start(ctx, out, rt, req, Some(length));
    }

    /// Hands a routed request to its answer ([`answer::start`]); what it still owes waits in
    /// `pending` (with its timer armed).
    fn start(
        &mut self,
        ctx: &mut Ctx<'_>,
        out: &mut Vec<u8>,
        rt: Route,
        req: Req,
        body: Option<Option<u64>>,
    ) {
        let (mut r, mut env) = h1!(self, ctx, out, false);
        let p = answer::start((), rt, req, body, &mut r, &mut env);
        self.owe(ctx, p);
    }

    /// What the answer still owes (if anything), with its timer armed.
    fn owe(&mut self, ctx: &mut Ctx<'_>, p: Option<Pending>) {
        if let Some(at) = p.as_ref().and_then(Pending::due) {
            self.timer_seq += 1;
            ctx.arm_timer(at, self.id, self.timer_seq);
        }
        self.pending = p;
    }

    /// A whole small text response (an error), with HTTP/1.1's end of it.
    fn full(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>, status: u16, body: &[u8], req: Req) {
        let (mut r, _) = h1!(self, ctx, out, false);
        answer::full((), status, "text/plain", body, req, Extra::None, &mut r);
    }

    /// A timer of this connection fired: the sleep is over, or the next drip byte is due.
    fn fire_timer(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>) {
        let Some(mut p) = self.pending.take() else {
            return;
        };
        let (mut r, mut env) = h1!(self, ctx, out, false);
        if !answer::fire((), &mut p, &mut r, &mut env) {
            self.owe(ctx, Some(p));
        }
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
                ctx.counters.response_over("HTTP/1.1", 101);
                if let Some(line) = &req.log {
                    ctx.shared.log(line, 101);
                }
                self.mode = Mode::Ws(Box::new(ws::Ws::new(ctx.cfg(), params)));
            }
            Err(e) => {
                self.ci.keep_alive = false;
                let msg = format!("{e}\n");
                let extra: &[(&str, &str)] = if e.status() == 426 {
                    &[("Upgrade", "websocket"), ("Sec-WebSocket-Version", "13")]
                } else {
                    &[]
                };
                let (mut r, _) = h1!(self, ctx, out, false);
                r.refuse(e.status(), msg.as_bytes(), extra, req);
            }
        }
    }
}

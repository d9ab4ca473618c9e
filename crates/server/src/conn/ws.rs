//! WebSocket on a connection upgraded from HTTP/1.1 by `/ws/echo` (over TLS too: the
//! transport is below): every message echoed, as it came (text or binary, as one frame), after
//! `?delay=MS` when asked, and `?fault=` acted out on a message instead of its echo.
//!
//! The protocol is the wire crate's [`Session`]: frames, fragments, UTF-8, pings answered, the
//! close handshake. What a client can make the server hold:
//! - one message being assembled, at most `ws_max_message` (past it: close 1009, before the
//!   payload is read);
//! - output (echoes and pongs): input is parsed only while less than the connection's
//!   high-water mark waits for the socket, so a client that floods pings and never reads stops
//!   being read, and then no byte moves and the idle timeout ends it;
//! - delayed echoes: parsing stops while [`HELD_MAX`] bytes of them are waiting.
//!
//! A connection this side fails (a protocol error, bad UTF-8, too big a message) or closes (a
//! fault, a shutdown) gets a Close frame, then input is read and dropped until the client's
//! Close or [`CLOSE_WAIT`], then the TCP connection closes: a client that does not answer the
//! close holds nothing for long.

use super::drive::{Begin, Switched, Turn};
use super::{End, HIGH_WATER};
use crate::route::{WsEcho, WsFault};
use crate::worker::Ctx;
use barrage_wire::ws::frame::{write_frame, Opcode};
use barrage_wire::ws::{code, Event, Limits, Session};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How long after this side's Close the client has to answer it.
pub(crate) const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// Delayed echoes held at most (parsing waits beyond it).
pub(crate) const HELD_MAX: usize = 1 << 20;

/// What a failed connection's client may still send that is read (and dropped) in one turn
/// of the loop.
const DROP_PER_RUN: usize = 4 << 20;

/// The assembly buffer kept between messages.
const KEEP_BUFFER: usize = 64 * 1024;

/// An echo waiting for its time.
#[derive(Debug)]
struct Held {
    due: Instant,
    text: bool,
    len: usize,
}

/// One WebSocket connection's state beside its socket.
pub(crate) struct Ws {
    session: Session,
    params: WsEcho,
    /// Messages received so far (a fault acts on number `after + 1`).
    received: u64,
    queue: VecDeque<Held>,
    /// The delayed payloads, back to back from `held_at`.
    held: Vec<u8>,
    held_at: usize,
    /// The connection's timer is armed for this instant.
    armed: Option<Instant>,
    /// This side's Close is out: close the connection by then at the latest.
    close_by: Option<Instant>,
    /// The peer broke the protocol: its further bytes are dropped unread.
    failed: bool,
    /// After a failure: the write side is shut (FIN after the Close), the rest read and
    /// dropped until the client closes too, so unread input does not turn the close into a
    /// reset that could destroy the Close frame.
    shut: bool,
    stalled: bool,
    /// The connection ends once the output is written.
    closing: Option<End>,
}

impl Ws {
    pub(crate) fn new(cfg: &crate::ServerConfig, params: WsEcho) -> Ws {
        Ws {
            session: Session::server(Limits {
                max_frame: cfg.ws_max_message,
                max_message: cfg.ws_max_message,
            }),
            params,
            received: 0,
            queue: VecDeque::new(),
            held: Vec::new(),
            held_at: 0,
            armed: None,
            close_by: None,
            failed: false,
            shut: false,
            stalled: false,
            closing: None,
        }
    }

    /// Decodes and answers the frames in `inp`; returns the bytes used.
    fn frames(&mut self, ctx: &mut Ctx<'_>, inp: &mut [u8], out: &mut Vec<u8>) -> usize {
        let mut pos = 0;
        while pos < inp.len() && self.wants_input(out) {
            if self.failed || self.session.received_close() {
                return inp.len();
            }
            let Ws {
                session,
                params,
                received,
                queue,
                held,
                stalled,
                closing,
                ..
            } = self;
            let mut close_sent = None;
            // Read before `next`, whose event keeps the session borrowed (a message never
            // changes it).
            let closed = session.sent_close();
            match session.next(&mut inp[pos..], out) {
                Err(e) => {
                    let code = session.fail(out, &e);
                    ctx.counters.ws_close(code);
                    self.failed = true;
                    self.begin_close(ctx);
                    return inp.len();
                }
                Ok((n, ev)) => {
                    pos += n;
                    let Some(ev) = ev else { break };
                    match ev {
                        Event::Message { text, data } => {
                            ctx.counters.ws_message();
                            *received += 1;
                            let fault = params.fault.filter(|_| *received > params.after);
                            match fault {
                                _ if closed => {}
                                Some(WsFault::Close(c)) => close_sent = Some(c),
                                Some(WsFault::Drop) => *closing = Some(End::Close),
                                Some(WsFault::Reset) => *closing = Some(End::Reset),
                                Some(WsFault::Stall) => *stalled = true,
                                None if params.delay_ms > 0 => {
                                    held.extend_from_slice(data);
                                    queue.push_back(Held {
                                        due: ctx.now + Duration::from_millis(params.delay_ms),
                                        text,
                                        len: data.len(),
                                    });
                                }
                                None => {
                                    let op = if text { Opcode::Text } else { Opcode::Binary };
                                    write_frame(out, true, op, data, None);
                                }
                            }
                        }
                        Event::Ping(_) | Event::Pong(_) => {}
                        Event::Part { .. } => unreachable!("an assembling session"),
                        Event::Close { .. } => {
                            // Answered by the session (unless ours went first): the server
                            // closes the TCP connection once the answer is out (§7.1.1).
                            *closing = Some(End::Close);
                        }
                    }
                }
            }
            if let Some(c) = close_sent {
                self.close(ctx, out, c, "fault");
            }
            self.session.trim(KEEP_BUFFER);
        }
        pos
    }

    /// Sends this side's Close (once) and gives the client [`CLOSE_WAIT`] to answer it.
    fn close(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>, code: u16, reason: &str) {
        if !self.session.sent_close() {
            self.session.close(out, code, reason);
            ctx.counters.ws_close(code);
            self.begin_close(ctx);
        }
    }

    fn begin_close(&mut self, ctx: &Ctx<'_>) {
        self.queue.clear();
        self.held.clear();
        self.held_at = 0;
        self.close_by.get_or_insert(ctx.now + CLOSE_WAIT);
    }

    /// The instant the connection's timer must be armed for, if it is not armed for it yet.
    fn timer_wanted(&mut self) -> Option<Instant> {
        let next = [self.queue.front().map(|h| h.due), self.close_by]
            .into_iter()
            .flatten()
            .min()?;
        if self.armed.is_some_and(|a| a <= next) {
            return None;
        }
        self.armed = Some(next);
        Some(next)
    }

    /// The server is shutting down: Close 1001 (going away), then the usual close wait.
    fn drain(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>) {
        if self.stalled {
            self.closing = Some(End::Close);
        } else {
            self.close(ctx, out, code::GOING_AWAY, "server shutting down");
        }
    }

    /// The wait for the client's Close is over: the connection ends, whatever output is left
    /// (a client that does not read holds nothing past it).
    fn expired(&self, now: Instant) -> bool {
        self.close_by.is_some_and(|at| at <= now)
    }

    /// Both Close frames have passed: the server ends the TCP connection.
    fn done(&self) -> bool {
        self.session.sent_close() && self.session.received_close()
    }
}

impl Switched for Ws {
    /// Echoes are waiting for their time, or a close for its answer: not idle.
    fn is_working(&self) -> bool {
        !self.queue.is_empty() || self.close_by.is_some()
    }
    /// The connection's timer fired: the echoes that are due, or the end of the close wait.
    fn fire(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>) {
        self.armed = None;
        if self.expired(ctx.now) {
            return;
        }
        while let Some(h) = self.queue.front() {
            if h.due > ctx.now {
                break;
            }
            let data = &self.held[self.held_at..self.held_at + h.len];
            let op = if h.text { Opcode::Text } else { Opcode::Binary };
            write_frame(out, true, op, data, None);
            self.held_at += h.len;
            self.queue.pop_front();
        }
        if self.queue.is_empty() {
            self.held.clear();
            self.held_at = 0;
        } else if self.held_at > self.held.len() / 2 {
            self.held.drain(..self.held_at);
            self.held_at = 0;
        }
    }

    fn begin(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>, input_over: bool) -> Begin {
        if self.shut {
            return Begin::DropInput;
        }
        if ctx.draining {
            self.drain(ctx, out);
        }
        match (self.stalled && input_over) || self.expired(ctx.now) {
            true => Begin::End(End::Close),
            false => Begin::Go,
        }
    }

    fn feed(
        &mut self,
        ctx: &mut Ctx<'_>,
        inp: &mut [u8],
        out: &mut Vec<u8>,
    ) -> (usize, Option<Instant>) {
        let used = self.frames(ctx, inp, out);
        (used, self.timer_wanted())
    }

    fn end(&mut self, out: &[u8], pending_tls: bool, peer_eof: bool, progress: bool) -> Turn {
        if !out.is_empty() || pending_tls {
            return Turn::Go;
        }
        if let Some(end) = self.closing {
            return Turn::End(end);
        }
        if self.done() || (peer_eof && !progress) {
            return Turn::End(End::Close);
        }
        if self.failed && !self.shut {
            // The Close is out: FIN after it, then the rest is read and dropped.
            self.shut = true;
            return Turn::ShutWrite;
        }
        Turn::Go
    }
    /// Whether input should be read now (backpressure: output, delayed echoes, a stall).
    fn wants_input(&self, out: &[u8]) -> bool {
        !self.stalled
            && self.closing.is_none()
            && out.len() < HIGH_WATER
            && self.held.len() - self.held_at < HELD_MAX
    }
}

impl super::Conn {
    /// After a failure and this side's shut: reads and drops what the client still sends,
    /// from the TCP socket itself (rustls must not read after its close_notify), until the
    /// client closes; at most [`DROP_PER_RUN`] bytes a turn, the close wait's timer ending a
    /// client that never stops.
    pub(super) fn drop_input(&mut self, ctx: &mut Ctx<'_>, buf: &mut [u8]) -> super::Next {
        use std::io::Read;
        let mut dropped = 0;
        while dropped < DROP_PER_RUN {
            match self.stream.tcp_mut().read(buf) {
                Ok(0) => return super::Next::End(End::Close),
                Ok(n) => {
                    dropped += n;
                    self.last_active = ctx.now;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return super::Next::End(End::Close),
            }
        }
        super::Next::Keep
    }
}

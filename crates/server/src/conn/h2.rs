//! HTTP/2 on a connection that opened with the client preface (h2c with prior knowledge, or h2
//! by ALPN under TLS): the same answers as HTTP/1.1 and HTTP/3 ([`crate::answer`]), every
//! stream answered as soon as it can be, bodies sent as the flow-control windows allow.
//!
//! The protocol itself (stream states, request checks, windows, what a head, a reset or a
//! fault is in frames) is the wire crate's [`barrage_wire::h2::server::Server`], a
//! [`barrage_wire::server::ServerSession`] answered like HTTP/3's
//! ([`crate::answer::session`]); this module keeps the streams whose answers are pending
//! ([`Streams`]), the connection's shutdown and the bound on echo bodies held.
//!
//! Faults: `/fault/reset` resets the stream (RST_STREAM INTERNAL_ERROR) and the connection goes
//! on; `/fault/garbage` answers with a header block no HPACK decoder accepts (a connection error
//! for the client) and closes; `/fault/close` closes the connection; `/fault/stall` never
//! answers the stream.

use super::{End, HIGH_WATER};
use crate::answer::session::{self, Routed, SessionReply};
use crate::answer::streams::Streams;
use crate::answer::Env;
use crate::worker::Ctx;
use barrage_wire::h2::server::{Config, Server};
use barrage_wire::h2::ErrorCode;
use barrage_wire::server::ServerSession;
use std::time::Instant;

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

/// One HTTP/2 connection's state beside its socket.
pub(crate) struct H2 {
    server: Server,
    streams: Streams<u32>,
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
            streams: Streams::default(),
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
        self.streams.is_working()
    }

    /// Nothing owed and nothing more to do: the connection may close (when draining or the
    /// peer left).
    pub(crate) fn idle(&self) -> bool {
        self.streams.is_empty()
    }

    /// The streams pending, the reply and the environment of one turn.
    fn parts<'a>(
        &'a mut self,
        ctx: &'a mut Ctx<'_>,
        out: &'a mut Vec<u8>,
    ) -> (&'a mut Streams<u32>, SessionReply<'a, Server>, Env<'a>) {
        let r = SessionReply {
            session: &mut self.server,
            out,
            high_water: HIGH_WATER,
            templates: ctx.templates,
            counters: ctx.counters,
            shared: ctx.shared,
            now: ctx.now,
        };
        let env = Env {
            shared: ctx.shared,
            now: ctx.now,
            checksums: &mut *ctx.checksums,
        };
        (&mut self.streams, r, env)
    }

    /// Whether the connection ends once its output is written (an error, or a fault that
    /// closes it).
    fn ending(&mut self) -> bool {
        if self.closing.is_none() && self.server.ended() {
            self.closing = Some(End::Close);
        }
        self.closing.is_some()
    }

    /// Parses and answers the frames in `inp`; returns the bytes used. A connection error
    /// writes GOAWAY and sets `closing`.
    pub(crate) fn feed(&mut self, ctx: &mut Ctx<'_>, inp: &[u8], out: &mut Vec<u8>) -> usize {
        // One read's frames: the window credit written before it is the client's to use.
        self.server.session.commit_credit();
        let mut pos = 0;
        while !self.ending() && out.len() < HIGH_WATER {
            let (used, ev) = match ServerSession::next(&mut self.server, &inp[pos..], out) {
                Ok(x) => x,
                Err(_) => {
                    // The session wrote its GOAWAY.
                    self.closing = Some(End::Close);
                    return inp.len();
                }
            };
            pos += used;
            let Some(ev) = ev else { break };
            let ev = Routed::new::<Server>(ev, ctx.shared);
            let data = match ev {
                Routed::Body { id, .. } => Some(id),
                _ => None,
            };
            let (streams, mut r, mut env) = self.parts(ctx, out);
            session::serve(ev, streams, &mut r, &mut env);
            let conn_window = self.server.config().conn_window as usize;
            if let Some(stream) = data {
                if self.streams.held_by(stream) > 0 && self.streams.held() > conn_window {
                    self.server
                        .goaway(out, ErrorCode::EnhanceYourCalm, ECHO_HELD_TOO_LONG);
                    self.closing = Some(End::Close);
                }
            }
        }
        pos
    }

    /// Sends what the windows allow of every body owed, up to the high-water mark.
    pub(crate) fn pump(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>) {
        let (streams, mut r, _) = self.parts(ctx, out);
        streams.pump_all(&mut r);
        self.ending();
    }

    /// Answers the sleeps and drips that are due ([`H2::timer_wanted`] arms the next).
    pub(crate) fn fire(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>) {
        let (streams, mut r, mut env) = self.parts(ctx, out);
        streams.fire(&mut r, &mut env);
        self.armed = None;
        self.ending();
    }

    /// The earliest sleep or drip deadline, if the timer is not already armed for it.
    pub(crate) fn timer_wanted(&mut self) -> Option<Instant> {
        let next = self.streams.next_timer()?;
        if self.armed.is_some_and(|a| a <= next) {
            return None;
        }
        self.armed = Some(next);
        Some(next)
    }

    /// The server is shutting down: GOAWAY (streams already opened are still answered).
    pub(crate) fn drain(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>) {
        if !self.draining {
            self.draining = true;
            self.server.goaway(out, ErrorCode::NoError, b"");
        }
        // Stalled streams would hold the connection to the grace period for nothing.
        let (streams, mut r, _) = self.parts(ctx, out);
        streams.drain(&mut r);
    }

    pub(crate) fn draining(&self) -> bool {
        self.draining
    }
}

//! A stream protocol on a TCP connection (plain or TLS): any wire [`StreamServer`], today
//! HTTP/2 (h2c with prior knowledge, or h2 by ALPN) and FastCGI, answered like HTTP/3
//! ([`crate::answer::session`]): the same answers as HTTP/1.1, every stream answered as soon as
//! it can be, bodies sent as the protocol's flow control allows. A new protocol over TCP with a
//! `StreamServer` is run here as it is, switched to where a connection comes to speak it
//! (`conn.rs`).
//!
//! The protocol itself (stream states, request checks, windows, what a head, a reset or a
//! fault is in frames) is the session's; this module keeps the streams whose answers are
//! pending ([`Streams`]), the connection's shutdown and the bound on echo bodies held.
//!
//! Faults (HTTP/2's words): `/fault/reset` resets the stream (RST_STREAM INTERNAL_ERROR) and
//! the connection goes on; `/fault/garbage` answers with a header block no HPACK decoder
//! accepts (a connection error for the client) and closes; `/fault/close` closes the
//! connection; `/fault/stall` never answers the stream.

use super::drive::{Begin, Switched, Turn};
use super::{End, HIGH_WATER};
use crate::answer::session::{self, Routed, SessionReply};
use crate::answer::streams::Streams;
use crate::answer::Env;
use crate::worker::Ctx;
use barrage_wire::server::{ServerSession, Shut, StreamServer};
use std::time::Instant;

// What one connection can make the server hold, each bound tied to a setting (HTTP/2's):
// - a header block in progress: four times the header list size announced (the session; past
//   it GOAWAY ENHANCE_YOUR_CALM), a decoded header list: that size (past it 431);
// - request body DATA: the receive windows announced (past them FLOW_CONTROL_ERROR);
// - `/echo` bodies held while the client does not read the echo: each at most `echo_limit`
//   (the stream is cancelled past it) and all together at most the session's hold limit (the
//   connection receive window announced, 16 MiB; past it GOAWAY ENHANCE_YOUR_CALM);
// - output: parsing stops at the connection's high-water mark until the client reads;
// - owed answers: one per open stream, which SETTINGS_MAX_CONCURRENT_STREAMS bounds.

/// The words that end a connection holding too much echo (GOAWAY's debug data).
const ECHO_HELD_TOO_LONG: &[u8] =
    b"echo bodies held past the connection window (client not reading)";

/// One connection's session and its pending answers, beside its socket.
pub(crate) struct Streamed<S: StreamServer> {
    server: S,
    streams: Streams<S::Id>,
    /// The connection's timer is armed for this instant (the earliest sleep or drip).
    armed: Option<Instant>,
    /// A response or fault ends the connection once the output is written.
    closing: Option<End>,
    /// The shutdown's word sent (GOAWAY): close once no stream is left.
    draining: bool,
}

impl<S: StreamServer> Streamed<S> {
    /// The session switched to, its first words written to `out`.
    pub(crate) fn new(mut server: S, out: &mut Vec<u8>) -> Streamed<S> {
        server.start(out);
        Streamed {
            server,
            streams: Streams::default(),
            armed: None,
            closing: None,
            draining: false,
        }
    }

    /// Nothing owed and nothing more to do: the connection may close (when draining or the
    /// peer left).
    fn idle(&self) -> bool {
        self.streams.is_empty()
    }

    /// The streams pending, the reply and the environment of one turn (`defer`: while the
    /// read's frames are taken in, bodies wait for the pump after them).
    fn parts<'a>(
        &'a mut self,
        ctx: &'a mut Ctx<'_>,
        out: &'a mut Vec<u8>,
        defer: bool,
    ) -> (&'a mut Streams<S::Id>, SessionReply<'a, S>, Env<'a>) {
        let r = SessionReply {
            session: &mut self.server,
            out,
            high_water: HIGH_WATER,
            templates: ctx.templates,
            counters: ctx.counters,
            shared: ctx.shared,
            now: ctx.now,
            defer,
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
    fn frames(&mut self, ctx: &mut Ctx<'_>, inp: &[u8], out: &mut Vec<u8>) -> usize {
        // One read's frames: the window credit written before it is the client's to use.
        self.server.begin_read();
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
            let ev = Routed::new::<S>(ev, ctx.shared);
            let data = match ev {
                Routed::Body { id, .. } => Some(id),
                _ => None,
            };
            let (streams, mut r, mut env) = self.parts(ctx, out, true);
            session::serve(ev, streams, &mut r, &mut env);
            let limit = self.server.hold_limit();
            if let Some(stream) = data {
                if self.streams.held_by(stream) > 0 && self.streams.held() > limit {
                    self.server.shut(out, Shut::Overload(ECHO_HELD_TOO_LONG));
                    self.closing = Some(End::Close);
                }
            }
        }
        pos
    }

    /// Sends what the windows allow of every body owed, up to the high-water mark.
    fn pump(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>) {
        let (streams, mut r, _) = self.parts(ctx, out, false);
        streams.pump_all(&mut r);
        self.ending();
    }

    /// The earliest sleep or drip deadline, if the timer is not already armed for it.
    fn timer_wanted(&mut self) -> Option<Instant> {
        let next = self.streams.next_timer()?;
        if self.armed.is_some_and(|a| a <= next) {
            return None;
        }
        self.armed = Some(next);
        Some(next)
    }

    /// The server is shutting down: GOAWAY (streams already opened are still answered).
    fn drain(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>) {
        if !self.draining {
            self.draining = true;
            self.server.shut(out, Shut::Drain);
        }
        // Stalled streams would hold the connection to the grace period for nothing.
        let (streams, mut r, _) = self.parts(ctx, out, false);
        streams.drain(&mut r);
    }

    fn draining(&self) -> bool {
        self.draining
    }
}

impl<S: StreamServer> Switched for Streamed<S> {
    /// A sleep or drip is pending: the idle timeout does not apply.
    fn is_working(&self) -> bool {
        self.streams.is_working()
    }
    /// Answers the sleeps and drips that are due (`Streamed::timer_wanted` arms the next).
    fn fire(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>) {
        let (streams, mut r, mut env) = self.parts(ctx, out, false);
        streams.fire(&mut r, &mut env);
        self.armed = None;
        self.ending();
    }

    fn begin(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>, _input_over: bool) -> Begin {
        if ctx.draining && !self.draining() {
            self.drain(ctx, out);
        }
        Begin::Go
    }

    fn feed(
        &mut self,
        ctx: &mut Ctx<'_>,
        inp: &mut [u8],
        out: &mut Vec<u8>,
    ) -> (usize, Option<Instant>) {
        let mut used = 0;
        if self.closing.is_none() {
            used = self.frames(ctx, inp, out);
            self.pump(ctx, out);
        }
        (used, self.timer_wanted())
    }

    fn end(&mut self, out: &[u8], _pending_tls: bool, peer_eof: bool, progress: bool) -> Turn {
        if !out.is_empty() {
            return Turn::Go;
        }
        if let Some(end) = self.closing {
            return Turn::End(end);
        }
        if (self.draining() || peer_eof) && self.idle() && !progress {
            return Turn::End(End::Close);
        }
        Turn::Go
    }
}

//! The one loop of a TCP connection (plain or TLS), whatever its protocol: the protocol's
//! input in, its answers out, more input read, until the socket would block or the connection
//! ends. What differs by protocol ([`Mode`]) is asked at four points of each turn: its start (a
//! shutdown's word, ends that need nothing written), its feed, the writing of its output, and
//! its end (whether the connection is done).

use super::socket::keep_unread;
use super::{Conn, End, Mode, Next};
use crate::answer::Pending;
use crate::worker::Ctx;

/// What the end of a turn says.
enum Turn {
    Go,
    /// Run the turn again at once (WebSocket: the write side was just shut).
    Again,
    End(End),
}

impl Conn {
    /// Runs turns until nothing moves: every protocol of a TCP connection.
    pub(super) fn run_inner(
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
            if let Some(next) = self.begin_turn(ctx, buf, len, out, drain) {
                return next;
            }
            let used = self.feed(ctx, &mut buf[pos..*len], out);
            pos += used;
            let mut progress = used > 0;
            match self.flush(ctx, out) {
                Ok(moved) => progress |= moved,
                Err(()) => return Next::End(End::Close),
            }
            match self.end_turn(ctx, out, progress) {
                Turn::End(end) => return Next::End(end),
                Turn::Again => continue,
                Turn::Go => {}
            }
            if self.wants_input(out) {
                match self.read_more(ctx, buf, len, &mut pos, out, drain, &mut exhausted) {
                    Ok(read) => progress |= read,
                    Err(()) => return Next::End(End::Close),
                }
            }
            if !progress {
                break;
            }
        }
        keep_unread(buf, len, pos)
    }

    /// The start of a turn: a shutdown's word (HTTP/2's GOAWAY, WebSocket's Close), and the
    /// ends that wait for nothing.
    fn begin_turn(
        &mut self,
        ctx: &mut Ctx<'_>,
        buf: &mut [u8],
        len: &mut usize,
        out: &mut Vec<u8>,
        drain: bool,
    ) -> Option<Next> {
        match self.mode {
            Mode::H1 => None,
            Mode::H2(ref mut h2) => {
                if ctx.draining && !h2.draining() {
                    h2.drain(ctx, out);
                }
                None
            }
            Mode::Ws(ref mut ws) => {
                if ws.shut {
                    *len = 0;
                    return Some(self.drop_input(ctx, buf));
                }
                if ctx.draining {
                    ws.drain(ctx, out);
                }
                let stalled = ws.stalled && (drain || self.peer_eof);
                (stalled || ws.expired(ctx.now)).then_some(Next::End(End::Close))
            }
        }
    }

    /// The protocol takes what it can of `inp` (answering it into `out`): the bytes used.
    fn feed(&mut self, ctx: &mut Ctx<'_>, inp: &mut [u8], out: &mut Vec<u8>) -> usize {
        let busy = self.busy();
        let (used, timer) = match self.mode {
            Mode::H1 if busy => (0, None),
            // HTTP/1.1 arms its one answer's timer itself.
            Mode::H1 => (self.process(ctx, inp, out), None),
            Mode::H2(ref mut h2) => {
                let mut used = 0;
                if h2.closing.is_none() {
                    used = h2.feed(ctx, inp, out);
                    h2.pump(ctx, out);
                }
                (used, h2.timer_wanted())
            }
            Mode::Ws(ref mut ws) => {
                let used = ws.feed(ctx, inp, out);
                (used, ws.timer_wanted())
            }
        };
        if let Some(at) = timer {
            self.timer_seq += 1;
            ctx.arm_timer(at, self.id, self.timer_seq);
        }
        used
    }

    /// Writes the output (HTTP/1.1: then a `/bytes` body): whether that moved the connection
    /// on (HTTP/1.1: a body finished; the others: output written whole).
    fn flush(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>) -> Result<bool, ()> {
        if matches!(self.mode, Mode::H1) {
            return self.pump(ctx, out).map_err(|_| ());
        }
        let had = out.len();
        let all = self.write_out(ctx, out).map_err(|_| ())?;
        Ok(all && had > 0)
    }

    /// Whether the connection is done once this turn's output went.
    fn end_turn(&mut self, ctx: &mut Ctx<'_>, out: &[u8], progress: bool) -> Turn {
        let pending_tls = self.stream.has_pending();
        let busy = self.busy();
        match self.mode {
            Mode::H1 => {
                // Ciphertext still waiting for the socket is output too (TLS).
                let quiet = !busy && out.is_empty() && !pending_tls;
                if let Some(end) = self.closing.filter(|_| quiet) {
                    return Turn::End(end);
                }
                let stalled = self.pending.as_ref().is_some_and(Pending::is_stall);
                let done = (stalled && (self.peer_eof || ctx.draining))
                    || (quiet && self.body.is_none() && ctx.draining && !progress)
                    || (quiet && self.peer_eof && !progress);
                if done {
                    return Turn::End(End::Close);
                }
                Turn::Go
            }
            Mode::H2(ref h2) => {
                if !out.is_empty() {
                    return Turn::Go;
                }
                if let Some(end) = h2.closing {
                    return Turn::End(end);
                }
                if (h2.draining() || self.peer_eof) && h2.idle() && !progress {
                    return Turn::End(End::Close);
                }
                Turn::Go
            }
            Mode::Ws(ref mut ws) => {
                if !out.is_empty() || pending_tls {
                    return Turn::Go;
                }
                if let Some(end) = ws.closing {
                    return Turn::End(end);
                }
                if ws.done() || (self.peer_eof && !progress) {
                    return Turn::End(End::Close);
                }
                if ws.failed && !ws.shut {
                    ws.shut = true;
                    self.stream.close_notify();
                    let _ = self.stream.tcp().shutdown(std::net::Shutdown::Write);
                    return Turn::Again;
                }
                Turn::Go
            }
        }
    }

    /// Whether to read more now (each protocol's backpressure; `read_more` has the rest).
    fn wants_input(&self, out: &[u8]) -> bool {
        match &self.mode {
            Mode::Ws(ws) => ws.wants_input(out),
            _ => true,
        }
    }
}

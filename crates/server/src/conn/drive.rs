//! The one loop of a TCP connection (plain or TLS), whatever its protocol: the protocol's
//! input in, its answers out, more input read, until the socket would block or the connection
//! ends. What differs by protocol ([`Mode`]: HTTP/1.1, or a protocol [`Switched`] to for good)
//! is asked at four points of each turn: its start (a shutdown's word, ends that need nothing
//! written), its feed, the writing of its output, and its end (whether the connection is done).

use super::socket::keep_unread;
use super::{Conn, End, Mode, Next};
use crate::answer::Pending;
use crate::worker::Ctx;
use std::time::Instant;

/// What the start of a turn says.
pub(crate) enum Begin {
    Go,
    /// The input is read and dropped unparsed (WebSocket after a failure and its shut).
    DropInput,
    End(End),
}

/// What the end of a turn says.
pub(crate) enum Turn {
    Go,
    /// Shut the write side (after this side's last word), then run the turn again at once.
    ShutWrite,
    End(End),
}

/// A protocol a connection switched to from HTTP/1.1 for good (HTTP/2 by its preface or ALPN,
/// WebSocket by an upgrade): what the one loop asks of it at each point of a turn. A new
/// protocol over TCP implements it (a wire `StreamServer` needs nothing more:
/// `conn/session.rs` runs any), and its variant of `Mode`, its arm of `switched!` and the
/// switch to it (where a connection comes to speak it) are in `conn.rs`; the loop does not
/// change.
pub(crate) trait Switched {
    /// The server's own work is pending (a sleep, a drip, echoes held for their time, the wait
    /// for a close's answer): the idle timeout does not apply.
    fn is_working(&self) -> bool;
    /// The connection's timer fired: what is due.
    fn fire(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>);
    /// The start of a turn: a shutdown's word (GOAWAY, a Close), and the ends that wait for
    /// nothing. `input_over`: the peer closed its side or the socket failed.
    fn begin(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>, input_over: bool) -> Begin;
    /// Takes what it can of `inp`, answering into `out`: the bytes used, and the instant the
    /// connection's timer must be armed for (None: armed for it already, or nothing to wait
    /// for).
    fn feed(
        &mut self,
        ctx: &mut Ctx<'_>,
        inp: &mut [u8],
        out: &mut Vec<u8>,
    ) -> (usize, Option<Instant>);
    /// Whether the connection is done once this turn's output went: `out` the output left,
    /// `pending_tls` ciphertext waiting for the socket, `peer_eof` the peer's FIN seen,
    /// `progress` whether this turn moved anything.
    fn end(&mut self, out: &[u8], pending_tls: bool, peer_eof: bool, progress: bool) -> Turn;
    /// Whether to read more now (backpressure beyond the output's high-water mark).
    fn wants_input(&self, _out: &[u8]) -> bool {
        true
    }
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
                Turn::ShutWrite => continue,
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
        let input_over = drain || self.peer_eof;
        let begin = switched!(&mut self.mode, p => p.begin(ctx, out, input_over),
            h1 => Begin::Go);
        match begin {
            Begin::Go => None,
            Begin::DropInput => {
                *len = 0;
                Some(self.drop_input(ctx, buf))
            }
            Begin::End(end) => Some(Next::End(end)),
        }
    }

    /// The protocol takes what it can of `inp` (answering it into `out`): the bytes used.
    /// `conn.rs` calls it too, for a protocol switched to with no preface to consume (FastCGI).
    pub(super) fn feed(&mut self, ctx: &mut Ctx<'_>, inp: &mut [u8], out: &mut Vec<u8>) -> usize {
        // HTTP/1.1 arms its one answer's timer itself.
        let (used, timer) = switched!(&mut self.mode, p => p.feed(ctx, inp, out),
            h1 => if self.busy() { (0, None) } else { (self.process(ctx, inp, out), None) });
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
        let turn = switched!(&mut self.mode, p => p.end(out, pending_tls, self.peer_eof, progress),
        h1 => {
            // Ciphertext still waiting for the socket is output too (TLS).
            let quiet = !self.busy() && out.is_empty() && !pending_tls;
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
        });
        if let Turn::ShutWrite = turn {
            self.stream.close_notify();
            let _ = self.stream.tcp().shutdown(std::net::Shutdown::Write);
        }
        turn
    }

    /// Whether to read more now (each protocol's backpressure; `read_more` has the rest).
    fn wants_input(&self, out: &[u8]) -> bool {
        switched!(&self.mode, p => p.wants_input(out), h1 => true)
    }
}

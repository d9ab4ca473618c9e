//! A connection's writes and reads, for every protocol: the closed loop opens requests up to what
//! the session has room for, output is written as the socket takes it, reads go into the
//! worker's shared buffer behind the connection's carry and are fed to the session in place.

use super::ends::ends;
use super::{Sent, State, Worker};
use crate::transport::Transport;
use crate::ErrorClass;
use barrage_wire::client::ClientSession;
use std::io;
use std::time::Instant;

/// Full reads of one connection per readiness event before the others get their turn.
const READS_PER_TURN: u32 = 16;

impl Worker<'_> {
    /// Closed loop: opens as many requests as the session takes (and the budget allows), then
    /// writes what the session has to send, replies included, in one write.
    pub(super) fn fill(&mut self, i: usize, now: Instant) {
        if self.conns[i].state != State::Ready {
            return;
        }
        if self.lua.is_some() {
            if self.script_over() {
                // wrk.thread:stop() (or a hook's error): nothing more goes out.
                return;
            }
            if self.lua.as_deref().is_some_and(|l| l.dynamic || l.delay) {
                return self.fill_scripted(i, now);
            }
        }
        let mut k = self.conns[i].session.room() as u64;
        if self.measuring {
            if let Some(b) = self.plan.budget.as_mut() {
                k = k.min(*b);
                *b -= k;
            }
        }
        if k > 0 {
            // Consecutive positions: HTTP/1.1 writes them as one slice of the run's buffer.
            let pos = self.take_requests(k as usize);
            let (order, c) = (&self.sh.order, &mut self.conns[i]);
            for p in pos..pos + k as usize {
                let req = order.request_at(p);
                let sent = Sent {
                    intended: now,
                    sent: now,
                    measured: self.measuring,
                    req,
                    pos: p as u32,
                };
                let opened = c.session.open(now, p, req, sent);
                debug_assert!(opened, "room() promised it");
            }
            self.wrote(k);
        }
        self.flush(i, now);
    }

    /// Writes what the session has to send; keeps the rest for the next writable event.
    pub(super) fn flush(&mut self, i: usize, now: Instant) {
        match self.write_out(i, now) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) if self.conns[i].t.as_ref().is_some_and(|t| refused(t, &e)) => {
                self.on_eof(i, now)
            }
            Err(e) => self.fail(i, ErrorClass::Reset, &e, now),
        }
    }

    /// Writes the session's last word before its connection closes on an error (WebSocket's
    /// Close), as far as the socket takes it now; what it does not take is dropped with it.
    fn last_word(&mut self, i: usize, now: Instant) {
        let _ = self.write_out(i, now);
    }

    /// Writes until the session has nothing to send or the socket takes nothing more; the
    /// socket's error is the caller's to judge.
    #[inline]
    fn write_out(&mut self, i: usize, now: Instant) -> io::Result<()> {
        let c = &mut self.conns[i];
        let Some(t) = c.t.as_mut() else {
            return Ok(());
        };
        loop {
            let out = c.session.out();
            if out.is_empty() {
                return Ok(());
            }
            match t.write(out.bytes, out.segment) {
                Ok(0) => return Ok(()),
                Ok(n) => {
                    c.session.wrote(now, n);
                    self.iv.bytes_written += n as u64;
                    if self.measuring {
                        self.rec.counts.bytes_written += n as u64;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    pub(super) fn on_readable(&mut self, i: usize, closed: bool, now: Instant) {
        let mut reads = 0;
        loop {
            let c = &mut self.conns[i];
            let Some(t) = c.t.as_mut() else { return };
            let carry = c.carry.len();
            self.rbuf[..carry].copy_from_slice(&c.carry);
            let room = self.rbuf.len() - carry;
            match t.read(&mut self.rbuf[carry..]) {
                Ok(0) => return self.on_eof(i, now),
                Ok(n) => {
                    if self.measuring {
                        self.rec.counts.bytes_read += n as u64;
                    }
                    self.iv.bytes_read += n as u64;
                    let plain = matches!(t, Transport::Plain(_));
                    if !self.process(i, carry + n, now) {
                        return;
                    }
                    // A short read drained the socket; edge-triggered polling reports new data.
                    // When the peer has closed, read on to see the end of the stream.
                    if plain && n < room && !closed {
                        break;
                    }
                    // A peer that sends faster than this loop reads (a ping flood) would keep
                    // it here for ever, and with it every timeout and the run's end: the rest
                    // is read on the worker loop's next turn.
                    reads += 1;
                    if reads == READS_PER_TURN {
                        let gen = self.conns[i].gen;
                        self.read_again.push((i, gen, closed));
                        break;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if refused(t, &e) => return self.on_eof(i, now),
                Err(e) => {
                    let kind = if e.kind() == io::ErrorKind::InvalidData {
                        ErrorClass::Parse
                    } else {
                        ErrorClass::Reset
                    };
                    return self.fail(i, kind, &e, now);
                }
            }
        }
        // The closed loop writes the session's replies with the next requests; the open loop
        // sends on its own schedule, so they go now.
        if self.plan.pacer.is_none() {
            self.fill(i, now);
        } else {
            self.flush(i, now);
        }
    }

    /// Feeds `rbuf[..len]` to the connection's session; false when the connection was closed.
    pub(super) fn process(&mut self, i: usize, len: usize, now: Instant) -> bool {
        // The session and the recorder are borrowed together: ends are recorded as they come.
        let mut ends = ends!(self, now);
        let c = &mut self.conns[i];
        let res = c.session.feed(now, &self.rbuf[..len], &mut |e| ends.end(e));
        let tally = ends.tally;
        self.hand_responses(i);
        let fed = match res {
            Ok(fed) => fed,
            Err(e) => {
                self.settle(i, tally, now, false);
                if self.conns[i].session.out().last_word {
                    self.last_word(i, now);
                }
                self.fail(i, e.class, &e, now);
                return false;
            }
        };
        let c = &mut self.conns[i];
        c.carry.clear();
        c.carry.extend_from_slice(&self.rbuf[fed.used..len]);
        self.settle(i, tally, now, !fed.close);
        if fed.close {
            self.close_and_reconnect(i, now);
            return false;
        }
        true
    }

    pub(super) fn on_eof(&mut self, i: usize, now: Instant) {
        let mut ends = ends!(self, now);
        let res = self.conns[i].session.eof(&mut |e| ends.end(e));
        let tally = ends.tally;
        self.hand_responses(i);
        self.settle(i, tally, now, false);
        match res {
            Ok(()) => self.close_and_reconnect(i, now),
            Err(e) => self.fail(i, e.class, &e, now),
        }
    }

    /// Periodic: the session's timeouts and timers. A request cancelled alone frees its slot,
    /// which the closed loop fills at once (a multiplexed connection whose requests timed out
    /// has nothing to read that would fill it: it wrote nothing more until input came); the
    /// open loop's pacer takes the slot. The connection goes on unless the session says it
    /// cannot.
    pub(super) fn expire(&mut self, i: usize, now: Instant) {
        let mut ends = ends!(self, now);
        let res = self.conns[i].session.expire(now, &mut |e| ends.end(e));
        let tally = ends.tally;
        match res {
            Ok(()) => {
                self.settle(i, tally, now, true);
                if self.plan.pacer.is_none() {
                    self.fill(i, now);
                } else {
                    self.flush(i, now);
                }
            }
            Err(e) => {
                self.settle(i, tally, now, false);
                self.fail(i, e.class, &e, now);
            }
        }
    }
}

/// A datagram socket's "end of stream": the server's port refused a datagram (ICMP port
/// unreachable, reported on the connected socket's next call). The session says what it means
/// ([`ClientSession::eof`]: a failed connect before QUIC's handshake ended).
fn refused(t: &Transport, e: &io::Error) -> bool {
    matches!(t, Transport::Udp(_)) && e.kind() == io::ErrorKind::ConnectionRefused
}

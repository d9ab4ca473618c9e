//! Closed-loop writes and the read path of a connection: top up to the pipeline depth in one
//! write, read into the worker's shared buffer, parse responses in place, record them.

use super::{Sent, Shared, State, Worker};
use crate::parser::Done;
use crate::stats::{micros, Interval, Recorder};
use crate::transport::Transport;
use crate::ErrorKind;
use std::io;
use std::ops::ControlFlow;
use std::time::Instant;

impl Worker<'_> {
    /// Closed loop: tops the connection up to the pipeline depth in one write.
    pub(super) fn fill(&mut self, i: usize, now: Instant) {
        if self.conns[i].h2.is_some() {
            return self.h2_fill(i, now);
        }
        let c = &mut self.conns[i];
        // Pipelined requests go out in whole batches: the next batch is written when the last
        // response of the previous one has arrived (as wrk does). Topping up after every partial
        // read instead costs one small write per read and measured ~30% more CPU per request.
        if c.state != State::Ready || c.wpos < c.wend || !c.inflight.is_empty() {
            return;
        }
        let mut k = (self.sh.pipeline - c.inflight.len()) as u64;
        if self.measuring {
            if let Some(b) = self.plan.budget.as_mut() {
                k = k.min(*b);
                *b -= k;
            }
        }
        if k == 0 {
            return;
        }
        let pos = self.cursor;
        self.cursor = (pos + k as usize) % self.sh.encoded.round();
        let enc = &self.sh.encoded;
        for j in 0..k as usize {
            c.inflight.push_back(Sent {
                intended: now,
                sent: now,
                measured: self.measuring,
                req: enc.request_at(pos + j),
            });
        }
        (c.wpos, c.wend) = enc.span(pos, k as usize);
        self.wrote(k);
        self.write_pending(i);
    }

    pub(super) fn write_pending(&mut self, i: usize) {
        let c = &mut self.conns[i];
        let Some(t) = c.t.as_mut() else { return };
        while c.wpos < c.wend {
            match t.write(&self.sh.encoded.bytes()[c.wpos..c.wend]) {
                Ok(n) => {
                    c.wpos += n;
                    self.iv.bytes_written += n as u64;
                    if self.measuring {
                        self.rec.counts.bytes_written += n as u64;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return self.fail(i, ErrorKind::Reset, &e, Instant::now()),
            }
        }
        c.wpos = 0;
        c.wend = 0;
    }

    pub(super) fn on_readable(&mut self, i: usize, closed: bool, now: Instant) {
        loop {
            let c = &mut self.conns[i];
            let Some(t) = c.t.as_mut() else { return };
            let carry = c.parser.carry.len();
            self.rbuf[..carry].copy_from_slice(&c.parser.carry);
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
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let kind = if e.kind() == io::ErrorKind::InvalidData {
                        ErrorKind::Parse
                    } else {
                        ErrorKind::Reset
                    };
                    return self.fail(i, kind, &e, now);
                }
            }
        }
        if self.plan.pacer.is_none() {
            self.fill(i, now);
        }
    }

    /// Parses `rbuf[..len]`; false when the connection was closed.
    pub(super) fn process(&mut self, i: usize, len: usize, now: Instant) -> bool {
        if self.conns[i].h2.is_some() {
            return self.h2_process(i, len, now);
        }
        let sh = self.sh;
        let c = &mut self.conns[i];
        let (parser, inflight, done) = (&mut c.parser, &c.inflight, &mut self.done);
        done.clear();
        // Responses are collected first and matched with their requests after: the parser
        // asks, for each response, whether its request was a HEAD (no body follows).
        let res = parser.feed(
            &self.rbuf[..len],
            |k| inflight.get(k).is_some_and(|s| sh.is_head[s.req as usize]),
            sh.expect_body.as_deref(),
            |d| {
                done.push(d);
                let stop = done.len() > inflight.len() || !d.keep_alive || !sh.keepalive;
                if stop {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        let unexpected = self.done.len() > self.conns[i].inflight.len();
        let mut close = false;
        let mut freed = 0;
        for k in 0..self.done.len().min(self.conns[i].inflight.len()) {
            let d = self.done[k];
            let s = self.conns[i].inflight.pop_front().expect("counted above");
            self.answered(i, d, s, now);
            if !d.keep_alive || !sh.keepalive {
                close = true;
            } else {
                freed += 1;
            }
        }
        self.inflight_total -= freed + u64::from(close);
        if freed + u64::from(close) > 0 {
            // A response: the target works, so the next failure starts the backoff afresh.
            self.conns[i].failures = 0;
            self.last_progress = now;
        }
        if let Err(e) = res {
            self.fail(i, ErrorKind::Parse, &e, now);
            return false;
        }
        if unexpected {
            self.fail(i, ErrorKind::Parse, &"response without a request", now);
            return false;
        }
        if self.plan.pacer.is_some() {
            let gen = self.conns[i].gen;
            for _ in 0..freed {
                self.free.push_back((i as u32, gen));
            }
        }
        if close {
            self.close_and_reconnect(i, now);
            return false;
        }
        true
    }

    /// Request `s` on HTTP/1.1 connection `i` got its whole response `d`.
    fn answered(&mut self, i: usize, d: Done, s: Sent, now: Instant) {
        let open_loop = self.plan.pacer.is_some();
        let (rec, iv) = (&mut self.rec, &mut self.iv);
        complete(rec, iv, self.sh, (open_loop, self.measuring), d, s, now);
        self.conns[i].served += 1;
    }

    pub(super) fn on_eof(&mut self, i: usize, now: Instant) {
        if let Some(client) = self.conns[i].h2.as_ref() {
            return if client.open_streams() == 0 {
                self.close_and_reconnect(i, now)
            } else {
                self.fail(i, ErrorKind::Reset, &"connection closed by the peer", now)
            };
        }
        let sh = self.sh;
        let c = &mut self.conns[i];
        match c.parser.eof(sh.expect_body.as_deref()) {
            Ok(Some(d)) => match c.inflight.pop_front() {
                Some(s) => {
                    self.answered(i, d, s, now);
                    self.inflight_total -= 1;
                    self.close_and_reconnect(i, now);
                }
                None => self.fail(i, ErrorKind::Parse, &"response without a request", now),
            },
            Ok(None) if c.inflight.is_empty() && c.served > 0 => self.close_and_reconnect(i, now),
            Ok(None) => self.fail(i, ErrorKind::Reset, &"connection closed by the peer", now),
            Err(e) => self.fail(i, ErrorKind::Reset, &e, now),
        }
    }
}

/// Records one complete response to a request: in the second's interval always, in the run's
/// recorder only for requests written in the measured window.
pub(super) fn complete(
    rec: &mut Recorder,
    iv: &mut Interval,
    sh: &Shared,
    (open_loop, measuring): (bool, bool),
    d: Done,
    s: Sent,
    now: Instant,
) {
    // The second's interval counts what the phase counts: in the measured window only requests
    // written in it (so the series adds up to the totals), in warmup everything.
    let in_interval = s.measured || !measuring;
    let lat = micros(now.saturating_duration_since(s.intended));
    let kind = if sh.expect_status.is_some_and(|want| want != d.status) {
        Some(ErrorKind::Status)
    } else if !d.body_ok {
        Some(ErrorKind::Body)
    } else {
        None
    };
    match kind {
        _ if !in_interval => {}
        Some(k) => iv.error(k, 1),
        None => {
            iv.responses += 1;
            let _ = iv.latency.record(lat);
        }
    }
    if in_interval {
        iv.count_status(d.status, 1);
    }
    if !s.measured {
        return;
    }
    rec.status[usize::from(d.status).min(999)] += 1;
    if sh.per_target {
        rec.target_done(s.req, d.status, kind, lat);
    }
    match kind {
        Some(ErrorKind::Status) => {
            let want = sh.expect_status.unwrap_or_default();
            rec.error(ErrorKind::Status, 1, || {
                format!("status {} (expected {want})", d.status)
            });
        }
        Some(k) => rec.error(k, 1, || "body differs from the expected body".into()),
        None => {
            rec.counts.responses += 1;
            let _ = rec.latency.record(lat);
            if open_loop {
                let _ = rec
                    .uncorrected
                    .record(micros(now.saturating_duration_since(s.sent)));
            }
        }
    }
}

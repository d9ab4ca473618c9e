//! HTTP/2 connections in the same worker loop as HTTP/1.1: the wire crate's [`Client`] keeps a
//! connection's streams and windows, this file moves its bytes and turns each stream's end into
//! the same records an HTTP/1.1 response makes. A stream is what a pipelined request is there:
//! `Shared::pipeline` holds `-m` (streams per connection), so the closed loop keeps that many
//! open and the open loop has that many slots per connection.

use super::{count_lost, Sent, State, Worker};
use crate::parser::Done;
use crate::ErrorKind;
use barrage_wire::h2::client::{Client, End};
use barrage_wire::h2::session::HEADER_BLOCK_TOO_LARGE;
use std::io;
use std::time::Instant;

impl Worker<'_> {
    /// A connection is up: start its HTTP/2 session (preface and SETTINGS) and, in the closed
    /// loop, its first streams; they go out together.
    pub(super) fn h2_ready(&mut self, i: usize, now: Instant) {
        let sh = self.sh;
        let Some(h) = sh.h2.as_ref() else { return };
        self.conns[i].h2 = Some(Box::new(Client::new(h.client)));
        self.conns[i].h2_wpos = 0;
        if self.measuring {
            self.rec.h2.connections += 1;
        }
        if self.plan.pacer.is_some() {
            let gen = self.conns[i].gen;
            for _ in 0..self.sh.pipeline {
                self.free.push_back((i as u32, gen));
            }
            self.h2_flush(i);
        } else {
            self.h2_fill(i, now);
        }
    }

    /// Closed loop: opens streams while the connection has room (and the budget allows).
    pub(super) fn h2_fill(&mut self, i: usize, now: Instant) {
        let sh = self.sh;
        let Some(h) = sh.h2.as_ref() else { return };
        let c = &mut self.conns[i];
        if c.state != State::Ready {
            return;
        }
        let Some(client) = c.h2.as_mut() else { return };
        let mut opened = 0;
        let round = sh.encoded.round();
        while client.room() > 0 {
            if self.measuring {
                match self.plan.budget.as_mut() {
                    Some(0) => break,
                    Some(b) => *b -= 1,
                    None => {}
                }
            }
            let req = sh.encoded.request_at(self.cursor);
            let sent = Sent {
                intended: now,
                sent: now,
                measured: self.measuring,
                req,
            };
            if client.open(&h.requests, req as usize, sent).is_none() {
                break;
            }
            self.cursor = (self.cursor + 1) % round;
            opened += 1;
        }
        self.h2_opened(opened);
        self.h2_flush(i);
    }

    /// Open loop: sends one request, already counted as written, on connection `i`, which
    /// [`Worker::take_slot`] found room on.
    pub(super) fn h2_send(&mut self, i: usize, sent: Sent) {
        let sh = self.sh;
        let (Some(h), Some(client)) = (sh.h2.as_ref(), self.conns[i].h2.as_mut()) else {
            return;
        };
        let opened = client.open(&h.requests, sent.req as usize, sent).is_some();
        debug_assert!(opened, "take_slot checked the room");
        if self.measuring {
            self.rec.h2.streams += 1;
        }
        self.h2_flush(i);
    }

    /// Counts `n` streams opened in the closed loop as requests written.
    fn h2_opened(&mut self, n: u64) {
        self.wrote(n);
        if self.measuring {
            self.rec.h2.streams += n;
        }
    }

    /// Writes what the session has to say; keeps the rest for the next writable event.
    pub(super) fn h2_flush(&mut self, i: usize) {
        let c = &mut self.conns[i];
        let (Some(t), Some(client)) = (c.t.as_mut(), c.h2.as_mut()) else {
            return;
        };
        while c.h2_wpos < client.out.len() {
            match t.write(&client.out[c.h2_wpos..]) {
                Ok(n) => {
                    c.h2_wpos += n;
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
        client.out.clear();
        c.h2_wpos = 0;
    }

    /// Feeds `rbuf[..len]` to the connection's session; false when the connection was closed.
    pub(super) fn h2_process(&mut self, i: usize, len: usize, now: Instant) -> bool {
        let sh = self.sh;
        let Some(h) = sh.h2.as_ref() else {
            return false;
        };
        let open_loop = self.plan.pacer.is_some();
        let measuring = self.measuring;
        let c = &mut self.conns[i];
        let Some(client) = c.h2.as_mut() else {
            return false;
        };
        let was_going_away = client.going_away();
        let (rec, iv) = (&mut self.rec, &mut self.iv);
        let mut ended = 0u64;
        let mut retry = 0u64;
        // Open loop: the requests to send again (allocates only when a server refuses).
        let mut requeue = Vec::new();
        // One call per socket read: the credit written before it is the server's to use.
        client.commit_credit();
        let res = client.feed(
            &self.rbuf[..len],
            &h.requests,
            sh.expect_body.as_deref(),
            &mut |end| {
                ended += 1;
                match end {
                    End::Response {
                        tag,
                        status,
                        body_ok,
                    } => {
                        let d = Done {
                            status,
                            keep_alive: true,
                            body_ok,
                        };
                        super::exchange::complete(rec, iv, sh, (open_loop, measuring), d, tag, now);
                    }
                    End::Reset { tag, code } => {
                        let why = format_args!("stream reset by the server ({})", code.name());
                        let lost = (1, u64::from(tag.measured));
                        count_lost(rec, iv, measuring, ErrorKind::StreamReset, lost, &why);
                        if tag.measured {
                            rec.h2.rst_by_code[(code.to_u32() as usize).min(14)] += 1;
                            rec.target_error(tag.req, ErrorKind::StreamReset);
                        }
                    }
                    End::Malformed { tag, code } => {
                        let why = format_args!("malformed response stream ({})", code.name());
                        let lost = (1, u64::from(tag.measured));
                        count_lost(rec, iv, measuring, ErrorKind::Protocol, lost, &why);
                        if tag.measured {
                            rec.target_error(tag.req, ErrorKind::Protocol);
                        }
                    }
                    End::HeaderTooLarge { tag } => {
                        let why = format_args!(
                            "response header list larger than the {} KiB announced",
                            h.client.max_header_list / 1024
                        );
                        let lost = (1, u64::from(tag.measured));
                        count_lost(rec, iv, measuring, ErrorKind::HeaderTooLarge, lost, &why);
                        if tag.measured {
                            rec.target_error(tag.req, ErrorKind::HeaderTooLarge);
                        }
                    }
                    End::Unprocessed { tag } => {
                        // Not the server's answer: the request goes out again elsewhere.
                        if tag.measured {
                            rec.h2.retried += 1;
                        }
                        retry += 1;
                        if open_loop {
                            requeue.push(tag);
                        }
                    }
                }
            },
        );
        let carry_from = match res {
            Ok(used) => used,
            Err(e) => {
                self.inflight_total -= ended;
                let why = format!("HTTP/2 connection error: {} ({})", e.what, e.code.name());
                let kind = if e.what == HEADER_BLOCK_TOO_LARGE {
                    ErrorKind::HeaderTooLarge
                } else {
                    ErrorKind::Protocol
                };
                self.fail(i, kind, &why, now);
                return false;
            }
        };
        let c = &mut self.conns[i];
        c.parser.carry.clear();
        c.parser
            .carry
            .extend_from_slice(&self.rbuf[carry_from..len]);
        self.inflight_total -= ended;
        if ended > retry {
            self.conns[i].failures = 0;
            self.conns[i].served += ended - retry;
            self.last_progress = now;
        }
        let going_away = self.conns[i].h2.as_ref().is_some_and(|c| c.going_away());
        if going_away && !was_going_away && measuring {
            self.rec.h2.goaways += 1;
        }
        if retry > 0 && measuring {
            // The retried requests were counted as written; they will be again.
            self.rec.counts.written -= retry.min(self.rec.counts.written);
            if !open_loop {
                if let Some(b) = self.plan.budget.as_mut() {
                    *b += retry;
                }
            }
        }
        self.retry.extend(requeue);
        if open_loop {
            let gen = self.conns[i].gen;
            for _ in 0..ended {
                self.free.push_back((i as u32, gen));
            }
        }
        let client = self.conns[i].h2.as_ref().expect("checked above");
        let finished = client.finished();
        // The server's own limit (what it announced, not what caps -m).
        let limit = client
            .session
            .peer
            .max_concurrent_streams
            .unwrap_or(u32::MAX);
        if finished {
            if self.conns[i].served == 0 {
                // GOAWAY before the server answered anything: the connection could not be
                // used, which is a failed connection (counted, and retried after the same
                // backoff as a refused one), not a normal end to reconnect from at once.
                let why = "HTTP/2 GOAWAY before any stream was answered";
                self.fail(i, ErrorKind::Connect, &why, now);
            } else {
                self.close_and_reconnect(i, now);
            }
            return false;
        }
        if limit < self.rec.h2.min_limit {
            self.rec.h2.min_limit = limit;
        }
        // The closed loop writes the session's replies with the next streams, in one write
        // after the reads (`h2_fill`); the open loop sends on its own schedule, so they go now.
        if open_loop {
            self.h2_flush(i);
        }
        true
    }

    /// Adds a closing connection's header byte counts and whether the server capped it.
    pub(super) fn h2_account(&mut self, i: usize) {
        if let Some(client) = self.conns[i].h2.as_ref() {
            let h2 = &mut self.rec.h2;
            h2.header_bytes_received += client.session.header_bytes_received;
            h2.header_bytes_decoded += client.session.header_bytes_decoded;
            h2.capped += u64::from(client.capped());
        }
    }

    /// Periodic: cancels streams older than the timeout (each a timeout error); the connection
    /// goes on.
    pub(super) fn h2_scan(&mut self, i: usize, now: Instant) {
        let timeout = self.sh.timeout;
        // A server that allows no stream (SETTINGS_MAX_CONCURRENT_STREAMS = 0) for longer than
        // the timeout: nothing can be sent on this connection, a failed connection.
        let starved = self.conns[i]
            .h2
            .as_ref()
            .is_some_and(|c| c.limit() == 0 && c.open_streams() == 0 && !c.going_away());
        if starved && now.saturating_duration_since(self.conns[i].since) > timeout {
            let why = format!(
                "HTTP/2 server allowed 0 concurrent streams for {timeout:?}: nothing could be sent"
            );
            return self.fail(i, ErrorKind::Connect, &why, now);
        }
        loop {
            let Some(client) = self.conns[i].h2.as_mut() else {
                return;
            };
            let late = client
                .streams()
                .find(|(_, s)| now.saturating_duration_since(s.sent) > timeout)
                .map(|(id, _)| id);
            let Some(id) = late else { break };
            let Some(tag) = client.cancel(id) else { break };
            self.inflight_total -= 1;
            let why = format_args!("no response within {timeout:?} (stream cancelled)");
            self.count_error(ErrorKind::Timeout, (1, u64::from(tag.measured)), &why);
            if tag.measured {
                self.rec.target_error(tag.req, ErrorKind::Timeout);
            }
            if self.plan.pacer.is_some() {
                let gen = self.conns[i].gen;
                self.free.push_back((i as u32, gen));
            }
        }
        self.h2_flush(i);
    }
}

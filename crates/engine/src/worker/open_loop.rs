//! Open loop: sends every request that is due by the pacer's schedule, each on a free
//! connection slot; when none is free, the due requests wait and keep their intended times.

use super::{Sent, State, Worker, GENERATOR_SLACK};
use crate::recorder::micros;
use crate::Pace;
use barrage_wire::client::ClientSession;
use std::time::Instant;

impl Worker<'_> {
    /// Open loop: sends every request that is due, each on a free connection slot.
    pub(super) fn pace(&mut self, now: Instant) {
        // A clone of an Arc at most (stages), once per loop turn, not per request.
        let Some(pacer) = self.plan.pacer.clone() else {
            return;
        };
        self.next_send = None;
        // Requests a server handed back go first, keeping their intended times (their budget
        // and their place in the schedule were taken when they were first sent).
        while let Some(s) = self.retry.front().copied() {
            let Some(i) = self.take_slot() else {
                self.blocked = true;
                return;
            };
            self.retry.pop_front();
            self.wrote(1);
            self.send(
                i,
                Sent {
                    sent: now,
                    measured: s.measured && self.measuring,
                    ..s
                },
                now,
            );
        }
        loop {
            if (self.measuring && self.plan.budget == Some(0)) || self.script_over() {
                return;
            }
            let intended = match pacer.next(now - self.sh.start, self.sent) {
                Pace::WaitUntil(t) => {
                    self.next_send = Some(self.sh.start + t);
                    self.blocked = false;
                    return;
                }
                Pace::SendNow { intended } => self.sh.start + intended,
                Pace::Done => {
                    self.blocked = false;
                    return;
                }
            };
            let Some(i) = self.take_slot() else {
                // Every connection is busy: the request waits (its lateness will show).
                self.blocked = true;
                return;
            };
            if self.measuring {
                if let Some(b) = self.plan.budget.as_mut() {
                    *b -= 1;
                }
                let late = now.saturating_duration_since(intended);
                let _ = self.rec.lateness.record(micros(late));
                if !self.blocked && late > GENERATOR_SLACK {
                    self.rec.counts.late_by_generator += 1;
                }
            }
            self.sent += 1;
            self.wrote(1);
            let pos = self.take_requests(1);
            let sent = Sent {
                intended,
                sent: now,
                measured: self.measuring,
                req: self.sh.order.request_at(pos),
                pos: pos as u32,
            };
            // Its end frees the slot.
            self.send(i, sent, now);
        }
    }

    /// Sends one request, already counted as written, on connection `i`, which
    /// [`Worker::take_slot`] found room on.
    fn send(&mut self, i: usize, sent: Sent, now: Instant) {
        if self.lua.as_deref().is_some_and(|l| l.dynamic) {
            if !self.send_scripted(i, sent, now) {
                // The hook failed: nothing went out, and the worker stops.
                self.inflight_total -= 1;
                self.iv.written -= 1;
                if sent.measured {
                    self.rec.counts.written -= 1;
                }
                return;
            }
        } else {
            let c = &mut self.conns[i];
            let opened = c.session.open(now, sent.pos as usize, sent.req, sent);
            debug_assert!(opened, "take_slot checked the room");
        }
        self.flush(i, now);
    }

    pub(super) fn take_slot(&mut self) -> Option<usize> {
        let mut tries = self.free.len();
        while let Some((i, gen)) = self.free.pop_front() {
            let c = &self.conns[i as usize];
            if c.gen == gen && c.state == State::Ready {
                if c.session.room() > 0 {
                    return Some(i as usize);
                }
                if c.session.held_by_output() {
                    // Still writing: keep the slot for later.
                    self.free.push_back((i, gen));
                }
            }
            tries -= 1;
            if tries == 0 {
                break;
            }
        }
        None
    }
}

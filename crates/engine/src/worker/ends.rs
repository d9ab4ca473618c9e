//! What a request's end does to the run's figures, whatever the protocol: a response is recorded
//! (`complete`), a request that failed alone is counted by its class, one the server handed back
//! is sent again. The sessions report ends ([`End`]); this is the one place that records them.

use super::{count_lost, Sent, Shared, Worker};
use crate::recorder::{micros, Interval, Recorder};
use crate::ErrorClass;
use barrage_wire::client::End;
use std::collections::VecDeque;
use std::time::Instant;

/// How many requests one call into a session ended.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Tally {
    pub ended: u64,
    /// Ended by the server (answered, or failed on its side): the target works.
    pub answered: u64,
    /// Handed back unprocessed: they go out again.
    pub retried: u64,
}

/// Records the ends one call into a session reports; borrows the worker's recording state
/// while the session is borrowed too.
pub(super) struct Ends<'w> {
    pub rec: &'w mut Recorder,
    pub iv: &'w mut Interval,
    pub retry: &'w mut VecDeque<Sent>,
    pub sh: &'w Shared,
    pub open_loop: bool,
    pub measuring: bool,
    pub now: Instant,
    pub tally: Tally,
}

impl Ends<'_> {
    #[inline]
    pub fn end(&mut self, e: End<Sent>) {
        if let End::Message { tag } = e {
            // A reply message of a call that goes on: timed from the call's start, as the
            // call's latency is (its intended send time in the open loop).
            if tag.measured {
                let lat = micros(self.now.saturating_duration_since(tag.intended));
                let _ = self.rec.messages.record(lat);
            }
            return;
        }
        self.tally.ended += 1;
        match e {
            End::Response {
                tag,
                status,
                body_ok,
            } => {
                self.tally.answered += 1;
                let flags = (self.open_loop, self.measuring);
                complete(
                    self.rec,
                    self.iv,
                    self.sh,
                    flags,
                    (status, body_ok),
                    tag,
                    self.now,
                );
            }
            End::Failed { tag, failure } => {
                let class = failure.class();
                // Cancelled by this side: not a sign the target works.
                if !failure.cancelled_here() {
                    self.tally.answered += 1;
                }
                let k = class;
                let lost = (1, u64::from(tag.measured));
                count_lost(self.rec, self.iv, self.measuring, k, lost, &failure);
                if tag.measured {
                    self.rec.target_error(tag.req, k);
                }
            }
            End::Unprocessed { tag } => {
                self.tally.retried += 1;
                if self.open_loop {
                    self.retry.push_back(tag);
                }
            }
            End::Message { .. } => {}
        }
    }
}

/// The recording state for the ends of one call into a session, borrowed field by field so
/// that the worker's connections stay free to borrow.
macro_rules! ends {
    ($w:ident, $now:expr) => {
        $crate::worker::ends::Ends {
            rec: &mut $w.rec,
            iv: &mut $w.iv,
            retry: &mut $w.retry,
            sh: $w.sh,
            open_loop: $w.plan.pacer.is_some(),
            measuring: $w.measuring,
            now: $now,
            tally: $crate::worker::ends::Tally::default(),
        }
    };
}
pub(super) use ends;

impl Worker<'_> {
    /// After a call into connection `i`'s session: its ended requests leave the in-flight count,
    /// an answer resets the backoff, handed-back requests are to be written again; in the open
    /// loop each end frees a slot unless the connection is going (`slots` false).
    pub(super) fn settle(&mut self, i: usize, t: Tally, now: Instant, slots: bool) {
        self.inflight_total -= t.ended;
        if t.answered > 0 {
            // The target works, so the next failure starts the backoff afresh.
            self.conns[i].failures = 0;
        }
        if t.ended > t.retried {
            self.last_progress = now;
        }
        let open_loop = self.plan.pacer.is_some();
        if t.retried > 0 && self.measuring {
            // The retried requests were counted as written; they will be again.
            self.rec.counts.written -= t.retried.min(self.rec.counts.written);
            if !open_loop {
                if let Some(b) = self.plan.budget.as_mut() {
                    *b += t.retried;
                }
            }
        }
        if open_loop && slots {
            let gen = self.conns[i].gen;
            for _ in 0..t.ended {
                self.free.push_back((i as u32, gen));
            }
        }
    }
}

/// Records one complete response (`status`, and whether its body was the expected one) to a
/// request: in the second's interval always, in the run's recorder only for requests written in
/// the measured window.
pub(super) fn complete(
    rec: &mut Recorder,
    iv: &mut Interval,
    sh: &Shared,
    (open_loop, measuring): (bool, bool),
    (status, body_ok): (u16, bool),
    s: Sent,
    now: Instant,
) {
    // The second's interval counts what the phase counts: in the measured window only requests
    // written in it (so the series adds up to the totals), in warmup everything.
    let in_interval = s.measured || !measuring;
    let lat = micros(now.saturating_duration_since(s.intended));
    let kind = if sh.expect_status.is_some_and(|want| want != status) {
        Some(ErrorClass::Status)
    } else if !body_ok {
        Some(ErrorClass::Body)
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
        iv.count_status(status, 1);
    }
    if !s.measured {
        return;
    }
    rec.status[usize::from(status).min(999)] += 1;
    if sh.per_target {
        rec.target_done(s.req, status, kind, lat);
    }
    match kind {
        Some(ErrorClass::Status) => {
            let want = sh.expect_status.unwrap_or_default();
            rec.error(ErrorClass::Status, 1, || {
                format!("status {status} (expected {want})")
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

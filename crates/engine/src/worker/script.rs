//! A worker's part in a wrk script: `request()` called for each request (or pipelined batch)
//! and its text opened on the connection as it is, `delay()` before each, `response()` with each
//! whole response the session kept. A hook's error stops the worker (the run ends with what was
//! measured, and says why); `wrk.thread:stop()` stops it too, and `os.exit` stops every worker.
//! `wrk.thread.addr` set by a hook points the worker's later connections there, as wrk's.

use super::{Sent, State, Worker};
use barrage_script::ScriptError;
use barrage_wire::client::ClientSession;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// Where a connection stands with `delay()` before its next request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum Wait {
    /// `delay()` not asked yet for the next request.
    #[default]
    Ask,
    /// Waiting until then.
    Until(Instant),
    /// Waited (or no wait): the next request goes.
    Go,
}

impl Worker<'_> {
    /// Whether the script ended this worker (a hook's error, `wrk.thread:stop()`, or an
    /// `os.exit` in any worker).
    pub(super) fn script_over(&self) -> bool {
        self.lua.as_deref().is_some_and(|l| {
            l.error.is_some()
                || l.exit.is_some()
                || l.thread.stopped()
                || self.sh.script_exit.load(Ordering::Relaxed)
        })
    }

    /// A per-request hook stopped: this worker stops, and an `os.exit` stops them all.
    fn script_stopped(&mut self, e: ScriptError) {
        if e.exit_status().is_some() {
            self.sh.script_exit.store(true, Ordering::Relaxed);
        }
        if let Some(l) = self.lua.as_deref_mut() {
            l.stop(e);
        }
    }

    /// After a hook ran: the connections this worker opens from now go where the script
    /// pointed `wrk.thread.addr`.
    fn script_moved(&mut self) {
        if let Some(a) = self.lua.as_deref().and_then(|l| l.thread.take_addr()) {
            self.plan.addr = a;
        }
    }

    /// The closed loop with a script's `request()` or `delay()`: as [`Worker::fill`], each
    /// request (or batch) asked of the script, after the wait `delay()` gives.
    pub(super) fn fill_scripted(&mut self, i: usize, now: Instant) {
        loop {
            if self.conns[i].state != State::Ready || self.script_over() {
                break;
            }
            let room = self.conns[i].session.room();
            if room == 0 || (self.measuring && self.plan.budget == Some(0)) {
                break;
            }
            let Some(l) = self.lua.as_deref_mut() else {
                return;
            };
            if l.delay {
                match self.conns[i].wait {
                    Wait::Ask => match l.thread.delay() {
                        Err(e) => {
                            self.script_stopped(e);
                            break;
                        }
                        Ok(Some(d)) if !d.is_zero() => {
                            let until = now + d;
                            self.conns[i].wait = Wait::Until(until);
                            self.next_wait = Some(self.next_wait.map_or(until, |w| w.min(until)));
                            break;
                        }
                        Ok(_) => self.conns[i].wait = Wait::Go,
                    },
                    Wait::Until(t) if now < t => break,
                    Wait::Until(_) | Wait::Go => self.conns[i].wait = Wait::Go,
                }
            }
            if l.dynamic && !l.pending {
                if let Err(e) = l.thread.request() {
                    self.script_stopped(e);
                    break;
                }
                l.pending = true;
            }
            let dynamic = l.dynamic;
            let mut n = if dynamic { l.thread.count() } else { 1 };
            if self.measuring {
                // `-n` is exact: the last batch a worker's budget allows is cut to it.
                if let Some(b) = self.plan.budget {
                    n = n.min(usize::try_from(b).unwrap_or(usize::MAX));
                }
            }
            if n > room {
                // The batch waits for the connection's pipeline to drain.
                break;
            }
            // A static script (delay() only): the run's next request, as `fill` takes it.
            let pos = if dynamic { 0 } else { self.take_requests(1) };
            let (order, c) = (&self.sh.order, &mut self.conns[i]);
            let Some(l) = self.lua.as_deref_mut() else {
                return;
            };
            for j in 0..n {
                let req = if dynamic { 0 } else { order.request_at(pos) };
                let sent = Sent {
                    intended: now,
                    sent: now,
                    measured: self.measuring,
                    req,
                    pos: pos as u32,
                };
                let opened = if dynamic {
                    c.session
                        .open_text(now, l.thread.text(j), l.thread.is_head(j), sent)
                } else {
                    c.session.open(now, pos, req, sent)
                };
                debug_assert!(opened, "room() promised it");
            }
            l.pending = false;
            c.wait = Wait::Ask;
            if self.measuring {
                if let Some(b) = self.plan.budget.as_mut() {
                    *b = b.saturating_sub(n as u64);
                }
            }
            self.wrote(n as u64);
        }
        self.script_moved();
        self.flush(i, now);
    }

    /// Connections whose `delay()` wait is over send; the next wait is the soonest left.
    pub(super) fn waits_over(&mut self, now: Instant) {
        if self.next_wait.is_none_or(|t| now < t) {
            return;
        }
        self.next_wait = None;
        for i in 0..self.conns.len() {
            match self.conns[i].wait {
                Wait::Until(t) if t <= now => self.fill_scripted(i, now),
                Wait::Until(t) => {
                    self.next_wait = Some(self.next_wait.map_or(t, |w| w.min(t)));
                }
                _ => {}
            }
        }
    }

    /// The open loop's send with a script's `request()`: its one request's text, on the slot
    /// found. False when the hook failed (the request was not sent).
    pub(super) fn send_scripted(&mut self, i: usize, sent: Sent, now: Instant) -> bool {
        let Some(l) = self.lua.as_deref_mut() else {
            return false;
        };
        if let Err(e) = l.thread.request() {
            self.script_stopped(e);
            return false;
        }
        let opened =
            self.conns[i]
                .session
                .open_text(now, l.thread.text(0), l.thread.is_head(0), sent);
        debug_assert!(opened, "take_slot checked the room");
        self.script_moved();
        true
    }

    /// Hands each whole response connection `i`'s session kept to the script's `response()`.
    pub(super) fn hand_responses(&mut self, i: usize) {
        let Some(l) = self.lua.as_deref_mut().filter(|l| l.responses) else {
            return;
        };
        let mut stopped = None;
        while self.conns[i].session.take_response(&mut l.kept) {
            if l.error.is_some() || l.exit.is_some() || stopped.is_some() {
                continue;
            }
            let k = &l.kept;
            if let Err(e) = l
                .thread
                .response_with(k.status, header_fields(&k.head), &k.body)
            {
                stopped = Some(e);
            }
        }
        if let Some(e) = stopped {
            self.script_stopped(e);
        }
        self.script_moved();
    }
}

/// A response head's fields (name as the server wrote it, value trimmed), status line skipped.
fn header_fields(head: &[u8]) -> impl Iterator<Item = (&str, &[u8])> {
    head.split(|&b| b == b'\n').skip(1).filter_map(|line| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let colon = line.iter().position(|&b| b == b':')?;
        let name = std::str::from_utf8(&line[..colon]).ok()?;
        Some((name, line[colon + 1..].trim_ascii()))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn header_fields_of_a_head() {
        let h = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nx-a:  b c \r\nbad line\r\n\r\n";
        let f: Vec<_> = super::header_fields(h).collect();
        assert_eq!(f, vec![("Content-Length", &b"2"[..]), ("x-a", &b"b c"[..])]);
    }
}

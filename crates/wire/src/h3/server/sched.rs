//! The server's bookkeeping of its connections, O(1) or O(log n) per event in the connections
//! held, as quinn's and quiche's endpoints keep theirs: a queue of the connections that may
//! have something to send, one timer heap for every connection's earliest timer, and the count
//! of handshakes under way (in all and by address), settled after each thing a connection did.
//!
//! The heap holds at most one live entry per connection (its `armed` instant, the earliest
//! pushed and not popped yet); a later timer pushes nothing, an earlier one pushes a new entry
//! and leaves the old one to be skipped when it comes up. When stale entries outnumber the
//! connections the heap is rebuilt from the live ones (O(n) after at least n pushes).

use super::{Conn, Server};
use quinn_proto::EndpointEvent;
use std::cmp::Reverse;
use std::collections::VecDeque;
use std::time::Instant;

impl Server {
    /// Runs QUIC's timers that are due, and forgets the handshakes past their timeout.
    pub fn handle_timeout(&mut self, now: Instant) {
        while let Some(&Reverse((t, k, serial))) = self.timers.peek() {
            if t > now {
                break;
            }
            self.timers.pop();
            let Some(c) = self.conns.get_mut(&k) else {
                continue;
            };
            if c.serial != serial || c.armed != Some(t) {
                continue;
            }
            self.work.conns_visited += 1;
            c.armed = None;
            if c.handshaking && c.quic.is_handshaking() && c.handshake_deadline <= now {
                // Half-open for too long: forgotten without a word, as an idle connection is
                // (the endpoint forgets its connection ids; a later datagram of it is a
                // stranger's).
                self.work.handshakes_timed_out += 1;
                let h = c.handle;
                let _ = self.endpoint.handle_event(h, EndpointEvent::drained());
                self.remove(k);
                continue;
            }
            if c.quic.poll_timeout().is_some_and(|q| q <= now) {
                c.quic.handle_timeout(now);
                self.pump(k, now);
            } else {
                self.settle(k, false);
            }
        }
    }

    /// The earliest timer of any connection (a handshake's timeout included).
    pub fn timeout(&mut self) -> Option<Instant> {
        while let Some(&Reverse((t, k, serial))) = self.timers.peek() {
            if self
                .conns
                .get(&k)
                .is_some_and(|c| c.serial == serial && c.armed == Some(t))
            {
                return Some(t);
            }
            self.timers.pop();
        }
        None
    }

    /// Handles everything connection `k` has to say after an input, then settles it.
    pub(super) fn pump(&mut self, k: usize, now: Instant) {
        let Some(c) = self.conns.get_mut(&k) else {
            return;
        };
        let mut drained = false;
        while let Some(ev) = c.quic.poll_endpoint_events() {
            drained |= ev.is_drained();
            if let Some(ev) = self.endpoint.handle_event(c.handle, ev) {
                c.quic.handle_event(ev);
            }
        }
        c.pump(now, &mut self.events);
        if drained {
            self.remove(k);
            return;
        }
        self.settle(k, true);
    }

    /// After connection `k` did something: its endpoint events (forgotten once drained), its
    /// handshake (no longer counted once over), its work counted, its timer re-armed, and with
    /// `send`, its place in the send queue.
    pub(super) fn settle(&mut self, k: usize, send: bool) {
        let Some(c) = self.conns.get_mut(&k) else {
            return;
        };
        self.work.streams_visited += std::mem::take(&mut c.visits);
        let mut drained = false;
        while let Some(ev) = c.quic.poll_endpoint_events() {
            drained |= ev.is_drained();
            if let Some(ev) = self.endpoint.handle_event(c.handle, ev) {
                c.quic.handle_event(ev);
            }
        }
        if drained || c.quic.is_drained() {
            self.remove(k);
            return;
        }
        if c.handshaking && !c.quic.is_handshaking() {
            c.handshaking = false;
            let ip = c.ip;
            self.handshake_over(ip);
        }
        let c = self.conns.get_mut(&k).expect("still there");
        if send && !c.queued {
            c.queued = true;
            self.sending.push_back((k, c.serial));
        }
        let mut next = c.quic.poll_timeout();
        if c.handshaking {
            let d = c.handshake_deadline;
            next = Some(next.map_or(d, |n| n.min(d)));
        }
        if let Some(t) = next {
            if c.armed.is_none_or(|a| t < a) {
                c.armed = Some(t);
                self.timers.push(Reverse((t, k, c.serial)));
                if self.timers.len() > 2 * self.conns.len() + 64 {
                    self.rebuild_timers();
                }
            }
        }
    }

    /// The heap again from each connection's live entry.
    fn rebuild_timers(&mut self) {
        self.timers = self
            .conns
            .iter()
            .filter_map(|(k, c)| c.armed.map(|t| Reverse((t, *k, c.serial))))
            .collect();
    }

    /// A handshake from `ip` began (connection `serial`, handle `k`).
    pub(super) fn handshake_begun(&mut self, ip: std::net::IpAddr, serial: u64, k: usize) {
        self.handshakes += 1;
        *self.by_address.entry(ip).or_insert(0) += 1;
        self.begun.push_back((serial, k));
        let q = self.begun_by.entry(ip).or_default();
        q.push_back((serial, k));
        // Entries of handshakes over are skipped when they come up; past twice the live ones
        // (plus a few) they go, so the queues stay within the handshakes held.
        let live = self.by_address.get(&ip).copied().unwrap_or(0);
        if q.len() > 2 * live + 16 {
            let conns = &self.conns;
            q.retain(|&(serial, k)| Self::handshaking(conns, serial, k));
        }
        if self.begun.len() > 2 * self.handshakes + 64 {
            let conns = &self.conns;
            self.begun
                .retain(|&(serial, k)| Self::handshaking(conns, serial, k));
        }
    }

    /// Whether connection `k` of `serial` is still a handshake under way.
    fn handshaking(conns: &rustc_hash::FxHashMap<usize, Conn>, serial: u64, k: usize) -> bool {
        conns
            .get(&k)
            .is_some_and(|c| c.serial == serial && c.handshaking)
    }

    /// Forgets the oldest handshake under way from `ip` (`None`: of all) to make room, as its
    /// timeout would: false when there is none.
    pub(super) fn evict_oldest(&mut self, ip: Option<std::net::IpAddr>) -> bool {
        loop {
            let next = match ip {
                Some(ip) => self.begun_by.get_mut(&ip).and_then(VecDeque::pop_front),
                None => self.begun.pop_front(),
            };
            let Some((serial, k)) = next else {
                return false;
            };
            if !Self::handshaking(&self.conns, serial, k) {
                continue;
            }
            self.work.handshakes_evicted += 1;
            let c = self.conns.get_mut(&k).expect("handshaking");
            let h = c.handle;
            // Without a word, as a handshake past its timeout (the client's later datagrams
            // are a stranger's).
            let _ = self.endpoint.handle_event(h, EndpointEvent::drained());
            self.remove(k);
            return true;
        }
    }

    /// One handshake from `ip` is over (done, failed or forgotten).
    fn handshake_over(&mut self, ip: std::net::IpAddr) {
        self.handshakes -= 1;
        if let Some(n) = self.by_address.get_mut(&ip) {
            *n -= 1;
            if *n == 0 {
                self.by_address.remove(&ip);
                self.begun_by.remove(&ip);
            }
        }
    }

    /// Forgets connection `k` (QUIC is done with it): its requests are gone. Its queue and
    /// heap entries are skipped when they come up (they name its serial).
    pub(super) fn remove(&mut self, k: usize) {
        let Some(mut c) = self.conns.remove(&k) else {
            return;
        };
        self.work.streams_visited += std::mem::take(&mut c.visits);
        if c.handshaking {
            self.handshake_over(c.ip);
        }
        Conn::gone(&mut c, &mut self.events);
    }
}

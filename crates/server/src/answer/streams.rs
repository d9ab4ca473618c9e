//! The answers pending on a multiplexed connection (HTTP/2's streams, HTTP/3's streams of every
//! connection), O(1) per event in the streams held: by key in a map, and sleeps' and drips'
//! deadlines in one heap, so that no event rescans the streams.
//!
//! The heap's entries are (when, key); one that no longer matches its request's [`Pending`]
//! (answered, reset, moved on) is skipped when it comes up, and when such entries outnumber
//! the requests pending the heap is rebuilt from the live ones.

use super::{Env, Pending, Reply, Req};
use crate::route::Route;
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hash::Hash;
use std::time::Instant;

/// A key of a request: a stream id (HTTP/2) or a connection's stream (HTTP/3). Keys are the
/// client's, but the protocol bounds how many are open, so Fx hashing cannot be flooded.
pub(crate) trait Key: Copy + Eq + Hash + Ord {}
impl<T: Copy + Eq + Hash + Ord> Key for T {}

/// The answers pending, by request.
pub(crate) struct Streams<K> {
    pending: FxHashMap<K, Pending>,
    timers: BinaryHeap<Reverse<(Instant, K)>>,
    /// Requests touched while their bodies were deferred (the input still being read): pumped
    /// once it is ([`Streams::pump_fresh`]); one gone meanwhile is skipped.
    fresh: Vec<K>,
}

impl<K: Key> Default for Streams<K> {
    fn default() -> Self {
        Streams {
            pending: FxHashMap::default(),
            timers: BinaryHeap::new(),
            fresh: Vec::new(),
        }
    }
}

impl<K: Key> Streams<K> {
    pub(crate) fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// A sleep or drip is pending: the idle timeout does not apply.
    pub(crate) fn is_working(&self) -> bool {
        self.pending.values().any(Pending::is_working)
    }

    /// Echo bytes held across the requests (the slow path: asked only when some are).
    pub(crate) fn held(&self) -> usize {
        self.pending.values().map(Pending::held).sum()
    }

    /// Keeps `p` (if any) for request `k`, with its timer.
    fn keep(&mut self, k: K, p: Option<Pending>) {
        let Some(p) = p else { return };
        if let Some(at) = p.due() {
            self.timers.push(Reverse((at, k)));
            if self.timers.len() > 2 * self.pending.len() + 64 {
                self.timers = self
                    .pending
                    .iter()
                    .filter_map(|(k, p)| p.due().map(|t| Reverse((t, *k))))
                    .collect();
                // `p` is not in `pending` yet.
                self.timers.push(Reverse((at, k)));
            }
        }
        self.pending.insert(k, p);
    }

    /// A request's head ([`super::start`]).
    pub(crate) fn request<R: Reply<K>>(
        &mut self,
        k: K,
        rt: Route,
        req: Req,
        body: Option<Option<u64>>,
        r: &mut R,
        env: &mut Env<'_>,
    ) {
        let p = super::start(k, rt, req, body, r, env);
        self.keep_fresh(k, p, r);
    }

    /// [`Streams::keep`], and pumped after the input when the reply deferred its body.
    fn keep_fresh<R: Reply<K>>(&mut self, k: K, p: Option<Pending>, r: &R) {
        if p.is_some() && r.deferring() {
            self.fresh.push(k);
        }
        self.keep(k, p);
    }

    /// A request answered at once, its body ignored (a 431).
    pub(crate) fn answered(&mut self, k: K, p: Option<Pending>) {
        self.pending.remove(&k);
        self.keep(k, p);
    }

    /// Body bytes of request `k`, the last ones with `end`.
    pub(crate) fn body<R: Reply<K>>(
        &mut self,
        k: K,
        data: &[u8],
        end: bool,
        r: &mut R,
        env: &mut Env<'_>,
    ) {
        if let Some(p) = self.pending.remove(&k) {
            let p = super::body(k, p, data, end, r, env);
            self.keep_fresh(k, p, r);
        }
    }

    /// Echo bytes request `k` holds back.
    pub(crate) fn held_by(&self, k: K) -> usize {
        self.pending.get(&k).map_or(0, Pending::held)
    }

    /// Request `k` is gone (reset by the client, its connection ended).
    pub(crate) fn gone(&mut self, k: K) {
        self.pending.remove(&k);
    }

    /// Room freed on request `k`'s stream.
    pub(crate) fn writable<R: Reply<K>>(&mut self, k: K, r: &mut R) {
        if let Some(p) = self.pending.get_mut(&k) {
            if super::pump(k, p, r) {
                self.pending.remove(&k);
            } else if r.deferring() {
                self.fresh.push(k);
            }
        }
    }

    /// The input is all taken in: the bodies deferred meanwhile go, as far as their streams
    /// take them (a request reset in the same input is gone, and costs none). True when any
    /// was pumped.
    pub(crate) fn pump_fresh<R: Reply<K>>(&mut self, r: &mut R) -> bool {
        let fresh = std::mem::take(&mut self.fresh);
        let any = !fresh.is_empty();
        for k in fresh {
            if let Some(p) = self.pending.get_mut(&k) {
                if super::pump(k, p, r) {
                    self.pending.remove(&k);
                }
            }
        }
        any
    }

    /// Room may have freed on any stream (HTTP/2: any frame may open a window); until the
    /// output is backed up.
    pub(crate) fn pump_all<R: Reply<K>>(&mut self, r: &mut R) {
        // Every stream is pumped: the deferred ones with them.
        self.fresh.clear();
        if !self.pending.is_empty() {
            self.pending
                .retain(|k, p| r.backed_up() || !super::pump(*k, p, r));
        }
    }

    /// The earliest sleep or drip deadline.
    pub(crate) fn next_timer(&mut self) -> Option<Instant> {
        while let Some(&Reverse((t, k))) = self.timers.peek() {
            if self.pending.get(&k).and_then(Pending::due) == Some(t) {
                return Some(t);
            }
            self.timers.pop();
        }
        None
    }

    /// Answers the sleeps and drips that are due by `env.now`.
    pub(crate) fn fire<R: Reply<K>>(&mut self, r: &mut R, env: &mut Env<'_>) {
        while let Some(&Reverse((t, k))) = self.timers.peek() {
            if t > env.now {
                break;
            }
            self.timers.pop();
            let Some(p) = self.pending.get_mut(&k) else {
                continue;
            };
            if p.due() != Some(t) {
                continue;
            }
            if super::fire(k, p, r, env) {
                self.pending.remove(&k);
            } else if let Some(p) = self.pending.remove(&k) {
                // Re-armed (a drip's next byte), or moved on (a body held back).
                self.keep(k, Some(p));
            }
        }
    }

    /// A shutdown: stalled requests would hold the grace period for nothing.
    pub(crate) fn drain<R: Reply<K>>(&mut self, r: &mut R) {
        let stalled: Vec<K> = self
            .pending
            .iter()
            .filter(|(_, p)| p.is_stall())
            .map(|(k, _)| *k)
            .collect();
        for k in stalled {
            if let Some(p) = self.pending.remove(&k) {
                p.cancel(k, r);
            }
        }
    }
}

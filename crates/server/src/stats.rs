//! What the server did, for `barrage serve --metrics`: each worker counts into its own
//! [`Counters`] (relaxed atomics that only that worker writes, so no line is shared on the hot
//! path); [`crate::ServerHandle::stats`] adds them up when asked.

use std::sync::atomic::{AtomicU64, Ordering};

/// Status codes counted one by one; any code above is counted as 599.
const CODES: usize = 600;

/// One worker's counters.
pub(crate) struct Counters {
    accepted: AtomicU64,
    /// Responses by protocol (0: HTTP/1.1, 1: HTTP/2) and status code.
    responses: [Box<[AtomicU64]>; 2],
}

impl Default for Counters {
    fn default() -> Self {
        let codes = || (0..CODES).map(|_| AtomicU64::new(0)).collect();
        Counters {
            accepted: AtomicU64::new(0),
            responses: [codes(), codes()],
        }
    }
}

impl Counters {
    pub(crate) fn accepted(&self) {
        bump(&self.accepted);
    }

    /// A response (its head) went out with `status`, over HTTP/2 when `h2`.
    pub(crate) fn response(&self, h2: bool, status: u16) {
        bump(&self.responses[usize::from(h2)][usize::from(status).min(CODES - 1)]);
    }
}

/// Adds one to a counter only its worker writes: a plain load and store, not a locked
/// read-modify-write, since no other thread writes it (readers see it with at most one
/// increment's lag); this is on every response.
fn bump(c: &AtomicU64) {
    c.store(c.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
}

/// The server's figures so far, added up over its workers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerStats {
    /// Connections accepted (including those closed at once over `max_connections`).
    pub accepted: u64,
    /// Connections open now.
    pub active: u64,
    /// Responses by protocol ("http/1.1" or "h2") and status code, nonzero ones only, by code.
    pub responses: Vec<(&'static str, u16, u64)>,
}

impl ServerStats {
    pub(crate) fn of(workers: &[Counters], active: u64) -> ServerStats {
        let mut s = ServerStats {
            active,
            ..ServerStats::default()
        };
        for w in workers {
            s.accepted += w.accepted.load(Ordering::Relaxed);
        }
        for (p, proto) in ["http/1.1", "h2"].into_iter().enumerate() {
            for code in 0..CODES {
                let n: u64 = workers
                    .iter()
                    .map(|w| w.responses[p][code].load(Ordering::Relaxed))
                    .sum();
                if n > 0 {
                    s.responses.push((proto, code as u16, n));
                }
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_add_up() {
        let w = [Counters::default(), Counters::default()];
        w[0].accepted();
        w[1].accepted();
        w[0].response(false, 200);
        w[1].response(false, 200);
        w[1].response(true, 404);
        w[1].response(true, 9999);
        let s = ServerStats::of(&w, 1);
        assert_eq!((s.accepted, s.active), (2, 1));
        assert_eq!(
            s.responses,
            vec![("http/1.1", 200, 2), ("h2", 404, 1), ("h2", 599, 1)]
        );
    }
}

//! What the server did, for `barrage serve --metrics`: each worker counts into its own
//! [`Counters`] (relaxed atomics that only that worker writes, so no line is shared on the hot
//! path); [`crate::ServerHandle::stats`] adds them up when asked.

use std::sync::atomic::{AtomicU64, Ordering};

/// Status codes counted one by one; any code above is counted as 599.
const CODES: usize = 600;

/// The protocols responses are counted by, as `serve --metrics` names them (each one's slot is
/// its place here).
const PROTOCOLS: [&str; 5] = ["http/1.1", "h2", "h3", "http/1.0", "fastcgi"];

/// One worker's counters.
pub(crate) struct Counters {
    accepted: AtomicU64,
    /// Responses by protocol (a slot of `PROTOCOLS`) and status code.
    responses: [Box<[AtomicU64]>; PROTOCOLS.len()],
    /// WebSocket: connections upgraded, messages received, and the close handshakes this
    /// server began, by code (`WS_CODES`, the last slot for any other).
    ws_upgrades: AtomicU64,
    ws_messages: AtomicU64,
    /// Response body bytes the stream protocols' sessions took (`SessionReply::data`).
    body_bytes: AtomicU64,
    ws_closes: [AtomicU64; WS_CODES.len() + 1],
}

/// The close codes counted one by one: a normal close, a shutdown, and the codes of a peer
/// failed for a protocol error, bad UTF-8 and too big a message; others (a fault's) as 0.
const WS_CODES: [u16; 5] = [1000, 1001, 1002, 1007, 1009];

impl Default for Counters {
    fn default() -> Self {
        let codes = || (0..CODES).map(|_| AtomicU64::new(0)).collect();
        Counters {
            accepted: AtomicU64::new(0),
            responses: std::array::from_fn(|_| codes()),
            ws_upgrades: AtomicU64::new(0),
            ws_messages: AtomicU64::new(0),
            body_bytes: AtomicU64::new(0),
            ws_closes: Default::default(),
        }
    }
}

impl Counters {
    pub(crate) fn accepted(&self) {
        bump(&self.accepted);
    }

    /// A response (its head) went out with `status` over the protocol named `version` as a
    /// request line or a stream session names it ("HTTP/1.1", "HTTP/2", "HTTP/3", "FastCGI"; a constant
    /// at every call, so the match folds away).
    pub(crate) fn response_over(&self, version: &str, status: u16) {
        let slot = match version {
            "HTTP/2" => 1,
            "HTTP/3" => 2,
            "FastCGI" => 4,
            _ => 0,
        };
        bump(&self.responses[slot][usize::from(status).min(CODES - 1)]);
    }

    /// A response went out with `status` to an HTTP/1.x request of `minor` version (0: HTTP/1.0).
    pub(crate) fn response_h1(&self, minor: u8, status: u16) {
        let slot = if minor == 0 { 3 } else { 0 };
        bump(&self.responses[slot][usize::from(status).min(CODES - 1)]);
    }

    pub(crate) fn ws_upgrade(&self) {
        bump(&self.ws_upgrades);
    }

    /// `n` response body bytes went to a stream protocol's session.
    pub(crate) fn body_bytes(&self, n: usize) {
        let c = &self.body_bytes;
        c.store(c.load(Ordering::Relaxed) + n as u64, Ordering::Relaxed);
    }

    pub(crate) fn ws_message(&self) {
        bump(&self.ws_messages);
    }

    /// This server began a close handshake with `code` (failing a peer, a fault, a shutdown;
    /// answers to a peer's Close are not counted).
    pub(crate) fn ws_close(&self, code: u16) {
        let i = WS_CODES
            .iter()
            .position(|&c| c == code)
            .unwrap_or(WS_CODES.len());
        bump(&self.ws_closes[i]);
    }
}

/// Adds one to a counter only its worker writes: a plain load and store, not a locked
/// read-modify-write, since no other thread writes it (readers see it with at most one
/// increment's lag); this is on every response.
fn bump(c: &AtomicU64) {
    c.store(c.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
}

/// The HTTP/3 thread's bookkeeping, as of its last loop turn: the handshakes under way and
/// what their bounds turned away, and deterministic counts of the work done (what tests hold
/// to O(1) per event), from [`barrage_wire::h3::server::Work`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct H3Stats {
    /// Handshakes under way now.
    pub handshakes: u64,
    /// Connection attempts dropped for the handshake bounds (per address, in all).
    pub handshakes_dropped: u64,
    /// Handshakes forgotten after the handshake timeout.
    pub handshakes_timed_out: u64,
    /// Stateless Retry packets sent (an address asked to validate itself first).
    pub retries: u64,
    /// Handshakes under way forgotten to make room for a validated attempt at a bound.
    pub handshakes_evicted: u64,
    /// Request streams the session looked at (each named by QUIC or the server; never a
    /// scan).
    pub streams_visited: u64,
    /// Connections looked at (each datagram's, each from the send queue or the timer heap).
    pub conns_visited: u64,
}

/// [`H3Stats`] as the HTTP/3 thread publishes them (only it writes).
#[derive(Default)]
pub(crate) struct H3Counters([AtomicU64; 7]);

impl H3Counters {
    pub(crate) fn publish(&self, s: H3Stats) {
        let v = [
            s.handshakes,
            s.handshakes_dropped,
            s.handshakes_timed_out,
            s.streams_visited,
            s.conns_visited,
            s.retries,
            s.handshakes_evicted,
        ];
        for (c, v) in self.0.iter().zip(v) {
            c.store(v, Ordering::Relaxed);
        }
    }

    fn read(&self) -> H3Stats {
        let v = |i: usize| self.0[i].load(Ordering::Relaxed);
        H3Stats {
            handshakes: v(0),
            handshakes_dropped: v(1),
            handshakes_timed_out: v(2),
            streams_visited: v(3),
            conns_visited: v(4),
            retries: v(5),
            handshakes_evicted: v(6),
        }
    }
}

/// The server's figures so far, added up over its workers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerStats {
    /// Connections accepted (including those closed at once over `max_connections`).
    pub accepted: u64,
    /// Connections open now.
    pub active: u64,
    /// Responses by protocol ("http/1.1", "h2", "h3", "http/1.0" or "fastcgi") and status code, nonzero ones
    /// only, by code.
    pub responses: Vec<(&'static str, u16, u64)>,
    /// WebSocket connections upgraded (101 sent).
    pub ws_upgrades: u64,
    /// WebSocket messages received whole (echoed, delayed or met with a fault).
    pub ws_messages: u64,
    /// Response body bytes the stream protocols (HTTP/2, HTTP/3 and gRPC over them, FastCGI)
    /// took from the answers: what the server made of bodies for them, delivered or not (a
    /// request reset once its answer began costs what was made before the reset was seen).
    pub body_bytes: u64,
    /// Close handshakes this server began, by code (1001: shutdown; 1002, 1007, 1009: a peer
    /// failed for a protocol error, bad UTF-8, too big a message; 0: any other code, i.e. a
    /// fault's), nonzero ones only.
    pub ws_closes: Vec<(u16, u64)>,
    /// HTTP/3's handshakes and work (zero without `--http3`).
    pub h3: H3Stats,
}

impl ServerStats {
    pub(crate) fn of(workers: &[Counters], active: u64, h3: &H3Counters) -> ServerStats {
        let mut s = ServerStats {
            active,
            h3: h3.read(),
            ..ServerStats::default()
        };
        for w in workers {
            s.accepted += w.accepted.load(Ordering::Relaxed);
            s.ws_upgrades += w.ws_upgrades.load(Ordering::Relaxed);
            s.ws_messages += w.ws_messages.load(Ordering::Relaxed);
            s.body_bytes += w.body_bytes.load(Ordering::Relaxed);
        }
        for (i, code) in WS_CODES.iter().copied().chain([0]).enumerate() {
            let n: u64 = workers
                .iter()
                .map(|w| w.ws_closes[i].load(Ordering::Relaxed))
                .sum();
            if n > 0 {
                s.ws_closes.push((code, n));
            }
        }
        for (p, proto) in PROTOCOLS.into_iter().enumerate() {
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
        w[0].response_over("HTTP/1.1", 200);
        w[1].response_over("HTTP/1.1", 200);
        w[1].response_over("HTTP/2", 404);
        w[1].response_over("HTTP/2", 9999);
        w[0].response_over("HTTP/3", 200);
        w[0].response_h1(0, 200);
        w[1].response_h1(1, 200);
        w[0].ws_upgrade();
        w[1].ws_message();
        w[1].ws_message();
        w[0].ws_close(1009);
        w[1].ws_close(1009);
        w[1].ws_close(4000);
        let h3 = H3Counters::default();
        h3.publish(H3Stats {
            handshakes: 1,
            handshakes_dropped: 2,
            handshakes_timed_out: 3,
            streams_visited: 4,
            conns_visited: 5,
            retries: 6,
            handshakes_evicted: 7,
        });
        let s = ServerStats::of(&w, 1, &h3);
        assert_eq!(
            (
                s.h3.handshakes,
                s.h3.handshakes_dropped,
                s.h3.handshakes_timed_out
            ),
            (1, 2, 3)
        );
        assert_eq!((s.h3.streams_visited, s.h3.conns_visited), (4, 5));
        assert_eq!((s.h3.retries, s.h3.handshakes_evicted), (6, 7));
        assert_eq!((s.accepted, s.active), (2, 1));
        assert_eq!((s.ws_upgrades, s.ws_messages), (1, 2));
        assert_eq!(s.ws_closes, vec![(1009, 2), (0, 1)]);
        assert_eq!(
            s.responses,
            vec![
                ("http/1.1", 200, 3),
                ("h2", 404, 1),
                ("h2", 599, 1),
                ("h3", 200, 1),
                ("http/1.0", 200, 1)
            ]
        );
    }
}

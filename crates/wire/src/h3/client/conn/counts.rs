//! What HTTP/3 and QUIC count beyond requests: streams and connections, handshakes and their
//! time, GOAWAYs and requests sent again, and QUIC's own figures from quinn's statistics
//! (datagrams and bytes each way, packets sent and lost, congestion events), which the session
//! takes as differences so that a count covers exactly the measured window.

use quinn_proto::ConnectionStats;

/// What HTTP/3 counts beyond requests (the run adds them up).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Connections started, and those whose QUIC handshake completed.
    pub connections: u64,
    pub handshakes: u64,
    /// The handshakes' time, summed (µs, from the connect's start to the handshake's end).
    pub handshake_us: u64,
    /// Request streams opened.
    pub streams: u64,
    /// Connections the server ended with GOAWAY.
    pub goaways: u64,
    /// Requests the server did not process (at or above a GOAWAY's id, or refused with
    /// H3_REQUEST_REJECTED), sent again.
    pub retried: u64,
    /// Entries the server's QPACK encoder inserted in this side's dynamic table.
    pub qpack_inserts: u64,
    pub datagrams_sent: u64,
    pub datagrams_received: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub packets_sent: u64,
    pub packets_lost: u64,
    pub bytes_lost: u64,
    /// Congestion events (a loss or ECN mark that shrank the window: retransmission rounds).
    pub congestion_events: u64,
}

impl Counts {
    pub fn add(&mut self, o: &Counts) {
        self.connections += o.connections;
        self.handshakes += o.handshakes;
        self.handshake_us += o.handshake_us;
        self.streams += o.streams;
        self.goaways += o.goaways;
        self.retried += o.retried;
        self.qpack_inserts += o.qpack_inserts;
        self.datagrams_sent += o.datagrams_sent;
        self.datagrams_received += o.datagrams_received;
        self.bytes_sent += o.bytes_sent;
        self.bytes_received += o.bytes_received;
        self.packets_sent += o.packets_sent;
        self.packets_lost += o.packets_lost;
        self.bytes_lost += o.bytes_lost;
        self.congestion_events += o.congestion_events;
    }

    /// The load document's `http3` section of these counts (sums; the caller settles what
    /// derives from them): `streams` is the streams asked per connection.
    pub fn figures(&self, streams: usize) -> barrage_model::load::Http3 {
        barrage_model::load::Http3 {
            streams_asked: streams,
            connections: self.connections,
            handshakes: self.handshakes,
            handshake_mean_us: 0.0,
            handshake_total_us: Some(self.handshake_us),
            streams: self.streams,
            datagrams_sent: self.datagrams_sent,
            datagrams_received: self.datagrams_received,
            datagrams_per_request: 0.0,
            packets_sent: self.packets_sent,
            packets_lost: self.packets_lost,
            bytes_lost: self.bytes_lost,
            congestion_events: self.congestion_events,
            goaways: self.goaways,
            retried: self.retried,
            qpack_inserts: self.qpack_inserts,
        }
    }

    /// Adds QUIC's figures between two snapshots of one connection.
    pub(super) fn add_quic(&mut self, now: &Snap, before: &Snap) {
        let d = |a: u64, b: u64| a.saturating_sub(b);
        self.datagrams_sent += d(now.datagrams_sent, before.datagrams_sent);
        self.datagrams_received += d(now.datagrams_received, before.datagrams_received);
        self.bytes_sent += d(now.bytes_sent, before.bytes_sent);
        self.bytes_received += d(now.bytes_received, before.bytes_received);
        self.packets_sent += d(now.packets_sent, before.packets_sent);
        self.packets_lost += d(now.packets_lost, before.packets_lost);
        self.bytes_lost += d(now.bytes_lost, before.bytes_lost);
        self.congestion_events += d(now.congestion_events, before.congestion_events);
    }
}

/// QUIC's running totals for one connection, at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Snap {
    datagrams_sent: u64,
    datagrams_received: u64,
    bytes_sent: u64,
    bytes_received: u64,
    packets_sent: u64,
    packets_lost: u64,
    bytes_lost: u64,
    congestion_events: u64,
}

impl Snap {
    pub(super) fn of(s: &ConnectionStats) -> Snap {
        Snap {
            datagrams_sent: s.udp_tx.datagrams,
            datagrams_received: s.udp_rx.datagrams,
            bytes_sent: s.udp_tx.bytes,
            bytes_received: s.udp_rx.bytes,
            packets_sent: s.path.sent_packets,
            packets_lost: s.path.lost_packets,
            bytes_lost: s.path.lost_bytes,
            congestion_events: s.path.congestion_events,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quic_figures_count_the_difference_between_snapshots() {
        let before = Snap {
            datagrams_sent: 3,
            packets_lost: 1,
            ..Snap::default()
        };
        let now = Snap {
            datagrams_sent: 10,
            packets_lost: 4,
            bytes_sent: 9000,
            ..Snap::default()
        };
        let mut c = Counts::default();
        c.add_quic(&now, &before);
        assert_eq!(
            (c.datagrams_sent, c.packets_lost, c.bytes_sent),
            (7, 3, 9000)
        );
        // A snapshot behind the one counted (a new connection's) adds nothing negative.
        c.add_quic(&before, &now);
        assert_eq!((c.datagrams_sent, c.packets_lost), (7, 3));
        let mut total = Counts::default();
        total.add(&c);
        total.add(&c);
        assert_eq!(total.bytes_sent, 18000);
    }
}

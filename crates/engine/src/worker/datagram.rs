//! Datagram connections (HTTP/3 over QUIC): a connected UDP socket per connection, ready as
//! soon as it is bound (the QUIC handshake is the session's business, its time in the
//! protocol's figures), and the sessions' own timers (loss detection, acknowledgments, pacing,
//! idle), which wake the loop and run when due. TCP's sessions have no timers, so none of this
//! runs for them.

use super::{State, Worker};
use crate::transport::{Datagrams, Transport};
use crate::ErrorClass;
use barrage_wire::client::ClientSession;
use mio::net::UdpSocket;
use mio::{Interest, Token};
use std::net::SocketAddr;
use std::time::Instant;

impl Worker<'_> {
    /// A datagram connection: a UDP socket of its own connected to the target (so the kernel
    /// hands it only the target's datagrams, and the session needs no routing), ready at once.
    pub(super) fn connect_udp(&mut self, i: usize, now: Instant) {
        self.conns[i].since = now;
        let local: SocketAddr = if self.plan.addr.is_ipv4() {
            (std::net::Ipv4Addr::UNSPECIFIED, 0).into()
        } else {
            (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
        };
        let sock = UdpSocket::bind(local).and_then(|mut s| {
            s.connect(self.plan.addr)?;
            self.poll.registry().register(
                &mut s,
                Token(i),
                Interest::READABLE | Interest::WRITABLE,
            )?;
            Ok(s)
        });
        match sock {
            Ok(s) => {
                self.conns[i].t = Some(Transport::Udp(Box::new(Datagrams::new(s))));
                self.ready(i, now);
            }
            Err(e) => self.fail(i, ErrorClass::Connect, &e, now),
        }
    }

    /// The earliest timer a session asked for (datagram protocols only: TCP's have none).
    pub(super) fn session_timer(&self) -> Option<Instant> {
        if !self.sh.udp {
            return None;
        }
        self.conns
            .iter()
            .filter(|c| c.state == State::Ready)
            .filter_map(|c| c.session.timer())
            .min()
    }

    /// Runs the session timers that are due (`expire` fills what they freed).
    pub(super) fn session_timers(&mut self, now: Instant) {
        for i in 0..self.conns.len() {
            let c = &self.conns[i];
            if c.state == State::Ready && c.session.timer().is_some_and(|t| t <= now) {
                self.expire(i, now);
            }
        }
    }
}

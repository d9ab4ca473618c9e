//! A connection's life in a worker: connect (TCP, then TLS), the handshake, ready (the
//! session starts and the first requests go out), a normal close and reconnect, and a failure:
//! its requests counted as errors, the socket dropped and a reconnect after a capped
//! exponential backoff; `scan` runs the timeouts and the reconnects that are due.

use super::{micros, ErrorClass, Sent, State, Worker};
use crate::transport::{TlsStream, Transport};
use barrage_wire::client::ClientSession;
use mio::net::TcpStream;
use mio::{Interest, Token};
use std::io;
use std::time::{Duration, Instant};

/// First and largest reconnect delay after consecutive failures.
const BACKOFF_BASE: Duration = Duration::from_millis(5);
const BACKOFF_MAX: Duration = Duration::from_secs(1);

impl Worker<'_> {
    pub(super) fn connect(&mut self, i: usize, now: Instant) {
        if self.sh.udp {
            return self.connect_udp(i, now);
        }
        let c = &mut self.conns[i];
        c.since = now;
        let mut sock = match TcpStream::connect(self.plan.addr) {
            Ok(s) => s,
            Err(e) => return self.fail(i, ErrorClass::Connect, &e, now),
        };
        let _ = sock.set_nodelay(true);
        if let Err(e) = self.poll.registry().register(
            &mut sock,
            Token(i),
            Interest::READABLE | Interest::WRITABLE,
        ) {
            return self.fail(i, ErrorClass::Connect, &e, now);
        }
        let t = match &self.sh.tls {
            None => Transport::Plain(sock),
            Some((cfg, name)) => match rustls::ClientConnection::new(cfg.clone(), name.clone()) {
                Ok(tls) => Transport::Tls(Box::new(TlsStream { sock, tls })),
                Err(e) => {
                    let e = io::Error::other(e);
                    return self.fail(i, ErrorClass::Connect, &e, now);
                }
            },
        };
        let c = &mut self.conns[i];
        c.t = Some(t);
        c.state = State::Connecting;
        self.opening += 1;
    }

    pub(super) fn on_event(&mut self, i: usize, readable: bool, closed: bool, writable: bool) {
        let now = Instant::now();
        let c = &mut self.conns[i];
        let Some(t) = c.t.as_mut() else { return };
        match c.state {
            State::Backoff => {}
            State::Connecting => {
                let Some(sock) = t.tcp() else { return };
                match sock.take_error() {
                    Ok(None) => {}
                    Ok(Some(e)) | Err(e) => return self.fail(i, ErrorClass::Connect, &e, now),
                }
                match sock.peer_addr() {
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::NotConnected => return,
                    Err(e) => return self.fail(i, ErrorClass::Connect, &e, now),
                }
                c.state = State::Handshaking;
                self.on_event(i, readable, closed, writable);
            }
            State::Handshaking => match t.handshake() {
                Ok(true) => self.ready(i, now),
                Ok(false) => {}
                Err(e) => self.fail(i, ErrorClass::Connect, &e, now),
            },
            State::Ready => {
                if writable {
                    if !c.session.out().is_empty() {
                        self.flush(i, now);
                    } else if let Err(e) = t.flush() {
                        return self.fail(i, ErrorClass::Reset, &e, now);
                    }
                }
                if readable && self.conns[i].state == State::Ready {
                    self.on_readable(i, closed, now);
                }
            }
        }
    }

    /// How long a run without a duration keeps trying a target that neither accepts nor
    /// answers.
    pub(super) fn give_up_after(&self) -> Duration {
        (self.sh.timeout * 2).max(Duration::from_secs(2))
    }

    pub(super) fn ready(&mut self, i: usize, now: Instant) {
        // Not progress yet (`last_progress` moves as requests end): a connection may still
        // fail before it is usable (a refused WebSocket upgrade, HTTP/2's GOAWAY or zero
        // streams), and a run bounded only by a request count would retry that for ever.
        let c = &mut self.conns[i];
        if matches!(c.state, State::Connecting | State::Handshaking) {
            self.opening -= 1;
        }
        c.state = State::Ready;
        if self.measuring {
            self.rec.counts.connects += 1;
            let _ = self.rec.connect.record(micros(now - c.since));
        }
        // A preface, if the protocol has one, goes out with the first requests.
        c.session.start(now, c.since);
        if self.plan.pacer.is_some() {
            for _ in 0..self.sh.depth {
                self.free.push_back((i as u32, c.gen));
            }
            self.flush(i, now);
        } else {
            self.fill(i, now);
        }
    }

    /// A normal end of a connection (the peer or the request said close): requests still
    /// outstanding are lost (reset), and a new connection starts at once.
    pub(super) fn close_and_reconnect(&mut self, i: usize, now: Instant) {
        let lost = self.drop_conn(i, ErrorClass::Reset);
        self.count_error(
            ErrorClass::Reset,
            lost,
            &"connection closed with requests outstanding",
        );
        self.conns[i].failures = 0;
        if self.wants_connections() {
            self.connect(i, now);
        }
    }

    /// Whether a closed connection is opened again: not when the connections already opening
    /// will take every request `-n` has left (each up to the depth) and none waits to be sent
    /// again, since it would carry nothing (a server that closes after each response saw one
    /// idle connection per load connection at the end, counted as connects).
    fn wants_connections(&self) -> bool {
        match self.plan.budget {
            Some(left) if self.measuring && self.retry.is_empty() => {
                left > self.opening * self.sh.depth as u64
            }
            _ => true,
        }
    }

    /// Closes the socket and forgets its requests, each a `kind` error of its target; returns
    /// how many were lost, and how many of those were measured.
    pub(super) fn drop_conn(&mut self, i: usize, kind: ErrorClass) -> (u64, u64) {
        let (c, rec) = (&mut self.conns[i], &mut self.rec);
        let (mut all, mut measured) = (0u64, 0u64);
        c.session.drain(&mut |s: Sent| {
            all += 1;
            if s.measured {
                measured += 1;
                // A no-op without per-target figures.
                rec.target_error(s.req, kind);
            }
        });
        c.session.take_counts(&mut rec.proto);
        c.t = None;
        c.gen = c.gen.wrapping_add(1);
        c.carry.clear();
        self.inflight_total -= all;
        if matches!(c.state, State::Connecting | State::Handshaking) {
            self.opening -= 1;
        }
        c.state = State::Backoff;
        if all > 0 {
            self.last_progress = Instant::now();
        }
        (all, measured)
    }

    /// A failure: counts it (the connect attempt, or every measured request outstanding), closes
    /// the connection and schedules a reconnect after a capped exponential backoff.
    pub(super) fn fail(
        &mut self,
        i: usize,
        kind: ErrorClass,
        why: &dyn std::fmt::Display,
        now: Instant,
    ) {
        let lost = self.drop_conn(i, kind);
        // A failed connect or an unasked message had no request in flight (a session reports
        // either only then): it counts once, by itself.
        let n = if kind.of_request() {
            lost
        } else {
            debug_assert_eq!(lost.0, 0, "{kind:?} with requests in flight");
            (1, u64::from(self.measuring))
        };
        self.count_error(kind, n, why);
        let c = &mut self.conns[i];
        let c_fail = c.failures.min(16);
        c.failures = c.failures.saturating_add(1);
        let delay = (BACKOFF_BASE * (1u32 << c_fail.min(10))).min(BACKOFF_MAX);
        c.since = now + delay;
    }

    /// Periodic: request and connect timeouts (the session cancels its late requests or ends
    /// the connection), and reconnects whose backoff is over.
    pub(super) fn scan(&mut self, now: Instant) {
        let timeout = self.sh.timeout;
        debug_assert_eq!(
            self.opening,
            self.conns
                .iter()
                .filter(|c| matches!(c.state, State::Connecting | State::Handshaking))
                .count() as u64,
            "connections opening"
        );
        for i in 0..self.conns.len() {
            let c = &self.conns[i];
            match c.state {
                State::Backoff if now >= c.since && self.wants_connections() => {
                    self.connect(i, now)
                }
                State::Connecting | State::Handshaking if now - c.since > timeout => {
                    self.fail(i, ErrorClass::Connect, &"connect timed out", now)
                }
                State::Ready => self.expire(i, now),
                _ => {}
            }
        }
    }
}

//! HTTP/3 (`ServerConfig::http3`): one thread with a UDP socket on the TCP port's number and its
//! own mio loop, driving the wire crate's sans-I/O [`Server`] (QUIC and HTTP/3) and answering
//! its requests through the same answers as the TCP side ([`crate::answer`], by [`answer`]).
//!
//! One thread serves every HTTP/3 connection: QUIC's connections are told apart by their
//! connection ids, not by the socket, and spreading them over the workers would need a
//! connection-id router in front (or one socket per worker with `SO_REUSEPORT`, which breaks as
//! soon as a client's address changes). The loop: read every datagram the socket has, hand each
//! to the endpoint, answer the events, send what the endpoint has until the socket would block,
//! and sleep until the socket is readable, the earliest QUIC timer, or a sleep or drip is due.

use crate::Shared;
use barrage_udp::Offload;
use barrage_wire::h3::server::{Config, Server};
use mio::net::UdpSocket;
use mio::{Events, Interest, Poll, Token, Waker};
use std::io;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod answer;
use answer::Answers;

const SOCKET: Token = Token(0);
const WAKER: Token = Token(1);

/// The largest datagram read: above any MTU QUIC uses.
const DATAGRAM: usize = 65_535;

/// The HTTP/3 thread's state.
pub(crate) struct H3Worker {
    poll: Poll,
    socket: UdpSocket,
    server: Server,
    answers: Answers,
    /// Datagrams the socket would not take yet, their segment size (sent first when it is
    /// writable again).
    blocked: Option<(SocketAddr, Vec<u8>, usize)>,
    /// The socket's GSO and GRO (barrage_udp): several datagrams a system call.
    offload: Offload,
    /// The last turn stopped sending at its bound with more to send: the next poll does not
    /// wait (the socket's writable edge will not come again).
    more: bool,
    /// Connections accepted and open, as last counted into the server's figures.
    counted: (u64, usize),
}

impl H3Worker {
    /// Sets up the loop on `std_socket`, bound to `addr` (the TCP listener's address, port
    /// included); `counters` is this thread's slot in `Shared::counters`.
    pub(crate) fn new(
        std_socket: std::net::UdpSocket,
        addr: SocketAddr,
        shared: Arc<Shared>,
        tls: &rustls::ServerConfig,
        counters: usize,
    ) -> Result<(H3Worker, Arc<Waker>), crate::ServerError> {
        let bind = |source| crate::ServerError::Bind { addr, source };
        std_socket.set_nonblocking(true).map_err(bind)?;
        let mut socket = UdpSocket::from_std(std_socket);
        let poll = Poll::new().map_err(crate::ServerError::Worker)?;
        let waker =
            Arc::new(Waker::new(poll.registry(), WAKER).map_err(crate::ServerError::Worker)?);
        poll.registry()
            .register(&mut socket, SOCKET, Interest::READABLE | Interest::WRITABLE)
            .map_err(crate::ServerError::Worker)?;
        let cfg = &shared.cfg;
        let config = Config {
            max_streams: cfg.h2_max_streams,
            max_field_section: cfg.header_limit as u64,
            idle_timeout: cfg.idle_timeout,
            max_connections: cfg.max_connections,
            ..Config::default()
        };
        let server = Server::new(tls, config).map_err(|e| {
            crate::ServerError::Worker(io::Error::new(io::ErrorKind::InvalidInput, e))
        })?;
        let offload = barrage_udp::enable(socket.as_raw_fd());
        let worker = H3Worker {
            poll,
            offload,
            socket,
            server,
            answers: Answers::new(shared, counters),
            blocked: None,
            more: false,
            counted: (0, 0),
        };
        Ok((worker, waker))
    }

    pub(crate) fn run(mut self) {
        let mut events = Events::with_capacity(64);
        let mut buf = vec![0u8; DATAGRAM];
        let mut out = Vec::with_capacity(DATAGRAM);
        let mut drain_deadline: Option<Instant> = None;
        loop {
            let now = Instant::now();
            if drain_deadline.is_none() && self.answers.shared.stop.load(Ordering::Acquire) {
                // In-flight responses may finish within the grace period; then every
                // connection is closed (CONNECTION_CLOSE with H3_NO_ERROR).
                drain_deadline = Some(now + self.answers.shared.cfg.grace);
                self.answers.drain(&mut self.server, now);
                self.server.goaway_all();
            }
            if let Some(d) = drain_deadline {
                if self.answers.is_empty() || now >= d {
                    self.server.close_all(now);
                    self.send(now, &mut out);
                    break;
                }
            }
            let mut wake = self.server.timeout();
            if let Some(t) = self.answers.next_timer() {
                wake = Some(wake.map_or(t, |w| w.min(t)));
            }
            if let Some(d) = drain_deadline {
                wake = Some(wake.map_or(d, |w| w.min(d)));
            }
            // A bounded sleep even with nothing armed: the stop flag is also looked at then.
            let timeout = if self.more {
                Duration::ZERO
            } else {
                wake.map_or(Duration::from_millis(500), |w| {
                    w.saturating_duration_since(now)
                        .min(Duration::from_millis(500))
                })
            };
            if let Err(e) = self.poll.poll(&mut events, Some(timeout)) {
                if e.kind() != io::ErrorKind::Interrupted {
                    break;
                }
            }
            self.answers.tick();
            let now = Instant::now();
            // Edge-triggered: read until the socket is empty. With GRO one read may hold several
            // datagrams of one sender, each `seg` bytes but the last.
            loop {
                match barrage_udp::recv(self.socket.as_raw_fd(), &mut buf) {
                    Ok((n, from, seg)) => {
                        for d in buf[..n].chunks(seg) {
                            self.server.handle(now, from, d);
                        }
                        self.answers.events(&mut self.server, now);
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    // WouldBlock, or an ICMP error for an earlier send: nothing more now.
                    Err(_) => break,
                }
            }
            self.server.handle_timeout(now);
            self.answers.events(&mut self.server, now);
            self.answers.fire(&mut self.server, now);
            self.answers.events(&mut self.server, now);
            self.answers.pump_fresh(&mut self.server, now);
            // Counted before the answers leave (a client that got them may read the figures)
            // and after (connections forgotten while sending).
            self.count();
            self.send(now, &mut out);
            self.count();
        }
        // The connections are gone with the thread.
        self.answers.count_connections(0, -(self.counted.1 as i64));
    }

    /// Connections accepted and open since the last turn, into the server's figures.
    fn count(&mut self) {
        let (accepted, open) = (self.server.accepted(), self.server.connections());
        let (was_accepted, was_open) = self.counted;
        self.answers
            .count_connections(accepted - was_accepted, open as i64 - was_open as i64);
        self.counted = (accepted, open);
        let w = self.server.work();
        self.answers.shared.h3.publish(crate::stats::H3Stats {
            handshakes: self.server.handshakes() as u64,
            handshakes_dropped: w.handshakes_dropped,
            handshakes_timed_out: w.handshakes_timed_out,
            streams_visited: w.streams_visited,
            conns_visited: w.conns_visited,
            retries: w.retries,
            handshakes_evicted: w.handshakes_evicted,
        });
    }

    /// Sends every datagram the endpoint has, until the socket would block.
    fn send(&mut self, now: Instant, out: &mut Vec<u8>) {
        self.more = false;
        if let Some((to, d, seg)) = self.blocked.take() {
            if self.send_to(&d, seg, to) {
                self.blocked = Some((to, d, seg));
                return;
            }
        }
        // A bounded number per turn, so that reading (acknowledgments) is not starved.
        let mut all = false;
        for _ in 0..4096 {
            let Some((to, seg)) = self.server.poll_transmit(now, self.offload.segments(), out)
            else {
                all = true;
                break;
            };
            if self.send_to(out, seg, to) {
                self.blocked = Some((to, out.clone(), seg));
                return;
            }
            // Nothing to answer per datagram: room frees in the streams' buffers when the
            // client acknowledges or raises its limits (a datagram read), and
            // `Event::Writable` names those streams then.
        }
        self.more = !all;
    }

    /// Sends datagrams of `seg` bytes to `to` in one call (GSO when more than one); true when
    /// the socket would block (to be sent again). Any other error loses them, which QUIC
    /// recovers from; a kernel that refuses GSO on this path (EIO: no checksum offload) turns
    /// it off, and they go one by one.
    fn send_to(&mut self, d: &[u8], seg: usize, to: SocketAddr) -> bool {
        let fd = self.socket.as_raw_fd();
        match barrage_udp::send(fd, d, seg, Some(to)) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => true,
            Err(e) if seg < d.len() && e.raw_os_error() == Some(libc::EIO) => {
                self.offload.gso = false;
                for one in d.chunks(seg) {
                    let _ = barrage_udp::send(fd, one, 0, Some(to));
                }
                false
            }
            _ => false,
        }
    }
}

//! The server half of HTTP/3, sans I/O like the client ([`super::client`]): one quinn-proto
//! [`Endpoint`] with a server configuration (rustls, ALPN `h3`) accepts connections from the
//! datagrams the caller hands it; each connection ([`conn`]) reads the client's control and
//! QPACK streams, opens ours (SETTINGS with a QPACK table of 0: requests are decoded with the
//! static table only, and the encoder stream must stay empty), and decodes each request stream
//! ([`request`]) into [`Event`]s: the request's head, its body chunk by chunk (never kept here),
//! its end, or the client's reset.
//!
//! Responses go back through [`Server::respond`] (a HEADERS frame, static-only QPACK) and
//! [`Server::send_data`], which takes at most [`Server::room`] bytes: what a stream holds that
//! QUIC has not taken is bounded by [`STREAM_BUFFER`], so a body is produced as the client reads
//! it, never whole. [`Server::reset`] cuts a stream short (RESET_STREAM and STOP_SENDING);
//! [`Server::pause`] stops reading a request's body until resumed (QUIC's flow control then holds
//! the client back); [`Server::goaway_all`] begins a shutdown.
//!
//! Connection attempts past `max_connections` are refused (CONNECTION_REFUSED); past a number
//! of handshakes under way (half of `max_connections`, at most 256), a client whose address
//! is not validated yet gets a stateless Retry first, so that Initials that are never followed
//! up cannot fill the connection table (and lock real clients out until the idle timeout).
//!
//! I/O: [`Server::handle`] takes one received datagram, [`Server::poll_transmit`] gives the next
//! one to send, or several of one size to one peer for a GSO send (and where), [`Server::timeout`] is the earliest QUIC timer, which
//! [`Server::handle_timeout`] runs.

use bytes::BytesMut;
use quinn_proto::crypto::rustls::QuicServerConfig;
use quinn_proto::{
    DatagramEvent, Endpoint, EndpointConfig, IdleTimeout, ServerConfig, TransportConfig, VarInt,
};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use thiserror::Error;

mod conn;
pub mod request;
use conn::Conn;
pub use request::Head;

/// What one request stream may hold of a response that QUIC has not taken yet.
pub const STREAM_BUFFER: usize = 64 * 1024;

/// Handshakes under way (at most) before new addresses must validate themselves with a Retry:
/// more than a burst of real clients starts at once, far fewer than a flood would hold.
const UNVALIDATED_HANDSHAKES: usize = 256;

/// A HEADERS frame whose section refers to static entry 190 (the table has 99): Required
/// Insert Count 0, Base 0, then an indexed static line `11` + 6-bit index 63 + 127.
const GARBAGE: &[u8] = &[0x01, 0x04, 0x00, 0x00, 0xff, 0x7f];

/// A request stream: its connection and its QUIC stream id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StreamRef {
    pub conn: usize,
    pub stream: u64,
}

/// What the connections told the caller.
#[derive(Debug, PartialEq, Eq)]
pub enum Event {
    /// A request's header section.
    Request { id: StreamRef, head: Head },
    /// The next bytes of a request's body.
    Body { id: StreamRef, data: Vec<u8> },
    /// The request's end (FIN): everything came (`whole`), or it was malformed (the stream is
    /// already reset; there is nothing to answer).
    End { id: StreamRef, whole: bool },
    /// The header section passed the limit: answer 431 (the body, if any, is dropped).
    TooLarge { id: StreamRef },
    /// The client reset or stopped the stream, or its connection ended: nothing more goes out
    /// on it.
    Gone { id: StreamRef },
}

/// How the server runs its connections.
#[derive(Debug, Clone)]
pub struct Config {
    /// Request streams a client may have open at once (QUIC's bidirectional stream limit).
    pub max_streams: u32,
    /// SETTINGS_MAX_FIELD_SECTION_SIZE announced and enforced.
    pub max_field_section: u64,
    /// A connection quiet for this long is closed (QUIC's idle timeout).
    pub idle_timeout: Duration,
    /// Connections beyond this many are refused (QUIC's CONNECTION_REFUSED).
    pub max_connections: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_streams: 256,
            max_field_section: 16 * 1024,
            idle_timeout: Duration::from_secs(60),
            max_connections: 100_000,
        }
    }
}

/// Why a [`Server`] could not be made.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SetupError {
    #[error("the TLS configuration offers no TLS 1.3 cipher suite QUIC can start with")]
    NoTls13,
}

/// Every HTTP/3 connection of one UDP socket.
pub struct Server {
    endpoint: Endpoint,
    config: Config,
    /// By quinn-proto's connection handle (a small integer this side assigns: Fx hashing, no
    /// need for SipHash's resistance to chosen keys).
    conns: FxHashMap<usize, Conn>,
    /// Datagrams the endpoint answered with itself (version negotiation, a refused connection).
    direct: VecDeque<(SocketAddr, Vec<u8>)>,
    events: VecDeque<Event>,
    /// Connections accepted so far.
    accepted: u64,
    /// Connections to try for a datagram first: the one last asked (round robin).
    order: Vec<usize>,
    next: usize,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("connections", &self.conns.len())
            .finish_non_exhaustive()
    }
}

impl Server {
    /// `tls` is the certificate's configuration; its ALPN is replaced with `h3` and its early
    /// data turned off (0-RTT is not accepted: a request is never replayable by the network).
    pub fn new(tls: &rustls::ServerConfig, config: Config) -> Result<Server, SetupError> {
        let mut tls = tls.clone();
        tls.alpn_protocols = vec![super::client::ALPN.to_vec()];
        tls.max_early_data_size = 0;
        let crypto = QuicServerConfig::try_from(Arc::new(tls)).map_err(|_| SetupError::NoTls13)?;
        let mut quic = ServerConfig::with_crypto(Arc::new(crypto));
        let idle = config
            .idle_timeout
            .clamp(Duration::from_millis(100), Duration::from_secs(3600));
        let mut t = TransportConfig::default();
        // The client's control and QPACK streams, and room for reserved types it may grease
        // with; request streams up to the limit.
        t.max_concurrent_bidi_streams(VarInt::from_u32(config.max_streams.max(1)))
            .max_concurrent_uni_streams(VarInt::from_u32(16))
            .max_idle_timeout(IdleTimeout::try_from(idle).ok());
        quic.transport_config(Arc::new(t));
        let endpoint = Endpoint::new(
            Arc::new(EndpointConfig::default()),
            Some(Arc::new(quic)),
            true,
            None,
        );
        Ok(Server {
            endpoint,
            config,
            conns: FxHashMap::default(),
            direct: VecDeque::new(),
            events: VecDeque::new(),
            accepted: 0,
            order: Vec::new(),
            next: 0,
        })
    }

    /// Open connections.
    pub fn connections(&self) -> usize {
        self.conns.len()
    }

    /// Connections accepted so far (refused ones not counted).
    pub fn accepted(&self) -> u64 {
        self.accepted
    }

    /// Takes one datagram from `remote`.
    pub fn handle(&mut self, now: Instant, remote: SocketAddr, datagram: &[u8]) {
        let mut buf = Vec::new();
        let data = BytesMut::from(datagram);
        match self
            .endpoint
            .handle(now, remote, None, None, data, &mut buf)
        {
            Some(DatagramEvent::ConnectionEvent(h, ev)) => {
                if let Some(c) = self.conns.get_mut(&h.0) {
                    c.quic.handle_event(ev);
                    self.pump(h.0, now);
                }
            }
            Some(DatagramEvent::NewConnection(incoming)) => {
                if self.conns.len() >= self.config.max_connections {
                    let t = self.endpoint.refuse(incoming, &mut buf);
                    buf.truncate(t.size);
                    self.direct.push_back((t.destination, buf));
                    return;
                }
                // A flood of attempts that never complete (one socket sending Initials and
                // reading nothing) held up to `max_connections` handshakes until the idle
                // timeout, and every other client was refused meanwhile. Past a few
                // handshakes under way, an address not yet validated proves itself first
                // (a stateless Retry): a real client answers it at the cost of one round
                // trip, a flood leaves no state.
                if !incoming.remote_address_validated()
                    && incoming.may_retry()
                    && self.handshaking() >= self.unvalidated_limit()
                {
                    match self.endpoint.retry(incoming, &mut buf) {
                        Ok(t) => {
                            buf.truncate(t.size);
                            self.direct.push_back((t.destination, buf));
                        }
                        Err(e) => self.endpoint.ignore(e.into_incoming()),
                    }
                    return;
                }
                match self.endpoint.accept(incoming, now, &mut buf, None) {
                    Ok((h, quic)) => {
                        self.accepted += 1;
                        let c = Conn::new(h, quic, &self.config);
                        self.conns.insert(h.0, c);
                        self.order.push(h.0);
                        self.pump(h.0, now);
                    }
                    Err(e) => {
                        if let Some(t) = e.response {
                            buf.truncate(t.size);
                            self.direct.push_back((t.destination, buf));
                        }
                    }
                }
            }
            Some(DatagramEvent::Response(t)) => {
                buf.truncate(t.size);
                self.direct.push_back((t.destination, buf));
            }
            None => {}
        }
    }

    /// Connections whose handshake is under way.
    fn handshaking(&self) -> usize {
        self.conns
            .values()
            .filter(|c| c.quic.is_handshaking())
            .count()
    }

    /// Handshakes under way past which a new address is asked to validate itself (Retry): at
    /// most half the connections allowed, so that a flood leaves room for validated clients.
    fn unvalidated_limit(&self) -> usize {
        (self.config.max_connections / 2).clamp(1, UNVALIDATED_HANDSHAKES)
    }

    /// Runs QUIC's timers that are due.
    pub fn handle_timeout(&mut self, now: Instant) {
        let due: Vec<usize> = self
            .conns
            .iter_mut()
            .filter_map(|(k, c)| {
                c.quic
                    .poll_timeout()
                    .is_some_and(|t| t <= now)
                    .then_some(*k)
            })
            .collect();
        for k in due {
            if let Some(c) = self.conns.get_mut(&k) {
                c.quic.handle_timeout(now);
            }
            self.pump(k, now);
        }
    }

    /// The earliest QUIC timer of any connection.
    pub fn timeout(&mut self) -> Option<Instant> {
        self.conns
            .values_mut()
            .filter_map(|c| c.quic.poll_timeout())
            .min()
    }

    /// The next datagrams to send into `buf` (cleared first), at most `segments` of them, all to
    /// one peer and each `segment` bytes long but the last (the second value; `buf.len()` for
    /// one): connections in turn. More than one only when the caller can send them in one call
    /// (GSO, barrage_udp).
    pub fn poll_transmit(
        &mut self,
        now: Instant,
        segments: usize,
        buf: &mut Vec<u8>,
    ) -> Option<(SocketAddr, usize)> {
        buf.clear();
        if let Some((to, d)) = self.direct.pop_front() {
            buf.extend_from_slice(&d);
            return Some((to, buf.len()));
        }
        for _ in 0..self.order.len() {
            self.next = (self.next + 1) % self.order.len();
            let k = self.order[self.next];
            let Some(c) = self.conns.get_mut(&k) else {
                continue;
            };
            if let Some(t) = c.quic.poll_transmit(now, segments.max(1), buf) {
                buf.truncate(t.size);
                return Some((t.destination, t.segment_size.unwrap_or(t.size)));
            }
        }
        self.reap();
        None
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// Sends a response's header section: `:status` then `headers` (lower-case names). With
    /// `end`, the stream ends there. False when the stream is gone.
    pub fn respond(
        &mut self,
        id: StreamRef,
        status: u16,
        headers: &[(&str, &[u8])],
        end: bool,
    ) -> bool {
        let Some(c) = self.conns.get_mut(&id.conn) else {
            return false;
        };
        let ok = c.respond(id.stream, status, headers, end);
        self.pump_writes(id.conn);
        ok
    }

    /// Bytes a body may still take on stream `id` now (0 when it is gone or its buffer full).
    pub fn room(&self, id: StreamRef) -> usize {
        self.conns.get(&id.conn).map_or(0, |c| c.room(id.stream))
    }

    /// Sends what [`Server::room`] allows of `data` as one DATA frame, and ends the stream after
    /// it with `end` when all was taken: the bytes taken.
    pub fn send_data(&mut self, id: StreamRef, data: &[u8], end: bool) -> usize {
        let Some(c) = self.conns.get_mut(&id.conn) else {
            return 0;
        };
        let n = c.send_data(id.stream, data, end);
        self.pump_writes(id.conn);
        n
    }

    /// Stops reading stream `id`'s request body (`true`) until called again with `false`: a
    /// caller that cannot pass the body on yet (an echo whose client does not read) holds
    /// nothing more, and QUIC's flow control stops the client. Resuming may queue events.
    pub fn pause(&mut self, id: StreamRef, paused: bool) {
        if let Some(c) = self.conns.get_mut(&id.conn) {
            c.pause(id.stream, paused, &mut self.events);
            self.pump_writes(id.conn);
        }
    }

    /// Whether events wait for [`Server::poll_event`].
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    /// Resets stream `id` with `code` (and stops reading it): the client sees the request fail.
    pub fn reset(&mut self, id: StreamRef, code: super::ErrorCode) {
        if let Some(c) = self.conns.get_mut(&id.conn) {
            c.reset(id.stream, code);
            self.pump_writes(id.conn);
        }
    }

    /// Closes the connection of stream `id` with H3_NO_ERROR: every request on it ends
    /// unanswered.
    pub fn close_conn(&mut self, id: StreamRef, now: Instant) {
        if let Some(c) = self.conns.get_mut(&id.conn) {
            c.close(now, super::ErrorCode::NoError, "closed");
            c.gone(&mut self.events);
        }
    }

    /// Answers stream `id` with a HEADERS frame no QPACK decoder accepts (a static index past
    /// the table): a connection error for the client, for the garbage fault.
    pub fn garbage(&mut self, id: StreamRef) {
        if let Some(c) = self.conns.get_mut(&id.conn) {
            c.raw(id.stream, GARBAGE);
            self.pump_writes(id.conn);
        }
    }

    /// Sends GOAWAY on every connection (a shutdown begins): the requests already accepted are
    /// answered, later ones refused with H3_REQUEST_REJECTED.
    pub fn goaway_all(&mut self) {
        for c in self.conns.values_mut() {
            c.goaway();
        }
    }

    /// Closes every connection with H3_NO_ERROR (a shutdown): their CONNECTION_CLOSE goes out
    /// with the next [`Server::poll_transmit`] calls.
    pub fn close_all(&mut self, now: Instant) {
        for c in self.conns.values_mut() {
            c.close(now, super::ErrorCode::NoError, "shutting down");
        }
    }

    /// Handles everything connection `k` has to say after an input.
    fn pump(&mut self, k: usize, now: Instant) {
        let Some(c) = self.conns.get_mut(&k) else {
            return;
        };
        while let Some(ev) = c.quic.poll_endpoint_events() {
            if let Some(ev) = self.endpoint.handle_event(c.handle, ev) {
                c.quic.handle_event(ev);
            }
        }
        c.pump(now, &mut self.events);
        while let Some(ev) = c.quic.poll_endpoint_events() {
            if let Some(ev) = self.endpoint.handle_event(c.handle, ev) {
                c.quic.handle_event(ev);
            }
        }
    }

    fn pump_writes(&mut self, k: usize) {
        if let Some(c) = self.conns.get_mut(&k) {
            c.flush();
        }
    }

    /// Forgets connections QUIC is done with (closed and drained).
    fn reap(&mut self) {
        let before = self.conns.len();
        let events = &mut self.events;
        self.conns.retain(|_, c| {
            if c.quic.is_drained() {
                c.gone(events);
                false
            } else {
                true
            }
        });
        if self.conns.len() != before {
            let conns = &self.conns;
            self.order.retain(|k| conns.contains_key(k));
            self.next = 0;
        }
    }
}

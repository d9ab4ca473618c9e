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
//! Work per datagram and per event is O(1) in the connections and streams held ([`sched`]):
//! connections with something to send wait in a queue (quinn's own transmit is asked only of
//! them), QUIC's timers of every connection sit in one heap, and each request stream is looked
//! at only when QUIC or the caller names it ([`conn`]); [`Server::work`] counts what was looked
//! at, so that tests can hold it to that.
//!
//! Handshakes are bounded (as quic-go's `MaxUnvalidatedHandshakes` and `MaxHandshakes`, per
//! address too) without locking anyone out: past [`UNVALIDATED_HANDSHAKES`] under way (at most
//! half of `max_connections`), or where a bound below is reached, a client whose address is not
//! validated yet gets a stateless Retry first, so that Initials that are never followed up leave
//! no state; a client that returns a valid Retry token has proven its address, and gets a
//! handshake: past [`Config::handshakes_per_address`] under way from its IP address, or
//! [`Config::max_handshakes`] in all, the oldest handshake still under way (from that address,
//! or of all) is forgotten to make room. So a flood, answering Retry or not, holds at most
//! those bounds (~55 KiB a half-open handshake), and a handshake that completes before as
//! many newer validated attempts came gets in, during the flood and after it (before: every
//! new attempt past a bound was dropped, a real client from the flood's address among them,
//! until the flood's handshakes timed out). A handshake not done within
//! [`Config::handshake_timeout`] is forgotten without a word, as an idle connection is.
//! Connection attempts past `max_connections` are refused (CONNECTION_REFUSED).
//!
//! I/O: [`Server::handle`] takes one received datagram, [`Server::poll_transmit`] gives the next
//! one to send, or several of one size to one peer for a GSO send (and where),
//! [`Server::timeout`] is the earliest timer, which [`Server::handle_timeout`] runs. Time is
//! always passed in.

use bytes::BytesMut;
use quinn_proto::crypto::rustls::QuicServerConfig;
use quinn_proto::{
    DatagramEvent, Endpoint, EndpointConfig, IdleTimeout, RandomConnectionIdGenerator,
    ServerConfig, TransportConfig, VarInt,
};
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};
use thiserror::Error;

mod conn;
pub mod request;
mod sched;
mod seam;
use conn::Conn;
pub use request::Head;

/// What one request stream may hold of a response that QUIC has not taken yet.
pub const STREAM_BUFFER: usize = 64 * 1024;

/// Handshakes under way (at most) before new addresses must validate themselves with a Retry:
/// more than a burst of real clients starts at once, far fewer than a flood would hold.
pub const UNVALIDATED_HANDSHAKES: usize = 256;

/// A HEADERS frame whose section refers to static entry 190 (the table has 99): Required
/// Insert Count 0, Base 0, then an indexed static line `11` + 6-bit index 63 + 127.
const GARBAGE: &[u8] = &[0x01, 0x04, 0x00, 0x00, 0xff, 0x7f];

/// A request stream: its connection and its QUIC stream id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
    /// [`Server::send_data`] took less than it was offered (or filled the stream), and room
    /// has freed since: the caller may send more (once per refusal).
    Writable { id: StreamRef },
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
    /// A handshake not done this long after its first datagram is forgotten (at most the idle
    /// timeout).
    pub handshake_timeout: Duration,
    /// Handshakes under way from one IP address, past which its new attempts are dropped.
    pub handshakes_per_address: usize,
    /// Handshakes under way in all, past which new attempts are dropped.
    pub max_handshakes: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_streams: 256,
            max_field_section: 16 * 1024,
            idle_timeout: Duration::from_secs(60),
            max_connections: 100_000,
            // quic-go's: twice its handshake idle timeout of 5 s.
            handshake_timeout: Duration::from_secs(10),
            // As many as a client starting a few hundred connections at once holds.
            handshakes_per_address: 256,
            // ~55 MiB of half-open handshakes at most (~55 KiB each), whoever sends them.
            max_handshakes: 1024,
        }
    }
}

/// Why a [`Server`] could not be made.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SetupError {
    #[error("the TLS configuration offers no TLS 1.3 cipher suite QUIC can start with")]
    NoTls13,
}

/// What the server did and looked at so far: deterministic counters for tests and figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Work {
    /// Request streams looked at: each stream QUIC or the caller named (read, written,
    /// answered, reset), never a scan.
    pub streams_visited: u64,
    /// Connections looked at: each datagram's, each popped from the send queue or the timer
    /// heap.
    pub conns_visited: u64,
    /// Connection attempts dropped for the handshake bounds (per address or in all): only an
    /// attempt that can neither be asked to validate its address nor make room.
    pub handshakes_dropped: u64,
    /// Stateless Retry packets sent (an address asked to validate itself).
    pub retries: u64,
    /// Handshakes under way forgotten to make room for a validated attempt (the oldest from
    /// its address, or of all).
    pub handshakes_evicted: u64,
    /// Handshakes forgotten after the handshake timeout.
    pub handshakes_timed_out: u64,
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
    /// The event [`crate::server::ServerSession::next`] handed out last (borrowed from here).
    current: Option<Event>,
    /// Connections accepted so far, and the serial of the next.
    accepted: u64,
    /// Connections that may have datagrams to send (handle, serial), each once.
    sending: VecDeque<(usize, u64)>,
    /// Each connection's earliest timer (QUIC's or its handshake's): (when, handle, serial),
    /// entries that no longer match the connection's `armed` skipped as they come up.
    timers: BinaryHeap<Reverse<(Instant, usize, u64)>>,
    /// Handshakes under way, in all and by client IP address (entries only while nonzero).
    handshakes: usize,
    by_address: FxHashMap<IpAddr, usize>,
    /// The handshakes under way in the order they began, in all and by address: (serial,
    /// handle), oldest first; entries of handshakes over are skipped when they come up (sched).
    begun: VecDeque<(u64, usize)>,
    begun_by: FxHashMap<IpAddr, VecDeque<(u64, usize)>>,
    work: Work,
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
        // Connection IDs of 8 random bytes. quinn-proto's default generator puts 3 random bytes
        // and a 5-byte keyed hash in its 8: with hundreds of handshakes under way (a flood at
        // its bounds) a new Retry's ID then met an existing connection's about once in 40 runs
        // of `h3_handshakes.rs` (24 bits: a birthday collision), and the client's answer went
        // to that connection instead of a handshake of its own. The hash only lets an endpoint
        // drop a datagram for an ID it never issued without a lookup; the lookup is one hash
        // probe here.
        let mut endpoint_config = EndpointConfig::default();
        endpoint_config.cid_generator(|| Box::new(RandomConnectionIdGenerator::new(8)));
        let endpoint = Endpoint::new(Arc::new(endpoint_config), Some(Arc::new(quic)), true, None);
        Ok(Server {
            endpoint,
            config,
            conns: FxHashMap::default(),
            direct: VecDeque::new(),
            events: VecDeque::new(),
            current: None,
            accepted: 0,
            sending: VecDeque::new(),
            timers: BinaryHeap::new(),
            handshakes: 0,
            by_address: FxHashMap::default(),
            begun: VecDeque::new(),
            begun_by: FxHashMap::default(),
            work: Work::default(),
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

    /// Handshakes under way now.
    pub fn handshakes(&self) -> usize {
        self.handshakes
    }

    /// What the server did and looked at so far.
    pub fn work(&self) -> Work {
        self.work
    }

    /// Request streams open on connection `conn` (0 when it is gone).
    pub fn streams(&self, conn: usize) -> usize {
        self.conns.get(&conn).map_or(0, Conn::streams)
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
                    self.work.conns_visited += 1;
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
                let ip = incoming.remote_address().ip();
                let per_address = self.by_address.get(&ip).copied().unwrap_or(0)
                    >= self.config.handshakes_per_address;
                let in_all = self.handshakes >= self.config.max_handshakes;
                // A flood of attempts that never complete (one socket sending Initials and
                // reading nothing) held up to `max_connections` handshakes until the idle
                // timeout, and every other client was refused meanwhile. Past a few
                // handshakes under way, or at a bound, an address not yet validated proves
                // itself first (a stateless Retry): a real client answers it at the cost of one
                // round trip, a flood leaves no state.
                if !incoming.remote_address_validated()
                    && incoming.may_retry()
                    && (per_address || in_all || self.handshakes >= self.unvalidated_limit())
                {
                    match self.endpoint.retry(incoming, &mut buf) {
                        Ok(t) => {
                            self.work.retries += 1;
                            buf.truncate(t.size);
                            self.direct.push_back((t.destination, buf));
                        }
                        Err(e) => self.endpoint.ignore(e.into_incoming()),
                    }
                    return;
                }
                // A validated attempt at a bound makes room: the oldest handshake still under
                // way from its address (or of all) goes, as one past its timeout would. A flood
                // that answers Retry then holds no more than the bound, and a client whose
                // handshake completes before as many newer attempts came gets in (before: it
                // was dropped like the flood's, until the flood's handshakes timed out).
                if per_address || in_all {
                    let from = per_address.then_some(ip);
                    if !self.evict_oldest(from) {
                        self.work.handshakes_dropped += 1;
                        self.endpoint.ignore(incoming);
                        return;
                    }
                }
                match self.endpoint.accept(incoming, now, &mut buf, None) {
                    Ok((h, quic)) => {
                        self.accepted += 1;
                        let c = Conn::new(h, quic, &self.config, self.accepted, ip, now);
                        self.handshake_begun(ip, self.accepted, h.0);
                        self.conns.insert(h.0, c);
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

    /// Handshakes under way past which a new address is asked to validate itself (Retry): at
    /// most half the connections allowed, so that a flood leaves room for validated clients.
    fn unvalidated_limit(&self) -> usize {
        (self.config.max_connections / 2).clamp(1, UNVALIDATED_HANDSHAKES)
    }

    /// The next datagrams to send into `buf` (cleared first), at most `segments` of them, all to
    /// one peer and each `segment` bytes long but the last (the second value; `buf.len()` for
    /// one): the connections that may have some, in turn. More than one only when the caller
    /// can send them in one call (GSO, barrage_udp).
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
        while let Some((k, serial)) = self.sending.pop_front() {
            let Some(c) = self.conns.get_mut(&k).filter(|c| c.serial == serial) else {
                continue;
            };
            self.work.conns_visited += 1;
            c.write_queued(&mut self.events);
            let t = c.quic.poll_transmit(now, segments.max(1), buf);
            if t.is_none() {
                c.queued = false;
            } else {
                // Its turn again after the others'.
                self.sending.push_back((k, serial));
            }
            // Sending arms QUIC's loss detection (and pacing) timers.
            self.settle(k, false);
            if let Some(t) = t {
                buf.truncate(t.size);
                return Some((t.destination, t.segment_size.unwrap_or(t.size)));
            }
        }
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
        self.settle(id.conn, true);
        ok
    }

    /// Ends stream `id` with a trailer section. False when the stream is gone.
    pub fn send_trailers(&mut self, id: StreamRef, headers: &[(&str, &[u8])]) -> bool {
        let Some(c) = self.conns.get_mut(&id.conn) else {
            return false;
        };
        let ok = c.trailers(id.stream, headers);
        self.settle(id.conn, true);
        ok
    }

    /// Bytes a body may still take on stream `id` now (0 when it is gone or its buffer full).
    pub fn room(&self, id: StreamRef) -> usize {
        self.conns.get(&id.conn).map_or(0, |c| c.room(id.stream))
    }

    /// Sends what [`Server::room`] allows of `data` as one DATA frame, and ends the stream after
    /// it with `end` when all was taken: the bytes taken. Less than offered (or a stream left
    /// full) brings an [`Event::Writable`] once room frees.
    pub fn send_data(&mut self, id: StreamRef, data: &[u8], end: bool) -> usize {
        let Some(c) = self.conns.get_mut(&id.conn) else {
            return 0;
        };
        let n = c.send_data(id.stream, data, end);
        self.settle(id.conn, true);
        n
    }

    /// Stops reading stream `id`'s request body (`true`) until called again with `false`: a
    /// caller that cannot pass the body on yet (an echo whose client does not read) holds
    /// nothing more, and QUIC's flow control stops the client. Resuming may queue events.
    pub fn pause(&mut self, now: Instant, id: StreamRef, paused: bool) {
        if let Some(c) = self.conns.get_mut(&id.conn) {
            c.pause(now, id.stream, paused, &mut self.events);
            self.settle(id.conn, true);
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
            self.settle(id.conn, true);
        }
    }

    /// Closes the connection of stream `id` with H3_NO_ERROR: every request on it ends
    /// unanswered.
    pub fn close_conn(&mut self, id: StreamRef, now: Instant) {
        if let Some(c) = self.conns.get_mut(&id.conn) {
            c.close(now, super::ErrorCode::NoError, "closed");
            c.gone(&mut self.events);
            self.settle(id.conn, true);
        }
    }

    /// Answers stream `id` with a HEADERS frame no QPACK decoder accepts (a static index past
    /// the table): a connection error for the client, for the garbage fault.
    pub fn garbage(&mut self, id: StreamRef) {
        if let Some(c) = self.conns.get_mut(&id.conn) {
            c.raw(id.stream, GARBAGE);
            self.settle(id.conn, true);
        }
    }

    /// Sends GOAWAY on every connection (a shutdown begins): the requests already accepted are
    /// answered, later ones refused with H3_REQUEST_REJECTED.
    pub fn goaway_all(&mut self) {
        let all: Vec<usize> = self.conns.keys().copied().collect();
        for k in all {
            if let Some(c) = self.conns.get_mut(&k) {
                c.goaway();
            }
            self.settle(k, true);
        }
    }

    /// Closes every connection with H3_NO_ERROR (a shutdown): their CONNECTION_CLOSE goes out
    /// with the next [`Server::poll_transmit`] calls.
    pub fn close_all(&mut self, now: Instant) {
        let all: Vec<usize> = self.conns.keys().copied().collect();
        for k in all {
            if let Some(c) = self.conns.get_mut(&k) {
                c.close(now, super::ErrorCode::NoError, "shutting down");
            }
            self.settle(k, true);
        }
    }
}

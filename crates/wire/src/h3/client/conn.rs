//! An HTTP/3 client connection behind [`ClientSession`]: quinn-proto's endpoint and connection
//! (one endpoint per connection: the caller's socket is connected, so there is nothing to
//! route), the request streams with their responses, the server's unidirectional streams and
//! ours, the next datagram to send, and the figures HTTP/3 and QUIC count ([`Counts`]).
//!
//! Datagrams are the unit of I/O: [`ClientSession::feed`] takes one received datagram, and
//! [`ClientSession::out`] is the next datagram to send, whole ([`ClientSession::wrote`] with
//! any count drops it and makes the next, since a datagram socket sends all or nothing).
//! [`ClientSession::timer`] is QUIC's next timer (loss detection, acknowledgment delay, idle,
//! pacing), which [`ClientSession::expire`] runs. QUIC's clock is the caller's: every call
//! that hands QUIC an input or asks it for output passes the caller's `now` on, and nothing
//! here reads a clock, so a test drives a connection on instants of its own
//! (tests/h3_clock.rs).

use super::uni::Uni;
use super::{Request, Setup};
use crate::client::{self, ClientSession, ConnError, End, ErrorClass, Failure, Fed, Tag, Transmit};
use crate::h3::error::{ErrorCode, H3Error};
use bytes::{Bytes, BytesMut};
use quinn_proto::{
    Connection, ConnectionError, ConnectionHandle, DatagramEvent, Dir, Endpoint, Event, StreamEvent,
};
use std::time::Instant;

mod counts;
mod streams;
pub use counts::Counts;
use counts::Snap;
use streams::{
    after_reads, code, fill_pool, flush_own, open_own, read, write_request, write_stream, Stream,
    CANCELLED, H3,
};

/// A QUIC connection and the endpoint it came from.
struct Quic {
    endpoint: Endpoint,
    handle: ConnectionHandle,
    conn: Connection,
}

/// One HTTP/3 connection's client side.
pub struct Conn<'r, T> {
    setup: &'r Setup,
    quic: Option<Box<Quic>>,
    h3: H3<T>,
    /// The next datagram to send (empty: none).
    tx: Vec<u8>,
    /// The size of each datagram in `tx` but the last (several of them: a GSO send).
    seg: usize,
    /// Received datagrams' buffer, handed to QUIC in pieces and reused.
    rx: BytesMut,
    /// QUIC's next timer.
    timeout: Option<Instant>,
    /// When the connect began (None before the first `start`).
    since: Option<Instant>,
    connected: bool,
    /// Since when no stream could be opened (no QUIC stream credit, none open, no GOAWAY).
    starved: Option<Instant>,
    /// The connection's end, once QUIC or HTTP/3 ended it.
    lost: Option<ConnError>,
    /// We closed it: `tx` holds the CONNECTION_CLOSE for the peer.
    closing: bool,
    /// The server closed it cleanly, with no request open.
    closed: bool,
    /// Streams the server answered (or reset) on this connection.
    answered: u64,
    counts: Counts,
    /// QUIC's statistics already counted.
    seen: Snap,
    /// A script's last request text, encoded for a stream.
    last_text: crate::fields::LastText<Box<[u8]>>,
}

impl<T> std::fmt::Debug for Conn<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn")
            .field("streams", &self.h3.streams.len())
            .field("connected", &self.connected)
            .field("lost", &self.lost)
            .finish_non_exhaustive()
    }
}

impl<'r, T> Conn<'r, T> {
    pub fn new(setup: &'r Setup) -> Conn<'r, T> {
        Conn {
            setup,
            quic: None,
            h3: H3::new(setup),
            tx: Vec::new(),
            seg: 0,
            rx: BytesMut::new(),
            timeout: None,
            since: None,
            connected: false,
            starved: None,
            lost: None,
            closing: false,
            closed: false,
            answered: 0,
            counts: Counts::default(),
            seen: Snap::default(),
            last_text: crate::fields::LastText::default(),
        }
    }

    /// Open request streams.
    pub fn open_streams(&self) -> usize {
        self.h3.streams.len()
    }

    /// Whether the handshake completed.
    pub fn connected(&self) -> bool {
        self.connected
    }
}

impl<T: Tag> Conn<'_, T> {
    /// Sends request `req` of the run, or `own`'s bytes, on the next stream of the pool.
    fn open_stream(
        &mut self,
        now: Instant,
        req: usize,
        own: Option<Box<[u8]>>,
        head: bool,
        tag: T,
    ) -> bool {
        if self.room() == 0 {
            return false;
        }
        let (Some(q), Some(id)) = (self.quic.as_mut(), self.h3.pool.pop_front()) else {
            return false;
        };
        // Not starved: a request went out since the last look (`expire` may look rarely).
        self.starved = None;
        let mut s = Stream {
            id,
            tag,
            req,
            own,
            sent: 0,
            response: self.h3.response(head),
        };
        write_stream(&mut q.conn, &mut s, self.setup);
        self.h3.streams.push(s);
        self.counts.streams += 1;
        // The request's first packet, if nothing was waiting to go, and QUIC's timers as they
        // now stand (a write can arm pacing or loss detection).
        self.next_datagram(now);
        true
    }

    /// Runs everything QUIC has to say after an input: endpoint events, connection events (the
    /// handshake's end, streams readable and writable, the connection lost), our pending
    /// writes, then the next datagram and timer.
    fn pump<F: FnMut(End<T>)>(&mut self, now: Instant, on: &mut F) -> Result<(), ConnError> {
        let Some(q) = self.quic.as_mut() else {
            return Ok(());
        };
        let setup = self.setup;
        let expect = setup.expect_body.as_deref();
        let h3 = &mut self.h3;
        let mut lost = None;
        let mut h3_error: Option<H3Error> = None;
        loop {
            while let Some(ev) = q.conn.poll_endpoint_events() {
                if let Some(ev) = q.endpoint.handle_event(q.handle, ev) {
                    q.conn.handle_event(ev);
                }
            }
            let Some(ev) = q.conn.poll() else { break };
            let r = match ev {
                Event::Connected => {
                    self.connected = true;
                    self.counts.handshakes += 1;
                    let took = now.saturating_duration_since(self.since.unwrap_or(now));
                    self.counts.handshake_us += took.as_micros() as u64;
                    open_own(&mut q.conn, h3, setup);
                    Ok(())
                }
                Event::ConnectionLost { reason } => {
                    lost = Some(reason);
                    break;
                }
                Event::Stream(StreamEvent::Readable { id }) => {
                    read(&mut q.conn, h3, id, expect, &mut self.answered, on)
                }
                Event::Stream(StreamEvent::Opened { dir: Dir::Uni }) => {
                    let mut r = Ok(());
                    while let Some(id) = q.conn.streams().accept(Dir::Uni) {
                        h3.uni.push((id, Uni::new()));
                        r = r.and(read(&mut q.conn, h3, id, expect, &mut self.answered, on));
                    }
                    r
                }
                Event::Stream(StreamEvent::Writable { id }) => {
                    write_request(&mut q.conn, h3, setup, id);
                    Ok(())
                }
                // Our send side's end acknowledged, or a server's STOP_SENDING (it answers
                // without reading the rest, or resets the stream, which the read side shows),
                // or more streams allowed (the pool is refilled below), or QUIC datagrams,
                // which HTTP/3 does not use here.
                Event::Stream(_)
                | Event::HandshakeDataReady
                | Event::DatagramReceived
                | Event::DatagramsUnblocked => Ok(()),
            };
            if let Err(e) = r {
                h3_error = Some(e);
                break;
            }
        }
        if h3_error.is_none() && lost.is_none() {
            if let Err(e) = after_reads(&mut q.conn, h3, expect, &mut self.answered, on) {
                h3_error = Some(e);
            }
        }
        // GOAWAY: streams at or above its id were not processed and may go elsewhere.
        if let Some(g) = h3.peer.goaway {
            let fail = &mut h3.fail;
            h3.streams.retain(|s| {
                let keep = u64::from(s.id) < g;
                if !keep {
                    h3.retried += u64::from(s.tag.counted());
                    fail.push((s.id, CANCELLED));
                    on(End::Unprocessed { tag: s.tag });
                }
                keep
            });
            for (id, c) in h3.fail.drain(..) {
                let _ = q.conn.recv_stream(id).stop(code(c));
                let _ = q.conn.send_stream(id).reset(code(c));
            }
            h3.pool.clear();
        }
        self.counts.retried += std::mem::take(&mut h3.retried);
        if let Some(e) = h3_error {
            let why = format!("HTTP/3 connection error: {} ({})", e.what, e.code.name());
            q.conn
                .close(now, code(e.code), Bytes::from_static(e.what.as_bytes()));
            self.closing = true;
            self.lost = Some(ConnError::new(ErrorClass::Protocol, why));
        } else if let Some(reason) = lost {
            let open = !h3.streams.is_empty();
            if self.connected && !open && closed_cleanly(&reason) {
                // The server closed an idle connection (H3_NO_ERROR): a normal end, to connect
                // anew from, not a failure.
                self.closed = true;
            } else {
                self.lost = Some(lost_error(reason, self.connected, open));
            }
        } else if self.connected && h3.peer.goaway.is_none() {
            fill_pool(&mut q.conn, h3, setup.max_streams as usize);
        }
        flush_own(&mut q.conn, &mut h3.own, &mut h3.acks);
        self.next_datagram(now);
        Ok(())
    }

    /// Fills `tx` with the next datagram if it is empty, and takes QUIC's next timer.
    fn next_datagram(&mut self, now: Instant) {
        let Some(q) = self.quic.as_mut() else { return };
        if self.tx.is_empty() {
            match q.conn.poll_transmit(now, self.setup.segments, &mut self.tx) {
                Some(t) => self.seg = t.segment_size.unwrap_or(0),
                None => self.tx.clear(),
            }
        }
        self.timeout = q.conn.poll_timeout();
    }

    /// The connection's end as the caller sees it, once.
    fn ended(&mut self) -> Result<(), ConnError> {
        match self.lost.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Folds QUIC's statistics since the last time into the counts.
    fn count_quic(&mut self) {
        if let Some(q) = self.quic.as_ref() {
            let now = Snap::of(&q.conn.stats());
            self.counts.add_quic(&now, &self.seen);
            self.seen = now;
        }
    }
}

/// Whether the server closed the connection with HTTP/3's "no error".
fn closed_cleanly(reason: &ConnectionError) -> bool {
    matches!(reason, ConnectionError::ApplicationClosed(c)
        if ErrorCode::from_u64(c.error_code.into_inner()) == ErrorCode::NoError)
}

/// QUIC's reason for the connection's end, in the engine's classes: before the handshake ended
/// it is a failed connect (a certificate refused, no answer), after it a timeout or the peer's
/// close.
fn lost_error(reason: ConnectionError, connected: bool, open: bool) -> ConnError {
    if !connected {
        let why = match reason {
            ConnectionError::TimedOut => "QUIC handshake: no answer from the server".to_string(),
            r => format!("QUIC handshake failed: {r}"),
        };
        return ConnError::new(ErrorClass::Connect, why);
    }
    match reason {
        ConnectionError::TimedOut => ConnError::new(
            ErrorClass::Timeout,
            "QUIC idle timeout: nothing from the server",
        ),
        ConnectionError::ApplicationClosed(c) => {
            let name = ErrorCode::from_u64(c.error_code.into_inner()).name();
            let class = if open {
                ErrorClass::Reset
            } else {
                ErrorClass::Protocol
            };
            ConnError::new(
                class,
                format!("HTTP/3 connection closed by the server ({name})"),
            )
        }
        r @ (ConnectionError::ConnectionClosed(_) | ConnectionError::Reset) => ConnError::new(
            ErrorClass::Reset,
            format!("QUIC connection closed by the server: {r}"),
        ),
        r => ConnError::new(ErrorClass::Protocol, format!("QUIC connection lost: {r}")),
    }
}

impl<T: Tag> ClientSession<T> for Conn<'_, T> {
    fn start(&mut self, now: Instant, since: Instant) {
        let setup = self.setup;
        self.h3 = H3::new(setup);
        self.tx.clear();
        self.lost = None;
        self.closing = false;
        self.closed = false;
        self.connected = false;
        self.starved = None;
        self.answered = 0;
        self.since = Some(since);
        self.seen = Snap::default();
        self.counts.connections += 1;
        let mut endpoint = Endpoint::new(setup.endpoint.clone(), None, false, None);
        match endpoint.connect(now, setup.quic.clone(), setup.remote, &setup.server_name) {
            Ok((handle, conn)) => {
                self.quic = Some(Box::new(Quic {
                    endpoint,
                    handle,
                    conn,
                }));
                self.next_datagram(now);
            }
            Err(e) => {
                self.quic = None;
                self.lost = Some(ConnError::new(
                    ErrorClass::Connect,
                    format!("QUIC connect: {e}"),
                ));
            }
        }
    }

    #[inline]
    fn room(&self) -> usize {
        if self.lost.is_some() || self.closing || self.closed {
            return 0;
        }
        self.h3.pool.len()
    }

    /// Room held back for a while, not gone: until the handshake ends (no stream can be opened
    /// before), and while QUIC's stream credit lags behind streams that ended (the server's
    /// MAX_STREAMS arrives after them). The open loop keeps its slots then.
    #[inline]
    fn held_by_output(&self) -> bool {
        self.quic.is_some()
            && self.lost.is_none()
            && !self.closing
            && !self.closed
            && self.h3.peer.goaway.is_none()
            && self.h3.streams.len() < self.setup.max_streams as usize
    }

    fn open(&mut self, now: Instant, _pos: usize, req: u32, tag: T) -> bool {
        let head = self.setup.requests[req as usize].head;
        self.open_stream(now, req as usize, None, head, tag)
    }

    /// The text is parsed as the server would (one request: its head, and the body its
    /// content-length gives) and encoded for a stream of its own, as the run's requests are.
    fn open_text(&mut self, now: Instant, text: &[u8], head: bool, tag: T) -> bool {
        if self.room() == 0 {
            return false;
        }
        let authority = &self.setup.authority;
        let Some(own) = self.last_text.get(text, |t| {
            crate::fields::request_of_text(t, "https", authority, Request::new)
                .map(|r| r.bytes.into_boxed_slice())
        }) else {
            return false;
        };
        self.open_stream(now, 0, Some(own), head, tag)
    }

    fn take_response(&mut self, into: &mut crate::kept::Kept) -> bool {
        self.h3.keep.as_mut().is_some_and(|k| k.take(into))
    }

    #[inline]
    fn out(&self) -> Transmit<'_> {
        Transmit {
            bytes: &self.tx,
            segment: self.seg,
            last_word: self.closing && !self.tx.is_empty(),
        }
    }

    #[inline]
    fn wrote(&mut self, now: Instant, _n: usize) {
        // A datagram goes whole or not at all: a short count is a datagram lost, which QUIC
        // recovers from.
        self.tx.clear();
        if !self.closing {
            self.next_datagram(now);
        }
    }

    fn feed<F: FnMut(End<T>)>(
        &mut self,
        now: Instant,
        buf: &[u8],
        on: &mut F,
    ) -> Result<Fed, ConnError> {
        let used = buf.len();
        let Some(q) = self.quic.as_mut() else {
            return Ok(Fed { used, close: false });
        };
        self.rx.extend_from_slice(buf);
        let datagram = self.rx.split();
        let mut scratch = Vec::new();
        let ev = q
            .endpoint
            .handle(now, self.setup.remote, None, None, datagram, &mut scratch);
        if let Some(DatagramEvent::ConnectionEvent(_, ev)) = ev {
            q.conn.handle_event(ev);
        }
        self.pump(now, on)?;
        self.ended()?;
        if self.closed {
            return Ok(Fed { used, close: true });
        }
        let close = self.h3.peer.goaway.is_some() && self.h3.streams.is_empty();
        if close && self.answered == 0 {
            let why = "HTTP/3 GOAWAY before any request was answered";
            return Err(ConnError::new(ErrorClass::Connect, why));
        }
        if close {
            self.counts.goaways += 1;
        }
        Ok(Fed { used, close })
    }

    fn eof<F: FnMut(End<T>)>(&mut self, _on: &mut F) -> Result<(), ConnError> {
        // A datagram socket has no end of stream: a connected one sees the server's port
        // closed (ICMP port unreachable) as a refused send or receive, which the caller
        // reports as this. Before the handshake ended, the connect failed.
        if self.connected {
            Err(ConnError::new(
                ErrorClass::Reset,
                "the server's UDP port refused",
            ))
        } else {
            let why = "QUIC handshake: the server's UDP port refused";
            Err(ConnError::new(ErrorClass::Connect, why))
        }
    }

    fn expire<F: FnMut(End<T>)>(&mut self, now: Instant, on: &mut F) -> Result<(), ConnError> {
        let timeout = self.setup.timeout;
        let Some(q) = self.quic.as_mut() else {
            return self.ended();
        };
        if self.timeout.is_some_and(|t| t <= now) {
            q.conn.handle_timeout(now);
        }
        // A handshake with no answer within the request timeout is a failed connect, as a TCP
        // connect is. QUIC's own handshake timeout is its idle timeout but never less than 3
        // PTOs (about 3 s at the initial RTT estimate), past the engine's give-up for a run
        // that makes no progress: a silent server (a socket that reads and never answers) was
        // 0 errors and 0 requests in a run that ended by itself.
        let since = self.since.unwrap_or(now);
        if !self.connected && now.saturating_duration_since(since) > timeout {
            let why = format!("QUIC handshake: no answer within {timeout:?}");
            return Err(ConnError::new(ErrorClass::Connect, why));
        }
        // A server that allows no stream (QUIC's initial_max_streams_bidi 0, never raised by
        // MAX_STREAMS) for longer than the timeout: nothing can be sent on this connection, a
        // failed connection (as HTTP/2's SETTINGS_MAX_CONCURRENT_STREAMS = 0). It was 0
        // requests and 0 errors in a run that gave up.
        let starved = self.connected
            && self.h3.pool.is_empty()
            && self.h3.streams.is_empty()
            && self.h3.peer.goaway.is_none();
        match (starved, self.starved) {
            (false, _) => self.starved = None,
            (true, None) => self.starved = Some(now),
            (true, Some(t)) if now.saturating_duration_since(t) > timeout => {
                let why = format!(
                    "HTTP/3 server allowed 0 streams for {timeout:?}: nothing could be sent"
                );
                return Err(ConnError::new(ErrorClass::Connect, why));
            }
            (true, Some(_)) => {}
        }
        // Requests older than the timeout are cancelled, each a timeout; the connection goes on.
        let h3 = &mut self.h3;
        let mut k = 0;
        while k < h3.streams.len() {
            if now.saturating_duration_since(h3.streams[k].tag.sent()) <= timeout {
                k += 1;
                continue;
            }
            let s = h3.streams.remove(k);
            if s.response.is_blocked() {
                h3.qpack.cancel_stream(u64::from(s.id), &mut h3.acks);
            }
            let _ = q.conn.recv_stream(s.id).stop(code(CANCELLED));
            let _ = q.conn.send_stream(s.id).reset(code(CANCELLED));
            on(End::Failed {
                tag: s.tag,
                failure: Failure::Timeout(timeout),
            });
        }
        self.pump(now, on)?;
        self.ended()?;
        if self.closed {
            // A clean close seen without a datagram to feed (no request was open): the caller
            // reconnects after it; nothing is lost.
            let why = "HTTP/3 connection closed by the server (H3_NO_ERROR)";
            return Err(ConnError::new(ErrorClass::Reset, why));
        }
        Ok(())
    }

    fn timer(&self) -> Option<Instant> {
        if self.closing || self.closed {
            return None;
        }
        if let (false, true, Some(since)) = (self.connected, self.quic.is_some(), self.since) {
            // The handshake's deadline (see `expire`).
            let deadline = since + self.setup.timeout;
            return Some(self.timeout.map_or(deadline, |t| t.min(deadline)));
        }
        self.timeout
    }

    fn drain<F: FnMut(T)>(&mut self, each: &mut F) {
        self.count_quic();
        self.counts.qpack_inserts += self.h3.qpack.table().insert_count();
        for s in self.h3.streams.drain(..) {
            each(s.tag);
        }
        self.h3.pool.clear();
        self.quic = None;
        self.timeout = None;
        if !self.closing {
            self.tx.clear();
        }
    }

    fn take_counts(&mut self, into: &mut client::Counts) {
        self.count_quic();
        into.h3.add(&std::mem::take(&mut self.counts));
    }

    fn reset_counts(&mut self) {
        self.counts = Counts::default();
        if let Some(q) = self.quic.as_ref() {
            self.seen = Snap::of(&q.conn.stats());
        }
    }
}

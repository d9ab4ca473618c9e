//! One interface for the client side of a connection, whatever its protocol: the load engine's
//! worker loop talks to a [`Session`] and never asks which protocol it speaks. A protocol is its
//! codec plus a session type implementing [`ClientSession`] (HTTP/1.1: [`h1::client::Conn`],
//! HTTP/2: [`h2::client::Conn`], HTTP/3: [`h3::client::Conn`], WebSocket: [`ws::client::Conn`],
//! FastCGI: [`fcgi::client::Conn`]),
//! one variant in [`Protocol`] and [`Session`], and one line in [`dispatch!`]: the loop, the
//! pacer, the recorder and the report stay as they are.
//!
//! Sans I/O like the codecs, on bytes and on time: the caller opens requests (each with a tag of
//! its own, handed back when the request ends), writes [`ClientSession::out`], feeds what it
//! read, and calls [`ClientSession::expire`] on its tick. Every call that may move a protocol's
//! clock takes the caller's `now` (as quinn-proto's do): a session never reads the clock, so a
//! test drives it with instants of its own making. A session reports each finished request as
//! an [`End`] with its tag, and the end of the connection as a [`ConnError`] or [`Fed::close`].
//!
//! Dispatch is a `match` over an enum, not a trait object: the worker's calls (one `open` per
//! request, one `feed` per read) are static and inlinable, and a run speaks one protocol, so the
//! branch is always predicted. Datagram transports (HTTP/3) use the same calls:
//! [`ClientSession::feed`] takes one read's bytes, which for QUIC is one datagram (the session
//! uses it whole, so the caller keeps no carry); [`ClientSession::out`] is then the next
//! datagram, whole (or several of one size, its [`Transmit::segment`], for one GSO send), and
//! [`ClientSession::wrote`] after one send drops it and makes the next (a datagram socket sends
//! all or nothing); [`ClientSession::timer`] says when a session must be called
//! ([`ClientSession::expire`]) without input. What a write needs to know beyond the bytes is in
//! the one [`Transmit`] `out` returns, so a protocol with its own needs adds a field there, not
//! a method to the interface.
//!
//! [`h1::client::Conn`]: crate::h1::client::Conn
//! [`h2::client::Conn`]: crate::h2::client::Conn
//! [`h3::client::Conn`]: crate::h3::client::Conn
//! [`ws::client::Conn`]: crate::ws::client::Conn
//! [`fcgi::client::Conn`]: crate::fcgi::client::Conn

mod run;

pub use crate::kept::Kept;
use crate::{fcgi, h1, h2, h3, ws};
/// The class of a failure: the model's, the one the engine counts and the document writes.
pub use barrage_model::load::ErrorClass;
use barrage_model::load::{Protocol as Asked, ProtocolFigures};
pub use run::{Request, Run, SetupError};
use std::fmt;
use std::time::{Duration, Instant};

/// The most input a session leaves unconsumed for the next feed (a partial HTTP/1.1 head, a
/// partial HTTP/2 frame): the caller's read buffer holds this much carried over plus a read.
pub const MAX_CARRY: usize = h1::parser::MAX_HEAD;

/// What a session needs of the caller's tag for a request.
pub trait Tag: Copy {
    /// Whether the request's figures count (it was written in the measured window): a session
    /// counts its protocol's per-request figures ([`Counts`]) only for those.
    fn counted(&self) -> bool;
    /// When the request was written: its timeout runs from here.
    fn sent(&self) -> Instant;
}

/// How a request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End<T> {
    /// A whole response: its final status, and whether its body was the expected one (always
    /// true when none is expected).
    Response { tag: T, status: u16, body_ok: bool },
    /// The request failed while the connection goes on.
    Failed { tag: T, failure: Failure },
    /// The server never processed it (HTTP/2: above a GOAWAY's last stream, REFUSED_STREAM):
    /// it may be sent again.
    Unprocessed { tag: T },
    /// Not an end: one reply message of a call that goes on (gRPC: each message as it
    /// arrives, so that a streaming call's messages are timed); the call ends later.
    Message { tag: T },
}

/// Why one request failed while its connection went on. `Copy`, formatted only when the
/// recorder keeps it as an example.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The server reset the request's stream (its error code's name).
    Reset(&'static str),
    /// The response broke the protocol on its stream (the code it was reset with).
    Malformed(&'static str),
    /// The response's header list passed the limit announced, in KiB.
    HeaderTooLarge { limit_kib: u32 },
    /// No response within the timeout: this side cancelled the request.
    Timeout(Duration),
    /// A gRPC call ended with this status (not the one expected: OK, or `--expect-status`'s),
    /// and the first bytes of its `grpc-message`.
    GrpcStatus(crate::grpc::Code, crate::grpc::Brief),
    /// A gRPC call had no status within its deadline (the timeout, sent as `grpc-timeout`):
    /// cancelled by this side and counted as gRPC's clients count it, `DEADLINE_EXCEEDED`.
    GrpcDeadline(Duration),
    /// A gRPC reply broke gRPC (its class and what went wrong, [`crate::grpc::Broken`]).
    Grpc(crate::grpc::Broken),
}

impl Failure {
    /// Whether this side ended the request (its timeout): no sign that the server works.
    pub fn cancelled_here(&self) -> bool {
        matches!(self, Failure::Timeout(_) | Failure::GrpcDeadline(_))
    }

    pub fn class(&self) -> ErrorClass {
        match self {
            Failure::Reset(_) => ErrorClass::StreamReset,
            Failure::Malformed(_) => ErrorClass::Protocol,
            Failure::HeaderTooLarge { .. } => ErrorClass::HeaderTooLarge,
            Failure::Timeout(_) => ErrorClass::Timeout,
            Failure::GrpcStatus(..) | Failure::GrpcDeadline(_) => ErrorClass::GrpcStatus,
            Failure::Grpc(broken) => broken.class,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Reset(code) => write!(f, "stream reset by the server ({code})"),
            Failure::Malformed(code) => write!(f, "malformed response stream ({code})"),
            Failure::HeaderTooLarge { limit_kib } => write!(
                f,
                "response header list larger than the {limit_kib} KiB announced"
            ),
            Failure::Timeout(t) => write!(f, "no response within {t:?} (stream cancelled)"),
            Failure::GrpcStatus(code, m) if m.is_empty() => {
                write!(f, "grpc-status {}", code.name())
            }
            Failure::GrpcStatus(code, m) => write!(f, "grpc-status {}: {m}", code.name()),
            Failure::GrpcDeadline(t) => write!(
                f,
                "grpc-status DEADLINE_EXCEEDED: no status within the deadline of {t:?} (call \
                 cancelled)"
            ),
            Failure::Grpc(broken) => write!(f, "a reply that broke gRPC: {}", broken.kind),
        }
    }
}

/// The connection's end: its class and what happened. Every request still open on it is lost
/// (the caller takes their tags back with [`ClientSession::drain`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnError {
    pub class: ErrorClass,
    pub why: String,
}

impl ConnError {
    pub fn new(class: ErrorClass, why: impl Into<String>) -> ConnError {
        ConnError {
            class,
            why: why.into(),
        }
    }
}

impl fmt::Display for ConnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.why)
    }
}

/// What a feed did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fed {
    /// Bytes used; the rest (at most [`MAX_CARRY`]) is to be fed again, in front of the next
    /// read.
    pub used: usize,
    /// The connection has nothing more to do (a response said `close`, the server is going away
    /// and every request has ended): the caller closes it and connects anew.
    pub close: bool,
}

/// The figures each protocol counts beyond requests, added up by the engine's recorder (which
/// never looks inside). A session counts its connection-level figures from [`ClientSession::start`]
/// or its last [`ClientSession::reset_counts`], and per-request ones for counted tags only.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    pub h2: h2::client::Counts,
    pub h3: h3::client::Counts,
    pub ws: ws::client::Counts,
}

impl Counts {
    pub fn add(&mut self, o: &Counts) {
        self.h2.add(&o.h2);
        self.h3.add(&o.h3);
        self.ws.add(&o.ws);
    }

    /// The document's protocol section for a run of the protocol `asked` (HTTP/2 that ALPN
    /// turned into HTTP/1.1 included: `alpn` says what was spoken, `h2c` in cleartext), with
    /// what derives from the sums over `requests_written`. None for HTTP/1.1, HTTP/1.0 and
    /// FastCGI.
    pub fn figures(
        &self,
        asked: &Asked,
        alpn: Option<&str>,
        requests_written: u64,
    ) -> Option<ProtocolFigures> {
        let mut f = match *asked {
            Asked::Http1 { .. } | Asked::Http10 { .. } | Asked::Fastcgi { .. } => return None,
            Asked::Http2 { streams, .. } => {
                ProtocolFigures::Http2(self.h2.figures(alpn.unwrap_or("h2c"), streams))
            }
            Asked::Ws { .. } => ProtocolFigures::Ws(self.ws.figures()),
            Asked::Http3 { streams } => ProtocolFigures::Http3(self.h3.figures(streams)),
            Asked::Grpc { streams, .. } => {
                ProtocolFigures::Grpc(self.h2.grpc_figures(alpn.unwrap_or("h2c"), streams))
            }
        };
        f.settle(requests_written);
        Some(f)
    }
}

/// The run's requests in sending order, addressed by position: one round, then its first
/// `depth - 1` again, so `depth` consecutive positions from anywhere in the round exist (and,
/// for HTTP/1.1, lie contiguously in [`h1::encoded::Encoded`]).
#[derive(Debug, Clone)]
pub struct Order {
    seq: Vec<u32>,
    round: usize,
}

impl Order {
    /// `order` is one round of request indices (not empty); `depth` the most requests opened
    /// at once on a connection (at least 1).
    pub fn new(order: &[u32], depth: usize) -> Order {
        assert!(!order.is_empty() && depth >= 1, "a round and a batch");
        let positions = order.len() + depth - 1;
        Order {
            seq: (0..positions).map(|p| order[p % order.len()]).collect(),
            round: order.len(),
        }
    }

    /// Positions in one round: a worker's cursor stays below this.
    pub fn round(&self) -> usize {
        self.round
    }

    /// The request (an index into the run's requests) at position `pos`.
    pub fn request_at(&self, pos: usize) -> u32 {
        self.seq[pos]
    }

    /// Every position, the round and the `depth - 1` after it.
    pub fn seq(&self) -> &[u32] {
        &self.seq
    }
}

/// What a session has to write now ([`ClientSession::out`]), in the spirit of quinn-proto's
/// `Transmit`: the bytes, and what the caller must know to write them. Two scalars beside a
/// slice, returned by value on every write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transmit<'a> {
    /// Bytes to write, in order; for a datagram session (HTTP/3), the next datagram, whole, or
    /// several of `segment` bytes each (the last one shorter), for one GSO send.
    pub bytes: &'a [u8],
    /// For a datagram session: the size of each datagram in `bytes` but the last; 0 when it
    /// holds one (and always for a byte stream).
    pub segment: usize,
    /// `bytes` is a last word for the peer after the session ended the connection with an
    /// error (WebSocket's Close, RFC 6455 §5.5.1 and §7.1.7; QUIC's CONNECTION_CLOSE): the
    /// caller writes it, as far as the socket takes it at once, before closing the socket.
    pub last_word: bool,
}

impl<'a> Transmit<'a> {
    /// Bytes of a byte stream, with nothing more to say about them.
    #[inline]
    pub fn stream(bytes: &'a [u8]) -> Transmit<'a> {
        Transmit {
            bytes,
            segment: 0,
            last_word: false,
        }
    }

    /// Nothing to write.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// One connection's client side, of any protocol. `now` is the caller's clock, read once per
/// turn of its loop: sessions never read one (see the module's notes).
pub trait ClientSession<T: Tag> {
    /// A new connection is up (its connect began at `since`; it is `now`): begin afresh (a
    /// preface, if the protocol has one, goes to [`ClientSession::out`]).
    fn start(&mut self, now: Instant, since: Instant);
    /// Requests [`ClientSession::open`] takes now (HTTP/1.1: the pipeline's free places, 0
    /// until a whole batch is answered in the closed loop; HTTP/2: streams under the limits).
    fn room(&self) -> usize;
    /// Whether `room` is held back only for a while: until the pending output is written, or,
    /// for HTTP/3, until the QUIC handshake ends or the server's stream credit catches up (a
    /// caller keeps its slot then, rather than giving it up).
    fn held_by_output(&self) -> bool;
    /// Sends the request at position `pos` of the run's [`Order`] (request `req`) at `now`;
    /// false when it cannot (no room). Requests opened together have consecutive positions.
    fn open(&mut self, now: Instant, pos: usize, req: u32, tag: T) -> bool;
    /// Sends a request given as HTTP/1.1 text rather than by its place in the run's table: a
    /// script's `request()` (wrk's API writes requests as text), `head` if it is a HEAD. False
    /// when there is no room, or when the protocol takes no text: only HTTP/1.1 does, and the
    /// engine refuses a script's `request()` hook on the others before a run starts.
    fn open_text(&mut self, _now: Instant, _text: &[u8], _head: bool, _tag: T) -> bool {
        false
    }
    /// Moves the oldest whole response kept for a script's `response()` hook and not yet taken
    /// into `into`, whose old buffers the session reuses (false: none; a session keeps them only
    /// when its setup asks: HTTP/1.1's `keep_responses`).
    fn take_response(&mut self, _into: &mut Kept) -> bool {
        false
    }
    /// What to write now (empty bytes: nothing), and how.
    fn out(&self) -> Transmit<'_>;
    /// The first `n` bytes of [`ClientSession::out`] were written, at `now`.
    fn wrote(&mut self, now: Instant, n: usize);
    /// Feeds one read, made at `now` (after the carry of the last feed): each request that
    /// ended goes to `on`.
    fn feed<F: FnMut(End<T>)>(
        &mut self,
        now: Instant,
        buf: &[u8],
        on: &mut F,
    ) -> Result<Fed, ConnError>;
    /// The peer closed the connection: Ok for a clean end (a close-delimited response ends
    /// here, to `on`), an error when requests were cut off.
    fn eof<F: FnMut(End<T>)>(&mut self, on: &mut F) -> Result<(), ConnError>;
    /// Periodic (the caller's tick): requests older than the timeout are cancelled (to `on`) or
    /// end the connection, whichever the protocol allows; timers due by `now` run.
    fn expire<F: FnMut(End<T>)>(&mut self, now: Instant, on: &mut F) -> Result<(), ConnError>;
    /// When the session must be called ([`ClientSession::expire`]) with no input: a protocol
    /// with timers of its own (QUIC's loss detection). None for TCP's protocols.
    fn timer(&self) -> Option<Instant> {
        None
    }
    /// The connection is gone: every open request's tag, and its figures folded into the counts.
    fn drain<F: FnMut(T)>(&mut self, each: &mut F);
    /// Adds the counts to `into` and starts them afresh.
    fn take_counts(&mut self, into: &mut Counts);
    /// Starts the counts afresh (the measured window begins).
    fn reset_counts(&mut self);
}

/// What every connection of a run shares, by protocol.
#[derive(Debug)]
pub enum Protocol {
    H1(h1::client::Setup),
    H2(h2::client::Setup),
    H3(h3::client::Setup),
    Ws(ws::client::Setup),
    Fcgi(fcgi::client::Setup),
}

impl Protocol {
    /// The session a run's connections speak, with its `Setup`: the one place a protocol of
    /// the load's (the model's) becomes wire's, so a new protocol is one arm here (the match is
    /// exhaustive: the compiler points at it) and its `Setup::for_run` in its own module.
    /// HTTP/2 is spoken when [`Run::h2`] says so; an HTTP/2 load that ALPN turned into HTTP/1.1
    /// speaks HTTP/1.1 (a gRPC one never gets here: the engine refuses it).
    pub fn speak(run: &Run<'_>) -> Result<Protocol, SetupError> {
        Ok(match run.load.protocol {
            Asked::Ws { .. } => Protocol::Ws(ws::client::Setup::for_run(run)),
            Asked::Http3 { .. } => Protocol::H3(h3::client::Setup::for_run(run)?),
            Asked::Fastcgi { .. } => Protocol::Fcgi(fcgi::client::Setup::for_run(run)),
            Asked::Http2 { .. } | Asked::Grpc { .. } if run.h2 => {
                Protocol::H2(h2::client::Setup::for_run(run))
            }
            Asked::Http1 { .. }
            | Asked::Http10 { .. }
            | Asked::Http2 { .. }
            | Asked::Grpc { .. } => Protocol::H1(h1::client::Setup::for_run(run)),
        })
    }

    /// A connection's session (idle until [`ClientSession::start`]).
    pub fn session<T: Tag>(&self) -> Session<'_, T> {
        match self {
            Protocol::H1(s) => Session::H1(h1::client::Conn::new(s)),
            Protocol::H2(s) => Session::H2(Box::new(h2::client::Conn::new(s))),
            Protocol::H3(s) => Session::H3(Box::new(h3::client::Conn::new(s))),
            Protocol::Ws(s) => Session::Ws(Box::new(ws::client::Conn::new(s))),
            Protocol::Fcgi(s) => Session::Fcgi(fcgi::client::Conn::new(s)),
        }
    }

    /// The run's distinct requests.
    pub fn requests(&self) -> usize {
        match self {
            Protocol::H1(s) => s.is_head.len(),
            Protocol::H2(s) => s.requests.len(),
            Protocol::H3(s) => s.requests.len(),
            Protocol::Ws(s) => s.messages.len(),
            Protocol::Fcgi(s) => s.encoded.len(),
        }
    }
}

/// A connection's session, of the run's protocol.
#[derive(Debug)]
pub enum Session<'r, T> {
    H1(h1::client::Conn<'r, T>),
    H2(Box<h2::client::Conn<'r, T>>),
    H3(Box<h3::client::Conn<'r, T>>),
    Ws(Box<ws::client::Conn<'r, T>>),
    Fcgi(fcgi::client::Conn<'r, T>),
}

/// Calls the same method on whichever session it is.
macro_rules! dispatch {
    ($self:ident, $s:ident => $call:expr) => {
        match $self {
            Session::H1($s) => $call,
            Session::H2($s) => $call,
            Session::H3($s) => $call,
            Session::Ws($s) => $call,
            Session::Fcgi($s) => $call,
        }
    };
}

impl<T: Tag> ClientSession<T> for Session<'_, T> {
    #[inline]
    fn start(&mut self, now: Instant, since: Instant) {
        dispatch!(self, s => s.start(now, since))
    }
    #[inline]
    fn room(&self) -> usize {
        dispatch!(self, s => s.room())
    }
    #[inline]
    fn held_by_output(&self) -> bool {
        dispatch!(self, s => s.held_by_output())
    }
    #[inline]
    fn open(&mut self, now: Instant, pos: usize, req: u32, tag: T) -> bool {
        dispatch!(self, s => s.open(now, pos, req, tag))
    }
    #[inline]
    fn open_text(&mut self, now: Instant, text: &[u8], head: bool, tag: T) -> bool {
        dispatch!(self, s => s.open_text(now, text, head, tag))
    }
    fn take_response(&mut self, into: &mut Kept) -> bool {
        dispatch!(self, s => s.take_response(into))
    }
    #[inline]
    fn out(&self) -> Transmit<'_> {
        dispatch!(self, s => s.out())
    }
    #[inline]
    fn wrote(&mut self, now: Instant, n: usize) {
        dispatch!(self, s => s.wrote(now, n))
    }
    #[inline]
    fn feed<F: FnMut(End<T>)>(
        &mut self,
        now: Instant,
        buf: &[u8],
        on: &mut F,
    ) -> Result<Fed, ConnError> {
        dispatch!(self, s => s.feed(now, buf, on))
    }
    fn eof<F: FnMut(End<T>)>(&mut self, on: &mut F) -> Result<(), ConnError> {
        dispatch!(self, s => s.eof(on))
    }
    fn expire<F: FnMut(End<T>)>(&mut self, now: Instant, on: &mut F) -> Result<(), ConnError> {
        dispatch!(self, s => s.expire(now, on))
    }
    fn timer(&self) -> Option<Instant> {
        dispatch!(self, s => s.timer())
    }
    fn drain<F: FnMut(T)>(&mut self, each: &mut F) {
        dispatch!(self, s => s.drain(each))
    }
    fn take_counts(&mut self, into: &mut Counts) {
        dispatch!(self, s => s.take_counts(into))
    }
    fn reset_counts(&mut self) {
        dispatch!(self, s => s.reset_counts())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_repeats_the_round_for_a_batch() {
        let o = Order::new(&[2, 0, 1], 3);
        assert_eq!(o.round(), 3);
        assert_eq!(o.seq(), &[2, 0, 1, 2, 0]);
        assert_eq!(o.request_at(4), 0);
        assert_eq!(Order::new(&[7], 1).seq(), &[7]);
    }

    #[test]
    fn failures_keep_their_classes_and_words() {
        let cases = [
            (
                Failure::Reset("CANCEL"),
                ErrorClass::StreamReset,
                "stream reset by the server (CANCEL)",
            ),
            (
                Failure::Malformed("PROTOCOL_ERROR"),
                ErrorClass::Protocol,
                "malformed response stream (PROTOCOL_ERROR)",
            ),
            (
                Failure::HeaderTooLarge { limit_kib: 64 },
                ErrorClass::HeaderTooLarge,
                "response header list larger than the 64 KiB announced",
            ),
            (
                Failure::Timeout(Duration::from_secs(2)),
                ErrorClass::Timeout,
                "no response within 2s (stream cancelled)",
            ),
        ];
        for (f, class, words) in cases {
            assert_eq!(f.class(), class);
            assert_eq!(f.to_string(), words);
        }
    }

    /// Each protocol's counts become its own section of the document, with the means derived
    /// from the sums; HTTP/1.1 has none.
    #[test]
    fn counts_become_the_asked_protocols_section() {
        use barrage_model::load::{Http2, Http3, Ws};
        let mut c = Counts::default();
        c.h2.rst_by_code[8] = 2; // CANCEL
        (c.h2.streams, c.h2.connections, c.h2.min_limit) = (40, 2, 64);
        (c.h2.header_bytes_received, c.h2.header_bytes_decoded) = (100, 400);
        (c.ws.handshakes, c.ws.handshake_us) = (4, 1_000);
        c.ws.closes = vec![(1000, 3)];
        (c.h3.handshakes, c.h3.handshake_us) = (2, 3_000);
        (c.h3.datagrams_sent, c.h3.datagrams_received) = (300, 450);
        let http1 = Asked::Http1 {
            pipeline: 1,
            keepalive: true,
        };
        assert_eq!(c.figures(&http1, None, 10), None);
        let h2 = c.figures(
            &Asked::Http2 {
                streams: 100,
                window: 1 << 16,
            },
            Some("h2"),
            40,
        );
        let h = Http2::of(&h2).expect("an http2 section");
        assert_eq!((h.protocol.as_str(), h.streams_asked), ("h2", 100));
        assert_eq!(h.server_stream_limit, Some(64));
        assert_eq!(h.rst_stream.get("CANCEL"), Some(&2));
        assert_eq!(h.hpack_saving, 0.75);
        let ws = c.figures(&Asked::ws(1), None, 40);
        let w = Ws::of(&ws).expect("a ws section");
        assert_eq!(
            (w.handshake_total_us, w.handshake_mean_us),
            (Some(1_000), 250.0)
        );
        assert_eq!(w.closes.get("1000"), Some(&3));
        let h3 = c.figures(&Asked::Http3 { streams: 8 }, None, 250);
        let h = Http3::of(&h3).expect("an http3 section");
        assert_eq!(
            (h.handshake_mean_us, h.datagrams_per_request),
            (1_500.0, 3.0)
        );
        assert_eq!(h.streams_asked, 8);
    }
}

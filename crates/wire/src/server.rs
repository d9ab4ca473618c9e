//! One interface for the server side of a multiplexed connection, whatever its protocol:
//! `barrage serve` answers HTTP/2 ([`h2::server::Server`]) and HTTP/3 ([`h3::server::Server`])
//! streams — and gRPC over them — and FastCGI's requests ([`fcgi::server::Server`]) through [`ServerSession`] and never asks which protocol it
//! speaks. A session turns what it was fed into request [`Event`]s (a head, body bytes, the end,
//! a cancel) and takes the answer back (a head, body bytes under its own flow control, trailers,
//! a reset).
//!
//! Sans I/O, on bytes and on time: a byte-stream protocol (HTTP/2, FastCGI) takes its input in
//! [`ServerSession::next`] and appends its output to the caller's buffer; the datagram endpoint
//! (HTTP/3, one for every connection of a UDP socket, as quinn-proto's) takes datagrams through
//! its own `handle(now, remote, datagram)` and gives its datagrams out through
//! `poll_transmit(now, ..)`, so its `next` only hands out the events those queued. A call that
//! may move a protocol's clock takes the caller's `now`: no session reads the clock.
//!
//! A byte-stream session is also a [`StreamServer`]: its first words, a read's start, its end,
//! its bound on what a client may make it hold, its last words.
//!
//! HTTP/1.1 answers one request at a time in the order they came, and a WebSocket carries
//! messages rather than requests: neither has streams to name, so they stay beside this interface
//! (the server's `conn` module); what they share with it is the answer of each route.
//!
//! [`h2::server::Server`]: crate::h2::server::Server
//! [`h3::server::Server`]: crate::h3::server::Server
//! [`fcgi::server::Server`]: crate::fcgi::server::Server

use std::fmt;
use std::hash::Hash;
use std::time::Instant;

/// A request's header section, whatever the protocol said it in.
#[derive(Debug)]
pub struct Head<'a> {
    pub method: &'a str,
    /// `:path`, query included.
    pub path: &'a str,
    pub authority: &'a str,
    pub content_length: Option<u64>,
    /// The request has no body (HTTP/2's END_STREAM on its HEADERS); false when the protocol
    /// cannot tell before the stream's end (HTTP/3's events carry no such flag).
    pub end: bool,
    /// The regular fields (names lower-case, pseudo-header fields left out).
    pub fields: Fields<'a>,
}

/// A request's regular header fields in the form its protocol keeps them.
#[derive(Debug, Clone, Copy)]
pub enum Fields<'a> {
    /// HTTP/2's decoded block, borrowed from the session's buffer.
    H2(crate::h2::server::FieldsRef<'a>),
    /// A list of owned pairs (HTTP/3's QPACK decoder gives them so).
    List(&'a [(String, String)]),
}

impl<'a> Fields<'a> {
    /// The fields in order.
    pub fn iter(self) -> impl Iterator<Item = (&'a str, &'a [u8])> + 'a {
        let (h2, list) = match self {
            Fields::H2(f) => (Some(f.iter()), None),
            Fields::List(l) => (
                None,
                Some(l.iter().map(|(n, v)| (n.as_str(), v.as_bytes()))),
            ),
        };
        h2.into_iter().flatten().chain(list.into_iter().flatten())
    }

    /// The first field named `name` (lower-case).
    pub fn get(self, name: &str) -> Option<&'a [u8]> {
        self.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }
}

/// Body bytes as a session hands them out: borrowed from the caller's input (a byte stream's
/// DATA frame), or moved out of the session (the datagram endpoint reassembles a stream's bytes
/// itself). Either way the caller may answer through the session while it holds them.
#[derive(Debug)]
pub enum Chunk<'b> {
    Borrowed(&'b [u8]),
    Owned(Vec<u8>),
}

impl std::ops::Deref for Chunk<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Chunk::Borrowed(b) => b,
            Chunk::Owned(v) => v,
        }
    }
}

/// What the peer's input meant for the caller, one happening at a time: a head borrows the
/// session (`'s`: route it before answering), body bytes the input (`'b`).
#[derive(Debug)]
pub enum Event<'s, 'b, Id> {
    /// A request's header section.
    Request { id: Id, head: Head<'s> },
    /// The next bytes of a request's body; `end` with its last bytes, or alone (empty `data`)
    /// when the end came without data (a trailer section, a bare FIN).
    Body { id: Id, data: Chunk<'b>, end: bool },
    /// The request's header section passed the limit announced: answer 431 (its body, if any,
    /// is dropped).
    TooLarge { id: Id },
    /// The client reset or stopped the stream, it broke the protocol (the session reset it
    /// already), or its connection ended: nothing more goes out on it.
    Gone { id: Id },
    /// Body bytes the session refused for want of room may go now (once per refusal).
    Writable { id: Id },
}

/// Why this side ends a stream early: each protocol says it with its own code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Something went wrong answering (HTTP/2 INTERNAL_ERROR, HTTP/3 H3_INTERNAL_ERROR).
    Internal,
    /// The answer is abandoned (CANCEL, H3_REQUEST_CANCELLED).
    Cancel,
    /// The request is more than this side takes (HTTP/2 CANCEL, H3_EXCESSIVE_LOAD).
    TooLarge,
}

/// The connection broke the protocol: the session wrote its last word (GOAWAY) and the caller
/// closes the connection once that is out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    /// The protocol's error code, by name.
    pub code: &'static str,
    pub what: &'static str,
}

impl fmt::Display for Broken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.what, self.code)
    }
}

/// What [`ServerSession::next`] gives: the bytes used and the event, or the connection's end.
pub type Next<'s, 'b, Id> = Result<(usize, Option<Event<'s, 'b, Id>>), Broken>;

/// The server side of a connection (or endpoint) whose requests are streams named by
/// [`ServerSession::Id`]. Answers are written with `out` as the output buffer: a byte-stream
/// session appends its frames there, the datagram endpoint keeps them per stream until its
/// `poll_transmit` (and ignores `out`).
pub trait ServerSession {
    /// What names a request: HTTP/2's stream id, HTTP/3's connection and stream (ordered:
    /// the server keeps its timers by it).
    type Id: Copy + Eq + Ord + Hash + fmt::Debug;
    /// The protocol's name as a request line would give it ("HTTP/2").
    const VERSION: &'static str;
    /// The most body bytes worth offering [`ServerSession::send_data`] at once (what one
    /// stream's buffer or a few frames take).
    const CHUNK: usize;

    /// The next happening in `input` (a byte stream's unread bytes; the datagram endpoint's
    /// queue ignores it): the bytes used and the event, `None` when `input` holds no more. Frames
    /// the protocol answers itself (SETTINGS, PING, window updates) go to `out` on the way.
    fn next<'s, 'b>(&'s mut self, input: &'b [u8], out: &mut Vec<u8>) -> Next<'s, 'b, Self::Id>;

    /// A response's header section: `:status` and `fields` (names lower-case); with `end` the
    /// stream ends there.
    fn respond(
        &mut self,
        out: &mut Vec<u8>,
        id: Self::Id,
        status: u16,
        fields: &[(&str, &[u8])],
        end: bool,
    );

    /// Sends what the protocol's flow control allows of `data`, ending the stream after it with
    /// `end` when all of it went: the bytes taken (the caller keeps the rest for
    /// [`Event::Writable`] or its next turn).
    fn send_data(&mut self, out: &mut Vec<u8>, id: Self::Id, data: &[u8], end: bool) -> usize;

    /// Ends the stream with a trailer section (gRPC's `grpc-status`).
    fn send_trailers(&mut self, out: &mut Vec<u8>, id: Self::Id, fields: &[(&str, &[u8])]);

    /// Body bytes [`ServerSession::send_data`] would take now (0: none, or the stream is gone).
    fn room(&self, id: Self::Id) -> usize;

    /// Whether anything may still be sent on the stream (not ended, not reset).
    fn is_open(&self, id: Self::Id) -> bool;

    /// Ends the stream early from this side (the client sees its request fail).
    fn stop(&mut self, out: &mut Vec<u8>, id: Self::Id, why: Stop);

    /// Stops reading the request's body (`true`) until called again with `false`: a caller that
    /// cannot pass the body on yet holds nothing more, and the protocol's flow control stops the
    /// client. Resuming may bring events.
    fn hold(&mut self, now: Instant, id: Self::Id, held: bool);

    /// Ends the whole connection of the stream at once, as a server closing would (every other
    /// request on it ends unanswered): `barrage serve`'s `/fault/close`.
    fn close(&mut self, out: &mut Vec<u8>, id: Self::Id, now: Instant);

    /// Answers the stream with a header section no decoder accepts (a connection error for the
    /// client): `barrage serve`'s `/fault/garbage`.
    fn garbage(&mut self, out: &mut Vec<u8>, id: Self::Id);
}

/// How a byte-stream session ends its connection from this side ([`StreamServer::shut`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shut<'a> {
    /// The server is shutting down: no new request is taken, those open are still answered
    /// (HTTP/2's GOAWAY NO_ERROR).
    Drain,
    /// The client made the server hold more than [`StreamServer::hold_limit`] (it sends and
    /// does not read): the connection ends, with these words for the client (HTTP/2's GOAWAY
    /// ENHANCE_YOUR_CALM).
    Overload(&'a [u8]),
}

/// A [`ServerSession`] over one byte stream (TCP, TLS): what `barrage serve`'s connection loop
/// asks of it beyond requests and answers, so that it runs any such protocol as it runs
/// HTTP/2 and a new one adds no loop. (The datagram endpoint has its own: HTTP/3's.)
pub trait StreamServer: ServerSession {
    /// What this side says first, before any input (HTTP/2's SETTINGS).
    fn start(&mut self, out: &mut Vec<u8>);
    /// One read's input is about to be fed (HTTP/2: the window credit written before it is
    /// now the client's to use).
    fn begin_read(&mut self) {}
    /// The session ended the connection (a connection error written, a fault): close once the
    /// output is out.
    fn ended(&self) -> bool;
    /// The most request body the answers may hold for a client that does not read their
    /// replies before the connection is shut with [`Shut::Overload`] (HTTP/2: the connection
    /// window announced).
    fn hold_limit(&self) -> usize;
    /// Ends the connection from this side: see [`Shut`].
    fn shut(&mut self, out: &mut Vec<u8>, how: Shut<'_>);
}

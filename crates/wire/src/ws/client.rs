//! A WebSocket client connection behind [`ClientSession`]: on [`ClientSession::start`] it writes
//! the HTTP/1.1 upgrade request (a fresh random key per connection), checks the 101 and its
//! `Sec-WebSocket-Accept`, and from then on each request the worker opens is one message sent
//! (masked, text when the payload is UTF-8, binary else) that ends when the next message from the
//! server arrives: replies are matched with messages in order (an echo server answers in order),
//! up to `depth` in flight. Pings are answered by the codec's [`Session`]. A close from the
//! server, or a frame that breaks RFC 6455, ends the connection and every message in flight with
//! it; closes are counted by code. This side's Close (the reply to the server's, or the one that
//! fails the connection) is left in the output as its last word ([`Transmit::last_word`]), for
//! the caller to write before it closes the socket. A handshake that fails (no 101 within the
//! timeout, a wrong `Sec-WebSocket-Accept`, the connection closed before it) is a failed
//! connection, [`ErrorClass::Connect`]: no message was in flight to count it; so is a
//! connection that ends (a Close, the end of the stream, a broken frame) before it carried any
//! message. A message from the server with none in flight (two replies to one message) is
//! [`ErrorClass::Unasked`]: it answers no message, and ends the connection, whose pairing of
//! replies is lost. A server that pings faster than it reads gets no pongs past `PONG_BACKLOG`
//! of unwritten output.
//!
//! Replies are checked as they stream ([`Session::streaming`]): each piece is compared with the
//! bytes the reply must equal (its own message, an echo, unless [`Setup::echo`] is off; or
//! [`Setup::expect_body`]) and forgotten, so a connection holds no reply whatever its size, and
//! a reply past [`Limits::max_message`] ends the connection as
//! [`ErrorClass::MessageTooLarge`].
//!
//! Nothing is allocated per message: the output buffer, the queue of open messages and the copy
//! of each read keep their capacity. The copy is there because the codec unmasks in place and
//! the session interface lends its input read-only; a server's frames are never masked, so it
//! only costs the memcpy of what was read.

use crate::client::{ClientSession, ConnError, End, ErrorClass, Fed, Tag, Transmit, MAX_CARRY};
use crate::kept::{Keeper, Kept};
use crate::ws::handshake::{self, Key};
use crate::ws::{Event, Limits, Session, WsError};
use barrage_model::rng::SplitMix64;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

mod reply;
mod setup;
use reply::Reply;
use std::time::{Duration, Instant};

/// Unwritten output past which a ping goes unanswered (see [`Conn`]'s `frames`).
const PONG_BACKLOG: usize = 64 * 1024;

/// The request index of a message of its own (a script's, given as text), in flight in `own`.
const OWN: u32 = u32::MAX;

/// What every WebSocket connection of a run shares.
#[derive(Debug)]
pub struct Setup {
    /// The upgrade request's `Host` field and path (with its query).
    pub host: String,
    pub path: String,
    /// Message i's payload, and whether it goes as text (it is UTF-8) or binary.
    pub messages: Vec<(Vec<u8>, bool)>,
    /// Messages in flight per connection (the pipeline depth).
    pub depth: usize,
    pub timeout: Duration,
    /// The reply every message must get, byte for byte (instead of its echo).
    pub expect_body: Option<Vec<u8>>,
    /// Without `expect_body`: each reply must be its own message, byte for byte (an echo);
    /// off, any reply will do.
    pub echo: bool,
    /// The largest reply (all its frames) and frame accepted.
    pub limits: Limits,
    /// Header lines for the upgrade request (`-H`), checked by the config: none of the
    /// handshake's own; a `Host` replaces the URL's, a `Sec-WebSocket-Protocol` offers
    /// subprotocols the server may choose from.
    pub headers: Vec<(String, String)>,
    /// Keep every whole reply for a script's `response()` hook
    /// ([`ClientSession::take_response`]).
    pub keep_responses: bool,
    /// Where a connection's key and masks come from if the system's random source fails: the
    /// caller's seed (the session reads no clock), advanced by every connection that falls
    /// back on it, so that no two of them share a key.
    pub seed: AtomicU64,
}

impl Setup {
    /// Message payloads, each sent as text when it is valid UTF-8.
    pub fn messages(bodies: &[Vec<u8>]) -> Vec<(Vec<u8>, bool)> {
        bodies
            .iter()
            .map(|b| (b.clone(), std::str::from_utf8(b).is_ok()))
            .collect()
    }

    /// The bytes the reply to message `req` must equal, if any; `own` is the oldest message of
    /// its own in flight (a script's), which [`OWN`] names.
    #[inline]
    fn want<'a>(&'a self, req: u32, own: Option<&'a [u8]>) -> Option<&'a [u8]> {
        match &self.expect_body {
            Some(b) => Some(b),
            None if self.echo && req == OWN => own,
            None if self.echo => self.messages.get(req as usize).map(|m| &m.0[..]),
            None => None,
        }
    }
}

/// What WebSocket connections count beyond messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Opening handshakes completed, and their time in total (from the connect's start to the
    /// 101, so the TCP connect is in it), each in whole µs as the document adds them.
    pub handshakes: u64,
    pub handshake_us: u64,
    /// Closes from the server, by code (0: a close without one), in the order first seen.
    pub closes: Vec<(u16, u64)>,
}

impl Counts {
    pub fn add(&mut self, o: &Counts) {
        self.handshakes += o.handshakes;
        self.handshake_us += o.handshake_us;
        for &(code, n) in &o.closes {
            self.close(code, n);
        }
    }

    /// The load document's `ws` section of these counts (sums; the caller settles what derives
    /// from them).
    pub fn figures(&self) -> barrage_model::load::Ws {
        barrage_model::load::Ws {
            handshakes: self.handshakes,
            handshake_mean_us: 0.0,
            handshake_total_us: Some(self.handshake_us),
            closes: self
                .closes
                .iter()
                .map(|(c, n)| (c.to_string(), *n))
                .collect(),
        }
    }

    fn close(&mut self, code: u16, n: u64) {
        match self.closes.iter_mut().find(|e| e.0 == code) {
            Some(e) => e.1 += n,
            None => self.closes.push((code, n)),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Not started, or the connection is gone.
    Idle,
    /// The upgrade request is out; waiting for the 101.
    Upgrading,
    Open,
}

/// One WebSocket connection's client state.
#[derive(Debug)]
pub struct Conn<'r, T> {
    setup: &'r Setup,
    state: State,
    key: Key,
    /// When the connect began (None before the first start).
    since: Option<Instant>,
    ws: Session,
    /// What to write: the upgrade request, messages, pongs.
    wbuf: Vec<u8>,
    wpos: usize,
    /// This read's frames, copied so the codec may work on them in place.
    rbuf: Vec<u8>,
    /// Messages in flight, oldest first: each one's tag and request index ([`OWN`]: the next
    /// of `own`).
    inflight: VecDeque<(T, u32)>,
    /// Messages of their own in flight (a script's), oldest first, for their echo's check.
    own: VecDeque<Vec<u8>>,
    /// Whole replies kept for a script's `response()` hook, and the one in progress.
    keep: Option<Keeper>,
    kept: Option<Kept>,
    /// A script's last request text and its body (the message).
    last_text: crate::fields::LastText<Vec<u8>>,
    /// The reply in progress, checked so far.
    reply: Reply,
    /// A reply has ended on this connection.
    answered: bool,
    counts: Counts,
}

impl<'r, T> Conn<'r, T> {
    pub fn new(setup: &'r Setup) -> Conn<'r, T> {
        Conn {
            setup,
            state: State::Idle,
            key: [0; 24],
            since: None,
            ws: Session::client(setup.limits, 1).streaming(),
            wbuf: Vec::new(),
            wpos: 0,
            rbuf: Vec::new(),
            inflight: VecDeque::with_capacity(setup.depth),
            own: VecDeque::new(),
            keep: setup.keep_responses.then(Keeper::default),
            kept: None,
            last_text: crate::fields::LastText::default(),
            reply: Reply::default(),
            answered: false,
            counts: Counts::default(),
        }
    }

    /// Starts the connection with this nonce (its key) and masking seed: [`ClientSession::start`]
    /// takes both from the system's random source (or the setup's `seed`); tests give their own.
    pub fn start_with(&mut self, since: Instant, nonce: [u8; 16], seed: u64) {
        self.state = State::Upgrading;
        self.since = Some(since);
        self.key = handshake::client_key(nonce);
        self.ws = Session::client(self.setup.limits, seed).streaming();
        self.inflight.clear();
        self.own.clear();
        self.kept = None;
        if let Some(k) = self.keep.as_mut() {
            k.clear();
        }
        self.reply = Reply::default();
        self.answered = false;
        self.wbuf.clear();
        self.wpos = 0;
        handshake::write_request(
            &mut self.wbuf,
            &self.setup.host,
            &self.setup.path,
            &self.key,
            &self.setup.headers,
        );
    }

    /// The frames in `buf` (after the handshake): each message ends the oldest one in flight.
    fn frames<F: FnMut(End<T>)>(&mut self, buf: &[u8], on: &mut F) -> Result<usize, ConnError>
    where
        T: Tag,
    {
        let Conn {
            setup,
            ws,
            wbuf,
            wpos,
            rbuf,
            inflight,
            own,
            keep,
            kept,
            reply,
            answered,
            counts,
            ..
        } = self;
        rbuf.clear();
        rbuf.extend_from_slice(buf);
        let mut pos = 0;
        loop {
            let before = wbuf.len();
            let (n, ev) = match ws.next(&mut rbuf[pos..], wbuf) {
                Ok(r) => r,
                Err(e) => {
                    ws.fail(wbuf, &e);
                    // A data message's text fault with nothing in flight: the message is
                    // unasked whatever its bytes. Reads cut otherwise would have handed out its
                    // valid first piece (unasked) before the fault; the class must not depend
                    // on how reads cut the bytes.
                    if inflight.is_empty() && e == WsError::InvalidUtf8 {
                        return Err(ConnError::new(ErrorClass::Unasked, UNASKED));
                    }
                    let busy = match e {
                        WsError::FrameTooLarge { .. } | WsError::MessageTooLarge { .. } => {
                            ErrorClass::MessageTooLarge
                        }
                        _ => ErrorClass::Protocol,
                    };
                    // Bytes with nothing in flight answer nothing: unasked.
                    let class = end_class(!inflight.is_empty(), *answered, busy, None)
                        .unwrap_or(ErrorClass::Unasked);
                    return Err(ConnError::new(class, e.to_string()));
                }
            };
            pos += n;
            match ev {
                None => return Ok(pos),
                Some(Event::Part { data, fin, .. }) => {
                    let Some(&(tag, req)) = inflight.front() else {
                        return Err(ConnError::new(ErrorClass::Unasked, UNASKED));
                    };
                    let want = setup.want(req, own.front().map(|m| &m[..]));
                    reply.piece(want, data);
                    if let Some(keep) = keep.as_mut() {
                        kept.get_or_insert_with(|| keep.fresh()).body(data);
                    }
                    if fin {
                        let body_ok = reply.end(want);
                        inflight.pop_front();
                        if req == OWN {
                            own.pop_front();
                        }
                        if let Some(keep) = keep.as_mut() {
                            // A reply is status 200 with no fields, as the run counts it.
                            let mut k = kept.take().unwrap_or_else(|| keep.fresh());
                            k.status = 200;
                            k.head.extend_from_slice(b"WebSocket\r\n");
                            keep.done(k);
                        }
                        *answered = true;
                        on(End::Response {
                            tag,
                            status: 200,
                            body_ok,
                        });
                    }
                }
                Some(Event::Message { .. }) => unreachable!("a streaming session"),
                Some(Event::Ping(_)) => {
                    // A server that pings and does not read would otherwise grow the unwritten
                    // pongs without bound: past the backlog, this ping goes unanswered (RFC
                    // 6455 §5.5.3 lets a side answer only the latest of the pings it has not
                    // answered yet; the next one after the backlog drains is).
                    if before - *wpos >= PONG_BACKLOG {
                        wbuf.truncate(before);
                    }
                }
                Some(Event::Pong(_)) => {}
                Some(Event::Close { code, reason }) => {
                    let code = code.unwrap_or(0);
                    counts.close(code, 1);
                    let busy = match code {
                        1002 | 1003 | 1007 | 1009 => ErrorClass::Protocol,
                        _ => ErrorClass::Reset,
                    };
                    let class = end_class(!inflight.is_empty(), *answered, busy, None)
                        .unwrap_or(ErrorClass::Reset);
                    let when = if class == ErrorClass::Connect {
                        " before any message"
                    } else {
                        ""
                    };
                    return Err(ConnError::new(
                        class,
                        format!("closed by the server with code {code} ({reason}){when}"),
                    ));
                }
            }
        }
    }
}

/// Why a message from the server is [`ErrorClass::Unasked`].
const UNASKED: &str = "a message from the server with none in flight (a reply to no message)";

/// The class of an end of the connection (`busy` while messages are in flight, which it fails).
/// With none in flight nothing else would count it: before the connection carried any message
/// it is a failed connection; after, `idle` (None: no error, as a server may close an idle
/// connection).
fn end_class(
    inflight: bool,
    answered: bool,
    busy: ErrorClass,
    idle: Option<ErrorClass>,
) -> Option<ErrorClass> {
    match (inflight, answered) {
        (true, _) => Some(busy),
        (false, false) => Some(ErrorClass::Connect),
        (false, true) => idle,
    }
}

/// A random nonce and masking seed from the system (RFC 6455 §4.1 and §10.3 want both
/// unpredictable); if the system's source fails, the next of the caller's `seed`.
fn random(seed: &AtomicU64) -> ([u8; 16], u64) {
    use ring::rand::SecureRandom;
    let mut b = [0u8; 24];
    if ring::rand::SystemRandom::new().fill(&mut b).is_err() {
        return drawn(seed);
    }
    split(&b)
}

/// The next nonce and masking seed from the caller's `seed`, advanced for the next connection:
/// SplitMix64 over a counter (three draws a connection), distinct and well-mixed words for
/// every draw.
fn drawn(seed: &AtomicU64) -> ([u8; 16], u64) {
    let at = seed.fetch_add(SplitMix64::GAMMA.wrapping_mul(3), Ordering::Relaxed);
    let mut r = SplitMix64(at);
    let mut b = [0u8; 24];
    for chunk in b.chunks_exact_mut(8) {
        chunk.copy_from_slice(&r.next_u64().to_le_bytes());
    }
    split(&b)
}

fn split(b: &[u8; 24]) -> ([u8; 16], u64) {
    let mut nonce = [0u8; 16];
    nonce.copy_from_slice(&b[..16]);
    let seed = u64::from_le_bytes(b[16..].try_into().expect("8 bytes"));
    (nonce, seed)
}

impl<T: Tag> ClientSession<T> for Conn<'_, T> {
    fn start(&mut self, _now: Instant, since: Instant) {
        let (nonce, seed) = random(&self.setup.seed);
        self.start_with(since, nonce, seed);
    }

    #[inline]
    fn room(&self) -> usize {
        if self.state != State::Open || self.ws.sent_close() {
            return 0;
        }
        self.setup.depth.saturating_sub(self.inflight.len())
    }

    #[inline]
    fn held_by_output(&self) -> bool {
        self.state == State::Upgrading || self.wpos < self.wbuf.len()
    }

    #[inline]
    fn open(&mut self, _now: Instant, _pos: usize, req: u32, tag: T) -> bool {
        if self.room() == 0 {
            return false;
        }
        let Some((payload, text)) = self.setup.messages.get(req as usize) else {
            return false;
        };
        self.ws.send(&mut self.wbuf, *text, payload);
        self.inflight.push_back((tag, req));
        true
    }

    /// The text's body (its content-length's worth) is one message, text when it is UTF-8: the
    /// request line and fields are the upgrade's, made once per connection from the URL and
    /// `-H`.
    fn open_text(&mut self, _now: Instant, text: &[u8], _head: bool, tag: T) -> bool {
        if self.room() == 0 {
            return false;
        }
        // A text that repeats the last is not taken apart again (its fields would be parsed
        // and dropped for every message).
        let Some(body) = self.last_text.get(text, |t| {
            crate::fields::request_of_text(t, "http", "", |_, _, _, _, _, b| b.to_vec())
        }) else {
            return false;
        };
        self.ws
            .send(&mut self.wbuf, std::str::from_utf8(&body).is_ok(), &body);
        self.inflight.push_back((tag, OWN));
        self.own.push_back(body);
        true
    }

    fn take_response(&mut self, into: &mut Kept) -> bool {
        self.keep.as_mut().is_some_and(|k| k.take(into))
    }

    #[inline]
    fn out(&self) -> Transmit<'_> {
        Transmit {
            bytes: &self.wbuf[self.wpos..],
            segment: 0,
            last_word: self.ws.sent_close() && self.wpos < self.wbuf.len(),
        }
    }

    #[inline]
    fn wrote(&mut self, _now: Instant, n: usize) {
        self.wpos += n;
        if self.wpos >= self.wbuf.len() {
            self.wpos = 0;
            self.wbuf.clear();
        }
    }

    fn feed<F: FnMut(End<T>)>(
        &mut self,
        now: Instant,
        buf: &[u8],
        on: &mut F,
    ) -> Result<Fed, ConnError> {
        let mut start = 0;
        if self.state == State::Upgrading {
            let offered = self
                .setup
                .headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case("sec-websocket-protocol"))
                .map_or(&b""[..], |(_, v)| v.as_bytes());
            match handshake::check_response(buf, &self.key, offered) {
                Ok(None) if buf.len() >= MAX_CARRY => {
                    return Err(ConnError::new(
                        ErrorClass::Connect,
                        "WebSocket handshake: the upgrade response's head is too large",
                    ))
                }
                Ok(None) => {
                    return Ok(Fed {
                        used: 0,
                        close: false,
                    })
                }
                Ok(Some(n)) => {
                    self.state = State::Open;
                    self.counts.handshakes += 1;
                    let since = self.since.unwrap_or(now);
                    let took = now.saturating_duration_since(since);
                    self.counts.handshake_us += took.as_micros() as u64;
                    start = n;
                }
                Err(e) => {
                    return Err(ConnError::new(
                        ErrorClass::Connect,
                        format!("WebSocket handshake: {e}"),
                    ))
                }
            }
        }
        if self.state != State::Open {
            return Err(ConnError::new(
                ErrorClass::Protocol,
                "data on a connection not started",
            ));
        }
        let used = start + self.frames(&buf[start..], on)?;
        Ok(Fed { used, close: false })
    }

    fn eof<F: FnMut(End<T>)>(&mut self, _on: &mut F) -> Result<(), ConnError> {
        if self.state == State::Upgrading {
            return Err(ConnError::new(
                ErrorClass::Connect,
                "WebSocket handshake: connection closed by the peer before the 101",
            ));
        }
        // A message begun with none in flight, cut here, answered nothing.
        let cut = self.ws.in_message().then_some(ErrorClass::Unasked);
        match end_class(
            !self.inflight.is_empty(),
            self.answered,
            ErrorClass::Reset,
            cut,
        ) {
            None => Ok(()),
            Some(ErrorClass::Connect) => Err(ConnError::new(
                ErrorClass::Connect,
                "connection closed by the peer before any message",
            )),
            Some(class) => Err(ConnError::new(class, "connection closed by the peer")),
        }
    }

    fn expire<F: FnMut(End<T>)>(&mut self, now: Instant, _on: &mut F) -> Result<(), ConnError> {
        let timeout = self.setup.timeout;
        let since = self.since.unwrap_or(now);
        if self.state == State::Upgrading && now.saturating_duration_since(since) > timeout {
            return Err(ConnError::new(
                ErrorClass::Connect,
                format!("no WebSocket handshake within {timeout:?}"),
            ));
        }
        match self.inflight.front() {
            // A message cannot be cancelled alone: those behind it are lost with it.
            Some((tag, _)) if now.saturating_duration_since(tag.sent()) > timeout => Err(
                ConnError::new(ErrorClass::Timeout, format!("no reply within {timeout:?}")),
            ),
            _ => Ok(()),
        }
    }

    fn drain<F: FnMut(T)>(&mut self, each: &mut F) {
        for (tag, _) in self.inflight.drain(..) {
            each(tag);
        }
        self.state = State::Idle;
        self.wbuf.clear();
        self.wpos = 0;
    }

    fn take_counts(&mut self, into: &mut crate::client::Counts) {
        into.ws.add(&self.counts);
        self.reset_counts();
    }

    fn reset_counts(&mut self) {
        self.counts.handshakes = 0;
        self.counts.handshake_us = 0;
        self.counts.closes.clear();
    }
}

#[cfg(test)]
mod tests;

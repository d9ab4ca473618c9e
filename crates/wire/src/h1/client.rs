//! An HTTP/1.1 client connection behind [`ClientSession`]: requests pipelined up to a depth,
//! written straight from the run's [`Encoded`] buffer (the session only keeps a span of it),
//! responses parsed in place from the caller's read buffer and matched with their requests in
//! order. Nothing is allocated per request: the queue of open requests keeps its capacity.

use super::encoded::Encoded;
use super::parser::{Done, Parser};
use crate::client::{ClientSession, ConnError, Counts, End, ErrorClass, Fed, Tag, Transmit};
use crate::kept::Kept;
use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

/// HTTP/1.1 (and HTTP/1.0, the same session with its own request line and keep-alive): every
/// request encoded once, laid out at the positions of the run's order, so a pipelined batch is
/// one slice of one buffer. The depth is the run's (HTTP/1.1's pipeline, a script's batch; an
/// HTTP/2 load whose server chose http/1.1 by ALPN pipelines none).
impl Setup {
    pub fn for_run(run: &crate::client::Run<'_>) -> Setup {
        use barrage_model::load::Protocol;
        let c = run.load;
        let version_minor = match c.protocol {
            Protocol::Http10 { .. } => 0,
            _ => 1,
        };
        let encoded: Vec<Vec<u8>> = run
            .requests
            .iter()
            .map(|r| {
                crate::RequestSpec {
                    method: r.method.clone(),
                    host: run.authority.to_string(),
                    path: r.path.clone(),
                    headers: r.headers.clone(),
                    body: r.body.clone(),
                    keep_alive: c.protocol.keepalive(),
                    version_minor,
                }
                .encode()
            })
            .collect();
        Setup {
            encoded: Encoded::new(&encoded, run.order),
            is_head: run
                .requests
                .iter()
                .map(|r| r.method.eq_ignore_ascii_case("HEAD"))
                .collect(),
            depth: run.depth,
            keep_alive: c.protocol.keepalive(),
            // The closed loop sends whole batches; the open loop one request per slot.
            batch: c.rate.is_none() && c.stages.is_empty(),
            timeout: c.timeout,
            expect_body: c.expect_body.clone(),
            keep_responses: run.keep_responses,
        }
    }
}

/// What every HTTP/1.1 connection of a run shares.
#[derive(Debug)]
pub struct Setup {
    /// The requests at the positions of the run's order.
    pub encoded: Encoded,
    /// Request i is a HEAD request (its response has no body).
    pub is_head: Vec<bool>,
    /// Requests in flight per connection (the pipeline depth).
    pub depth: usize,
    /// Requests ask to keep the connection open; without it each response ends it.
    pub keep_alive: bool,
    /// The closed loop: requests go out in whole batches, the next when the last response of
    /// the previous one has arrived (as wrk does). Topping up after every partial read instead
    /// costs one small write per read and measured ~30% more CPU per request.
    pub batch: bool,
    pub timeout: Duration,
    pub expect_body: Option<Vec<u8>>,
    /// Keep every whole response for a script's `response()` hook
    /// ([`ClientSession::take_response`]).
    pub keep_responses: bool,
}

/// One HTTP/1.1 connection's client state.
#[derive(Debug)]
pub struct Conn<'r, T> {
    setup: &'r Setup,
    parser: Parser,
    /// Open requests, oldest first, with whether each is a HEAD.
    inflight: VecDeque<(T, bool)>,
    /// The part of `setup.encoded` still to write.
    wpos: usize,
    wend: usize,
    /// Requests given as text ([`ClientSession::open_text`]) and how much of them is written:
    /// written from here instead of `setup.encoded`.
    own: Vec<u8>,
    own_at: usize,
    /// Responses on this connection.
    served: u64,
}

impl<'r, T> Conn<'r, T> {
    pub fn new(setup: &'r Setup) -> Conn<'r, T> {
        let mut parser = Parser::default();
        if setup.keep_responses {
            parser.keep();
        }
        Conn {
            setup,
            parser,
            inflight: VecDeque::with_capacity(setup.depth),
            wpos: 0,
            wend: 0,
            own: Vec::new(),
            own_at: 0,
            served: 0,
        }
    }
}

impl<T: Tag> ClientSession<T> for Conn<'_, T> {
    fn start(&mut self, _now: Instant, _since: Instant) {
        self.parser.reset();
        self.inflight.clear();
        self.wpos = 0;
        self.wend = 0;
        self.own.clear();
        self.own_at = 0;
        self.served = 0;
    }

    #[inline]
    fn room(&self) -> usize {
        if self.held_by_output() || (self.setup.batch && !self.inflight.is_empty()) {
            return 0;
        }
        self.setup.depth.saturating_sub(self.inflight.len())
    }

    #[inline]
    fn held_by_output(&self) -> bool {
        self.wpos < self.wend || self.own_at < self.own.len()
    }

    #[inline]
    fn open(&mut self, _now: Instant, pos: usize, req: u32, tag: T) -> bool {
        if self.inflight.len() >= self.setup.depth {
            return false;
        }
        let (a, b) = self.setup.encoded.span(pos, 1);
        if self.wpos == self.wend {
            (self.wpos, self.wend) = (a, b);
        } else if self.wend == a {
            // The next position of a batch: the span grows.
            self.wend = b;
        } else {
            return false;
        }
        let head = self
            .setup
            .is_head
            .get(req as usize)
            .copied()
            .unwrap_or(false);
        self.inflight.push_back((tag, head));
        true
    }

    /// Appends the text to this connection's own output: a batch opened together goes out in
    /// one write, as `open`'s spans do.
    fn open_text(&mut self, _now: Instant, text: &[u8], head: bool, tag: T) -> bool {
        if self.inflight.len() >= self.setup.depth || self.wpos < self.wend {
            return false;
        }
        if self.own_at > 0 {
            // A write is under way (the socket took part of it): keep its rest in front.
            self.own.drain(..self.own_at);
            self.own_at = 0;
        }
        self.own.extend_from_slice(text);
        self.inflight.push_back((tag, head));
        true
    }

    fn take_response(&mut self, into: &mut Kept) -> bool {
        self.parser.take_kept(into)
    }

    #[inline]
    fn out(&self) -> Transmit<'_> {
        if !self.own.is_empty() {
            return Transmit::stream(&self.own[self.own_at..]);
        }
        Transmit::stream(&self.setup.encoded.bytes()[self.wpos..self.wend])
    }

    #[inline]
    fn wrote(&mut self, _now: Instant, n: usize) {
        if !self.own.is_empty() {
            self.own_at += n;
            if self.own_at >= self.own.len() {
                self.own.clear();
                self.own_at = 0;
            }
            return;
        }
        self.wpos += n;
        if self.wpos >= self.wend {
            self.wpos = 0;
            self.wend = 0;
        }
    }

    #[inline]
    fn feed<F: FnMut(End<T>)>(
        &mut self,
        _now: Instant,
        buf: &[u8],
        on: &mut F,
    ) -> Result<Fed, ConnError> {
        let Conn {
            setup,
            parser,
            inflight,
            served,
            ..
        } = self;
        let mut unexpected = false;
        let mut close = false;
        let head = inflight.front().is_some_and(|e| e.1);
        let res = parser.feed(buf, head, setup.expect_body.as_deref(), |d: Done| {
            let Some((tag, _)) = inflight.pop_front() else {
                unexpected = true;
                return ControlFlow::Break(());
            };
            *served += 1;
            on(End::Response {
                tag,
                status: d.status,
                body_ok: d.body_ok,
            });
            if !d.keep_alive || !setup.keep_alive {
                close = true;
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(inflight.front().is_some_and(|e| e.1))
        });
        let used = res.map_err(|e| ConnError::new(ErrorClass::Parse, e.to_string()))?;
        if unexpected {
            return Err(ConnError::new(
                ErrorClass::Unasked,
                "response without a request",
            ));
        }
        Ok(Fed { used, close })
    }

    fn eof<F: FnMut(End<T>)>(&mut self, on: &mut F) -> Result<(), ConnError> {
        match self.parser.eof(self.setup.expect_body.as_deref()) {
            Ok(Some(d)) => match self.inflight.pop_front() {
                Some((tag, _)) => {
                    self.served += 1;
                    on(End::Response {
                        tag,
                        status: d.status,
                        body_ok: d.body_ok,
                    });
                    Ok(())
                }
                None => Err(ConnError::new(
                    ErrorClass::Unasked,
                    "response without a request",
                )),
            },
            Ok(None) if self.inflight.is_empty() && self.served > 0 => Ok(()),
            Ok(None) => Err(ConnError::new(
                ErrorClass::Reset,
                "connection closed by the peer",
            )),
            Err(e) => Err(ConnError::new(ErrorClass::Reset, e.to_string())),
        }
    }

    fn expire<F: FnMut(End<T>)>(&mut self, now: Instant, _on: &mut F) -> Result<(), ConnError> {
        let timeout = self.setup.timeout;
        match self.inflight.front() {
            // A request cannot be cancelled alone: the timed-out one is a timeout, and those
            // queued behind it on the connection are lost with it (the caller counts them so).
            Some((tag, _)) if now.saturating_duration_since(tag.sent()) > timeout => {
                Err(ConnError::new(
                    ErrorClass::Timeout,
                    format!("no response within {timeout:?}"),
                ))
            }
            _ => Ok(()),
        }
    }

    fn drain<F: FnMut(T)>(&mut self, each: &mut F) {
        for (tag, _) in self.inflight.drain(..) {
            each(tag);
        }
        self.parser.reset();
        self.wpos = 0;
        self.wend = 0;
    }

    fn take_counts(&mut self, _into: &mut Counts) {}

    fn reset_counts(&mut self) {}
}

#[cfg(test)]
mod tests;

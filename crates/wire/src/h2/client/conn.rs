//! An HTTP/2 client connection behind [`ClientSession`]: the connection's [`Client`] (streams,
//! windows, the session), its output as far as it was written, and the figures HTTP/2 counts
//! beyond requests ([`Counts`]). A stream is what a pipelined request is for HTTP/1.1.

use super::{Client, Config, End as StreamEnd, Request};
use crate::client::{self, ClientSession, ConnError, End, ErrorClass, Failure, Fed, Tag, Transmit};
use crate::grpc::{Code, Ended};
use crate::h2::session::HEADER_BLOCK_TOO_LARGE;
use crate::h2::ErrorCode;
use std::time::{Duration, Instant};

/// What every HTTP/2 connection of a run shares.
#[derive(Debug)]
pub struct Setup {
    /// Request i encoded for a stream.
    pub requests: Vec<Request>,
    /// The requests' scheme and authority: a request given as text
    /// ([`ClientSession::open_text`]) is sent to them (its Host header, if any, names the
    /// authority instead).
    pub scheme: String,
    pub authority: String,
    /// Keep every whole response for a script's `response()` hook
    /// ([`ClientSession::take_response`]).
    pub keep_responses: bool,
    pub config: Config,
    pub timeout: Duration,
    pub expect_body: Option<Vec<u8>>,
    /// A gRPC load: the status its calls must end with to be responses (OK, or the code of
    /// `--expect-status`); every other code is a failure of class `grpc_status`.
    pub grpc: Option<Code>,
}

/// What HTTP/2 counts beyond requests (the run adds them up).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counts {
    /// RST_STREAMs received, by error code (RFC 9113 §7, 0x0-0xd; other codes in the last).
    pub rst_by_code: [u64; 15],
    /// GOAWAYs received.
    pub goaways: u64,
    /// Requests the server did not process (above a GOAWAY's last stream id, or refused with
    /// REFUSED_STREAM), sent again.
    pub retried: u64,
    /// Connections on which the server's SETTINGS_MAX_CONCURRENT_STREAMS was below `-m`.
    pub capped: u64,
    /// The lowest stream limit a server announced (`u32::MAX`: none).
    pub min_limit: u32,
    pub header_bytes_received: u64,
    pub header_bytes_decoded: u64,
    /// Streams opened, and connections they were opened on (streams per connection).
    pub streams: u64,
    pub connections: u64,
    /// gRPC calls that ended with a status, by code (0-16), and the reply messages read, each
    /// as it arrived, whatever its call's end (a status, a call broken or past its deadline,
    /// one still open at the stop): the messages the engine times.
    pub grpc_codes: [u64; 17],
    pub grpc_messages: u64,
}

impl Default for Counts {
    fn default() -> Self {
        Counts {
            rst_by_code: [0; 15],
            goaways: 0,
            retried: 0,
            capped: 0,
            min_limit: u32::MAX,
            header_bytes_received: 0,
            header_bytes_decoded: 0,
            streams: 0,
            connections: 0,
            grpc_codes: [0; 17],
            grpc_messages: 0,
        }
    }
}

impl Counts {
    pub fn add(&mut self, o: &Counts) {
        for (a, b) in self.rst_by_code.iter_mut().zip(o.rst_by_code) {
            *a += b;
        }
        self.goaways += o.goaways;
        self.retried += o.retried;
        self.capped += o.capped;
        self.min_limit = self.min_limit.min(o.min_limit);
        self.header_bytes_received += o.header_bytes_received;
        self.header_bytes_decoded += o.header_bytes_decoded;
        self.streams += o.streams;
        self.connections += o.connections;
        for (a, b) in self.grpc_codes.iter_mut().zip(o.grpc_codes) {
            *a += b;
        }
        self.grpc_messages += o.grpc_messages;
    }

    /// The load document's `grpc` section: the calls by status and the reply messages, over
    /// the `http2` section of the same counts.
    pub fn grpc_figures(&self, protocol: &str, streams: usize) -> barrage_model::load::Grpc {
        let calls = crate::grpc::Code::ALL
            .iter()
            .filter(|c| self.grpc_codes[c.as_u32() as usize] > 0)
            .map(|c| (c.name().to_string(), self.grpc_codes[c.as_u32() as usize]))
            .collect();
        barrage_model::load::Grpc {
            calls,
            messages_received: self.grpc_messages,
            messages_per_call: 0.0,
            // The engine's: it times the messages.
            message_latency_us: None,
            hdr_message: None,
            http2: self.figures(protocol, streams),
        }
    }

    /// The load document's `http2` section of these counts (sums; the caller settles what
    /// derives from them): `protocol` is what was spoken (`h2`, `h2c`, or `http/1.1` when ALPN
    /// chose it), `streams` the streams asked per connection.
    pub fn figures(&self, protocol: &str, streams: usize) -> barrage_model::load::Http2 {
        let rst_stream = self
            .rst_by_code
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(code, &n)| (ErrorCode::from_u32(code as u32).name().to_string(), n))
            .collect();
        barrage_model::load::Http2 {
            protocol: protocol.to_string(),
            streams_asked: u32::try_from(streams).unwrap_or(u32::MAX),
            server_stream_limit: (self.min_limit != u32::MAX).then_some(self.min_limit),
            capped_connections: self.capped,
            streams: self.streams,
            connections: self.connections,
            header_bytes_received: self.header_bytes_received,
            header_bytes_decoded: self.header_bytes_decoded,
            hpack_saving: 0.0,
            rst_stream,
            goaways: self.goaways,
            retried: self.retried,
        }
    }
}

/// One HTTP/2 connection's client side.
#[derive(Debug)]
pub struct Conn<'r, T> {
    setup: &'r Setup,
    /// None between connections.
    client: Option<Client<T>>,
    /// How much of `client.out` was written.
    wpos: usize,
    /// When the connection's connect began.
    since: Option<Instant>,
    /// Streams the server ended (answered or reset) on this connection.
    answered: u64,
    counts: Counts,
    /// A script's last request text, encoded.
    last_text: crate::fields::LastText<Request>,
}

impl<'r, T> Conn<'r, T> {
    pub fn new(setup: &'r Setup) -> Conn<'r, T> {
        Conn {
            setup,
            last_text: crate::fields::LastText::default(),
            client: None,
            wpos: 0,
            since: None,
            answered: 0,
            counts: Counts::default(),
        }
    }
}

impl<T: Tag> ClientSession<T> for Conn<'_, T> {
    fn start(&mut self, _now: Instant, since: Instant) {
        let mut client = Client::new(self.setup.config);
        if self.setup.keep_responses {
            client.keep_responses();
        }
        self.client = Some(client);
        self.wpos = 0;
        self.since = Some(since);
        self.answered = 0;
        self.counts.connections += 1;
    }

    #[inline]
    fn room(&self) -> usize {
        self.client.as_ref().map_or(0, Client::room)
    }

    #[inline]
    fn held_by_output(&self) -> bool {
        false
    }

    #[inline]
    fn open(&mut self, _now: Instant, _pos: usize, req: u32, tag: T) -> bool {
        let Some(client) = self.client.as_mut() else {
            return false;
        };
        let opened = client
            .open(&self.setup.requests, req as usize, tag)
            .is_some();
        self.counts.streams += u64::from(opened);
        opened
    }

    /// The text is parsed as the server would (one request: its head, and the body its
    /// content-length gives), encoded for a stream of its own, its fields as literals.
    fn open_text(&mut self, _now: Instant, text: &[u8], _head: bool, tag: T) -> bool {
        let Some(client) = self.client.as_mut() else {
            return false;
        };
        if client.room() == 0 {
            return false;
        }
        let (scheme, authority) = (&self.setup.scheme, &self.setup.authority);
        let Some(req) = self.last_text.get(text, |t| {
            crate::fields::request_of_text(t, scheme, authority, Request::new)
        }) else {
            return false;
        };
        let opened = client.open_own(&self.setup.requests, req, tag).is_some();
        self.counts.streams += u64::from(opened);
        opened
    }

    fn take_response(&mut self, into: &mut crate::kept::Kept) -> bool {
        self.client.as_mut().is_some_and(|c| c.take_kept(into))
    }

    #[inline]
    fn out(&self) -> Transmit<'_> {
        Transmit::stream(self.client.as_ref().map_or(&[], |c| &c.out[self.wpos..]))
    }

    #[inline]
    fn wrote(&mut self, _now: Instant, n: usize) {
        let Some(client) = self.client.as_mut() else {
            return;
        };
        self.wpos += n;
        if self.wpos >= client.out.len() {
            client.out.clear();
            self.wpos = 0;
        }
    }

    fn feed<F: FnMut(End<T>)>(
        &mut self,
        _now: Instant,
        buf: &[u8],
        on: &mut F,
    ) -> Result<Fed, ConnError> {
        let Conn {
            setup,
            client,
            answered,
            counts,
            ..
        } = self;
        let Some(client) = client.as_mut() else {
            return Ok(Fed {
                used: buf.len(),
                close: false,
            });
        };
        let was_going_away = client.going_away();
        let limit_kib = setup.config.max_header_list / 1024;
        // One call per socket read: the credit written before it is the server's to use.
        client.commit_credit();
        let res = client.feed(
            buf,
            &setup.requests,
            setup.expect_body.as_deref(),
            &mut |end| {
                let end = match end {
                    StreamEnd::Response {
                        tag,
                        status,
                        body_ok,
                    } => End::Response {
                        tag,
                        status,
                        body_ok,
                    },
                    StreamEnd::Reset { tag, code } => {
                        if tag.counted() {
                            counts.rst_by_code[(code.to_u32() as usize).min(14)] += 1;
                        }
                        let failure = Failure::Reset(code.name());
                        End::Failed { tag, failure }
                    }
                    StreamEnd::Malformed { tag, code } => End::Failed {
                        tag,
                        failure: Failure::Malformed(code.name()),
                    },
                    StreamEnd::HeaderTooLarge { tag } => End::Failed {
                        tag,
                        failure: Failure::HeaderTooLarge { limit_kib },
                    },
                    StreamEnd::Grpc { tag, ended } => match ended {
                        Ended::Status { code, message } => {
                            if tag.counted() {
                                counts.grpc_codes[code.as_u32() as usize] += 1;
                            }
                            let failure = Failure::GrpcStatus(code, message);
                            grpc_end(tag, code, setup.grpc, failure)
                        }
                        Ended::Broken(broken) => End::Failed {
                            tag,
                            failure: Failure::Grpc(broken),
                        },
                    },
                    // Not an end: the call goes on. Counted here, as the engine times it.
                    StreamEnd::GrpcMessage { tag } => {
                        counts.grpc_messages += u64::from(tag.counted());
                        return on(End::Message { tag });
                    }
                    StreamEnd::Unprocessed { tag } => {
                        // Not the server's answer: the request goes out again elsewhere.
                        counts.retried += u64::from(tag.counted());
                        return on(End::Unprocessed { tag });
                    }
                };
                *answered += 1;
                on(end)
            },
        );
        let used = res.map_err(|e| {
            let class = if e.what == HEADER_BLOCK_TOO_LARGE {
                ErrorClass::HeaderTooLarge
            } else {
                ErrorClass::Protocol
            };
            let why = format!("HTTP/2 connection error: {} ({})", e.what, e.code.name());
            ConnError::new(class, why)
        })?;
        if client.going_away() && !was_going_away {
            counts.goaways += 1;
        }
        if client.finished() {
            if *answered == 0 {
                // GOAWAY before the server answered anything: the connection could not be
                // used, which is a failed connection (counted, and retried after the same
                // backoff as a refused one), not a normal end to reconnect from at once.
                let why = "HTTP/2 GOAWAY before any stream was answered";
                return Err(ConnError::new(ErrorClass::Connect, why));
            }
            return Ok(Fed { used, close: true });
        }
        // The server's own limit (what it announced, not what caps -m).
        let limit = client
            .session
            .peer
            .max_concurrent_streams
            .unwrap_or(u32::MAX);
        counts.min_limit = counts.min_limit.min(limit);
        Ok(Fed { used, close: false })
    }

    fn eof<F: FnMut(End<T>)>(&mut self, _on: &mut F) -> Result<(), ConnError> {
        match self.client.as_ref() {
            Some(c) if c.open_streams() > 0 => Err(ConnError::new(
                ErrorClass::Reset,
                "connection closed by the peer",
            )),
            _ => Ok(()),
        }
    }

    fn expire<F: FnMut(End<T>)>(&mut self, now: Instant, on: &mut F) -> Result<(), ConnError> {
        let timeout = self.setup.timeout;
        let Some(client) = self.client.as_mut() else {
            return Ok(());
        };
        // A server that allows no stream (SETTINGS_MAX_CONCURRENT_STREAMS = 0) for longer than
        // the timeout: nothing can be sent on this connection, a failed connection.
        let starved = client.limit() == 0 && client.open_streams() == 0 && !client.going_away();
        let since = self.since.unwrap_or(now);
        if starved && now.saturating_duration_since(since) > timeout {
            let why = format!(
                "HTTP/2 server allowed 0 concurrent streams for {timeout:?}: nothing could be sent"
            );
            return Err(ConnError::new(ErrorClass::Connect, why));
        }
        // Streams older than the timeout are cancelled, each a timeout; the connection goes on.
        loop {
            let late = client
                .streams()
                .find(|(_, t)| now.saturating_duration_since(t.sent()) > timeout)
                .map(|(id, _)| id);
            let Some(id) = late else { break };
            let Some(tag) = client.cancel(id) else { break };
            match self.setup.grpc {
                // A call past its deadline: DEADLINE_EXCEEDED, as gRPC's clients count it
                // (whichever side's clock ran out first, the count is the same).
                Some(expect) => {
                    let code = Code::DeadlineExceeded;
                    if tag.counted() {
                        self.counts.grpc_codes[code.as_u32() as usize] += 1;
                    }
                    on(grpc_end(
                        tag,
                        code,
                        Some(expect),
                        Failure::GrpcDeadline(timeout),
                    ));
                }
                None => on(End::Failed {
                    tag,
                    failure: Failure::Timeout(timeout),
                }),
            }
        }
        Ok(())
    }

    fn drain<F: FnMut(T)>(&mut self, each: &mut F) {
        let Some(mut client) = self.client.take() else {
            return;
        };
        // The connection's header byte counts, and whether the server capped it.
        let c = &mut self.counts;
        c.header_bytes_received += client.session.header_bytes_received;
        c.header_bytes_decoded += client.session.header_bytes_decoded;
        c.capped += u64::from(client.capped());
        for tag in client.drain() {
            each(tag);
        }
        self.wpos = 0;
    }

    fn take_counts(&mut self, into: &mut client::Counts) {
        into.h2.add(&std::mem::take(&mut self.counts));
    }

    fn reset_counts(&mut self) {
        self.counts = Counts::default();
    }
}

/// A call that ended with `code`: a response when it is the one expected (OK unless
/// `--expect-status` says otherwise), else `failure`.
fn grpc_end<T>(tag: T, code: Code, expect: Option<Code>, failure: Failure) -> End<T> {
    if code == expect.unwrap_or(Code::Ok) {
        End::Response {
            tag,
            status: 200,
            body_ok: true,
        }
    } else {
        End::Failed { tag, failure }
    }
}

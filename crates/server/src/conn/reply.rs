//! What HTTP/1.1 does differently in an answer ([`Reply`]): heads with its status line and
//! `Connection` header (the hot `GET /` and `GET /json` copied whole from the templates), a
//! chunked echo framed as chunks, a `/bytes` body written straight from the pattern to the
//! socket (`Stream`, no copy), a fault as the connection's end (FIN, RST, or a garbled
//! response), and the end of a response that does not keep the connection alive.

use super::{End, GARBAGE};
use crate::answer::{Act, Extra, Fixed, Reply, Req};
use crate::respond::{push_chunk_header, BodyLen, ConnInfo, Templates};
use crate::stats::Counters;
use crate::stream::Stream;
use crate::transport::Transport;
use crate::Shared;
use std::time::Instant;

/// How the body of an HTTP/1.x response ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyEnd {
    /// By its length, or it has none.
    Length,
    /// Chunked (HTTP/1.1).
    Chunked,
    /// With the connection: a body of unknown length to an HTTP/1.0 request, which cannot be
    /// sent chunked (RFC 9112, section 6.1: no Transfer-Encoding in a response to HTTP/1.0).
    UntilClose,
}

/// One step's view of an HTTP/1.1 connection for the answers.
pub(super) struct H1Reply<'a> {
    pub out: &'a mut Vec<u8>,
    pub transport: &'a mut Transport,
    /// The request's keep-alive and version (keep-alive off while draining).
    pub ci: ConnInfo,
    pub body_end: &'a mut BodyEnd,
    pub closing: &'a mut Option<End>,
    pub last_active: &'a mut Instant,
    pub templates: &'a Templates,
    pub counters: &'a Counters,
    pub shared: &'a Shared,
    pub now: Instant,
    /// A `/bytes` body may be written to the socket now (the output before it went).
    pub io: bool,
    /// Writing to the socket failed: the connection ends.
    pub failed: bool,
}

impl H1Reply<'_> {
    /// A refusal with header fields of HTTP/1.1's own (a failed WebSocket upgrade).
    pub(super) fn refuse(&mut self, status: u16, body: &[u8], extra: &[(&str, &str)], req: Req) {
        self.counters.response_h1(self.ci.minor, status);
        let t = self.templates;
        t.full(
            self.out,
            status,
            Some("text/plain"),
            body,
            self.ci,
            req.is_head,
            extra,
        );
        self.done((), status);
        if let Some(line) = &req.log {
            self.shared.log(line, status);
        }
    }
}

impl Reply<()> for H1Reply<'_> {
    fn head(
        &mut self,
        _: (),
        status: u16,
        ct: &'static str,
        len: BodyLen,
        extra: Extra<'_>,
        _end: bool,
    ) {
        self.counters.response_h1(self.ci.minor, status);
        let (len, ci) = match (len, self.ci.minor) {
            (BodyLen::Chunked, 0) => {
                *self.body_end = BodyEnd::UntilClose;
                let close = ConnInfo {
                    keep_alive: false,
                    ..self.ci
                };
                (BodyLen::NoBody, close)
            }
            (BodyLen::Chunked, _) => {
                *self.body_end = BodyEnd::Chunked;
                (len, self.ci)
            }
            _ => {
                *self.body_end = BodyEnd::Length;
                (len, self.ci)
            }
        };
        let pair;
        let extra: &[(&str, &str)] = match extra {
            Extra::None => &[],
            Extra::Checksum(v) => {
                pair = [("X-Checksum", v)];
                &pair
            }
            Extra::Allow(v) => {
                pair = [("Allow", v)];
                &pair
            }
            Extra::GrpcStatus(v) => {
                pair = [("grpc-status", v)];
                &pair
            }
        };
        self.templates
            .head(self.out, status, Some(ct), len, ci, extra);
    }

    fn data(&mut self, _: (), data: &[u8], end: bool) -> usize {
        if *self.body_end == BodyEnd::Chunked {
            if !data.is_empty() {
                push_chunk_header(self.out, data.len());
                self.out.extend_from_slice(data);
                self.out.extend_from_slice(b"\r\n");
            }
            if end {
                self.out.extend_from_slice(b"0\r\n\r\n");
            }
        } else {
            self.out.extend_from_slice(data);
        }
        data.len()
    }

    fn room(&self, _: ()) -> usize {
        usize::MAX
    }

    fn act(&mut self, _: (), act: Act) {
        *self.closing = Some(match act {
            Act::Reset => End::Reset,
            Act::Garbage => {
                self.out.extend_from_slice(GARBAGE);
                End::Close
            }
            Act::Close | Act::TooLarge | Act::Cancel => End::Close,
        });
    }

    fn done(&mut self, _: (), _status: u16) {
        if !self.ci.keep_alive || *self.body_end == BodyEnd::UntilClose {
            self.closing.get_or_insert(End::Close);
        }
    }

    fn fixed(&mut self, _: (), f: Fixed, is_head: bool) -> bool {
        self.counters.response_h1(self.ci.minor, 200);
        match f {
            Fixed::Hello => self.templates.hello(self.out, self.ci, is_head),
            Fixed::Json => self.templates.json(self.out, self.ci, is_head),
        }
        true
    }

    fn pattern(&mut self, _: (), s: &mut Stream) -> bool {
        // Written after the output before it (the connection's `pump` sends that first).
        if !self.io || !self.out.is_empty() {
            return false;
        }
        if *self.body_end == BodyEnd::UntilClose {
            s.unchunk();
        }
        let before = s.sent();
        let done = match s.pump(self.transport) {
            Ok(done) => done,
            Err(_) => {
                self.failed = true;
                false
            }
        };
        if s.sent() != before {
            *self.last_active = self.now;
        }
        done
    }

    fn shared(&self) -> &Shared {
        self.shared
    }
}

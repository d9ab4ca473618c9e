//! HTTP/3 requests to the one answer of each route ([`crate::answer`]): the session's events in
//! order, and [`H3Reply`], what HTTP/3 does differently: a head is a HEADERS frame (static-only
//! QPACK), a body goes out as the stream's buffer takes it (at most `STREAM_BUFFER` that QUIC
//! has not taken, more on [`Event::Writable`]), an echo that its client does not read pauses
//! the request's body ([`Server::pause`]: QUIC's flow control then holds the client back).
//!
//! Faults over HTTP/3: `/fault/reset` resets the stream (H3_INTERNAL_ERROR) and the connection
//! goes on; `/fault/close` closes the connection (H3_NO_ERROR, as a server closing would);
//! `/fault/garbage` answers with a HEADERS frame no QPACK decoder accepts (a connection error
//! for the client); `/fault/stall` never answers; `/fault/drip` answers one byte at a time. A
//! body past `echo_limit` is refused (413 when `content-length` says so, the stream reset with
//! H3_EXCESSIVE_LOAD when the body goes past it). The request's events carry no "no body" flag,
//! so every request is answered at its end (FIN), faults and echoes at once.

use crate::answer::streams::Streams;
use crate::answer::{self, Act, Checksums, Env, Extra, Reply};
use crate::respond::{BodyLen, HeadFields, Templates};
use crate::stats::Counters;
use crate::Shared;
use barrage_wire::h3::server::{Event, Head, Server, StreamRef};
use barrage_wire::h3::ErrorCode;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

/// The HTTP/3 thread's answers in progress.
pub(super) struct Answers {
    pub(super) shared: Arc<Shared>,
    counters: usize,
    templates: Templates,
    streams: Streams<StreamRef>,
    checksums: Checksums,
}

/// What HTTP/3 does differently, for the answers of one loop turn.
struct H3Reply<'a> {
    server: &'a mut Server,
    templates: &'a Templates,
    counters: &'a Counters,
    shared: &'a Shared,
    now: Instant,
}

impl Reply<StreamRef> for H3Reply<'_> {
    const WRITE: usize = 16 * 1024;

    fn head(
        &mut self,
        id: StreamRef,
        status: u16,
        ct: &'static str,
        len: BodyLen,
        extra: Extra<'_>,
        end: bool,
    ) {
        self.counters.response_h3(status);
        let mut digits = [0u8; 20];
        let h = HeadFields::new(self.templates, ct, len, extra, &mut digits);
        self.server.respond(id, status, h.get(), end);
    }

    fn data(&mut self, id: StreamRef, data: &[u8], end: bool) -> usize {
        self.server.send_data(id, data, end)
    }

    fn room(&self, id: StreamRef) -> usize {
        self.server.room(id)
    }

    fn open(&self, id: StreamRef) -> bool {
        self.server.room(id) > 0
    }

    fn act(&mut self, id: StreamRef, act: Act) {
        match act {
            Act::Reset => self.server.reset(id, ErrorCode::Internal),
            Act::Close => self.server.close_conn(id, self.now),
            Act::Garbage => self.server.garbage(id),
            Act::TooLarge => self.server.reset(id, ErrorCode::ExcessiveLoad),
            Act::Cancel => self.server.reset(id, ErrorCode::RequestCancelled),
        }
    }

    fn hold(&mut self, id: StreamRef, held: bool) {
        self.server.pause(self.now, id, held);
    }

    fn shared(&self) -> &Shared {
        self.shared
    }
}

impl Answers {
    pub(super) fn new(shared: Arc<Shared>, counters: usize) -> Answers {
        Answers {
            shared,
            counters,
            templates: Templates::new(None),
            streams: Streams::default(),
            checksums: Checksums::default(),
        }
    }

    /// Connections accepted, and the change in open ones, into the server's figures.
    pub(super) fn count_connections(&self, accepted: u64, open: i64) {
        for _ in 0..accepted {
            self.shared.counters[self.counters].accepted();
        }
        if open > 0 {
            self.shared
                .active
                .fetch_add(open as usize, Ordering::AcqRel);
        } else if open < 0 {
            self.shared
                .active
                .fetch_sub(open.unsigned_abs() as usize, Ordering::AcqRel);
        }
    }

    pub(super) fn tick(&mut self) {
        self.templates.tick();
    }

    pub(super) fn is_empty(&self) -> bool {
        self.streams.is_empty()
    }

    /// The earliest sleep or drip deadline.
    pub(super) fn next_timer(&mut self) -> Option<Instant> {
        self.streams.next_timer()
    }

    /// Splits the answers into the streams pending, the reply and the environment of one turn.
    fn parts<'a>(
        &'a mut self,
        server: &'a mut Server,
        now: Instant,
    ) -> (&'a mut Streams<StreamRef>, H3Reply<'a>, Env<'a>) {
        let Answers {
            shared,
            counters,
            templates,
            streams,
            checksums,
        } = self;
        let shared: &Shared = shared;
        let r = H3Reply {
            server,
            templates,
            counters: &shared.counters[*counters],
            shared,
            now,
        };
        let env = Env {
            shared,
            now,
            checksums,
        };
        (streams, r, env)
    }

    /// A shutdown: stalled streams would hold the grace period for nothing.
    pub(super) fn drain(&mut self, server: &mut Server, now: Instant) {
        let (streams, mut r, _) = self.parts(server, now);
        streams.drain(&mut r);
    }

    /// Answers the sleeps and drips that are due.
    pub(super) fn fire(&mut self, server: &mut Server, now: Instant) {
        let (streams, mut r, mut env) = self.parts(server, now);
        streams.fire(&mut r, &mut env);
    }

    /// Answers every event the server has.
    pub(super) fn events(&mut self, server: &mut Server, now: Instant) {
        let (streams, mut r, mut env) = self.parts(server, now);
        while let Some(ev) = r.server.poll_event() {
            match ev {
                Event::Request { id, head } => {
                    let (rt, req) =
                        answer::route_request(env.shared, &head.method, &head.path, || {
                            headers_json(&head)
                        });
                    streams.request(id, rt, req, Some(head.content_length), &mut r, &mut env);
                }
                Event::Body { id, data } => streams.body(id, &data, false, &mut r, &mut env),
                Event::End { id, whole: true } => streams.end(id, &mut r, &mut env),
                // Malformed: the stream is reset already, nothing to answer.
                Event::End { id, whole: false } | Event::Gone { id } => streams.gone(id),
                Event::TooLarge { id } => {
                    let req = answer::unnamed(env.shared);
                    let msg = b"request header fields too large\n";
                    let p = answer::full(id, 431, "text/plain", msg, req, Extra::None, &mut r);
                    streams.answered(id, p);
                }
                Event::Writable { id } => streams.writable(id, &mut r),
            }
        }
    }
}

/// `/headers` over HTTP/3.
fn headers_json(h: &Head) -> Vec<u8> {
    let fields = h.headers.iter().map(|(n, v)| (n.as_str(), v.as_bytes()));
    answer::headers_json(&h.method, &h.path, "HTTP/3", fields)
}

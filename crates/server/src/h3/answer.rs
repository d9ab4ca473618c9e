//! HTTP/3 requests to the one answer of each route ([`crate::answer`]): the endpoint's events
//! in order, answered through wire's [`ServerSession`] like HTTP/2's
//! ([`crate::answer::session`]). What HTTP/3 does differently is the wire crate's: a head is a
//! HEADERS frame (static-only QPACK), a body goes out as the stream's buffer takes it (at most
//! `STREAM_BUFFER` that QUIC has not taken, more on a Writable event), an echo that its client
//! does not read pauses the request's body (QUIC's flow control then holds the client back).
//!
//! Faults over HTTP/3: `/fault/reset` resets the stream (H3_INTERNAL_ERROR) and the connection
//! goes on; `/fault/close` closes the connection (H3_NO_ERROR, as a server closing would);
//! `/fault/garbage` answers with a HEADERS frame no QPACK decoder accepts (a connection error
//! for the client); `/fault/stall` never answers; `/fault/drip` answers one byte at a time. A
//! body past `echo_limit` is refused (413 when `content-length` says so, the stream reset with
//! H3_EXCESSIVE_LOAD when the body goes past it). The request's events carry no "no body" flag,
//! so every request is answered at its end (FIN), faults and echoes at once.

use crate::answer::session::{self, Routed, SessionReply};
use crate::answer::streams::Streams;
use crate::answer::{Checksums, Env};
use crate::respond::Templates;
use crate::Shared;
use barrage_wire::h3::server::{Server, StreamRef};
use barrage_wire::server::ServerSession;
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
    /// The interface's output buffer, which the endpoint never writes (it keeps each stream's).
    out: Vec<u8>,
}

impl Answers {
    pub(super) fn new(shared: Arc<Shared>, counters: usize) -> Answers {
        Answers {
            shared,
            counters,
            templates: Templates::new(None),
            streams: Streams::default(),
            checksums: Checksums::default(),
            out: Vec::new(),
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
        defer: bool,
    ) -> (
        &'a mut Streams<StreamRef>,
        SessionReply<'a, Server>,
        Env<'a>,
    ) {
        let Answers {
            shared,
            counters,
            templates,
            streams,
            checksums,
            out,
        } = self;
        let shared: &Shared = shared;
        let r = SessionReply {
            session: server,
            out,
            high_water: usize::MAX,
            templates,
            counters: &shared.counters[*counters],
            shared,
            now,
            defer,
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
        let (streams, mut r, _) = self.parts(server, now, false);
        streams.drain(&mut r);
    }

    /// Answers the sleeps and drips that are due.
    pub(super) fn fire(&mut self, server: &mut Server, now: Instant) {
        let (streams, mut r, mut env) = self.parts(server, now, false);
        streams.fire(&mut r, &mut env);
    }

    /// Answers every event the server has; bodies wait for [`Answers::pump_fresh`], once the
    /// turn's datagrams are all read (a request reset by a later datagram of the same turn
    /// costs no body).
    pub(super) fn events(&mut self, server: &mut Server, now: Instant) {
        loop {
            let Ok((_, Some(ev))) = server.next(&[], &mut self.out) else {
                return;
            };
            let ev = Routed::new::<Server>(ev, &self.shared);
            let (streams, mut r, mut env) = self.parts(server, now, true);
            session::serve(ev, streams, &mut r, &mut env);
        }
    }

    /// The turn's datagrams are read: the bodies deferred go as far as their streams take
    /// them, and the events that brings (a body read again) are answered, until none is left.
    pub(super) fn pump_fresh(&mut self, server: &mut Server, now: Instant) {
        loop {
            let (streams, mut r, _) = self.parts(server, now, false);
            let pumped = streams.pump_fresh(&mut r);
            if !server.has_events() {
                if !pumped {
                    return;
                }
                continue;
            }
            self.events(server, now);
        }
    }
}

//! The answers of every protocol whose requests are streams (HTTP/2, HTTP/3), through wire's
//! [`ServerSession`]: one [`Reply`] for all of them ([`SessionReply`]) and one reading of their
//! events ([`Routed`], then [`serve`]). A protocol that names its requests by stream adds an
//! impl of the wire trait and nothing here.

use super::streams::{Key, Streams};
use super::{route_call, route_request, unnamed, Act, Env, Extra, Reply, Req};
use crate::respond::{BodyLen, HeadFields, Templates};
use crate::route::Route;
use crate::stats::Counters;
use crate::Shared;
use barrage_wire::grpc::is_grpc_content_type;
use barrage_wire::server::{Chunk, Event, Head, ServerSession, Stop};
use std::time::Instant;

/// One turn's view of a session for the answers.
pub(crate) struct SessionReply<'a, S> {
    pub session: &'a mut S,
    /// The connection's output (a byte-stream session's frames; the datagram endpoint keeps
    /// its own and leaves this empty).
    pub out: &'a mut Vec<u8>,
    /// Bodies wait for the next turn once this much output is waiting for the socket.
    pub high_water: usize,
    pub templates: &'a Templates,
    pub counters: &'a Counters,
    pub shared: &'a Shared,
    pub now: Instant,
    /// The turn's input is still being read: bodies wait for the pump after it (`room` is 0),
    /// so a request the same input resets costs no body at all (Rapid Reset).
    pub defer: bool,
}

impl<S: ServerSession> Reply<S::Id> for SessionReply<'_, S> {
    const WRITE: usize = S::CHUNK;

    fn head(
        &mut self,
        id: S::Id,
        status: u16,
        ct: &'static str,
        len: BodyLen,
        extra: Extra<'_>,
        end: bool,
    ) {
        self.counters.response_over(S::VERSION, status);
        let mut digits = [0u8; 20];
        let h = HeadFields::new(self.templates, ct, len, extra, &mut digits);
        self.session.respond(self.out, id, status, h.get(), end);
    }

    fn data(&mut self, id: S::Id, data: &[u8], end: bool) -> usize {
        let n = self.session.send_data(self.out, id, data, end);
        self.counters.body_bytes(n);
        n
    }

    fn room(&self, id: S::Id) -> usize {
        if self.defer || self.backed_up() {
            return 0;
        }
        self.session.room(id)
    }

    fn deferring(&self) -> bool {
        self.defer
    }

    fn backed_up(&self) -> bool {
        self.out.len() >= self.high_water
    }

    fn open(&self, id: S::Id) -> bool {
        self.session.is_open(id)
    }

    fn act(&mut self, id: S::Id, act: Act) {
        match act {
            Act::Reset => self.session.stop(self.out, id, Stop::Internal),
            Act::Close => self.session.close(self.out, id, self.now),
            Act::Garbage => self.session.garbage(self.out, id),
            Act::TooLarge => self.session.stop(self.out, id, Stop::TooLarge),
            Act::Cancel => self.session.stop(self.out, id, Stop::Cancel),
        }
    }

    fn hold(&mut self, id: S::Id, held: bool) {
        self.session.hold(self.now, id, held);
    }

    fn trailers(&mut self, id: S::Id, fields: &[(&str, &[u8])]) {
        self.session.send_trailers(self.out, id, fields);
    }

    fn shared(&self) -> &Shared {
        self.shared
    }
}

/// A session's event with its head routed: what it borrowed from the session is let go, so the
/// answer may write through the session.
pub(crate) enum Routed<'b, Id> {
    Request {
        id: Id,
        route: Route,
        req: Req,
        /// `None`: the request has no body; `Some(length)`: one follows.
        body: Option<Option<u64>>,
    },
    Body {
        id: Id,
        data: Chunk<'b>,
        end: bool,
    },
    TooLarge {
        id: Id,
    },
    Gone {
        id: Id,
    },
    Writable {
        id: Id,
    },
}

impl<'b, Id: Copy> Routed<'b, Id> {
    /// Routes a request's head (its `/headers` JSON built only when that is the route).
    pub(crate) fn new<S: ServerSession<Id = Id>>(
        ev: Event<'_, 'b, Id>,
        shared: &Shared,
    ) -> Routed<'b, Id> {
        match ev {
            Event::Request { id, head } => {
                let grpc = head
                    .fields
                    .get("content-type")
                    .is_some_and(is_grpc_content_type);
                let (route, req) = if grpc {
                    let call = crate::grpc::fault::Head {
                        fault: head.fields.get(crate::grpc::fault::HEADER),
                        encoding: head.fields.get("grpc-encoding"),
                        timeout: head.fields.get("grpc-timeout"),
                    };
                    route_call(shared, head.method, head.path, call)
                } else {
                    route_request(shared, head.method, head.path, || {
                        headers_json(S::VERSION, &head)
                    })
                };
                let body = (!head.end).then_some(head.content_length);
                Routed::Request {
                    id,
                    route,
                    req,
                    body,
                }
            }
            Event::Body { id, data, end } => Routed::Body { id, data, end },
            Event::TooLarge { id } => Routed::TooLarge { id },
            Event::Gone { id } => Routed::Gone { id },
            Event::Writable { id } => Routed::Writable { id },
        }
    }
}

/// Answers one event of a stream-multiplexed session.
pub(crate) fn serve<K: Key, R: Reply<K>>(
    ev: Routed<'_, K>,
    streams: &mut Streams<K>,
    r: &mut R,
    env: &mut Env<'_>,
) {
    match ev {
        Routed::Request {
            id,
            route,
            req,
            body,
        } => streams.request(id, route, req, body, r, env),
        Routed::Body { id, data, end } => streams.body(id, &data, end, r, env),
        Routed::TooLarge { id } => {
            let req = unnamed(env.shared);
            let msg = b"request header fields too large\n";
            let p = super::full(id, 431, "text/plain", msg, req, Extra::None, r);
            streams.answered(id, p);
        }
        Routed::Gone { id } => streams.gone(id),
        Routed::Writable { id } => streams.writable(id, r),
    }
}

/// `/headers` over a session: the target from `:path`.
fn headers_json(version: &str, h: &Head<'_>) -> Vec<u8> {
    super::headers_json(h.method, h.path, version, h.fields.iter())
}

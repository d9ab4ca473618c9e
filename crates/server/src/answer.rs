//! The one answer of every route, whatever the protocol: what each endpoint and fault sends,
//! what a request still owes once its head is answered ([`Pending`]: a body read before the
//! answer, an echo, a body the protocol's flow control held back, a `/bytes` run, a sleep in
//! its service slot, a drip, a stall), and the access log line of each response. HTTP/1.1
//! (`conn`), HTTP/2 (`conn::session`) and HTTP/3 (`h3`) each implement [`Reply`], the few things a
//! protocol does differently (write a head, take body bytes under its flow control, act out a
//! fault), and hand their requests here; a new endpoint is a [`Route`] in `route.rs` and its arm
//! in [`respond`], served over every protocol at once.
//!
//! A request is keyed by what the protocol names it with (`K`: nothing for HTTP/1.1, which
//! answers one at a time; the stream id for HTTP/2 and HTTP/3). Answers that finish at once
//! leave nothing behind; the others return a [`Pending`] that the protocol keeps (HTTP/1.1 one,
//! the multiplexed protocols in [`streams::Streams`]) and hands back on the request's body, on
//! room freed, and on its timer.

use crate::pattern;
use crate::respond::{reason, BodyLen, HELLO, JSON};
use crate::route::{Fault, Route};
use crate::stream::Stream;
use std::time::{Duration, Instant};

mod call;
mod reply;
mod request;
pub(crate) mod session;
pub(crate) mod streams;
pub(crate) use reply::{Act, Extra, Fixed, Reply};
pub(crate) use request::{headers_json, route_call, route_request, unnamed, Checksums, Env, Req};

const TEXT: &str = "text/plain";
const OCTETS: &str = "application/octet-stream";
const JSON_TYPE: &str = "application/json";

/// What a request still owes once its head is answered.
#[derive(Debug)]
pub(crate) enum Owed {
    /// The request's body is being read; `route` is answered at its end (`first`: `/ping`'s
    /// first bytes).
    Reading {
        route: Route,
        first: [u8; 4],
        seen: u64,
    },
    /// `/echo`: the head is out, each piece of the body goes back as it comes (`held`: what
    /// the stream did not take yet), the end once the request's came.
    Echo {
        held: Vec<u8>,
        ended: bool,
        seen: u64,
    },
    /// Body bytes the protocol's flow control held back.
    Body { data: Vec<u8>, at: usize },
    /// A `/bytes` body.
    Bytes(Stream),
    /// `/sleep`: answered at `at` (its service slot's turn).
    Sleep { at: Instant, ms: u64 },
    /// `/fault/drip`: one byte at `at`, then every `every`.
    Drip {
        at: Instant,
        every: Duration,
        offset: u64,
        left: u64,
    },
    /// `/fault/stall`: nothing, until the client leaves (or the server shuts down).
    Stall,
    /// A gRPC call: its head is out, its messages go both ways, its status at the end; with
    /// `until`, nothing more is sent before then (`x-barrage-fault: delay=MS`).
    Grpc {
        call: Box<crate::grpc::Call>,
        until: Option<Instant>,
    },
}

/// A request's answer in progress.
#[derive(Debug)]
pub(crate) struct Pending {
    pub owed: Owed,
    req: Req,
    /// The status to log when it is done.
    status: u16,
}

impl Pending {
    /// When its timer is due (a sleep or a drip).
    pub(crate) fn due(&self) -> Option<Instant> {
        match self.owed {
            Owed::Sleep { at, .. } | Owed::Drip { at, .. } => Some(at),
            Owed::Grpc { until, .. } => until,
            _ => None,
        }
    }

    /// The server itself holds the answer back (the idle timeout does not apply).
    pub(crate) fn is_working(&self) -> bool {
        self.due().is_some()
    }

    /// Echo bytes held back.
    pub(crate) fn held(&self) -> usize {
        match &self.owed {
            Owed::Echo { held, .. } => held.len(),
            Owed::Grpc { call, .. } => call.held(),
            _ => 0,
        }
    }

    /// An echo whose head is out.
    pub(crate) fn is_echo(&self) -> bool {
        matches!(self.owed, Owed::Echo { .. })
    }

    /// The request, for a refusal in its place.
    pub(crate) fn into_req(self) -> Req {
        self.req
    }

    pub(crate) fn is_stall(&self) -> bool {
        matches!(self.owed, Owed::Stall)
    }

    /// A shutdown gives a stalled request up.
    pub(crate) fn cancel<K: Copy>(self, k: K, r: &mut impl Reply<K>) {
        r.act(k, Act::Cancel);
    }
}

/// A routed request whose head just came: `body` says whether a body follows (and its
/// declared length). Answered at once when it can be; otherwise what it still owes.
pub(crate) fn start<K: Copy>(
    k: K,
    rt: Route,
    req: Req,
    body: Option<Option<u64>>,
    r: &mut impl Reply<K>,
    env: &mut Env<'_>,
) -> Option<Pending> {
    let Some(length) = body else {
        return respond(k, rt, req, r, env);
    };
    // Faults act at once: the body does not matter to them (a drip, a GET, waits for it).
    if matches!(rt, Route::Fault(f) if !matches!(f, Fault::Drip { .. })) {
        return respond(k, rt, req, r, env);
    }
    if length.is_some_and(|n| n > env.shared.cfg.echo_limit) {
        return full(
            k,
            413,
            TEXT,
            b"request body too large\n",
            req,
            Extra::None,
            r,
        );
    }
    let owed = match rt {
        Route::Grpc(m, fault, enc) => return call::start(k, (m, enc), fault, req, r, env),
        Route::Echo if !req.is_head => {
            let len = length.map_or(BodyLen::Chunked, BodyLen::Fixed);
            r.head(k, 200, OCTETS, len, Extra::None, false);
            Owed::Echo {
                held: Vec::new(),
                ended: false,
                seen: 0,
            }
        }
        route => Owed::Reading {
            route,
            first: [0; 4],
            seen: 0,
        },
    };
    Some(Pending {
        owed,
        req,
        status: 200,
    })
}

/// Body bytes of a request whose answer is pending, the last ones with `end`. Returns what is
/// still owed (`None`: done, answered or cut short).
pub(crate) fn body<K: Copy>(
    k: K,
    mut p: Pending,
    data: &[u8],
    end: bool,
    r: &mut impl Reply<K>,
    env: &mut Env<'_>,
) -> Option<Pending> {
    let limit = env.shared.cfg.echo_limit;
    match &mut p.owed {
        Owed::Echo { held, ended, seen } => {
            *seen += data.len() as u64;
            if *seen > limit {
                // The head is out: all that is left is to cut the response short.
                r.act(k, Act::TooLarge);
                return None;
            }
            *ended = end;
            if held.is_empty() {
                let sent = r.data(k, data, end);
                if sent == data.len() && end {
                    finish(k, &p.req, 200, r);
                    return None;
                }
                held.extend_from_slice(&data[sent..]);
            } else {
                held.extend_from_slice(data);
            }
            if !held.is_empty() {
                r.hold(k, true);
            }
            Some(p)
        }
        Owed::Reading { first, seen, .. } => {
            for (i, &b) in data.iter().enumerate() {
                if let Some(slot) = first.get_mut(*seen as usize + i) {
                    *slot = b;
                }
            }
            *seen += data.len() as u64;
            if *seen > limit {
                let msg = b"request body too large\n";
                return full(k, 413, TEXT, msg, p.req, Extra::None, r);
            }
            if end {
                return self::end(k, p, r, env);
            }
            Some(p)
        }
        Owed::Grpc { call, .. } => {
            call.body(data, end);
            call::pump(k, p, r)
        }
        // A sleep, a drip or a body owed is the request's whatever its body.
        _ => Some(p),
    }
}

/// The request's body ended: the answer of a route read to its end, the end of an echo.
/// Returns what is still owed (`None`: done).
pub(crate) fn end<K: Copy>(
    k: K,
    mut p: Pending,
    r: &mut impl Reply<K>,
    env: &mut Env<'_>,
) -> Option<Pending> {
    match p.owed {
        Owed::Echo {
            ref held,
            ref mut ended,
            ..
        } => {
            *ended = true;
            if held.is_empty() {
                r.data(k, &[], true);
                finish(k, &p.req, 200, r);
                return None;
            }
            Some(p)
        }
        Owed::Reading {
            route: Route::Ping,
            first,
            seen,
        } => {
            if seen == 4 && &first == b"ping" {
                full(k, 200, TEXT, b"pong", p.req, Extra::None, r)
            } else {
                full(
                    k,
                    400,
                    TEXT,
                    b"expected the body ping\n",
                    p.req,
                    Extra::None,
                    r,
                )
            }
        }
        Owed::Reading {
            route: Route::Sink,
            seen,
            ..
        } => sink(k, seen, p.req, r),
        Owed::Reading { route, .. } => respond(k, route, p.req, r, env),
        Owed::Grpc { ref mut call, .. } => {
            call.body(&[], true);
            call::pump(k, p, r)
        }
        _ => Some(p),
    }
}

/// Room freed on the request's stream: sends what it takes of the body owed. True when done.
pub(crate) fn pump<K: Copy>(k: K, p: &mut Pending, r: &mut impl Reply<K>) -> bool {
    let done = match &mut p.owed {
        Owed::Echo { held, ended, .. } => {
            if held.is_empty() {
                return false;
            }
            let sent = r.data(k, held, *ended);
            held.drain(..sent);
            if held.is_empty() && !*ended {
                r.hold(k, false);
            }
            held.is_empty() && *ended
        }
        Owed::Body { data, at } => {
            *at += r.data(k, &data[*at..], true);
            *at == data.len()
        }
        Owed::Bytes(s) => r.pattern(k, s),
        Owed::Grpc { .. } => return call::flush(k, p, r),
        _ => return false,
    };
    if done {
        finish(k, &p.req, p.status, r);
    }
    done
}

/// The request's timer fired (a sleep over, a drip byte due, a call's delay over) at
/// `env.now`; true when done.
pub(crate) fn fire<K: Copy>(
    k: K,
    p: &mut Pending,
    r: &mut impl Reply<K>,
    env: &mut Env<'_>,
) -> bool {
    let now = env.now;
    match &mut p.owed {
        Owed::Sleep { at, ms } if *at <= now => {
            let msg = format!("slept {ms} ms\n");
            let req = take_req(p);
            match full(k, 200, TEXT, msg.as_bytes(), req, Extra::None, r) {
                Some(rest) => {
                    *p = rest;
                    false
                }
                None => true,
            }
        }
        Owed::Drip {
            at,
            every,
            offset,
            left,
        } if *at <= now => {
            let b = [pattern::byte_at(*offset)];
            if r.data(k, &b, *left == 1) == 1 {
                *offset += 1;
                *left -= 1;
            }
            *at = now + *every;
            let done = *left == 0 || !r.open(k);
            if done {
                finish(k, &p.req, 200, r);
            }
            done
        }
        Owed::Grpc { until, .. } if until.is_some_and(|at| at <= now) => {
            *until = None;
            call::flush(k, p, r)
        }
        _ => false,
    }
}

/// Answers a routed request whose body (if any) has been read.
pub(crate) fn respond<K: Copy>(
    k: K,
    rt: Route,
    req: Req,
    r: &mut impl Reply<K>,
    env: &mut Env<'_>,
) -> Option<Pending> {
    match rt {
        Route::Hello | Route::Json => {
            let (f, ct, body) = match rt {
                Route::Hello => (Fixed::Hello, TEXT, HELLO),
                _ => (Fixed::Json, JSON_TYPE, JSON),
            };
            if r.fixed(k, f, req.is_head) {
                finish(k, &req, 200, r);
                return None;
            }
            full(k, 200, ct, body, req, Extra::None, r)
        }
        Route::Echo => full(k, 200, OCTETS, b"", req, Extra::None, r),
        Route::Sink => sink(k, 0, req, r),
        Route::Headers(json) => full(k, 200, JSON_TYPE, &json, req, Extra::None, r),
        Route::Ping => full(
            k,
            400,
            TEXT,
            b"expected the body ping\n",
            req,
            Extra::None,
            r,
        ),
        Route::Status(code) => {
            let msg = format!("{code} {}\n", reason(code));
            full(k, code, TEXT, msg.as_bytes(), req, Extra::None, r)
        }
        Route::NotFound => full(k, 404, TEXT, b"not found\n", req, Extra::None, r),
        Route::MethodNotAllowed(allow) => {
            let extra = Extra::Allow(allow);
            full(k, 405, TEXT, b"method not allowed\n", req, extra, r)
        }
        Route::BadParam(msg) => {
            let msg = format!("{msg}\n");
            full(k, 400, TEXT, msg.as_bytes(), req, Extra::None, r)
        }
        // HTTP/1.1 upgrades before it gets here (`conn::ws`): only a request with a body, or
        // another protocol's (RFC 8441's extended CONNECT is not served), can.
        Route::WsEcho(_) => {
            let msg = b"WebSocket is served over HTTP/1.1 only, without a request body\n";
            full(k, 400, TEXT, msg, req, Extra::None, r)
        }
        Route::Grpc(m, fault, enc) => {
            let p = call::start(k, (m, enc), fault, req, r, env)?;
            end(k, p, r, env)
        }
        Route::Sleep { ms } => {
            let at = env.shared.sleep_until(env.now, Duration::from_millis(ms));
            owe(Owed::Sleep { at, ms }, req, 200)
        }
        Route::Bytes { n, chunked, chunk } => {
            let sum = env.checksums.of(n);
            // HTTP/2 and HTTP/3 have no chunked framing: there `?chunked=1` leaves the length
            // out.
            let len = if chunked {
                BodyLen::Chunked
            } else {
                BodyLen::Fixed(n)
            };
            let end = req.is_head || (n == 0 && !chunked);
            r.head(k, 200, OCTETS, len, Extra::Checksum(&sum), end);
            if end {
                finish(k, &req, 200, r);
                return None;
            }
            let mut p = Pending {
                owed: Owed::Bytes(Stream::new(n, chunk, chunked)),
                req,
                status: 200,
            };
            (!pump(k, &mut p, r)).then_some(p)
        }
        Route::Fault(Fault::Reset) => {
            r.act(k, Act::Reset);
            None
        }
        Route::Fault(Fault::Close) => {
            r.act(k, Act::Close);
            None
        }
        Route::Fault(Fault::Garbage) => {
            r.act(k, Act::Garbage);
            None
        }
        Route::Fault(Fault::Stall) => owe(Owed::Stall, req, 0),
        Route::Fault(Fault::Drip { bytes, every_ms }) => {
            let sum = env.checksums.of(bytes);
            let end = req.is_head || bytes == 0;
            r.head(
                k,
                200,
                OCTETS,
                BodyLen::Fixed(bytes),
                Extra::Checksum(&sum),
                end,
            );
            if end {
                finish(k, &req, 200, r);
                return None;
            }
            let every = Duration::from_millis(every_ms);
            let owed = Owed::Drip {
                at: env.now + every,
                every,
                offset: 0,
                left: bytes,
            };
            owe(owed, req, 200)
        }
    }
}

/// `/sink`: the size of the body read and dropped.
fn sink<K: Copy>(k: K, seen: u64, req: Req, r: &mut impl Reply<K>) -> Option<Pending> {
    let msg = format!("received {seen} bytes\n");
    full(k, 200, TEXT, msg.as_bytes(), req, Extra::None, r)
}

fn owe(owed: Owed, req: Req, status: u16) -> Option<Pending> {
    Some(Pending { owed, req, status })
}

/// The request out of a pending answer that is being replaced.
fn take_req(p: &mut Pending) -> Req {
    std::mem::replace(
        &mut p.req,
        Req {
            is_head: false,
            log: None,
        },
    )
}

/// A whole response with a small body (none for HEAD and for statuses that have none): what
/// the flow control held back is owed.
pub(crate) fn full<K: Copy>(
    k: K,
    status: u16,
    ct: &'static str,
    body: &[u8],
    req: Req,
    extra: Extra<'_>,
    r: &mut impl Reply<K>,
) -> Option<Pending> {
    let bodiless = status < 200 || status == 204 || status == 304;
    let (len, body) = if bodiless {
        (BodyLen::NoBody, &b""[..])
    } else {
        (BodyLen::Fixed(body.len() as u64), body)
    };
    let end = req.is_head || body.is_empty();
    r.head(k, status, ct, len, extra, end);
    if !end {
        let sent = r.data(k, body, true);
        if sent < body.len() {
            let owed = Owed::Body {
                data: body[sent..].to_vec(),
                at: 0,
            };
            return owe(owed, req, status);
        }
    }
    finish(k, &req, status, r);
    None
}

/// A response is complete: the protocol's end of it and its access log line.
pub(crate) fn finish<K: Copy>(k: K, req: &Req, status: u16, r: &mut impl Reply<K>) {
    r.done(k, status);
    if let Some(line) = &req.log {
        r.shared().log(line, status);
    }
}

#[cfg(test)]
mod tests;

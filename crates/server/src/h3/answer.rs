//! HTTP/3 requests to answers: the same routes as HTTP/1.1 and HTTP/2 ([`crate::route`]), and
//! what each unfinished stream still owes (a body the stream's buffer holds back, a `/bytes`
//! run, a sleep or drip waiting on the loop's timer, a request body being read).
//!
//! Faults over HTTP/3: `/fault/reset` resets the stream (H3_INTERNAL_ERROR) and the connection
//! goes on; `/fault/close` closes the connection (H3_NO_ERROR, as a server closing would);
//! `/fault/garbage` answers with a HEADERS frame no QPACK decoder accepts (a connection error for
//! the client); `/fault/stall` never answers; `/fault/drip` answers one byte at a time.
//! WebSocket (`/ws/echo`) is not served over HTTP/3 (400, as over HTTP/2).
//!
//! Memory: a request body is read as it arrives. `/echo` answers at once and sends each piece
//! back as it comes; what the stream's buffer cannot take yet is held, and while anything is
//! held the session reads no more of that request ([`Server::pause`]), so an echo holds at most
//! what QUIC had already received. A body past `echo_limit` is refused (413 when
//! `content-length` says so, the stream reset when the body goes past it). Every other body is
//! dropped as it comes.

use crate::pattern;
use crate::respond::{reason, Templates, HELLO, JSON, SERVER};
use crate::route::{route, Fault, Route};
use crate::Shared;
use barrage_wire::h3::server::{Event, Head, Server, StreamRef};
use barrage_wire::h3::ErrorCode;
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod owed;
use owed::Owed;

/// The HTTP/3 thread's answers in progress.
pub(super) struct Answers {
    pub(super) shared: Arc<Shared>,
    counters: usize,
    templates: Templates,
    /// By connection handle and stream id: stream ids are the client's, but QUIC bounds how
    /// many are open, so Fx hashing cannot be flooded.
    owed: FxHashMap<StreamRef, Owed>,
    /// Sleeps' and drips' deadlines ([`owed`]).
    timers: BinaryHeap<Reverse<(Instant, StreamRef)>>,
    checksums: HashMap<u64, String>,
}

impl Answers {
    pub(super) fn new(shared: Arc<Shared>, counters: usize) -> Answers {
        Answers {
            shared,
            counters,
            templates: Templates::new(None),
            owed: FxHashMap::default(),
            timers: BinaryHeap::new(),
            checksums: HashMap::new(),
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
        self.owed.is_empty()
    }

    /// A shutdown: stalled streams would hold the grace period for nothing.
    pub(super) fn drain(&mut self, server: &mut Server) {
        let stalled: Vec<StreamRef> = self
            .owed
            .iter()
            .filter(|(_, o)| matches!(o, Owed::Stall))
            .map(|(k, _)| *k)
            .collect();
        for id in stalled {
            server.reset(id, ErrorCode::RequestCancelled);
            self.owed.remove(&id);
        }
    }

    /// Answers every event the server has.
    pub(super) fn events(&mut self, server: &mut Server, now: Instant) {
        while let Some(ev) = server.poll_event() {
            match ev {
                Event::Request { id, head } => self.request(server, id, head, now),
                Event::Body { id, data } => self.body(server, id, &data, now),
                Event::End { id, whole } => {
                    if whole {
                        self.end(server, id, now);
                    }
                }
                Event::TooLarge { id } => {
                    self.owed.remove(&id);
                    let msg = b"request header fields too large\n";
                    self.full(server, id, 431, "text/plain", msg, false);
                }
                Event::Gone { id } => {
                    self.owed.remove(&id);
                }
                Event::Writable { id } => self.resume(server, id, now),
            }
        }
    }

    fn request(&mut self, server: &mut Server, id: StreamRef, head: Head, now: Instant) {
        let (path, query) = match head.path.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (head.path.as_str(), None),
        };
        let is_head = head.method == "HEAD";
        let mut rt = route(&head.method, path, query, || headers_json(&head));
        // `--fault-rate`: from the same server-wide sequence as the TCP workers' picks.
        if let Some(f) = crate::worker::pick_fault(&self.shared) {
            rt = Route::Fault(f);
        }
        if let Route::Fault(_) = rt {
            // Faults act at once, whatever the body.
            return self.respond(server, id, rt, is_head, now);
        }
        if matches!(rt, Route::Echo) && head.content_length.is_some_and(|n| n > self.echo_limit()) {
            self.owed.remove(&id);
            return self.full(
                server,
                id,
                413,
                "text/plain",
                b"request body too large\n",
                false,
            );
        }
        if matches!(rt, Route::Echo) && !is_head {
            let ct = "application/octet-stream";
            self.head(server, id, 200, ct, head.content_length, &[], false);
            let owed = Owed::Echo {
                held: Vec::new(),
                ended: false,
                seen: 0,
            };
            self.owed.insert(id, owed);
            return;
        }
        self.owed.insert(
            id,
            Owed::Reading {
                route: rt,
                is_head,
                body: Vec::new(),
                seen: 0,
            },
        );
    }

    fn echo_limit(&self) -> u64 {
        self.shared.cfg.echo_limit
    }

    fn body(&mut self, server: &mut Server, id: StreamRef, data: &[u8], now: Instant) {
        let limit = self.echo_limit();
        if let Some(Owed::Echo { held, seen, .. }) = self.owed.get_mut(&id) {
            *seen += data.len() as u64;
            if *seen > limit {
                self.owed.remove(&id);
                server.reset(id, ErrorCode::ExcessiveLoad);
                return;
            }
            let sent = if held.is_empty() {
                server.send_data(id, data, false)
            } else {
                0
            };
            held.extend_from_slice(&data[sent..]);
            if !held.is_empty() {
                server.pause(now, id, true);
            }
            return;
        }
        let Some(Owed::Reading {
            route, body, seen, ..
        }) = self.owed.get_mut(&id)
        else {
            return;
        };
        *seen += data.len() as u64;
        match route {
            Route::Echo => {
                if *seen > limit {
                    self.owed.remove(&id);
                    server.reset(id, ErrorCode::ExcessiveLoad);
                    return;
                }
                body.extend_from_slice(data);
            }
            Route::Ping => {
                let keep = 4usize.saturating_sub(body.len()).min(data.len());
                body.extend_from_slice(&data[..keep]);
            }
            _ => {}
        }
    }

    fn end(&mut self, server: &mut Server, id: StreamRef, now: Instant) {
        if let Some(Owed::Echo { held, ended, .. }) = self.owed.get_mut(&id) {
            *ended = true;
            if held.is_empty() {
                server.send_data(id, &[], true);
                self.owed.remove(&id);
            }
            return;
        }
        // A fault, a sleep or a body already owed is the stream's whatever its request's end.
        if !matches!(self.owed.get(&id), Some(Owed::Reading { .. })) {
            return;
        }
        let Some(Owed::Reading {
            route,
            is_head,
            body,
            seen,
        }) = self.owed.remove(&id)
        else {
            return;
        };
        match route {
            Route::Echo => {
                let ct = "application/octet-stream";
                let len = body.len();
                self.head(
                    server,
                    id,
                    200,
                    ct,
                    Some(len as u64),
                    &[],
                    is_head || len == 0,
                );
                if !is_head && len > 0 {
                    self.data(server, id, body);
                }
            }
            Route::Ping => {
                if seen == 4 && body == b"ping" {
                    self.full(server, id, 200, "text/plain", b"pong", false);
                } else {
                    let msg = b"expected the body ping\n";
                    self.full(server, id, 400, "text/plain", msg, false);
                }
            }
            other => self.respond(server, id, other, is_head, now),
        }
    }

    /// Answers a routed request whose body has been read.
    fn respond(
        &mut self,
        server: &mut Server,
        id: StreamRef,
        rt: Route,
        is_head: bool,
        now: Instant,
    ) {
        let text = "text/plain";
        match rt {
            Route::Hello => self.full(server, id, 200, text, HELLO, is_head),
            Route::Json => self.full(server, id, 200, "application/json", JSON, is_head),
            Route::Headers(json) => self.full(server, id, 200, "application/json", &json, is_head),
            Route::Echo => self.full(server, id, 200, "application/octet-stream", b"", is_head),
            Route::Ping => self.full(server, id, 400, text, b"expected the body ping\n", false),
            Route::Status(code) => {
                let msg = format!("{code} {}\n", reason(code));
                let body = if matches!(code, 204 | 304) {
                    &b""[..]
                } else {
                    msg.as_bytes()
                };
                self.full(server, id, code, text, body, is_head)
            }
            Route::NotFound => self.full(server, id, 404, text, b"not found\n", false),
            Route::WsEcho(_) => {
                let msg = b"WebSocket is served over HTTP/1.1 only\n";
                self.full(server, id, 400, text, msg, false)
            }
            Route::MethodNotAllowed(allow) => {
                let extra = [("allow", allow.as_bytes())];
                let body = b"method not allowed\n";
                self.head(
                    server,
                    id,
                    405,
                    text,
                    Some(body.len() as u64),
                    &extra,
                    false,
                );
                self.data(server, id, body.to_vec());
            }
            Route::BadParam(msg) => {
                let msg = format!("{msg}\n");
                self.full(server, id, 400, text, msg.as_bytes(), false)
            }
            Route::Sleep { ms } => {
                let at = self.shared.sleep_until(now, Duration::from_millis(ms));
                self.owe(id, Owed::Sleep { at, ms });
            }
            Route::Bytes { n, .. } => {
                // HTTP/3 has no chunked framing: `?chunked=1` changes nothing here but the
                // content-length, left out as over HTTP/2.
                let chunked = matches!(rt, Route::Bytes { chunked: true, .. });
                let sum = self.checksum(n);
                let extra = [("x-checksum", sum.as_bytes())];
                let end = is_head || n == 0;
                let len = (!chunked).then_some(n);
                self.head(
                    server,
                    id,
                    200,
                    "application/octet-stream",
                    len,
                    &extra,
                    end,
                );
                if !end {
                    let (mut offset, mut left) = (0, n);
                    owed::bytes(server, id, &mut offset, &mut left);
                    if left > 0 {
                        self.owed.insert(id, Owed::Bytes { offset, left });
                    }
                }
            }
            Route::Fault(Fault::Reset) => server.reset(id, ErrorCode::Internal),
            Route::Fault(Fault::Close) => server.close_conn(id, now),
            Route::Fault(Fault::Garbage) => server.garbage(id),
            Route::Fault(Fault::Stall) => {
                self.owed.insert(id, Owed::Stall);
            }
            Route::Fault(Fault::Drip { bytes, every_ms }) => {
                let sum = self.checksum(bytes);
                let extra = [("x-checksum", sum.as_bytes())];
                let end = is_head || bytes == 0;
                let ct = "application/octet-stream";
                self.head(server, id, 200, ct, Some(bytes), &extra, end);
                if !end {
                    let every = Duration::from_millis(every_ms);
                    let owed = Owed::Drip {
                        at: now + every,
                        every,
                        offset: 0,
                        left: bytes,
                    };
                    self.owe(id, owed);
                }
            }
        }
    }

    fn checksum(&mut self, n: u64) -> String {
        if self.checksums.len() > 1024 {
            self.checksums.clear();
        }
        self.checksums
            .entry(n)
            .or_insert_with(|| pattern::checksum(n))
            .clone()
    }

    /// A response head: `:status`, server, date, content-type, content-length when known.
    #[allow(clippy::too_many_arguments)]
    fn head(
        &mut self,
        server: &mut Server,
        id: StreamRef,
        status: u16,
        content_type: &str,
        len: Option<u64>,
        extra: &[(&str, &[u8])],
        end: bool,
    ) {
        self.shared.counters[self.counters].response_h3(status);
        let len_s = len.map(|l| l.to_string());
        let mut h: Vec<(&str, &[u8])> = vec![
            ("server", SERVER.as_bytes()),
            ("date", self.templates.date()),
            ("content-type", content_type.as_bytes()),
        ];
        if let Some(l) = &len_s {
            h.push(("content-length", l.as_bytes()));
        }
        h.extend_from_slice(extra);
        server.respond(id, status, &h, end);
    }

    /// A whole response with a small body (none for HEAD and bodiless statuses).
    fn full(
        &mut self,
        server: &mut Server,
        id: StreamRef,
        status: u16,
        content_type: &str,
        body: &[u8],
        is_head: bool,
    ) {
        let end = is_head || body.is_empty();
        self.head(
            server,
            id,
            status,
            content_type,
            Some(body.len() as u64),
            &[],
            end,
        );
        if !end {
            self.data(server, id, body.to_vec());
        }
    }

    /// Sends a whole body, keeping what the stream's buffer holds back.
    fn data(&mut self, server: &mut Server, id: StreamRef, body: Vec<u8>) {
        let sent = server.send_data(id, &body, true);
        if sent < body.len() {
            self.owed.insert(
                id,
                Owed::Body {
                    data: body,
                    at: sent,
                },
            );
        }
    }
}

/// `/headers` over HTTP/3: the same document as HTTP/2's, `version` "HTTP/3".
fn headers_json(h: &Head) -> Vec<u8> {
    let headers: Vec<serde_json::Value> = h
        .headers
        .iter()
        .map(|(n, v)| serde_json::json!([n, v]))
        .collect();
    let v = serde_json::json!({
        "method": h.method,
        "target": h.path,
        "version": "HTTP/3",
        "headers": headers,
    });
    serde_json::to_vec(&v).unwrap_or_default()
}

//! Answering requests: the endpoints' responses, timers, and the end of each response.

use super::{Busy, Conn, End, Req, GARBAGE};
use crate::pattern;
use crate::respond::{BodyLen, ConnInfo};
use crate::route::{Fault, Route, RANDOM_FAULTS};
use crate::stream::Stream;
use crate::worker::Ctx;
use barrage_wire::RequestHead;
use std::io::{self, Write};
use std::time::Duration;

impl Conn {
    /// Answers a routed request whose body (if any) has been read.
    pub(super) fn respond(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>, r: Route, req: Req) {
        let ci = self.conn_info(ctx, &req);
        match r {
            Route::Hello => {
                ctx.templates.hello(out, ci, req.is_head);
                self.finish(ctx, &req, 200);
            }
            Route::Json => {
                ctx.templates.json(out, ci, req.is_head);
                self.finish(ctx, &req, 200);
            }
            Route::Ping => self.simple(ctx, out, &req, 400, b"expected the body ping\n", &[]),
            Route::Echo => {
                let t = ctx.templates;
                t.full(
                    out,
                    200,
                    Some("application/octet-stream"),
                    b"",
                    ci,
                    req.is_head,
                    &[],
                );
                self.finish(ctx, &req, 200);
            }
            Route::Headers(json) => {
                let t = ctx.templates;
                t.full(
                    out,
                    200,
                    Some("application/json"),
                    &json,
                    ci,
                    req.is_head,
                    &[],
                );
                self.finish(ctx, &req, 200);
            }
            Route::Status(code) => {
                let msg = format!("{code} {}\n", crate::respond::reason(code));
                self.simple(ctx, out, &req, code, msg.as_bytes(), &[]);
            }
            Route::NotFound => self.simple(ctx, out, &req, 404, b"not found\n", &[]),
            Route::MethodNotAllowed(allow) => self.simple(
                ctx,
                out,
                &req,
                405,
                b"method not allowed\n",
                &[("Allow", allow)],
            ),
            Route::BadParam(msg) => {
                let msg = format!("{msg}\n");
                self.simple(ctx, out, &req, 400, msg.as_bytes(), &[]);
            }
            // Upgraded before it gets here (`Conn::upgrade`); only a request with a body could.
            Route::WsEcho(_) => self.simple(
                ctx,
                out,
                &req,
                400,
                b"a WebSocket upgrade has no body\n",
                &[],
            ),
            Route::Sleep { ms } => {
                let at = ctx.shared.sleep_until(ctx.now, Duration::from_millis(ms));
                self.arm_timer(ctx, at - ctx.now);
                self.busy = Busy::Sleep { req, ms };
            }
            Route::Bytes { n, chunked, chunk } => {
                let sum = ctx.checksum(n);
                let len = if chunked {
                    BodyLen::Chunked
                } else {
                    BodyLen::Fixed(n)
                };
                let extra = [("X-Checksum", sum.as_str())];
                ctx.templates
                    .head(out, 200, Some("application/octet-stream"), len, ci, &extra);
                if req.is_head || (n == 0 && !chunked) {
                    self.finish(ctx, &req, 200);
                } else {
                    self.busy = Busy::Stream {
                        req,
                        stream: Stream::new(n, chunk, chunked),
                    };
                }
            }
            Route::Fault(Fault::Reset) => self.closing = Some(End::Reset),
            Route::Fault(Fault::Close) => self.closing = Some(End::Close),
            Route::Fault(Fault::Garbage) => {
                out.extend_from_slice(GARBAGE);
                self.closing = Some(End::Close);
            }
            Route::Fault(Fault::Stall) => self.busy = Busy::Stall,
            Route::Fault(Fault::Drip { bytes, every_ms }) => {
                let sum = ctx.checksum(bytes);
                let extra = [("X-Checksum", sum.as_str())];
                ctx.templates.head(
                    out,
                    200,
                    Some("application/octet-stream"),
                    BodyLen::Fixed(bytes),
                    ci,
                    &extra,
                );
                if req.is_head || bytes == 0 {
                    self.finish(ctx, &req, 200);
                } else {
                    let every = Duration::from_millis(every_ms);
                    self.arm_timer(ctx, every);
                    self.busy = Busy::Drip {
                        req,
                        left: bytes,
                        offset: 0,
                        every,
                    };
                }
            }
        }
    }

    /// A timer of this connection fired: the sleep is over, or the next drip byte is due.
    pub(super) fn fire_timer(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>) {
        match std::mem::replace(&mut self.busy, Busy::None) {
            Busy::Sleep { req, ms } => {
                let msg = format!("slept {ms} ms\n");
                self.simple(ctx, out, &req, 200, msg.as_bytes(), &[]);
            }
            Busy::Drip {
                req,
                left,
                offset,
                every,
            } => {
                out.push(pattern::byte_at(offset));
                if left > 1 {
                    self.arm_timer(ctx, every);
                    self.busy = Busy::Drip {
                        req,
                        left: left - 1,
                        offset: offset + 1,
                        every,
                    };
                } else {
                    self.finish(ctx, &req, 200);
                }
            }
            other => self.busy = other,
        }
    }

    pub(super) fn arm_timer(&mut self, ctx: &mut Ctx<'_>, after: Duration) {
        self.timer_seq += 1;
        ctx.arm_timer(ctx.now + after, self.id, self.timer_seq);
    }

    pub(super) fn conn_info(&self, ctx: &Ctx<'_>, req: &Req) -> ConnInfo {
        ConnInfo {
            keep_alive: req.keep_alive && !ctx.draining,
            minor: req.minor,
        }
    }

    /// A whole small response, then [`Conn::finish`].
    pub(super) fn simple(
        &mut self,
        ctx: &mut Ctx<'_>,
        out: &mut Vec<u8>,
        req: &Req,
        status: u16,
        body: &[u8],
        extra: &[(&str, &str)],
    ) {
        let ci = self.conn_info(ctx, req);
        ctx.templates.full(
            out,
            status,
            Some("text/plain"),
            body,
            ci,
            req.is_head,
            extra,
        );
        self.finish(ctx, req, status);
    }

    /// A response is complete (or fully queued): log it, and close afterwards if asked.
    pub(super) fn finish(&mut self, ctx: &mut Ctx<'_>, req: &Req, status: u16) {
        ctx.counters.response(false, status);
        if !req.keep_alive || ctx.draining {
            self.closing.get_or_insert(End::Close);
        }
        if let Some(line) = &req.log {
            // The access log is the one thing this library prints, and only when asked to.
            let _ = writeln!(io::stderr().lock(), "{line} {status}");
        }
    }
}

/// `/headers`: the request line and headers as JSON, in order, duplicates kept.
pub(super) fn headers_json(h: &RequestHead<'_, '_>) -> Vec<u8> {
    let headers: Vec<serde_json::Value> = h
        .headers
        .iter()
        .map(|x| serde_json::json!([x.name, String::from_utf8_lossy(x.value)]))
        .collect();
    let v = serde_json::json!({
        "method": h.method,
        "target": h.target,
        "version": format!("HTTP/1.{}", h.version_minor),
        "headers": headers,
    });
    serde_json::to_vec(&v).unwrap_or_default()
}

/// `/headers` over HTTP/2: the same document, `version` "HTTP/2", the target from `:path`
/// (pseudo-header fields left out, as they are no headers).
pub(super) fn headers_json_h2(r: &barrage_wire::h2::server::Request<'_>) -> Vec<u8> {
    let headers: Vec<serde_json::Value> = r
        .headers()
        .map(|(name, value)| serde_json::json!([name, String::from_utf8_lossy(value)]))
        .collect();
    let v = serde_json::json!({
        "method": r.method,
        "target": r.path,
        "version": "HTTP/2",
        "headers": headers,
    });
    serde_json::to_vec(&v).unwrap_or_default()
}

/// The faults `--fault-rate` may pick, exported for the worker's picker.
pub(crate) fn random_fault(r: u64) -> Fault {
    RANDOM_FAULTS[(r % RANDOM_FAULTS.len() as u64) as usize]
}

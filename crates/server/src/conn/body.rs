//! HTTP/1.1's request bodies: read by their framing (`Content-Length` or chunked, the limit
//! counted as they come), each piece handed to the answer waiting for it, and the body's end
//! to it too; a chunked `/echo` begins only once its first chunk-size line is known to be good
//! (`first_chunk`). A body that breaks its framing or passes the limit ends the connection
//! after a 400 or 413 (or, once an echo's head is out, cuts it short).

use super::first_chunk::{self, FirstChunk};
use super::{Body, Conn, End, H1Reply};
use crate::answer::{self, Env, Pending};
use crate::respond::ConnInfo;
use crate::worker::Ctx;

impl Conn {
    /// Feeds request body bytes; answers when the body is complete. Returns the bytes consumed.
    pub(super) fn feed_body(&mut self, ctx: &mut Ctx<'_>, inp: &[u8], out: &mut Vec<u8>) -> usize {
        let limit = ctx.cfg().echo_limit;
        if let Some(Body {
            deferred: Some(_), ..
        }) = &self.body
        {
            let failed = match first_chunk::check(inp, limit) {
                FirstChunk::Pending => return 0,
                FirstChunk::Ok => None,
                FirstChunk::Malformed => Some((400, &b"malformed chunked body\n"[..])),
                FirstChunk::TooLarge => Some((413, &b"request body too large\n"[..])),
            };
            let (rt, req) = self
                .body
                .as_mut()
                .and_then(|b| b.deferred.take())
                .expect("checked above");
            if let Some((status, msg)) = failed {
                self.body = None;
                self.ci.keep_alive = false;
                self.full(ctx, out, status, msg, req);
                return inp.len();
            }
            self.start(ctx, out, rt, req, Some(None));
        }
        let (mut r, mut env) = h1!(self, ctx, out, false);
        let Some(Body { dec, seen, .. }) = self.body.as_mut() else {
            return 0;
        };
        let pending = &mut self.pending;
        let mut too_big = false;
        let result = dec.decode(inp, |data| {
            *seen += data.len() as u64;
            if *seen > limit {
                too_big = true;
                return;
            }
            if let Some(p) = pending.take() {
                *pending = answer::body((), p, data, false, &mut r, &mut env);
            }
        });
        let done = dec.is_done();
        let failed = match result {
            Err(_) => Some((400, &b"malformed request body\n"[..])),
            Ok(_) if too_big => Some((413, &b"request body too large\n"[..])),
            Ok(_) => None,
        };
        if let Some((status, msg)) = failed {
            self.body = None;
            match self.pending.take() {
                // The echo's head is out: all we can do is cut the response short.
                Some(p) if p.is_echo() => self.closing = Some(End::Close),
                p => {
                    self.ci.keep_alive = false;
                    let req = p.map_or_else(|| answer::unnamed(ctx.shared), Pending::into_req);
                    self.full(ctx, out, status, msg, req);
                }
            }
            return inp.len();
        }
        if done {
            self.body = None;
            if let Some(p) = self.pending.take() {
                let (mut r, mut env) = h1!(self, ctx, out, false);
                let p = answer::end((), p, &mut r, &mut env);
                self.owe(ctx, p);
            }
        }
        result.unwrap_or(0)
    }
}

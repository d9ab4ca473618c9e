//! Writing HTTP/2 responses: the head every endpoint shares (`:status`, server, date,
//! content-type, content-length), whole small responses, bodies the windows hold back, and the
//! access log line of each finished response.

use super::{Owed, Pending, H2};
use crate::respond::SERVER;
use crate::worker::Ctx;
use std::io::Write as _;

impl H2 {
    /// A response head: `:status`, server, date, content-type, content-length when known.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn head(
        &mut self,
        ctx: &Ctx<'_>,
        out: &mut Vec<u8>,
        stream: u32,
        status: u16,
        content_type: &str,
        len: Option<u64>,
        extra: &[(&str, &[u8])],
        end_stream: bool,
    ) {
        ctx.counters.response(true, status);
        let mut n = itoa_buf();
        let len_s = len.map(|l| fmt_u64(&mut n, l));
        let mut h: [(&str, &[u8]); 7] = [("", b""); 7];
        let mut k = 0;
        let mut push = |name, value| {
            h[k] = (name, value);
            k += 1;
        };
        push("server", SERVER.as_bytes());
        push("date", ctx.templates.date());
        let alt_svc = ctx.templates.alt_svc();
        if !alt_svc.is_empty() {
            push("alt-svc", alt_svc);
        }
        push("content-type", content_type.as_bytes());
        if let Some(l) = len_s {
            push("content-length", l);
        }
        for &(name, value) in extra.iter().take(2) {
            push(name, value);
        }
        self.server
            .respond(out, stream, status, &h[..k], end_stream);
    }

    /// A whole response with a body (or none for HEAD).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn full(
        &mut self,
        ctx: &Ctx<'_>,
        out: &mut Vec<u8>,
        stream: u32,
        status: u16,
        content_type: &str,
        body: &[u8],
        is_head: bool,
        log: Option<Box<str>>,
    ) {
        let end = is_head || body.is_empty();
        self.head(
            ctx,
            out,
            stream,
            status,
            content_type,
            Some(body.len() as u64),
            &[],
            end,
        );
        if end {
            log_line(&log, status);
        } else {
            self.data(out, stream, body, log, status);
        }
    }

    /// A short text/plain response.
    pub(super) fn simple(
        &mut self,
        ctx: &Ctx<'_>,
        out: &mut Vec<u8>,
        stream: u32,
        status: u16,
        body: &[u8],
        log: Option<Box<str>>,
    ) {
        self.full(ctx, out, stream, status, "text/plain", body, false, log);
    }

    /// Sends a whole body, keeping what the windows hold back.
    pub(super) fn data(
        &mut self,
        out: &mut Vec<u8>,
        stream: u32,
        body: &[u8],
        log: Option<Box<str>>,
        st: u16,
    ) {
        let sent = self.server.send_data(out, stream, body, true);
        if sent < body.len() {
            self.owe(stream, Owed::Body(body[sent..].to_vec()), log, st);
        } else {
            log_line(&log, st);
        }
    }
}

pub(super) fn log(p: &Pending, status: u16) {
    log_line(&p.log, status);
}

/// The access log line of a finished response (only with `--log`).
pub(super) fn log_line(line: &Option<Box<str>>, status: u16) {
    if let Some(line) = line {
        let _ = writeln!(std::io::stderr().lock(), "{line} {status}");
    }
}

fn itoa_buf() -> [u8; 20] {
    [0; 20]
}

/// `n` in decimal, in `buf`.
fn fmt_u64(buf: &mut [u8; 20], mut n: u64) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[i..]
}

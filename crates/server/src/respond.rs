//! Writing response heads and small whole responses into an output buffer.
//!
//! The hot responses (`GET /` and `GET /json` on a keep-alive HTTP/1.1 connection) are rendered
//! once per second, when the Date changes, and copied whole; everything else is assembled here
//! from parts. Nothing allocates except the output buffer's growth.

use crate::answer::Extra;
use crate::date::DateCache;
use std::io::Write;

pub(crate) const SERVER: &str = "barrage";
pub(crate) const HELLO: &[u8] = b"Hello, World!";
pub(crate) const JSON: &[u8] = br#"{"message":"Hello, World!"}"#;

/// How the body of a response is framed, as its head announces it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyLen {
    Fixed(u64),
    Chunked,
    /// 1xx, 204, 304: no body and no length header.
    NoBody,
}

/// What the response says about the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ConnInfo {
    pub keep_alive: bool,
    pub minor: u8,
}

impl ConnInfo {
    fn header(self) -> &'static [u8] {
        match (self.keep_alive, self.minor) {
            (false, _) => b"Connection: close\r\n",
            (true, 0) => b"Connection: keep-alive\r\n",
            (true, _) => b"",
        }
    }
}

/// Per-thread response templates, refreshed when the second changes.
pub(crate) struct Templates {
    date: DateCache,
    /// `Alt-Svc`'s value on every response (HTTP/3 advertised), or empty.
    alt_svc: Vec<u8>,
    hello: Vec<u8>,
    json: Vec<u8>,
}

impl Templates {
    /// `alt_svc`: the `Alt-Svc` value every response carries (with `--http3`).
    pub(crate) fn new(alt_svc: Option<String>) -> Self {
        let mut t = Templates {
            date: DateCache::new(),
            alt_svc: alt_svc.map(String::into_bytes).unwrap_or_default(),
            hello: Vec::new(),
            json: Vec::new(),
        };
        t.render();
        t
    }

    /// Call once per event-loop turn: re-renders the templates when the second changed.
    pub(crate) fn tick(&mut self) {
        if self.date.refresh() {
            self.render();
        }
    }

    fn render(&mut self) {
        let keep = ConnInfo {
            keep_alive: true,
            minor: 1,
        };
        self.hello.clear();
        let date = *self.date.get();
        head_with_date(
            &mut self.hello,
            &date,
            &self.alt_svc,
            200,
            Some("text/plain"),
            BodyLen::Fixed(13),
            keep,
            &[],
        );
        self.hello.extend_from_slice(HELLO);
        self.json.clear();
        let len = BodyLen::Fixed(JSON.len() as u64);
        head_with_date(
            &mut self.json,
            &date,
            &self.alt_svc,
            200,
            Some("application/json"),
            len,
            keep,
            &[],
        );
        self.json.extend_from_slice(JSON);
    }

    /// The current `Date` value (HTTP/2 responses encode it into their header block).
    pub(crate) fn date(&self) -> &[u8] {
        self.date.get()
    }

    /// The `Alt-Svc` value (empty: none), which HTTP/2 responses carry too.
    pub(crate) fn alt_svc(&self) -> &[u8] {
        &self.alt_svc
    }

    /// `Hello, World!` as 200 text/plain.
    pub(crate) fn hello(&self, out: &mut Vec<u8>, conn: ConnInfo, is_head: bool) {
        if conn.keep_alive && conn.minor == 1 && !is_head {
            out.extend_from_slice(&self.hello);
        } else {
            self.full(out, 200, Some("text/plain"), HELLO, conn, is_head, &[]);
        }
    }

    /// The fixed JSON object as 200 application/json.
    pub(crate) fn json(&self, out: &mut Vec<u8>, conn: ConnInfo, is_head: bool) {
        if conn.keep_alive && conn.minor == 1 && !is_head {
            out.extend_from_slice(&self.json);
        } else {
            self.full(out, 200, Some("application/json"), JSON, conn, is_head, &[]);
        }
    }

    /// A response head; the caller writes the body.
    pub(crate) fn head(
        &self,
        out: &mut Vec<u8>,
        status: u16,
        content_type: Option<&str>,
        len: BodyLen,
        conn: ConnInfo,
        extra: &[(&str, &str)],
    ) {
        head_with_date(
            out,
            self.date.get(),
            &self.alt_svc,
            status,
            content_type,
            len,
            conn,
            extra,
        );
    }

    /// A whole response with a small body (omitted for HEAD requests and bodiless statuses).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn full(
        &self,
        out: &mut Vec<u8>,
        status: u16,
        content_type: Option<&str>,
        body: &[u8],
        conn: ConnInfo,
        is_head: bool,
        extra: &[(&str, &str)],
    ) {
        let bodiless = status < 200 || status == 204 || status == 304;
        let len = if bodiless {
            BodyLen::NoBody
        } else {
            BodyLen::Fixed(body.len() as u64)
        };
        let ctype = if bodiless { None } else { content_type };
        self.head(out, status, ctype, len, conn, extra);
        if !is_head && !bodiless {
            out.extend_from_slice(body);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn head_with_date(
    out: &mut Vec<u8>,
    date: &[u8],
    alt_svc: &[u8],
    status: u16,
    content_type: Option<&str>,
    len: BodyLen,
    conn: ConnInfo,
    extra: &[(&str, &str)],
) {
    out.extend_from_slice(b"HTTP/1.1 ");
    push_u64(out, u64::from(status));
    out.push(b' ');
    out.extend_from_slice(reason(status).as_bytes());
    out.extend_from_slice(b"\r\nServer: ");
    out.extend_from_slice(SERVER.as_bytes());
    out.extend_from_slice(b"\r\nDate: ");
    out.extend_from_slice(date);
    out.extend_from_slice(b"\r\n");
    if !alt_svc.is_empty() {
        out.extend_from_slice(b"Alt-Svc: ");
        out.extend_from_slice(alt_svc);
        out.extend_from_slice(b"\r\n");
    }
    if let Some(ct) = content_type {
        out.extend_from_slice(b"Content-Type: ");
        out.extend_from_slice(ct.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    match len {
        BodyLen::Fixed(n) => {
            out.extend_from_slice(b"Content-Length: ");
            push_u64(out, n);
            out.extend_from_slice(b"\r\n");
        }
        BodyLen::Chunked => out.extend_from_slice(b"Transfer-Encoding: chunked\r\n"),
        BodyLen::NoBody => {}
    }
    for (k, v) in extra {
        out.extend_from_slice(k.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(v.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(conn.header());
    out.extend_from_slice(b"\r\n");
}

/// Appends the decimal digits of `n`.
pub(crate) fn push_u64(out: &mut Vec<u8>, n: u64) {
    let mut buf = [0u8; 20];
    out.extend_from_slice(fmt_u64(&mut buf, n));
}

/// `n` in decimal, in `buf` (a header value of HTTP/2 and HTTP/3 is a slice).
#[inline]
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

/// The header fields of an HTTP/2 or HTTP/3 response head, names lower-case as both send
/// them: server, date, alt-svc (when HTTP/3 is advertised), content-type, content-length when
/// known (its digits in `digits`), and the one extra field.
pub(crate) struct HeadFields<'a> {
    h: [(&'static str, &'a [u8]); 6],
    k: usize,
}

impl<'a> HeadFields<'a> {
    pub(crate) fn new(
        t: &'a Templates,
        ct: &'a str,
        len: BodyLen,
        extra: Extra<'a>,
        digits: &'a mut [u8; 20],
    ) -> Self {
        let mut f = HeadFields {
            h: [("", b""); 6],
            k: 0,
        };
        f.push("server", SERVER.as_bytes());
        f.push("date", t.date());
        if !t.alt_svc().is_empty() {
            f.push("alt-svc", t.alt_svc());
        }
        f.push("content-type", ct.as_bytes());
        if let BodyLen::Fixed(l) = len {
            f.push("content-length", fmt_u64(digits, l));
        }
        match extra {
            Extra::None => {}
            Extra::Checksum(v) => f.push("x-checksum", v.as_bytes()),
            Extra::Allow(v) => f.push("allow", v.as_bytes()),
            Extra::GrpcStatus(v) => f.push("grpc-status", v.as_bytes()),
        }
        f
    }

    fn push(&mut self, name: &'static str, value: &'a [u8]) {
        self.h[self.k] = (name, value);
        self.k += 1;
    }

    pub(crate) fn get(&self) -> &[(&'static str, &'a [u8])] {
        &self.h[..self.k]
    }
}

/// Appends a chunk-size line for a chunk of `n` bytes.
pub(crate) fn push_chunk_header(out: &mut Vec<u8>, n: usize) {
    let _ = write!(out, "{n:x}\r\n");
}

/// The reason phrase of a status code (wire's: FastCGI's `Status:` says it too).
pub(crate) use barrage_wire::reason;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads() {
        let t = Templates::new(None);
        let mut out = Vec::new();
        let ka = ConnInfo {
            keep_alive: true,
            minor: 1,
        };
        t.hello(&mut out, ka, false);
        let s = String::from_utf8(out.clone()).unwrap();
        assert!(
            s.starts_with("HTTP/1.1 200 OK\r\nServer: barrage\r\nDate: "),
            "{s}"
        );
        assert!(s.ends_with("Content-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!"));
        out.clear();
        let close = ConnInfo {
            keep_alive: false,
            minor: 1,
        };
        t.full(&mut out, 204, Some("text/plain"), b"x", close, false, &[]);
        let s = String::from_utf8(out.clone()).unwrap();
        assert!(s.starts_with("HTTP/1.1 204 No Content\r\n"));
        assert!(s.ends_with("Connection: close\r\n\r\n"), "{s}");
        out.clear();
        let ten = ConnInfo {
            keep_alive: true,
            minor: 0,
        };
        t.hello(&mut out, ten, true);
        let s = String::from_utf8(out).unwrap();
        assert!(
            s.ends_with("Content-Length: 13\r\nConnection: keep-alive\r\n\r\n"),
            "{s}"
        );
        let mut n = Vec::new();
        push_u64(&mut n, 0);
        push_u64(&mut n, 18_446_744_073_709_551_615);
        assert_eq!(n, b"018446744073709551615");
    }
}

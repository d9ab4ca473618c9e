//! A FastCGI client connection behind [`ClientSession`], as a web server speaks to php-fpm: one
//! request at a time (request id 1; php-fpm and most applications take no multiplexed requests),
//! each encoded once for the run, so a request is one write of bytes made before the run. The
//! answer is a CGI response read from `STDOUT` records as they come (its head gathered up to
//! HTTP/1.1's head limit, its body counted and checked on the fly, nothing kept) and ends with
//! `END_REQUEST`.
//!
//! The CGI variables sent: `GATEWAY_INTERFACE`, `SERVER_PROTOCOL` (HTTP/1.1), `SERVER_SOFTWARE`,
//! `REQUEST_METHOD`, `REQUEST_URI` (path and query), `SCRIPT_NAME`, `SCRIPT_FILENAME` and
//! `DOCUMENT_URI` (the path: the URL's path names the script as the application sees it, e.g.
//! `http://127.0.0.1:9000/var/www/index.php`), `QUERY_STRING`, `SERVER_NAME`, `SERVER_ADDR`,
//! `SERVER_PORT`, `HTTP_HOST`, `CONTENT_LENGTH` and `CONTENT_TYPE` when there is a body, and each
//! header as `HTTP_*`. A wrk script's requests (`request()`, HTTP/1.1 text) are taken apart and
//! sent the same way; its `response()` hook gets each whole response, its head the CGI head as
//! the application sent it after a first line `FastCGI`.

use super::{
    begin_request, pair, protocol_status_name, record, stream, Reader, END_REQUEST, PARAMS,
    REQUEST_COMPLETE, STDERR, STDIN, STDOUT,
};
use crate::client::{
    ClientSession, ConnError, Counts, End, ErrorClass, Failure, Fed, Run, Tag, Transmit,
};
use crate::fields::{request_of_text, LastText};
use crate::kept::{Keeper, Kept};
use std::time::{Duration, Instant};

/// The one request id this client uses.
const ID: u16 = 1;

/// What every FastCGI connection of a run shares.
#[derive(Debug)]
pub struct Setup {
    /// Each distinct request's records, whole.
    pub encoded: Vec<Vec<u8>>,
    /// Request i is a HEAD request (its response's Content-Length is not its body's).
    pub is_head: Vec<bool>,
    /// Requests ask the application to keep the connection (`FCGI_KEEP_CONN`).
    pub keep: bool,
    pub timeout: Duration,
    pub expect_body: Option<Vec<u8>>,
    /// Keep whole responses for a script's `response()` hook.
    pub keep_responses: bool,
    /// The server's side of the CGI variables: `SERVER_NAME`, `HTTP_HOST`'s default,
    /// `SERVER_ADDR`, `SERVER_PORT`.
    pub server: Server,
}

/// The CGI variables that name the server, the same for every request of a run.
#[derive(Debug, Clone, Default)]
pub struct Server {
    pub name: String,
    pub authority: String,
    pub addr: String,
    pub port: String,
}

impl Setup {
    pub fn for_run(run: &Run<'_>) -> Setup {
        let keep = run.load.protocol.keepalive();
        let server = Server {
            name: run.host.to_string(),
            authority: run.authority.to_string(),
            addr: run.addr.ip().to_string(),
            port: run.addr.port().to_string(),
        };
        let encoded = run
            .requests
            .iter()
            .map(|r| {
                encode(
                    &server,
                    keep,
                    &r.method,
                    run.authority,
                    &r.path,
                    &r.headers,
                    &r.body,
                )
            })
            .collect();
        Setup {
            encoded,
            is_head: run
                .requests
                .iter()
                .map(|r| r.method.eq_ignore_ascii_case("HEAD"))
                .collect(),
            keep,
            timeout: run.load.timeout,
            expect_body: run.load.expect_body.clone(),
            keep_responses: run.keep_responses,
            server,
        }
    }
}

/// One request's records: `BEGIN_REQUEST`, its CGI variables, its body, each stream ended.
fn encode(
    server: &Server,
    keep: bool,
    method: &str,
    host: &str,
    target: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> Vec<u8> {
    let (script, query) = target.split_once('?').unwrap_or((target, ""));
    let mut params = Vec::new();
    let mut var = |n: &str, v: &str| pair(&mut params, n.as_bytes(), v.as_bytes());
    var("GATEWAY_INTERFACE", "CGI/1.1");
    var("SERVER_PROTOCOL", "HTTP/1.1");
    var("SERVER_SOFTWARE", "barrage");
    var("REQUEST_METHOD", method);
    var("REQUEST_URI", target);
    var("SCRIPT_NAME", script);
    var("SCRIPT_FILENAME", script);
    var("DOCUMENT_URI", script);
    var("QUERY_STRING", query);
    var("SERVER_NAME", &server.name);
    var("SERVER_ADDR", &server.addr);
    var("SERVER_PORT", &server.port);
    var("HTTP_HOST", host);
    if !body.is_empty() {
        var("CONTENT_LENGTH", &body.len().to_string());
    }
    for (name, value) in headers {
        let upper = name.to_ascii_uppercase().replace('-', "_");
        match upper.as_str() {
            "CONTENT_TYPE" => var("CONTENT_TYPE", value),
            "HOST" | "CONTENT_LENGTH" => {}
            _ => var(&format!("HTTP_{upper}"), value),
        }
    }
    let mut out = Vec::new();
    begin_request(&mut out, ID, keep);
    stream(&mut out, PARAMS, ID, &params);
    record(&mut out, PARAMS, ID, &[]);
    stream(&mut out, STDIN, ID, body);
    record(&mut out, STDIN, ID, &[]);
    out
}

/// The response being read.
#[derive(Debug, Default)]
struct Response {
    /// The CGI head gathered so far (until it is whole).
    head: Vec<u8>,
    head_done: bool,
    /// The empty `STDOUT` record came: no more `STDOUT` may (its end is not required: php-fpm
    /// 8.2 ends a response with `END_REQUEST` alone, and nginx reads it so).
    stdout_ended: bool,
    status: u16,
    content_length: Option<u64>,
    body: u64,
    /// The body differed from the one expected.
    differs: bool,
    /// `END_REQUEST`'s content gathered so far.
    end: Vec<u8>,
}

impl Response {
    /// Made afresh for the next response, its buffers' capacity kept (no allocation per
    /// response on a warm connection).
    fn reset(&mut self) {
        let (mut head, mut end) = (
            std::mem::take(&mut self.head),
            std::mem::take(&mut self.end),
        );
        head.clear();
        end.clear();
        *self = Response {
            head,
            end,
            ..Response::default()
        };
    }
}

/// One FastCGI connection's client state.
#[derive(Debug)]
pub struct Conn<'r, T> {
    setup: &'r Setup,
    inflight: Option<T>,
    /// The request being written (an index into `setup.encoded`) and how much of it went.
    req: usize,
    written: usize,
    reader: Reader,
    resp: Response,
    /// The request in flight is a HEAD.
    head: bool,
    /// A script's request (its text encoded), written from here rather than `setup.encoded`.
    own: Vec<u8>,
    last_text: LastText<Vec<u8>>,
    /// Whole responses kept for a script's `response()` hook, and the one being read.
    keeper: Keeper,
    kept: Option<Kept>,
}

impl<'r, T> Conn<'r, T> {
    pub fn new(setup: &'r Setup) -> Conn<'r, T> {
        Conn {
            setup,
            inflight: None,
            req: 0,
            written: usize::MAX,
            reader: Reader::default(),
            resp: Response::default(),
            head: false,
            own: Vec::new(),
            last_text: LastText::default(),
            keeper: Keeper::default(),
            kept: None,
        }
    }

    /// The request's whole bytes.
    fn request(&self) -> &[u8] {
        if !self.own.is_empty() {
            return &self.own;
        }
        self.setup.encoded.get(self.req).map_or(&[], Vec::as_slice)
    }

    /// A request is on its way: its response read afresh (kept whole when a script asks).
    fn opened(&mut self, tag: T) {
        self.written = 0;
        self.inflight = Some(tag);
        if self.setup.keep_responses {
            let mut k = self.kept.take().unwrap_or_else(|| self.keeper.fresh());
            k.head.clear();
            k.body.clear();
            self.kept = Some(k);
        }
    }

    /// Body bytes of the response.
    fn body(&mut self, data: &[u8]) {
        let r = &mut self.resp;
        if let Some(k) = self.kept.as_mut() {
            k.body(data);
        }
        if let Some(expect) = &self.setup.expect_body {
            let at = r.body as usize;
            r.differs |= expect.get(at..at + data.len()) != Some(data);
        }
        r.body += data.len() as u64;
    }

    /// `STDOUT` bytes: the CGI head until it is whole, then the body.
    fn stdout(&mut self, data: &[u8]) -> Result<(), ConnError> {
        if self.resp.head_done {
            self.body(data);
            return Ok(());
        }
        let r = &mut self.resp;
        let from = r.head.len().saturating_sub(3);
        r.head.extend_from_slice(data);
        let Some(end) = head_end(&r.head, from) else {
            if r.head.len() > crate::h1::parser::MAX_HEAD {
                return Err(parse_error("a CGI response head past the head limit"));
            }
            return Ok(());
        };
        // Taken out for the body's call and put back empty: its capacity serves the next head.
        let mut head = std::mem::take(&mut r.head);
        (r.status, r.content_length) = cgi_head(&head[..end])?;
        r.head_done = true;
        if let Some(k) = self.kept.as_mut() {
            k.head.extend_from_slice(b"FastCGI\r\n");
            k.head.extend_from_slice(&head[..end]);
        }
        self.body(&head[end..]);
        head.clear();
        self.resp.head = head;
        Ok(())
    }

    /// `END_REQUEST`, whole: how the request ended.
    fn ended(&mut self, tag: T) -> End<T> {
        let r = &self.resp;
        let e = [r.end[0], r.end[1], r.end[2], r.end[3], r.end[4]];
        let (app_status, protocol_status) = (u32::from_be_bytes([e[0], e[1], e[2], e[3]]), e[4]);
        let (head_done, status, length, body, differs) =
            (r.head_done, r.status, r.content_length, r.body, r.differs);
        self.resp.reset();
        // The application's own word on how the request went comes before what it sent.
        let failure = if protocol_status != REQUEST_COMPLETE {
            Failure::Reset(protocol_status_name(protocol_status))
        } else if app_status != 0 {
            Failure::Reset("FastCGI: END_REQUEST with an application status other than 0")
        } else if !head_done {
            Failure::Malformed("FastCGI: END_REQUEST before a whole CGI response head")
        } else if !self.head && length.is_some_and(|n| n != body) {
            Failure::Malformed("FastCGI: a body of another length than its Content-Length")
        } else {
            if let Some(mut k) = self.kept.take() {
                k.status = status;
                self.keeper.done(k);
            }
            let expected = self.setup.expect_body.as_ref();
            return End::Response {
                tag,
                status,
                body_ok: expected.is_none_or(|e| !differs && body == e.len() as u64),
            };
        };
        End::Failed { tag, failure }
    }
}

fn parse_error(what: &str) -> ConnError {
    ConnError::new(ErrorClass::Parse, format!("FastCGI: {what}"))
}

/// Where the head ends (after its blank line, CRLF or LF), searching from `from`.
fn head_end(buf: &[u8], from: usize) -> Option<usize> {
    (from..buf.len()).find_map(|i| {
        let rest = &buf[i..];
        if rest.starts_with(b"\r\n\r\n") {
            Some(i + 4)
        } else if rest.starts_with(b"\n\n") {
            Some(i + 2)
        } else {
            None
        }
    })
}

/// A CGI response head's status (its `Status:` field, 302 with a `Location:` alone, else 200)
/// and `Content-Length`.
fn cgi_head(head: &[u8]) -> Result<(u16, Option<u64>), ConnError> {
    let mut fields = [httparse::EMPTY_HEADER; crate::MAX_HEADERS];
    let Ok(httparse::Status::Complete((_, fields))) = httparse::parse_headers(head, &mut fields)
    else {
        return Err(parse_error("a malformed CGI response head"));
    };
    let (mut status, mut length, mut location) = (None, None, false);
    for f in fields.iter() {
        if f.name.eq_ignore_ascii_case("status") {
            let code = f.value.get(..3).and_then(|c| std::str::from_utf8(c).ok());
            match code.and_then(|c| c.parse::<u16>().ok()) {
                Some(c) if (100..=999).contains(&c) => status = Some(c),
                _ => return Err(parse_error("a CGI Status that is not a 3-digit code")),
            }
        } else if f.name.eq_ignore_ascii_case("content-length") {
            let n = std::str::from_utf8(f.value)
                .ok()
                .and_then(|v| v.trim().parse().ok());
            length = Some(n.ok_or_else(|| parse_error("a Content-Length that is no number"))?);
        } else if f.name.eq_ignore_ascii_case("location") {
            location = true;
        }
    }
    let status = status.unwrap_or(if location { 302 } else { 200 });
    Ok((status, length))
}

impl<T: Tag> ClientSession<T> for Conn<'_, T> {
    fn start(&mut self, _now: Instant, _since: Instant) {
        self.inflight = None;
        self.written = usize::MAX;
        self.reader = Reader::default();
        self.resp.reset();
        self.own.clear();
        self.keeper.clear();
    }

    /// One request at a time, and the next only once the last is written whole (an answer
    /// may come before its body went: the rest still goes, for the records to stay whole).
    #[inline]
    fn room(&self) -> usize {
        usize::from(self.inflight.is_none() && !self.held_by_output())
    }

    #[inline]
    fn held_by_output(&self) -> bool {
        self.written < self.request().len()
    }

    #[inline]
    fn open(&mut self, _now: Instant, _pos: usize, req: u32, tag: T) -> bool {
        if self.room() == 0 {
            return false;
        }
        self.req = req as usize;
        self.head = self.setup.is_head.get(self.req).copied().unwrap_or(false);
        self.own.clear();
        self.opened(tag);
        true
    }

    /// The text is parsed as a server would (one request: its head, and the body its
    /// content-length gives) and encoded as the run's requests are.
    fn open_text(&mut self, _now: Instant, text: &[u8], head: bool, tag: T) -> bool {
        if self.room() == 0 {
            return false;
        }
        let (setup, authority) = (self.setup, &self.setup.server.authority);
        let Some(own) = self.last_text.get(text, |t| {
            request_of_text(
                t,
                "http",
                authority,
                |method, _, host, path, headers, body| {
                    encode(&setup.server, setup.keep, method, host, path, headers, body)
                },
            )
        }) else {
            return false;
        };
        self.own = own;
        self.head = head;
        self.opened(tag);
        true
    }

    fn take_response(&mut self, into: &mut Kept) -> bool {
        self.keeper.take(into)
    }

    #[inline]
    fn out(&self) -> Transmit<'_> {
        let r = self.request();
        Transmit::stream(&r[self.written.min(r.len())..])
    }

    #[inline]
    fn wrote(&mut self, _now: Instant, n: usize) {
        self.written += n;
    }

    fn feed<F: FnMut(End<T>)>(
        &mut self,
        _now: Instant,
        buf: &[u8],
        on: &mut F,
    ) -> Result<Fed, ConnError> {
        let mut pos = 0;
        let mut close = false;
        loop {
            let (used, piece) = self
                .reader
                .next(&buf[pos..])
                .map_err(|e| ConnError::new(ErrorClass::Parse, e.to_string()))?;
            pos += used;
            let Some(p) = piece else {
                return Ok(Fed { used: pos, close });
            };
            if p.id != ID || self.inflight.is_none() {
                return Err(ConnError::new(
                    ErrorClass::Unasked,
                    format!("a FastCGI record for request {} with none open", p.id),
                ));
            }
            match p.kind {
                STDOUT if self.resp.stdout_ended => {
                    return Err(ConnError::new(
                        ErrorClass::Protocol,
                        "FastCGI: STDOUT after its end",
                    ))
                }
                STDOUT if p.len == 0 => self.resp.stdout_ended = true,
                STDOUT => self.stdout(p.data)?,
                // What the application logged: not part of the answer.
                STDERR => {}
                END_REQUEST => {
                    self.resp.end.extend_from_slice(p.data);
                    if !p.end {
                        continue;
                    }
                    if self.resp.end.len() != 8 {
                        return Err(parse_error("an END_REQUEST that is not 8 bytes long"));
                    }
                    let tag = self.inflight.take().expect("checked above");
                    on(self.ended(tag));
                    close = !self.setup.keep;
                }
                kind => {
                    return Err(ConnError::new(
                        ErrorClass::Protocol,
                        format!("FastCGI: a record of type {kind} an application does not send"),
                    ))
                }
            }
        }
    }

    fn eof<F: FnMut(End<T>)>(&mut self, _on: &mut F) -> Result<(), ConnError> {
        match self.inflight {
            None => Ok(()),
            Some(_) => Err(ConnError::new(
                ErrorClass::Reset,
                "connection closed by the peer",
            )),
        }
    }

    fn expire<F: FnMut(End<T>)>(&mut self, now: Instant, _on: &mut F) -> Result<(), ConnError> {
        let timeout = self.setup.timeout;
        match &self.inflight {
            Some(tag) if now.saturating_duration_since(tag.sent()) > timeout => {
                Err(ConnError::new(
                    ErrorClass::Timeout,
                    format!("no response within {timeout:?}"),
                ))
            }
            _ => Ok(()),
        }
    }

    fn drain<F: FnMut(T)>(&mut self, each: &mut F) {
        if let Some(tag) = self.inflight.take() {
            each(tag);
        }
        self.written = usize::MAX;
        self.reader = Reader::default();
        self.resp.reset();
        self.own.clear();
    }

    fn take_counts(&mut self, _into: &mut Counts) {}

    fn reset_counts(&mut self) {}
}

#[cfg(test)]
mod tests;

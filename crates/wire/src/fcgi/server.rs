//! FastCGI's application side as a [`StreamServer`]: what a web server (nginx's
//! `fastcgi_pass`) or a FastCGI client sends becomes the interface's request events, and the
//! answers go back as `STDOUT` records of a CGI response and an `END_REQUEST`. Requests may be
//! multiplexed on a connection (each `BEGIN_REQUEST` names its own id), up to a bound.
//!
//! A request's head is its CGI variables: `REQUEST_METHOD`, `REQUEST_URI` (or `SCRIPT_NAME`
//! and `QUERY_STRING`), `HTTP_HOST` (or `SERVER_NAME`), `CONTENT_LENGTH`, `CONTENT_TYPE`, and
//! each `HTTP_*` variable as the header field it stands for (`HTTP_X_TRACE` as `x-trace`); a
//! body is held to its `CONTENT_LENGTH` (past it, or short of it, the request ends unanswered).
//! FastCGI has no flow control (the byte stream's is all) and no trailers: a gRPC answer's
//! trailers end its response without them. What this side stops early ends with an
//! `END_REQUEST` whose application status is 1 and whose `STDOUT` never ended.

use super::{
    end_request, record, stream, FcgiError, Piece, Reader, ABORT_REQUEST, BEGIN_REQUEST, DATA,
    GET_VALUES, GET_VALUES_RESULT, KEEP_CONN, OVERLOADED, PARAMS, REQUEST_COMPLETE, RESPONDER,
    STDIN, STDOUT, UNKNOWN_ROLE, UNKNOWN_TYPE,
};
use crate::server::{
    Broken, Chunk, Event, Fields, Head, Next, ServerSession, Shut, Stop, StreamServer,
};
use std::io::Write as _;
use std::time::Instant;

/// What a connection may ask of the server.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// The most bytes of CGI variables a request may send (its name-value pairs); past it the
    /// request is answered 431 ([`Event::TooLarge`]).
    pub max_params: usize,
    /// The most requests open at once on a connection (`FCGI_MAX_REQS`); a `BEGIN_REQUEST` past
    /// it ends at once with `FCGI_OVERLOADED`.
    pub max_requests: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            max_params: 64 * 1024,
            max_requests: 128,
        }
    }
}

/// The most request body the answers may hold for a client that does not read their replies:
/// FastCGI has no window to announce, so the bound is HTTP/2's connection window, 16 MiB.
const HOLD_LIMIT: usize = 16 << 20;

/// Where a request is in its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Input {
    /// Its CGI variables are arriving.
    Params,
    /// Its body is arriving (the head went out as an event).
    Stdin,
    /// Its body ended.
    Done,
}

/// One request open on the connection.
#[derive(Debug)]
struct Req {
    id: u16,
    keep: bool,
    input: Input,
    params: Vec<u8>,
    too_large: bool,
    method: String,
    path: String,
    authority: String,
    content_length: Option<u64>,
    /// Body bytes read so far (held to `content_length`).
    received: u64,
    fields: Vec<(String, String)>,
}

/// One FastCGI connection's application side.
#[derive(Debug)]
pub struct Server {
    cfg: Config,
    reader: Reader,
    reqs: Vec<Req>,
    /// A `BEGIN_REQUEST` or `GET_VALUES` content being gathered (a record may be cut anywhere).
    small: Vec<u8>,
    /// A response's CGI head as it is written (kept for its capacity: no allocation per
    /// response).
    head: Vec<u8>,
    ended: bool,
    /// A request without `FCGI_KEEP_CONN` was answered: the connection ends once no request is
    /// left (the others multiplexed beside it are answered first).
    close_when_done: bool,
    draining: bool,
}

impl Server {
    pub fn new(cfg: Config) -> Server {
        Server {
            cfg,
            reader: Reader::default(),
            reqs: Vec::new(),
            small: Vec::new(),
            head: Vec::new(),
            ended: false,
            close_when_done: false,
            draining: false,
        }
    }

    fn at(&self, id: u16) -> Option<usize> {
        self.reqs.iter().position(|r| r.id == id)
    }

    /// The request's output ends: the empty `STDOUT` (when `stdout`), then `END_REQUEST`; the
    /// id is free again, and a request that did not ask to keep the connection ends it once no
    /// other is open.
    fn finish(&mut self, out: &mut Vec<u8>, id: u16, stdout: bool, app_status: u32) {
        let Some(i) = self.at(id) else { return };
        if stdout {
            record(out, STDOUT, id, &[]);
        }
        end_request(out, id, app_status, REQUEST_COMPLETE);
        if !self.reqs.swap_remove(i).keep {
            self.close_when_done = true;
        }
    }

    /// A `BEGIN_REQUEST`'s content, whole.
    fn begin(&mut self, out: &mut Vec<u8>, id: u16) -> Result<(), Broken> {
        let c = std::mem::take(&mut self.small);
        if id == 0 || c.len() != 8 {
            return Err(self.broke("BEGIN_REQUEST of request 0 or not 8 bytes long"));
        }
        if self.at(id).is_some() {
            return Err(self.broke("BEGIN_REQUEST for a request already open"));
        }
        let role = u16::from_be_bytes([c[0], c[1]]);
        if role != RESPONDER {
            end_request(out, id, 0, UNKNOWN_ROLE);
        } else if self.draining || self.reqs.len() >= self.cfg.max_requests {
            end_request(out, id, 0, OVERLOADED);
        } else {
            self.reqs.push(Req {
                id,
                keep: c[2] & KEEP_CONN != 0,
                input: Input::Params,
                params: Vec::new(),
                too_large: false,
                method: String::new(),
                path: String::new(),
                authority: String::new(),
                content_length: None,
                received: 0,
                fields: Vec::new(),
            });
        }
        Ok(())
    }

    /// `GET_VALUES`: the variables asked that this side knows, in a `GET_VALUES_RESULT`.
    fn values(&mut self, out: &mut Vec<u8>) {
        let c = std::mem::take(&mut self.small);
        let max = self.cfg.max_requests.to_string();
        let known: [(&[u8], &[u8]); 2] = [
            (b"FCGI_MAX_REQS", max.as_bytes()),
            (b"FCGI_MPXS_CONNS", b"1"),
        ];
        // Each variable asked that this side knows, once (a question of thousands of names
        // gets an answer of two pairs at most).
        let mut answer = Vec::new();
        for (name, value) in known {
            if super::pairs(&c)
                .map_while(Result::ok)
                .any(|(n, _)| n == name)
            {
                super::pair(&mut answer, name, value);
            }
        }
        record(out, GET_VALUES_RESULT, 0, &answer);
    }

    fn broke(&mut self, what: &'static str) -> Broken {
        self.ended = true;
        Broken {
            code: "FastCGI",
            what,
        }
    }

    /// A request's CGI variables, whole: its head. A request without a method or a target
    /// goes to the answers as it came (they answer what no route names: 404, 405).
    fn head(&mut self, i: usize) -> Result<(), Broken> {
        let r = &mut self.reqs[i];
        r.input = Input::Stdin;
        if r.too_large {
            return Ok(());
        }
        let params = std::mem::take(&mut r.params);
        let (mut script, mut query) = (String::new(), String::new());
        let mut server_name = String::new();
        for p in super::pairs(&params) {
            let Ok((name, value)) = p else {
                return Err(self.broke("PARAMS whose name-value pairs are cut short"));
            };
            let value = String::from_utf8_lossy(value).into_owned();
            match name {
                b"REQUEST_METHOD" => r.method = value,
                b"REQUEST_URI" => r.path = value,
                b"SCRIPT_NAME" => script = value,
                b"QUERY_STRING" => query = value,
                b"SERVER_NAME" => server_name = value,
                b"HTTP_HOST" => r.authority = value,
                b"CONTENT_LENGTH" if !value.is_empty() => {
                    r.content_length = value.parse().ok();
                    r.fields.push(("content-length".into(), value));
                }
                b"CONTENT_TYPE" if !value.is_empty() => {
                    r.fields.push(("content-type".into(), value));
                }
                _ => {
                    if let Some(h) = name.strip_prefix(b"HTTP_") {
                        let field = String::from_utf8_lossy(h)
                            .to_ascii_lowercase()
                            .replace('_', "-");
                        r.fields.push((field, value));
                    }
                }
            }
        }
        if r.path.is_empty() {
            r.path = if query.is_empty() {
                script
            } else {
                format!("{script}?{query}")
            };
        }
        if r.authority.is_empty() {
            r.authority = server_name;
        }
        Ok(())
    }

    /// What one piece of a record means; None when it needs no event.
    fn piece<'s, 'b>(
        &'s mut self,
        out: &mut Vec<u8>,
        p: Piece<'b>,
    ) -> Result<Option<Event<'s, 'b, u16>>, Broken> {
        match p.kind {
            BEGIN_REQUEST | GET_VALUES => {
                // Both are 8 bytes or small; a longer GET_VALUES is cut to a record's worth.
                if self.small.len() + p.data.len() <= super::MAX_CONTENT {
                    self.small.extend_from_slice(p.data);
                }
                if p.end && p.kind == BEGIN_REQUEST {
                    self.begin(out, p.id)?;
                } else if p.end {
                    self.values(out);
                }
                return Ok(None);
            }
            // FastCGI's management records this side does not know get UNKNOWN_TYPE.
            kind if p.id == 0 => {
                if p.end {
                    record(out, UNKNOWN_TYPE, 0, &[kind, 0, 0, 0, 0, 0, 0, 0]);
                }
                return Ok(None);
            }
            _ => {}
        }
        // Records of a request that is not open are ignored, as the specification says.
        let Some(i) = self.at(p.id) else {
            return Ok(None);
        };
        let input = self.reqs[i].input;
        match (p.kind, input) {
            (PARAMS, Input::Params) if p.len > 0 => {
                let r = &mut self.reqs[i];
                if r.params.len() + p.data.len() > self.cfg.max_params {
                    r.too_large = true;
                    r.params = Vec::new();
                } else if !r.too_large {
                    r.params.extend_from_slice(p.data);
                }
                Ok(None)
            }
            (PARAMS, Input::Params) => {
                self.head(i)?;
                let r = &self.reqs[i];
                if r.too_large {
                    return Ok(Some(Event::TooLarge { id: r.id }));
                }
                Ok(Some(Event::Request {
                    id: r.id,
                    head: Head {
                        method: &r.method,
                        path: &r.path,
                        authority: &r.authority,
                        content_length: r.content_length,
                        // FastCGI always ends a body with an empty STDIN record.
                        end: false,
                        fields: Fields::List(&r.fields),
                    },
                }))
            }
            (STDIN, Input::Stdin) => {
                let end = p.len == 0;
                let r = &mut self.reqs[i];
                r.received += p.data.len() as u64;
                if end {
                    r.input = Input::Done;
                }
                // A body longer than its CONTENT_LENGTH, or one that ends short of it: the
                // request ends here, unanswered (HTTP/2 resets such a stream).
                let wrong = r
                    .content_length
                    .is_some_and(|n| r.received > n || (end && r.received != n));
                if wrong {
                    self.finish(out, p.id, false, 1);
                    return Ok(Some(Event::Gone { id: p.id }));
                }
                if p.data.is_empty() && !end {
                    return Ok(None);
                }
                Ok(Some(Event::Body {
                    id: p.id,
                    data: Chunk::Borrowed(p.data),
                    end,
                }))
            }
            (ABORT_REQUEST, _) => {
                if !p.end {
                    return Ok(None);
                }
                self.finish(out, p.id, false, 0);
                // A request whose head never went out is nobody's to forget.
                Ok((input != Input::Params).then_some(Event::Gone { id: p.id }))
            }
            // A responder reads no DATA stream.
            (DATA, _) => Ok(None),
            (PARAMS | STDIN, _) => Err(self.broke("a request's records out of order")),
            _ => Err(self.broke("a record type a web server does not send")),
        }
    }
}

impl ServerSession for Server {
    type Id = u16;
    const VERSION: &'static str = "FastCGI";
    const CHUNK: usize = 64 * 1024;

    fn next<'s, 'b>(&'s mut self, input: &'b [u8], out: &mut Vec<u8>) -> Next<'s, 'b, u16> {
        let mut pos = 0;
        loop {
            let (used, piece) = match self.reader.next(&input[pos..]) {
                Ok(x) => x,
                Err(FcgiError::Version(_)) => {
                    return Err(self.broke("a record that is not FastCGI version 1"))
                }
                Err(FcgiError::Pairs) => unreachable!("the reader reads no pairs"),
            };
            pos += used;
            let Some(p) = piece else {
                return Ok((pos, None));
            };
            // The borrow checker cannot see that a `None` leaves `self` free for the next
            // piece: ask first whether this piece brings an event (cheap: a match), then take it.
            if !self.brings_event(&p) {
                self.piece(out, p)?;
                continue;
            }
            return Ok((pos, self.piece(out, p)?));
        }
    }

    fn respond(
        &mut self,
        out: &mut Vec<u8>,
        id: u16,
        status: u16,
        fields: &[(&str, &[u8])],
        end: bool,
    ) {
        if !self.is_open(id) {
            return;
        }
        let mut head = std::mem::take(&mut self.head);
        head.clear();
        let _ = write!(head, "Status: {status} {}\r\n", crate::reason(status));
        for (name, value) in fields {
            head.extend_from_slice(name.as_bytes());
            head.extend_from_slice(b": ");
            head.extend_from_slice(value);
            head.extend_from_slice(b"\r\n");
        }
        head.extend_from_slice(b"\r\n");
        stream(out, STDOUT, id, &head);
        self.head = head;
        if end {
            self.finish(out, id, true, 0);
        }
    }

    fn send_data(&mut self, out: &mut Vec<u8>, id: u16, data: &[u8], end: bool) -> usize {
        if !self.is_open(id) {
            return 0;
        }
        stream(out, STDOUT, id, data);
        if end {
            self.finish(out, id, true, 0);
        }
        data.len()
    }

    fn send_trailers(&mut self, out: &mut Vec<u8>, id: u16, _fields: &[(&str, &[u8])]) {
        self.finish(out, id, true, 0);
    }

    fn room(&self, id: u16) -> usize {
        if self.is_open(id) {
            Self::CHUNK
        } else {
            0
        }
    }

    fn is_open(&self, id: u16) -> bool {
        self.at(id).is_some()
    }

    fn stop(&mut self, out: &mut Vec<u8>, id: u16, _why: Stop) {
        self.finish(out, id, false, 1);
    }

    fn hold(&mut self, _now: Instant, _id: u16, _held: bool) {
        // No flow control to stop the client with: what the answers hold is bounded by
        // `hold_limit`, past which the connection ends.
    }

    fn close(&mut self, _out: &mut Vec<u8>, _id: u16, _now: Instant) {
        self.ended = true;
    }

    fn garbage(&mut self, out: &mut Vec<u8>, _id: u16) {
        // A record header of version 0: no FastCGI reader goes past it.
        out.extend_from_slice(b"\x00\x06garbage\x00\x01\x02");
        self.ended = true;
    }
}

impl Server {
    /// Whether [`Server::piece`] may return an event for `p` (the rest only answer or gather).
    fn brings_event(&self, p: &Piece<'_>) -> bool {
        match p.kind {
            PARAMS => p.len == 0,
            STDIN => true,
            ABORT_REQUEST => p.end,
            _ => false,
        }
    }
}

impl StreamServer for Server {
    fn start(&mut self, _out: &mut Vec<u8>) {}

    fn ended(&self) -> bool {
        self.ended || (self.close_when_done && self.reqs.is_empty())
    }

    fn hold_limit(&self) -> usize {
        HOLD_LIMIT
    }

    fn shut(&mut self, _out: &mut Vec<u8>, how: Shut<'_>) {
        match how {
            // New requests end at once with FCGI_OVERLOADED; those open are answered.
            Shut::Drain => self.draining = true,
            Shut::Overload(_) => self.ended = true,
        }
    }
}

#[cfg(test)]
mod tests;

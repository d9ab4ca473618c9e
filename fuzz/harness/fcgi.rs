//! FastCGI (`barrage_wire::fcgi`): the input as a web server's records fed to the server session
//! (each request answered at once, echoing its body as it arrives), as an application's answer
//! fed to the client session after one request, and as name-value pairs.
//!
//! Input: 2 control bytes, then the peer's bytes.
//! - `c0`: the server's limits (bit 0: 64 bytes of variables and 1 request at once, else the
//!   defaults); the client's (bit 1: the connection kept; bit 2: a body `hi` expected; bit 3:
//!   responses kept for a script; bit 4: the request a HEAD);
//! - `c1`: the seed of the split points.
//!
//! Checked: no panic; whole, split at random points and byte by byte: the same events, the same
//! bytes written and the same error (server), the same ends and error (client); every byte fed is
//! taken; what the server writes is FastCGI records its peer reads; pairs never read past their
//! input.

use barrage_wire::client::{ClientSession, End, Tag};
use barrage_wire::fcgi::client::{Conn, Setup};
use barrage_wire::fcgi::server::{Config, Server};
use barrage_wire::fcgi::{pairs, Reader};
use barrage_wire::server::{Event, ServerSession};
use std::time::{Duration, Instant};

use crate::split::{cuts, Feed};

/// The parts a feed cuts `data` into.
fn parts(data: &[u8], feed: Feed) -> Vec<&[u8]> {
    match feed {
        Feed::Whole => vec![data],
        Feed::Bytewise => data.chunks(1).collect(),
        Feed::Split(seed) => {
            let mut at = 0;
            let mut v = Vec::new();
            for c in cuts(seed, 4, data.len()) {
                v.push(&data[at..c]);
                at = c;
            }
            v.push(&data[at..]);
            v
        }
    }
}

/// The server's events (bodies joined per request) and output, then its error if any.
/// What the server made of the input: its events in words (bodies joined per request, as
/// bytes), its output, its error.
type Served = (Vec<Vec<u8>>, Vec<u8>, Option<String>);

fn server(cfg: Config, data: &[u8], feed: Feed) -> Served {
    let mut s = Server::new(cfg);
    let (mut log, mut out) = (Vec::new(), Vec::new());
    for mut part in parts(data, feed) {
        loop {
            let (used, ev) = match s.next(part, &mut out) {
                Ok(x) => x,
                Err(e) => return (log, out, Some(e.to_string())),
            };
            part = &part[used..];
            let Some(ev) = ev else {
                if part.is_empty() {
                    break;
                }
                assert!(used > 0, "no progress on {} bytes", part.len());
                continue;
            };
            match ev {
                Event::Request { id, head } => {
                    log.push(format!("{id} {} {}", head.method, head.path).into_bytes());
                    s.respond(&mut out, id, 200, &[], false);
                }
                Event::Body { id, data, end } => {
                    // Bytes, not text: a character cut between two reads is still one.
                    let mark = format!("{id} body ").into_bytes();
                    match log.last_mut() {
                        Some(l) if l.starts_with(&mark) => l.extend_from_slice(&data),
                        _ => log.push([mark, data.to_vec()].concat()),
                    }
                    let sent = s.send_data(&mut out, id, &data, end);
                    assert!(sent == data.len() || !s.is_open(id));
                    if end {
                        log.push(format!("{id} end").into_bytes());
                    }
                }
                Event::TooLarge { id } => {
                    log.push(format!("{id} too large").into_bytes());
                    s.respond(&mut out, id, 431, &[], true);
                }
                Event::Gone { id } => log.push(format!("{id} gone").into_bytes()),
                Event::Writable { id } => log.push(format!("{id} writable").into_bytes()),
            }
        }
    }
    (log, out, None)
}

/// What the server wrote, read back as a web server reads it (it must be records of version
/// 1): each stream's content joined while it goes on, an empty record as one of its own (the
/// cuts of the input decide how a body is split into records, not what it says).
fn written(out: &[u8]) -> Vec<(u8, u16, Vec<u8>)> {
    let mut r = Reader::default();
    let mut got: Vec<(u8, u16, Vec<u8>)> = Vec::new();
    let mut at = 0;
    loop {
        let (used, p) = r.next(&out[at..]).expect("records of version 1");
        at += used;
        let Some(p) = p else { break };
        match got.last_mut() {
            Some(last) if p.len > 0 && (last.0, last.1) == (p.kind, p.id) && !last.2.is_empty() => {
                last.2.extend_from_slice(p.data)
            }
            _ => got.push((p.kind, p.id, p.data.to_vec())),
        }
    }
    assert_eq!(at, out.len());
    got
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct T(Instant);

impl Tag for T {
    fn counted(&self) -> bool {
        true
    }
    fn sent(&self) -> Instant {
        self.0
    }
}

/// The client's ends and error after one request, fed `data` as the application's answer.
fn client(setup: &Setup, now: Instant, data: &[u8], feed: Feed) -> (Vec<String>, Option<String>) {
    let mut c: Conn<'_, T> = Conn::new(setup);
    c.start(now, now);
    assert!(c.open(now, 0, 0, T(now)));
    let n = c.out().bytes.len();
    c.wrote(now, n);
    let mut ends = Vec::new();
    for part in parts(data, feed) {
        match c.feed(now, part, &mut |e: End<T>| ends.push(format!("{e:?}"))) {
            Ok(fed) => assert_eq!(fed.used, part.len(), "every byte taken"),
            Err(e) => return (ends, Some(e.to_string())),
        }
    }
    (ends, None)
}

pub fn run(data: &[u8]) {
    let [c0, c1, rest @ ..] = data else { return };
    let seed = u64::from(*c1);
    let cfg = if c0 & 1 != 0 {
        Config {
            max_params: 64,
            max_requests: 1,
        }
    } else {
        Config::default()
    };
    let whole = server(cfg, rest, Feed::Whole);
    let records = |out: &[u8]| written(out);
    let want = (&whole.0, records(&whole.1), &whole.2);
    for feed in [Feed::Split(seed), Feed::Bytewise] {
        let got = server(cfg, rest, feed);
        assert_eq!((&got.0, records(&got.1), &got.2), want);
    }
    let setup = Setup {
        encoded: vec![b"REQUEST".to_vec()],
        is_head: vec![c0 & 16 != 0],
        keep: c0 & 2 != 0,
        timeout: Duration::from_secs(1),
        expect_body: (c0 & 4 != 0).then(|| b"hi".to_vec()),
        keep_responses: c0 & 8 != 0,
        server: Default::default(),
    };
    let now = Instant::now();
    let whole = client(&setup, now, rest, Feed::Whole);
    for feed in [Feed::Split(seed), Feed::Bytewise] {
        assert_eq!(client(&setup, now, rest, feed), whole);
    }
    for (n, v) in pairs(rest).map_while(Result::ok) {
        assert!(n.len() + v.len() <= rest.len());
    }
}

//! The WebSocket client session (`barrage_wire::ws::client::Conn`) as the load engine drives it
//! through the client-session interface: the upgrade request written, the server's bytes (a
//! valid 101 in front of the input, or the input alone as the answer) fed in chunks (each a
//! socket read, the unconsumed rest carried in front of the next, as the worker does), each
//! chunk whole, split at random points, and a byte at a time, messages opened up to its room at
//! each chunk's end, then the peer's close.
//!
//! Input: 2 control bytes, then the server's bytes.
//! - `c0`: pipeline depth (1-8, bits 0-2), a valid 101 in front (bit 3), a reply expected
//!   (bit 4; else echoes are checked, unless bit 5), small limits (bit 5), chunks (1-4, bits 6-7);
//! - `c1`: the seed of the chunk and split points; bit 7 also keeps whole replies for a
//!   script's `response()` and sends every third message as a script's request text.
//!
//! Checked: no panic; the whole, split and bytewise feeds end the same messages the same way
//! with the same connection end and write the same bytes; every opened tag ends exactly once
//! (ended, or taken back when the connection ends); what the session writes after the upgrade
//! request is masked frames a server reads without error; the carry stays within `MAX_CARRY`;
//! kept replies are taken in order, one per reply (logged, so every feed keeps the same ones).

use barrage_wire::client::{ClientSession, End, Tag, MAX_CARRY};
use barrage_wire::kept::Kept;
use barrage_wire::ws::client::{Conn, Setup};
use barrage_wire::ws::{handshake, Event, Limits, Session};
use std::time::{Duration, Instant};

use crate::split::{cuts, next, Feed};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct T(u32);

impl Tag for T {
    fn counted(&self) -> bool {
        true
    }
    fn sent(&self) -> Instant {
        start()
    }
}

/// One instant for every tag (timeouts are not fuzzed).
fn start() -> Instant {
    use std::sync::OnceLock;
    static AT: OnceLock<Instant> = OnceLock::new();
    *AT.get_or_init(Instant::now)
}

#[derive(Debug, PartialEq, Eq)]
enum Log {
    Opened(u32),
    Ended(End<T>),
    Error(String),
    Close,
    Eof(Result<(), String>),
    /// At a chunk's end: room, carry length, the bytes written since the last.
    State(usize, usize, Vec<u8>),
    /// A reply kept for `response()`: its status and body.
    Kept(u16, Vec<u8>),
}

/// A script's request, as text: its body is the message.
const TEXT: &[u8] = b"POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello";

/// Messages opened in one run at most.
const BUDGET: u32 = 40;
const NONCE: [u8; 16] = *b"0123456789abcdef";

struct Run<'s> {
    setup: &'s Setup,
    c: Conn<'s, T>,
    log: Vec<Log>,
    opened: u32,
    live: Vec<u32>,
    /// What the session wrote after its upgrade request.
    wrote: Vec<u8>,
    /// The session ended with a last word (its Close), written last.
    last_word: bool,
}

impl Run<'_> {
    /// Opens what the session has room for, as the worker does, and takes its output.
    fn fill(&mut self) {
        let k = self.c.room().min((BUDGET - self.opened) as usize);
        for p in 0..k {
            let req = self.opened % 2;
            let tag = self.opened;
            let opened = if self.setup.keep_responses && tag % 3 == 2 {
                self.c.open_text(start(), TEXT, false, T(tag))
            } else {
                self.c.open(start(), p, req, T(tag))
            };
            assert!(opened, "room() promised {k}");
            self.opened += 1;
            self.live.push(tag);
            self.log.push(Log::Opened(tag));
        }
        let out = self.c.out().bytes.to_vec();
        self.c.wrote(start(), out.len());
        assert!(self.c.out().is_empty());
        self.wrote.extend_from_slice(&out);
    }

    fn ended(&mut self, tag: u32) {
        let Some(i) = self.live.iter().position(|&t| t == tag) else {
            panic!("tag {tag} ended twice or was never opened");
        };
        self.live.swap_remove(i);
    }

    /// Feeds `carry`; false when the connection ended.
    fn feed(&mut self, carry: &mut Vec<u8>) -> bool {
        let mut ends = Vec::new();
        let r = self.c.feed(start(), carry, &mut |e| ends.push(e));
        for e in ends {
            let End::Response { tag, .. } = e else {
                panic!("WebSocket ends messages only with replies: {e:?}");
            };
            self.ended(tag.0);
            self.log.push(Log::Ended(e));
            if self.setup.keep_responses {
                let mut k = Kept::default();
                assert!(self.c.take_response(&mut k), "a reply kept for each");
                self.log.push(Log::Kept(k.status, k.body.clone()));
            }
        }
        assert!(
            !self.c.take_response(&mut Kept::default()),
            "one kept per reply"
        );
        match r {
            Ok(f) if f.close => {
                self.log.push(Log::Close);
                false
            }
            Ok(f) => {
                assert!(f.used <= carry.len());
                carry.drain(..f.used);
                assert!(carry.len() <= MAX_CARRY, "carry of {}", carry.len());
                true
            }
            Err(e) => {
                self.log
                    .push(Log::Error(format!("{:?} {}", e.class, e.why)));
                // The worker writes a last word before it closes: it must be this side's Close,
                // the last frame written (check_written decodes it).
                if self.c.out().last_word {
                    let out = self.c.out().bytes.to_vec();
                    self.c.wrote(start(), out.len());
                    assert!(!self.c.out().last_word, "written, nothing is left to say");
                    self.wrote.extend_from_slice(&out);
                    self.last_word = true;
                }
                false
            }
        }
    }

    /// The connection ended: the open tags come back.
    fn drain(&mut self) {
        let mut back = Vec::new();
        self.c.drain(&mut |t| back.push(t.0));
        for t in back {
            self.ended(t);
        }
        assert!(self.live.is_empty(), "tags neither ended nor taken back");
    }

    /// What the session wrote after the upgrade is frames a server reads: the messages in
    /// order, pongs, at most one close and nothing after it.
    fn check_written(&mut self) {
        let mut srv = Session::server(self.setup.limits);
        let mut out = Vec::new();
        let mut pos = 0;
        let mut messages = 0u32;
        let mut closed = false;
        loop {
            let (n, ev) = srv
                .next(&mut self.wrote[pos..], &mut out)
                .expect("the client writes valid masked frames");
            pos += n;
            match ev {
                Some(Event::Message { data, .. }) => {
                    let own = self.setup.keep_responses && messages % 3 == 2;
                    let want = if own {
                        &TEXT[TEXT.len() - 5..]
                    } else {
                        &self.setup.messages[(messages % 2) as usize].0[..]
                    };
                    assert_eq!(data, want, "message {messages}");
                    messages += 1;
                }
                Some(Event::Pong(_)) => {}
                Some(Event::Close { .. }) => {
                    closed = true;
                    break;
                }
                Some(other) => panic!("the client wrote {other:?}"),
                None => break,
            }
        }
        assert!(!self.last_word || closed, "a last word is a Close");
        assert_eq!(messages, self.opened, "every message opened went out, once");
    }
}

fn run_once(setup: &Setup, chunks: &[&[u8]], how: Feed) -> Vec<Log> {
    let mut r = Run {
        setup,
        c: Conn::new(setup),
        log: Vec::new(),
        opened: 0,
        live: Vec::new(),
        wrote: Vec::new(),
        last_word: false,
    };
    r.c.start_with(start(), NONCE, 7);
    let n = r.c.out().bytes.len();
    r.c.wrote(start(), n);
    r.fill();
    let mut carry = Vec::new();
    let mut seed = match how {
        Feed::Split(s) => s,
        _ => 0,
    };
    let mut ended = false;
    'chunks: for chunk in chunks {
        let pieces: Vec<&[u8]> = match how {
            Feed::Whole => vec![chunk],
            Feed::Bytewise => chunk.chunks(1).collect(),
            Feed::Split(_) => {
                let n = (next(&mut seed) % 4) as usize + 1;
                let mut at = 0;
                let mut v = Vec::new();
                for cut in cuts(next(&mut seed), n, chunk.len()) {
                    v.push(&chunk[at..cut]);
                    at = cut;
                }
                v.push(&chunk[at..]);
                v
            }
        };
        for p in pieces {
            carry.extend_from_slice(p);
            if !r.feed(&mut carry) {
                ended = true;
                break 'chunks;
            }
        }
        let before = r.wrote.len();
        r.fill();
        let new = r.wrote[before..].to_vec();
        r.log.push(Log::State(r.c.room(), carry.len(), new));
    }
    if !ended {
        let mut ends = Vec::new();
        let eof = r.c.eof(&mut |e| ends.push(e));
        for e in ends {
            if let End::Response { tag, .. } = e {
                r.ended(tag.0);
            }
            r.log.push(Log::Ended(e));
        }
        r.log.push(Log::Eof(
            eof.map_err(|e| format!("{:?} {}", e.class, e.why)),
        ));
    }
    r.drain();
    r.check_written();
    r.log
}

pub fn run(data: &[u8]) {
    let [c0, c1, input @ ..] = data else {
        return;
    };
    let setup = Setup {
        host: "h".into(),
        path: "/ws".into(),
        messages: Setup::messages(&[b"hello".to_vec(), vec![0xff, 0, 1]]),
        depth: usize::from(c0 & 7) + 1,
        timeout: Duration::from_secs(60),
        expect_body: (c0 & 16 != 0).then(|| b"hello".to_vec()),
        echo: c0 & 32 == 0,
        limits: if c0 & 32 != 0 {
            Limits {
                max_frame: 64,
                max_message: 100,
            }
        } else {
            Limits::default()
        },
        headers: Vec::new(),
        keep_responses: c1 & 0x80 != 0,
        seed: 7.into(),
    };
    let mut stream = Vec::new();
    if c0 & 8 != 0 {
        let accept = handshake::accept_key(&handshake::client_key(NONCE));
        handshake::write_accept(&mut stream, &accept, b"");
    }
    stream.extend_from_slice(input);
    let input = &stream[..];
    let n = usize::from(c0 >> 6) + 1;
    let mut chunks = Vec::new();
    let mut at = 0;
    for cut in cuts(u64::from(*c1), n - 1, input.len()) {
        chunks.push(&input[at..cut]);
        at = cut;
    }
    chunks.push(&input[at..]);
    let whole = run_once(&setup, &chunks, Feed::Whole);
    let split = run_once(&setup, &chunks, Feed::Split(u64::from(*c1) << 8 | 1));
    assert_eq!(whole, split, "whole and split feeds differ");
    if input.len() <= 4096 {
        let bytewise = run_once(&setup, &chunks, Feed::Bytewise);
        assert_eq!(whole, bytewise, "whole and bytewise feeds differ");
    }
}

//! The HTTP/1.1 client session (`barrage_wire::h1::client::Conn`) as the load engine drives it
//! through the client-session interface: requests (GETs and HEADs) opened up to its room out of
//! the run's encoded buffer, a server's bytes fed in chunks (each a socket read, the unconsumed
//! rest carried in front of the next, as the worker does), each chunk whole, split at random
//! points, and a byte at a time, requests refilled at each chunk's end, then the peer's close.
//!
//! Input: 3 control bytes, then the server's bytes.
//! - `c0`: pipeline depth (1-8, bits 0-2), keep-alive (bit 3), the closed loop's whole batches
//!   (bit 4), a body expected (bit 5), chunks (1-4, bits 6-7);
//! - `c1`: which of the 8 positions of the round are HEADs (bit k: position k);
//! - `c2`: the seed of the chunk and split points.
//!
//! Checked: no panic; the whole, split and bytewise feeds end the same requests the same way
//! with the same connection end; every opened tag ends exactly once (ended, or taken back when
//! the connection ends); what the session writes is the opened requests' bytes in order; the
//! carry stays within `MAX_CARRY`.

use barrage_wire::client::{ClientSession, End, Order, Tag, MAX_CARRY};
use barrage_wire::h1::client::{Conn, Setup};
use barrage_wire::h1::encoded::Encoded;
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
    /// At a chunk's end: room, carry length.
    State(usize, usize),
}

const REQUESTS: [&[u8]; 2] = [b"GET / HTTP/1.1\r\n\r\n", b"HEAD / HTTP/1.1\r\n\r\n"];
/// Requests opened in one run at most.
const BUDGET: u32 = 40;

struct Run<'s> {
    order: &'s Order,
    c: Conn<'s, T>,
    log: Vec<Log>,
    opened: u32,
    cursor: usize,
    live: Vec<u32>,
}

impl Run<'_> {
    /// Opens what the session has room for at consecutive positions, as the worker does, and
    /// writes its output.
    fn fill(&mut self) {
        let k = self.c.room().min((BUDGET - self.opened) as usize);
        let mut want = Vec::new();
        for p in self.cursor..self.cursor + k {
            let req = self.order.request_at(p);
            let tag = self.opened;
            assert!(self.c.open(start(), p, req, T(tag)), "room() promised {k}");
            want.extend_from_slice(REQUESTS[req as usize]);
            self.opened += 1;
            self.live.push(tag);
            self.log.push(Log::Opened(tag));
        }
        self.cursor = (self.cursor + k) % self.order.round();
        assert_eq!(
            self.c.out().bytes,
            &want[..],
            "the opened requests, in order"
        );
        let n = self.c.out().bytes.len();
        self.c.wrote(start(), n);
        assert!(self.c.out().is_empty());
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
                panic!("HTTP/1.1 ends requests only with responses: {e:?}");
            };
            self.ended(tag.0);
            self.log.push(Log::Ended(e));
        }
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
}

fn run_once(setup: &Setup, order: &Order, chunks: &[&[u8]], how: Feed) -> Vec<Log> {
    let mut r = Run {
        order,
        c: Conn::new(setup),
        log: Vec::new(),
        opened: 0,
        cursor: 0,
        live: Vec::new(),
    };
    r.c.start(start(), start());
    r.fill();
    let mut carry = Vec::new();
    let mut seed = match how {
        Feed::Split(s) => s,
        _ => 0,
    };
    for chunk in chunks {
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
                r.drain();
                return r.log;
            }
        }
        r.fill();
        r.log.push(Log::State(r.c.room(), carry.len()));
    }
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
    r.drain();
    r.log
}

pub fn run(data: &[u8]) {
    let [c0, c1, c2, input @ ..] = data else {
        return;
    };
    let depth = usize::from(c0 & 7) + 1;
    let round: Vec<u32> = (0..8).map(|k| u32::from(c1 >> k & 1)).collect();
    let order = Order::new(&round, depth);
    let reqs: Vec<Vec<u8>> = REQUESTS.iter().map(|r| r.to_vec()).collect();
    let setup = Setup {
        encoded: Encoded::new(&reqs, &order),
        is_head: vec![false, true],
        depth,
        keep_alive: c0 & 8 != 0,
        batch: c0 & 16 != 0,
        timeout: Duration::from_secs(60),
        expect_body: (c0 & 32 != 0).then(|| b"hello".to_vec()),
        // A script's response() hook: responses kept whole must not change what ends.
        keep_responses: c2 & 0x80 != 0,
    };
    let n = usize::from(c0 >> 6) + 1;
    let mut chunks = Vec::new();
    let mut at = 0;
    for cut in cuts(u64::from(*c2), n - 1, input.len()) {
        chunks.push(&input[at..cut]);
        at = cut;
    }
    chunks.push(&input[at..]);
    let whole = run_once(&setup, &order, &chunks, Feed::Whole);
    let split = run_once(
        &setup,
        &order,
        &chunks,
        Feed::Split(u64::from(*c2) << 8 | 1),
    );
    assert_eq!(whole, split, "whole and split feeds differ");
    if input.len() <= 4096 {
        let bytewise = run_once(&setup, &order, &chunks, Feed::Bytewise);
        assert_eq!(whole, bytewise, "whole and bytewise feeds differ");
    }
}

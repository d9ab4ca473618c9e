//! The HTTP/2 client session (`barrage_wire::h2::client::Client`) as the load engine drives it,
//! fed a server's frame sequence: after a valid SETTINGS exchange, with requests opened (before
//! and after the server's SETTINGS, refilled as streams end, some cancelled), the input fed in
//! chunks, each chunk whole, split at random points, and a byte at a time.
//!
//! Input: 4 control bytes, then the server's bytes (raw frames).
//! - `c0`: streams wanted (1-8, bits 0-2), the client's stream window (bits 3-4), two different
//!   requests or one (bit 5), a body expected (bit 6), streams opened before the server's
//!   SETTINGS (bit 7);
//! - `c1`: the server's SETTINGS: MAX_CONCURRENT_STREAMS (bits 0-2), INITIAL_WINDOW_SIZE
//!   (bits 3-4), HEADER_TABLE_SIZE 0 (bit 5), MAX_FRAME_SIZE 2^20 (bit 6), the oldest stream
//!   cancelled at each chunk's end (bit 7);
//! - `c2`: chunks (1-8, bits 0-2) and how many requests the run may open (bits 3-7, 1-32);
//! - `c3`: the seed of the chunk and split points.
//!
//! Checked: no panic; the whole, split and bytewise feeds end the same streams the same way
//! with the same connection error; every opened tag ends exactly once (ended, cancelled, still
//! open or handed back at the error) and nothing else ends; stream ids are odd and rising;
//! every frame the client writes parses; what it writes in answer to a feed is bounded by what
//! it was fed (plus the request bodies it still owed).

use barrage_wire::h2::client::{Client, Config, End, Request};
use barrage_wire::h2::frame::{write_settings, write_settings_ack};
use barrage_wire::h2::parse_frame;
use barrage_wire::h2::settings::{
    HEADER_TABLE_SIZE, INITIAL_WINDOW_SIZE, MAX_CONCURRENT_STREAMS, MAX_FRAME_SIZE,
};

use crate::split::{cuts, next, Feed};

/// What a run saw, compared between the whole, split and bytewise feeds.
#[derive(Debug, PartialEq, Eq)]
enum Log {
    Opened(u32, u32),
    Ended(End<u32>),
    Cancelled(u32),
    Error(String),
    /// At a chunk's end: open streams, room, going away, finished.
    State(usize, usize, bool, bool),
}

/// How the input is fed within each chunk.
/// A small deterministic generator (splitmix64) for chunk and split points.
/// `n` sorted cut points in `0..=len`.
struct Setup {
    cfg: Config,
    reqs: Vec<Request>,
    expect: Option<&'static [u8]>,
    open_early: bool,
    cancel: bool,
    budget: u32,
    settings: Vec<u8>,
}

fn setup(c0: u8, c1: u8, c2: u8) -> Setup {
    let cfg = Config {
        max_streams: u32::from(c0 & 7) + 1,
        stream_window: [16, 100, 65_535, 1 << 20][usize::from(c0 >> 3 & 3)],
        conn_window: 1 << 30,
        max_header_list: barrage_wire::h2::client::MAX_HEADER_LIST,
    };
    let reqs = if c0 & 0x20 != 0 {
        vec![
            Request::new("GET", "http", "h", "/a", &[], b"").without_indexing(),
            Request::new(
                "POST",
                "http",
                "h",
                "/b",
                &[("x-k".into(), "v".into())],
                &[b'p'; 40],
            )
            .without_indexing(),
        ]
    } else {
        vec![Request::new(
            "POST",
            "http",
            "127.0.0.1:8080",
            "/ping",
            &[("user-agent".into(), "barrage".into())],
            b"ping",
        )]
    };
    let mut params = Vec::new();
    match c1 & 7 {
        0 => {}
        n => params.push((MAX_CONCURRENT_STREAMS, u32::from(n) - 1)),
    }
    match c1 >> 3 & 3 {
        0 => {}
        k => params.push((INITIAL_WINDOW_SIZE, [0, 5, 1 << 20][usize::from(k) - 1])),
    }
    if c1 & 0x20 != 0 {
        params.push((HEADER_TABLE_SIZE, 0));
    }
    if c1 & 0x40 != 0 {
        params.push((MAX_FRAME_SIZE, 1 << 20));
    }
    // The server's opening and its acknowledgement of the client's SETTINGS.
    let mut settings = Vec::new();
    write_settings(&mut settings, &params);
    write_settings_ack(&mut settings);
    Setup {
        cfg,
        reqs,
        expect: (c0 & 0x40 != 0).then_some(&b"pong"[..]),
        open_early: c0 & 0x80 != 0,
        cancel: c1 & 0x80 != 0,
        budget: u32::from(c2 >> 3) + 1,
        settings,
    }
}

/// One connection's run: its log.
struct Run<'a> {
    s: &'a Setup,
    c: Client<u32>,
    log: Vec<Log>,
    opened: u32,
    last_id: u32,
    /// Tags that have not ended yet.
    live: Vec<u32>,
    check_out: bool,
}

impl Run<'_> {
    /// Opens streams while there is room and budget (as the engine does after each read).
    fn fill(&mut self) {
        while self.c.room() > 0 && self.opened < self.s.budget {
            let tag = self.opened;
            let which = tag as usize % self.s.reqs.len();
            let id = self
                .c
                .open(&self.s.reqs, which, tag)
                .expect("room() promised a stream");
            assert!(id % 2 == 1 && id > self.last_id, "stream id {id}");
            self.last_id = id;
            self.opened += 1;
            self.live.push(tag);
            self.log.push(Log::Opened(tag, id));
        }
        self.drain_out(0);
    }

    /// The caller writes `out` to the socket: each frame in it must parse, and it must be no
    /// more than `bound` bytes (0: unbounded, an open's own writes).
    fn drain_out(&mut self, bound: usize) {
        let out = std::mem::take(&mut self.c.out);
        if bound > 0 {
            assert!(
                out.len() <= bound,
                "{} bytes written, bound {bound}",
                out.len()
            );
        }
        if self.check_out {
            let mut at = if out.starts_with(barrage_wire::h2::PREFACE) {
                barrage_wire::h2::PREFACE.len()
            } else {
                0
            };
            while at < out.len() {
                match parse_frame(&out[at..], (1 << 24) - 1) {
                    Ok(Some((_, n))) => at += n,
                    other => panic!("the client wrote a frame its peer refuses: {other:?}"),
                }
            }
        }
        self.c.out = out;
        self.c.out.clear();
    }

    fn end(&mut self, tag: u32) {
        let Some(i) = self.live.iter().position(|&t| t == tag) else {
            panic!("tag {tag} ended twice or was never opened");
        };
        self.live.swap_remove(i);
    }

    /// Feeds `buf`; false after a connection error.
    fn feed(&mut self, carry: &mut Vec<u8>) -> bool {
        let mut ended = Vec::new();
        let owed: usize =
            self.c.open_streams() * self.s.reqs.iter().map(|r| r.body.len()).max().unwrap_or(0);
        let r = self
            .c
            .feed(carry, &self.s.reqs, self.s.expect, &mut |e| ended.push(e));
        for e in ended {
            let tag = match e {
                // A reply message: its call goes on (logged, so a split input must give the
                // same messages).
                End::GrpcMessage { tag } => {
                    assert!(self.live.contains(&tag), "a message of tag {tag}, not live");
                    self.log.push(Log::Ended(e));
                    continue;
                }
                End::Response { tag, .. }
                | End::Reset { tag, .. }
                | End::Malformed { tag, .. }
                | End::Unprocessed { tag }
                | End::HeaderTooLarge { tag }
                | End::Grpc { tag, .. } => tag,
            };
            self.end(tag);
            self.log.push(Log::Ended(e));
        }
        let fed = carry.len();
        // Per frame fed, at most a SETTINGS ack, a PING ack, two WINDOW_UPDATEs and a reset;
        // bodies go out in DATA frames of at least one byte.
        let bound = 5 * fed + 10 * owed + 64;
        match r {
            Ok(n) => {
                assert!(n <= carry.len());
                carry.drain(..n);
                self.drain_out(bound);
                true
            }
            Err(e) => {
                self.log
                    .push(Log::Error(format!("{:?} {}", e.code, e.what)));
                self.drain_out(bound);
                let rest: Vec<u32> = self.c.drain().collect();
                for tag in rest {
                    self.end(tag);
                }
                false
            }
        }
    }

    /// A chunk's end: cancel the oldest stream if asked, refill, note the state.
    fn chunk_end(&mut self) {
        if self.s.cancel {
            let oldest = self.c.streams().next().map(|(id, &tag)| (id, tag));
            if let Some((id, tag)) = oldest {
                assert_eq!(self.c.cancel(id), Some(tag));
                self.end(tag);
                self.log.push(Log::Cancelled(tag));
            }
        }
        self.fill();
        if self.c.finished() {
            assert_eq!(self.c.room(), 0);
        }
        self.log.push(Log::State(
            self.c.open_streams(),
            self.c.room(),
            self.c.going_away(),
            self.c.finished(),
        ));
    }
}

fn run_once(s: &Setup, chunks: &[&[u8]], how: Feed, check_out: bool) -> Vec<Log> {
    let mut r = Run {
        s,
        c: Client::new(s.cfg),
        log: Vec::new(),
        opened: 0,
        last_id: 0,
        live: Vec::new(),
        check_out,
    };
    r.drain_out(0);
    if s.open_early {
        r.fill();
    }
    let mut carry = s.settings.clone();
    assert!(r.feed(&mut carry), "the SETTINGS exchange failed");
    assert!(carry.is_empty());
    r.fill();
    let mut seed = match how {
        Feed::Split(seed) => seed,
        _ => 0,
    };
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
        // A chunk is one socket read, however it is fed: the credit written before it counts.
        r.c.commit_credit();
        for p in pieces {
            carry.extend_from_slice(p);
            if !r.feed(&mut carry) {
                break 'chunks;
            }
        }
        r.chunk_end();
    }
    // Every opened tag has ended, or is still open.
    let mut open: Vec<u32> = r.c.streams().map(|(_, &t)| t).collect();
    open.sort_unstable();
    r.live.sort_unstable();
    assert_eq!(open, r.live, "tags neither ended nor open");
    r.log
}

pub fn run(data: &[u8]) {
    let [c0, c1, c2, c3, input @ ..] = data else {
        return;
    };
    let s = setup(*c0, *c1, *c2);
    let n = usize::from(c2 & 7) + 1;
    let mut chunks = Vec::new();
    let mut at = 0;
    for cut in cuts(u64::from(*c3), n - 1, input.len()) {
        chunks.push(&input[at..cut]);
        at = cut;
    }
    chunks.push(&input[at..]);
    let whole = run_once(&s, &chunks, Feed::Whole, true);
    let split = run_once(&s, &chunks, Feed::Split(u64::from(*c3) << 8 | 1), false);
    assert_eq!(whole, split, "whole and split feeds differ");
    if input.len() <= 4096 {
        let bytewise = run_once(&s, &chunks, Feed::Bytewise, false);
        assert_eq!(whole, bytewise, "whole and bytewise feeds differ");
    }
}

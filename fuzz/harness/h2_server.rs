//! The HTTP/2 server session (`barrage_wire::h2::server::Server`) as `barrage serve` drives it,
//! fed a client's frame sequence: after the preface and a valid SETTINGS exchange, answering
//! requests the ways the server does (after the body, echoing it as it arrives, or at once
//! before it ends), retrying bodies the windows held back, and cancelling large bodies; the
//! input fed in chunks, each chunk whole, split at random points, and a byte at a time.
//!
//! Input: 4 control bytes, then the client's bytes after its preface (raw frames).
//! - `c0`: the server's config: MAX_CONCURRENT_STREAMS (bits 0-1: 1, 2, 8, 256), stream window
//!   (bits 2-3), connection window 65,535 (bit 4), header list limit 100 bytes (bit 5), how
//!   requests are answered (bits 6-7: after the body, echo, at once, 1,000-byte body);
//! - `c1`: the client's SETTINGS: INITIAL_WINDOW_SIZE (bits 0-1), MAX_FRAME_SIZE 2^20 (bit 2),
//!   HEADER_TABLE_SIZE 0 (bit 3); request bodies over 64 bytes cancelled (bit 4);
//! - `c2`: chunks (1-8, bits 0-2);
//! - `c3`: the seed of the chunk and split points.
//!
//! Checked: no panic; the whole, split and bytewise feeds report the same requests, data,
//! resets and connection error; requests come on new odd streams; body data and trailers only
//! on streams announced and not ended; open streams stay within the limit; every frame the
//! server writes parses; what it writes in answer to frames is bounded by what it was fed.

use barrage_wire::h2::frame::{write_settings, write_settings_ack, ErrorCode};
use barrage_wire::h2::parse_frame;
use barrage_wire::h2::server::{Config, Event, Server};
use barrage_wire::h2::settings::{HEADER_TABLE_SIZE, INITIAL_WINDOW_SIZE, MAX_FRAME_SIZE};

use crate::split::{cuts, next, Feed};

#[derive(Debug, PartialEq, Eq)]
enum Log {
    Request(u32, String, String, bool, Option<u64>, usize),
    TooLarge(u32, bool),
    Data(u32, Vec<u8>, bool),
    Reset(u32),
    Error(String),
    /// At a chunk's end: open streams, the last stream id.
    State(usize, u32),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Answer {
    AfterBody,
    Echo,
    AtOnce,
    Big,
}

struct Setup {
    cfg: Config,
    answer: Answer,
    cancel_big: bool,
    settings: Vec<u8>,
}

fn setup(c0: u8, c1: u8) -> Setup {
    let cfg = Config {
        max_concurrent_streams: [1, 2, 8, 256][usize::from(c0 & 3)],
        stream_window: [16, 100, 65_535, 1 << 20][usize::from(c0 >> 2 & 3)],
        conn_window: if c0 & 0x10 != 0 { 65_535 } else { 1 << 24 },
        max_header_list: if c0 & 0x20 != 0 { 100 } else { 16 * 1024 },
    };
    let answer =
        [Answer::AfterBody, Answer::Echo, Answer::AtOnce, Answer::Big][usize::from(c0 >> 6)];
    let mut params = Vec::new();
    match c1 & 3 {
        0 => {}
        k => params.push((INITIAL_WINDOW_SIZE, [0, 7, 1 << 20][usize::from(k) - 1])),
    }
    if c1 & 4 != 0 {
        params.push((MAX_FRAME_SIZE, 1 << 20));
    }
    if c1 & 8 != 0 {
        params.push((HEADER_TABLE_SIZE, 0));
    }
    // The client's SETTINGS (its preface was read and dropped by the caller) and its
    // acknowledgement of the server's.
    let mut settings = Vec::new();
    write_settings(&mut settings, &params);
    write_settings_ack(&mut settings);
    Setup {
        cfg,
        answer,
        cancel_big: c1 & 0x10 != 0,
        settings,
    }
}

/// What the caller owes a stream.
struct Owed {
    stream: u32,
    /// Response body bytes not yet sent, and whether they end the stream.
    body: Vec<u8>,
    end: bool,
    /// The response head went out.
    headed: bool,
    /// Request body bytes seen.
    seen: usize,
}

struct Run<'a> {
    s: &'a Setup,
    srv: Server,
    out: Vec<u8>,
    log: Vec<Log>,
    owed: Vec<Owed>,
    /// Streams announced (request or 431) whose request has not ended, and those ended.
    receiving: Vec<u32>,
    last_request: u32,
    check_out: bool,
}

const BODY: &[u8] = b"hello, world\n";

impl Run<'_> {
    /// The caller writes `out`: each frame in it must parse; no more than `bound` bytes
    /// (0: unchecked, the caller's own responses).
    fn drain_out(&mut self, bound: usize) {
        if bound > 0 {
            assert!(
                self.out.len() <= bound,
                "{} bytes written, bound {bound}",
                self.out.len()
            );
        }
        if self.check_out {
            let mut at = 0;
            while at < self.out.len() {
                match parse_frame(&self.out[at..], (1 << 24) - 1) {
                    Ok(Some((_, n))) => at += n,
                    other => panic!("the server wrote a frame its peer refuses: {other:?}"),
                }
            }
        }
        self.out.clear();
    }

    fn respond(&mut self, stream: u32, status: u16, body: Vec<u8>, end_after_body: bool) {
        let end = body.is_empty() && end_after_body;
        self.srv.respond(
            &mut self.out,
            stream,
            status,
            &[("content-type", b"text/plain")],
            end,
        );
        if !end {
            self.owed.push(Owed {
                stream,
                body,
                end: end_after_body,
                headed: true,
                seen: 0,
            });
        }
    }

    /// Sends what the windows allow of every body owed.
    fn retry(&mut self) {
        let Run { srv, out, owed, .. } = self;
        owed.retain_mut(|o| {
            if !o.headed {
                return true;
            }
            let n = srv.send_data(out, o.stream, &o.body, o.end);
            o.body.drain(..n);
            srv.can_send(o.stream) && !(o.body.is_empty() && o.end)
        });
    }

    /// Pulls every event from `carry`; false after a connection error.
    fn feed(&mut self, carry: &mut Vec<u8>) -> bool {
        loop {
            let before = self.out.len();
            let (used, ev) = match self.srv.next(carry, &mut self.out) {
                Ok(x) => x,
                Err(e) => {
                    self.log
                        .push(Log::Error(format!("{:?} {}", e.code, e.what)));
                    let fed = carry.len();
                    assert!(self.out.len() - before <= 5 * fed + 64);
                    self.srv.goaway(&mut self.out, e.code, e.what.as_bytes());
                    self.drain_out(0);
                    return false;
                }
            };
            assert!(used <= carry.len());
            // Per frame, at most a SETTINGS or PING ack, two WINDOW_UPDATEs and a reset.
            assert!(
                self.out.len() - before <= 5 * used + 64,
                "{} bytes written for {used} fed",
                self.out.len() - before
            );
            let log = match ev {
                None => None,
                Some(Event::Request(r)) => {
                    assert!(
                        r.stream % 2 == 1 && r.stream > self.last_request,
                        "{}",
                        r.stream
                    );
                    assert!(!r.method.is_empty() && !r.path.is_empty());
                    self.last_request = r.stream;
                    if !r.end_stream {
                        self.receiving.push(r.stream);
                    }
                    Some(Log::Request(
                        r.stream,
                        r.method.to_string(),
                        r.path.to_string(),
                        r.end_stream,
                        r.content_length,
                        r.headers().count(),
                    ))
                }
                Some(Event::TooLarge { stream, end_stream }) => {
                    assert!(stream % 2 == 1 && stream > self.last_request);
                    self.last_request = stream;
                    if !end_stream {
                        self.receiving.push(stream);
                    }
                    Some(Log::TooLarge(stream, end_stream))
                }
                Some(Event::Data {
                    stream,
                    data,
                    end_stream,
                }) => {
                    let Some(i) = self.receiving.iter().position(|&s| s == stream) else {
                        panic!("data on stream {stream}, which is not receiving");
                    };
                    if end_stream {
                        self.receiving.swap_remove(i);
                    }
                    Some(Log::Data(stream, data.to_vec(), end_stream))
                }
                Some(Event::Reset { stream }) => {
                    self.receiving.retain(|&s| s != stream);
                    self.owed.retain(|o| o.stream != stream);
                    Some(Log::Reset(stream))
                }
            };
            carry.drain(..used);
            let Some(log) = log else {
                return true;
            };
            self.answer(&log);
            self.log.push(log);
            self.retry();
            assert!(self.srv.open_streams() <= self.s.cfg.max_concurrent_streams as usize);
        }
    }

    /// Answers an event the way `barrage serve` does.
    fn answer(&mut self, ev: &Log) {
        let body = || match self.s.answer {
            Answer::Big => vec![b'x'; 1000],
            _ => BODY.to_vec(),
        };
        match *ev {
            Log::Request(stream, _, _, end_stream, _, _) => match self.s.answer {
                _ if end_stream => self.respond(stream, 200, body(), true),
                Answer::AtOnce => self.respond(stream, 200, body(), true),
                Answer::Echo => {
                    self.srv.respond(&mut self.out, stream, 200, &[], false);
                    self.owed.push(Owed {
                        stream,
                        body: Vec::new(),
                        end: false,
                        headed: true,
                        seen: 0,
                    });
                }
                Answer::AfterBody | Answer::Big => self.owed.push(Owed {
                    stream,
                    body: Vec::new(),
                    end: false,
                    headed: false,
                    seen: 0,
                }),
            },
            Log::TooLarge(stream, _) => self.respond(stream, 431, b"too large\n".to_vec(), true),
            Log::Data(stream, ref data, end_stream) => {
                let Some(i) = self.owed.iter().position(|o| o.stream == stream) else {
                    return;
                };
                let o = &mut self.owed[i];
                o.seen += data.len();
                if self.s.cancel_big && o.seen > 64 {
                    self.srv.cancel(&mut self.out, stream, ErrorCode::Cancel);
                    self.owed.swap_remove(i);
                    return;
                }
                if o.headed {
                    // Echo: the data goes back as it came.
                    o.body.extend_from_slice(data);
                    o.end |= end_stream;
                } else if end_stream {
                    self.owed.swap_remove(i);
                    self.respond(stream, 200, body(), true);
                }
            }
            _ => {}
        }
    }

    fn chunk_end(&mut self) {
        self.retry();
        self.drain_out(0);
        self.log
            .push(Log::State(self.srv.open_streams(), self.srv.last_stream()));
    }
}

fn run_once(s: &Setup, chunks: &[&[u8]], how: Feed, check_out: bool) -> Vec<Log> {
    let mut r = Run {
        s,
        srv: Server::new(s.cfg),
        out: Vec::new(),
        log: Vec::new(),
        owed: Vec::new(),
        receiving: Vec::new(),
        last_request: 0,
        check_out,
    };
    r.srv.start(&mut r.out);
    r.drain_out(0);
    let mut carry = s.settings.clone();
    assert!(r.feed(&mut carry), "the SETTINGS exchange failed");
    assert!(carry.is_empty() && r.log.is_empty());
    r.drain_out(0);
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
        r.srv.session.commit_credit();
        for p in pieces {
            carry.extend_from_slice(p);
            if !r.feed(&mut carry) {
                break 'chunks;
            }
        }
        r.chunk_end();
    }
    r.log
}

pub fn run(data: &[u8]) {
    let [c0, c1, c2, c3, input @ ..] = data else {
        return;
    };
    let s = setup(*c0, *c1);
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

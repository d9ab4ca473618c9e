//! The HTTP/1.1 session as the engine drives it: pipelined requests out of the run's buffer,
//! responses matched in order whatever the split, HEADs, keep-alive, the connection's ends.

use super::*;
use crate::client::{ErrorClass, Order};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct T(u32, Instant);

impl Tag for T {
    fn counted(&self) -> bool {
        true
    }
    fn sent(&self) -> Instant {
        self.1
    }
}

/// Requests "G" (GET) and "H" (HEAD), in the order `order`.
fn setup(order: &[u32], depth: usize, batch: bool, keep_alive: bool) -> Setup {
    let o = Order::new(order, depth);
    Setup {
        encoded: Encoded::new(&[b"G\n".to_vec(), b"H\n".to_vec()], &o),
        is_head: vec![false, true],
        depth,
        keep_alive,
        batch,
        timeout: Duration::from_secs(1),
        expect_body: Some(b"ok".to_vec()),
        keep_responses: false,
    }
}

/// Opens `n` requests from position 0 (request `order[p]` at position p).
fn open(c: &mut Conn<'_, T>, order: &[u32], n: usize, at: Instant) {
    for p in 0..n {
        assert!(
            c.open(at, p, order[p % order.len()], T(p as u32, at)),
            "open {p}"
        );
    }
}

/// Feeds `wire` cut at `cuts` as the engine does (the unconsumed rest carried in front of the
/// next piece); the ends and the result of the last feed.
fn feed_cut(
    c: &mut Conn<'_, T>,
    wire: &[u8],
    cuts: &[usize],
) -> (Vec<End<T>>, Result<Fed, ConnError>) {
    let mut ends = Vec::new();
    let mut carry = Vec::new();
    let mut at = 0;
    let mut last = Ok(Fed {
        used: 0,
        close: false,
    });
    for &cut in cuts.iter().chain([&wire.len()]) {
        let cut = cut.max(at);
        carry.extend_from_slice(&wire[at..cut]);
        at = cut;
        last = c.feed(Instant::now(), &carry, &mut |e| ends.push(e));
        match &last {
            Ok(f) if f.close => break,
            Ok(f) => drop(carry.drain(..f.used)),
            Err(_) => break,
        }
        assert!(carry.len() <= crate::client::MAX_CARRY);
    }
    (ends, last)
}

const WIRE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok\
HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n\
HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n1\r\no\r\n1\r\nx\r\n0\r\n\r\n";

#[test]
fn pipelined_responses_match_their_requests_at_every_split() {
    // GET, HEAD (its response says 5 bytes and sends none), GET.
    let order = [0, 1, 0];
    let s = setup(&order, 3, true, true);
    let at = Instant::now();
    let mut whole = None;
    for cut in 0..=WIRE.len() {
        let mut c = Conn::new(&s);
        c.start(at, at);
        open(&mut c, &order, 3, at);
        assert_eq!(c.out().bytes, b"G\nH\nG\n", "one slice for the batch");
        c.wrote(at, 6);
        let (ends, last) = feed_cut(&mut c, WIRE, &[cut]);
        assert_eq!(last.map(|f| f.close), Ok(false));
        let want = vec![
            End::Response {
                tag: T(0, at),
                status: 200,
                body_ok: true,
            },
            End::Response {
                tag: T(1, at),
                status: 200,
                body_ok: false,
            },
            End::Response {
                tag: T(2, at),
                status: 404,
                body_ok: false,
            },
        ];
        assert_eq!(ends, want, "cut {cut}");
        assert_eq!(c.room(), 3, "the batch is answered");
        whole.get_or_insert(ends);
    }
}

#[test]
fn room_batches_in_the_closed_loop_and_waits_for_writes() {
    let order = [0, 0, 0];
    let at = Instant::now();
    let s = setup(&order, 3, true, true);
    let mut c = Conn::new(&s);
    c.start(at, at);
    assert_eq!(c.room(), 3);
    open(&mut c, &order, 2, at);
    assert_eq!((c.room(), c.held_by_output()), (0, true));
    c.wrote(at, 3);
    assert_eq!(c.out().bytes, b"\n");
    c.wrote(at, 1);
    assert_eq!(
        (c.room(), c.held_by_output(), c.out().bytes),
        (0, false, &b""[..])
    );
    let (ends, _) = feed_cut(
        &mut c,
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
        &[],
    );
    assert_eq!(ends.len(), 1);
    assert_eq!(c.room(), 0, "closed loop: one of the batch is still out");

    // The open loop: a place as soon as one is free and nothing is being written.
    let s = setup(&order, 3, false, true);
    let mut c = Conn::new(&s);
    c.start(at, at);
    assert!(c.open(at, 1, 0, T(1, at)));
    assert_eq!(c.room(), 0, "writing");
    assert!(
        !c.open(at, 0, 0, T(0, at)),
        "not contiguous with what is being written"
    );
    c.wrote(at, 2);
    assert_eq!(c.room(), 2);
    assert!(c.open(at, 0, 0, T(0, at)));
    assert!(c.open(at, 1, 0, T(1, at)), "contiguous: the span grows");
    assert_eq!(c.out().bytes, b"G\nG\n");
    c.wrote(at, 4);
    assert!(!c.open(at, 2, 0, T(2, at)), "the pipeline is full");
    let mut tags = Vec::new();
    c.drain(&mut |t| tags.push(t.0));
    assert_eq!(tags, [1, 0, 1]);
    assert_eq!(c.room(), 3);
}

#[test]
fn a_response_ends_the_connection_when_asked() {
    let order = [0];
    let at = Instant::now();
    let two = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    // Keep-alive off: the first response closes, the second is never looked at.
    let s = setup(&order, 2, true, false);
    let mut c = Conn::new(&s);
    c.start(at, at);
    open(&mut c, &order, 2, at);
    let (ends, last) = feed_cut(&mut c, two, &[]);
    assert_eq!(ends.len(), 1);
    assert!(last.unwrap().close);
    // The server says close.
    let s = setup(&order, 2, true, true);
    let mut c = Conn::new(&s);
    c.start(at, at);
    open(&mut c, &order, 2, at);
    let wire = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok";
    let (ends, last) = feed_cut(&mut c, wire, &[]);
    assert_eq!((ends.len(), last.unwrap().close), (1, true));
}

#[test]
fn the_connection_ends_in_errors_by_class() {
    let order = [0];
    let at = Instant::now();
    let s = setup(&order, 1, true, true);
    let ok = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    let fresh = || {
        let mut c = Conn::new(&s);
        c.start(at, at);
        c
    };
    let class = |r: Result<(), ConnError>| r.err().map(|e| e.class);

    // A response nobody asked for: counted once, as it answers no request.
    let mut c = fresh();
    let (_, last) = feed_cut(&mut c, ok, &[]);
    assert_eq!(last.unwrap_err().class, ErrorClass::Unasked);
    // Garbage.
    let mut c = fresh();
    open(&mut c, &order, 1, at);
    let (_, last) = feed_cut(&mut c, b"nonsense\r\n\r\n", &[]);
    assert_eq!(last.unwrap_err().class, ErrorClass::Parse);
    // The peer closes: cleanly after an answer, a close-delimited body ends there, a request
    // cut off or a head cut in the middle is a reset, and so is a close before any answer.
    let mut c = fresh();
    open(&mut c, &order, 1, at);
    assert!(feed_cut(&mut c, ok, &[]).1.is_ok());
    assert_eq!(class(c.eof(&mut |_| {})), None);
    let mut c = fresh();
    open(&mut c, &order, 1, at);
    assert!(feed_cut(&mut c, b"HTTP/1.1 200 OK\r\n\r\no", &[]).1.is_ok());
    let mut ends = Vec::new();
    assert_eq!(class(c.eof(&mut |e| ends.push(e))), None);
    assert_eq!(
        ends,
        [End::Response {
            tag: T(0, at),
            status: 200,
            body_ok: false
        }]
    );
    let mut c = fresh();
    open(&mut c, &order, 1, at);
    assert_eq!(class(c.eof(&mut |_| {})), Some(ErrorClass::Reset));
    let mut c = fresh();
    open(&mut c, &order, 1, at);
    assert!(feed_cut(&mut c, b"HTTP/1.1 200 OK\r\nContent-", &[])
        .1
        .is_ok());
    assert_eq!(class(c.eof(&mut |_| {})), Some(ErrorClass::Reset));
    assert_eq!(class(fresh().eof(&mut |_| {})), Some(ErrorClass::Reset));
    // The oldest request's timeout ends the connection.
    let mut c = fresh();
    open(&mut c, &order, 1, at);
    assert_eq!(
        class(c.expire(at + Duration::from_millis(900), &mut |_| {})),
        None
    );
    let e = c
        .expire(at + Duration::from_secs(2), &mut |_| {})
        .unwrap_err();
    assert_eq!(
        (e.class, e.why.as_str()),
        (ErrorClass::Timeout, "no response within 1s")
    );
}

/// A script's requests go out as their text, a batch in one write after what the socket took
/// of the last, and with `keep_responses` each whole response is kept (head as received, body
/// decoded, chunked or not) whatever the read boundaries.
#[test]
fn text_requests_and_kept_responses() {
    let at = Instant::now();
    let mut s = setup(&[0], 3, true, true);
    s.keep_responses = true;
    let mut c: Conn<'_, T> = Conn::new(&s);
    c.start(at, at);
    assert!(c.open_text(at, b"GET /a HTTP/1.1\r\n\r\n", false, T(0, at)));
    assert!(c.open_text(at, b"HEAD /b HTTP/1.1\r\n\r\n", true, T(1, at)));
    assert_eq!(
        c.out().bytes,
        b"GET /a HTTP/1.1\r\n\r\nHEAD /b HTTP/1.1\r\n\r\n"
    );
    c.wrote(at, 4);
    assert_eq!(
        c.out().bytes,
        b"/a HTTP/1.1\r\n\r\nHEAD /b HTTP/1.1\r\n\r\n"
    );
    assert_eq!(c.room(), 0, "held by its output");
    assert!(c.open_text(at, b"GET /c HTTP/1.1\r\n\r\n", false, T(2, at)));
    assert!(
        !c.open_text(at, b"GET /d HTTP/1.1\r\n\r\n", false, T(3, at)),
        "depth 3"
    );
    assert_eq!(
        c.out().bytes,
        b"/a HTTP/1.1\r\n\r\nHEAD /b HTTP/1.1\r\n\r\nGET /c HTTP/1.1\r\n\r\n"
    );
    let n = c.out().bytes.len();
    c.wrote(at, n);
    assert!(c.out().is_empty());
    let wire: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-a: 1\r\n\r\nok\
HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n\
HTTP/1.1 404 Not Found\r\ntransfer-encoding: chunked\r\n\r\n2\r\nno\r\n1\r\n!\r\n0\r\n\r\n";
    for cut in 0..=wire.len() {
        let mut c: Conn<'_, T> = Conn::new(&s);
        c.start(at, at);
        for (i, (t, h)) in [("/a", false), ("/b", true), ("/c", false)]
            .iter()
            .enumerate()
        {
            let text = format!("{} {t} HTTP/1.1\r\n\r\n", if *h { "HEAD" } else { "GET" });
            assert!(c.open_text(at, text.as_bytes(), *h, T(i as u32, at)));
        }
        let mut ends = Vec::new();
        let mut carry = wire[..cut].to_vec();
        let fed = c.feed(at, &carry, &mut |e| ends.push(e)).unwrap();
        carry.drain(..fed.used);
        carry.extend_from_slice(&wire[cut..]);
        c.feed(at, &carry, &mut |e| ends.push(e)).unwrap();
        assert_eq!(ends.len(), 3, "cut {cut}");
        let kept: Vec<Kept> = std::iter::from_fn(|| {
            let mut k = Kept::default();
            c.take_response(&mut k).then_some(k)
        })
        .collect();
        let got: Vec<(u16, &[u8])> = kept.iter().map(|k| (k.status, &k.body[..])).collect();
        assert_eq!(
            got,
            vec![(200, &b"ok"[..]), (200, &b""[..]), (404, &b"no!"[..])]
        );
        assert!(kept[0].head.starts_with(b"HTTP/1.1 200 OK\r\n"));
        assert!(kept[0].head.ends_with(b"x-a: 1\r\n\r\n"));
    }
}

//! The WebSocket client session as the engine drives it: the upgrade, messages matched with
//! replies in order whatever the split of the server's bytes, pings answered, the ends.

use super::*;
use crate::client::Counts as AllCounts;
use crate::ws::frame::{write_close, write_frame};
use crate::ws::{Opcode, Role};
use crate::{header_slots, parse_request_head};

mod caller;

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

fn setup(depth: usize) -> Setup {
    Setup {
        host: "example.com:80".into(),
        path: "/ws/echo".into(),
        messages: Setup::messages(&[b"hello".to_vec(), vec![0xff, 0, 1]]),
        depth,
        timeout: Duration::from_secs(1),
        expect_body: Some(b"hello".to_vec()),
        echo: true,
        limits: Limits::default(),
        headers: Vec::new(),
        keep_responses: false,
        seed: 0.into(),
    }
}

/// An echo load: messages of several sizes, each reply checked against its own message.
fn echo_setup(depth: usize, limits: Limits) -> Setup {
    let long: Vec<u8> = (0..300u32).map(|i| (i % 251) as u8).collect();
    Setup {
        messages: Setup::messages(&[b"hello".to_vec(), long, Vec::new()]),
        expect_body: None,
        limits,
        ..setup(depth)
    }
}

/// An upgraded connection with `reqs` open (tags 0, 1, ...).
fn open_with<'s>(st: &'s Setup, reqs: &[u32], at: Instant) -> Conn<'s, T> {
    let mut c = Conn::new(st);
    let resp = upgrade(&mut c, at);
    c.feed(Instant::now(), &resp, &mut |_| {}).unwrap();
    for (p, &req) in reqs.iter().enumerate() {
        assert!(c.open(at, p, req, T(p as u32, at)));
    }
    let n = c.out().bytes.len();
    c.wrote(Instant::now(), n);
    c
}

/// Starts `c`, checks its upgrade request as a server would, and returns the 101 to answer it.
fn upgrade(c: &mut Conn<'_, T>, at: Instant) -> Vec<u8> {
    c.start_with(at, *b"0123456789abcdef", 7);
    assert_eq!(c.room(), 0, "no message before the 101");
    assert!(c.held_by_output());
    let req = c.out().bytes.to_vec();
    c.wrote(Instant::now(), req.len());
    let mut slots = header_slots();
    let head = parse_request_head(&req, &mut slots, 8192)
        .unwrap()
        .expect("a whole head");
    assert_eq!(head.path(), "/ws/echo");
    assert_eq!(head.header("host"), Some(&b"example.com:80"[..]));
    let accept = handshake::server_accept(&head).expect("a valid upgrade");
    let mut resp = Vec::new();
    handshake::write_accept(&mut resp, &accept, b"");
    resp
}

/// A frame as the server sends it.
fn s(op: Opcode, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    write_frame(&mut out, true, op, payload, None);
    out
}

/// Feeds `input` in the pieces `cuts` makes, keeping what each feed leaves as the worker does.
fn drive(
    c: &mut Conn<'_, T>,
    input: &[u8],
    cuts: &[usize],
) -> (Vec<String>, Result<(), ConnError>) {
    let mut ends = Vec::new();
    let mut carry: Vec<u8> = Vec::new();
    let mut at = 0;
    for &cut in cuts.iter().chain([input.len()].iter()) {
        carry.extend_from_slice(&input[at..cut]);
        at = cut;
        let res = c.feed(Instant::now(), &carry, &mut |e| {
            ends.push(match e {
                End::Response { tag, body_ok, .. } => format!("{} ok={body_ok}", tag.0),
                other => format!("{other:?}"),
            })
        });
        match res {
            Ok(fed) => {
                assert!(carry.len() - fed.used <= MAX_CARRY);
                carry.drain(..fed.used);
            }
            Err(e) => return (ends, Err(e)),
        }
    }
    assert!(carry.is_empty(), "all used: {carry:?}");
    (ends, Ok(()))
}

/// The server's side of what the client wrote: the messages it decodes.
fn server_reads(mut bytes: Vec<u8>) -> Vec<(bool, Vec<u8>)> {
    let mut srv = Session::server(Limits::default());
    assert_eq!(srv.role(), Role::Server);
    let mut out = Vec::new();
    let mut got = Vec::new();
    let mut pos = 0;
    loop {
        let (n, ev) = srv.next(&mut bytes[pos..], &mut out).expect("valid frames");
        pos += n;
        match ev {
            Some(Event::Message { text, data }) => got.push((text, data.to_vec())),
            Some(other) => panic!("{other:?}"),
            None => break,
        }
    }
    assert_eq!(pos, bytes.len());
    got
}

#[test]
fn upgrade_then_messages_at_every_split() {
    let st = setup(3);
    let at = Instant::now();
    let mut input = {
        let mut c = Conn::new(&st);
        upgrade(&mut c, at)
    };
    let head_len = input.len();
    input.extend(s(Opcode::Text, b"hello"));
    input.extend(s(Opcode::Ping, b"p"));
    input.extend(s(Opcode::Binary, &[0xff, 0, 1]));
    // A reply in two fragments, a ping between them.
    let mut frag = Vec::new();
    write_frame(&mut frag, false, Opcode::Text, b"hel", None);
    write_frame(&mut frag, true, Opcode::Ping, b"", None);
    write_frame(&mut frag, true, Opcode::Continuation, b"lo", None);
    input.extend(frag);
    let want = ["0 ok=true", "1 ok=false", "2 ok=true"];
    let mut cuts: Vec<Vec<usize>> = (0..=input.len()).map(|k| vec![k]).collect();
    cuts.push((1..input.len()).collect());
    for cut in cuts {
        let mut c = Conn::new(&st);
        let resp = upgrade(&mut c, at);
        assert_eq!(resp.len(), head_len);
        // The first piece may hold the 101 only in part: messages open once it is whole.
        let (ends, res) = drive(&mut c, &input[..head_len], &[]);
        assert_eq!((ends.len(), res), (0, Ok(())));
        assert_eq!(c.room(), 3);
        for (p, req) in [0u32, 1, 0].into_iter().enumerate() {
            assert!(c.open(at, p, req, T(p as u32, at)));
        }
        assert_eq!(c.room(), 0);
        assert!(!c.open(at, 3, 0, T(3, at)), "over the depth");
        let sent = c.out().bytes.to_vec();
        c.wrote(Instant::now(), sent.len());
        assert_eq!(
            server_reads(sent),
            vec![
                (true, b"hello".to_vec()),
                (false, vec![0xff, 0, 1]),
                (true, b"hello".to_vec())
            ]
        );
        let rest: Vec<usize> = cut
            .iter()
            .filter(|&&k| k > head_len)
            .map(|k| k - head_len)
            .collect();
        let (ends, res) = drive(&mut c, &input[head_len..], &rest);
        assert_eq!(res, Ok(()), "cuts {cut:?}");
        assert_eq!(ends, want, "cuts {cut:?}");
        assert_eq!(c.room(), 3);
        // The pongs, masked, are the output now.
        let mut pongs = c.out().bytes.to_vec();
        let mut srv = Session::server(Limits::default());
        let mut o = Vec::new();
        let (n, ev) = srv.next(&mut pongs, &mut o).unwrap();
        assert_eq!(ev, Some(Event::Pong(b"p")));
        let (_, ev) = srv.next(&mut pongs[n..], &mut o).unwrap();
        assert_eq!(ev, Some(Event::Pong(b"")));
        let mut counts = AllCounts::default();
        c.take_counts(&mut counts);
        assert_eq!((counts.ws.handshakes, counts.ws.closes.len()), (1, 0));
    }
}

/// The whole upgrade fed at every split point before any frame: always a clean wait, then open.
#[test]
fn handshake_split_anywhere() {
    let st = setup(1);
    let at = Instant::now();
    let mut c = Conn::new(&st);
    let resp = upgrade(&mut c, at);
    for cut in 0..resp.len() {
        let mut c = Conn::new(&st);
        upgrade(&mut c, at);
        let fed = c
            .feed(Instant::now(), &resp[..cut], &mut |_| panic!("no end"))
            .unwrap();
        assert_eq!(
            fed,
            Fed {
                used: 0,
                close: false
            }
        );
        assert_eq!(c.room(), 0);
        let fed = c
            .feed(Instant::now(), &resp, &mut |_| panic!("no end"))
            .unwrap();
        assert_eq!(fed.used, resp.len());
        assert_eq!(c.room(), 1);
    }
}

#[test]
fn a_close_fails_the_messages_in_flight() {
    let st = setup(2);
    let at = Instant::now();
    let cases = [
        (1011u16, ErrorClass::Reset),
        (1000, ErrorClass::Reset),
        (1002, ErrorClass::Protocol),
    ];
    // Right after the 101, before any message: a failed connection, whatever the code (before:
    // a reset with nothing in flight, which counted nothing).
    for (code, _) in cases {
        let mut c = open_with(&st, &[], at);
        let mut input = Vec::new();
        write_close(&mut input, Some(code), "bye", None);
        let e = drive(&mut c, &input, &[]).1.unwrap_err();
        assert_eq!(e.class, ErrorClass::Connect, "{code}");
        assert!(e.why.contains("before any message"), "{}", e.why);
    }
    for (code, class) in cases {
        let mut c = Conn::new(&st);
        let mut input = upgrade(&mut c, at);
        c.feed(Instant::now(), &input, &mut |_| {}).unwrap();
        assert!(c.open(at, 0, 0, T(0, at)) && c.open(at, 1, 0, T(1, at)));
        input = s(Opcode::Text, b"hello");
        write_close(&mut input, Some(code), "bye", None);
        let (ends, res) = drive(&mut c, &input, &[]);
        assert_eq!(ends, ["0 ok=true"]);
        let e = res.unwrap_err();
        assert_eq!(e.class, class, "{code}");
        assert!(e.why.contains(&code.to_string()), "{}", e.why);
        let mut lost = Vec::new();
        c.drain(&mut |t: T| lost.push(t.0));
        assert_eq!(lost, [1]);
        let mut counts = AllCounts::default();
        c.take_counts(&mut counts);
        assert_eq!(counts.ws.closes, [(code, 1)]);
        c.take_counts(&mut counts);
        assert_eq!(counts.ws.closes, [(code, 1)], "taken once");
    }
}

#[test]
fn broken_peers_end_the_connection() {
    let st = setup(1);
    let at = Instant::now();
    let mut good = Conn::new(&st);
    let ok = upgrade(&mut good, at);
    let text = String::from_utf8(ok.clone()).unwrap();
    // The answer is checked: another status, or an accept for another key.
    let cases = [
        text.replace("101 Switching Protocols", "200 OK")
            .into_bytes(),
        text.replace("Sec-WebSocket-Accept: ", "Sec-WebSocket-Accept: x")
            .into_bytes(),
    ];
    for resp in cases {
        let mut c = Conn::new(&st);
        upgrade(&mut c, at);
        let e = c.feed(Instant::now(), &resp, &mut |_| {}).unwrap_err();
        // A failed handshake is a failed connection: nothing was in flight to count it.
        assert_eq!(e.class, ErrorClass::Connect, "{}", e.why);
        assert!(e.why.starts_with("WebSocket handshake: "), "{}", e.why);
    }
    // A head that never ends is refused at the carry's size.
    let mut c = Conn::new(&st);
    upgrade(&mut c, at);
    let mut long = b"HTTP/1.1 101 X\r\nA: ".to_vec();
    long.resize(MAX_CARRY, b'a');
    assert_eq!(
        c.feed(Instant::now(), &long, &mut |_| {})
            .unwrap_err()
            .class,
        ErrorClass::Connect
    );
    // After the upgrade: a masked frame, a message, bad UTF-8; with a message in flight, with
    // none after one was answered, and before any message. Only the first fails a message; the
    // others would count nothing, so they are counted by themselves: a message (or any frame)
    // that answers nothing is unasked, and a connection that ends before it carried any message
    // is a failed connection. A text message that answers nothing is unasked whether or not its
    // bytes are valid UTF-8 (a read cut before the bad byte would hand out its valid start, an
    // unasked message, first: the class must not depend on the cut).
    let mut masked = Vec::new();
    write_frame(
        &mut masked,
        true,
        Opcode::Text,
        b"hello",
        Some([1, 2, 3, 4]),
    );
    let msg = s(Opcode::Text, b"hello");
    let cases = [
        (
            &masked,
            1,
            ErrorClass::Protocol,
            ErrorClass::Unasked,
            ErrorClass::Connect,
        ),
        (
            &msg,
            1,
            ErrorClass::Protocol,
            ErrorClass::Unasked,
            ErrorClass::Unasked,
        ),
        (
            &s(Opcode::Text, b"ok\xff"),
            1,
            ErrorClass::Protocol,
            ErrorClass::Unasked,
            ErrorClass::Unasked,
        ),
    ];
    for (frames, _, busy, after, before) in cases {
        for (answered, want) in [(true, after), (false, before)] {
            let mut c = open_with(&st, &[0], at);
            if answered {
                let (ends, res) = drive(&mut c, &msg, &[]);
                assert_eq!((ends, res), (vec!["0 ok=true".to_string()], Ok(())));
            } else {
                // Nothing was sent: the open message above is taken back.
                c.inflight.clear();
            }
            let e = c.feed(Instant::now(), frames, &mut |_| {}).unwrap_err();
            assert_eq!(e.class, want, "answered {answered}: {}", e.why);
        }
        if frames != &msg {
            let mut c = open_with(&st, &[0], at);
            let e = c.feed(Instant::now(), frames, &mut |_| {}).unwrap_err();
            assert_eq!(e.class, busy, "in flight: {}", e.why);
        }
    }
}

/// Two replies to one message: the first answers it, the second answers nothing and ends the
/// connection as unasked (before: a protocol error with nothing in flight, so nothing counted).
/// Checked at every split of the two replies, and for a second reply cut short.
#[test]
fn a_second_reply_to_one_message_is_unasked() {
    let st = setup(1);
    let at = Instant::now();
    let mut input = s(Opcode::Text, b"hello");
    input.extend(s(Opcode::Text, b"hello"));
    for cut in 0..=input.len() {
        let mut c = open_with(&st, &[0], at);
        let (ends, res) = drive(&mut c, &input, &[cut]);
        assert_eq!(ends, ["0 ok=true"], "cut at {cut}");
        let e = res.unwrap_err();
        assert_eq!(e.class, ErrorClass::Unasked, "cut at {cut}: {}", e.why);
        assert!(e.why.contains("none in flight"), "{}", e.why);
    }
    // A second reply's header alone, then the end of the stream: still unasked.
    let mut c = open_with(&st, &[0], at);
    let mut first = s(Opcode::Text, b"hello");
    first.extend_from_slice(&[0x81, 5]);
    let (ends, res) = drive(&mut c, &first, &[]);
    assert_eq!((ends.len(), res), (1, Ok(())));
    assert_eq!(c.eof(&mut |_| {}).unwrap_err().class, ErrorClass::Unasked);
}

/// Replies checked as they stream against their own messages (an echo), fed cut at every byte
/// and byte by byte: the same verdicts as comparing each reply whole. Replies come whole, in
/// fragments with a ping between, short by a byte, a byte too long, with one byte wrong, or
/// empty; echo checking off takes any reply.
#[test]
fn echoes_are_checked_as_they_stream_at_every_split() {
    let at = Instant::now();
    let limits = Limits::default();
    let st = echo_setup(8, limits);
    let long = st.messages[1].0.clone();
    let mut frag = Vec::new();
    write_frame(&mut frag, false, Opcode::Binary, &long[..100], None);
    write_frame(&mut frag, true, Opcode::Ping, b"", None);
    write_frame(
        &mut frag,
        false,
        Opcode::Continuation,
        &long[100..101],
        None,
    );
    write_frame(&mut frag, false, Opcode::Continuation, b"", None);
    write_frame(&mut frag, true, Opcode::Continuation, &long[101..], None);
    let mut wrong = long.clone();
    wrong[299] ^= 1;
    let replies = [
        (0, s(Opcode::Text, b"hello"), true),
        (1, frag, true),
        (2, s(Opcode::Text, b""), true),
        (0, s(Opcode::Text, b"hell"), false),
        (0, s(Opcode::Text, b"hello!"), false),
        (1, s(Opcode::Binary, &wrong), false),
        (2, s(Opcode::Binary, b"x"), false),
        (1, s(Opcode::Binary, &long), true),
    ];
    let reqs: Vec<u32> = replies.iter().map(|r| r.0).collect();
    let input: Vec<u8> = replies.iter().flat_map(|r| r.1.clone()).collect();
    let checked: Vec<String> = (0..replies.len())
        .map(|i| format!("{i} ok={}", replies[i].2))
        .collect();
    let any: Vec<String> = (0..replies.len()).map(|i| format!("{i} ok=true")).collect();
    let no_echo = Setup {
        echo: false,
        ..echo_setup(8, limits)
    };
    for (st, want) in [(&st, &checked), (&no_echo, &any)] {
        let mut cuts: Vec<Vec<usize>> = (0..=input.len()).map(|k| vec![k]).collect();
        cuts.push((1..input.len()).collect());
        for cut in cuts {
            let mut c = open_with(st, &reqs, at);
            let (ends, res) = drive(&mut c, &input, &cut);
            assert_eq!(res, Ok(()), "cuts {cut:?}");
            assert_eq!(&ends, want, "cuts {cut:?}");
        }
    }
}

/// A reply past the limit ends the connection as message_too_large, the messages behind it
/// with it, whether one frame passes the limit or the fragments together do; at the limit it
/// is a reply.
#[test]
fn a_reply_past_the_limit_is_message_too_large() {
    let at = Instant::now();
    let limits = Limits {
        max_frame: 300,
        max_message: 300,
    };
    let st = echo_setup(2, limits);
    let long = st.messages[1].0.clone();
    let at_limit = s(Opcode::Binary, &long);
    let mut over = Vec::new();
    write_frame(&mut over, false, Opcode::Binary, &long, None);
    write_frame(&mut over, true, Opcode::Continuation, b"x", None);
    for (input, ok) in [
        (at_limit, true),
        (s(Opcode::Binary, &[0; 301]), false),
        (over, false),
    ] {
        let mut c = open_with(&st, &[1, 0], at);
        let (ends, res) = drive(&mut c, &input, &[]);
        if ok {
            assert_eq!((ends, res), (vec!["0 ok=true".to_string()], Ok(())));
            continue;
        }
        assert!(ends.is_empty());
        let e = res.unwrap_err();
        assert_eq!(e.class, ErrorClass::MessageTooLarge, "{}", e.why);
        assert!(e.why.contains("over the limit of 300"), "{}", e.why);
        assert_eq!(close_in(c.out().bytes), Some(1009));
        let mut lost = Vec::new();
        c.drain(&mut |t: T| lost.push(t.0));
        assert_eq!(lost, [0, 1]);
    }
}

#[test]
fn timeouts_and_eof() {
    let st = setup(1);
    let at = Instant::now();
    let later = at + Duration::from_secs(2);
    let mut c = Conn::new(&st);
    let resp = upgrade(&mut c, at);
    assert_eq!(c.expire(at, &mut |_| {}), Ok(()));
    // Before the 101: a failed connection, whether it times out or is closed.
    let e = c.expire(later, &mut |_| {}).unwrap_err();
    assert_eq!(e.class, ErrorClass::Connect, "{}", e.why);
    assert!(e.why.contains("no WebSocket handshake"), "{}", e.why);
    let e = c.eof(&mut |_| {}).unwrap_err();
    assert_eq!(e.class, ErrorClass::Connect, "{}", e.why);
    assert!(e.why.contains("before the 101"), "{}", e.why);
    c.feed(Instant::now(), &resp, &mut |_| {}).unwrap();
    // Open but closed before it carried any message: a failed connection (before: a clean
    // end, which counted nothing).
    let e = c.eof(&mut |_| {}).unwrap_err();
    assert_eq!(e.class, ErrorClass::Connect, "{}", e.why);
    assert!(e.why.contains("before any message"), "{}", e.why);
    // After a reply, idle: a clean end.
    assert!(c.open(at, 0, 0, T(0, at)));
    let (ends, res) = drive(&mut c, &s(Opcode::Text, b"hello"), &[]);
    assert_eq!((ends.len(), res), (1, Ok(())));
    assert_eq!(c.eof(&mut |_| {}), Ok(()), "idle and open: a clean end");
    assert!(c.open(at, 0, 0, T(0, at)));
    assert_eq!(c.expire(at, &mut |_| {}), Ok(()));
    assert_eq!(
        c.expire(later, &mut |_| {}).unwrap_err().class,
        ErrorClass::Timeout
    );
    assert_eq!(c.eof(&mut |_| {}).unwrap_err().class, ErrorClass::Reset);
}

/// The server's Close (of a code) read back from what the client has to write, unmasked.
fn close_in(out: &[u8]) -> Option<u16> {
    let mut bytes = out.to_vec();
    let mut srv = Session::server(Limits::default());
    let mut o = Vec::new();
    match srv.next(&mut bytes, &mut o).expect("a valid masked frame") {
        (_, Some(Event::Close { code, .. })) => code,
        other => panic!("{other:?}"),
    }
}

/// This side's Close stays in the output as its last word, for the caller to write before
/// it closes the socket: the reply to the server's close (its code), and the close that fails
/// a connection for a broken frame (1002) or bad UTF-8 (1007).
#[test]
fn the_close_is_left_to_write_as_a_last_word() {
    let st = setup(1);
    let at = Instant::now();
    let mut closing = Vec::new();
    write_close(&mut closing, Some(1011), "bye", None);
    let mut huge = vec![0x82, 127];
    huge.extend_from_slice(&(1u64 << 63).to_be_bytes());
    let cases = [
        (closing, 1011u16),
        (huge, 1002),
        (s(Opcode::Text, &[0xc3, 0x28]), 1007),
    ];
    for (frames, code) in cases {
        let mut c = Conn::new(&st);
        let resp = upgrade(&mut c, at);
        c.feed(Instant::now(), &resp, &mut |_| {}).unwrap();
        assert!(!c.out().last_word, "nothing to say yet");
        assert!(c.open(at, 0, 0, T(0, at)));
        let sent = c.out().bytes.len();
        c.wrote(Instant::now(), sent);
        assert!(c.feed(Instant::now(), &frames, &mut |_| {}).is_err());
        assert!(c.out().last_word, "{code}");
        assert_eq!(close_in(c.out().bytes), Some(code));
        // Written, nothing is left to say.
        let n = c.out().bytes.len();
        c.wrote(Instant::now(), n);
        assert!(!c.out().last_word);
    }
}

/// A server that pings and never reads: the pongs the client holds stop growing at the backlog.
#[test]
fn pongs_stop_at_the_backlog() {
    let st = setup(1);
    let at = Instant::now();
    let mut c = Conn::new(&st);
    let resp = upgrade(&mut c, at);
    c.feed(Instant::now(), &resp, &mut |_| {}).unwrap();
    let mut pings = Vec::new();
    for _ in 0..10_000 {
        write_frame(&mut pings, true, Opcode::Ping, b"0123456789", None);
    }
    for _ in 0..10 {
        let fed = c
            .feed(Instant::now(), &pings, &mut |_| panic!("no end"))
            .unwrap();
        assert_eq!(fed.used, pings.len());
    }
    // 100,000 pings would be 1.6 MB of pongs: held at the backlog and one pong past it.
    let held = c.out().bytes.len();
    assert!((PONG_BACKLOG..PONG_BACKLOG + 20).contains(&held), "{held}");
    // Once written, pings are answered again.
    c.wrote(Instant::now(), held);
    c.feed(Instant::now(), &pings[..12], &mut |_| panic!("no end"))
        .unwrap();
    assert_eq!(c.out().bytes.len(), 2 + 4 + 10);
}

//! The WebSocket client session as the engine drives it: the upgrade, messages matched with
//! replies in order whatever the split of the server's bytes, pings answered, the ends.

use super::*;
use crate::client::Counts as AllCounts;
use crate::ws::frame::{write_close, write_frame};
use crate::ws::{Opcode, Role};
use crate::{header_slots, parse_request_head};

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
        limits: Limits::default(),
        headers: Vec::new(),
    }
}

/// Starts `c`, checks its upgrade request as a server would, and returns the 101 to answer it.
fn upgrade(c: &mut Conn<'_, T>, at: Instant) -> Vec<u8> {
    c.start_with(at, *b"0123456789abcdef", 7);
    assert_eq!(c.room(), 0, "no message before the 101");
    assert!(c.held_by_output());
    let req = c.out().to_vec();
    c.wrote(req.len());
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
        let res = c.feed(&carry, &mut |e| {
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
            assert!(c.open(p, req, T(p as u32, at)));
        }
        assert_eq!(c.room(), 0);
        assert!(!c.open(3, 0, T(3, at)), "over the depth");
        let sent = c.out().to_vec();
        c.wrote(sent.len());
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
        let mut pongs = c.out().to_vec();
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
        let fed = c.feed(&resp[..cut], &mut |_| panic!("no end")).unwrap();
        assert_eq!(
            fed,
            Fed {
                used: 0,
                close: false
            }
        );
        assert_eq!(c.room(), 0);
        let fed = c.feed(&resp, &mut |_| panic!("no end")).unwrap();
        assert_eq!(fed.used, resp.len());
        assert_eq!(c.room(), 1);
    }
}

#[test]
fn a_close_fails_the_messages_in_flight() {
    let st = setup(2);
    let at = Instant::now();
    let cases = [
        (1011u16, Class::Reset),
        (1000, Class::Reset),
        (1002, Class::Protocol),
    ];
    for (code, class) in cases {
        let mut c = Conn::new(&st);
        let mut input = upgrade(&mut c, at);
        c.feed(&input, &mut |_| {}).unwrap();
        assert!(c.open(0, 0, T(0, at)) && c.open(1, 0, T(1, at)));
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
        let e = c.feed(&resp, &mut |_| {}).unwrap_err();
        // A failed handshake is a failed connection: nothing was in flight to count it.
        assert_eq!(e.class, Class::Connect, "{}", e.why);
        assert!(e.why.starts_with("WebSocket handshake: "), "{}", e.why);
    }
    // A head that never ends is refused at the carry's size.
    let mut c = Conn::new(&st);
    upgrade(&mut c, at);
    let mut long = b"HTTP/1.1 101 X\r\nA: ".to_vec();
    long.resize(MAX_CARRY, b'a');
    assert_eq!(
        c.feed(&long, &mut |_| {}).unwrap_err().class,
        Class::Connect
    );
    // After the upgrade: a masked frame, a reply with nothing in flight, bad UTF-8.
    let mut masked = Vec::new();
    write_frame(
        &mut masked,
        true,
        Opcode::Text,
        b"hello",
        Some([1, 2, 3, 4]),
    );
    for frames in [masked, s(Opcode::Text, b"hello"), s(Opcode::Text, &[0xc3])] {
        let mut c = Conn::new(&st);
        let resp = upgrade(&mut c, at);
        c.feed(&resp, &mut |_| {}).unwrap();
        let e = c.feed(&frames, &mut |_| {}).unwrap_err();
        assert_eq!(e.class, Class::Protocol, "{}", e.why);
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
    assert_eq!(e.class, Class::Connect, "{}", e.why);
    assert!(e.why.contains("no WebSocket handshake"), "{}", e.why);
    let e = c.eof(&mut |_| {}).unwrap_err();
    assert_eq!(e.class, Class::Connect, "{}", e.why);
    assert!(e.why.contains("before the 101"), "{}", e.why);
    c.feed(&resp, &mut |_| {}).unwrap();
    assert_eq!(c.eof(&mut |_| {}), Ok(()), "idle and open: a clean end");
    assert!(c.open(0, 0, T(0, at)));
    assert_eq!(c.expire(at, &mut |_| {}), Ok(()));
    assert_eq!(
        c.expire(later, &mut |_| {}).unwrap_err().class,
        Class::Timeout
    );
    assert_eq!(c.eof(&mut |_| {}).unwrap_err().class, Class::Reset);
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

/// This side's Close stays in the output with `farewell` set, for the caller to write before
/// it closes the socket: the reply to the server's close (its code), and the close that fails
/// a connection for a broken frame (1002) or bad UTF-8 (1007).
#[test]
fn the_close_is_left_to_write_as_a_farewell() {
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
        c.feed(&resp, &mut |_| {}).unwrap();
        assert!(!ClientSession::<T>::farewell(&c), "nothing to say yet");
        assert!(c.open(0, 0, T(0, at)));
        let sent = c.out().len();
        c.wrote(sent);
        assert!(c.feed(&frames, &mut |_| {}).is_err());
        assert!(ClientSession::<T>::farewell(&c), "{code}");
        assert_eq!(close_in(c.out()), Some(code));
        // Written, nothing is left to say.
        let n = c.out().len();
        c.wrote(n);
        assert!(!ClientSession::<T>::farewell(&c));
    }
}

/// A server that pings and never reads: the pongs the client holds stop growing at the backlog.
#[test]
fn pongs_stop_at_the_backlog() {
    let st = setup(1);
    let at = Instant::now();
    let mut c = Conn::new(&st);
    let resp = upgrade(&mut c, at);
    c.feed(&resp, &mut |_| {}).unwrap();
    let mut pings = Vec::new();
    for _ in 0..10_000 {
        write_frame(&mut pings, true, Opcode::Ping, b"0123456789", None);
    }
    for _ in 0..10 {
        let fed = c.feed(&pings, &mut |_| panic!("no end")).unwrap();
        assert_eq!(fed.used, pings.len());
    }
    // 100,000 pings would be 1.6 MB of pongs: held at the backlog and one pong past it.
    let held = c.out().len();
    assert!((PONG_BACKLOG..PONG_BACKLOG + 20).contains(&held), "{held}");
    // Once written, pings are answered again.
    c.wrote(held);
    c.feed(&pings[..12], &mut |_| panic!("no end")).unwrap();
    assert_eq!(c.out().len(), 2 + 4 + 10);
}

use super::*;
use crate::ws::frame::{write_close, write_frame, write_header};

const KEY: [u8; 4] = [0x37, 0xfa, 0x21, 0x3d];

/// A frame as a client sends it (masked).
fn c(fin: bool, op: Opcode, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    write_frame(&mut out, fin, op, payload, Some(KEY));
    out
}

/// A frame as a server sends it (unmasked).
fn s(fin: bool, op: Opcode, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    write_frame(&mut out, fin, op, payload, None);
    out
}

fn close_payload(code: u16, reason: &[u8]) -> Vec<u8> {
    let mut p = code.to_be_bytes().to_vec();
    p.extend_from_slice(reason);
    p
}

fn show(ev: &Event<'_>) -> String {
    match ev {
        Event::Message { text: true, data } => {
            format!("text {:?}", std::str::from_utf8(data).unwrap())
        }
        Event::Message { text: false, data } => {
            format!("binary {} {:?}", data.len(), checksum(data))
        }
        Event::Ping(p) => format!("ping {p:?}"),
        Event::Pong(p) => format!("pong {p:?}"),
        Event::Close { code, reason } => format!("close {code:?} {reason:?}"),
        Event::Part { .. } => unreachable!("`run` assembles the pieces"),
    }
}

fn checksum(d: &[u8]) -> u32 {
    crc32fast::hash(d)
}

/// Feeds `parts` in turn (with what was left over carried, as a connection would): the events,
/// what the session wrote, and the error that ended it. A streaming session's pieces are put
/// together here (checked to come in order: `first` on the first, `fin` on the last), so both
/// kinds of session give the same events.
fn run(mut sess: Session, parts: &[&[u8]]) -> (Vec<String>, Vec<u8>, Option<WsError>) {
    let mut events = Vec::new();
    let mut out = Vec::new();
    let mut carry: Vec<u8> = Vec::new();
    let mut pieces: Option<Vec<u8>> = None;
    for p in parts {
        carry.extend_from_slice(p);
        let mut pos = 0;
        loop {
            match sess.next(&mut carry[pos..], &mut out) {
                Err(e) => return (events, out, Some(e)),
                Ok((n, ev)) => {
                    let more = ev.is_some();
                    match ev {
                        Some(Event::Part {
                            text,
                            data,
                            first,
                            fin,
                        }) => {
                            assert_eq!(first, pieces.is_none(), "first on the first piece only");
                            let m = pieces.get_or_insert_with(Vec::new);
                            m.extend_from_slice(data);
                            if fin {
                                let data = &pieces.take().unwrap()[..];
                                events.push(show(&Event::Message { text, data }));
                            }
                        }
                        Some(ev) => events.push(show(&ev)),
                        None => {}
                    }
                    pos += n;
                    if !more {
                        break;
                    }
                }
            }
        }
        assert!(
            carry.len() - pos <= frame::MAX_HEADER_LEN,
            "only a header is left over"
        );
        carry.drain(..pos);
    }
    (events, out, None)
}

fn server(input: &[u8]) -> (Vec<String>, Vec<u8>, Option<WsError>) {
    run(Session::server(Limits::default()), &[input])
}

fn cat(frames: &[Vec<u8>]) -> Vec<u8> {
    frames.concat()
}

/// Where `split_at_every_byte_decodes_the_same` cuts the concatenation of `frames`: every byte
/// within 20 of a frame's start or of the end, and every 127th byte between.
fn cuts(frames: &[Vec<u8>]) -> Vec<usize> {
    let mut starts = vec![0];
    for f in frames {
        starts.push(starts.last().unwrap() + f.len());
    }
    let end = *starts.last().unwrap();
    (0..=end)
        .filter(|&i| i % 127 == 0 || starts.iter().any(|&s| i.abs_diff(s) <= 20))
        .collect()
}

#[test]
fn server_table() {
    use Opcode::*;
    let long = vec![7u8; 70_000];
    let long_want = format!("binary 70000 {}", checksum(&long));
    let cases: Vec<(Vec<u8>, Vec<&str>, Option<WsError>)> = vec![
        (c(true, Text, b"Hello"), vec![r#"text "Hello""#], None),
        (c(true, Text, b""), vec![r#"text """#], None),
        (c(true, Binary, b""), vec!["binary 0 0"], None),
        (
            cat(&[
                c(false, Text, b"Hel"),
                c(false, Continuation, b""),
                c(true, Continuation, b"lo"),
            ]),
            vec![r#"text "Hello""#],
            None,
        ),
        // Control frames between fragments.
        (
            cat(&[
                c(false, Text, b"fr"),
                c(true, Ping, b"p1"),
                c(false, Continuation, b"ag"),
                c(true, Pong, b""),
                c(true, Continuation, b"s"),
            ]),
            vec![r#"ping [112, 49]"#, "pong []", r#"text "frags""#],
            None,
        ),
        // A character cut between fragments.
        (
            cat(&[
                c(false, Text, "κό".as_bytes()),
                c(true, Continuation, "σμε".as_bytes()),
            ]),
            vec![r#"text "κόσμε""#],
            None,
        ),
        (
            cat(&[c(false, Text, b"\xce"), c(true, Continuation, b"\xba")]),
            vec![r#"text "κ""#],
            None,
        ),
        (c(true, Binary, &long), vec![long_want.as_str()], None),
        // Errors, each failing the connection.
        (s(true, Text, b"unmasked"), vec![], Some(WsError::Unmasked)),
        (
            c(true, Continuation, b"x"),
            vec![],
            Some(WsError::UnexpectedContinuation),
        ),
        (
            cat(&[c(false, Text, b"x"), c(true, Text, b"y")]),
            vec![],
            Some(WsError::ExpectedContinuation),
        ),
        (c(true, Text, b"\xff"), vec![], Some(WsError::InvalidUtf8)),
        (
            c(true, Text, b"\xed\xa0\x80"),
            vec![],
            Some(WsError::InvalidUtf8),
        ),
        // Cut at the message's end.
        (
            cat(&[c(false, Text, b"ok\xce"), c(true, Continuation, b"")]),
            vec![],
            Some(WsError::InvalidUtf8),
        ),
        // Fail fast: the first fragment is bad, the message never ends.
        (
            c(
                false,
                Text,
                b"\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xf4\x90\x80\x80",
            ),
            vec![],
            Some(WsError::InvalidUtf8),
        ),
        (
            c(true, Close, b"\x03"),
            vec![],
            Some(WsError::CloseTooShort),
        ),
        (
            c(true, Close, &close_payload(1005, b"")),
            vec![],
            Some(WsError::InvalidCloseCode(1005)),
        ),
        (
            c(true, Close, &close_payload(1000, b"\xff")),
            vec![],
            Some(WsError::InvalidCloseReason),
        ),
        (
            b"\x81\x7f\x80\x00\x00\x00\x00\x00\x00\x00".to_vec(),
            vec![],
            Some(WsError::LengthTopBit),
        ),
        (
            b"\x82\xff\x7f\xff\xff\xff\xff\xff\xff\xff\x00\x00\x00\x00".to_vec(),
            vec![],
            Some(WsError::FrameTooLarge {
                len: (1 << 63) - 1,
                limit: 16 << 20,
            }),
        ),
        (
            {
                let mut v = c(true, Text, b"a");
                v[0] |= 0x40;
                v
            },
            vec![],
            Some(WsError::ReservedBits),
        ),
    ];
    for (input, want_events, want_err) in cases {
        let (events, _, err) = server(&input);
        let want: Vec<String> = want_events.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            (events, err),
            (want, want_err),
            "{:?}",
            &input[..input.len().min(40)]
        );
    }
}

#[test]
fn close_codes() {
    for code in 0..=5000u16 {
        let (events, out, err) = server(&c(true, Opcode::Close, &close_payload(code, b"bye")));
        if valid_close_code(code) {
            assert_eq!(events, vec![format!("close Some({code}) \"bye\"")]);
            assert_eq!(
                out,
                s(true, Opcode::Close, &code.to_be_bytes()),
                "echoed {code}"
            );
            assert_eq!(err, None);
        } else {
            assert_eq!(err, Some(WsError::InvalidCloseCode(code)), "{code}");
        }
    }
    for (code, ok) in [
        (1000, true),
        (1003, true),
        (1004, false),
        (1005, false),
        (1006, false),
        (1011, true),
        (1015, false),
        (1016, false),
        (2999, false),
        (3000, true),
        (4999, true),
        (5000, false),
        (999, false),
    ] {
        assert_eq!(valid_close_code(code), ok, "{code}");
    }
    // No code: answered with no code; nothing after the close is read.
    let (events, out, err) = server(&cat(&[
        c(true, Opcode::Close, b""),
        b"\xff\xff garbage".to_vec(),
    ]));
    assert_eq!(
        (events, out, err),
        (
            vec!["close None \"\"".to_string()],
            b"\x88\x00".to_vec(),
            None
        )
    );
}

#[test]
fn pings_are_answered_until_the_close_is_sent() {
    let mut sess = Session::server(Limits::default());
    let mut out = Vec::new();
    let mut ping = c(true, Opcode::Ping, b"are you there");
    let len = ping.len();
    let (n, ev) = sess.next(&mut ping, &mut out).unwrap();
    assert_eq!((n, ev), (len, Some(Event::Ping(b"are you there"))));
    assert_eq!(out, s(true, Opcode::Pong, b"are you there"));
    out.clear();
    sess.close(&mut out, 1001, "going away");
    let mut want = Vec::new();
    write_close(&mut want, Some(1001), "going away", None);
    assert_eq!(out, want);
    out.clear();
    let mut ping = c(true, Opcode::Ping, b"x");
    assert_eq!(
        sess.next(&mut ping, &mut out).unwrap().1,
        Some(Event::Ping(b"x"))
    );
    assert!(out.is_empty(), "no pong after our close");
    let mut reply = c(true, Opcode::Close, &close_payload(1001, b""));
    assert_eq!(
        sess.next(&mut reply, &mut out).unwrap().1,
        Some(Event::Close {
            code: Some(1001),
            reason: ""
        })
    );
    assert!(out.is_empty(), "our close is not sent twice");
    assert!(sess.sent_close() && sess.received_close());
}

#[test]
fn limits() {
    let limits = Limits {
        max_frame: 100,
        max_message: 250,
    };
    let run_l = |input: &[u8]| run(Session::server(limits), &[input]).2;
    assert_eq!(run_l(&c(true, Opcode::Binary, &[0; 100])), None);
    assert_eq!(
        run_l(&c(true, Opcode::Binary, &[0; 101])),
        Some(WsError::FrameTooLarge {
            len: 101,
            limit: 100
        })
    );
    let frags = |n: usize| {
        let mut v = c(false, Opcode::Binary, &[1; 100]);
        for _ in 1..n {
            v.extend(c(false, Opcode::Continuation, &[1; 100]));
        }
        v
    };
    // A message that never ends is cut as its header would pass the limit, before its payload.
    assert_eq!(run_l(&frags(2)), None);
    assert_eq!(
        run_l(&frags(3)),
        Some(WsError::MessageTooLarge { limit: 250 })
    );
    let mut v = frags(2);
    v.extend(c(true, Opcode::Continuation, &[1; 50]));
    assert_eq!(run_l(&v), None);
    assert_eq!(WsError::MessageTooLarge { limit: 1 }.close_code(), 1009);
    assert_eq!(WsError::InvalidUtf8.close_code(), 1007);
    assert_eq!(WsError::InvalidCloseReason.close_code(), 1007);
    assert_eq!(WsError::Unmasked.close_code(), 1002);
    // The control frame limit is the RFC's, whatever the session's.
    assert_eq!(
        run_l(b"\x89\xfe\x00\x7e\0\0\0\0"),
        Some(WsError::ControlTooLong(126))
    );
}

#[test]
fn failing_writes_the_close_once() {
    let mut sess = Session::server(Limits::default());
    let mut out = Vec::new();
    let mut bad = c(true, Opcode::Text, b"\xc0\xaf");
    let err = sess.next(&mut bad, &mut out).unwrap_err();
    assert_eq!(sess.fail(&mut out, &err), 1007);
    assert_eq!((out[0], &out[2..4]), (0x88, &1007u16.to_be_bytes()[..]));
    let n = out.len();
    sess.fail(&mut out, &WsError::Unmasked);
    assert_eq!(out.len(), n);
}

#[test]
fn one_whole_frame_is_not_copied() {
    let mut sess = Session::server(Limits::default());
    let mut out = Vec::new();
    let mut buf = c(true, Opcode::Binary, &[5; 1000]);
    let range = buf.as_ptr_range();
    let (_, ev) = sess.next(&mut buf, &mut out).unwrap();
    let Some(Event::Message { data, .. }) = ev else {
        panic!("a message")
    };
    assert!(range.contains(&data.as_ptr()), "borrowed from the input");
    assert_eq!(data, &[5; 1000][..]);
}

#[test]
fn client_role() {
    let mut cl = Session::client(Limits::default(), 42);
    // A server's frames are unmasked; a masked one fails the connection.
    let (ev, out, err) = run(
        cl.clone(),
        &[&cat(&[
            s(true, Opcode::Text, b"hi"),
            s(true, Opcode::Ping, b"p"),
        ])],
    );
    assert_eq!(
        (ev, err),
        (
            vec![r#"text "hi""#.to_string(), "ping [112]".to_string()],
            None
        )
    );
    // The pong is masked: a server session reads it back.
    let (ev, _, err) = run(Session::server(Limits::default()), &[&out]);
    assert_eq!((ev, err), (vec!["pong [112]".to_string()], None));
    assert_eq!(
        run(cl.clone(), &[&c(true, Opcode::Text, b"x")]).2,
        Some(WsError::Masked)
    );
    // Every frame sent gets a fresh key, and a server reads what the client sends.
    let mut sent = Vec::new();
    cl.send(&mut sent, true, b"one");
    cl.send(&mut sent, false, &[9; 300]);
    cl.send_frame(&mut sent, false, Opcode::Text, "κ".as_bytes());
    cl.send_frame(&mut sent, true, Opcode::Continuation, "ό".as_bytes());
    cl.close(&mut sent, 1000, "done");
    let (ev, echo, err) = run(Session::server(Limits::default()), &[&sent]);
    assert_eq!(err, None);
    assert_eq!(
        ev,
        vec![
            r#"text "one""#.to_string(),
            format!("binary 300 {}", checksum(&[9; 300])),
            r#"text "κό""#.to_string(),
            r#"close Some(1000) "done""#.to_string()
        ]
    );
    assert_eq!(echo, s(true, Opcode::Close, &1000u16.to_be_bytes()));
    let keys: Vec<[u8; 4]> = {
        let mut at = 0;
        let mut v = Vec::new();
        while let Ok(Some((h, n))) = frame::parse_header(&sent[at..]) {
            v.push(h.mask.expect("masked"));
            at += n + h.len as usize;
        }
        v
    };
    assert_eq!(keys.len(), 5);
    for (i, k) in keys.iter().enumerate() {
        assert!(!keys[..i].contains(k), "a fresh key per frame");
    }
}

/// A stream of every kind of frame: decoded the same whole, split in two at every byte near a
/// frame's start (its header, the payload's first bytes) and every 127th byte inside the large
/// payloads, and fed a byte at a time (events, replies and the final error alike). Every cut of
/// the 140 kB stream decoded it whole again: 70 s of the test suite for cuts inside payloads that
/// the codec copies the same way at any offset.
#[test]
fn split_at_every_byte_decodes_the_same() {
    use Opcode::*;
    let mut big = Vec::new();
    for i in 0..70_000u32 {
        big.push((i % 251) as u8);
    }
    let streams = [
        vec![
            c(true, Text, b"Hello"),
            c(false, Text, "κόσ".as_bytes()),
            c(true, Ping, b"in between"),
            c(false, Continuation, b""),
            c(true, Continuation, "με".as_bytes()),
            c(true, Binary, &[1; 126]),
            c(true, Binary, &big),
            c(false, Binary, &big[..300]),
            c(true, Pong, b"pong"),
            c(true, Continuation, &big[..65_536]),
            c(true, Ping, b""),
            c(true, Close, &close_payload(1000, "ça va".as_bytes())),
            b"ignored after the close".to_vec(),
        ],
        // Ending in an error after some messages.
        vec![
            c(true, Text, b"ok"),
            c(false, Text, b"caf\xc3"),
            c(true, Ping, b"x"),
            c(true, Continuation, b"\xa9 \xff"),
        ],
        vec![
            c(true, Binary, b"ok"),
            b"\x82\xff\x80\x00\x00\x00\x00\x00\x00\x00\x01\x02\x03\x04".to_vec(),
        ],
    ];
    // Assembled, and streamed in pieces (which `run` puts together): the same events.
    let sessions = [
        Session::server(Limits::default()),
        Session::server(Limits::default()).streaming(),
    ];
    for frames in &streams {
        let input = &cat(frames);
        let whole = server(input);
        assert!(!whole.0.is_empty());
        for sess in &sessions {
            for cut in cuts(frames) {
                let two = run(sess.clone(), &[&input[..cut], &input[cut..]]);
                assert_eq!(two, whole, "split at {cut}, streaming {}", sess.stream);
            }
            let bytes: Vec<&[u8]> = input.chunks(1).collect();
            assert_eq!(run(sess.clone(), &bytes), whole, "byte by byte");
        }
    }
    // The first stream's events, for the record.
    let (ev, out, err) = server(&cat(&streams[0]));
    assert_eq!(err, None);
    assert_eq!(ev.len(), 9);
    assert_eq!(
        ev[1],
        r#"ping [105, 110, 32, 98, 101, 116, 119, 101, 101, 110]"#
    );
    assert_eq!(ev[2], r#"text "κόσμε""#);
    assert_eq!(ev[8], r#"close Some(1000) "ça va""#);
    let mut want = Vec::new();
    for p in [&b"in between"[..], b""] {
        write_frame(&mut want, true, Pong, p, None);
    }
    write_header(&mut want, true, Close, 2, None);
    want.extend_from_slice(&1000u16.to_be_bytes());
    assert_eq!(out, want);
}

/// A streaming session hands each read's part of a frame out as it comes, in place (never
/// copied, never kept), an empty piece for a frame without payload, and checks the limits on
/// the frame headers as an assembling one does: what it holds does not grow with the message.
#[test]
fn streaming_hands_out_pieces_and_keeps_nothing() {
    let limits = Limits {
        max_frame: 1 << 20,
        max_message: 5 << 19,
    };
    let mut sess = Session::client(limits, 1).streaming();
    let mut out = Vec::new();
    let mut frames = s(false, Opcode::Binary, &[7; 1 << 20]);
    frames.extend(s(false, Opcode::Continuation, b""));
    frames.extend(s(false, Opcode::Continuation, &[8; 1 << 20]));
    let mut got = Vec::new();
    for chunk in frames.chunks_mut(64 * 1024) {
        let range = chunk.as_ptr_range();
        let mut pos = 0;
        loop {
            let (n, ev) = sess.next(&mut chunk[pos..], &mut out).unwrap();
            pos += n;
            let Some(Event::Part {
                data, first, fin, ..
            }) = ev
            else {
                assert_eq!(ev, None);
                break;
            };
            assert!(
                data.is_empty() || range.contains(&data.as_ptr()),
                "in place"
            );
            assert!(!fin);
            got.push((data.len(), first));
        }
        assert!(chunk.len() - pos <= frame::MAX_HEADER_LEN);
    }
    assert_eq!(got[0], (64 * 1024 - 10, true));
    assert!(got[1..].iter().all(|&(_, first)| !first));
    assert!(got.contains(&(0, false)), "the empty frame is seen");
    assert_eq!(got.iter().map(|p| p.0).sum::<usize>(), 2 << 20);
    assert!(sess.in_message());
    assert_eq!(sess.asm.capacity(), 0, "nothing assembled");
    // The next frame would pass the message's limit: refused at its header.
    let mut more = s(true, Opcode::Continuation, &[9; 1 << 20]);
    assert_eq!(
        sess.next(&mut more, &mut out).err(),
        Some(WsError::MessageTooLarge { limit: 5 << 19 })
    );
}

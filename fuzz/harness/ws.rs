//! Fuzzes the WebSocket codec (`barrage_wire::ws`). The first input byte is control: bit 0
//! picks small limits (frames of 300 bytes, messages of 1000) over the defaults, the other bits
//! a split point; the rest is a peer's byte stream. For a server session (the input as a
//! client's frames) and a client session (the same as a server's): fed whole and split at the
//! split point, the same events, the same bytes written (pongs, the close reply) and the same
//! error; what is left unused is never more than a frame header; no message passes the limit.
//! A streaming client session (pieces in order, `first` on the first and `fin` on the last,
//! put together here) gives the same as the assembling one, whole, split and byte by byte.
//! Besides: masking a word at a time equals masking a byte at a time, at any offset; and the
//! input sent as messages by a client session (whole and fragmented, with a ping between) is
//! what a server session reads back.

use barrage_wire::ws::frame::{apply_mask, MAX_HEADER_LEN};
use barrage_wire::ws::{Event, Limits, Opcode, Session};

/// Feeds `parts` in turn, carrying what is left over: the events (text as is, binary by
/// length and a checksum), what the session wrote, and the error.
fn feed(mut s: Session, limits: Limits, parts: &[&[u8]]) -> (Vec<String>, Vec<u8>, Option<String>) {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    let mut carry: Vec<u8> = Vec::new();
    // A streaming session's message so far.
    let mut pieces: Option<Vec<u8>> = None;
    for p in parts {
        carry.extend_from_slice(p);
        let mut pos = 0;
        loop {
            match s.next(&mut carry[pos..], &mut out) {
                Err(e) => {
                    s.fail(&mut out, &e);
                    return (seen, out, Some(e.to_string()));
                }
                Ok((n, ev)) => {
                    let more = ev.is_some();
                    let whole;
                    let ev = match ev {
                        Some(Event::Part {
                            text,
                            data,
                            first,
                            fin,
                        }) => {
                            assert_eq!(first, pieces.is_none(), "first on the first piece only");
                            let m = pieces.get_or_insert_with(Vec::new);
                            m.extend_from_slice(data);
                            assert!(m.len() as u64 <= limits.max_message);
                            whole = if fin { pieces.take() } else { None };
                            whole.as_deref().map(|data| Event::Message { text, data })
                        }
                        ev => ev,
                    };
                    if let Some(ev) = ev {
                        seen.push(match ev {
                            Event::Part { .. } => unreachable!("put together above"),
                            Event::Message { text, data } => {
                                assert!(data.len() as u64 <= limits.max_message);
                                if text {
                                    assert!(std::str::from_utf8(data).is_ok());
                                }
                                let sum = data.iter().fold(0u64, |a, &b| {
                                    a.wrapping_mul(31).wrapping_add(u64::from(b))
                                });
                                format!("msg {text} {} {sum}", data.len())
                            }
                            Event::Ping(p) => format!("ping {p:?}"),
                            Event::Pong(p) => format!("pong {p:?}"),
                            Event::Close { code, reason } => format!("close {code:?} {reason:?}"),
                        });
                    }
                    pos += n;
                    if !more {
                        break;
                    }
                }
            }
        }
        assert!(
            carry.len() - pos <= MAX_HEADER_LEN,
            "more than a header left over"
        );
        carry.drain(..pos);
    }
    (seen, out, None)
}

pub fn run(data: &[u8]) {
    let Some((&ctl, input)) = data.split_first() else {
        return;
    };
    let limits = if ctl & 1 == 0 {
        Limits::default()
    } else {
        Limits {
            max_frame: 300,
            max_message: 1000,
        }
    };
    let cut = (usize::from(ctl >> 1) * 13).min(input.len());
    let server = || Session::server(limits);
    let client = || Session::client(limits, u64::from(ctl) + 1);
    let whole = feed(server(), limits, &[input]);
    assert_eq!(
        feed(server(), limits, &[&input[..cut], &input[cut..]]),
        whole
    );
    let whole = feed(client(), limits, &[input]);
    assert_eq!(
        feed(client(), limits, &[&input[..cut], &input[cut..]]),
        whole
    );
    let streaming = || client().streaming();
    assert_eq!(feed(streaming(), limits, &[input]), whole);
    assert_eq!(
        feed(streaming(), limits, &[&input[..cut], &input[cut..]]),
        whole
    );
    if input.len() <= 4096 {
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(feed(streaming(), limits, &bytes), whole);
    }

    // Masking by words against masking by bytes.
    if input.len() >= 4 {
        let key = [input[0], input[1], input[2], input[3]];
        let offset = u64::from(ctl);
        let mut fast = input.to_vec();
        apply_mask(&mut fast, key, offset);
        for (i, (&f, &b)) in fast.iter().zip(input).enumerate() {
            assert_eq!(f, b ^ key[(offset as usize + i) % 4]);
        }
    }

    // The input as messages, sent by a client and read by a server.
    let mut cl = Session::client(Limits::default(), u64::from(ctl));
    let mut wire = Vec::new();
    let text = std::str::from_utf8(input).is_ok();
    cl.send(&mut wire, text, input);
    cl.send_frame(&mut wire, false, Opcode::Binary, &input[..cut]);
    cl.send_frame(&mut wire, true, Opcode::Ping, &input[..cut.min(125)]);
    cl.send_frame(&mut wire, true, Opcode::Continuation, &input[cut..]);
    let (seen, _, err) = feed(
        Session::server(Limits::default()),
        Limits::default(),
        &[&wire],
    );
    assert_eq!(err, None);
    assert_eq!(seen.len(), 3);
    let again = feed(
        Session::server(Limits::default()),
        Limits::default(),
        &[&wire[..cut], &wire[cut..]],
    );
    assert_eq!(again.0, seen);
}

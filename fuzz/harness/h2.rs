//! Fuzzes the HTTP/2 codec: frames parse the same whole or split at any byte (no panic, the same
//! frames or the same error), and every header block fragment decodes through HPACK without
//! panicking; what HPACK's Huffman coder writes it reads back; a client connection with open
//! streams fed the input as a server's reply, whole or split, ends the same streams the same way
//! (and never panics); a server connection fed the input as a client's frames, whole or split,
//! reports the same requests, data and resets and the same connection error.

use barrage_wire::h2::client::{Client, Config, End, Request};
use barrage_wire::h2::server::{self, Event, Server};
use barrage_wire::h2::{hpack, parse_frame, Frame};

fn frames(buf: &[u8]) -> (Vec<String>, usize, Option<String>) {
    let mut v = Vec::new();
    let mut at = 0;
    loop {
        match parse_frame(&buf[at..], 1 << 20) {
            Ok(Some((f, n))) => {
                v.push(format!("{f:?}"));
                at += n;
            }
            Ok(None) => return (v, at, None),
            Err(e) => return (v, at, Some(e.to_string())),
        }
    }
}

/// A client with three open streams (one with a body) fed `parts` in turn: the streams' ends, and
/// the error that ended the connection, if any.
fn client(parts: &[&[u8]]) -> (Vec<End<u32>>, Option<String>) {
    let req = Request::new("POST", "http", "h", "/", &[], b"ping");
    let cfg = Config {
        max_streams: 3,
        stream_window: 65_535,
        conn_window: 65_535,
        max_header_list: barrage_wire::h2::client::MAX_HEADER_LIST,
    };
    let mut c: Client<u32> = Client::new(cfg);
    for tag in 0..3 {
        c.open(std::slice::from_ref(&req), 0, tag);
    }
    let mut ends = Vec::new();
    let mut carry = Vec::new();
    for p in parts {
        carry.extend_from_slice(p);
        match c.feed(
            &carry,
            std::slice::from_ref(&req),
            Some(b"pong"),
            &mut |e| ends.push(e),
        ) {
            Ok(n) => {
                carry.drain(..n);
            }
            Err(e) => return (ends, Some(e.to_string())),
        }
    }
    (ends, None)
}

/// A server fed `parts` in turn: what it reported (body data joined per stream, since a split
/// can cut a DATA frame's delivery differently only at frame boundaries), and its error.
fn serve(parts: &[&[u8]]) -> (Vec<String>, Option<String>) {
    let mut s = Server::new(server::Config::default());
    let mut seen = Vec::new();
    let mut out = Vec::new();
    let mut carry: Vec<u8> = Vec::new();
    for p in parts {
        carry.extend_from_slice(p);
        loop {
            match s.next(&carry, &mut out) {
                Err(e) => return (seen, Some(e.to_string())),
                Ok((n, ev)) => {
                    let more = ev.is_some();
                    if let Some(ev) = ev {
                        seen.push(match ev {
                            Event::Request(r) => {
                                format!("req {} {} {} {}", r.stream, r.method, r.path, r.end_stream)
                            }
                            Event::Data {
                                stream,
                                data,
                                end_stream,
                            } => format!("data {stream} {data:?} {end_stream}"),
                            Event::Reset { stream } => format!("reset {stream}"),
                            Event::TooLarge { stream, .. } => format!("431 {stream}"),
                        });
                    }
                    carry.drain(..n);
                    if !more {
                        break;
                    }
                }
            }
        }
    }
    (seen, None)
}

pub fn run(data: &[u8]) {
    let Some((&split, input)) = data.split_first() else {
        return;
    };
    let (whole, used, err) = frames(input);
    let cut = usize::from(split).min(input.len());
    let (mut first, at, err1) = frames(&input[..cut]);
    if err1.is_none() {
        let mut rest = input[at..cut].to_vec();
        rest.extend_from_slice(&input[cut..]);
        let (more, used2, err2) = frames(&rest);
        first.extend(more);
        assert_eq!(first, whole);
        assert_eq!(at + used2, used);
        assert_eq!(err2, err);
    }
    assert_eq!(client(&[input]), client(&[&input[..cut], &input[cut..]]));
    assert_eq!(serve(&[input]), serve(&[&input[..cut], &input[cut..]]));
    let mut d = hpack::Decoder::new(4096);
    let mut at = 0;
    while let Ok(Some((f, n))) = parse_frame(&input[at..], 1 << 20) {
        if let Frame::Headers { block, .. } | Frame::Continuation { block, .. } = f {
            let _ = d.decode(block, |_, _| {});
        }
        at += n;
    }
    let _ = d.decode(input, |_, _| {});
    let mut enc = Vec::new();
    hpack::huffman::encode(input, &mut enc);
    let mut back = Vec::new();
    hpack::huffman::decode(&enc, &mut back).unwrap();
    assert_eq!(back, input);
}

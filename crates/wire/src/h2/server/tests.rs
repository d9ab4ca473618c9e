//! Server tests: requests fed whole and split at every byte, the malformed requests of RFC 9113
//! §8 (each a stream error that leaves the connection up), stream states (§5.1), the concurrency
//! limit, content-length against DATA, and sending under small and negative windows (§6.9.2).

use super::*;
use crate::h2::frame::{write_data_header, write_headers, write_settings, write_window_update};
use crate::h2::frame::{write_rst_stream, Kind};
use crate::h2::hpack::{encode_literal, Decoder, Indexing};
use crate::h2::settings::INITIAL_WINDOW_SIZE;

/// A request header block of literal fields (no indexing, so blocks are independent).
fn block(fields: &[(&str, &str)]) -> Vec<u8> {
    let mut b = Vec::new();
    for (n, v) in fields {
        encode_literal(&mut b, 0, n.as_bytes(), v.as_bytes(), Indexing::Without);
    }
    b
}

fn get_fields(path: &str) -> Vec<(&str, &str)> {
    vec![
        (":method", "GET"),
        (":scheme", "http"),
        (":path", path),
        (":authority", "localhost"),
        ("user-agent", "t"),
    ]
}

fn headers(stream: u32, fields: &[(&str, &str)], end_stream: bool) -> Vec<u8> {
    let mut out = Vec::new();
    write_headers(&mut out, stream, &block(fields), end_stream, 16_384);
    out
}

fn data(stream: u32, d: &[u8], end: bool) -> Vec<u8> {
    let mut out = Vec::new();
    write_data_header(&mut out, stream, d.len(), end);
    out.extend_from_slice(d);
    out
}

/// What the server reported, owned: ("req", stream, "METHOD path end"), ("data", stream, body),
/// ("reset", stream, ""), ("431", stream, "").
#[derive(Debug, PartialEq, Eq)]
enum Seen {
    Req(u32, String),
    Data(u32, Vec<u8>, bool),
    Reset(u32),
    TooLarge(u32),
}

/// Feeds `input` in pieces of at most `step` bytes (the remainder carried as a real caller
/// would), collecting events; returns them, the output, and the connection error if any.
fn run(s: &mut Server, input: &[u8], step: usize) -> (Vec<Seen>, Vec<u8>, Option<H2Error>) {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    let mut buf: Vec<u8> = Vec::new();
    for piece in input.chunks(step.max(1)) {
        buf.extend_from_slice(piece);
        loop {
            match s.next(&buf, &mut out) {
                Err(e) => return (seen, out, Some(e)),
                Ok((used, ev)) => {
                    let got = ev.is_some();
                    if let Some(ev) = ev {
                        seen.push(match ev {
                            Event::Request(r) => {
                                let hs: Vec<String> = r
                                    .headers()
                                    .map(|(n, v)| format!("{n}={}", String::from_utf8_lossy(v)))
                                    .collect();
                                Seen::Req(
                                    r.stream,
                                    format!(
                                        "{} {} {} {}",
                                        r.method,
                                        r.path,
                                        r.end_stream,
                                        hs.join(",")
                                    ),
                                )
                            }
                            Event::Data {
                                stream,
                                data,
                                end_stream,
                            } => Seen::Data(stream, data.to_vec(), end_stream),
                            Event::Reset { stream } => Seen::Reset(stream),
                            Event::TooLarge { stream, .. } => Seen::TooLarge(stream),
                        });
                    }
                    buf.drain(..used);
                    if !got {
                        break;
                    }
                }
            }
        }
    }
    (seen, out, None)
}

/// Every frame in `out` as (kind, flags, stream, payload).
fn frames(out: &[u8]) -> Vec<(Kind, u8, u32, Vec<u8>)> {
    let mut v = Vec::new();
    let mut at = 0;
    while at < out.len() {
        let h = &out[at..at + 9];
        let len = u32::from_be_bytes([0, h[0], h[1], h[2]]) as usize;
        let stream = u32::from_be_bytes([h[5], h[6], h[7], h[8]]) & 0x7fff_ffff;
        v.push((
            Kind::from_u8(h[3]),
            h[4],
            stream,
            out[at + 9..at + 9 + len].to_vec(),
        ));
        at += 9 + len;
    }
    v
}

fn rst_codes(out: &[u8]) -> Vec<(u32, u32)> {
    frames(out)
        .into_iter()
        .filter(|f| f.0 == Kind::RstStream)
        .map(|f| (f.2, u32::from_be_bytes([f.3[0], f.3[1], f.3[2], f.3[3]])))
        .collect()
}

#[test]
fn a_request_and_its_body_split_at_every_byte() {
    let mut input = headers(
        1,
        &[
            (":method", "POST"),
            (":scheme", "http"),
            (":path", "/echo?x=1"),
            (":authority", "localhost"),
            ("content-length", "5"),
        ],
        false,
    );
    input.extend(data(1, b"he", false));
    input.extend(data(1, b"llo", true));
    input.extend(headers(3, &get_fields("/"), true));
    let whole = run(&mut Server::new(Config::default()), &input, input.len());
    assert_eq!(
        whole.0,
        vec![
            Seen::Req(1, "POST /echo?x=1 false content-length=5".into()),
            Seen::Data(1, b"he".to_vec(), false),
            Seen::Data(1, b"llo".to_vec(), true),
            Seen::Req(3, "GET / true user-agent=t".into()),
        ]
    );
    assert!(whole.2.is_none());
    for step in 1..input.len() {
        let (seen, _, err) = run(&mut Server::new(Config::default()), &input, step);
        assert!(err.is_none(), "step {step}");
        // Data may arrive in more pieces when split: compare the joined body.
        let reqs: Vec<&Seen> = seen.iter().filter(|s| matches!(s, Seen::Req(..))).collect();
        assert_eq!(reqs.len(), 2, "step {step}");
        let body: Vec<u8> = seen
            .iter()
            .filter_map(|s| match s {
                Seen::Data(1, d, _) => Some(d.clone()),
                _ => None,
            })
            .flatten()
            .collect();
        assert_eq!(body, b"hello", "step {step}");
    }
}

#[test]
fn malformed_requests_are_stream_errors() {
    let base = get_fields("/");
    let cases: Vec<(&str, Vec<(&str, &str)>)> = vec![
        (
            "uppercase name",
            [&base[..], &[("User-Agent", "x")]].concat(),
        ),
        ("unknown pseudo", [&[(":foo", "x")], &base[..]].concat()),
        (
            "response pseudo",
            [&[(":status", "200")], &base[..]].concat(),
        ),
        (
            "pseudo after regular",
            [&base[..], &[(":method", "GET")]].concat(),
        ),
        (
            "duplicate :method",
            [&[(":method", "GET")], &base[..]].concat(),
        ),
        ("duplicate :path", [&[(":path", "/")], &base[..]].concat()),
        (
            "duplicate :scheme",
            [&[(":scheme", "http")], &base[..]].concat(),
        ),
        (
            "connection header",
            [&base[..], &[("connection", "keep-alive")]].concat(),
        ),
        (
            "transfer-encoding",
            [&base[..], &[("transfer-encoding", "chunked")]].concat(),
        ),
        (
            "te other than trailers",
            [&base[..], &[("te", "gzip")]].concat(),
        ),
        (
            "empty :path",
            vec![(":method", "GET"), (":scheme", "http"), (":path", "")],
        ),
        ("no :method", vec![(":scheme", "http"), (":path", "/")]),
        ("no :scheme", vec![(":method", "GET"), (":path", "/")]),
        ("no :path", vec![(":method", "GET"), (":scheme", "http")]),
        (
            "bad content-length",
            [&base[..], &[("content-length", "x1")]].concat(),
        ),
        (
            "content-length with END_STREAM",
            [&base[..], &[("content-length", "3")]].concat(),
        ),
    ];
    for (what, fields) in cases {
        let mut s = Server::new(Config::default());
        let mut input = headers(1, &fields, true);
        // The connection goes on: the next stream is served.
        input.extend(headers(3, &get_fields("/next"), true));
        let (seen, out, err) = run(&mut s, &input, input.len());
        assert!(err.is_none(), "{what}: {err:?}");
        assert_eq!(
            rst_codes(&out),
            vec![(1, 1)],
            "{what}: PROTOCOL_ERROR on stream 1"
        );
        assert_eq!(
            seen,
            vec![
                Seen::Reset(1),
                Seen::Req(3, "GET /next true user-agent=t".into())
            ],
            "{what}"
        );
    }
    // te: trailers is allowed.
    let mut s = Server::new(Config::default());
    let input = headers(1, &[&base[..], &[("te", "trailers")]].concat(), true);
    let (seen, out, _) = run(&mut s, &input, input.len());
    assert_eq!(seen.len(), 1);
    assert!(rst_codes(&out).is_empty());
}

#[test]
fn content_length_must_match_the_data() {
    let post = |cl: &'static str| {
        vec![
            (":method", "POST"),
            (":scheme", "http"),
            (":path", "/"),
            ("content-length", cl),
        ]
    };
    // Too much data in one frame, too little before END_STREAM, too much over two frames.
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "over",
            [headers(1, &post("3"), false), data(1, b"abcd", true)].concat(),
        ),
        (
            "under",
            [headers(1, &post("5"), false), data(1, b"abcd", true)].concat(),
        ),
        (
            "over in two",
            [
                headers(1, &post("3"), false),
                data(1, b"ab", false),
                data(1, b"cd", true),
            ]
            .concat(),
        ),
    ];
    for (what, input) in cases {
        let mut s = Server::new(Config::default());
        let (seen, out, err) = run(&mut s, &input, input.len());
        assert!(err.is_none(), "{what}");
        assert_eq!(rst_codes(&out), vec![(1, 1)], "{what}");
        assert_eq!(seen.last(), Some(&Seen::Reset(1)), "{what}");
    }
}

#[test]
fn stream_states() {
    let get = headers(1, &get_fields("/"), true);
    // (what, input after a GET on stream 1 that the server has not answered, expected error
    // code: Some(conn) for a connection error, None with an RST_STREAM code otherwise)
    let rst = |s| {
        let mut v = Vec::new();
        write_rst_stream(&mut v, s, ErrorCode::Cancel);
        v
    };
    type Want = Result<(u32, u32), ErrorCode>;
    let cases: Vec<(&str, Vec<u8>, Want)> = vec![
        (
            "DATA on an idle stream",
            data(5, b"x", false),
            Err(ErrorCode::Protocol),
        ),
        (
            "RST_STREAM on an idle stream",
            rst(5),
            Err(ErrorCode::Protocol),
        ),
        (
            "even stream id",
            headers(2, &get_fields("/"), true),
            Err(ErrorCode::Protocol),
        ),
        (
            "lower stream id",
            headers(1, &get_fields("/"), true),
            Ok((1, 5)),
        ),
        (
            "DATA on half-closed (remote)",
            data(1, b"x", true),
            Ok((1, 5)),
        ),
        (
            "HEADERS on a closed stream",
            [rst(1), headers(1, &get_fields("/"), true)].concat(),
            Ok((1, 5)),
        ),
    ];
    for (what, more, want) in cases {
        let mut s = Server::new(Config::default());
        let input = [get.clone(), more].concat();
        let (_, out, err) = run(&mut s, &input, input.len());
        match want {
            Err(code) => assert_eq!(err.map(|e| e.code), Some(code), "{what}"),
            Ok(r) => {
                assert!(err.is_none(), "{what}: {err:?}");
                assert_eq!(rst_codes(&out), vec![r], "{what}");
            }
        }
    }
    // A stream answered and closed long ago: DATA on it is a connection error STREAM_CLOSED.
    let mut s = Server::new(Config::default());
    let (_, _, _) = run(&mut s, &get, get.len());
    let mut out = Vec::new();
    s.respond(&mut out, 1, 200, &[], true);
    assert_eq!(s.open_streams(), 0);
    let late = data(1, b"x", true);
    let (_, _, err) = run(&mut s, &late, late.len());
    assert_eq!(err.map(|e| e.code), Some(ErrorCode::StreamClosed));
}

#[test]
fn streams_beyond_the_limit_are_refused() {
    let mut s = Server::new(Config {
        max_concurrent_streams: 2,
        ..Config::default()
    });
    let mut input = Vec::new();
    for id in [1, 3, 5] {
        input.extend(headers(id, &get_fields("/"), true));
    }
    let (seen, out, err) = run(&mut s, &input, input.len());
    assert!(err.is_none());
    assert_eq!(seen.len(), 2);
    assert_eq!(rst_codes(&out), vec![(5, 7)], "REFUSED_STREAM");
    // Once one is answered, a new stream is served.
    let mut o = Vec::new();
    s.respond(&mut o, 1, 200, &[], true);
    let more = headers(7, &get_fields("/"), true);
    let (seen, _, _) = run(&mut s, &more, more.len());
    assert_eq!(seen, vec![Seen::Req(7, "GET / true user-agent=t".into())]);
}

#[test]
fn response_head_decodes() {
    let mut s = Server::new(Config::default());
    let get = headers(1, &get_fields("/"), true);
    run(&mut s, &get, get.len());
    let mut out = Vec::new();
    let hs: [(&str, &[u8]); 3] = [
        ("content-type", b"text/plain"),
        ("content-length", b"13"),
        ("x-checksum", b"crc32=00000000"),
    ];
    s.respond(&mut out, 1, 404, &hs, true);
    let f = frames(&out);
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].0, f[0].1, f[0].2), (Kind::Headers, 0x5, 1));
    let mut d = Decoder::new(4096);
    let mut got = Vec::new();
    d.decode(&f[0].3, |n, v| {
        got.push(format!(
            "{}={}",
            String::from_utf8_lossy(n),
            String::from_utf8_lossy(v)
        ))
    })
    .unwrap();
    assert_eq!(
        got,
        [
            ":status=404",
            "content-type=text/plain",
            "content-length=13",
            "x-checksum=crc32=00000000"
        ]
    );
    // An uncommon status is a literal.
    let get = headers(3, &get_fields("/"), true);
    run(&mut s, &get, get.len());
    let mut out = Vec::new();
    s.respond(&mut out, 3, 431, &[], true);
    let mut got = Vec::new();
    d.decode(&frames(&out)[0].3, |n, v| {
        got.push((n.to_vec(), v.to_vec()))
    })
    .unwrap();
    assert_eq!(got, vec![(b":status".to_vec(), b"431".to_vec())]);
}

#[test]
fn bodies_follow_small_and_negative_windows() {
    // The client allows 3 bytes per stream; the server sends 3, then waits.
    let mut s = Server::new(Config::default());
    let mut input = Vec::new();
    write_settings(&mut input, &[(INITIAL_WINDOW_SIZE, 3)]);
    input.extend(headers(1, &get_fields("/"), true));
    run(&mut s, &input, input.len());
    let mut out = Vec::new();
    s.respond(&mut out, 1, 200, &[], false);
    let body = b"Hello, World!";
    let mut sent = s.send_data(&mut out, 1, body, true);
    assert_eq!(sent, 3);
    assert_eq!(s.send_room(1), 0);
    // INITIAL_WINDOW_SIZE 3 -> 2: the window is now -1 (§6.9.2), a WINDOW_UPDATE of 2 makes it 1.
    let mut more = Vec::new();
    write_settings(&mut more, &[(INITIAL_WINDOW_SIZE, 2)]);
    run(&mut s, &more, more.len());
    assert_eq!(s.send_room(1), 0);
    let mut wu = Vec::new();
    write_window_update(&mut wu, 1, 2);
    run(&mut s, &wu, wu.len());
    assert_eq!(s.send_room(1), 1);
    let mut out2 = Vec::new();
    sent += s.send_data(&mut out2, 1, &body[sent..], true);
    assert_eq!(sent, 4);
    let f = frames(&out2);
    assert_eq!((f[0].0, f[0].3.clone()), (Kind::Data, b"l".to_vec()));
    // The rest, once the window is wide, in frames no larger than the peer's max frame size,
    // END_STREAM on the last; the stream is then closed.
    let mut wu = Vec::new();
    write_window_update(&mut wu, 1, 100);
    run(&mut s, &wu, wu.len());
    let mut out3 = Vec::new();
    sent += s.send_data(&mut out3, 1, &body[sent..], true);
    assert_eq!(sent, body.len());
    let f = frames(&out3);
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].1, f[0].3.clone()), (0x1, b"o, World!".to_vec()));
    assert!(!s.can_send(1));
    assert_eq!(s.open_streams(), 0);
}

#[test]
fn window_overflow_is_a_flow_control_error() {
    let mut s = Server::new(Config::default());
    let mut input = headers(1, &get_fields("/"), true);
    write_window_update(&mut input, 1, MAX_WINDOW);
    let (_, out, err) = run(&mut s, &input, input.len());
    assert!(err.is_none());
    assert_eq!(rst_codes(&out), vec![(1, 3)]);
    let mut s = Server::new(Config::default());
    let mut input = Vec::new();
    write_window_update(&mut input, 0, MAX_WINDOW);
    let (_, _, err) = run(&mut s, &input, input.len());
    assert_eq!(err.map(|e| e.code), Some(ErrorCode::FlowControl));
}

#[test]
fn a_body_still_arriving_when_the_response_ends_is_stopped() {
    let mut s = Server::new(Config::default());
    let post = [(":method", "POST"), (":scheme", "http"), (":path", "/")];
    let input = headers(1, &post, false);
    run(&mut s, &input, input.len());
    let mut out = Vec::new();
    s.respond(&mut out, 1, 413, &[], true);
    // RST_STREAM NO_ERROR after the response (§8.1), and the stream is gone.
    assert_eq!(rst_codes(&out), vec![(1, 0)]);
    assert_eq!(s.open_streams(), 0);
}

#[test]
fn oversized_header_lists_are_answered_431() {
    let mut s = Server::new(Config {
        max_header_list: 200,
        ..Config::default()
    });
    let big = "x".repeat(300);
    let input = headers(
        1,
        &[&get_fields("/")[..], &[("cookie", big.as_str())]].concat(),
        true,
    );
    let (seen, _, err) = run(&mut s, &input, input.len());
    assert!(err.is_none());
    assert_eq!(seen, vec![Seen::TooLarge(1)]);
}

/// Found by the h2_server fuzz target's author: a stream answered before its body arrived (a
/// 413, a fault) is reset with NO_ERROR; the client's DATA already in flight on it is ignored,
/// not a STREAM_CLOSED connection error that ends every other stream.
#[test]
fn data_in_flight_for_a_stream_answered_early_is_ignored() {
    let mut s = Server::new(Config::default());
    let post = [(":method", "POST"), (":scheme", "http"), (":path", "/")];
    let (seen, _, err) = run(&mut s, &headers(1, &post, false), 1 << 20);
    assert_eq!((seen.len(), err), (1, None));
    let mut out = Vec::new();
    s.respond(&mut out, 1, 413, &[], true);
    assert!(rst_codes(&out).contains(&(1, 0)), "reset with NO_ERROR");
    let late = [data(1, b"late", false), headers(3, &get_fields("/"), true)].concat();
    let (seen, _, err) = run(&mut s, &late, 1 << 20);
    assert_eq!(err, None);
    assert!(matches!(seen.last(), Some(Seen::Req(3, _))), "{seen:?}");
}

//! Client tests: the request's three header blocks against known bytes and the decoder, stream
//! limits (ours and the server's), responses split at every byte, 1xx, resets, GOAWAY, request
//! bodies under small windows, cancels, a shrunk header table and malformed responses.

use super::*;
use crate::h2::frame::{write_data_header, write_goaway, write_headers, write_settings, Kind};
use crate::h2::hpack::{encode_indexed, encode_literal, Decoder, Indexing};
use crate::h2::parse_frame;
use crate::h2::settings::{HEADER_TABLE_SIZE, INITIAL_WINDOW_SIZE, MAX_CONCURRENT_STREAMS};

fn get() -> Request {
    Request::new("GET", "http", "127.0.0.1:8080", "/", &[], b"")
}

fn cfg(m: u32) -> Config {
    Config {
        max_streams: m,
        stream_window: 1 << 20,
        conn_window: 1 << 30,
        max_header_list: MAX_HEADER_LIST,
    }
}

fn decode(d: &mut Decoder, block: &[u8]) -> Vec<(String, String)> {
    let mut v = Vec::new();
    d.decode(block, |n, val| {
        v.push((
            String::from_utf8_lossy(n).into_owned(),
            String::from_utf8_lossy(val).into_owned(),
        ))
    })
    .unwrap();
    v
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
        assert!(parse_frame(&out[at..], 1 << 24).unwrap().is_some());
        at += 9 + len;
    }
    v
}

fn response(stream: u32, status_index: usize, body: &[u8]) -> Vec<u8> {
    let mut block = Vec::new();
    encode_indexed(&mut block, status_index);
    let mut out = Vec::new();
    write_headers(&mut out, stream, &block, body.is_empty(), 16_384);
    if !body.is_empty() {
        write_data_header(&mut out, stream, body.len(), true);
        out.extend_from_slice(body);
    }
    out
}

/// Feeds `input` as one socket read; every byte used.
fn ends(c: &mut Client<u32>, input: &[u8], req: &Request, expect: Option<&[u8]>) -> Vec<End<u32>> {
    c.commit_credit();
    let mut v = Vec::new();
    let used = c
        .feed(input, std::slice::from_ref(req), expect, &mut |e| v.push(e))
        .unwrap();
    assert_eq!(used, input.len());
    v
}

#[test]
fn the_request_blocks_are_the_known_bytes_and_decode_to_the_same_fields() {
    let r = get();
    // :method GET (2), :scheme http (6), :authority by name (1) with incremental indexing,
    // :path / (4).
    assert_eq!(&r.first[..3], &[0x82, 0x86, 0x41]);
    assert_eq!(r.first.last(), Some(&0x84));
    // The rest names the authority's dynamic entry (62).
    assert_eq!(r.rest, vec![0x82, 0x86, 0xbe, 0x84]);
    // plain: the authority as a literal without indexing (name index 1, 4-bit prefix).
    assert_eq!(&r.plain[..3], &[0x82, 0x86, 0x01]);
    assert_eq!(r.table_bytes, 10 + 14 + 32);

    let want = vec![
        (":method".to_string(), "GET".to_string()),
        (":scheme".into(), "http".into()),
        (":authority".into(), "127.0.0.1:8080".into()),
        (":path".into(), "/".into()),
    ];
    let mut d = Decoder::new(4096);
    assert_eq!(decode(&mut d, &r.first), want);
    assert_eq!(d.table_size(), 56);
    for _ in 0..3 {
        assert_eq!(decode(&mut d, &r.rest), want);
    }
    assert_eq!(decode(&mut Decoder::new(4096), &r.plain), want);
}

#[test]
fn several_dynamic_entries_are_named_newest_first_and_http1_fields_are_left_out() {
    let h = [
        ("X-A".to_string(), "1".to_string()),
        ("Host".into(), "ignored".into()),
        ("Connection".into(), "keep-alive".into()),
        ("x-b".into(), "2".into()),
    ];
    let r = Request::new("POST", "https", "h", "/p", &h, b"ping");
    let want: Vec<(String, String)> = [
        (":method", "POST"),
        (":scheme", "https"),
        (":authority", "h"),
        (":path", "/p"),
        ("x-a", "1"),
        ("x-b", "2"),
        ("content-length", "4"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    let mut d = Decoder::new(4096);
    assert_eq!(decode(&mut d, &r.first), want);
    assert_eq!(decode(&mut d, &r.rest), want);
    // POST (3) and https (7) are static; :authority, :path /p, x-a, x-b and content-length
    // entered the table in that order, so the newest (content-length) is 62.
    assert_eq!(
        r.rest,
        vec![
            0x83,
            0x87,
            0x80 | 66,
            0x80 | 65,
            0x80 | 64,
            0x80 | 63,
            0x80 | 62
        ]
    );
    assert_eq!(r.body, b"ping");
}

#[test]
fn fields_too_big_for_the_default_table_are_never_indexed() {
    let big = "v".repeat(5000);
    let r = Request::new(
        "GET",
        "http",
        "h",
        "/",
        &[("x-big".into(), big.clone())],
        b"",
    );
    assert_eq!(r.table_bytes, 0);
    assert_eq!(r.first, r.plain);
    assert_eq!(r.rest, r.plain);
    let f = decode(&mut Decoder::new(4096), &r.rest);
    assert_eq!(f.last().unwrap().1, big);
}

#[test]
fn the_opening_is_the_preface_settings_and_the_connection_window() {
    let c: Client<u32> = Client::new(cfg(10));
    assert_eq!(&c.out[..24], PREFACE);
    let f = frames(&c.out[24..]);
    assert_eq!(f.len(), 2);
    assert_eq!(f[0].0, Kind::Settings);
    // ENABLE_PUSH 0, INITIAL_WINDOW_SIZE 2^20 and MAX_HEADER_LIST_SIZE 64 KiB.
    assert_eq!(
        f[0].3,
        vec![0, 2, 0, 0, 0, 0, 0, 4, 0, 0x10, 0, 0, 0, 6, 0, 1, 0, 0]
    );
    assert_eq!(f[1].0, Kind::WindowUpdate);
    assert_eq!(
        u32::from_be_bytes(f[1].3[..4].try_into().unwrap()),
        (1 << 30) - 65_535
    );
}

#[test]
fn streams_are_capped_by_the_wanted_count_and_by_the_server() {
    let r = get();
    let mut c: Client<u32> = Client::new(cfg(3));
    c.out.clear();
    assert_eq!(c.room(), 3);
    assert_eq!(c.open(std::slice::from_ref(&r), 0, 10), Some(1));
    assert_eq!(c.open(std::slice::from_ref(&r), 0, 11), Some(3));
    assert_eq!(c.open(std::slice::from_ref(&r), 0, 12), Some(5));
    assert_eq!(c.open(std::slice::from_ref(&r), 0, 13), None);
    let f = frames(&c.out);
    assert_eq!(f.len(), 3);
    assert!(f
        .iter()
        .all(|(k, fl, _, _)| *k == Kind::Headers && *fl == 0x5));
    assert_eq!(f[0].3, r.first);
    assert_eq!(f[1].3, r.rest);

    // The server allows 2: no room until two of the three ended.
    let mut s = Vec::new();
    write_settings(&mut s, &[(MAX_CONCURRENT_STREAMS, 2)]);
    assert_eq!(ends(&mut c, &s, &r, None), vec![]);
    assert!(c.capped());
    assert_eq!(c.limit(), 2);
    assert_eq!(c.room(), 0);
    let e = ends(&mut c, &response(1, 8, b""), &r, None);
    assert_eq!(
        e,
        vec![End::Response {
            tag: 10,
            status: 200,
            body_ok: true
        }]
    );
    assert_eq!(c.room(), 0);
    ends(&mut c, &response(5, 8, b""), &r, None);
    assert_eq!(c.room(), 1);
    assert_eq!(
        c.streams().map(|(id, t)| (id, *t)).collect::<Vec<_>>(),
        vec![(3, 11)]
    );
}

#[test]
fn a_response_split_at_every_byte_ends_the_same() {
    let r = get();
    let mut input = Vec::new();
    write_settings(&mut input, &[]);
    input.extend(response(1, 8, b"pong"));
    input.extend(response(3, 13, b"gone"));
    for cut in 0..=input.len() {
        let mut c: Client<u32> = Client::new(cfg(2));
        c.open(std::slice::from_ref(&r), 0, 1);
        c.open(std::slice::from_ref(&r), 0, 2);
        let mut got = Vec::new();
        let used = c
            .feed(
                &input[..cut],
                std::slice::from_ref(&r),
                Some(b"pong"),
                &mut |e| got.push(e),
            )
            .unwrap();
        let mut rest = input[used..].to_vec();
        let used2 = c
            .feed(&rest, std::slice::from_ref(&r), Some(b"pong"), &mut |e| {
                got.push(e)
            })
            .unwrap();
        rest.drain(..used2);
        assert!(rest.is_empty(), "cut {cut}");
        assert_eq!(
            got,
            vec![
                End::Response {
                    tag: 1,
                    status: 200,
                    body_ok: true
                },
                End::Response {
                    tag: 2,
                    status: 404,
                    body_ok: false
                },
            ],
            "cut {cut}"
        );
    }
}

#[test]
fn bodies_are_checked_whole_short_long_and_in_pieces() {
    let r = get();
    for (data, ok) in [
        (&[&b"po"[..], b"ng"][..], true),
        (&[&b"pon"[..]][..], false),
        (&[&b"pongs"[..]][..], false),
        (&[&b"pang"[..]][..], false),
    ] {
        let mut c: Client<u32> = Client::new(cfg(1));
        c.open(std::slice::from_ref(&r), 0, 7);
        let mut input = Vec::new();
        let mut block = Vec::new();
        encode_indexed(&mut block, 8);
        write_headers(&mut input, 1, &block, false, 16_384);
        for (i, d) in data.iter().enumerate() {
            write_data_header(&mut input, 1, d.len(), i + 1 == data.len());
            input.extend_from_slice(d);
        }
        let e = ends(&mut c, &input, &r, Some(b"pong"));
        assert_eq!(
            e,
            vec![End::Response {
                tag: 7,
                status: 200,
                body_ok: ok
            }],
            "{data:?}"
        );
    }
}

#[test]
fn an_interim_response_is_followed_by_the_final_one() {
    let r = get();
    let mut c: Client<u32> = Client::new(cfg(1));
    c.open(std::slice::from_ref(&r), 0, 1);
    let mut input = Vec::new();
    let mut block = Vec::new();
    encode_literal(&mut block, 8, b":status", b"103", Indexing::Without);
    write_headers(&mut input, 1, &block, false, 16_384);
    input.extend(response(1, 8, b""));
    assert_eq!(
        ends(&mut c, &input, &r, None),
        vec![End::Response {
            tag: 1,
            status: 200,
            body_ok: true
        }]
    );
}

#[test]
fn resets_and_malformed_responses_end_only_their_stream() {
    let r = get();
    let mut c: Client<u32> = Client::new(cfg(3));
    c.open(std::slice::from_ref(&r), 0, 1);
    c.open(std::slice::from_ref(&r), 0, 2);
    c.open(std::slice::from_ref(&r), 0, 3);
    c.out.clear();
    let mut input = Vec::new();
    // Stream 1: RST_STREAM(INTERNAL_ERROR). Stream 3: DATA before HEADERS. Stream 5: a bad
    // :status.
    frame::write_rst_stream(&mut input, 1, ErrorCode::Internal);
    write_data_header(&mut input, 3, 2, true);
    input.extend_from_slice(b"hi");
    let mut block = Vec::new();
    encode_literal(&mut block, 8, b":status", b"2x0", Indexing::Without);
    write_headers(&mut input, 5, &block, true, 16_384);
    assert_eq!(
        ends(&mut c, &input, &r, None),
        vec![
            End::Reset {
                tag: 1,
                code: ErrorCode::Internal
            },
            End::Malformed {
                tag: 2,
                code: ErrorCode::Protocol
            },
            End::Malformed {
                tag: 3,
                code: ErrorCode::Protocol
            },
        ]
    );
    // We reset the two malformed streams; the connection goes on.
    let f = frames(&c.out);
    let resets: Vec<u32> = f
        .iter()
        .filter(|f| f.0 == Kind::RstStream)
        .map(|f| f.2)
        .collect();
    assert_eq!(resets, vec![3, 5]);
    assert_eq!(c.room(), 3);
}

#[test]
fn goaway_hands_back_the_unprocessed_streams_and_finishes_after_the_rest() {
    let r = get();
    let mut c: Client<u32> = Client::new(cfg(3));
    c.open(std::slice::from_ref(&r), 0, 1);
    c.open(std::slice::from_ref(&r), 0, 2);
    c.open(std::slice::from_ref(&r), 0, 3);
    let mut input = Vec::new();
    write_goaway(&mut input, 1, ErrorCode::NoError, b"");
    assert_eq!(
        ends(&mut c, &input, &r, None),
        vec![End::Unprocessed { tag: 2 }, End::Unprocessed { tag: 3 }]
    );
    assert_eq!(c.room(), 0);
    assert!(!c.finished());
    assert_eq!(c.open(std::slice::from_ref(&r), 0, 4), None);
    ends(&mut c, &response(1, 8, b""), &r, None);
    assert!(c.finished());
}

#[test]
fn a_request_body_waits_for_window_credit() {
    let r = Request::new("POST", "http", "h", "/", &[], &[7u8; 25]);
    let mut c: Client<u32> = Client::new(cfg(1));
    let mut s = Vec::new();
    write_settings(&mut s, &[(INITIAL_WINDOW_SIZE, 10)]);
    ends(&mut c, &s, &r, None);
    c.out.clear();
    c.open(std::slice::from_ref(&r), 0, 1);
    let data = |out: &[u8]| -> Vec<(usize, bool)> {
        frames(out)
            .into_iter()
            .filter(|f| f.0 == Kind::Data)
            .map(|f| (f.3.len(), f.1 & 1 == 1))
            .collect()
    };
    assert_eq!(data(&c.out), vec![(10, false)]);
    c.out.clear();
    let mut wu = Vec::new();
    frame::write_window_update(&mut wu, 1, 12);
    ends(&mut c, &wu, &r, None);
    assert_eq!(data(&c.out), vec![(12, false)]);
    c.out.clear();
    // Raising the initial window moves the open stream's window too (§6.9.2).
    let mut s = Vec::new();
    write_settings(&mut s, &[(INITIAL_WINDOW_SIZE, 100)]);
    ends(&mut c, &s, &r, None);
    assert_eq!(data(&c.out), vec![(3, true)]);
}

#[test]
fn streams_of_different_requests_send_their_own_bodies_as_windows_open() {
    // Two requests (`--targets`): each stream's DATA is its own request's body, also when
    // the window opens later, and the blocks name nothing in the dynamic table.
    let reqs = [
        Request::new("POST", "http", "h", "/a", &[], b"aaaaaaaa").without_indexing(),
        Request::new("PUT", "http", "h", "/b", &[], b"bbbbbbbbbbbb").without_indexing(),
    ];
    let mut c: Client<u32> = Client::new(cfg(2));
    let mut s = Vec::new();
    write_settings(&mut s, &[(INITIAL_WINDOW_SIZE, 5)]);
    c.feed(&s, &reqs, None, &mut |_| {}).unwrap();
    c.out.clear();
    c.open(&reqs, 0, 1);
    c.open(&reqs, 1, 2);
    let sent = |out: &[u8], d: &mut Decoder| -> Vec<(u32, String)> {
        frames(out)
            .into_iter()
            .filter_map(|(k, _, id, p)| match k {
                Kind::Data => Some((id, String::from_utf8(p).unwrap())),
                Kind::Headers => Some((id, decode(d, &p)[3].1.clone())),
                _ => None,
            })
            .collect()
    };
    let mut d = Decoder::new(4096);
    let pairs = |v: &[(u32, &str)]| -> Vec<(u32, String)> {
        v.iter().map(|(i, s)| (*i, s.to_string())).collect()
    };
    assert_eq!(
        sent(&c.out, &mut d),
        pairs(&[(1, "/a"), (1, "aaaaa"), (3, "/b"), (3, "bbbbb")])
    );
    c.out.clear();
    let mut s = Vec::new();
    write_settings(&mut s, &[(INITIAL_WINDOW_SIZE, 100)]);
    c.feed(&s, &reqs, None, &mut |_| {}).unwrap();
    assert_eq!(sent(&c.out, &mut d), pairs(&[(1, "aaa"), (3, "bbbbbbb")]));
}

#[test]
fn a_cancelled_stream_is_reset_and_its_late_frames_are_ignored() {
    let r = get();
    let mut c: Client<u32> = Client::new(cfg(2));
    c.open(std::slice::from_ref(&r), 0, 1);
    c.open(std::slice::from_ref(&r), 0, 2);
    c.out.clear();
    assert_eq!(c.cancel(1), Some(1));
    assert_eq!(c.cancel(1), None);
    let f = frames(&c.out);
    assert_eq!(f.len(), 1);
    assert_eq!(
        (f[0].0, f[0].2, f[0].3.clone()),
        (Kind::RstStream, 1, vec![0, 0, 0, 8])
    );
    let mut input = response(1, 8, b"late");
    input.extend(response(3, 8, b""));
    assert_eq!(
        ends(&mut c, &input, &r, None),
        vec![End::Response {
            tag: 2,
            status: 200,
            body_ok: true
        }]
    );
}

#[test]
fn a_server_table_too_small_gets_a_size_update_then_plain_blocks() {
    let r = get();
    let mut c: Client<u32> = Client::new(cfg(4));
    c.open(std::slice::from_ref(&r), 0, 1);
    let mut s = Vec::new();
    write_settings(&mut s, &[(HEADER_TABLE_SIZE, 0)]);
    ends(&mut c, &s, &r, None);
    c.out.clear();
    c.open(std::slice::from_ref(&r), 0, 2);
    c.open(std::slice::from_ref(&r), 0, 3);
    let f = frames(&c.out);
    let mut want = vec![0x20];
    want.extend_from_slice(&r.plain);
    assert_eq!(f[0].3, want);
    assert_eq!(f[1].3, r.plain);
    // A decoder that was told 0 reads them.
    let mut d = Decoder::new(4096);
    decode(&mut d, &r.first);
    decode(&mut d, &f[0].3);
    assert_eq!(d.table_size(), 0);
    assert_eq!(decode(&mut d, &f[1].3).len(), 4);
}

#[test]
fn a_connection_window_overflow_ends_the_connection() {
    let r = get();
    let mut c: Client<u32> = Client::new(cfg(1));
    let mut wu = Vec::new();
    frame::write_window_update(&mut wu, 0, MAX_WINDOW);
    let err = c
        .feed(&wu, std::slice::from_ref(&r), None, &mut |_| {})
        .unwrap_err();
    assert_eq!((err.code, err.stream), (ErrorCode::FlowControl, None));
}

#[test]
fn a_refused_stream_was_not_processed_and_goes_out_again() {
    let r = get();
    let mut c: Client<u32> = Client::new(cfg(2));
    c.open(std::slice::from_ref(&r), 0, 1);
    c.open(std::slice::from_ref(&r), 0, 2);
    let mut input = Vec::new();
    frame::write_rst_stream(&mut input, 3, ErrorCode::RefusedStream);
    assert_eq!(
        ends(&mut c, &input, &r, None),
        vec![End::Unprocessed { tag: 2 }]
    );
    assert_eq!(c.room(), 1);
}

/// Found by the fuzz target: a connection window overflow followed by a frame too large gave
/// FLOW_CONTROL_ERROR when the two arrived in separate reads and FRAME_SIZE_ERROR when together.
/// The overflow comes first, so it is the error either way.
#[test]
fn the_first_connection_error_wins_whole_or_split() {
    let mut input = Vec::new();
    crate::h2::frame::write_window_update(&mut input, 0, MAX_WINDOW);
    let cut = input.len();
    // A DATA frame header announcing 2^24-1 bytes: beyond any SETTINGS_MAX_FRAME_SIZE here.
    input.extend_from_slice(&[0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 1]);
    let run = |parts: &[&[u8]]| {
        let mut c: Client<u32> = Client::new(cfg(1));
        c.open(&[get()], 0, 0);
        let mut carry = Vec::new();
        for p in parts {
            carry.extend_from_slice(p);
            match c.feed(&carry, &[get()], None, &mut |_| {}) {
                Ok(n) => {
                    carry.drain(..n);
                }
                Err(e) => return Some(e.code),
            }
        }
        None
    };
    assert_eq!(run(&[&input]), Some(ErrorCode::FlowControl));
    assert_eq!(
        run(&[&input[..cut], &input[cut..]]),
        Some(ErrorCode::FlowControl)
    );
}

/// A response header block whose fields are references to one large dynamic-table entry: a few
/// bytes that decode to far more than the header list size the client announced. Today's main
/// counted ~15k such responses per 3 s as 200s.
#[test]
fn a_header_list_past_the_announced_size_is_header_too_large_not_a_response() {
    let r = get();
    let mut c: Client<u32> = Client::new(cfg(2));
    c.open(std::slice::from_ref(&r), 0, 1);
    c.open(std::slice::from_ref(&r), 0, 2);
    c.out.clear();
    // The announced size is in the SETTINGS the client sent.
    assert_eq!(c.session.local.max_header_list_size, Some(MAX_HEADER_LIST));
    let mut block = Vec::new();
    encode_indexed(&mut block, 8); // :status 200
    encode_literal(
        &mut block,
        0,
        b"x-big",
        &[b'a'; 4000],
        Indexing::Incremental,
    );
    // 4,037 bytes each as HPACK counts: 17 references pass 64 KiB.
    for _ in 0..17 {
        encode_indexed(&mut block, 62);
    }
    assert!(block.len() < 4100);
    let mut input = Vec::new();
    write_headers(&mut input, 1, &block, false, 16_384);
    // Stream 3: a normal response after it, decoded with the same (shared) table.
    input.extend_from_slice(&response(3, 8, b""));
    assert_eq!(
        ends(&mut c, &input, &r, None),
        vec![
            End::HeaderTooLarge { tag: 1 },
            End::Response {
                tag: 2,
                status: 200,
                body_ok: true
            }
        ]
    );
    // The stream whose response goes on is reset (CANCEL); the connection goes on.
    let f = frames(&c.out);
    assert!(f.iter().any(|f| f.0 == Kind::RstStream && f.2 == 1));
    // One reference short of the limit is a response.
    let mut c: Client<u32> = Client::new(cfg(1));
    c.open(std::slice::from_ref(&r), 0, 1);
    let mut block = Vec::new();
    encode_indexed(&mut block, 8);
    encode_literal(
        &mut block,
        0,
        b"x-big",
        &[b'a'; 4000],
        Indexing::Incremental,
    );
    for _ in 0..14 {
        encode_indexed(&mut block, 62);
    }
    let mut input = Vec::new();
    write_headers(&mut input, 1, &block, true, 16_384);
    assert_eq!(
        ends(&mut c, &input, &r, None),
        vec![End::Response {
            tag: 1,
            status: 200,
            body_ok: true
        }]
    );
}

/// HEADERS without END_HEADERS and CONTINUATIONs that never end: today's main buffered 288 MiB
/// in 3 s. The connection ends as soon as the block passes four times the announced size.
#[test]
fn an_endless_header_block_ends_the_connection_at_its_limit() {
    let r = get();
    let mut c: Client<u32> = Client::new(cfg(1));
    c.open(std::slice::from_ref(&r), 0, 1);
    let limit = 4 * MAX_HEADER_LIST as usize;
    assert_eq!(c.session.block_limit(), limit);
    let frag = [0x40u8; 16_000];
    let mut input = Vec::new();
    frame::write_header(&mut input, frag.len(), Kind::Headers, 0, 1);
    input.extend_from_slice(&frag);
    let mut fed = frag.len();
    let mut err = None;
    let mut carry = std::mem::take(&mut input);
    while fed < 64 * limit {
        frame::write_header(&mut carry, frag.len(), Kind::Continuation, 0, 1);
        carry.extend_from_slice(&frag);
        fed += frag.len();
        match c.feed(&carry, std::slice::from_ref(&r), None, &mut |_| {}) {
            Ok(used) => {
                carry.drain(..used);
            }
            Err(e) => {
                err = Some(e);
                break;
            }
        }
    }
    let err = err.expect("the block was cut short");
    assert_eq!(err.code, ErrorCode::EnhanceYourCalm);
    assert_eq!(err.what, crate::h2::session::HEADER_BLOCK_TOO_LARGE);
    // Cut at the first fragment that would pass the limit, not later.
    assert!(fed > limit && fed <= limit + frag.len(), "{fed} bytes fed");
}

/// A `content-length` the DATA disagrees with is a malformed response (RFC 9113 §8.1.1), not a
/// success; a response with no content by definition (HEAD, 204, 304) may carry one.
#[test]
fn content_length_that_disagrees_with_the_data_is_malformed() {
    let with_length = |stream: u32, status: usize, len: &[u8], body: &[u8]| {
        let mut block = Vec::new();
        encode_indexed(&mut block, status);
        encode_literal(&mut block, 28, b"content-length", len, Indexing::Without);
        let mut out = Vec::new();
        write_headers(&mut out, stream, &block, body.is_empty(), 16_384);
        if !body.is_empty() {
            write_data_header(&mut out, stream, body.len(), true);
            out.extend_from_slice(body);
        }
        out
    };
    let malformed = |tag| End::Malformed {
        tag,
        code: ErrorCode::Protocol,
    };
    let ok = |tag, status| End::Response {
        tag,
        status,
        body_ok: true,
    };
    // (request method, :status index, content-length, DATA, what it ends as)
    type Case<'a> = (&'a str, usize, &'a [u8], &'a [u8], End<u32>);
    let cases: Vec<Case> = vec![
        ("GET", 8, b"5", b"hello", ok(1, 200)),
        ("GET", 8, b"10", b"hello", malformed(1)),
        ("GET", 8, b"3", b"hello", malformed(1)),
        ("GET", 8, b"5", b"", malformed(1)),
        ("GET", 8, b"5x", b"hello", malformed(1)),
        ("GET", 8, b"", b"", malformed(1)),
        ("HEAD", 8, b"10", b"", ok(1, 200)),
        ("GET", 9, b"10", b"", ok(1, 204)),
        ("GET", 11, b"10", b"", ok(1, 304)),
    ];
    for (method, status, len, body, want) in cases {
        let r = Request::new(method, "http", "h", "/", &[], b"");
        let input = with_length(1, status, len, body);
        // Whole and split at every byte: the same end.
        for cut in 0..=input.len() {
            let mut c: Client<u32> = Client::new(cfg(1));
            c.open(std::slice::from_ref(&r), 0, 1);
            let mut got = Vec::new();
            let mut carry = input[..cut].to_vec();
            let used = c
                .feed(&carry, std::slice::from_ref(&r), None, &mut |e| got.push(e))
                .unwrap();
            carry.drain(..used);
            carry.extend_from_slice(&input[cut..]);
            let used = c
                .feed(&carry, std::slice::from_ref(&r), None, &mut |e| got.push(e))
                .unwrap();
            assert_eq!(used, carry.len());
            assert_eq!(
                got,
                vec![want],
                "{method} {status} {len:?} {body:?} cut {cut}"
            );
        }
    }
}

/// DATA beyond the stream window the client announced: a stream error (FLOW_CONTROL_ERROR),
/// found from the window itself, not from frame sizes.
#[test]
fn data_beyond_the_announced_windows_is_a_flow_control_error() {
    let r = get();
    let small = Config {
        max_streams: 2,
        stream_window: 1000,
        conn_window: 65_535,
        max_header_list: MAX_HEADER_LIST,
    };
    let mut ack = Vec::new();
    frame::write_settings_ack(&mut ack);
    let data = |stream: u32, n: usize| {
        let mut v = response(stream, 8, b"");
        v.clear();
        let mut block = Vec::new();
        encode_indexed(&mut block, 8);
        write_headers(&mut v, stream, &block, false, 16_384);
        write_data_header(&mut v, stream, n, false);
        v.extend(std::iter::repeat_n(0u8, n));
        v
    };
    // The stream's window (1,000 once our SETTINGS are acknowledged): 1,001 bytes reset it.
    let mut c: Client<u32> = Client::new(small);
    c.open(std::slice::from_ref(&r), 0, 1);
    c.open(std::slice::from_ref(&r), 0, 2);
    c.out.clear();
    let mut input = ack.clone();
    input.extend_from_slice(&data(1, 1000));
    input.extend_from_slice(&data(3, 1001));
    assert_eq!(
        ends(&mut c, &input, &r, None),
        vec![End::Malformed {
            tag: 2,
            code: ErrorCode::FlowControl
        }]
    );
    let f = frames(&c.out);
    assert!(f.iter().any(|f| f.0 == Kind::RstStream && f.2 == 3));
    // Before the acknowledgement the peer may still go by the default 65,535.
    let mut c: Client<u32> = Client::new(small);
    c.open(std::slice::from_ref(&r), 0, 1);
    assert_eq!(ends(&mut c, &data(1, 5000), &r, None), vec![]);
    // The connection's window cannot be passed this way: WINDOW_UPDATEs go out at half of it
    // and a frame is at most 16 KiB, a quarter of the smallest (65,535); the check stands for
    // the case all the same (`Session::check_window`).
}

//! Session tests: the opening, SETTINGS and PING replies, header blocks across CONTINUATION,
//! receive flow control with known WINDOW_UPDATE amounts, stream errors that keep the connection,
//! connection errors that end it, and the same events for any split of the input.

use super::*;
use crate::h2::frame::{write_data_header, write_headers, write_ping, write_settings, Kind};
use crate::h2::hpack::{encode_indexed, encode_literal, Indexing};
use crate::h2::parse_frame;

fn ev(e: Event<'_>) -> String {
    match e {
        Event::Header {
            stream,
            name,
            value,
        } => format!(
            "header {stream} {}: {}",
            String::from_utf8_lossy(name),
            String::from_utf8_lossy(value)
        ),
        Event::Data {
            stream,
            data,
            end_stream,
        } => format!("data {stream} {} end={end_stream}", data.len()),
        e => format!("{e:?}"),
    }
}

fn frames(out: &[u8]) -> Vec<String> {
    let mut v = Vec::new();
    let mut at = 0;
    while let Some((f, n)) = parse_frame(&out[at..], 1 << 24).unwrap() {
        v.push(format!("{f:?}"));
        at += n;
    }
    assert_eq!(at, out.len());
    v
}

/// Feeds `input` as one socket read.
fn feed_all(s: &mut Session, input: &[u8]) -> (Vec<String>, Vec<u8>, Result<usize, H2Error>) {
    s.commit_credit();
    let mut out = Vec::new();
    let mut events = Vec::new();
    let r = s.feed(input, &mut out, &mut |e| events.push(ev(e)));
    (events, out, r)
}

fn client() -> Session {
    let local = Settings {
        enable_push: false,
        initial_window_size: 65_535,
        ..Settings::default()
    };
    Session::new(local, 65_535)
}

#[test]
fn the_opening_announces_settings_and_opens_the_connection_window() {
    let local = Settings {
        enable_push: false,
        initial_window_size: (1 << 30) - 1,
        ..Settings::default()
    };
    let s = Session::new(local, (1 << 30) - 1);
    let mut out = Vec::new();
    s.start(&mut out);
    assert_eq!(
        frames(&out),
        vec![
            format!(
                "{:?}",
                Frame::Settings {
                    ack: false,
                    params: &[0, 2, 0, 0, 0, 0, 0, 4, 0x3f, 0xff, 0xff, 0xff]
                }
            ),
            format!(
                "{:?}",
                Frame::WindowUpdate {
                    stream: 0,
                    increment: (1 << 30) - 1 - 65_535
                }
            )
        ]
    );
}

#[test]
fn settings_and_pings_are_answered() {
    let mut s = client();
    let mut input = Vec::new();
    write_settings(&mut input, &[(3, 100), (4, 1000)]);
    write_ping(&mut input, false, *b"pingpong");
    let (events, out, r) = feed_all(&mut s, &input);
    assert_eq!(r, Ok(input.len()));
    assert_eq!(events, vec!["PeerSettings { window_delta: -64535 }"]);
    assert_eq!(s.peer.max_concurrent_streams, Some(100));
    assert!(s.peer_settings_seen);
    assert_eq!(
        frames(&out),
        vec![
            "Settings { ack: true, params: [] }".to_string(),
            format!(
                "{:?}",
                Frame::Ping {
                    ack: true,
                    data: *b"pingpong"
                }
            )
        ]
    );
}

fn response_block() -> Vec<u8> {
    let mut b = Vec::new();
    encode_indexed(&mut b, 8); // :status 200
    encode_literal(&mut b, 28, b"", b"5", Indexing::Without); // content-length
    b
}

#[test]
fn a_header_block_across_continuations_decodes_once_whole() {
    let mut s = client();
    let block = response_block();
    let mut input = Vec::new();
    write_headers(&mut input, 1, &block, false, 2); // HEADERS + CONTINUATIONs of 2 bytes
    write_data_header(&mut input, 1, 5, true);
    input.extend_from_slice(b"hello");
    let (events, _, r) = feed_all(&mut s, &input);
    assert_eq!(r, Ok(input.len()));
    assert_eq!(
        events,
        vec![
            "header 1 :status: 200",
            "header 1 content-length: 5",
            "HeadersEnd { stream: 1, end_stream: false, too_large: false }",
            "data 1 5 end=true"
        ]
    );
    // Received: the block's bytes; decoded: (7 + 3 + 32) + (14 + 1 + 32), as h2load counts.
    assert_eq!(s.header_bytes_received, block.len() as u64);
    assert_eq!(s.header_bytes_decoded, 42 + 47);
}

#[test]
fn a_frame_inside_a_header_block_ends_the_connection() {
    let mut s = client();
    let block = response_block();
    let mut input = Vec::new();
    write_headers(&mut input, 1, &block, false, 2);
    // Cut after the HEADERS frame (9 + 2 bytes) and slip a PING in.
    let mut bad = input[..11].to_vec();
    write_ping(&mut bad, false, [0; 8]);
    let (_, _, r) = feed_all(&mut s, &bad);
    assert_eq!(r.unwrap_err().code, ErrorCode::Protocol);
    // A broken HPACK block is a COMPRESSION_ERROR.
    let mut s = client();
    let mut bad = Vec::new();
    write_headers(&mut bad, 1, &[0x80], true, 16_384);
    assert_eq!(
        feed_all(&mut s, &bad).2.unwrap_err().code,
        ErrorCode::Compression
    );
}

#[test]
fn received_data_is_credited_back_at_half_a_window() {
    let mut s = client();
    let mut input = Vec::new();
    for _ in 0..3 {
        write_data_header(&mut input, 3, 12_000, false);
        input.extend(std::iter::repeat_n(b'x', 12_000));
    }
    let (events, out, r) = feed_all(&mut s, &input);
    assert_eq!(r, Ok(input.len()));
    assert_eq!(events, vec!["data 3 12000 end=false"; 3]);
    // 24,000 < 65,535 / 2 <= 36,000: after the third frame, one update for the connection and
    // one for the stream, 36,000 each.
    assert_eq!(
        frames(&out),
        vec![
            "WindowUpdate { stream: 0, increment: 36000 }",
            "WindowUpdate { stream: 3, increment: 36000 }"
        ]
    );
    // The stream ends: its tally is dropped, the connection's goes on (10,000 < 32,767).
    let mut end = Vec::new();
    write_data_header(&mut end, 3, 10_000, true);
    end.extend(std::iter::repeat_n(b'x', 10_000));
    let (_, out, _) = feed_all(&mut s, &end);
    assert!(out.is_empty());
    assert!(s.stream_unacked.is_empty());
    assert_eq!(s.conn_unacked, 10_000);
}

#[test]
fn a_stream_error_resets_the_stream_and_the_connection_goes_on() {
    let mut s = client();
    let mut input = Vec::new();
    // PRIORITY of 4 bytes on stream 3: FRAME_SIZE_ERROR on that stream only.
    frame::write_header(&mut input, 4, Kind::Priority, 0, 3);
    input.extend_from_slice(&[0, 0, 0, 1]);
    write_ping(&mut input, false, [1; 8]);
    let (events, out, r) = feed_all(&mut s, &input);
    assert_eq!(r, Ok(input.len()));
    assert_eq!(events, vec!["StreamError { stream: 3, code: FrameSize }"]);
    assert_eq!(
        frames(&out),
        vec![
            "RstStream { stream: 3, code: FrameSize }".to_string(),
            format!(
                "{:?}",
                Frame::Ping {
                    ack: true,
                    data: [1; 8]
                }
            )
        ]
    );
}

#[test]
fn any_split_of_the_input_gives_the_same_events_and_replies() {
    let mut input = Vec::new();
    write_settings(&mut input, &[(4, 100_000)]);
    write_headers(&mut input, 1, &response_block(), false, 3);
    write_data_header(&mut input, 1, 5, true);
    input.extend_from_slice(b"hello");
    write_ping(&mut input, false, [9; 8]);
    let (whole_events, whole_out, r) = feed_all(&mut client(), &input);
    assert_eq!(r, Ok(input.len()));
    for cut in 0..=input.len() {
        let mut s = client();
        let (mut events, mut out, r) = feed_all(&mut s, &input[..cut]);
        let used = r.unwrap();
        let (more, out2, r2) = feed_all(&mut s, &input[used..]);
        assert_eq!(r2, Ok(input.len() - used), "cut {cut}");
        events.extend(more);
        out.extend(out2);
        assert_eq!(events, whole_events, "cut {cut}");
        assert_eq!(out, whole_out, "cut {cut}");
    }
}

/// DATA past a window is found from the credit the peer could have seen: what one read holds
/// was sent before any WINDOW_UPDATE written while reading it, so more than a window in one
/// read is a FLOW_CONTROL_ERROR (the stream's, or the connection's), while the same bytes over
/// two reads, the credit written between them, are within the windows.
#[test]
fn data_past_a_window_is_found_from_the_credit_the_peer_could_have_seen() {
    let burst = |stream: u32, frames: usize| {
        let mut v = Vec::new();
        for _ in 0..frames {
            write_data_header(&mut v, stream, 16_000, false);
            v.extend(std::iter::repeat_n(b'x', 16_000));
        }
        v
    };
    let session = |stream_window: u32, conn_window: u32| {
        let local = Settings {
            initial_window_size: stream_window,
            ..Settings::default()
        };
        Session::new(local, conn_window)
    };
    // The stream's window (65,535): five frames in one read pass it.
    let mut s = session(65_535, 1 << 20);
    let (events, out, r) = feed_all(&mut s, &burst(1, 5));
    assert_eq!(r.map_err(|e| e.code), Ok(5 * 16_009));
    assert_eq!(
        events.last().unwrap(),
        "StreamError { stream: 1, code: FlowControl }"
    );
    assert!(frames(&out)
        .iter()
        .any(|f| f.starts_with("RstStream { stream: 1")));
    // Four in one read (48,000 credited during it), three more in the next: 112,000 bytes,
    // within the 65,535 + 48,000 the peer could count on then.
    let mut s = session(65_535, 1 << 20);
    for n in [4, 3] {
        let (events, _, r) = feed_all(&mut s, &burst(1, n));
        assert!(r.is_ok());
        assert!(events.iter().all(|e| e.starts_with("data")), "{events:?}");
    }
    // The connection's window (65,535) across streams, each within its own: a connection error.
    let mut s = session(1 << 20, 65_535);
    let mut input = burst(1, 3);
    input.extend_from_slice(&burst(3, 2));
    let (_, _, r) = feed_all(&mut s, &input);
    let e = r.unwrap_err();
    assert_eq!((e.code, e.stream), (ErrorCode::FlowControl, None));
}

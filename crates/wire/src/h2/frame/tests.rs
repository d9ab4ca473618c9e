//! Frame codec tests: known frames (RFC 9113's layouts, written out byte by byte), every error
//! case of §6 with its code and scope, writers read back by the parser, and a stream of frames
//! split at every byte boundary parsing the same.

use super::*;

fn raw(len: u32, kind: u8, fl: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    assert_eq!(len as usize, payload.len());
    let l = len.to_be_bytes();
    let mut v = vec![l[1], l[2], l[3], kind, fl];
    v.extend_from_slice(&stream.to_be_bytes());
    v.extend_from_slice(payload);
    v
}

fn one(bytes: &[u8]) -> Frame<'_> {
    let (f, n) = parse_frame(bytes, 16_384).unwrap().unwrap();
    assert_eq!(n, bytes.len());
    f
}

#[test]
fn known_frames_parse_to_their_fields() {
    // DATA, padded: pad length 2, "hello", 2 bytes of padding; flow control counts all 8.
    let b = raw(8, 0, flags::PADDED | flags::END_STREAM, 3, b"\x02hello\0\0");
    assert_eq!(
        one(&b),
        Frame::Data {
            stream: 3,
            end_stream: true,
            data: b"hello",
            flow_len: 8
        }
    );
    // HEADERS with priority (5 bytes skipped) and END_HEADERS; the stream bit's R is masked.
    let b = raw(
        7,
        1,
        flags::PRIORITY | flags::END_HEADERS,
        0x8000_0005,
        b"\0\0\0\x01\x10\x82\x84",
    );
    assert_eq!(
        one(&b),
        Frame::Headers {
            stream: 5,
            end_stream: false,
            end_headers: true,
            block: b"\x82\x84"
        }
    );
    let b = raw(4, 3, 0, 7, &[0, 0, 0, 8]);
    assert_eq!(
        one(&b),
        Frame::RstStream {
            stream: 7,
            code: ErrorCode::Cancel
        }
    );
    let b = raw(8, 6, flags::ACK, 0, b"12345678");
    assert_eq!(
        one(&b),
        Frame::Ping {
            ack: true,
            data: *b"12345678"
        }
    );
    let b = raw(10, 7, 0, 0, b"\0\0\0\x09\0\0\0\x0bhi");
    assert_eq!(
        one(&b),
        Frame::GoAway {
            last_stream: 9,
            code: ErrorCode::EnhanceYourCalm,
            debug: b"hi"
        }
    );
    let b = raw(4, 8, 0, 0, &[0x80, 0, 0x10, 0]);
    assert_eq!(
        one(&b),
        Frame::WindowUpdate {
            stream: 0,
            increment: 0x1000
        }
    );
    let b = raw(12, 4, 0, 0, b"\0\x03\0\0\0\x64\0\x04\0\x01\0\0");
    assert_eq!(
        one(&b),
        Frame::Settings {
            ack: false,
            params: b"\0\x03\0\0\0\x64\0\x04\0\x01\0\0"
        }
    );
    let b = raw(1, 0xfa, 0xff, 9, b"x");
    assert_eq!(
        one(&b),
        Frame::Unknown {
            kind: 0xfa,
            stream: 9
        }
    );
}

#[test]
fn every_malformed_frame_gets_its_code_and_scope() {
    // (bytes, code, stream error on this stream, or connection error)
    let cases: Vec<(Vec<u8>, ErrorCode, Option<u32>)> = vec![
        (raw(1, 0, 0, 0, b"x"), ErrorCode::Protocol, None),
        (
            raw(3, 0, flags::PADDED, 1, b"\x05ab"),
            ErrorCode::Protocol,
            None,
        ),
        (raw(0, 0, flags::PADDED, 1, b""), ErrorCode::FrameSize, None),
        (
            raw(1, 1, flags::END_HEADERS, 0, b"\x82"),
            ErrorCode::Protocol,
            None,
        ),
        (
            raw(5, 1, flags::PRIORITY, 3, b"\0\0\0\x03\x10"),
            ErrorCode::Protocol,
            Some(3),
        ),
        (
            raw(4, 2, 0, 3, b"\0\0\0\x01"),
            ErrorCode::FrameSize,
            Some(3),
        ),
        (
            raw(5, 2, 0, 0, b"\0\0\0\x01\x10"),
            ErrorCode::Protocol,
            None,
        ),
        (raw(3, 3, 0, 1, b"\0\0\0"), ErrorCode::FrameSize, None),
        (raw(4, 3, 0, 0, b"\0\0\0\0"), ErrorCode::Protocol, None),
        (
            raw(6, 4, 0, 1, b"\0\x03\0\0\0\x64"),
            ErrorCode::Protocol,
            None,
        ),
        (
            raw(6, 4, flags::ACK, 0, b"\0\x03\0\0\0\x64"),
            ErrorCode::FrameSize,
            None,
        ),
        (raw(5, 4, 0, 0, b"\0\x03\0\0\0"), ErrorCode::FrameSize, None),
        (raw(7, 6, 0, 0, b"1234567"), ErrorCode::FrameSize, None),
        (raw(8, 6, 0, 1, b"12345678"), ErrorCode::Protocol, None),
        (
            raw(7, 7, 0, 0, b"\0\0\0\0\0\0\0"),
            ErrorCode::FrameSize,
            None,
        ),
        (
            raw(8, 7, 0, 1, b"\0\0\0\0\0\0\0\0"),
            ErrorCode::Protocol,
            None,
        ),
        (raw(3, 8, 0, 1, b"\0\0\x01"), ErrorCode::FrameSize, None),
        (raw(4, 8, 0, 0, b"\0\0\0\0"), ErrorCode::Protocol, None),
        (raw(4, 8, 0, 5, b"\x80\0\0\0"), ErrorCode::Protocol, Some(5)),
        (raw(1, 9, 0, 0, b"x"), ErrorCode::Protocol, None),
        (raw(3, 5, 0, 1, b"\0\0\x02"), ErrorCode::FrameSize, None),
    ];
    for (i, (b, code, stream)) in cases.iter().enumerate() {
        let e = parse_frame(b, 16_384).unwrap_err();
        assert_eq!((e.code, e.stream), (*code, *stream), "case {i}: {e}");
    }
    // Longer than the advertised maximum: refused from the header alone, before the payload.
    let big = raw(16_385, 0, 0, 1, &[0; 16_385]);
    assert_eq!(
        parse_frame(&big[..9], 16_384).unwrap_err().code,
        ErrorCode::FrameSize
    );
    assert!(parse_frame(&big, 1 << 20).unwrap().is_some());
}

#[test]
fn writers_read_back_and_split_headers_into_continuations() {
    let mut out = Vec::new();
    write_settings(&mut out, &[(3, 100), (4, 1 << 30)]);
    write_settings_ack(&mut out);
    write_ping(&mut out, false, *b"abcdefgh");
    write_window_update(&mut out, 0, (1 << 30) - 65_535);
    write_rst_stream(&mut out, 9, ErrorCode::Cancel);
    write_goaway(&mut out, 7, ErrorCode::NoError, b"bye");
    let block: Vec<u8> = (0..=40u8).collect();
    write_headers(&mut out, 11, &block, true, 16);
    write_data_header(&mut out, 11, 3, true);
    out.extend_from_slice(b"abc");

    let mut frames = Vec::new();
    let mut at = 0;
    while let Some((f, n)) = parse_frame(&out[at..], 16_384).unwrap() {
        frames.push(f);
        at += n;
    }
    assert_eq!(at, out.len());
    assert_eq!(
        frames,
        vec![
            Frame::Settings {
                ack: false,
                params: &[0, 3, 0, 0, 0, 100, 0, 4, 0x40, 0, 0, 0]
            },
            Frame::Settings {
                ack: true,
                params: &[]
            },
            Frame::Ping {
                ack: false,
                data: *b"abcdefgh"
            },
            Frame::WindowUpdate {
                stream: 0,
                increment: (1 << 30) - 65_535
            },
            Frame::RstStream {
                stream: 9,
                code: ErrorCode::Cancel
            },
            Frame::GoAway {
                last_stream: 7,
                code: ErrorCode::NoError,
                debug: b"bye"
            },
            // 41 bytes in frames of at most 16: HEADERS (END_STREAM) + 2 CONTINUATIONs, the last
            // one ending the block.
            Frame::Headers {
                stream: 11,
                end_stream: true,
                end_headers: false,
                block: &block[..16]
            },
            Frame::Continuation {
                stream: 11,
                end_headers: false,
                block: &block[16..32]
            },
            Frame::Continuation {
                stream: 11,
                end_headers: true,
                block: &block[32..]
            },
            Frame::Data {
                stream: 11,
                end_stream: true,
                data: b"abc",
                flow_len: 3
            },
        ]
    );
}

#[test]
fn a_stream_of_frames_split_at_every_byte_parses_the_same() {
    let mut out = Vec::new();
    write_settings(&mut out, &[(4, 1 << 20)]);
    write_headers(&mut out, 1, b"\x82\x86\x84", false, 16_384);
    write_data_header(&mut out, 1, 5, true);
    out.extend_from_slice(b"hello");
    write_ping(&mut out, true, [7; 8]);
    let whole = {
        let mut v = Vec::new();
        let mut at = 0;
        while let Some((f, n)) = parse_frame(&out[at..], 16_384).unwrap() {
            v.push(format!("{f:?}"));
            at += n;
        }
        v
    };
    assert_eq!(whole.len(), 4);
    for cut in 0..=out.len() {
        // The reader holds the first `cut` bytes, parses what it can, then gets the rest.
        let mut buf = out[..cut].to_vec();
        let mut got = Vec::new();
        let mut at = 0;
        while let Some((f, n)) = parse_frame(&buf[at..], 16_384).unwrap() {
            got.push(format!("{f:?}"));
            at += n;
        }
        buf.drain(..at);
        buf.extend_from_slice(&out[cut..]);
        let mut at = 0;
        while let Some((f, n)) = parse_frame(&buf[at..], 16_384).unwrap() {
            got.push(format!("{f:?}"));
            at += n;
        }
        assert_eq!(at, buf.len(), "cut {cut}");
        assert_eq!(got, whole, "cut {cut}");
    }
}

#[test]
fn error_codes_round_trip_and_are_named() {
    for c in 0..=0xe {
        let e = ErrorCode::from_u32(c);
        assert_eq!(e.to_u32(), c);
    }
    assert_eq!(ErrorCode::from_u32(0x1).name(), "PROTOCOL_ERROR");
    assert_eq!(ErrorCode::from_u32(0xe), ErrorCode::Other(0xe));
}

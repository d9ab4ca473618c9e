//! Frame codec tests: known frames byte by byte, each frame type written and read back, the
//! errors of §7 with their codes, DATA passed through without buffering, unknown frames skipped,
//! and a sequence of every frame type split at every byte boundary decoding the same.

use super::*;

/// Events as text, DATA chunks joined per frame so that splits compare equal.
#[derive(Default)]
struct Seen {
    seen: Vec<String>,
    data: Option<Vec<u8>>,
}

impl Seen {
    fn event(&mut self, ev: Event<'_>) {
        match ev {
            Event::Data { len } => {
                self.payload();
                self.seen.push(format!("data {len}"));
                self.data = Some(Vec::new());
            }
            Event::DataChunk(c) => self.data.as_mut().unwrap().extend_from_slice(c),
            Event::Frame(f) => {
                self.payload();
                self.seen.push(format!("{f:?}"));
            }
        }
    }

    fn payload(&mut self) {
        if let Some(d) = self.data.take() {
            self.seen.push(format!("payload {d:?}"));
        }
    }

    fn done(mut self) -> Vec<String> {
        self.payload();
        self.seen
    }
}

/// Everything `dec` yields from `parts` fed in turn (carrying what it did not use); and the
/// error, if any.
fn run(dec: &mut FrameDecoder, parts: &[&[u8]]) -> (Vec<String>, Option<H3Error>) {
    let mut seen = Seen::default();
    let mut carry = Vec::new();
    for p in parts {
        carry.extend_from_slice(p);
        loop {
            match dec.next(&carry) {
                Err(e) => return (seen.seen, Some(e)),
                Ok((n, ev)) => {
                    let more = ev.is_some();
                    if let Some(ev) = ev {
                        seen.event(ev);
                    }
                    carry.drain(..n);
                    if !more {
                        break;
                    }
                }
            }
        }
    }
    (seen.done(), None)
}

fn all_frames() -> Vec<u8> {
    let mut b = Vec::new();
    write_settings(
        &Settings {
            qpack_max_table_capacity: 4096,
            max_field_section_size: Some(16_384),
            qpack_blocked_streams: 16,
        },
        &mut b,
    );
    write_max_push_id(1000, &mut b);
    // A grease frame (0x1f * 2 + 0x21) with a payload, skipped.
    write_header(0x5f, 3, &mut b);
    b.extend_from_slice(b"xyz");
    write_headers(b"\0\0\xd1\xd7", &mut b);
    write_data(b"hello", &mut b);
    write_data(b"", &mut b);
    write_data(&[7; 300], &mut b);
    write_push_promise(3, b"\0\0\xd9", &mut b);
    write_cancel_push(494_878_333, &mut b);
    write_headers(b"", &mut b);
    write_goaway(1 << 40, &mut b);
    b
}

#[test]
fn known_frames_decode_to_their_fields() {
    let mut d = FrameDecoder::new(1024);
    // HEADERS (type 1, length 4) and its field section.
    assert_eq!(
        d.next(b"\x01\x04\0\0\xd1\xd7rest").unwrap(),
        (6, Some(Event::Frame(Frame::Headers(b"\0\0\xd1\xd7"))))
    );
    // GOAWAY with a 2-byte varint, MAX_PUSH_ID, CANCEL_PUSH.
    assert_eq!(
        d.next(b"\x07\x02\x7b\xbd").unwrap(),
        (4, Some(Event::Frame(Frame::GoAway(15_293))))
    );
    assert_eq!(
        d.next(b"\x0d\x01\x25").unwrap(),
        (3, Some(Event::Frame(Frame::MaxPushId(37))))
    );
    assert_eq!(
        d.next(b"\x03\x01\x00").unwrap(),
        (3, Some(Event::Frame(Frame::CancelPush(0))))
    );
    // PUSH_PROMISE: push id 5, then the field section.
    assert_eq!(
        d.next(b"\x05\x03\x05\0\0").unwrap(),
        (
            5,
            Some(Event::Frame(Frame::PushPromise {
                push_id: 5,
                block: b"\0\0"
            }))
        )
    );
    // SETTINGS, empty.
    assert_eq!(
        d.next(b"\x04\x00").unwrap(),
        (2, Some(Event::Frame(Frame::Settings(Settings::default()))))
    );
}

#[test]
fn every_frame_type_round_trips() {
    let frames = [
        Frame::Headers(b"\0\0\x51\x01a"),
        Frame::Headers(b""),
        Frame::CancelPush(varint::MAX),
        Frame::Settings(Settings {
            qpack_max_table_capacity: 220,
            max_field_section_size: None,
            qpack_blocked_streams: 1,
        }),
        Frame::PushPromise {
            push_id: 16_384,
            block: b"\0\0\xc1",
        },
        Frame::GoAway(0),
        Frame::MaxPushId(63),
    ];
    for f in frames {
        let mut b = Vec::new();
        write_frame(&f, &mut b);
        let mut d = FrameDecoder::new(1024);
        assert_eq!(
            d.next(&b).unwrap(),
            (b.len(), Some(Event::Frame(f))),
            "{f:?}"
        );
        assert!(d.at_frame_boundary());
    }
    let mut b = Vec::new();
    write_data(b"body", &mut b);
    let mut d = FrameDecoder::new(0);
    assert_eq!(d.next(&b).unwrap(), (2, Some(Event::Data { len: 4 })));
    assert!(!d.at_frame_boundary());
    assert_eq!(
        d.next(&b[2..]).unwrap(),
        (4, Some(Event::DataChunk(b"body")))
    );
    assert!(d.at_frame_boundary());
    assert_eq!(d.next(&[]).unwrap(), (0, None));
}

#[test]
fn data_streams_through_without_waiting_for_the_whole_payload() {
    // A 1 GiB DATA frame (more than the test holds) with a decoder that takes 16-byte frames:
    // the payload comes out as it arrives.
    let mut d = FrameDecoder::new(16);
    let mut b = Vec::new();
    write_data_header(1 << 30, &mut b);
    assert_eq!(
        d.next(&b).unwrap(),
        (b.len(), Some(Event::Data { len: 1 << 30 }))
    );
    let chunk = [1u8; 4096];
    for _ in 0..10 {
        assert_eq!(
            d.next(&chunk).unwrap(),
            (4096, Some(Event::DataChunk(&chunk[..])))
        );
    }
    assert!(!d.at_frame_boundary());
    // The frame's end inside a read: the rest of the read is the next frame.
    let mut d = FrameDecoder::new(16);
    let mut b = Vec::new();
    write_data(b"ab", &mut b);
    write_goaway(4, &mut b);
    assert_eq!(d.next(&b).unwrap(), (2, Some(Event::Data { len: 2 })));
    assert_eq!(d.next(&b[2..]).unwrap(), (2, Some(Event::DataChunk(b"ab"))));
    assert_eq!(
        d.next(&b[4..]).unwrap(),
        (3, Some(Event::Frame(Frame::GoAway(4))))
    );
}

#[test]
fn unknown_frames_are_skipped_as_they_arrive() {
    let mut d = FrameDecoder::new(16);
    // A reserved type (0x21) announcing 1000 bytes, far above the limit: skipped, not refused.
    let mut b = Vec::new();
    write_header(0x21, 1000, &mut b);
    b.extend_from_slice(&[0; 600]);
    assert_eq!(d.next(&b).unwrap(), (b.len(), None));
    let mut rest = vec![0; 400];
    write_max_push_id(9, &mut rest);
    assert_eq!(
        d.next(&rest).unwrap(),
        (rest.len(), Some(Event::Frame(Frame::MaxPushId(9))))
    );
}

#[test]
fn broken_frames_are_errors_with_their_codes() {
    let code = |b: &[u8], max| FrameDecoder::new(max).next(b).unwrap_err().code;
    // HEADERS above the limit: refused from its header, before the payload arrives.
    assert_eq!(code(b"\x01\x40\x11", 16), ErrorCode::ExcessiveLoad);
    assert_eq!(code(b"\x04\x11", 16), ErrorCode::ExcessiveLoad);
    // Fields short of or beyond a payload's length.
    assert_eq!(code(b"\x07\x00", 16), ErrorCode::Frame);
    assert_eq!(code(b"\x07\x01\x40", 16), ErrorCode::Frame);
    assert_eq!(code(b"\x07\x02\x01\x02", 16), ErrorCode::Frame);
    assert_eq!(code(b"\x03\x02\x01\x02", 16), ErrorCode::Frame);
    assert_eq!(code(b"\x0d\x00", 16), ErrorCode::Frame);
    assert_eq!(code(b"\x05\x00", 16), ErrorCode::Frame);
    assert_eq!(code(b"\x04\x01\x01", 16), ErrorCode::Frame);
    // HTTP/2's frame types and settings.
    for t in [2u8, 6, 8, 9] {
        assert_eq!(code(&[t, 0], 16), ErrorCode::FrameUnexpected, "{t}");
    }
    assert_eq!(code(b"\x04\x02\x03\x00", 16), ErrorCode::Settings);
    // An incomplete frame is not an error: the decoder waits.
    for b in [&b"\x01"[..], b"\x01\x04\0\0", b"\x40", b"\x07\x02\x40"] {
        assert_eq!(FrameDecoder::new(16).next(b).unwrap(), (0, None), "{b:?}");
    }
}

#[test]
fn a_sequence_split_at_every_byte_decodes_the_same() {
    let b = all_frames();
    let (whole, err) = run(&mut FrameDecoder::new(1024), &[&b]);
    assert_eq!(err, None);
    assert_eq!(whole.len(), 13, "{whole:#?}");
    assert_eq!(whole[2], "Headers([0, 0, 209, 215])");
    assert_eq!(whole[3], "data 5");
    assert_eq!(whole[4], format!("payload {:?}", b"hello"));
    for cut in 0..=b.len() {
        let mut d = FrameDecoder::new(1024);
        assert_eq!(
            run(&mut d, &[&b[..cut], &b[cut..]]),
            (whole.clone(), None),
            "{cut}"
        );
        assert!(d.at_frame_boundary());
    }
    // And byte by byte.
    let parts: Vec<&[u8]> = b.chunks(1).collect();
    assert_eq!(run(&mut FrameDecoder::new(1024), &parts), (whole, None));
}

#[test]
fn stream_types_and_error_codes_have_the_rfcs_values() {
    for (t, v) in [
        (StreamType::Control, 0),
        (StreamType::Push, 1),
        (StreamType::QpackEncoder, 2),
        (StreamType::QpackDecoder, 3),
        (StreamType::Unknown(0x21), 0x21),
    ] {
        let mut b = Vec::new();
        t.write(&mut b);
        assert_eq!(StreamType::decode(&b), Some((t, 1)));
        assert_eq!(t.to_u64(), v);
    }
    assert_eq!(StreamType::decode(&[0x40]), None);
    for (c, v, n) in [
        (ErrorCode::NoError, 0x100, "H3_NO_ERROR"),
        (ErrorCode::Frame, 0x106, "H3_FRAME_ERROR"),
        (ErrorCode::ExcessiveLoad, 0x107, "H3_EXCESSIVE_LOAD"),
        (ErrorCode::Settings, 0x109, "H3_SETTINGS_ERROR"),
        (ErrorCode::VersionFallback, 0x110, "H3_VERSION_FALLBACK"),
        (
            ErrorCode::QpackDecompressionFailed,
            0x200,
            "QPACK_DECOMPRESSION_FAILED",
        ),
        (
            ErrorCode::QpackEncoderStream,
            0x201,
            "QPACK_ENCODER_STREAM_ERROR",
        ),
        (
            ErrorCode::QpackDecoderStream,
            0x202,
            "QPACK_DECODER_STREAM_ERROR",
        ),
        (ErrorCode::Other(0x21), 0x21, "UNKNOWN_ERROR"),
    ] {
        assert_eq!(c.to_u64(), v);
        assert_eq!(ErrorCode::from_u64(v), c);
        assert_eq!(c.name(), n);
    }
    assert!(ErrorCode::is_grease(0x21) && ErrorCode::is_grease(0x21 + 0x1f * 7));
    assert!(!ErrorCode::is_grease(0x100));
}

#[test]
fn a_reader_keeps_what_a_read_leaves_and_reads_it_next() {
    let b = all_frames();
    let (whole, _) = run(&mut FrameDecoder::new(1024), &[&b]);
    for cut in 0..=b.len() {
        let mut r = FrameReader::default();
        let mut seen = Seen::default();
        for part in [&b[..cut], &b[cut..]] {
            let step = r.read(part, 0, |ev| {
                seen.event(ev);
                Ok(0)
            });
            assert_eq!(step, Ok(0), "{cut}");
        }
        assert_eq!(seen.done(), whole, "{cut}");
        assert!(r.at_boundary(), "{cut}");
    }
    // A read stopped by its callback at the first HEADERS keeps what follows that frame, and
    // the next read starts there.
    let mut headers = Vec::new();
    write_headers(b"\0\0\xd1\xd7", &mut headers);
    let at = b.windows(headers.len()).position(|w| w == headers).unwrap() + headers.len();
    let mut r = FrameReader::default();
    let stop = |ev: Event<'_>| Ok(u8::from(matches!(ev, Event::Frame(Frame::Headers(_)))));
    assert_eq!(r.read(&b, 0, stop), Ok(1));
    assert!(!r.at_boundary());
    assert_eq!(r.take_kept(), b[at..].to_vec());
    assert!(r.at_boundary());
}

//! QPACK tests: the static table against RFC 9204 Appendix A, the Appendix B exchange decoded
//! byte for byte with the decoder-stream bytes the RFC shows, the encoder read back by the
//! decoder, encoder-stream instructions split at every byte, and the errors: bombs, references
//! out of range, capacities above the maximum, broken prefixes.

use super::decoder::{Decoded, Decoder};
use super::encoder::Encoder;
use super::table::{static_index, STATIC};
use super::QpackError;

fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

type Fields = Vec<(String, String)>;

fn decode(d: &mut Decoder, stream: u64, block: &[u8]) -> (Result<Decoded, QpackError>, Fields) {
    let mut f = Vec::new();
    let r = d.decode(stream, block, |n, v| {
        f.push((
            String::from_utf8_lossy(n).into_owned(),
            String::from_utf8_lossy(v).into_owned(),
        ))
    });
    (r, f)
}

fn fields(v: &[(&str, &str)]) -> Fields {
    v.iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

fn table(d: &Decoder) -> Vec<(u64, String, String)> {
    let t = d.table();
    (0..t.insert_count())
        .filter_map(|a| t.get(a).map(|(n, v)| (a, n, v)))
        .map(|(a, n, v)| {
            (
                a,
                String::from_utf8_lossy(n).into_owned(),
                String::from_utf8_lossy(v).into_owned(),
            )
        })
        .collect()
}

#[test]
fn the_static_table_is_the_rfcs() {
    assert_eq!(STATIC.len(), 99);
    for (i, name, value) in [
        (0, ":authority", ""),
        (1, ":path", "/"),
        (15, ":method", "CONNECT"),
        (17, ":method", "GET"),
        (23, ":scheme", "https"),
        (25, ":status", "200"),
        (31, "accept-encoding", "gzip, deflate, br"),
        (52, "content-type", "text/html; charset=utf-8"),
        (63, ":status", "100"),
        (72, "accept-language", ""),
        (
            85,
            "content-security-policy",
            "script-src 'none'; object-src 'none'; base-uri 'none'",
        ),
        (95, "user-agent", ""),
        (98, "x-frame-options", "sameorigin"),
    ] {
        assert_eq!(STATIC[i], (name.as_bytes(), value.as_bytes()), "{i}");
    }
    assert_eq!(static_index(b":status", b"200"), Some((25, true)));
    assert_eq!(static_index(b":status", b"201"), Some((24, false)));
    assert_eq!(static_index(b"x-custom", b""), None);
}

/// RFC 9204 Appendix B, B.1 to B.5 in order, as the decoder sees them (capacity 220, one
/// blocked stream allowed).
#[test]
fn appendix_b_decodes_as_the_rfc_shows() {
    let mut d = Decoder::new(220, 1, None);
    let mut dec_stream = Vec::new();

    // B.1: a literal with a static name reference.
    let (r, f) = decode(&mut d, 0, &unhex("0000 510b 2f69 6e64 6578 2e68 746d 6c"));
    assert_eq!(
        r,
        Ok(Decoded::Done {
            required_insert_count: 0
        })
    );
    assert_eq!(f, fields(&[(":path", "/index.html")]));
    d.ack_section(0, 0, &mut dec_stream);
    assert_eq!(dec_stream, b"");

    // B.2: capacity 220, two inserts with static name references, a section of post-base refs.
    let enc = unhex(
        "3fbd01 c00f 7777 772e 6578 616d 706c 652e 636f 6d c10c 2f73 616d 706c 652f 7061 7468",
    );
    assert_eq!(d.feed_encoder_stream(&enc), Ok(enc.len()));
    assert_eq!(d.table().capacity(), 220);
    assert_eq!(d.table().size(), 106);
    assert_eq!(
        table(&d),
        [
            (0, ":authority".into(), "www.example.com".into()),
            (1, ":path".into(), "/sample/path".into())
        ]
    );
    let (r, f) = decode(&mut d, 4, &unhex("0381 10 11"));
    assert_eq!(
        r,
        Ok(Decoded::Done {
            required_insert_count: 2
        })
    );
    assert_eq!(
        f,
        fields(&[(":authority", "www.example.com"), (":path", "/sample/path")])
    );
    d.ack_section(4, 2, &mut dec_stream);
    assert_eq!(dec_stream, unhex("84"));
    // The acknowledgment covered both inserts: no increment is due.
    d.ack_inserts(&mut dec_stream);
    assert_eq!(dec_stream, unhex("84"));
    dec_stream.clear();

    // B.3: a speculative insert with a literal name; the decoder acknowledges it.
    let enc = unhex("4a63 7573 746f 6d2d 6b65 790c 6375 7374 6f6d 2d76 616c 7565");
    assert_eq!(d.feed_encoder_stream(&enc), Ok(enc.len()));
    assert_eq!(d.table().size(), 160);
    d.ack_inserts(&mut dec_stream);
    assert_eq!(dec_stream, unhex("01"));
    dec_stream.clear();

    // B.4: the section of stream 8 arrives before the Duplicate it needs: blocked; the stream is
    // cancelled.
    let section8 = unhex("0500 80 c1 81");
    let (r, f) = decode(&mut d, 8, &section8);
    assert_eq!(
        r,
        Ok(Decoded::Blocked {
            required_insert_count: 4
        })
    );
    assert_eq!(f, fields(&[]));
    assert_eq!(d.blocked_streams(), 1);
    d.cancel_stream(8, &mut dec_stream);
    assert_eq!(dec_stream, unhex("48"));
    assert_eq!(d.blocked_streams(), 0);
    dec_stream.clear();
    assert_eq!(d.feed_encoder_stream(&unhex("02")), Ok(1));
    assert_eq!(d.table().size(), 217);
    assert_eq!(
        table(&d)[3],
        (3, ":authority".into(), "www.example.com".into())
    );
    // Had it not been cancelled, the section decodes now.
    let (r, f) = decode(&mut d, 8, &section8);
    assert_eq!(
        r,
        Ok(Decoded::Done {
            required_insert_count: 4
        })
    );
    assert_eq!(
        f,
        fields(&[
            (":authority", "www.example.com"),
            (":path", "/"),
            ("custom-key", "custom-value")
        ])
    );

    // B.5: an insert with a dynamic name reference evicts the oldest entry.
    let enc = unhex("810d 6375 7374 6f6d 2d76 616c 7565 32");
    assert_eq!(d.feed_encoder_stream(&enc), Ok(enc.len()));
    assert_eq!(d.table().size(), 215);
    assert_eq!(
        table(&d),
        [
            (1, ":path".into(), "/sample/path".into()),
            (2, "custom-key".into(), "custom-value".into()),
            (3, ":authority".into(), "www.example.com".into()),
            (4, "custom-key".into(), "custom-value2".into()),
        ]
    );
    // Entry 0 is gone: a section referring to it fails.
    let (r, _) = decode(&mut d, 12, &unhex("0500 83"));
    assert_eq!(
        r,
        Err(QpackError::Decompression("reference outside the table"))
    );
}

#[test]
fn encoder_stream_split_at_every_byte_builds_the_same_table() {
    let enc = unhex(
        "3fbd01 c00f 7777 772e 6578 616d 706c 652e 636f 6d c10c 2f73 616d 706c 652f 7061 7468
         4a63 7573 746f 6d2d 6b65 790c 6375 7374 6f6d 2d76 616c 7565 02
         810d 6375 7374 6f6d 2d76 616c 7565 32",
    );
    let mut whole = Decoder::new(220, 0, None);
    assert_eq!(whole.feed_encoder_stream(&enc), Ok(enc.len()));
    for cut in 0..=enc.len() {
        let mut d = Decoder::new(220, 0, None);
        let n = d.feed_encoder_stream(&enc[..cut]).unwrap();
        let mut rest = enc[n..cut].to_vec();
        rest.extend_from_slice(&enc[cut..]);
        assert_eq!(d.feed_encoder_stream(&rest), Ok(rest.len()), "{cut}");
        assert_eq!(table(&d), table(&whole), "{cut}");
    }
}

#[test]
fn what_the_encoder_writes_decodes_to_the_same_fields() {
    let mut fs: Vec<(&[u8], &[u8])> = STATIC.to_vec();
    fs.extend([
        (&b":status"[..], &b"201"[..]),
        (b"x-request-id", b"0123456789abcdef"),
        (b"server", b"barrage"),
        (b"x-empty", b""),
        (b"x-binary", b"\x00\xff\x7f"),
        (b"x-long", &[b'a'; 300][..]),
    ]);
    let mut block = Vec::new();
    Encoder::new().encode(fs.iter().copied(), &mut block);
    let mut d = Decoder::new(0, 0, None);
    let mut got: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    let r = d.decode(0, &block, |n, v| got.push((n.to_vec(), v.to_vec())));
    assert_eq!(
        r,
        Ok(Decoded::Done {
            required_insert_count: 0
        })
    );
    let want: Vec<(Vec<u8>, Vec<u8>)> = fs.iter().map(|(n, v)| (n.to_vec(), v.to_vec())).collect();
    assert_eq!(got, want);
    // A static exact match is one byte; GET with a path is 2 + 1 + 1 + the path.
    let mut b = Vec::new();
    Encoder::new().encode([(&b":method"[..], &b"GET"[..]), (b":path", b"/")], &mut b);
    assert_eq!(b, [0, 0, 0xd1, 0xc1]);
}

#[test]
fn a_remembered_field_line_encodes_as_a_fresh_encoder_would() {
    // Sections that repeat lines, change one (a date, a length), and pass the memo's 16 lines:
    // one encoder over all of them writes what a new encoder writes for each.
    let dates = [
        "Thu, 26 Nov 2026 18:59:00 GMT",
        "Thu, 26 Nov 2026 18:59:01 GMT",
    ];
    let mut one = Encoder::new();
    for round in 0..40usize {
        let len = (round % 20).to_string();
        let name = format!("x-field-{}", round % 19);
        let long = vec![b'z'; 100 + round];
        let fs: Vec<(&[u8], &[u8])> = vec![
            (b":status", b"200"),
            (b"server", b"barrage"),
            (b"date", dates[round / 20].as_bytes()),
            (b"content-type", b"text/plain"),
            (b"content-length", len.as_bytes()),
            (name.as_bytes(), b"v"),
            (b"x-long", &long),
        ];
        let (mut a, mut b) = (Vec::new(), Vec::new());
        one.encode(fs.iter().copied(), &mut a);
        Encoder::new().encode(fs.iter().copied(), &mut b);
        assert_eq!(a, b, "round {round}");
    }
}

#[test]
fn a_decoder_that_remembers_codings_decodes_as_a_fresh_one() {
    // Sections with Huffman-coded values that repeat, change, outnumber the memo, and one whose
    // coding is broken (EOS inside): one decoder over all of them says what a new one says.
    let mut one = Decoder::new(0, 0, None);
    let decode = |d: &mut Decoder, block: &[u8]| {
        let mut got: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        let r = d.decode(0, block, |n, v| got.push((n.to_vec(), v.to_vec())));
        (r, got)
    };
    for round in 0..30usize {
        let date = format!("Thu, 26 Nov 2026 18:59:{:02} GMT", round / 3);
        let name = format!("x-name-{}", round % 11);
        let fs: Vec<(&[u8], &[u8])> = vec![
            (b"date", date.as_bytes()),
            (name.as_bytes(), b"some value"),
            (b"server", b"barrage"),
        ];
        let mut block = Vec::new();
        Encoder::new().encode(fs.iter().copied(), &mut block);
        let (r, got) = decode(&mut one, &block);
        assert_eq!((r, got), decode(&mut Decoder::new(0, 0, None), &block));
        assert_eq!(
            r,
            Ok(Decoded::Done {
                required_insert_count: 0
            })
        );
        // The same name reference with a broken coding (4 bytes of ones: EOS), each round.
        let bad = [0, 0, 0x5f, 0x1d, 0x84, 0xff, 0xff, 0xff, 0xff];
        let (r, _) = decode(&mut one, &bad);
        assert!(r.is_err(), "round {round}: {r:?}");
    }
}

#[test]
fn the_encoder_takes_cancellations_and_refuses_acknowledgments() {
    let mut e = Encoder::new();
    assert_eq!(e.feed_decoder_stream(&unhex("48 7f")), Ok(1));
    assert_eq!(e.feed_decoder_stream(&unhex("7f01")), Ok(2));
    assert!(matches!(
        e.feed_decoder_stream(&unhex("84")),
        Err(QpackError::DecoderStream(_))
    ));
    assert!(matches!(
        e.feed_decoder_stream(&unhex("01")),
        Err(QpackError::DecoderStream(_))
    ));
}

#[test]
fn a_qpack_bomb_is_a_size_error_before_the_section_is_built() {
    // One 4000-byte entry (the most a 4096 table holds), referenced 10 000 times by a
    // 10 002-byte section: 40 MB if built, refused at the 5th line against a 16 KiB limit.
    let mut d = Decoder::new(4096, 0, Some(16 * 1024));
    let mut enc = unhex("3f e1 1f"); // capacity 4096
    enc.extend_from_slice(&[0x41, b'x', 0x7f, 0xa1, 0x1e]); // literal name "x", value 4000 bytes
    enc.extend_from_slice(&[b'v'; 3999 - 31 + 32]);
    let used = d.feed_encoder_stream(&enc);
    assert_eq!(used, Ok(enc.len()));
    assert_eq!(d.table().size(), 4033);
    let mut block = unhex("0200"); // RIC 1, Base 1
    block.extend_from_slice(&[0x80; 10_000]);
    let mut handed = 0usize;
    let r = d.decode(0, &block, |_, _| handed += 1);
    assert_eq!(
        r,
        Err(QpackError::FieldSectionTooLarge { limit: 16 * 1024 })
    );
    assert_eq!(handed, 4);
    assert_eq!(
        r.unwrap_err().code(),
        super::super::ErrorCode::ExcessiveLoad
    );
    // The table is intact: a small section still decodes.
    let (r, f) = decode(&mut d, 4, &unhex("0200 80"));
    assert_eq!(
        r,
        Ok(Decoded::Done {
            required_insert_count: 1
        })
    );
    assert_eq!(f[0].1.len(), 4000);
}

#[test]
fn references_out_of_range_are_errors() {
    let bad = |d: &mut Decoder, s: &str| decode(d, 0, &unhex(s)).0.unwrap_err();
    let mut d = Decoder::new(220, 4, None);
    let dec = |w| QpackError::Decompression(w);
    // Static index 99 does not exist.
    assert_eq!(bad(&mut d, "0000 ff24"), dec("reference outside the table"));
    assert_eq!(
        bad(&mut d, "0000 5f54 00"),
        dec("reference outside the table")
    );
    // A dynamic reference with a Required Insert Count of 0, and relative indices below 0.
    assert_eq!(bad(&mut d, "0000 80"), dec("reference outside the table"));
    assert_eq!(bad(&mut d, "0000 10"), dec("reference outside the table"));
    // Encoded Required Insert Count above 2 * MaxEntries (220 / 32 = 6: 12).
    assert_eq!(
        bad(&mut d, "0d00"),
        dec("Required Insert Count out of range")
    );
    // A truncated section.
    assert_eq!(bad(&mut d, "00"), dec("field section ends inside a line"));
    assert_eq!(
        bad(&mut d, "0000 510b 2f"),
        dec("field section ends inside a line")
    );
    // After one insert: Base below 0, a post-base ref at or past the Required Insert Count, and
    // a Required Insert Count above what the lines need.
    assert_eq!(d.feed_encoder_stream(&unhex("3fbd01 c0 01 61")), Ok(6));
    assert_eq!(bad(&mut d, "0281 10"), dec("Base out of range"));
    assert_eq!(bad(&mut d, "0200 10"), dec("reference outside the table"));
    assert_eq!(
        decode(&mut d, 0, &unhex("0280 10")).1,
        fields(&[(":authority", "a")])
    );
    assert_eq!(
        bad(&mut d, "0200 c1"),
        dec("Required Insert Count is not the one the lines need")
    );
    assert_eq!(
        decode(&mut d, 0, &unhex("0200 80")).1,
        fields(&[(":authority", "a")])
    );
    // No dynamic table allowed: any Required Insert Count but 0 is out of range.
    let mut d0 = Decoder::new(0, 0, None);
    assert_eq!(
        bad(&mut d0, "0100 80"),
        dec("Required Insert Count out of range")
    );
}

#[test]
fn encoder_stream_errors() {
    let err = |cap, s: &str| {
        let mut d = Decoder::new(cap, 0, None);
        d.feed_encoder_stream(&unhex(s)).unwrap_err()
    };
    let e = |w| QpackError::EncoderStream(w);
    // Capacity 221 above the 220 announced.
    assert_eq!(
        err(220, "3fbe01"),
        e("capacity above the announced maximum")
    );
    // An insert into a table of capacity 0, one too large for 220, a reference past the table,
    // a Duplicate of nothing.
    assert_eq!(err(220, "c0 01 61"), e("entry larger than the table"));
    assert_eq!(
        err(220, "3fbd01 c0 7f b0 01"),
        e("entry larger than the table")
    );
    assert_eq!(
        err(220, "3fbd01 ff24 01 61"),
        e("reference outside the table")
    );
    assert_eq!(err(220, "3fbd01 00"), e("reference outside the table"));
    assert_eq!(
        err(220, "3fbd01 80 01 61"),
        e("reference outside the table")
    );
    // Wrong Huffman (EOS inside).
    assert_eq!(
        err(220, "3fbd01 c0 84 ff ff ff ff"),
        e("Huffman coding broken")
    );
    assert_eq!(
        QpackError::EncoderStream("x").code(),
        super::super::ErrorCode::QpackEncoderStream
    );
}

#[test]
fn too_many_blocked_streams_is_an_error() {
    let mut d = Decoder::new(220, 1, None);
    assert_eq!(
        decode(&mut d, 0, &unhex("0200 80")).0,
        Ok(Decoded::Blocked {
            required_insert_count: 1
        })
    );
    // The same stream again is still one.
    assert_eq!(
        decode(&mut d, 0, &unhex("0200 80")).0,
        Ok(Decoded::Blocked {
            required_insert_count: 1
        })
    );
    assert_eq!(
        decode(&mut d, 4, &unhex("0200 80")).0,
        Err(QpackError::Decompression(
            "more streams blocked than allowed"
        ))
    );
    assert_eq!(d.feed_encoder_stream(&unhex("3fbd01 c0 01 61")), Ok(6));
    assert_eq!(
        decode(&mut d, 0, &unhex("0200 80")).0,
        Ok(Decoded::Done {
            required_insert_count: 1
        })
    );
    assert_eq!(d.blocked_streams(), 0);
}

#[test]
fn the_required_insert_count_wraps_around() {
    // Capacity 64: MaxEntries 2, FullRange 4. After 10 inserts of 32-byte entries (the table
    // holds the last 2), RIC 10 is encoded as 10 % 4 + 1 = 3.
    let mut d = Decoder::new(64, 0, None);
    let mut enc = unhex("3f21"); // capacity 64
    for _ in 0..10 {
        enc.extend_from_slice(&unhex("40 00")); // name "", value "": 32 bytes
    }
    assert_eq!(d.feed_encoder_stream(&enc), Ok(enc.len()));
    assert_eq!(d.table().insert_count(), 10);
    let (r, f) = decode(&mut d, 0, &unhex("0300 80 81"));
    assert_eq!(
        r,
        Ok(Decoded::Done {
            required_insert_count: 10
        })
    );
    assert_eq!(f.len(), 2);
    // RIC 9 (encoded 9 % 4 + 1 = 2) with Base 9: entry 8, the oldest held.
    let (r, _) = decode(&mut d, 0, &unhex("0200 80"));
    assert_eq!(
        r,
        Ok(Decoded::Done {
            required_insert_count: 9
        })
    );
}

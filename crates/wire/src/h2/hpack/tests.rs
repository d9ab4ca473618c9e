//! HPACK against RFC 7541 Appendix C (integers; three requests and three responses, raw and
//! Huffman-coded, with the dynamic table's size after each), error cases, and a cross-check with
//! an independent implementation (loona-hpack) both ways.

use super::*;

fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn decode_all(d: &mut Decoder, block: &[u8]) -> Result<Vec<(String, String)>, HpackError> {
    let mut v = Vec::new();
    d.decode(block, |n, val| {
        v.push((
            String::from_utf8(n.to_vec()).unwrap(),
            String::from_utf8(val.to_vec()).unwrap(),
        ))
    })?;
    Ok(v)
}

fn fields(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn integers_of_appendix_c1() {
    let cases: &[(usize, u8, &[u8])] = &[
        (10, 5, &[0x0a]),
        (1337, 5, &[0x1f, 0x9a, 0x0a]),
        (42, 8, &[0x2a]),
    ];
    for &(v, n, bytes) in cases {
        let mut out = Vec::new();
        encode_int(&mut out, v, n, 0);
        assert_eq!(out, bytes, "{v}");
        assert_eq!(decode_int(bytes, n), Ok((v, bytes.len())));
    }
    assert_eq!(decode_int(&[0x1f, 0x9a], 5), Err(HpackError::Truncated));
    assert_eq!(
        decode_int(&[0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f], 5),
        Err(HpackError::IntegerOverflow)
    );
}

const AUTH: (&str, &str) = (":authority", "www.example.com");

fn requests() -> [Vec<(String, String)>; 3] {
    [
        fields(&[
            (":method", "GET"),
            (":scheme", "http"),
            (":path", "/"),
            AUTH,
        ]),
        fields(&[
            (":method", "GET"),
            (":scheme", "http"),
            (":path", "/"),
            AUTH,
            ("cache-control", "no-cache"),
        ]),
        fields(&[
            (":method", "GET"),
            (":scheme", "https"),
            (":path", "/index.html"),
            AUTH,
            ("custom-key", "custom-value"),
        ]),
    ]
}

fn responses() -> [Vec<(String, String)>; 3] {
    let loc = ("location", "https://www.example.com");
    [
        fields(&[
            (":status", "302"),
            ("cache-control", "private"),
            ("date", "Mon, 21 Oct 2013 20:13:21 GMT"),
            loc,
        ]),
        fields(&[
            (":status", "307"),
            ("cache-control", "private"),
            ("date", "Mon, 21 Oct 2013 20:13:21 GMT"),
            loc,
        ]),
        fields(&[
            (":status", "200"),
            ("cache-control", "private"),
            ("date", "Mon, 21 Oct 2013 20:13:22 GMT"),
            loc,
            ("content-encoding", "gzip"),
            (
                "set-cookie",
                "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
            ),
        ]),
    ]
}

#[test]
fn requests_of_appendix_c3_and_c4() {
    let raw = [
        "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
        "8286 84be 5808 6e6f 2d63 6163 6865",
        "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
    ];
    let huff = [
        "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
        "8286 84be 5886 a8eb 1064 9cbf",
        "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
    ];
    for blocks in [raw, huff] {
        let mut d = Decoder::new(4096);
        for ((hex, want), size) in blocks.iter().zip(requests()).zip([57, 110, 164]) {
            assert_eq!(decode_all(&mut d, &unhex(hex)).unwrap(), want, "{hex}");
            assert_eq!(d.table_size(), size, "{hex}");
        }
    }
}

#[test]
fn responses_of_appendix_c5_and_c6_evict_from_a_256_byte_table() {
    let raw = [
        "4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
        "4803 3330 37c1 c0bf",
        "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31",
    ];
    let huff = [
        "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
        "4883 640e ffc1 c0bf",
        "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07",
    ];
    for blocks in [raw, huff] {
        let mut d = Decoder::new(256);
        for ((hex, want), size) in blocks.iter().zip(responses()).zip([222, 222, 215]) {
            assert_eq!(decode_all(&mut d, &unhex(hex)).unwrap(), want, "{hex}");
            assert_eq!(d.table_size(), size, "{hex}");
        }
    }
}

#[test]
fn broken_blocks_are_errors() {
    let mut d = Decoder::new(4096);
    assert_eq!(decode_all(&mut d, &[0x80]), Err(HpackError::BadIndex(0)));
    assert_eq!(decode_all(&mut d, &[0xbe]), Err(HpackError::BadIndex(62)));
    assert_eq!(
        decode_all(&mut d, &[0x41, 0x05, b'a']),
        Err(HpackError::Truncated)
    );
    // A size update above what was announced, and one after a field.
    assert_eq!(
        decode_all(&mut d, &[0x3f, 0xe2, 0x1f]),
        Err(HpackError::TableSizeTooLarge(4097))
    );
    assert_eq!(
        decode_all(&mut d, &[0x82, 0x20]),
        Err(HpackError::LateTableSizeUpdate)
    );
    // A size update to 0 at the start empties the table.
    let mut d = Decoder::new(4096);
    decode_all(
        &mut d,
        &unhex("8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d"),
    )
    .unwrap();
    assert_eq!(d.table_size(), 57);
    assert_eq!(
        decode_all(&mut d, &[0x20, 0x82]).unwrap(),
        fields(&[(":method", "GET")])
    );
    assert_eq!(d.table_size(), 0);
    assert_eq!(decode_all(&mut d, &[0xbe]), Err(HpackError::BadIndex(62)));
}

#[test]
fn our_encodings_decode_here_and_in_loona_hpack() {
    let mut block = Vec::new();
    encode_indexed(&mut block, 2); // :method GET
    encode_literal(&mut block, 4, b"", b"/bytes/1024", Indexing::Incremental); // :path
    encode_literal(
        &mut block,
        0,
        b"x-barrage",
        b"hello world",
        Indexing::Without,
    );
    encode_literal(&mut block, 0, b"authorization", b"secret", Indexing::Never);
    encode_indexed(&mut block, 62); // the :path just added
    let want = fields(&[
        (":method", "GET"),
        (":path", "/bytes/1024"),
        ("x-barrage", "hello world"),
        ("authorization", "secret"),
        (":path", "/bytes/1024"),
    ]);
    assert_eq!(decode_all(&mut Decoder::new(4096), &block).unwrap(), want);
    let theirs: Vec<(String, String)> = loona_hpack::Decoder::new()
        .decode(&block)
        .unwrap()
        .into_iter()
        .map(|(n, v)| (String::from_utf8(n).unwrap(), String::from_utf8(v).unwrap()))
        .collect();
    assert_eq!(theirs, want);
    assert_eq!(static_index(b":path", b"/"), Some((4, true)));
    assert_eq!(static_index(b":path", b"/x"), Some((4, false)));
    assert_eq!(static_index(b"x-barrage", b""), None);
}

#[test]
fn loona_hpacks_encodings_decode_the_same_here_across_blocks() {
    let mut enc = loona_hpack::Encoder::new();
    let mut d = Decoder::new(4096);
    for round in 0..50 {
        let path = format!("/item/{}", round % 7);
        let date = format!("Mon, 21 Oct 2013 20:13:{:02} GMT", round % 60);
        let hs: Vec<(&[u8], &[u8])> = vec![
            (b":status", b"200"),
            (b"content-type", b"text/plain"),
            (b"x-path", path.as_bytes()),
            (b"date", date.as_bytes()),
        ];
        let block = enc.encode(hs.iter().copied());
        let got = decode_all(&mut d, &block).unwrap();
        let want: Vec<(String, String)> = hs
            .iter()
            .map(|(n, v)| {
                (
                    String::from_utf8(n.to_vec()).unwrap(),
                    String::from_utf8(v.to_vec()).unwrap(),
                )
            })
            .collect();
        assert_eq!(got, want, "round {round}");
    }
}

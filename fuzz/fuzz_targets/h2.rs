//! Fuzzes the HTTP/2 codec: frames parse the same whole or split at any byte (no panic, the same
//! frames or the same error), and every header block fragment decodes through HPACK without
//! panicking; what HPACK's Huffman coder writes it reads back.
#![no_main]

use barrage_wire::h2::{hpack, parse_frame, Frame};
use libfuzzer_sys::fuzz_target;

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

fuzz_target!(|data: &[u8]| {
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
});

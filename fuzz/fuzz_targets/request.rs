//! Fuzzes the server's request parser: head parsing (strict framing rules, size limit) and the
//! body that follows, the way the server consumes a stream of pipelined requests.
#![no_main]

use barrage_wire::{header_slots, parse_request_head, BodyDecoder, Framing};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte picks the head size limit, so 431 paths are exercised too.
    let (limit, mut rest) = match data.split_first() {
        Some((&b, rest)) => (64 + usize::from(b) * 64, rest),
        None => return,
    };
    for _ in 0..64 {
        let mut headers = header_slots();
        let head = match parse_request_head(rest, &mut headers, limit) {
            Ok(Some(h)) => h,
            Ok(None) => {
                assert!(
                    rest.len() < limit,
                    "a partial head past the limit must be refused"
                );
                return;
            }
            Err(e) => {
                assert!(matches!(e.status(), 400 | 431));
                return;
            }
        };
        assert!(head.head_len <= rest.len() && head.head_len <= limit);
        assert!(
            head.framing != Framing::Close,
            "requests are never close-delimited"
        );
        let framing = head.framing;
        rest = &rest[head.head_len..];
        let mut body = BodyDecoder::new(framing);
        let mut seen = 0u64;
        match body.decode(rest, |b| seen += b.len() as u64) {
            Ok(used) => {
                assert!(used <= rest.len());
                if let Framing::Length(n) = framing {
                    assert!(seen <= n);
                }
                if !body.is_done() {
                    return;
                }
                rest = &rest[used..];
            }
            Err(_) => return,
        }
    }
});

//! Fuzzes the client's response head parser and body framing.

use barrage_wire::{parse_response_head, BodyDecoder};

pub fn run(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    if let Ok(Some(h)) = parse_response_head(rest, flags & 1 == 1) {
        assert!(h.head_len <= rest.len());
        let mut body = BodyDecoder::new(h.framing);
        if let Ok(used) = body.decode(&rest[h.head_len..], |_| {}) {
            assert!(used <= rest.len() - h.head_len);
            let _ = body.finish_on_eof();
        }
    }
}

//! Fuzzes the chunked decoder: any split of the input decodes the same as the whole input.

use barrage_wire::ChunkedDecoder;

pub fn run(data: &[u8]) {
    let Some((&split, input)) = data.split_first() else {
        return;
    };
    let mut whole = ChunkedDecoder::new();
    let mut a = Vec::new();
    let ra = whole.decode(input, |b| a.extend_from_slice(b));
    let cut = usize::from(split).min(input.len());
    let mut parts = ChunkedDecoder::new();
    let mut b = Vec::new();
    let rb = parts
        .decode(&input[..cut], |x| b.extend_from_slice(x))
        .and_then(|n| {
            if parts.is_done() {
                Ok(n)
            } else {
                parts
                    .decode(&input[cut..], |x| b.extend_from_slice(x))
                    .map(|m| n + m)
            }
        });
    assert_eq!(ra, rb);
    if ra.is_ok() {
        assert_eq!(a, b);
        assert_eq!(whole.is_done(), parts.is_done());
    }
}

//! HPACK decoding of a response header block as nginx sends it (status and content-type from the
//! static table, a Huffman-coded date and server, a content-length literal; nothing indexed):
//! barrage's decoder against loona-hpack, the maintained standalone HPACK crate. This is the
//! measurement behind writing the decoder by hand (`bench/hpack.sh` runs it; RESULTS.md).

use barrage_wire::h2::hpack::{encode_indexed, encode_literal, Decoder, Indexing};
use criterion::{black_box, criterion_group, criterion_main, Criterion};

fn nginx_like_block() -> Vec<u8> {
    let mut b = Vec::new();
    encode_indexed(&mut b, 8); // :status 200
    encode_literal(&mut b, 54, b"", b"nginx/1.22.1", Indexing::Without); // server
    encode_literal(
        &mut b,
        33,
        b"",
        b"Mon, 23 Nov 2026 10:00:00 GMT",
        Indexing::Without,
    ); // date
    encode_literal(&mut b, 31, b"", b"text/plain", Indexing::Without); // content-type
    encode_literal(&mut b, 28, b"", b"1024", Indexing::Without); // content-length
    b
}

fn decode(c: &mut Criterion) {
    let block = nginx_like_block();
    let mut g = c.benchmark_group("hpack-decode-nginx-response");
    g.bench_function("barrage", |b| {
        let mut d = Decoder::new(4096);
        b.iter(|| {
            let mut n = 0usize;
            d.decode(black_box(&block), |name, value| {
                n += name.len() + value.len()
            })
            .unwrap();
            n
        })
    });
    g.bench_function("loona-hpack", |b| {
        let mut d = loona_hpack::Decoder::new();
        b.iter(|| {
            let mut n = 0usize;
            d.decode_with_cb(black_box(&block), |name, value| {
                n += name.len() + value.len()
            })
            .unwrap();
            n
        })
    });
    g.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);

//! The parser duel (experiment 3's actual question): httparse, picohttpparser (C, via
//! picohttpparser-sys) and http-parser (C, nodejs/http-parser 2.9.4 vendored in
//! barrage-http-parser-sys) parse the same requests, two ways:
//!
//! - raw (`bytes/<class>`, `requests/<class>`): each parser's own API on the duel's corpus of
//!   real-world requests, one group per corpus class and unit (bytes/s, requests/s); each
//!   iteration parses every buffer of the class once, pipelined buffers whole.
//!   `tests/parser_agreement.rs` checks that the three read the corpus the same way.
//! - as barrage serve parses (`serve/keepalive-get`, `serve/pipelined-16`): `Parser::parse_head`
//!   (the tokeniser plus barrage's common strict rules, exactly what `barrage serve --parser`
//!   runs per request) on the studies' request, `GET / HTTP/1.1` with a Host, once (keep-alive:
//!   one request per read) and as a buffer of 16 pipelined requests parsed head after head.
//!   `tests/request_parsers.rs` checks that the three give the same heads.
//!
//! Run:
//!
//! ```text
//! cargo bench -p barrage-wire --bench parsers            # everything (about a minute)
//! cargo bench -p barrage-wire --bench parsers -- serve/  # the server path only
//! bench/parser-duel.sh                                   # the same, with a summary table
//! ```

use barrage_wire::{header_slots, Parser};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::time::Duration;

mod duel;
use duel::corpus::{corpus, Class};
use duel::Duelist;

fn parse_class(parser: Duelist, buffers: &[&[u8]]) -> usize {
    let mut seen = 0;
    for buf in buffers {
        let n = parser
            .parse_all(black_box(buf), |req| {
                seen += req.headers.len() + req.body.len();
            })
            .expect("the corpus parses");
        seen += n;
    }
    seen
}

fn duel(c: &mut Criterion) {
    duel::http_parser_ffi::check_version();
    let cases = corpus();
    for class in Class::ALL {
        let buffers: Vec<&[u8]> = cases
            .iter()
            .filter(|case| case.class == class)
            .map(|case| case.bytes.as_slice())
            .collect();
        let bytes: usize = buffers.iter().map(|b| b.len()).sum();
        let requests: usize = cases
            .iter()
            .filter(|case| case.class == class)
            .map(|case| case.requests)
            .sum();
        for (unit, throughput) in [
            ("bytes", Throughput::Bytes(bytes as u64)),
            ("requests", Throughput::Elements(requests as u64)),
        ] {
            let mut group = c.benchmark_group(format!("{unit}/{}", class.name()));
            group.throughput(throughput);
            for parser in Duelist::ALL {
                group.bench_function(parser.name(), |b| b.iter(|| parse_class(parser, &buffers)));
            }
            group.finish();
        }
    }
}

/// Parses every head of `buf` with barrage's request parser, as the server's loop does (these
/// requests have no body); returns the requests seen.
fn serve_heads(parser: Parser, buf: &[u8]) -> usize {
    let mut slots = header_slots();
    let (mut pos, mut n) = (0, 0);
    while pos < buf.len() {
        match parser.parse_head(&buf[pos..], &mut slots, 16 * 1024) {
            Ok(Some(head)) => {
                pos += head.head_len;
                n += 1;
            }
            other => panic!("{parser}: {:?}", other.map(|h| h.is_some())),
        }
    }
    n
}

fn serve_path(c: &mut Criterion) {
    let get = b"GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n".to_vec();
    for (name, buf, requests) in [
        ("serve/keepalive-get", get.clone(), 1),
        ("serve/pipelined-16", get.repeat(16), 16),
    ] {
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Elements(requests as u64));
        for parser in Parser::compiled() {
            assert_eq!(serve_heads(parser, &buf), requests, "{parser}");
            group.bench_function(parser.name(), |b| {
                b.iter(|| serve_heads(parser, black_box(&buf)))
            });
        }
        group.finish();
    }
}

// Short measurements keep the whole duel near a minute: 3 classes x 2 units x 3 parsers, and
// 2 server-path groups x 3 parsers.
criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50);
    targets = duel, serve_path
}
criterion_main!(benches);

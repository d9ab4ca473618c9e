//! The parser duel (experiment 3's actual question): httparse, picohttpparser (C, via
//! picohttpparser-sys) and http-parser (C, Debian's libhttp-parser-dev) parse the same corpus of
//! real-world requests. One group per corpus class and unit: `bytes/<class>` reports bytes/s,
//! `requests/<class>` requests/s; each iteration parses every buffer of the class once, pipelined
//! buffers whole. `tests/parser_agreement.rs` checks that the three read the corpus the same way.
//!
//!     cargo bench -p barrage-wire --bench parsers

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

// Short measurements keep the whole duel near a minute: 3 classes x 2 units x 3 parsers.
criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50);
    targets = duel
}
criterion_main!(benches);

//! The parser duel's agreement test: httparse, picohttpparser and http-parser (the vendored
//! 2.9.4 of barrage-http-parser-sys) read every buffer of the duel's corpus as the same requests:
//! method, target, version, headers (names and values, in order) and body. Without it the
//! benchmark (`benches/parsers.rs`) could be comparing parsers that do different work.

#[path = "../benches/duel/mod.rs"]
mod duel;

use duel::corpus::corpus;
use duel::Duelist;

#[derive(Debug, PartialEq, Eq)]
struct Owned {
    method: String,
    target: String,
    version: (u8, u8),
    headers: Vec<(String, String)>,
    body: String,
}

fn parse(parser: Duelist, buf: &[u8]) -> Vec<Owned> {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let mut out = Vec::new();
    let n = parser
        .parse_all(buf, |req| {
            out.push(Owned {
                method: text(req.method),
                target: text(req.target),
                version: req.version,
                headers: req
                    .headers
                    .iter()
                    .map(|(n, v)| (text(n), text(v)))
                    .collect(),
                body: text(req.body),
            })
        })
        .unwrap_or_else(|e| panic!("{}: {e}", parser.name()));
    assert_eq!(n, out.len());
    out
}

#[test]
fn http_parser_is_the_2_x_the_binding_is_for() {
    let (major, minor, _) = duel::http_parser_ffi::check_version();
    assert_eq!((major, minor >= 8), (2, true));
}

#[test]
fn all_three_parsers_agree_on_the_whole_corpus() {
    let cases = corpus();
    assert!(cases.len() >= 10);
    for case in &cases {
        let reference = parse(Duelist::Httparse, &case.bytes);
        assert_eq!(
            reference.len(),
            case.requests,
            "{}: request count",
            case.name
        );
        for req in &reference {
            assert_eq!(req.version, (1, 1), "{}", case.name);
            assert!(
                req.headers.iter().any(|(n, _)| n == "Host"),
                "{}: no Host",
                case.name
            );
        }
        for parser in [Duelist::Picohttpparser, Duelist::HttpParser] {
            let other = parse(parser, &case.bytes);
            assert_eq!(
                other,
                reference,
                "{} disagrees with httparse on {}",
                parser.name(),
                case.name
            );
        }
    }
}

#[test]
fn the_corpus_has_what_it_claims() {
    let cases = corpus();
    let heads = |name: &str| {
        let case = cases.iter().find(|c| c.name == name).unwrap();
        parse(Duelist::Httparse, &case.bytes)
    };
    // Browser requests carry many headers; API requests have bodies; batches are pipelined.
    assert!(heads("chrome-page")[0].headers.len() >= 15);
    assert!(heads("api-order-json")[0].body.starts_with('{'));
    assert_eq!(heads("ping")[0].body, "ping");
    let mix = heads("api-mix-8");
    let methods: Vec<&str> = mix.iter().map(|r| r.method.as_str()).collect();
    assert_eq!(
        methods,
        ["GET", "POST", "POST", "PATCH", "GET", "POST", "POST", "PATCH"]
    );
}

#[test]
fn every_parser_refuses_what_is_not_http() {
    for parser in Duelist::ALL {
        assert!(
            parser.parse_all(b"GARBAGE\r\n\r\n", |_| {}).is_err(),
            "{}",
            parser.name()
        );
    }
}

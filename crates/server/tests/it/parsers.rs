//! The server with each request parser (`ServerConfig::parser`): the same answers to the same
//! bytes — keep-alive, a pipeline of 16, bodies, requests dribbled a byte at a time — and the same
//! refusals (400 or 431, then close).

use crate::common;
use barrage_server::{Parser, ParserUnavailable, ServerConfig, ServerHandle};
use common::*;

fn serve(parser: Parser) -> ServerHandle {
    server_with(ServerConfig {
        parser,
        header_limit: 1024,
        ..Default::default()
    })
}

fn every_parser() -> Vec<Parser> {
    let all: Vec<Parser> = Parser::compiled().collect();
    assert_eq!(all, Parser::ALL, "the server's tests build every parser");
    all
}

#[test]
fn keep_alive_and_sixteen_pipelined_gets() {
    for parser in every_parser() {
        let s = serve(parser);
        let mut c = Reader::new(connect(s.local_addr()));
        let get = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n";
        for _ in 0..3 {
            c.send(get);
            let r = c.response(false).unwrap();
            assert_eq!(
                (r.status, r.text().as_str()),
                (200, "Hello, World!"),
                "{parser}"
            );
        }
        c.send(&get.repeat(16));
        for i in 0..16 {
            let r = c.response(false).unwrap();
            assert_eq!(
                (r.status, r.body.as_slice()),
                (200, &b"Hello, World!"[..]),
                "{parser} #{i}"
            );
        }
        s.shutdown();
    }
}

/// (status, body) per response.
type Answers = Vec<(u16, Vec<u8>)>;

#[test]
fn the_same_answers_to_a_mixed_pipeline_sent_whole_and_byte_by_byte() {
    let batch = concat!(
        "POST /ping HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n\r\nping",
        "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        "\r\n",
        "GET /headers?x=1 HTTP/1.1\r\nHost: t\r\nX-Pad:  v  \r\n\r\n",
        "HEAD /bytes/5 HTTP/1.1\r\nHost: t\r\n\r\n",
        "GET /status/204 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        "GET /json HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    )
    .as_bytes();
    let mut answers: Vec<(Parser, Answers)> = Vec::new();
    for parser in every_parser() {
        for dribble in [false, true] {
            let s = serve(parser);
            let mut c = Reader::new(connect(s.local_addr()));
            if dribble {
                for b in batch {
                    c.send(std::slice::from_ref(b));
                }
            } else {
                c.send(batch);
            }
            let mut got = Vec::new();
            for head in [false, false, false, true, false, false] {
                let r = c.response(head).unwrap();
                got.push((r.status, r.body));
            }
            assert!(c.closed(), "{parser}: Connection: close is honoured");
            s.shutdown();
            answers.push((parser, got));
        }
    }
    let (_, first) = &answers[0];
    assert_eq!(first[0], (200, b"pong".to_vec()));
    assert_eq!(first[1], (200, b"abc".to_vec()));
    assert_eq!(
        String::from_utf8_lossy(&first[2].1),
        r#"{"headers":[["Host","t"],["X-Pad","v"]],"method":"GET","target":"/headers?x=1","version":"HTTP/1.1"}"#
    );
    assert_eq!((first[3].0, first[4].0, first[5].0), (200, 204, 200));
    for (parser, got) in &answers {
        assert_eq!(got, first, "{parser}");
    }
}

#[test]
fn malformed_requests_are_refused_alike() {
    let mut big = b"GET / HTTP/1.1\r\nHost: t\r\nX-Big: ".to_vec();
    big.extend(std::iter::repeat_n(b'a', 2000));
    big.extend_from_slice(b"\r\n\r\n");
    let cases: Vec<(&[u8], u16)> = vec![
        (b"GET / HTTP/1.1\nHost: t\n\n", 400),
        (b"GET  / HTTP/1.1\r\nHost: t\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\nHost : t\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\nHost: t\r\n  folded\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\n\r\n", 400),
        (b"GET / HTTP/3.0\r\nHost: t\r\n\r\n", 400),
        (b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", 400),
        (b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        (b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked, identity\r\n\r\n", 400),
        // (A TLS hello is closed before any parser sees it: bad_requests.rs.)
        (&big, 431),
    ];
    for parser in every_parser() {
        let s = serve(parser);
        for (raw, want) in &cases {
            let mut c = Reader::new(connect(s.local_addr()));
            c.send(raw);
            let r = c.response(false).unwrap();
            let shown = String::from_utf8_lossy(&raw[..raw.len().min(60)]).into_owned();
            assert_eq!(r.status, *want, "{parser}: {shown:?}");
            assert!(c.closed(), "{parser}: closed after {want}");
        }
        assert_eq!(get(s.local_addr(), "/").status, 200, "{parser}");
        s.shutdown();
    }
}

#[test]
fn a_parser_left_out_of_the_build_names_its_feature() {
    let e = ParserUnavailable {
        parser: Parser::Picohttpparser,
        feature: "parser-pico",
    };
    assert_eq!(
        barrage_server::ServerError::from(e).to_string(),
        "request parser picohttpparser is not compiled into this build: rebuild with the cargo feature `parser-pico`"
    );
    assert_eq!(Parser::HttpParser.feature(), Some("parser-http-parser"));
    assert_eq!(Parser::Httparse.feature(), None);
    assert_eq!("pico".parse(), Ok(Parser::Picohttpparser));
    assert_eq!("http-parser".parse(), Ok(Parser::HttpParser));
    assert!("llhttp".parse::<Parser>().is_err());
}

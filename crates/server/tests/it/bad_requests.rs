//! Malformed and hostile requests: 400/413/431 and close, and the server keeps serving.

use crate::common;
use barrage_server::ServerConfig;
use common::*;
use proptest::prelude::*;

fn refused(raw: &[u8], want: u16) {
    let s = server_with(ServerConfig {
        echo_limit: 1000,
        header_limit: 1024,
        ..Default::default()
    });
    let mut c = Reader::new(connect(s.local_addr()));
    c.send(raw);
    let r = c
        .response(false)
        .unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(raw)));
    assert_eq!(r.status, want, "{:?}", String::from_utf8_lossy(raw));
    assert_eq!(r.header("Connection"), Some("close"));
    assert!(c.closed(), "closed after {want}");
    // The next connection is served normally.
    assert_eq!(get(s.local_addr(), "/").status, 200);
    s.shutdown();
}

#[test]
fn smuggling_shapes_are_400() {
    for raw in [
        &b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"[..],
        b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
        b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
        b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3, 3\r\n\r\nabc",
        b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked, identity\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY0\r\n\r\n",
        b"GET / HTTP/1.1\nHost: t\n\n",
        b"GET / HTTP/1.1\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: t\r\n  folded\r\n\r\n",
        b"GET / HTTP/3.0\r\nHost: t\r\n\r\n",
    ] {
        refused(raw, 400);
    }
}

#[test]
fn what_is_not_http_at_all_is_closed_without_an_answer() {
    // A TLS hello (or an invalid HTTP/2 preface) could not read an HTTP/1.1 400 anyway.
    let s = server();
    let mut c = connect(s.local_addr());
    std::io::Write::write_all(
        &mut c,
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 tls hello\r\n\r\n",
    )
    .unwrap();
    let mut got = Vec::new();
    std::io::Read::read_to_end(&mut c, &mut got).unwrap();
    assert_eq!(got, b"");
    assert_eq!(get(s.local_addr(), "/").status, 200);
}

#[test]
fn big_heads_are_431_and_big_bodies_413() {
    let mut big = b"GET / HTTP/1.1\r\nHost: t\r\nX-Big: ".to_vec();
    big.extend(std::iter::repeat_n(b'a', 2000));
    big.extend_from_slice(b"\r\n\r\n");
    refused(&big, 431);
    // Too big even before the head is complete.
    refused(&big[..1500], 431);
    refused(
        b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1001\r\n\r\n",
        413,
    );
    let mut chunked = b"POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for _ in 0..3 {
        chunked.extend_from_slice(b"190\r\n");
        chunked.extend(std::iter::repeat_n(b'x', 400));
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    refused(&chunked, 413);
}

/// Reads everything the server sends on one connection until it closes or goes quiet, and
/// checks it is a sequence of well-formed responses. With `cut_ok`, the last one may be cut
/// short: an `/echo` whose chunked body turns out malformed has already begun its answer, so
/// the server can only end the connection.
fn answers(addr: std::net::SocketAddr, pieces: &[&[u8]], cut_ok: bool) -> Vec<u16> {
    let mut c = Reader::new(connect(addr));
    c.stream
        .set_read_timeout(Some(std::time::Duration::from_millis(150)))
        .unwrap();
    for p in pieces {
        if std::io::Write::write_all(&mut c.stream, p).is_err() {
            break;
        }
    }
    let _ = c.stream.shutdown(std::net::Shutdown::Write);
    let mut statuses = Vec::new();
    loop {
        match c.response(false) {
            Ok(r) => statuses.push(r.status),
            Err(e) => {
                assert!(
                    e == "eof"
                        || e == "reset"
                        || e.starts_with("read")
                        || (cut_ok && e == "eof in body"),
                    "server sent something malformed: {e}"
                );
                break;
            }
        }
    }
    statuses
}

const VALID: &[&str] = &[
    "GET / HTTP/1.1\r\nHost: t\r\n\r\n",
    "POST /ping HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n\r\nping",
    "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
    "GET /bytes/1000?chunked=1&chunk=100 HTTP/1.1\r\nHost: t\r\n\r\n",
    "GET /status/404 HTTP/1.1\r\nHost: t\r\n\r\n",
    "GET /headers HTTP/1.1\r\nHost: t\r\nA: b\r\n\r\n",
    "GET /json HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random bytes: no crash, only well-formed answers (4xx), and the server still serves.
    #[test]
    fn random_bytes(input in proptest::collection::vec(any::<u8>(), 1..400)) {
        let s = server_with(ServerConfig { threads: 1, ..Default::default() });
        let statuses = answers(s.local_addr(), &[&input], false);
        for st in statuses {
            prop_assert!((200..500).contains(&st));
        }
        prop_assert_eq!(get(s.local_addr(), "/").status, 200);
        s.shutdown();
    }

    /// Valid requests split at random points answer exactly as when sent whole; a random
    /// corruption gives valid answers then a 4xx (or a close), never a crash.
    #[test]
    fn random_splits(
        picks in proptest::collection::vec(0..VALID.len(), 1..6),
        cuts in proptest::collection::vec(0usize..600, 0..8),
        flip in proptest::option::of((0usize..600, any::<u8>())),
    ) {
        let s = server_with(ServerConfig { threads: 1, ..Default::default() });
        let mut wire: Vec<u8> = picks.iter().flat_map(|&i| VALID[i].bytes()).collect();
        let whole = answers(s.local_addr(), &[&wire], false);
        prop_assert_eq!(whole.len(), picks.len());
        let mut cuts: Vec<usize> = cuts.into_iter().filter(|&c| c < wire.len()).collect();
        cuts.sort_unstable();
        cuts.dedup();
        let split = |w: &[u8]| -> Vec<Vec<u8>> {
            let mut parts = Vec::new();
            let mut prev = 0;
            for &c in cuts.iter().chain(std::iter::once(&w.len())) {
                parts.push(w[prev..c].to_vec());
                prev = c;
            }
            parts
        };
        let parts = split(&wire);
        let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        let pieces = answers(s.local_addr(), &refs, false);
        prop_assert_eq!(&pieces, &whole);
        if let Some((at, byte)) = flip {
            let at = at % wire.len();
            wire[at] = byte;
            let parts = split(&wire);
            let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
            let echo = picks.iter().any(|&i| VALID[i].starts_with("POST /echo"));
            for st in answers(s.local_addr(), &refs, echo) {
                prop_assert!((200..500).contains(&st));
            }
        }
        prop_assert_eq!(get(s.local_addr(), "/").status, 200);
        s.shutdown();
    }
}

/// `/echo` with a chunked body streams it back, so its head used to go out before the body was
/// read: a malformed first chunk got `200 OK` and a cut body. The first size line is now checked
/// before the head: 400 when malformed, 413 when it overflows or exceeds the limit, then close.
#[test]
fn echo_checks_the_first_chunk_before_its_head() {
    let head = b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n";
    let with = |body: &[u8]| [&head[..], body].concat();
    refused(&with(b"zz\r\nab\r\n0\r\n\r\n"), 400);
    refused(&with(b"5\nhello\r\n0\r\n\r\n"), 400);
    refused(&with(b"0123456789abcdef012345\r\nab\r\n0\r\n\r\n"), 413);
    // Over the server's body limit (1000 in `refused`).
    refused(&with(b"3e9\r\n"), 413);
}

#[test]
fn echo_of_a_good_chunked_body_split_at_every_byte_of_its_size_line() {
    let s = server_with(ServerConfig {
        echo_limit: 1000,
        ..Default::default()
    });
    let head = b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n";
    let body = b"a;ext=1\r\n0123456789\r\n3\r\nabc\r\n0\r\n\r\n";
    for cut in 0..=b"a;ext=1\r\n".len() {
        let mut c = Reader::new(connect(s.local_addr()));
        c.send(head);
        c.send(&body[..cut]);
        std::thread::sleep(std::time::Duration::from_millis(5));
        c.send(&body[cut..]);
        let r = c.response(false).expect("a response");
        assert_eq!(r.status, 200, "cut at {cut}");
        assert_eq!(r.body, b"0123456789abc", "cut at {cut}");
    }
    s.shutdown();
}

#[test]
fn echo_body_that_goes_bad_after_the_head_closes_the_connection() {
    let s = server_with(ServerConfig {
        echo_limit: 1000,
        ..Default::default()
    });
    let mut c = Reader::new(connect(s.local_addr()));
    c.send(
        b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\n",
    );
    // The head went out with the first chunk; the bad second size line cuts the body: the
    // client sees the connection end inside the body, and no second status line.
    let r = c.response(false);
    assert!(r.is_err(), "{r:?}");
    assert!(c.closed(), "closed");
    assert_eq!(get(s.local_addr(), "/").status, 200);
    s.shutdown();
}

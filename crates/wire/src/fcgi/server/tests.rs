//! FastCGI's application side: a web server's records, cut anywhere, as request events; the
//! answers as records; what it refuses, with the protocol status that says so.

use super::super::tests::read_all;
use super::super::*;
use super::{Config, Server};
use crate::server::{Event, ServerSession, StreamServer};
/// A web server's request: its CGI variables and body.
pub(in crate::fcgi) fn request(id: u16, keep: bool, vars: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut params = Vec::new();
    for (n, v) in vars {
        pair(&mut params, n.as_bytes(), v.as_bytes());
    }
    let mut out = Vec::new();
    begin_request(&mut out, id, keep);
    stream(&mut out, PARAMS, id, &params);
    record(&mut out, PARAMS, id, &[]);
    stream(&mut out, STDIN, id, body);
    record(&mut out, STDIN, id, &[]);
    out
}

/// What the server's session made of `input` fed in parts cut at `cut`: each event in words.
fn events(s: &mut Server, input: &[u8], cut: usize, out: &mut Vec<u8>) -> Vec<String> {
    let mut seen = Vec::new();
    for mut part in [&input[..cut], &input[cut..]] {
        loop {
            let (used, ev) = s.next(part, out).expect("no connection error");
            part = &part[used..];
            let Some(ev) = ev else {
                if part.is_empty() {
                    break;
                }
                continue;
            };
            seen.push(match ev {
                Event::Request { id, head } => {
                    let fields: Vec<String> = head
                        .fields
                        .iter()
                        .map(|(n, v)| format!("{n}={}", String::from_utf8_lossy(v)))
                        .collect();
                    format!(
                        "{id} {} {} {} {:?} {}",
                        head.method,
                        head.path,
                        head.authority,
                        head.content_length,
                        fields.join(",")
                    )
                }
                Event::Body { id, data, end } => {
                    format!("{id} body {} {end}", String::from_utf8_lossy(&data))
                }
                Event::TooLarge { id } => format!("{id} too large"),
                Event::Gone { id } => format!("{id} gone"),
                Event::Writable { id } => format!("{id} writable"),
            });
        }
    }
    // Bodies cut by the feed come in pieces: join each request's.
    let mut joined: Vec<String> = Vec::new();
    for e in seen {
        match joined.last_mut() {
            Some(last)
                if last.contains(" body ") && last.ends_with(" false") && e.contains(" body ") =>
            {
                let (head, _) = last.rsplit_once(' ').unwrap();
                let text = e.split_once(" body ").unwrap().1;
                *last = format!("{head}{text}");
            }
            _ => joined.push(e),
        }
    }
    joined
}

#[test]
fn the_server_reads_a_request_cut_anywhere() {
    let input = request(
        1,
        true,
        &[
            ("REQUEST_METHOD", "POST"),
            ("REQUEST_URI", "/echo?x=1"),
            ("HTTP_HOST", "example"),
            ("CONTENT_LENGTH", "5"),
            ("CONTENT_TYPE", "text/plain"),
            ("HTTP_X_TRACE_ID", "abc"),
            ("GATEWAY_INTERFACE", "CGI/1.1"),
        ],
        b"hello",
    );
    let want = vec![
        "1 POST /echo?x=1 example Some(5) content-length=5,content-type=text/plain,x-trace-id=abc"
            .to_string(),
        "1 body hello true".to_string(),
    ];
    for cut in 0..=input.len() {
        let (mut s, mut out) = (Server::new(Config::default()), Vec::new());
        assert_eq!(events(&mut s, &input, cut, &mut out), want, "cut at {cut}");
        assert!(out.is_empty() && s.is_open(1) && !s.ended());
    }
}

#[test]
fn the_server_builds_the_target_from_the_script_and_query_without_request_uri() {
    let vars = [
        ("REQUEST_METHOD", "GET"),
        ("SCRIPT_NAME", "/json"),
        ("QUERY_STRING", "a=b"),
        ("SERVER_NAME", "srv"),
    ];
    let input = request(9, false, &vars, b"");
    let (mut s, mut out) = (Server::new(Config::default()), Vec::new());
    let got = events(&mut s, &input, 0, &mut out);
    assert_eq!(got, vec!["9 GET /json?a=b srv None ", "9 body  true"]);
}

/// The records the server wrote, read back.
fn written(out: &[u8]) -> Vec<(u8, u16, Vec<u8>)> {
    read_all(out, &[]).unwrap()
}

#[test]
fn the_server_answers_in_stdout_records_and_ends_with_end_request() {
    let input = request(
        1,
        false,
        &[("REQUEST_METHOD", "GET"), ("REQUEST_URI", "/")],
        b"",
    );
    let (mut s, mut out) = (Server::new(Config::default()), Vec::new());
    events(&mut s, &input, 0, &mut out);
    s.respond(&mut out, 1, 404, &[("content-type", b"text/plain")], false);
    assert_eq!(s.send_data(&mut out, 1, b"nope", true), 4);
    assert!(!s.is_open(1) && s.room(1) == 0);
    // The request did not ask to keep the connection: it ends.
    assert!(s.ended());
    let end = vec![0, 0, 0, 0, REQUEST_COMPLETE, 0, 0, 0];
    assert_eq!(
        written(&out),
        vec![
            (
                STDOUT,
                1,
                b"Status: 404 Not Found\r\ncontent-type: text/plain\r\n\r\n".to_vec()
            ),
            (STDOUT, 1, b"nope".to_vec()),
            (STDOUT, 1, vec![]),
            (END_REQUEST, 1, end),
        ]
    );
}

#[test]
fn the_server_refuses_what_it_cannot_take_with_the_protocol_status_that_says_so() {
    let cfg = Config {
        max_params: 64,
        max_requests: 1,
    };
    let (mut s, mut out) = (Server::new(cfg), Vec::new());
    // A filter is a role this server does not play.
    let mut input = Vec::new();
    record(&mut input, BEGIN_REQUEST, 2, &[0, 3, 0, 0, 0, 0, 0, 0]);
    let one = request(
        1,
        true,
        &[("REQUEST_METHOD", "GET"), ("REQUEST_URI", "/")],
        b"",
    );
    input.extend_from_slice(&one[..HEADER + 8]);
    // A second request past `max_requests`.
    begin_request(&mut input, 3, true);
    // Management records: the values asked, and a type this side does not know.
    let mut ask = Vec::new();
    pair(&mut ask, b"FCGI_MPXS_CONNS", b"");
    pair(&mut ask, b"FCGI_MAX_REQS", b"");
    pair(&mut ask, b"OTHER", b"");
    record(&mut input, GET_VALUES, 0, &ask);
    record(&mut input, 42, 0, &[]);
    assert!(events(&mut s, &input, 5, &mut out).is_empty());
    let mut values = Vec::new();
    pair(&mut values, b"FCGI_MAX_REQS", b"1");
    pair(&mut values, b"FCGI_MPXS_CONNS", b"1");
    assert_eq!(
        written(&out),
        vec![
            (END_REQUEST, 2, vec![0, 0, 0, 0, UNKNOWN_ROLE, 0, 0, 0]),
            (END_REQUEST, 3, vec![0, 0, 0, 0, OVERLOADED, 0, 0, 0]),
            (GET_VALUES_RESULT, 0, values),
            (UNKNOWN_TYPE, 0, vec![42, 0, 0, 0, 0, 0, 0, 0]),
        ]
    );
    // Request 1's variables pass `max_params`: 431's event, once they end.
    out.clear();
    let mut rest = Vec::new();
    stream(&mut rest, PARAMS, 1, &[b'x'; 100]);
    record(&mut rest, PARAMS, 1, &[]);
    assert_eq!(events(&mut s, &rest, 0, &mut out), vec!["1 too large"]);
}

#[test]
fn the_server_ends_a_connection_that_breaks_fastcgi() {
    let cases: [&[u8]; 3] = [
        b"GET / HTTP/1.1\r\n\r\n",
        // STDIN before the variables ended.
        &[
            1, 1, 0, 1, 0, 8, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 5, 0, 1, 0, 1, 0, 0, b'x',
        ],
        // STDOUT is the application's to send.
        &[
            1, 1, 0, 1, 0, 8, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 6, 0, 1, 0, 0, 0, 0,
        ],
    ];
    for input in cases {
        let (mut s, mut out) = (Server::new(Config::default()), Vec::new());
        let mut part = input;
        let err = loop {
            match s.next(part, &mut out) {
                Ok((used, _)) if used > 0 => part = &part[used..],
                Ok(_) => panic!("{input:?}: read whole without an error"),
                Err(e) => break e,
            }
        };
        assert_eq!(err.code, "FastCGI");
        assert!(s.ended(), "{input:?}");
    }
}

#[test]
fn an_aborted_request_is_gone_and_answered_with_end_request() {
    let mut input = request(
        4,
        true,
        &[("REQUEST_METHOD", "GET"), ("REQUEST_URI", "/")],
        b"",
    );
    record(&mut input, ABORT_REQUEST, 4, &[]);
    let (mut s, mut out) = (Server::new(Config::default()), Vec::new());
    let got = events(&mut s, &input, 0, &mut out);
    assert_eq!(got[2], "4 gone");
    assert!(!s.is_open(4));
    assert_eq!(written(&out)[0].0, END_REQUEST);
}

/// A body longer than its CONTENT_LENGTH, or one that ends short of it: the request ends
/// unanswered (application status 1) and is gone for the answers.
#[test]
fn the_server_holds_a_body_to_its_content_length() {
    for (body, len) in [(&b"toolong"[..], "3"), (&b"ab"[..], "5")] {
        let vars = [
            ("REQUEST_METHOD", "POST"),
            ("REQUEST_URI", "/echo"),
            ("CONTENT_LENGTH", len),
        ];
        let input = request(2, true, &vars, body);
        let (mut s, mut out) = (Server::new(Config::default()), Vec::new());
        let got = events(&mut s, &input, 0, &mut out);
        assert_eq!(got.last().map(String::as_str), Some("2 gone"), "{got:?}");
        assert!(!s.is_open(2));
        let ends: Vec<_> = written(&out)
            .into_iter()
            .filter(|r| r.0 == END_REQUEST)
            .collect();
        assert_eq!(
            ends,
            vec![(END_REQUEST, 2, vec![0, 0, 0, 1, REQUEST_COMPLETE, 0, 0, 0])]
        );
    }
}

/// A request without FCGI_KEEP_CONN ends its connection once answered, but not before the
/// requests multiplexed beside it are.
#[test]
fn a_request_that_does_not_keep_the_connection_ends_it_after_the_others() {
    let vars = [("REQUEST_METHOD", "GET"), ("REQUEST_URI", "/")];
    let mut input = request(1, false, &vars, b"");
    input.extend_from_slice(&request(2, true, &vars, b""));
    let (mut s, mut out) = (Server::new(Config::default()), Vec::new());
    events(&mut s, &input, 0, &mut out);
    s.respond(&mut out, 1, 200, &[], true);
    assert!(!s.ended(), "request 2 is still open");
    s.respond(&mut out, 2, 200, &[], true);
    assert!(s.ended());
}

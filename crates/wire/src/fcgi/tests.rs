//! FastCGI's records cut at every byte, name-value pairs at both length forms, and the two
//! sessions: the server's events from a web server's records, the client's ends from an
//! application's answers.

use super::client::{Conn, Setup};
use super::server::{Config, Server};
use super::*;
use crate::client::{ClientSession, End, ErrorClass, Failure, Tag};
use crate::server::{Event, ServerSession, StreamServer};
use std::time::{Duration, Instant};

/// Every piece `input` holds, fed in parts cut at `cuts`, as (kind, id, content, ended).
fn read_all(input: &[u8], cuts: &[usize]) -> Result<Vec<(u8, u16, Vec<u8>)>, FcgiError> {
    let mut r = Reader::default();
    let mut got: Vec<(u8, u16, Vec<u8>)> = Vec::new();
    let mut open = false;
    let mut at = 0;
    for end in cuts.iter().copied().chain([input.len()]) {
        let mut part = &input[at..end];
        at = end;
        loop {
            let (used, p) = r.next(part)?;
            part = &part[used..];
            let Some(p) = p else {
                assert!(part.is_empty(), "every byte taken");
                break;
            };
            if !open {
                got.push((p.kind, p.id, Vec::new()));
            }
            got.last_mut().unwrap().2.extend_from_slice(p.data);
            open = !p.end;
        }
    }
    Ok(got)
}

#[test]
fn records_read_the_same_cut_at_every_byte() {
    let mut input = Vec::new();
    begin_request(&mut input, 7, true);
    record(&mut input, PARAMS, 7, b"\x01\x02ABC");
    record(&mut input, PARAMS, 7, &[]);
    // A padded record: padding is skipped.
    input.extend_from_slice(&[VERSION, STDIN, 0, 7, 0, 3, 5, 0]);
    input.extend_from_slice(b"xyz\0\0\0\0\0");
    record(&mut input, STDIN, 7, &[]);
    let want = vec![
        (BEGIN_REQUEST, 7, vec![0, 1, KEEP_CONN, 0, 0, 0, 0, 0]),
        (PARAMS, 7, b"\x01\x02ABC".to_vec()),
        (PARAMS, 7, vec![]),
        (STDIN, 7, b"xyz".to_vec()),
        (STDIN, 7, vec![]),
    ];
    assert_eq!(read_all(&input, &[]).unwrap(), want);
    for i in 0..=input.len() {
        assert_eq!(read_all(&input, &[i]).unwrap(), want, "cut at {i}");
    }
    let every: Vec<usize> = (1..input.len()).collect();
    assert_eq!(read_all(&input, &every).unwrap(), want, "a byte at a time");
}

#[test]
fn a_record_of_another_version_is_an_error() {
    let mut input = b"\x02\x01\0\x01\0\0\0\0".to_vec();
    assert_eq!(read_all(&input, &[]), Err(FcgiError::Version(2)));
    input[0] = b'G';
    assert_eq!(read_all(&input, &[3]), Err(FcgiError::Version(b'G')));
}

#[test]
fn a_long_stream_goes_in_records_of_at_most_65535_bytes() {
    let data: Vec<u8> = (0..150_000u32).map(|i| i as u8).collect();
    let mut out = Vec::new();
    stream(&mut out, STDOUT, 3, &data);
    assert_eq!(out.len(), data.len() + 3 * HEADER);
    assert_eq!(&out[4..6], &[0xff, 0xff]);
    let got = read_all(&out, &[]).unwrap();
    assert_eq!(got.len(), 3);
    let joined: Vec<u8> = got.into_iter().flat_map(|(_, _, d)| d).collect();
    assert_eq!(joined, data);
}

#[test]
fn pairs_round_trip_in_both_length_forms() {
    let long = vec![b'v'; 300];
    let mut out = Vec::new();
    pair(&mut out, b"SHORT", b"1");
    pair(&mut out, b"LONG", &long);
    pair(&mut out, b"", b"");
    // 1 + 1 length bytes, then 1 + 4.
    assert_eq!(&out[..2], &[5, 1]);
    assert_eq!(&out[8..13], &[4, 0x80, 0, 1, 44]);
    let got: Vec<_> = pairs(&out).collect::<Result<_, _>>().unwrap();
    assert_eq!(
        got,
        vec![
            (&b"SHORT"[..], &b"1"[..]),
            (&b"LONG"[..], &long[..]),
            (&b""[..], &b""[..])
        ]
    );
    for cut in [1, 3, 7, 10, out.len() - 301] {
        let last = pairs(&out[..cut]).last().unwrap();
        assert_eq!(last, Err(FcgiError::Pairs), "cut at {cut}");
    }
}

/// A web server's request: its CGI variables and body.
fn request(id: u16, keep: bool, vars: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
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
            Some(last) if last.contains(" body ") && last.ends_with(" false") => {
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
    pair(&mut values, b"FCGI_MPXS_CONNS", b"1");
    pair(&mut values, b"FCGI_MAX_REQS", b"1");
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct T(u32, Instant);

impl Tag for T {
    fn counted(&self) -> bool {
        true
    }
    fn sent(&self) -> Instant {
        self.1
    }
}

fn setup(keep: bool, expect: Option<&[u8]>) -> Setup {
    Setup {
        encoded: vec![b"REQUEST".to_vec()],
        keep,
        timeout: Duration::from_secs(1),
        expect_body: expect.map(<[u8]>::to_vec),
        keep_responses: false,
        server: Default::default(),
    }
}

/// An application's answer: the CGI response in STDOUT records (cut in two at `split`), a
/// STDERR line between, END_REQUEST.
fn answer(cgi: &[u8], split: usize, app: u32, status: u8) -> Vec<u8> {
    let mut out = Vec::new();
    record(&mut out, STDOUT, 1, &cgi[..split]);
    record(&mut out, STDERR, 1, b"PHP Notice: something");
    record(&mut out, STDOUT, 1, &cgi[split..]);
    record(&mut out, STDOUT, 1, &[]);
    end_request(&mut out, 1, app, status);
    out
}

/// The client's ends for `input` fed cut at `cut`, after one request was opened.
fn client_ends(s: &Setup, input: &[u8], cut: usize) -> Result<(Vec<End<T>>, bool), ErrorClass> {
    let now = Instant::now();
    let mut c: Conn<'_, T> = Conn::new(s);
    c.start(now, now);
    assert_eq!(c.room(), 1);
    assert!(c.open(now, 0, 0, T(0, now)));
    assert_eq!((c.room(), c.out().bytes), (0, &b"REQUEST"[..]));
    c.wrote(now, 7);
    assert!(c.out().is_empty() && !c.held_by_output());
    let mut ends = Vec::new();
    let mut close = false;
    for part in [&input[..cut], &input[cut..]] {
        let fed = c
            .feed(now, part, &mut |e| ends.push(e))
            .map_err(|e| e.class)?;
        assert_eq!(fed.used, part.len());
        close |= fed.close;
    }
    Ok((ends, close))
}

#[test]
fn the_client_reads_a_cgi_response_cut_anywhere() {
    let now = Instant::now();
    let cgi = b"Status: 201 Created\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhello";
    let s = setup(true, Some(b"hello"));
    for split in [0, 10, 48, cgi.len()] {
        let input = answer(cgi, split, 0, REQUEST_COMPLETE);
        for cut in 0..=input.len() {
            let (ends, close) = client_ends(&s, &input, cut).unwrap();
            let [End::Response {
                status, body_ok, ..
            }] = ends[..]
            else {
                panic!("split {split} cut {cut}: {ends:?}")
            };
            assert_eq!((status, body_ok, close), (201, true, false));
        }
    }
    let _ = now;
}

#[test]
fn the_client_says_how_each_answer_went() {
    let ok = REQUEST_COMPLETE;
    /// The CGI response, the application status, the protocol status, the body expected, the
    /// connection kept, and what the client says.
    type Case<'a> = (&'a [u8], u32, u8, Option<&'a [u8]>, bool, &'a str);
    let cases: [Case<'_>; 8] = [
        // No Status: 200; LF line ends (CGI allows them).
        (
            b"Content-Type: text/plain\n\nhi",
            0,
            ok,
            Some(b"hi"),
            true,
            "200 true",
        ),
        (b"Location: /else\r\n\r\n", 0, ok, None, false, "302 true"),
        (
            b"Status: 200 OK\r\n\r\nother",
            0,
            ok,
            Some(b"hi"),
            true,
            "200 false",
        ),
        (
            b"Status: 200 OK\r\n\r\nh",
            0,
            ok,
            Some(b"hi"),
            true,
            "200 false",
        ),
        (
            b"Status: 200 OK\r\nContent-Length: 9\r\n\r\nhi",
            0,
            ok,
            None,
            true,
            "Malformed",
        ),
        (b"Status: 500\r\n\r\n", 3, ok, None, true, "Reset app"),
        (b"", 0, OVERLOADED, None, true, "Reset FCGI_OVERLOADED"),
        (b"Status: 200", 0, ok, None, true, "Malformed"),
    ];
    for (cgi, app, status, expect, keep, want) in cases {
        let s = setup(keep, expect);
        let input = answer(cgi, cgi.len() / 2, app, status);
        let (ends, close) = client_ends(&s, &input, 3).unwrap();
        let said = match ends[..] {
            [End::Response {
                status, body_ok, ..
            }] => format!("{status} {body_ok}"),
            [End::Failed {
                failure: Failure::Reset(code),
                ..
            }] if code.contains("application status") => "Reset app".to_string(),
            [End::Failed {
                failure: Failure::Reset(code),
                ..
            }] => format!("Reset {code}"),
            [End::Failed {
                failure: Failure::Malformed(_),
                ..
            }] => "Malformed".to_string(),
            _ => panic!("{ends:?}"),
        };
        assert_eq!(said, want, "{}", String::from_utf8_lossy(cgi));
        assert_eq!(close, !keep, "{}", String::from_utf8_lossy(cgi));
    }
}

#[test]
fn the_client_fails_the_connection_on_what_no_application_sends() {
    let s = setup(true, None);
    let mut other = Vec::new();
    record(&mut other, STDOUT, 2, b"Status: 200\r\n\r\n");
    let mut stdin = Vec::new();
    record(&mut stdin, STDIN, 1, b"x");
    let mut head = Vec::new();
    record(&mut head, STDOUT, 1, b"Status: abc\r\n\r\n");
    let cases: [(&[u8], ErrorClass); 4] = [
        (&other, ErrorClass::Unasked),
        (&stdin, ErrorClass::Protocol),
        (&head, ErrorClass::Parse),
        (b"HTTP/1.1 200 OK\r\n\r\n", ErrorClass::Parse),
    ];
    for (input, class) in cases {
        assert_eq!(client_ends(&s, input, 0).err(), Some(class), "{input:?}");
    }
}

#[test]
fn the_client_times_out_and_gives_back_the_open_request() {
    let s = setup(true, None);
    let t0 = Instant::now();
    let mut c: Conn<'_, T> = Conn::new(&s);
    c.start(t0, t0);
    assert!(c.open(t0, 0, 0, T(5, t0)));
    let mut on = |_e: End<T>| {};
    assert!(c.expire(t0 + Duration::from_millis(900), &mut on).is_ok());
    let e = c.expire(t0 + Duration::from_secs(2), &mut on).unwrap_err();
    assert_eq!(e.class, ErrorClass::Timeout);
    let mut back = Vec::new();
    c.drain(&mut |t| back.push(t));
    assert_eq!(back, vec![T(5, t0)]);
    assert_eq!(c.room(), 1);
    assert_eq!(c.eof(&mut on).map_err(|e| e.class), Ok(()));
}

/// A script's request as HTTP/1.1 text goes out as the same records a run's request would, and
/// its `response()` hook gets the whole response: the CGI head after a first line, the body.
#[test]
fn the_client_sends_a_scripts_text_and_keeps_its_response() {
    let server = super::client::Server {
        name: "h".into(),
        authority: "h:9000".into(),
        addr: "127.0.0.1".into(),
        port: "9000".into(),
    };
    let s = Setup {
        keep_responses: true,
        server,
        ..setup(true, None)
    };
    let now = Instant::now();
    let mut c: Conn<'_, T> = Conn::new(&s);
    c.start(now, now);
    let text =
        b"POST /app.php?a=1 HTTP/1.1\r\nHost: other\r\nX-Y: z\r\nContent-Length: 2\r\n\r\nhi";
    assert!(c.open_text(now, text, false, T(1, now)));
    assert!(!c.open_text(now, text, false, T(2, now)), "one at a time");
    let sent = read_all(c.out().bytes, &[]).unwrap();
    let vars: Vec<(String, String)> = pairs(&sent[1].2)
        .map(|p| p.unwrap())
        .map(|(n, v)| {
            (
                String::from_utf8_lossy(n).into(),
                String::from_utf8_lossy(v).into(),
            )
        })
        .collect();
    let get = |n: &str| vars.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
    assert_eq!(get("REQUEST_METHOD"), Some("POST"));
    assert_eq!(get("REQUEST_URI"), Some("/app.php?a=1"));
    assert_eq!(get("SCRIPT_FILENAME"), Some("/app.php"));
    assert_eq!(get("QUERY_STRING"), Some("a=1"));
    assert_eq!(get("HTTP_HOST"), Some("other"));
    assert_eq!(get("HTTP_X_Y"), Some("z"));
    assert_eq!(get("CONTENT_LENGTH"), Some("2"));
    assert_eq!(get("SERVER_PORT"), Some("9000"));
    assert_eq!(sent[3], (STDIN, 1, b"hi".to_vec()));
    let n = c.out().bytes.len();
    c.wrote(now, n);
    let input = answer(
        b"Status: 200 OK\r\nX-A: b\r\n\r\nbody",
        5,
        0,
        REQUEST_COMPLETE,
    );
    let mut ends = Vec::new();
    c.feed(now, &input, &mut |e| ends.push(e)).unwrap();
    assert!(matches!(ends[..], [End::Response { status: 200, .. }]));
    let mut k = crate::kept::Kept::default();
    assert!(c.take_response(&mut k));
    assert_eq!(k.status, 200);
    assert_eq!(k.head, b"FastCGI\r\nStatus: 200 OK\r\nX-A: b\r\n\r\n");
    assert_eq!(k.body, b"body");
    assert!(!c.take_response(&mut k));
}

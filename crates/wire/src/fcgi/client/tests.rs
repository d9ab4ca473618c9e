//! FastCGI's client side: an application's answers, cut anywhere, as each request's end;
//! what breaks the connection, by class; a script's text and kept responses.

use super::super::tests::read_all;
use super::super::*;
use super::{Conn, Setup};
use crate::client::{ClientSession, End, ErrorClass, Failure, Tag};
use std::time::{Duration, Instant};
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
        encoded: vec![b"REQUEST".to_vec(), b"HEAD REQUEST".to_vec()],
        is_head: vec![false, true],
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
    // An empty STDOUT record would end the stream: a part that is empty is not sent.
    stream(&mut out, STDOUT, 1, &cgi[..split]);
    record(&mut out, STDERR, 1, b"PHP Notice: something");
    stream(&mut out, STDOUT, 1, &cgi[split..]);
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
    let server = super::Server {
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

/// A HEAD's response says the length its GET would have and has no body: a response.
#[test]
fn a_head_response_with_a_content_length_and_no_body_is_whole() {
    let s = setup(true, None);
    let now = Instant::now();
    let mut c: Conn<'_, T> = Conn::new(&s);
    c.start(now, now);
    assert!(c.open(now, 0, 1, T(0, now)));
    assert_eq!(c.out().bytes, b"HEAD REQUEST");
    c.wrote(now, 12);
    let input = answer(
        b"Status: 200 OK\r\nContent-Length: 13\r\n\r\n",
        4,
        0,
        REQUEST_COMPLETE,
    );
    let mut ends = Vec::new();
    c.feed(now, &input, &mut |e| ends.push(e)).unwrap();
    assert!(
        matches!(
            ends[..],
            [End::Response {
                status: 200,
                body_ok: true,
                ..
            }]
        ),
        "{ends:?}"
    );
}

/// The next request waits until the last one is written whole, even when its answer came
/// first (an answer before the body went): the records stay whole.
#[test]
fn the_next_request_waits_for_the_last_to_be_written_whole() {
    let s = setup(true, None);
    let now = Instant::now();
    let mut c: Conn<'_, T> = Conn::new(&s);
    c.start(now, now);
    assert!(c.open(now, 0, 0, T(0, now)));
    c.wrote(now, 3);
    let input = answer(b"Status: 413\r\n\r\n", 0, 0, REQUEST_COMPLETE);
    let mut ends = Vec::new();
    c.feed(now, &input, &mut |e| ends.push(e)).unwrap();
    assert_eq!(ends.len(), 1);
    assert!(c.held_by_output());
    assert_eq!(c.room(), 0);
    assert!(!c.open(now, 0, 0, T(1, now)));
    assert_eq!(c.out().bytes, b"UEST");
    c.wrote(now, 4);
    assert_eq!(c.room(), 1);
}

/// END_REQUEST ends a response whose STDOUT never ended (php-fpm 8.2 answers so: its STDOUT,
/// then END_REQUEST); STDOUT after its end breaks the protocol.
#[test]
fn end_request_ends_a_response_and_stdout_does_not_go_on_after_its_end() {
    let s = setup(true, Some(b"part"));
    let mut fpm = Vec::new();
    record(&mut fpm, STDOUT, 1, b"Status: 200 OK\r\n\r\npart");
    end_request(&mut fpm, 1, 0, REQUEST_COMPLETE);
    let (ends, _) = client_ends(&s, &fpm, 0).unwrap();
    assert!(
        matches!(
            ends[..],
            [End::Response {
                status: 200,
                body_ok: true,
                ..
            }]
        ),
        "{ends:?}"
    );
    let mut after = Vec::new();
    record(&mut after, STDOUT, 1, b"Status: 200 OK\r\n\r\n");
    record(&mut after, STDOUT, 1, &[]);
    record(&mut after, STDOUT, 1, b"more");
    assert_eq!(client_ends(&s, &after, 0).err(), Some(ErrorClass::Protocol));
}

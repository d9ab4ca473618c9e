//! A call's response read from the events an HTTP/2 session hands out: known responses and
//! their outcomes, the body cut at every byte.

use super::*;
use crate::grpc::encode_message;

/// One event of a response as the HTTP/2 session hands it.
#[derive(Clone)]
enum Ev {
    H(&'static str, &'static str),
    End(bool),
    Data(Vec<u8>, bool),
    Finish,
}
use Ev::*;

/// A known response: its name, its events, the replies and the outcome it must give.
type Case = (&'static str, Vec<Ev>, Vec<&'static [u8]>, Option<Outcome>);

fn head() -> Vec<Ev> {
    vec![
        H(":status", "200"),
        H("content-type", "application/grpc"),
        End(false),
    ]
}

fn msgs(payloads: &[&[u8]]) -> Vec<u8> {
    let mut b = Vec::new();
    for p in payloads {
        encode_message(p, false, &mut b).unwrap();
    }
    b
}

/// Runs the events of a call whose method answers with any number of messages; returns the
/// messages handed out and the first outcome.
fn run(events: &[Ev]) -> (Vec<Vec<u8>>, Option<Outcome>) {
    run_call(false, events)
}

/// As [`run`], for a call whose method answers with exactly one message when `one_reply`.
fn run_call(one_reply: bool, events: &[Ev]) -> (Vec<Vec<u8>>, Option<Outcome>) {
    let mut r = Response::new(1024, one_reply);
    let mut got = Vec::new();
    for e in events {
        let out = match e {
            H(n, v) => {
                r.header(n.as_bytes(), v.as_bytes());
                None
            }
            End(es) => r.headers_end(*es),
            Data(b, es) => r.data(b, *es, &mut |m| got.push(m.to_vec())),
            Finish => Some(r.finish()),
        };
        if out.is_some() {
            return (got, out);
        }
    }
    (got, None)
}

fn ok(messages: u64) -> Option<Outcome> {
    Some(Outcome::Status {
        code: Code::Ok,
        message: Brief::EMPTY,
        messages,
    })
}

#[test]
fn known_responses() {
    let trailers = |status: &'static str| vec![H("grpc-status", status), End(true)];
    let gz = Encoding::Gzip.compress(b"inflated");
    let mut gz_body = Vec::new();
    encode_message(&gz, true, &mut gz_body).unwrap();
    let cases: Vec<Case> = vec![
        (
            "unary OK",
            [head(), vec![Data(msgs(&[b"hi"]), false)], trailers("0")].concat(),
            vec![b"hi"],
            ok(1),
        ),
        (
            "three streamed replies",
            [
                head(),
                vec![Data(msgs(&[b"a", b"", b"c"]), false)],
                trailers("0"),
            ]
            .concat(),
            vec![b"a", b"", b"c"],
            ok(3),
        ),
        (
            "a status with its message",
            [
                head(),
                vec![
                    H("grpc-status", "14"),
                    H("grpc-message", "try%20later"),
                    End(true),
                ],
            ]
            .concat(),
            vec![],
            Some(Outcome::Status {
                code: Code::Unavailable,
                message: Brief::new(b"try%20later"),
                messages: 0,
            }),
        ),
        (
            "trailers-only",
            vec![
                H(":status", "200"),
                H("content-type", "application/grpc"),
                H("grpc-status", "12"),
                End(true),
            ],
            vec![],
            Some(Outcome::Status {
                code: Code::Unimplemented,
                message: Brief::EMPTY,
                messages: 0,
            }),
        ),
        (
            "an interim 100 first",
            [
                vec![H(":status", "100"), End(false)],
                head(),
                vec![Data(msgs(&[b"x"]), false)],
                trailers("0"),
            ]
            .concat(),
            vec![b"x"],
            ok(1),
        ),
        (
            "gzip",
            [
                vec![
                    H(":status", "200"),
                    H("content-type", "application/grpc"),
                    H("grpc-encoding", "gzip"),
                    End(false),
                ],
                vec![Data(gz_body.clone(), false)],
                trailers("0"),
            ]
            .concat(),
            vec![b"inflated"],
            ok(1),
        ),
        (
            "no trailers: DATA ends the stream",
            [head(), vec![Data(msgs(&[b"x"]), true)]].concat(),
            vec![b"x"],
            Some(Outcome::Broken(GrpcError::NoTrailers {
                status_in_head: false,
            })),
        ),
        (
            "no trailers: an empty DATA ends the stream",
            [head(), vec![Data(vec![], true)]].concat(),
            vec![],
            Some(Outcome::Broken(GrpcError::NoTrailers {
                status_in_head: false,
            })),
        ),
        (
            "grpc-status OK in a head with a body, DATA ends the stream: no trailers",
            vec![
                H(":status", "200"),
                H("content-type", "application/grpc"),
                H("grpc-status", "0"),
                End(false),
                Data(msgs(&[b"x"]), true),
            ],
            vec![b"x"],
            Some(Outcome::Broken(GrpcError::NoTrailers {
                status_in_head: true,
            })),
        ),
        (
            "grpc-status OK in a head with a body, trailers without one",
            vec![
                H(":status", "200"),
                H("content-type", "application/grpc"),
                H("grpc-status", "0"),
                End(false),
                Data(msgs(&[b"x"]), false),
                H("x", "y"),
                End(true),
            ],
            vec![b"x"],
            Some(Outcome::Broken(GrpcError::MissingStatus)),
        ),
        (
            "a head's grpc-status gives way to the trailers'",
            vec![
                H(":status", "200"),
                H("content-type", "application/grpc"),
                H("grpc-status", "0"),
                End(false),
                Data(msgs(&[b"x"]), false),
                H("grpc-status", "14"),
                End(true),
            ],
            vec![b"x"],
            Some(Outcome::Status {
                code: Code::Unavailable,
                message: Brief::EMPTY,
                messages: 1,
            }),
        ),
        (
            "trailers without grpc-status",
            [head(), vec![H("x", "y"), End(true)]].concat(),
            vec![],
            Some(Outcome::Broken(GrpcError::MissingStatus)),
        ),
        (
            "a status outside 0-16",
            [head(), trailers("17")].concat(),
            vec![],
            Some(Outcome::Broken(GrpcError::BadStatus("17".into()))),
        ),
        (
            "a 503 without grpc-status",
            vec![H(":status", "503"), End(true)],
            vec![],
            Some(Outcome::Broken(GrpcError::HttpStatus(
                503,
                Code::Unavailable,
            ))),
        ),
        (
            "a 404 with a body",
            vec![
                H(":status", "404"),
                H("content-type", "text/html"),
                End(false),
            ],
            vec![],
            Some(Outcome::Broken(GrpcError::HttpStatus(
                404,
                Code::Unimplemented,
            ))),
        ),
        (
            "a body that is not gRPC",
            vec![
                H(":status", "200"),
                H("content-type", "text/plain"),
                End(false),
            ],
            vec![],
            Some(Outcome::Broken(GrpcError::NotGrpc)),
        ),
        (
            "compressed without grpc-encoding",
            [head(), vec![Data(gz_body.clone(), false)]].concat(),
            vec![],
            Some(Outcome::Broken(GrpcError::CompressedWithoutEncoding)),
        ),
        (
            "an encoding this side does not speak",
            vec![
                H(":status", "200"),
                H("content-type", "application/grpc"),
                H("grpc-encoding", "snappy"),
                End(false),
            ],
            vec![],
            Some(Outcome::Broken(GrpcError::UnknownEncoding("snappy".into()))),
        ),
        (
            "4 GiB announced",
            [head(), vec![Data(vec![0, 0xff, 0xff, 0xff, 0xff], false)]].concat(),
            vec![],
            Some(Outcome::Broken(GrpcError::TooLarge {
                len: u64::from(u32::MAX),
                max: 1024,
            })),
        ),
        (
            "a stream reset inside a message",
            [head(), vec![Data(vec![0, 0, 0, 0, 9, 1], false), Finish]].concat(),
            vec![],
            Some(Outcome::Broken(GrpcError::Truncated { have: 6, want: 14 })),
        ),
        ("nothing yet", head(), vec![], None),
    ];
    for (name, events, want_msgs, want) in cases {
        let (got, out) = run(&events);
        assert_eq!(
            got,
            want_msgs.iter().map(|m| m.to_vec()).collect::<Vec<_>>(),
            "{name}: messages"
        );
        assert_eq!(out, want, "{name}: outcome");
    }
}

#[test]
fn a_body_cut_at_every_byte_reads_the_same() {
    let body = msgs(&[b"first", b"", b"third one"]);
    for cut in 0..=body.len() {
        let events = [
            head(),
            vec![
                Data(body[..cut].to_vec(), false),
                Data(body[cut..].to_vec(), false),
            ],
            vec![H("grpc-status", "0"), End(true)],
        ]
        .concat();
        let (got, out) = run(&events);
        assert_eq!(
            got,
            vec![b"first".to_vec(), vec![], b"third one".to_vec()],
            "cut at {cut}"
        );
        assert_eq!(out, ok(3), "cut at {cut}");
    }
}

#[test]
fn a_gzip_bomb_stops_at_the_limit() {
    let bomb = Encoding::Gzip.compress(&vec![0u8; 1 << 20]);
    let mut body = Vec::new();
    encode_message(&bomb, true, &mut body).unwrap();
    let mut r = Response::new(8192, false);
    for (n, v) in [
        (":status", "200"),
        ("content-type", "application/grpc"),
        ("grpc-encoding", "gzip"),
    ] {
        r.header(n.as_bytes(), v.as_bytes());
    }
    assert_eq!(r.headers_end(false), None);
    let out = r.data(&body, false, &mut |_| panic!("no message past the limit"));
    assert_eq!(
        out,
        Some(Outcome::Broken(GrpcError::TooLarge {
            len: 8193,
            max: 8192
        }))
    );
}

/// A call whose method answers with exactly one message (unary, client-streaming): OK with one
/// is its status; OK with none (trailers-only or not) or any status with two is broken (gRPC's
/// response cardinality); another status with none is that status.
#[test]
fn a_call_that_takes_one_reply_gets_exactly_one() {
    let trailers = |status: &'static str| vec![H("grpc-status", status), End(true)];
    let trailers_only = |status: &'static str| {
        vec![
            H(":status", "200"),
            H("content-type", "application/grpc"),
            H("grpc-status", status),
            End(true),
        ]
    };
    let unavailable = |messages| {
        Some(Outcome::Status {
            code: Code::Unavailable,
            message: Brief::EMPTY,
            messages,
        })
    };
    let broken = |messages| Some(Outcome::Broken(GrpcError::Cardinality { messages }));
    let one = [head(), vec![Data(msgs(&[b"a"]), false)], trailers("0")].concat();
    let two = [
        head(),
        vec![Data(msgs(&[b"a", b"b"]), false)],
        trailers("0"),
    ]
    .concat();
    let none = [head(), trailers("0")].concat();
    let two_failed = [
        head(),
        vec![Data(msgs(&[b"a", b"b"]), false)],
        trailers("14"),
    ]
    .concat();
    // (name, events, the outcome with one reply asked, with any number)
    let cases = [
        ("one message, OK", one, ok(1), ok(1)),
        ("two messages, OK", two, broken(2), ok(2)),
        ("no message, OK", none, broken(0), ok(0)),
        ("trailers-only OK", trailers_only("0"), broken(0), ok(0)),
        (
            "trailers-only UNAVAILABLE",
            trailers_only("14"),
            unavailable(0),
            unavailable(0),
        ),
        (
            "two messages, UNAVAILABLE",
            two_failed,
            broken(2),
            unavailable(2),
        ),
    ];
    for (name, events, one_reply, any) in cases {
        assert_eq!(run_call(true, &events).1, one_reply, "{name}: one reply");
        assert_eq!(run_call(false, &events).1, any, "{name}: any number");
    }
}

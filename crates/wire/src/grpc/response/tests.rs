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

/// Runs the events; returns the messages handed out and the first outcome.
fn run(events: &[Ev]) -> (Vec<Vec<u8>>, Option<Outcome>) {
    let mut r = Response::new(1024);
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
            Some(Outcome::Broken(GrpcError::MissingStatus)),
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
    let mut r = Response::new(8192);
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

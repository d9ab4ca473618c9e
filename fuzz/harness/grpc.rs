//! Fuzzes gRPC's layer over HTTP/2 (`wire::grpc`): the input as a call's body of
//! length-prefixed messages, decoded whole, split at points drawn from a seed, and a byte at a
//! time (the three must hand out the same messages and end the same way); each compressed
//! message inflated as gzip under a small limit; and the input as a `grpc-status`,
//! `grpc-timeout` and `grpc-message` value.
//!
//! Control bytes: `data[0]` is the seed of the split points; `data[1] % 4` picks the message
//! limit (16, 256, 64 KiB, 4 MiB). The rest is the body.

use barrage_wire::grpc::{self, Code, Encoding, MessageDecoder, Outcome, Response};

use super::split;

const LIMITS: [u32; 4] = [16, 256, 64 << 10, 4 << 20];

type Out = (Vec<(bool, Vec<u8>)>, Result<(), grpc::GrpcError>);

fn decode(max: u32, body: &[u8], cuts: &[usize]) -> Out {
    let mut d = MessageDecoder::new(max);
    let mut got = Vec::new();
    let mut at = 0;
    for &c in cuts.iter().chain(std::iter::once(&body.len())) {
        let before = got.len();
        match d.feed(&body[at..c], |f, p| got.push((f, p.to_vec()))) {
            Ok(n) => assert_eq!(n, got.len() - before, "feed counts what it hands out"),
            Err(e) => return (got, Err(e)),
        }
        at = c;
    }
    (got, d.finish())
}

/// The body as a call's response (head, DATA cut at `cuts`, trailers with status 0): the
/// reply messages handed out and the outcome.
fn respond(max: u32, gzip: bool, body: &[u8], cuts: &[usize]) -> (Vec<Vec<u8>>, Outcome) {
    let mut r = Response::new(max, false);
    r.header(b":status", b"200");
    r.header(b"content-type", b"application/grpc");
    if gzip {
        r.header(b"grpc-encoding", b"gzip");
    }
    assert_eq!(r.headers_end(false), None);
    let mut got = Vec::new();
    let mut at = 0;
    for &c in cuts.iter().chain(std::iter::once(&body.len())) {
        if let Some(o) = r.data(&body[at..c], false, &mut |m| got.push(m.to_vec())) {
            return (got, o);
        }
        at = c;
    }
    r.header(b"grpc-status", b"0");
    let o = r.headers_end(true).expect("trailers end the call");
    (got, o)
}

pub fn run(data: &[u8]) {
    let [seed, limit, body @ ..] = data else {
        return;
    };
    let max = LIMITS[usize::from(*limit % 4)];
    let whole = decode(max, body, &[]);
    let cuts = split::cuts(u64::from(*seed), 4, body.len());
    assert_eq!(decode(max, body, &cuts), whole, "split at {cuts:?}");
    if body.len() <= 4096 {
        let every: Vec<usize> = (1..body.len()).collect();
        assert_eq!(decode(max, body, &every), whole, "byte by byte");
    }
    let mut held = 0usize;
    for (compressed, payload) in &whole.0 {
        assert!(payload.len() <= max as usize, "a message over the limit");
        held += grpc::PREFIX_LEN + payload.len();
        match Encoding::Gzip.decompress(*compressed, payload, max) {
            Ok(p) => assert!(p.len() <= max as usize, "inflated past the limit"),
            Err(e) => assert!(*compressed, "a plain message failed: {e}"),
        }
    }
    assert!(held <= body.len(), "more handed out than given");
    // The same body as a response: cut or not, the same replies and the same outcome; OK only
    // when every message decoded and inflated.
    let gzip = seed & 1 == 1;
    let (replies, outcome) = respond(max, gzip, body, &[]);
    assert_eq!(
        respond(max, gzip, body, &cuts),
        (replies.clone(), outcome.clone()),
        "response split at {cuts:?}"
    );
    if let Outcome::Status { code, messages, .. } = &outcome {
        assert_eq!(*code, Code::Ok);
        assert_eq!(*messages as usize, replies.len());
        assert_eq!(replies.len(), whole.0.len());
        assert!(whole.1.is_ok());
    }
    assert!(replies.iter().all(|m| m.len() <= max as usize));
    // The same bytes as header values: parsed or refused, never a panic; a code read back.
    if let Ok(c) = Code::parse(body) {
        let n: u32 = std::str::from_utf8(body).unwrap().parse().unwrap();
        assert_eq!(n, c.as_u32());
    }
    if let Ok(d) = grpc::timeout::parse(body) {
        assert!(grpc::timeout::parse(grpc::timeout::format(d).as_bytes()).unwrap() >= d);
    }
    let text = grpc::status::decode_message(body);
    assert_eq!(
        grpc::status::decode_message(grpc::status::encode_message(&text).as_bytes()),
        text
    );
}

//! A call's state from known bytes: each method's reply and status, every error a client can
//! cause, and the same answer whatever cuts the request's body.

use super::*;

/// One message of `payload` with gRPC's prefix.
fn framed(payload: &[u8]) -> Vec<u8> {
    let mut v = vec![0, 0, 0, 0, payload.len() as u8];
    v.extend_from_slice(payload);
    v
}

/// Feeds `body` cut at `cut` (whole when `cut` is 0), ends it, and takes the whole reply.
fn run(m: Method, body: &[u8], cut: usize) -> (Vec<u8>, Ended) {
    let mut c = Call::new(m);
    if cut == 0 {
        c.body(body, true);
    } else {
        c.body(&body[..cut], false);
        c.body(&body[cut..], true);
    }
    let mut out = Vec::new();
    loop {
        let p = c.pending().to_vec();
        if p.is_empty() {
            break;
        }
        c.sent(p.len());
        out.extend_from_slice(&p);
    }
    (out, c.done().expect("done").clone())
}

#[test]
fn echo_answers_its_payload_and_text_whatever_the_cut() {
    // EchoRequest { payload: "hi", text: "x" } = 0a 02 'h' 'i' 1a 01 'x'
    let req = framed(&[0x0a, 2, b'h', b'i', 0x1a, 1, b'x']);
    // EchoReply { payload: "hi", text: "x" } = 0a 02 'h' 'i' 12 01 'x'
    let want = framed(&[0x0a, 2, b'h', b'i', 0x12, 1, b'x']);
    for cut in 0..req.len() {
        let (out, end) = run(Method::Echo, &req, cut);
        assert_eq!(out, want, "cut at {cut}");
        assert_eq!(end.code, Code::Ok);
    }
}

#[test]
fn echo_with_a_size_answers_that_many_pattern_bytes() {
    // EchoRequest { size: 3 } = 10 03
    let (out, end) = run(Method::Echo, &framed(&[0x10, 3]), 0);
    let mut p = [0u8; 3];
    crate::pattern::fill(0, &mut p);
    assert_eq!(out, framed(&[0x0a, 3, p[0], p[1], p[2]]));
    assert_eq!(end.code, Code::Ok);
}

#[test]
fn stream_makes_count_messages_of_size_bytes() {
    // StreamRequest { count: 3, size: 2 } = 08 03 10 02
    let (out, end) = run(Method::Stream, &framed(&[0x08, 3, 0x10, 2]), 0);
    let mut p = [0u8; 2];
    crate::pattern::fill(0, &mut p);
    let one = framed(&[0x0a, 2, p[0], p[1]]);
    assert_eq!(out, [one.clone(), one.clone(), one].concat());
    assert_eq!(end.code, Code::Ok);
    // count 0: no message, OK.
    let (out, end) = run(Method::Stream, &framed(&[0x08, 0]), 0);
    assert!(out.is_empty());
    assert_eq!(end.code, Code::Ok);
}

#[test]
fn sum_counts_and_adds_every_message() {
    // SumRequest { value: 5 }, { value: -2 } (zigzag-free int64: two's complement varint), {}
    let minus_two = [
        0x08, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
    ];
    let body = [framed(&[0x08, 5]), framed(&minus_two), framed(&[])].concat();
    for cut in 0..body.len() {
        let (out, end) = run(Method::Sum, &body, cut);
        // SumReply { count: 3, sum: 3 } = 08 03 10 03
        assert_eq!(out, framed(&[0x08, 3, 0x10, 3]), "cut at {cut}");
        assert_eq!(end.code, Code::Ok);
    }
}

#[test]
fn chat_echoes_each_message_as_it_comes() {
    let mut c = Call::new(Method::Chat);
    c.body(&framed(&[0x0a, 1, b'a']), false);
    assert_eq!(c.pending(), &framed(&[0x0a, 1, b'a'])[..]);
    assert!(c.done().is_none(), "no status before the request's end");
    c.sent(c.held());
    c.body(&framed(&[0x0a, 1, b'b']), true);
    assert_eq!(c.pending(), &framed(&[0x0a, 1, b'b'])[..]);
    assert!(c.done().is_none(), "no status while a reply waits");
    c.sent(c.held());
    assert_eq!(c.done().map(|e| e.code), Some(Code::Ok));
}

#[test]
fn health_serves_the_test_service_and_no_other() {
    let (out, end) = run(Method::Health, &framed(&[]), 0);
    assert_eq!(out, framed(&[0x08, 1]), "SERVING");
    assert_eq!(end.code, Code::Ok);
    // HealthCheckRequest { service: "nope" }
    let (out, end) = run(
        Method::Health,
        &framed(&[0x0a, 4, b'n', b'o', b'p', b'e']),
        0,
    );
    assert!(out.is_empty());
    assert_eq!(end.code, Code::NotFound);
}

#[test]
fn a_client_error_is_a_status_never_a_reply() {
    let two = [framed(&[]), framed(&[])].concat();
    let cases: &[(Method, Vec<u8>, Code)] = &[
        // A second message on a unary call.
        (Method::Echo, two, Code::Unimplemented),
        // A compressed message on a call without grpc-encoding (gRPC says INTERNAL).
        (Method::Echo, vec![1, 0, 0, 0, 0], Code::Internal),
        // The body ends inside a message.
        (Method::Echo, vec![0, 0, 0, 0, 9, 1, 2], Code::Internal),
        // A length of 4 GiB - 1: refused before a byte of it is kept.
        (
            Method::Sum,
            vec![0, 0xff, 0xff, 0xff, 0xff],
            Code::ResourceExhausted,
        ),
        // A flag that is neither 0 nor 1.
        (Method::Sum, vec![7, 0, 0, 0, 0], Code::Internal),
        // Not protobuf (a field with wire type 7).
        (Method::Echo, framed(&[0x0f]), Code::Internal),
        // A reply larger than a reply may be.
        (
            Method::Echo,
            framed(&[0x10, 0x81, 0x80, 0x80, 0x02]),
            Code::InvalidArgument,
        ),
    ];
    for (m, body, code) in cases {
        let (out, end) = run(*m, body, 0);
        assert!(out.is_empty(), "{m:?} {body:?}");
        assert_eq!(end.code, *code, "{m:?} {body:?}: {}", end.message);
    }
}

#[test]
fn methods_by_path() {
    assert_eq!(method("/barrage.test.v1.Test/Echo"), Method::Echo);
    assert_eq!(method("/barrage.test.v1.Test/Chat"), Method::Chat);
    assert_eq!(method("/grpc.health.v1.Health/Check"), Method::Health);
    assert_eq!(method("/barrage.test.v1.Test/Nope"), Method::Unimplemented);
    assert_eq!(method("/echo"), Method::Unimplemented);
}

#[test]
fn reflection_answers_each_request_in_both_versions() {
    use barrage_proto::reflection::{Answer, Reflection, Request, Version};
    for v in [Version::V1, Version::V1Alpha] {
        let p = Reflection::new(v);
        let mut body = Vec::new();
        for r in [
            Request::ListServices,
            Request::FileContainingSymbol("barrage.test.v1.Test.Echo".into()),
            Request::FileByFilename("grpc/health/v1/health.proto".into()),
            Request::FileContainingSymbol("nope.v1.Nope".into()),
        ] {
            encode_message(&p.request(&r), false, &mut body).unwrap();
        }
        let (out, end) = run(Method::Reflection(v), &body, 0);
        assert_eq!(end.code, Code::Ok, "{v:?}");
        let mut answers = Vec::new();
        MessageDecoder::new(1 << 20)
            .feed(&out, |_, m| answers.push(p.read_answer(m).unwrap()))
            .unwrap();
        assert_eq!(answers.len(), 4, "{v:?}: one answer per request");
        assert_eq!(
            answers[0],
            Answer::Services(SERVICES.iter().map(|s| s.to_string()).collect())
        );
        let Answer::Files(files) = &answers[1] else {
            panic!("{v:?}: {:?}", answers[1]);
        };
        let schema = Schema::from_file_descriptors(files).unwrap();
        let echo = schema.method("barrage.test.v1.Test/Echo").unwrap();
        assert_eq!(echo.path(), "/barrage.test.v1.Test/Echo");
        let Answer::Files(files) = &answers[2] else {
            panic!("{v:?}: {:?}", answers[2]);
        };
        let health = Schema::from_file_descriptors(files).unwrap();
        assert!(health.method("grpc.health.v1.Health/Check").is_ok());
        assert!(
            matches!(&answers[3], Answer::Error { code: 5, message } if message.contains("nope.v1.Nope")),
            "{v:?}: {:?}",
            answers[3]
        );
    }
    assert_eq!(
        method("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"),
        Method::Reflection(Version::V1Alpha)
    );
}

#[test]
fn gzip_requests_are_inflated_whatever_the_cut() {
    // Sum of 1, 2 and 39, each message gzip-compressed: SumReply { count: 3, sum: 42 }.
    let mut body = Vec::new();
    for v in [1u8, 2, 39] {
        let z = Encoding::Gzip.compress(&[0x08, v]);
        encode_message(&z, true, &mut body).unwrap();
    }
    let want = framed(&[0x08, 3, 0x10, 42]);
    for cut in 0..body.len() {
        let mut c = Call::new(Method::Sum).with_encoding(Encoding::Gzip);
        if cut == 0 {
            c.body(&body, true);
        } else {
            c.body(&body[..cut], false);
            c.body(&body[cut..], true);
        }
        let out = c.pending().to_vec();
        c.sent(out.len());
        assert_eq!(out, want, "cut at {cut}");
        assert_eq!(c.done().unwrap().code, Code::Ok, "cut at {cut}");
    }
    // A bomb: inflated no further than the largest message taken.
    let mut bomb = Vec::new();
    let z = Encoding::Gzip.compress(&vec![0u8; (MAX_MESSAGE as usize) + 1]);
    encode_message(&z, true, &mut bomb).unwrap();
    let mut c = Call::new(Method::Echo).with_encoding(Encoding::Gzip);
    c.body(&bomb, true);
    assert!(c.pending().is_empty());
    assert_eq!(c.done().unwrap().code, Code::ResourceExhausted);
}

#[test]
fn replies_made_by_hand_are_what_prost_encodes() {
    // (size, payload, text): a pattern payload, an echoed one, a text after either, nothing.
    let cases: [(u32, &[u8], &str); 5] = [
        (3, b"", ""),
        (200, b"", "after"),
        (0, b"hi", "x"),
        (0, b"", "only text"),
        (0, b"", ""),
    ];
    for (size, payload, text) in cases {
        let req = pb::EchoRequest {
            payload: payload.to_vec(),
            size,
            text: text.into(),
        };
        let (out, end) = run(Method::Echo, &framed(&req.encode_to_vec()), 0);
        assert_eq!(end.code, Code::Ok);
        let want_payload = if size > 0 {
            let mut p = vec![0u8; size as usize];
            crate::pattern::fill(0, &mut p);
            p
        } else {
            payload.to_vec()
        };
        let want = pb::EchoReply {
            payload: want_payload,
            text: text.into(),
        };
        let mut framed_want = Vec::new();
        encode_message(&want.encode_to_vec(), false, &mut framed_want).unwrap();
        assert_eq!(out, framed_want, "{size} {payload:?} {text:?}");
    }
}

#[test]
fn chat_holds_a_piece_of_its_replies_and_the_requests_as_they_came() {
    // 50 requests of 10 bytes, each asking for 1 MiB: made one piece at a time as they go.
    let size = 1 << 20;
    let one = framed(
        &pb::EchoRequest {
            size,
            ..Default::default()
        }
        .encode_to_vec(),
    );
    let body = one.repeat(50);
    let mut c = Call::new(Method::Chat);
    c.body(&body, true);
    assert_eq!(c.held(), body.len(), "nothing made before it is asked for");
    let mut replies = 0;
    let mut most = 0;
    let mut seen = 0u64;
    let mut d = MessageDecoder::new(MAX_REPLY + 16);
    let mut bad = 0;
    loop {
        let p = c.pending().to_vec();
        if p.is_empty() {
            break;
        }
        most = most.max(c.held());
        seen += p.len() as u64;
        c.sent(p.len());
        d.feed(&p, |_, m| {
            replies += 1;
            match pb::EchoReply::decode(m) {
                Ok(r) if r.payload.len() == size as usize => {
                    let mut want = vec![0u8; size as usize];
                    crate::pattern::fill(0, &mut want);
                    bad += usize::from(r.payload != want);
                }
                _ => bad += 1,
            }
        })
        .unwrap();
    }
    assert_eq!(replies, 50);
    assert_eq!(bad, 0);
    assert_eq!(seen, 50 * (5 + 1 + 3 + u64::from(size)));
    // A piece and the requests not answered yet, never a reply whole.
    assert!(most <= PIECE + body.len(), "{most} bytes held");
    assert_eq!(c.done().map(|e| e.code), Some(Code::Ok));
}

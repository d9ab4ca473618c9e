//! Response tests: a response (1xx, DATA with an unknown frame between, trailers) split at every
//! byte, the message rules each broken alone, frames a request stream may not carry, a section
//! past the limit, and a section blocked on inserts resumed when they arrive.

use super::*;
use crate::h3::frame::{self as fr, Frame as F};
use crate::h3::qpack::Encoder;

fn section(fields: &[(&str, &str)]) -> Vec<u8> {
    let mut b = Vec::new();
    Encoder::new().encode(
        fields.iter().map(|(n, v)| (n.as_bytes(), v.as_bytes())),
        &mut b,
    );
    b
}

fn headers(fields: &[(&str, &str)], out: &mut Vec<u8>) {
    fr::write_headers(&section(fields), out);
}

fn decoder() -> Decoder {
    Decoder::new(4096, 16, Some(1024))
}

/// What feeding `pieces` in order and then the stream's end gives: the first step that was not
/// `More`, or the end.
fn outcome(pieces: &[&[u8]], head: bool, expect: Option<&[u8]>) -> Result<String, H3Error> {
    let mut r = Response::new(head);
    let (mut q, mut acks) = (decoder(), Vec::new());
    for p in pieces {
        match r.feed(0, p, &mut q, &mut acks, expect)? {
            Step::More => {}
            s => return Ok(format!("{s:?}")),
        }
    }
    Ok(format!("{:?}", r.end(expect)?))
}

/// A response with a 1xx first, a body in two DATA frames, an unknown frame between them, and
/// trailers.
fn full() -> Vec<u8> {
    let mut b = Vec::new();
    headers(&[(":status", "103"), ("link", "</a>")], &mut b);
    headers(&[(":status", "200"), ("content-length", "11")], &mut b);
    fr::write_data(b"hello", &mut b);
    fr::write_header(0x21, 3, &mut b);
    b.extend_from_slice(b"xyz");
    fr::write_data(b" world", &mut b);
    headers(&[("x-trailer", "1")], &mut b);
    b
}

#[test]
fn a_response_split_anywhere_decodes_the_same() {
    let bytes = full();
    let expect = Some(&b"hello world"[..]);
    let whole = outcome(&[&bytes], false, expect).unwrap();
    assert_eq!(whole, "Response { status: 200, body_ok: true }");
    for cut in 0..=bytes.len() {
        let (a, b) = bytes.split_at(cut);
        assert_eq!(outcome(&[a, b], false, expect).unwrap(), whole, "cut {cut}");
    }
    let singles: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(outcome(&singles, false, expect).unwrap(), whole);
    // The wrong body, whatever the split.
    for cut in [0, 7, bytes.len() / 2] {
        let (a, b) = bytes.split_at(cut);
        assert_eq!(
            outcome(&[a, b], false, Some(b"hello_world")).unwrap(),
            "Response { status: 200, body_ok: false }"
        );
    }
}

#[test]
fn responses_breaking_the_message_rules_fail_their_stream() {
    let with = |fields: &[(&str, &str)], body: &[u8]| {
        let mut b = Vec::new();
        headers(fields, &mut b);
        if !body.is_empty() {
            fr::write_data(body, &mut b);
        }
        b
    };
    let malformed = "Malformed(Message)";
    let cases: Vec<(&str, Vec<u8>, bool, &str)> = vec![
        ("no status", with(&[("server", "x")], b""), false, malformed),
        (
            "status not 3 digits",
            with(&[(":status", "20")], b""),
            false,
            malformed,
        ),
        (
            "only an interim response",
            with(&[(":status", "100")], b""),
            false,
            malformed,
        ),
        (
            "two content-lengths that differ",
            with(
                &[
                    (":status", "200"),
                    ("content-length", "1"),
                    ("content-length", "2"),
                ],
                b"x",
            ),
            false,
            malformed,
        ),
        (
            "content-length not a number",
            with(&[(":status", "200"), ("content-length", "1x")], b""),
            false,
            malformed,
        ),
        (
            "body longer than content-length",
            with(&[(":status", "200"), ("content-length", "1")], b"xy"),
            false,
            malformed,
        ),
        (
            "body shorter than content-length",
            with(&[(":status", "200"), ("content-length", "3")], b"xy"),
            false,
            malformed,
        ),
        (
            "HEAD: content-length without content",
            with(&[(":status", "200"), ("content-length", "9")], b""),
            true,
            "Response { status: 200, body_ok: true }",
        ),
        (
            "204 with content",
            with(&[(":status", "204")], b"x"),
            false,
            malformed,
        ),
        (
            "no expected body: any body",
            with(&[(":status", "404")], b"anything"),
            false,
            "Response { status: 404, body_ok: true }",
        ),
    ];
    for (what, bytes, head, want) in cases {
        assert_eq!(outcome(&[&bytes], head, None).unwrap(), want, "{what}");
    }
}

#[test]
fn a_pseudo_header_field_in_trailers_is_malformed_at_every_split() {
    // RFC 9114 §4.1.2 and §4.3: pseudo-header fields are not allowed in trailers, whichever
    // (a response's own :status included).
    for pseudo in [(":status", "200"), (":path", "/"), (":x", "y")] {
        let mut b = Vec::new();
        headers(&[(":status", "200"), ("content-length", "2")], &mut b);
        fr::write_data(b"ok", &mut b);
        headers(&[("x-sum", "1"), pseudo], &mut b);
        for cut in 0..=b.len() {
            let (x, y) = b.split_at(cut);
            assert_eq!(
                outcome(&[x, y], false, Some(b"ok")).unwrap(),
                "Malformed(Message)",
                "{pseudo:?} cut {cut}"
            );
        }
    }
}

#[test]
fn frames_a_request_stream_may_not_carry_and_truncation_end_the_connection() {
    // An invalid sequence (RFC 9114 §4.1): DATA before the final HEADERS (also after a 1xx),
    // DATA or HEADERS after the trailers.
    let mut data_first = Vec::new();
    fr::write_data(b"x", &mut data_first);
    let mut interim_data = Vec::new();
    headers(&[(":status", "100")], &mut interim_data);
    fr::write_data(b"x", &mut interim_data);
    let mut after_trailers = Vec::new();
    headers(&[(":status", "200")], &mut after_trailers);
    headers(&[("x-trailer", "1")], &mut after_trailers);
    let mut headers_after = after_trailers.clone();
    fr::write_data(b"x", &mut after_trailers);
    headers(&[("x-trailer", "2")], &mut headers_after);
    for (what, bytes) in [
        ("DATA first", &data_first),
        ("DATA after a 1xx", &interim_data),
        ("DATA after trailers", &after_trailers),
        ("HEADERS after trailers", &headers_after),
    ] {
        for cut in 0..=bytes.len() {
            let (a, b) = bytes.split_at(cut);
            let e = outcome(&[a, b], false, None).unwrap_err();
            assert_eq!(e.code, ErrorCode::FrameUnexpected, "{what}, cut {cut}");
        }
    }

    let mut settings = Vec::new();
    headers(&[(":status", "200")], &mut settings);
    fr::write_frame(&F::Settings(Default::default()), &mut settings);
    let e = outcome(&[&settings], false, None).unwrap_err();
    assert_eq!(e.code, ErrorCode::FrameUnexpected);

    let mut push = Vec::new();
    fr::write_push_promise(0, &section(&[(":method", "GET")]), &mut push);
    assert_eq!(
        outcome(&[&push], false, None).unwrap_err().code,
        ErrorCode::Id
    );

    let mut cut = Vec::new();
    headers(&[(":status", "200")], &mut cut);
    fr::write_data(b"abc", &mut cut);
    cut.pop();
    let e = outcome(&[&cut], false, None).unwrap_err();
    assert_eq!(e.code, ErrorCode::Frame);

    // A broken section is QPACK's connection error.
    let mut bad = Vec::new();
    fr::write_headers(&[0x00, 0x00, 0xff], &mut bad);
    let e = outcome(&[&bad], false, None).unwrap_err();
    assert_eq!(e.code, ErrorCode::QpackDecompressionFailed);
}

#[test]
fn a_section_past_the_limit_fails_only_its_request() {
    let big = "v".repeat(2000);
    let mut b = Vec::new();
    headers(&[(":status", "200"), ("x-big", &big)], &mut b);
    assert_eq!(outcome(&[&b], false, None).unwrap(), "TooLarge");
}

#[test]
fn a_section_waiting_for_inserts_resumes_when_they_arrive() {
    // The encoder stream inserts ("x-a", "1"); the section refers to it (Required Insert
    // Count 1, Base 1, relative index 0) after :status 200 from the static table.
    let mut ins = Vec::new();
    // Set Dynamic Table Capacity 4096: 001 + 5-bit prefix integer.
    ins.extend_from_slice(&[0x3f, 0xe1, 0x1f]);
    // Insert With Literal Name: 01 H len(5) name, H len(7) value.
    ins.extend_from_slice(&[0x43, b'x', b'-', b'a', 0x01, b'1']);
    // Required Insert Count 1 encodes as 2 (RIC mod 2*MaxEntries + 1, MaxEntries 128); delta
    // base 0; then indexed static :status 200 (index 25) and indexed dynamic relative 0.
    let block = [0x02, 0x00, 0xc0 | 25, 0x80];
    let mut bytes = Vec::new();
    fr::write_headers(&block, &mut bytes);
    fr::write_data(b"ok", &mut bytes);

    let mut q = decoder();
    let mut acks = Vec::new();
    let mut r = Response::new(false);
    assert_eq!(
        r.feed(4, &bytes[..bytes.len() - 1], &mut q, &mut acks, Some(b"ok")),
        Ok(Step::Blocked)
    );
    assert!(r.is_blocked());
    // Bytes read before the block was known are kept, not lost.
    assert_eq!(
        r.feed(4, &bytes[bytes.len() - 1..], &mut q, &mut acks, Some(b"ok")),
        Ok(Step::Blocked)
    );
    assert_eq!(q.feed_encoder_stream(&ins), Ok(ins.len()));
    assert_eq!(r.resume(4, &mut q, &mut acks, Some(b"ok")), Ok(Step::More));
    assert!(!r.is_blocked());
    // Section Acknowledgment for stream 4: 1 + stream id in 7 bits.
    assert_eq!(acks, vec![0x84]);
    assert_eq!(
        r.end(Some(b"ok")),
        Ok(Ended::Response {
            status: 200,
            body_ok: true
        })
    );
}

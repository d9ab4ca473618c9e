use super::*;
use crate::h3::client::Request as ClientRequest;
use crate::h3::frame;
use crate::h3::qpack::Encoder;

fn decoder() -> Decoder {
    Decoder::new(0, 0, Some(64 * 1024))
}

/// Feeds `bytes` in two pieces split at `at`: (heads, body, step, end).
fn run(bytes: &[u8], at: usize) -> (Vec<Head>, Vec<u8>, Step, Result<bool, H3Error>) {
    let mut q = decoder();
    let mut r = Request::new();
    let mut heads = Vec::new();
    let mut body = Vec::new();
    let mut on = |p: Part<'_>| match p {
        Part::Head(h) => heads.push(h),
        Part::Data(d) => body.extend_from_slice(d),
    };
    let mut step = Step::More;
    for piece in [&bytes[..at], &bytes[at..]] {
        match r.feed(0, piece, &mut q, &mut on) {
            Ok(Step::More) => {}
            Ok(s) => step = s,
            Err(e) => return (heads, body, step, Err(e)),
        }
    }
    (heads, body, step, r.end())
}

#[test]
fn a_request_split_at_every_byte_decodes_the_same() {
    let h = vec![("x-a".to_string(), "1".to_string())];
    let req = ClientRequest::new("POST", "https", "h", "/echo?x=1", &h, b"hello body");
    let bytes = req.bytes();
    for at in 0..=bytes.len() {
        let (heads, body, step, end) = run(bytes, at);
        assert_eq!(step, Step::More, "{at}");
        assert_eq!(end, Ok(true), "{at}");
        assert_eq!(heads.len(), 1);
        let h = &heads[0];
        assert_eq!((h.method.as_str(), h.path.as_str()), ("POST", "/echo?x=1"));
        assert_eq!(h.content_length, Some(10));
        assert!(h.headers.contains(&("x-a".to_string(), "1".to_string())));
        assert_eq!(body, b"hello body");
    }
}

fn headers(fields: &[(&str, &str)]) -> Vec<u8> {
    let mut block = Vec::new();
    Encoder::new().encode(
        fields.iter().map(|(n, v)| (n.as_bytes(), v.as_bytes())),
        &mut block,
    );
    let mut out = Vec::new();
    frame::write_headers(&block, &mut out);
    out
}

#[test]
fn message_rules_reset_the_stream() {
    let base = [(":method", "GET"), (":scheme", "https"), (":path", "/")];
    let cases: Vec<Vec<(&str, &str)>> = vec![
        vec![(":method", "GET"), (":scheme", "https")],
        vec![
            (":method", "GET"),
            (":method", "GET"),
            (":scheme", "https"),
            (":path", "/"),
        ],
        vec![
            (":method", "GET"),
            ("a", "b"),
            (":scheme", "https"),
            (":path", "/"),
        ],
        vec![base[0], base[1], base[2], ("Upper", "x")],
        vec![base[0], base[1], base[2], ("connection", "close")],
        vec![base[0], base[1], base[2], (":status", "200")],
        vec![base[0], base[1], base[2], ("content-length", "x")],
    ];
    for c in cases {
        let (heads, _, step, end) = run(&headers(&c), 0);
        assert!(heads.is_empty(), "{c:?}");
        assert_eq!(step, Step::Malformed(ErrorCode::Message), "{c:?}");
        assert_eq!(end, Ok(false));
    }
    // A body longer, or shorter, than its content-length.
    let mut long = headers(&[base[0], base[1], base[2], ("content-length", "2")]);
    frame::write_data(b"abc", &mut long);
    assert_eq!(run(&long, 0).2, Step::Malformed(ErrorCode::Message));
    let mut short = headers(&[base[0], base[1], base[2], ("content-length", "4")]);
    frame::write_data(b"abc", &mut short);
    assert_eq!(run(&short, 0).3, Ok(false));
}

/// A request with a body and trailers whose fields are `trailer`.
fn with_trailers(trailer: &[(&str, &str)]) -> Vec<u8> {
    let mut b = headers(&[
        (":method", "POST"),
        (":scheme", "https"),
        (":path", "/echo"),
    ]);
    frame::write_data(b"abc", &mut b);
    b.extend_from_slice(&headers(trailer));
    b
}

#[test]
fn a_pseudo_header_field_in_trailers_is_malformed_at_every_split() {
    // Regular trailers are read and dropped; a pseudo-header field among them (RFC 9114
    // §4.1.2, §4.3) makes the request malformed (H3_MESSAGE_ERROR), whatever the split.
    let fine = with_trailers(&[("x-sum", "1")]);
    let bad: Vec<(&str, Vec<u8>)> = vec![
        (":path", with_trailers(&[(":path", "/other")])),
        (
            ":status",
            with_trailers(&[("x-sum", "1"), (":status", "200")]),
        ),
        (":unknown", with_trailers(&[(":x", "y")])),
    ];
    for at in 0..=fine.len() {
        let (heads, body, step, end) = run(&fine, at);
        assert_eq!((heads.len(), &body[..], step), (1, &b"abc"[..], Step::More));
        assert_eq!(end, Ok(true), "{at}");
    }
    for (what, bytes) in &bad {
        for at in 0..=bytes.len() {
            let (heads, body, step, end) = run(bytes, at);
            assert_eq!(heads.len(), 1, "{what} {at}");
            assert_eq!(body, b"abc", "{what} {at}");
            assert_eq!(step, Step::Malformed(ErrorCode::Message), "{what} {at}");
            assert_eq!(end, Ok(false), "{what} {at}");
        }
    }
}

#[test]
fn frame_and_qpack_errors_are_the_connections() {
    let mut data_first = Vec::new();
    frame::write_data(b"x", &mut data_first);
    let e = run(&data_first, 0).3.unwrap_err();
    assert_eq!(e.code, ErrorCode::FrameUnexpected);
    let mut goaway = headers(&[(":method", "GET"), (":scheme", "https"), (":path", "/")]);
    frame::write_goaway(0, &mut goaway);
    assert_eq!(
        run(&goaway, 0).3.unwrap_err().code,
        ErrorCode::FrameUnexpected
    );
    // A section with a Required Insert Count, though the table is 0.
    let mut dynamic = Vec::new();
    frame::write_headers(&[0x02, 0x00, 0x80], &mut dynamic);
    assert_eq!(
        run(&dynamic, 0).3.unwrap_err().code,
        ErrorCode::QpackDecompressionFailed
    );
    // A FIN inside a frame.
    let whole = headers(&[(":method", "GET"), (":scheme", "https"), (":path", "/")]);
    let mut r = Request::new();
    let mut q = decoder();
    r.feed(0, &whole[..whole.len() - 1], &mut q, &mut |_| {})
        .unwrap();
    assert_eq!(r.end().unwrap_err().code, ErrorCode::Frame);
}

#[test]
fn a_section_past_the_limit_is_too_large() {
    let big = "v".repeat(2000);
    let bytes = headers(&[
        (":method", "GET"),
        (":scheme", "https"),
        (":path", "/"),
        ("x", &big),
    ]);
    let mut q = Decoder::new(0, 0, Some(1000));
    let mut r = Request::new();
    assert_eq!(r.feed(0, &bytes, &mut q, &mut |_| {}), Ok(Step::TooLarge));
}

//! The message decoder against known bodies, and the same body cut at every byte and fed a byte
//! at a time.

use super::*;

/// The messages handed out (flag, payload).
type Messages = Vec<(bool, Vec<u8>)>;
/// A known body: its name, its bytes, the messages and the end it must give.
type Case = (&'static str, Vec<u8>, Messages, Result<(), GrpcError>);

/// Every message `d` hands out for `input` fed in the pieces `cuts` make, and the result.
fn decode_cut(max: u32, input: &[u8], cuts: &[usize]) -> (Messages, Result<(), GrpcError>) {
    let mut d = MessageDecoder::new(max);
    let mut got = Vec::new();
    let mut at = 0;
    for &c in cuts.iter().chain(std::iter::once(&input.len())) {
        if let Err(e) = d.feed(&input[at..c], |f, p| got.push((f, p.to_vec()))) {
            return (got, Err(e));
        }
        at = c;
    }
    (got, d.finish())
}

fn body(messages: &[(bool, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (f, p) in messages {
        encode_message(p, *f, &mut out).unwrap();
    }
    out
}

#[test]
fn encodes_the_prefix() {
    let mut out = Vec::new();
    encode_message(b"abc", false, &mut out).unwrap();
    encode_message(b"", true, &mut out).unwrap();
    assert_eq!(out, [0, 0, 0, 0, 3, b'a', b'b', b'c', 1, 0, 0, 0, 0]);
}

#[test]
fn known_bodies() {
    let big = vec![7u8; 300];
    let cases: Vec<Case> = vec![
        ("empty body", vec![], vec![], Ok(())),
        (
            "one message",
            body(&[(false, b"hello")]),
            vec![(false, b"hello".to_vec())],
            Ok(()),
        ),
        (
            "three, one compressed, one empty",
            body(&[(false, b"a"), (true, b"zz"), (false, b"")]),
            vec![
                (false, b"a".to_vec()),
                (true, b"zz".to_vec()),
                (false, vec![]),
            ],
            Ok(()),
        ),
        (
            "at the limit",
            body(&[(false, &big)]),
            vec![(false, big.clone())],
            Ok(()),
        ),
        (
            "a prefix cut short",
            vec![0, 0, 0],
            vec![],
            Err(GrpcError::Truncated { have: 3, want: 5 }),
        ),
        (
            "a message cut short",
            vec![0, 0, 0, 0, 4, b'a', b'b'],
            vec![],
            Err(GrpcError::Truncated { have: 7, want: 9 }),
        ),
        (
            "flag 2",
            vec![2, 0, 0, 0, 0],
            vec![],
            Err(GrpcError::BadFlag(2)),
        ),
        (
            "4 GiB announced",
            vec![0, 0xff, 0xff, 0xff, 0xff, 1, 2, 3],
            vec![],
            Err(GrpcError::TooLarge {
                len: u64::from(u32::MAX),
                max: 300,
            }),
        ),
        (
            "one over the limit after a good one",
            [body(&[(false, b"ok")]), vec![0, 0, 0, 1, 45]].concat(),
            vec![(false, b"ok".to_vec())],
            Err(GrpcError::TooLarge { len: 301, max: 300 }),
        ),
    ];
    for (name, input, want, end) in cases {
        let (got, r) = decode_cut(300, &input, &[]);
        assert_eq!(got, want, "{name}: messages");
        assert_eq!(r, end, "{name}: end");
        // Cut at every byte: the same messages and the same end.
        for cut in 0..=input.len() {
            let (got, r) = decode_cut(300, &input, &[cut]);
            assert_eq!(got, want, "{name}: messages, cut at {cut}");
            assert_eq!(r, end, "{name}: end, cut at {cut}");
        }
        // A byte at a time.
        let every: Vec<usize> = (1..input.len()).collect();
        let (got, r) = decode_cut(300, &input, &every);
        assert_eq!(got, want, "{name}: messages, bytewise");
        assert_eq!(r, end, "{name}: end, bytewise");
    }
}

#[test]
fn a_broken_stream_stays_broken() {
    let mut d = MessageDecoder::new(10);
    assert_eq!(
        d.feed(&[9, 0, 0, 0, 0], |_, _| panic!("nothing")),
        Err(GrpcError::BadFlag(9))
    );
    assert_eq!(
        d.feed(&body(&[(false, b"x")]), |_, _| panic!("nothing")),
        Err(GrpcError::BadFlag(9))
    );
    assert_eq!(d.finish(), Err(GrpcError::BadFlag(9)));
    assert!(!d.is_idle());
}

#[test]
fn holds_no_more_than_it_was_sent() {
    // A peer announcing the limit and sending one byte of it: the decoder holds one byte.
    let mut d = MessageDecoder::new(4 << 20);
    let mut p = vec![0];
    p.extend_from_slice(&(4u32 << 20).to_be_bytes());
    p.push(b'x');
    assert_eq!(d.feed(&p, |_, _| panic!("incomplete")), Ok(0));
    assert!(d.buf.capacity() < 64, "held {} bytes", d.buf.capacity());
    assert!(!d.is_idle());
}

proptest::proptest! {
    #[test]
    fn any_cut_of_any_messages(
        msgs in proptest::collection::vec((proptest::bool::ANY, proptest::collection::vec(proptest::num::u8::ANY, 0..40)), 0..6),
        cuts in proptest::collection::vec(0usize..300, 0..8),
    ) {
        let m: Vec<(bool, &[u8])> = msgs.iter().map(|(f, p)| (*f, &p[..])).collect();
        let input = body(&m);
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(input.len())).collect();
        cuts.sort_unstable();
        let (got, r) = decode_cut(1000, &input, &cuts);
        proptest::prop_assert_eq!(r, Ok(()));
        proptest::prop_assert_eq!(got, msgs);
    }
}

#[test]
fn feed_one_stops_after_each_message_at_every_cut() {
    let input = body(&[
        (false, b"a"),
        (true, b"zz"),
        (false, b""),
        (false, &[9u8; 40]),
    ]);
    let want: Messages = vec![
        (false, b"a".to_vec()),
        (true, b"zz".to_vec()),
        (false, vec![]),
        (false, vec![9u8; 40]),
    ];
    for cut in 0..=input.len() {
        let mut d = MessageDecoder::new(64);
        let mut got = Vec::new();
        for piece in [&input[..cut], &input[cut..]] {
            let mut rest = piece;
            loop {
                let before = got.len();
                let (used, one) = d.feed_one(rest, |f, p| got.push((f, p.to_vec()))).unwrap();
                // At most one message a call, and a call that hands none out used it all.
                assert_eq!(got.len() - before, usize::from(one), "cut {cut}");
                assert!(one || used == rest.len(), "cut {cut}");
                rest = &rest[used..];
                if rest.is_empty() {
                    break;
                }
            }
        }
        assert_eq!(got, want, "cut {cut}");
        assert_eq!(d.finish(), Ok(()));
    }
}

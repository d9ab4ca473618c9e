//! FastCGI's records cut at every byte and its name-value pairs at both length forms; the
//! sessions' own tests are beside them (`client/tests.rs`, `server/tests.rs`).

use super::*;
pub(super) fn read_all(input: &[u8], cuts: &[usize]) -> Result<Vec<(u8, u16, Vec<u8>)>, FcgiError> {
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

//! The HTTP/3 codec against an independent implementation: aioquic (PyPI; scripts/test installs
//! it in its tools venv), whose QPACK is pylsqpack, the bindings of ls-qpack (LiteSpeed's QPACK,
//! with a dynamic table). `h3_peers/qpack_peer.py` runs it as a subprocess speaking hex lines:
//! its encoder's sections (and encoder stream) decoded by ours, with our decoder-stream bytes fed
//! back to its encoder, which checks them; our encoder's sections decoded by its decoder; and a
//! frame sequence aioquic wrote read by our frame decoder.

use barrage_testkit::Proc;
use barrage_wire::h3::frame::{Event, Frame, FrameDecoder};
use barrage_wire::h3::qpack::{Decoded, Decoder, Encoder};
use barrage_wire::h3::Settings;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};

/// The Python that has aioquic; `None` when the test is skipped (barrage_testkit::python).
fn python() -> Option<PathBuf> {
    barrage_testkit::python("pylsqpack, aioquic.h3.connection", "aioquic")
}

fn peer(py: &Path, args: &[&str]) -> (Proc, ChildStdin, BufReader<ChildStdout>) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/h3_peers/qpack_peer.py");
    let mut child = Command::new(py)
        .arg(script)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python starts");
    let stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    (Proc(child), stdin, stdout)
}

fn unhex(s: &str) -> Vec<u8> {
    if s == "-" {
        return Vec::new();
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn hex(b: &[u8]) -> String {
    if b.is_empty() {
        return "-".into();
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}

type Fields = Vec<(Vec<u8>, Vec<u8>)>;

fn line(r: &mut impl BufRead) -> String {
    let mut l = String::new();
    r.read_line(&mut l).unwrap();
    assert!(!l.is_empty(), "the peer ended early");
    l.trim_end().to_string()
}

/// Reads "field N V" lines up to "end".
fn read_fields(r: &mut impl BufRead) -> Fields {
    let mut f = Vec::new();
    loop {
        let l = line(r);
        if l == "end" {
            return f;
        }
        let w: Vec<&str> = l.split(' ').collect();
        assert_eq!(w[0], "field", "{l}");
        f.push((unhex(w[1]), unhex(w[2])));
    }
}

/// One section of the peer's encoder: its stream (none for the settings' encoder-stream bytes),
/// the encoder-stream bytes it produced, the block, and the fields it was given.
struct Section {
    stream: Option<u64>,
    encoder_stream: Vec<u8>,
    block: Vec<u8>,
    fields: Fields,
}

fn theirs_decoded_by_ours(py: &Path, capacity: u64, blocked: u64) {
    let (_p, mut stdin, mut out) =
        peer(py, &["encode", &capacity.to_string(), &blocked.to_string()]);
    let mut sections = Vec::new();
    loop {
        let l = line(&mut out);
        if l == "done" {
            break;
        }
        let w: Vec<&str> = l.split(' ').collect();
        assert_eq!(w[0], "section", "{l}");
        sections.push(Section {
            stream: w[1].parse().ok(),
            encoder_stream: unhex(w[2]),
            block: unhex(w[3]),
            fields: read_fields(&mut out),
        });
    }
    assert!(sections.len() > 40);

    let mut d = Decoder::new(capacity, blocked, Some(64 * 1024));
    let mut carry = Vec::new();
    let mut decoder_stream = Vec::new();
    let (mut were_blocked, mut used_table) = (0, 0);
    for s in &sections {
        let mut got = Vec::new();
        let mut first = None;
        if let Some(stream) = s.stream {
            // Decoded before its inserts arrive: blocked if it needs them.
            first = Some(d.decode(stream, &s.block, |n, v| got.push((n.to_vec(), v.to_vec()))));
        }
        // The encoder stream arrives in two pieces, the first ending inside an instruction.
        let half = s.encoder_stream.len() / 2;
        for piece in [&s.encoder_stream[..half], &s.encoder_stream[half..]] {
            carry.extend_from_slice(piece);
            let n = d.feed_encoder_stream(&carry).unwrap();
            carry.drain(..n);
        }
        let Some(stream) = s.stream else { continue };
        let r = match first.unwrap().unwrap() {
            Decoded::Blocked { .. } => {
                assert!(got.is_empty());
                were_blocked += 1;
                d.decode(stream, &s.block, |n, v| got.push((n.to_vec(), v.to_vec())))
                    .unwrap()
            }
            done => done,
        };
        let Decoded::Done {
            required_insert_count,
        } = r
        else {
            panic!("stream {stream} still blocked after its inserts: {r:?}");
        };
        assert_eq!(got, s.fields, "stream {stream}");
        if required_insert_count > 0 {
            used_table += 1;
        }
        d.ack_section(stream, required_insert_count, &mut decoder_stream);
    }
    assert!(carry.is_empty());
    d.ack_inserts(&mut decoder_stream);
    // The peer's table was really used, and sections did wait for their inserts.
    assert!(
        used_table > 10,
        "{used_table} sections used the dynamic table"
    );
    assert!(were_blocked > 0);
    assert!(d.table().size() <= capacity);
    // Our acknowledgments, fed to the peer's encoder, which refuses wrong ones.
    writeln!(stdin, "{}", hex(&decoder_stream)).unwrap();
    drop(stdin);
    assert_eq!(line(&mut out), "ok");
}

#[test]
fn aioquic_encodes_and_we_decode_with_the_dynamic_table() {
    let Some(py) = python() else { return };
    theirs_decoded_by_ours(&py, 4096, 100);
    // A small table: entries are evicted all along.
    theirs_decoded_by_ours(&py, 256, 100);
}

#[test]
fn we_encode_and_aioquic_decodes() {
    let Some(py) = python() else { return };
    let long = vec![b'z'; 5000];
    let mut sections: Vec<Vec<(&[u8], &[u8])>> = vec![
        barrage_wire::h3::qpack::table::STATIC.to_vec(),
        vec![
            (b":method", b"POST"),
            (b":scheme", b"https"),
            (b":authority", b"localhost:8443"),
            (b":path", b"/echo?x=1"),
            (b"content-type", b"application/octet-stream"),
            (b"x-empty", b""),
            (b"x-binary", b"\x00\x01\xfe\xff"),
            (b"x-long", &long),
        ],
    ];
    sections.push(vec![(b":status", b"200"), (b"content-length", b"0")]);
    let (_p, mut stdin, mut out) = peer(&py, &["decode", "0", "0"]);
    for (i, s) in sections.iter().enumerate() {
        let mut block = Vec::new();
        Encoder::new().encode(s.iter().copied(), &mut block);
        writeln!(stdin, "section {} {}", 4 * i, hex(&block)).unwrap();
    }
    drop(stdin);
    for s in &sections {
        let want: Fields = s.iter().map(|(n, v)| (n.to_vec(), v.to_vec())).collect();
        assert_eq!(read_fields(&mut out), want);
    }
}

#[test]
fn aioquic_frames_decode() {
    let Some(py) = python() else { return };
    let (_p, stdin, mut out) = peer(&py, &["frames"]);
    drop(stdin);
    let bytes = unhex(&line(&mut out));
    // Byte by byte, to pass every boundary.
    let mut d = FrameDecoder::new(1024);
    let mut seen = Vec::new();
    let mut body = Vec::new();
    let mut carry = Vec::new();
    for b in &bytes {
        carry.push(*b);
        loop {
            let (n, ev) = d.next(&carry).unwrap();
            let more = ev.is_some();
            match ev {
                Some(Event::DataChunk(c)) => body.extend_from_slice(c),
                Some(e) => seen.push(format!("{e:?}")),
                None => {}
            }
            carry.drain(..n);
            if !more {
                break;
            }
        }
    }
    assert!(carry.is_empty() && d.at_frame_boundary());
    let settings = Settings {
        qpack_max_table_capacity: 4096,
        max_field_section_size: Some(16384),
        qpack_blocked_streams: 16,
    };
    assert_eq!(
        seen,
        [
            format!("{:?}", Event::Frame(Frame::Settings(settings))),
            format!("{:?}", Event::Frame(Frame::Headers(&[0, 0, 0xd1, 0xc1]))),
            format!("{:?}", Event::Data { len: 500 }),
            format!("{:?}", Event::Data { len: 0 }),
            format!("{:?}", Event::Frame(Frame::MaxPushId(16384))),
            format!("{:?}", Event::Frame(Frame::GoAway(1 << 40))),
        ]
    );
    assert_eq!(body, b"hello".repeat(100));
}

//! `barrage serve`'s peak memory against a client that asks for much and reads nothing, measured
//! as the kernel sees it: the server is a child process (this test binary run as `serve`, its
//! own `main`, no harness), and its peak RSS is its `VmHWM`.
//!
//! - gRPC `Chat` asked for large replies: 480 bytes of requests (48 messages asking for 4 MiB
//!   each, on two calls) while the client reads nothing. Before, every reply of a read was made
//!   at once (96 MiB per DATA frame here; 444 MiB for 1 KB in issue 57); now a call makes its
//!   reply a piece at a time as the stream takes it, so what the server holds is the
//!   connection's high-water mark of output and a piece per call. Then the client reads, and
//!   every reply is there, whole and exact.

use barrage_wire::grpc::MessageDecoder;
use barrage_wire::h2::{frame, hpack, parse_frame, Frame, PREFACE};
use barrage_wire::pattern;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("serve") {
        return serve();
    }
    let tests: [(&str, fn()); 1] = [(
        "chat_asking_for_large_replies_without_reading_holds_the_high_water_mark",
        chat_asking_for_large_replies_without_reading_holds_the_high_water_mark,
    )];
    let filter: Vec<&String> = args[1..].iter().filter(|a| !a.starts_with('-')).collect();
    let mut failed = 0;
    for (name, run) in tests {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        eprintln!("test {name} ...");
        let ok = std::panic::catch_unwind(run).is_ok();
        eprintln!("test {name} ... {}", if ok { "ok" } else { "FAILED" });
        failed += usize::from(!ok);
    }
    if failed > 0 {
        std::process::exit(1);
    }
}

/// The child: a server on port 0 with one worker, its address on the first line, until its
/// stdin closes (the test ended, or died).
fn serve() {
    let server = barrage_server::start(barrage_server::ServerConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        threads: 1,
        ..Default::default()
    })
    .expect("server starts");
    println!("listening on {}", server.local_addr());
    std::io::stdout().flush().unwrap();
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
}

/// The server as a child process, its address, killed and reaped on drop.
struct Child {
    proc: barrage_testkit::Proc,
    addr: String,
}

impl Child {
    fn start() -> Child {
        let mut c = Command::new(std::env::current_exe().unwrap())
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let mut line = String::new();
        BufReader::new(c.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("first line: {line:?}"))
            .to_string();
        Child {
            proc: barrage_testkit::Proc(c),
            addr,
        }
    }

    /// The server's peak resident set so far (`VmHWM`), in bytes.
    fn peak(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.proc.0.id())).unwrap();
        let kib: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .expect("VmHWM in /proc/PID/status");
        kib << 10
    }
}

const CHAT: &[u8] = b"/barrage.test.v1.Test/Chat";
const REPLY: u32 = 4 << 20;
const CALLS: [u32; 2] = [3, 5];
const ASKS: usize = 24;
/// What the server may grow by under the attack: its output stops at the connection's
/// high-water mark (256 KiB) and each call holds one piece of a reply (16 KiB) and the 240
/// bytes its client sent; the rest is allocator slack and the TCP buffers' pages the kernel
/// does not count here. Before: 96 MiB for each DATA frame of 24 requests.
const GROWTH: u64 = 16 << 20;

/// A Chat call's HEADERS and one DATA frame of `asks` requests for `size` bytes each.
fn chat(out: &mut Vec<u8>, stream: u32, asks: usize, size: u32) {
    let mut block = Vec::new();
    let no = hpack::Indexing::Without;
    hpack::encode_indexed(&mut block, 3); // :method POST
    hpack::encode_indexed(&mut block, 6); // :scheme http
    hpack::encode_literal(&mut block, 4, b"", CHAT, no);
    hpack::encode_literal(&mut block, 1, b"", b"t", no);
    hpack::encode_literal(&mut block, 31, b"", b"application/grpc", no);
    hpack::encode_literal(&mut block, 0, b"te", b"trailers", no);
    frame::write_headers(out, stream, &block, false, 16_384);
    // EchoRequest { size }: field 2, a varint.
    let mut msg = vec![0x10];
    prost::encoding::encode_varint(u64::from(size), &mut msg);
    let mut body = Vec::new();
    for _ in 0..asks {
        body.push(0);
        body.extend_from_slice(&(msg.len() as u32).to_be_bytes());
        body.extend_from_slice(&msg);
    }
    frame::write_data_header(out, stream, body.len(), true);
    out.extend_from_slice(&body);
}

/// Bytes waiting in the socket's receive queue.
fn unread(s: &TcpStream) -> usize {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int through the pointer, which is valid for the call.
    let r = unsafe { libc::ioctl(s.as_raw_fd(), libc::FIONREAD, &mut n) };
    assert_eq!(r, 0);
    n as usize
}

/// What one call's stream carried: its replies (all checked against the pattern), its
/// `grpc-status`, whether its stream was reset.
#[derive(Debug, Default, PartialEq)]
struct Call {
    replies: usize,
    wrong: usize,
    status: Option<String>,
    reset: bool,
}

/// Reads frames until every stream in `calls` ended; replies are decoded and checked as they
/// come, nothing kept.
fn read_calls(sock: &mut TcpStream, calls: &[u32], size: u32) -> Vec<Call> {
    let mut want = vec![0u8; size as usize];
    pattern::fill(0, &mut want);
    let mut seen: Vec<Call> = calls.iter().map(|_| Call::default()).collect();
    let mut decoders: Vec<MessageDecoder> = calls
        .iter()
        .map(|_| MessageDecoder::new(size + 64))
        .collect();
    let mut hpack = hpack::Decoder::new(4096);
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    let mut open = calls.len();
    while open > 0 {
        while let Some((f, n)) = parse_frame(&buf, 1 << 24).expect("a frame") {
            let at = |s: u32| calls.iter().position(|&c| c == s);
            match f {
                Frame::Data { stream, data, .. } if at(stream).is_some() => {
                    let i = at(stream).unwrap();
                    let c = &mut seen[i];
                    decoders[i]
                        .feed(data, |_, m| {
                            c.replies += 1;
                            // EchoReply { payload: size bytes }: 0a, a varint, the payload.
                            let p = &m[1 + prost::encoding::encoded_len_varint(u64::from(size))..];
                            c.wrong += usize::from(m[0] != 0x0a || p != want.as_slice());
                        })
                        .expect("replies split into messages");
                }
                Frame::Headers {
                    stream,
                    block,
                    end_stream,
                    ..
                } if at(stream).is_some() => {
                    let c = &mut seen[at(stream).unwrap()];
                    hpack
                        .decode(block, |n, v| {
                            if n == b"grpc-status" {
                                c.status = Some(String::from_utf8_lossy(v).into_owned());
                            }
                        })
                        .expect("a header block");
                    open -= usize::from(end_stream);
                }
                Frame::RstStream { stream, .. } if at(stream).is_some() => {
                    seen[at(stream).unwrap()].reset = true;
                    open -= 1;
                }
                Frame::Settings { ack: false, .. } => {
                    let mut ack = Vec::new();
                    frame::write_settings_ack(&mut ack);
                    sock.write_all(&ack).unwrap();
                }
                Frame::GoAway { code, .. } => panic!("GOAWAY {code:?}"),
                _ => {}
            }
            buf.drain(..n);
        }
        if open == 0 {
            break;
        }
        match sock.read(&mut chunk) {
            Ok(0) => panic!("the server closed the connection"),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) => panic!("{e}"),
        }
    }
    seen
}

fn chat_asking_for_large_replies_without_reading_holds_the_high_water_mark() {
    let server = Child::start();
    let mut sock = TcpStream::connect(&server.addr).unwrap();
    sock.set_nodelay(true).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    // Windows as large as HTTP/2 allows: nothing but the server's own bounds holds it back.
    let mut out = PREFACE.to_vec();
    frame::write_settings(
        &mut out,
        &[(
            barrage_wire::h2::settings::INITIAL_WINDOW_SIZE,
            (1 << 31) - 1,
        )],
    );
    frame::write_window_update(&mut out, 0, (1 << 31) - 1 - 65_535);
    // One small call first, read whole: the server's code and buffers in use before the
    // baseline.
    chat(&mut out, 1, 2, 1000);
    sock.write_all(&out).unwrap();
    let warm = read_calls(&mut sock, &[1], 1000);
    assert_eq!(
        warm,
        vec![Call {
            replies: 2,
            wrong: 0,
            status: Some("0".into()),
            reset: false
        }]
    );
    let base = server.peak();

    // 480 bytes asking for 192 MiB, and nothing read until the server stops sending.
    let mut attack = Vec::new();
    for s in CALLS {
        chat(&mut attack, s, ASKS, REPLY);
    }
    sock.write_all(&attack).unwrap();
    // The server sends until the socket's buffers are full: wait until nothing more arrives
    // for a while (a wait for a state, asserted on by counts, not a timing).
    let mut last = 0;
    let mut still = 0;
    let until = Instant::now() + Duration::from_secs(60);
    while still < 5 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(200));
        let now = unread(&sock);
        still = if now == last && now > 0 { still + 1 } else { 0 };
        last = now;
    }
    let stalled = server.peak();
    eprintln!(
        "{} KiB unread; the server's peak {} MiB, {} KiB over its baseline",
        last >> 10,
        stalled >> 20,
        (stalled - base) >> 10
    );
    assert!(last > 0, "the server sent nothing");
    assert!(
        stalled - base <= GROWTH,
        "the server grew by {} MiB while its client read nothing",
        (stalled - base) >> 20
    );

    // Now read: every reply asked for comes, whole and exact, and the calls end OK.
    let seen = read_calls(&mut sock, &CALLS, REPLY);
    for c in &seen {
        assert_eq!(
            c,
            &Call {
                replies: ASKS,
                wrong: 0,
                status: Some("0".into()),
                reset: false
            }
        );
    }
    let end = server.peak();
    assert!(
        end - base <= GROWTH,
        "the server grew by {} MiB sending 192 MiB",
        (end - base) >> 20
    );
}

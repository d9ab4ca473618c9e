//! HTTP/2 against hostile servers: raw frames from a small server in this file (a thread per
//! connection, blocking I/O), each breaking the protocol one way. Every case must end as a
//! counted error of a named class, never as a success, within the run's duration plus its
//! timeout, in bounded memory (a counting allocator watches the live heap), and without
//! reconnecting in a tight loop.
//!
//! Before these were fixed: an endless header block was buffered whole (288 MiB in 3 s), a
//! header list decoding to tens of MiB was a 200, a `content-length` the DATA disagreed with
//! was a success, MAX_CONCURRENT_STREAMS = 0 gave 0 requests and 0 errors, GOAWAY(0) after
//! every preface gave 12-32k reconnects and no error, and DATA past the announced stream window
//! went unnoticed.

use barrage_engine::ErrorClass;
use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol, RunResult};
use barrage_model::load::DEFAULT_H2_WINDOW;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

mod heap;
use heap::{Counting, LIVE, PEAK};

#[global_allocator]
static A: Counting = Counting;

/// The heap is the whole process's: one case at a time.
static ONE: Mutex<()> = Mutex::new(());

const SETTINGS: u8 = 0x4;
const HEADERS: u8 = 0x1;
const DATA: u8 = 0x0;
const CONTINUATION: u8 = 0x9;
const GOAWAY: u8 = 0x7;
const RST_STREAM: u8 = 0x3;
const END_STREAM: u8 = 0x1;
const END_HEADERS: u8 = 0x4;

#[derive(Clone, Copy, Debug)]
enum Hostile {
    /// The first response's HEADERS, then CONTINUATION frames without END_HEADERS, forever.
    EndlessContinuation,
    /// Every response: `:status 200` and references to one 4,000-byte dynamic-table entry
    /// (added by the connection's first response) that decode to ~400 KiB.
    HpackBomb,
    /// `content-length: 100` and 13 bytes of DATA.
    WrongLength,
    /// SETTINGS_MAX_CONCURRENT_STREAMS = 0, held: no stream may ever be opened (those sent
    /// before the SETTINGS arrived are refused).
    ZeroStreams,
    /// GOAWAY with last stream id 0 right after the preface.
    GoawayZero,
    /// 1 MiB of DATA on each stream in one write, whatever window the client announced.
    PastTheWindow,
    /// gRPC: a reply message whose prefix announces 4 GiB - 1 bytes, then a trickle of it.
    GrpcHugeMessage,
    /// gRPC: a message with the compressed flag and no `grpc-encoding`, then `grpc-status: 0`.
    GrpcCompressedWithoutEncoding,
    /// gRPC: `grpc-encoding: gzip` and one message that inflates to 64 MiB.
    GrpcGzipBomb,
    /// gRPC: a reply message and END_STREAM on the DATA: no trailers, no status.
    GrpcNoTrailers,
    /// gRPC: trailers with `grpc-status: 17`.
    GrpcStatusOutOfRange,
    /// gRPC: reply messages, forever, on every call (an endless server stream).
    GrpcEndless,
    /// gRPC: a trailers-only response with `grpc-status: 0`: OK with no reply message.
    GrpcTrailersOnlyOk,
    /// gRPC: two reply messages, then trailers with `grpc-status: 0`.
    GrpcTwoReplies,
    /// gRPC: `grpc-status: 0` in a head that does not end the stream, then a reply message
    /// with END_STREAM on its DATA: no trailers.
    GrpcStatusInHead,
}

/// gRPC's response head: `:status 200` and `content-type: application/grpc` (a literal whose
/// name is static entry 31), and `extra` fields as literals with new names.
fn grpc_head(extra: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut block = Vec::new();
    indexed(&mut block, 8);
    block.extend_from_slice(&[0x0f, 31 - 15, 16]);
    block.extend_from_slice(b"application/grpc");
    for (n, v) in extra {
        block.push(0x00);
        block.push(n.len() as u8);
        block.extend_from_slice(n);
        block.push(v.len() as u8);
        block.extend_from_slice(v);
    }
    block
}

/// Trailers of one field, a literal with a new name.
fn trailer(name: &[u8], value: &[u8]) -> Vec<u8> {
    let mut block = vec![0x00, name.len() as u8];
    block.extend_from_slice(name);
    block.push(value.len() as u8);
    block.extend_from_slice(value);
    block
}

/// One gRPC message: the flag, the length, the bytes.
fn grpc_message(compressed: bool, payload: &[u8]) -> Vec<u8> {
    let mut m = vec![u8::from(compressed)];
    m.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    m.extend_from_slice(payload);
    m
}

/// 64 MiB of zeros, gzipped (about 64 KiB), made once.
fn gzip_bomb() -> &'static [u8] {
    static BOMB: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BOMB.get_or_init(|| {
        use flate2::write::GzEncoder;
        let mut e = GzEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..64 {
            e.write_all(&zeros).unwrap();
        }
        e.finish().unwrap()
    })
}

fn frame(out: &mut Vec<u8>, kind: u8, flags: u8, stream: u32, payload: &[u8]) {
    let n = payload.len();
    out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8, kind, flags]);
    out.extend_from_slice(&stream.to_be_bytes());
    out.extend_from_slice(payload);
}

/// HPACK: an indexed field (index < 127) and a literal with incremental indexing, new name.
fn indexed(block: &mut Vec<u8>, i: u8) {
    block.push(0x80 | i);
}

fn literal_indexed(block: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    block.push(0x40);
    block.push(name.len() as u8);
    block.extend_from_slice(name);
    // Length with a 7-bit prefix (no Huffman).
    let mut v = value.len();
    if v < 127 {
        block.push(v as u8);
    } else {
        block.push(127);
        v -= 127;
        while v >= 128 {
            block.push((v % 128) as u8 | 0x80);
            v /= 128;
        }
        block.push(v as u8);
    }
    block.extend_from_slice(value);
}

struct Server {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    accepted: Arc<AtomicU64>,
    accept: Option<JoinHandle<()>>,
}

impl Server {
    fn start(mode: Hostile) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        listener.set_nonblocking(true).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let accepted = Arc::new(AtomicU64::new(0));
        let (s, a) = (stop.clone(), accepted.clone());
        let accept = std::thread::spawn(move || {
            let mut conns: Vec<JoinHandle<()>> = Vec::new();
            while !s.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((sock, _)) => {
                        a.fetch_add(1, Ordering::Relaxed);
                        let s = s.clone();
                        conns.retain(|h| !h.is_finished());
                        conns.push(std::thread::spawn(move || serve(sock, mode, &s)));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(1)),
                }
            }
            for h in conns {
                let _ = h.join();
            }
        });
        Server {
            addr,
            stop,
            accepted,
            accept: Some(accept),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

/// Reads one frame: (kind, flags, stream); None on EOF, error or stop.
fn read_frame(sock: &mut TcpStream, stop: &AtomicBool) -> Option<(u8, u8, u32)> {
    let mut h = [0u8; 9];
    read_exact(sock, &mut h, stop)?;
    let len = u32::from_be_bytes([0, h[0], h[1], h[2]]) as usize;
    let mut payload = vec![0u8; len];
    read_exact(sock, &mut payload, stop)?;
    let stream = u32::from_be_bytes([h[5], h[6], h[7], h[8]]) & 0x7fff_ffff;
    Some((h[3], h[4], stream))
}

fn read_exact(sock: &mut TcpStream, buf: &mut [u8], stop: &AtomicBool) -> Option<()> {
    let mut at = 0;
    while at < buf.len() {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        match sock.read(&mut buf[at..]) {
            Ok(0) => return None,
            Ok(n) => at += n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => return None,
        }
    }
    Some(())
}

fn serve(mut sock: TcpStream, mode: Hostile, stop: &AtomicBool) {
    sock.set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let mut preface = [0u8; 24];
    if read_exact(&mut sock, &mut preface, stop).is_none() {
        return;
    }
    let mut out = Vec::new();
    let settings: &[u8] = match mode {
        // MAX_CONCURRENT_STREAMS (0x3) = 0.
        Hostile::ZeroStreams => &[0, 3, 0, 0, 0, 0],
        _ => &[],
    };
    frame(&mut out, SETTINGS, 0, 0, settings);
    if let Hostile::GoawayZero = mode {
        frame(&mut out, GOAWAY, 0, 0, &[0, 0, 0, 0, 0, 0, 0, 0]);
    }
    if sock.write_all(&out).is_err() {
        return;
    }
    let mut bomb_table = false;
    while let Some((kind, flags, stream)) = read_frame(&mut sock, stop) {
        out.clear();
        if kind == SETTINGS && flags & 1 == 0 {
            frame(&mut out, SETTINGS, 1, 0, &[]);
        }
        if kind == HEADERS {
            match mode {
                Hostile::EndlessContinuation => {
                    let mut block = Vec::new();
                    indexed(&mut block, 8);
                    frame(&mut out, HEADERS, 0, stream, &block);
                    let junk = [0x40u8; 16_000];
                    let mut cont = Vec::new();
                    frame(&mut cont, CONTINUATION, 0, stream, &junk);
                    if sock.write_all(&out).is_err() {
                        return;
                    }
                    while !stop.load(Ordering::Relaxed) {
                        if sock.write_all(&cont).is_err() {
                            return;
                        }
                    }
                    return;
                }
                Hostile::HpackBomb => {
                    let mut block = Vec::new();
                    indexed(&mut block, 8);
                    if !bomb_table {
                        literal_indexed(&mut block, b"x-big", &[b'a'; 4000]);
                        bomb_table = true;
                    }
                    // 100 references of 4,037 bytes each: ~400 KiB decoded from 100 bytes.
                    for _ in 0..100 {
                        indexed(&mut block, 62);
                    }
                    frame(&mut out, HEADERS, END_HEADERS | END_STREAM, stream, &block);
                }
                Hostile::WrongLength => {
                    let mut block = Vec::new();
                    indexed(&mut block, 8);
                    // content-length (static name 28), literal without indexing: 100.
                    block.extend_from_slice(&[0x0f, 28 - 15, 3]);
                    block.extend_from_slice(b"100");
                    frame(&mut out, HEADERS, END_HEADERS, stream, &block);
                    frame(&mut out, DATA, END_STREAM, stream, b"Hello, World!");
                }
                Hostile::PastTheWindow => {
                    let mut block = Vec::new();
                    indexed(&mut block, 8);
                    frame(&mut out, HEADERS, END_HEADERS, stream, &block);
                    // 1 MiB in one write against the 65,535 announced: whatever the reads, one
                    // of them holds more than the window (frames are within the frame size).
                    for _ in 0..64 {
                        frame(&mut out, DATA, 0, stream, &[b'x'; 16_000]);
                    }
                    frame(&mut out, DATA, END_STREAM, stream, &[b'x'; 1_000]);
                }
                // A stream above the limit of 0, opened before our SETTINGS arrived: refused
                // (RST_STREAM REFUSED_STREAM), as RFC 9113 §5.1.2 has it.
                Hostile::ZeroStreams => frame(&mut out, RST_STREAM, 0, stream, &[0, 0, 0, 7]),
                Hostile::GoawayZero => {}
                Hostile::GrpcHugeMessage => {
                    frame(&mut out, HEADERS, END_HEADERS, stream, &grpc_head(&[]));
                    let mut m = vec![0, 0xff, 0xff, 0xff, 0xff];
                    m.extend_from_slice(&[b'x'; 1000]);
                    frame(&mut out, DATA, 0, stream, &m);
                }
                Hostile::GrpcCompressedWithoutEncoding => {
                    frame(&mut out, HEADERS, END_HEADERS, stream, &grpc_head(&[]));
                    frame(&mut out, DATA, 0, stream, &grpc_message(true, b"abc"));
                    let t = trailer(b"grpc-status", b"0");
                    frame(&mut out, HEADERS, END_HEADERS | END_STREAM, stream, &t);
                }
                Hostile::GrpcGzipBomb => {
                    let head = grpc_head(&[(b"grpc-encoding", b"gzip")]);
                    frame(&mut out, HEADERS, END_HEADERS, stream, &head);
                    let m = grpc_message(true, gzip_bomb());
                    for chunk in m.chunks(16_000) {
                        frame(&mut out, DATA, 0, stream, chunk);
                    }
                    let t = trailer(b"grpc-status", b"0");
                    frame(&mut out, HEADERS, END_HEADERS | END_STREAM, stream, &t);
                }
                Hostile::GrpcNoTrailers => {
                    frame(&mut out, HEADERS, END_HEADERS, stream, &grpc_head(&[]));
                    frame(
                        &mut out,
                        DATA,
                        END_STREAM,
                        stream,
                        &grpc_message(false, b""),
                    );
                }
                Hostile::GrpcStatusOutOfRange => {
                    frame(&mut out, HEADERS, END_HEADERS, stream, &grpc_head(&[]));
                    frame(&mut out, DATA, 0, stream, &grpc_message(false, b""));
                    let t = trailer(b"grpc-status", b"17");
                    frame(&mut out, HEADERS, END_HEADERS | END_STREAM, stream, &t);
                }
                Hostile::GrpcTrailersOnlyOk => {
                    let head = grpc_head(&[(b"grpc-status", b"0")]);
                    frame(&mut out, HEADERS, END_HEADERS | END_STREAM, stream, &head);
                }
                Hostile::GrpcTwoReplies => {
                    frame(&mut out, HEADERS, END_HEADERS, stream, &grpc_head(&[]));
                    let mut two = grpc_message(false, b"");
                    two.extend_from_slice(&grpc_message(false, b""));
                    frame(&mut out, DATA, 0, stream, &two);
                    let t = trailer(b"grpc-status", b"0");
                    frame(&mut out, HEADERS, END_HEADERS | END_STREAM, stream, &t);
                }
                Hostile::GrpcStatusInHead => {
                    let head = grpc_head(&[(b"grpc-status", b"0")]);
                    frame(&mut out, HEADERS, END_HEADERS, stream, &head);
                    let m = grpc_message(false, b"");
                    frame(&mut out, DATA, END_STREAM, stream, &m);
                }
                Hostile::GrpcEndless => {
                    frame(&mut out, HEADERS, END_HEADERS, stream, &grpc_head(&[]));
                    if sock.write_all(&out).is_err() {
                        return;
                    }
                    // Every call streams until the client gives up on it: one thread per
                    // connection, so the first call's stream is the only one served.
                    let mut more = Vec::new();
                    for _ in 0..100 {
                        frame(
                            &mut more,
                            DATA,
                            0,
                            stream,
                            &grpc_message(false, &[b'y'; 100]),
                        );
                    }
                    while !stop.load(Ordering::Relaxed) {
                        if sock.write_all(&more).is_err() {
                            return;
                        }
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    return;
                }
            }
        }
        if !out.is_empty() && sock.write_all(&out).is_err() {
            return;
        }
    }
}

fn config(s: &Server) -> Config {
    Config {
        url: format!("http://{}/", s.addr),
        connections: 2,
        threads: 1,
        duration: Some(Duration::from_millis(1500)),
        timeout: Duration::from_millis(500),
        protocol: Protocol::Http2 {
            streams: 4,
            window: DEFAULT_H2_WINDOW,
        },
        ..Config::default()
    }
}

/// Runs `cfg` against a fresh server in `mode`: the result, the live heap's growth at its peak
/// during the run (bytes), and the connections the server accepted.
fn against(mode: Hostile, tweak: impl Fn(&mut Config)) -> (RunResult, usize, u64) {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let s = Server::start(mode);
    let mut cfg = config(&s);
    tweak(&mut cfg);
    let valid = cfg.validate().unwrap();
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let started = std::time::Instant::now();
    let r = run(&valid, &NullSink, &Cancel::new()).unwrap();
    let took = started.elapsed();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    // Ended by itself: the duration plus the timeout, and some slack for a loaded machine (a
    // bound on a hang, not a timing assertion).
    assert!(took < Duration::from_secs(10), "{mode:?}: ran {took:?}");
    let accepted = s.accepted.load(Ordering::Relaxed);
    drop(s);
    (r, peak, accepted)
}

fn no_success(mode: Hostile, r: &RunResult) {
    assert_eq!(
        r.requests, 0,
        "{mode:?}: nothing is a success: {:?}",
        r.status
    );
    assert!(r.status.is_empty(), "{mode:?}: {:?}", r.status);
}

#[test]
fn an_endless_header_block_is_cut_at_its_limit_and_counted_header_too_large() {
    let mode = Hostile::EndlessContinuation;
    let (r, peak, _) = against(mode, |_| {});
    no_success(mode, &r);
    assert!(
        r.errors[ErrorClass::HeaderTooLarge] > 0,
        "{:?} {:?}",
        r.errors,
        r.error_examples
    );
    assert!(r.error_examples["header_too_large"].contains("header block"));
    // Two connections, each cut at 256 KiB (4 x the 64 KiB announced): the live heap never
    // held more than a few MiB (before: 288 MiB in 3 s).
    assert!(peak < 8 << 20, "peak live heap grew {peak} bytes");
}

#[test]
fn a_header_list_past_the_announced_size_is_header_too_large_not_a_200() {
    let mode = Hostile::HpackBomb;
    let (r, peak, _) = against(mode, |_| {});
    no_success(mode, &r);
    assert!(r.errors[ErrorClass::HeaderTooLarge] > 100, "{:?}", r.errors);
    assert_eq!(
        r.errors.total(),
        r.errors[ErrorClass::HeaderTooLarge],
        "{:?}",
        r.errors
    );
    assert!(r.error_examples["header_too_large"].contains("64 KiB"));
    assert!(peak < 8 << 20, "peak live heap grew {peak} bytes");
    // Every stream was answered, all too large, and the counts add up.
    assert_eq!(
        r.requests_written,
        r.errors.total() - r.errors[ErrorClass::Connect] + r.in_flight
    );
}

#[test]
fn a_content_length_the_data_disagrees_with_is_a_protocol_error() {
    let mode = Hostile::WrongLength;
    let (r, _, _) = against(mode, |_| {});
    no_success(mode, &r);
    assert!(r.errors[ErrorClass::Protocol] > 100, "{:?}", r.errors);
    assert_eq!(
        r.errors.total(),
        r.errors[ErrorClass::Protocol],
        "{:?}",
        r.errors
    );
}

#[test]
fn data_past_the_announced_stream_window_is_a_flow_control_error() {
    let mode = Hostile::PastTheWindow;
    let (r, _, _) = against(mode, |c| {
        c.protocol = Protocol::Http2 {
            streams: 1,
            window: 65_535,
        };
        c.connections = 1;
    });
    no_success(mode, &r);
    // Every stream answered was reset for it (1 MiB each: a handful in the run).
    assert!(r.errors[ErrorClass::Protocol] > 0, "{:?}", r.errors);
    assert_eq!(
        r.errors.total(),
        r.errors[ErrorClass::Protocol],
        "{:?}",
        r.errors
    );
    assert!(
        r.error_examples["protocol"].contains("FLOW_CONTROL_ERROR"),
        "{:?}",
        r.error_examples
    );
}

#[test]
fn a_server_that_allows_no_stream_is_an_error_not_silence() {
    let mode = Hostile::ZeroStreams;
    let (r, _, _) = against(mode, |_| {});
    no_success(mode, &r);
    assert_eq!(r.requests_written, 0);
    // Each connection waits out the timeout (500 ms) with no stream allowed, then fails (and
    // reconnects after a backoff): 2 connections in 1.5 s.
    assert!(r.errors[ErrorClass::Connect] >= 2, "{:?}", r.errors);
    assert!(
        r.error_examples["connect"].contains("0 concurrent streams"),
        "{:?}",
        r.error_examples
    );
}

#[test]
fn goaway_before_any_answer_is_a_connect_error_with_a_backoff() {
    let mode = Hostile::GoawayZero;
    let (r, _, accepted) = against(mode, |_| {});
    no_success(mode, &r);
    assert!(r.errors[ErrorClass::Connect] >= 2, "{:?}", r.errors);
    assert!(
        r.error_examples["connect"].contains("GOAWAY"),
        "{:?}",
        r.error_examples
    );
    // Backoff, as for a refused connection: a handful of attempts per connection in 1.5 s
    // (before: 12-32k connections in 3 s).
    assert!(accepted < 60, "{accepted} connections accepted");
    assert!(
        r.errors[ErrorClass::Connect] <= accepted,
        "{:?} of {accepted}",
        r.errors
    );
}

/// A gRPC load (docs/grpc/barrage.proto's Echo) against the hostile server.
fn grpc(c: &mut Config) {
    c.protocol = Protocol::Grpc {
        streams: 4,
        window: DEFAULT_H2_WINDOW,
    };
    c.call = Some("barrage.test.v1.Test/Echo".into());
    c.proto = Some(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/grpc/barrage.proto").into());
}

/// Every case of a gRPC reply that breaks gRPC: an error of class `grpc` naming what, never a
/// success, in bounded memory.
#[test]
fn a_grpc_reply_that_breaks_grpc_is_a_grpc_error_in_bounded_memory() {
    let cases = [
        (Hostile::GrpcHugeMessage, "a message over the limit"),
        (
            Hostile::GrpcCompressedWithoutEncoding,
            "a compressed message without grpc-encoding",
        ),
        (Hostile::GrpcGzipBomb, "a message over the limit"),
        (Hostile::GrpcStatusOutOfRange, "a grpc-status outside 0-16"),
    ];
    for (mode, words) in cases {
        let (r, peak, _) = against(mode, grpc);
        no_success(mode, &r);
        assert!(r.errors[ErrorClass::Grpc] > 0, "{mode:?}: {:?}", r.errors);
        assert_eq!(
            r.errors.total(),
            r.errors[ErrorClass::Grpc],
            "{mode:?}: {:?} {:?}",
            r.errors,
            r.error_examples
        );
        assert!(
            r.error_examples["grpc"].contains(words),
            "{mode:?}: {:?}",
            r.error_examples
        );
        // The 4 GiB message is refused at its prefix, the bomb stops inflating at the 4 MiB
        // limit: a few MiB at most, whatever the server claims or sends.
        assert!(
            peak < 24 << 20,
            "{mode:?}: peak live heap grew {peak} bytes"
        );
    }
}

/// A server stream that never ends: each call runs past its deadline (the timeout, counted as
/// gRPC's clients count it, `DEADLINE_EXCEEDED` of class `grpc_status`; the stream
/// cancelled), its messages counted and timed and dropped as they come, never held. Every
/// message timed is a message received, whatever its call's end (before, a call that ended
/// past its deadline lost its messages from `messages_received`: 0 received, millions timed).
#[test]
fn an_endless_grpc_stream_times_out_in_bounded_memory() {
    let mode = Hostile::GrpcEndless;
    let (r, peak, _) = against(mode, grpc);
    no_success(mode, &r);
    let late = r.errors[ErrorClass::GrpcStatus];
    assert!(late > 0, "{:?}", r.errors);
    assert_eq!(r.errors.total(), late, "{:?}", r.errors);
    let g = barrage_model::load::Grpc::of(&r.protocol).expect("a grpc section");
    assert_eq!(
        g.calls.get("DEADLINE_EXCEEDED"),
        Some(&late),
        "{:?}",
        g.calls
    );
    let timed = g.message_latency_us.as_ref().map_or(0, |l| l.count);
    assert!(g.messages_received > 0, "{g:?}");
    assert_eq!(
        g.messages_received, timed,
        "every message timed was received"
    );
    assert!(
        r.error_examples["grpc_status"].contains("DEADLINE_EXCEEDED: no status within"),
        "{:?}",
        r.error_examples
    );
    assert!(peak < 8 << 20, "peak live heap grew {peak} bytes");
}

/// A call `tweak`ed to `call` (`Test/Echo`, unary, or `Test/Stream`, server-streaming), `n`
/// of them and no duration: each ends as soon as the hostile server has answered it.
fn grpc_calls(call: &'static str, n: u64) -> impl Fn(&mut Config) {
    move |c: &mut Config| {
        grpc(c);
        c.call = Some(format!("barrage.test.v1.Test/{call}"));
        c.duration = None;
        c.requests = Some(n);
    }
}

/// gRPC replies that break gRPC though each says OK: a unary call answered by a trailers-only
/// OK with no message, or by two messages (gRPC's status-code document: the client fails such
/// a call as UNIMPLEMENTED), each a `grpc_cardinality` error; `grpc-status` in a head that
/// does not end the stream, then DATA with END_STREAM and no trailers (grpcio: UNKNOWN), and
/// DATA with END_STREAM and no status anywhere, each a `grpc_no_trailers` error. Exact counts:
/// every call written is one error of the case's class, no call is counted by a status, and
/// every reply message is received and timed whatever its call's end. Before, the first three
/// were responses.
#[test]
fn a_grpc_reply_that_breaks_grpc_though_it_says_ok_is_an_error_of_its_class() {
    const N: u64 = 40;
    let cases = [
        (
            Hostile::GrpcTrailersOnlyOk,
            ErrorClass::GrpcCardinality,
            "grpc_cardinality",
            "no reply message to a call whose method answers with one",
            0,
        ),
        (
            Hostile::GrpcTwoReplies,
            ErrorClass::GrpcCardinality,
            "grpc_cardinality",
            "more than one reply message to a call whose method answers with one",
            2,
        ),
        (
            Hostile::GrpcStatusInHead,
            ErrorClass::GrpcNoTrailers,
            "grpc_no_trailers",
            "grpc-status in the response head, then a body without trailers",
            1,
        ),
        (
            Hostile::GrpcNoTrailers,
            ErrorClass::GrpcNoTrailers,
            "grpc_no_trailers",
            "a body without trailers",
            1,
        ),
    ];
    for (mode, class, name, words, per_call) in cases {
        let (r, _, _) = against(mode, grpc_calls("Echo", N));
        no_success(mode, &r);
        let why = format!("{mode:?}: {:?} {:?}", r.errors, r.error_examples);
        assert_eq!(
            (
                r.requests_written,
                r.errors[class],
                r.errors.total(),
                r.in_flight
            ),
            (N, N, N, 0),
            "{why}"
        );
        assert_eq!(
            r.error_examples[name],
            format!("a reply that broke gRPC: {words}"),
            "{why}"
        );
        let g = barrage_model::load::Grpc::of(&r.protocol).expect("a grpc section");
        assert!(g.calls.is_empty(), "{mode:?}: {:?}", g.calls);
        assert_eq!(g.messages_received, N * per_call, "{mode:?}");
        let timed = g.message_latency_us.as_ref().map_or(0, |l| l.count);
        assert_eq!(
            timed,
            N * per_call,
            "{mode:?}: every message received timed"
        );
    }
}

/// A server-streaming method may answer with any number of messages: the same trailers-only
/// OK and two messages with OK are each a response to `Test/Stream`.
#[test]
fn a_grpc_server_stream_answered_ok_with_none_or_two_messages_is_a_response() {
    const N: u64 = 40;
    for (mode, per_call) in [
        (Hostile::GrpcTrailersOnlyOk, 0),
        (Hostile::GrpcTwoReplies, 2),
    ] {
        let (r, _, _) = against(mode, grpc_calls("Stream", N));
        assert_eq!(
            (r.requests, r.requests_written, r.errors.total()),
            (N, N, 0),
            "{mode:?}: {:?}",
            r.error_examples
        );
        let g = barrage_model::load::Grpc::of(&r.protocol).expect("a grpc section");
        assert_eq!(g.calls.get("OK"), Some(&N), "{mode:?}: {:?}", g.calls);
        assert_eq!(g.messages_received, N * per_call, "{mode:?}");
    }
}

//! `barrage load --ws` against hostile servers: raw bytes from a small server in this file (a
//! thread per connection, blocking I/O), each breaking RFC 6455 one way. Every case must end as
//! counted errors of a named class (never as a success), with the counts adding up (written =
//! answered + errors + in flight), within the run's duration plus its timeout, in bounded
//! memory (a counting allocator watches the live heap), and without panicking. The server also
//! reads what the client sends back: its Close, which must reach the wire before the socket
//! closes (RFC 6455 §5.5.1).
//!
//! Before these were fixed: a server that never answered the upgrade, or answered it wrongly,
//! gave 0 messages and 0 errors (a failed handshake lost nothing in flight, so nothing was
//! counted); the client's Close (the reply to the server's, or the one failing the connection)
//! was written into the session's buffer and dropped with the socket, never sent; and a ping
//! flood from a server that never reads grew the client's unwritten pongs without bound.

use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol, RunResult};
use barrage_wire::ws::handshake::accept_key;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

mod heap;
use heap::{Counting, LIVE, PEAK};

#[global_allocator]
static A: Counting = Counting;

/// The heap is the whole process's: one case at a time.
static ONE: Mutex<()> = Mutex::new(());

/// A flood stops by itself after this, so a client that never leaves its read loop shows as a
/// run far longer than its duration rather than as a hung test.
const FLOOD_FOR: Duration = Duration::from_secs(20);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hostile {
    /// Accepts, reads the upgrade request, never answers.
    Silent,
    /// Answers 101 with the accept key of another key.
    WrongAccept,
    /// Answers the first message with a frame header whose 64-bit length has its top bit set
    /// (2^63).
    HugeLength,
    /// Answers the first message with a Text frame without FIN, then empty continuation frames
    /// without FIN, forever.
    EndlessFragments,
    /// The same with 4 KiB in each continuation frame: the message grows past the limit.
    GrowingFragments,
    /// Empty pings, forever, from the upgrade on; never reads, never echoes.
    PingFlood,
    /// Answers every message with a text frame that is not UTF-8.
    BadUtf8,
    /// Echoes three messages, then answers the fourth with Close 1011.
    CloseAfter3,
}

struct Server {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    /// Close frames the client sent, by code (0: none given).
    closes: Arc<Mutex<Vec<u16>>>,
    accept: Option<JoinHandle<()>>,
}

impl Server {
    fn start(mode: Hostile) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        listener.set_nonblocking(true).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let closes = Arc::new(Mutex::new(Vec::new()));
        let (s, c) = (stop.clone(), closes.clone());
        let accept = std::thread::spawn(move || {
            let mut conns: Vec<JoinHandle<()>> = Vec::new();
            while !s.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((sock, _)) => {
                        let (s, c) = (s.clone(), c.clone());
                        conns.retain(|h| !h.is_finished());
                        conns.push(std::thread::spawn(move || serve(sock, mode, &s, &c)));
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
            closes,
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

fn read_exact(sock: &mut TcpStream, buf: &mut [u8], stop: &AtomicBool) -> Option<()> {
    let mut at = 0;
    while at < buf.len() {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        match sock.read(&mut buf[at..]) {
            Ok(0) => return None,
            Ok(n) => at += n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return None,
        }
    }
    Some(())
}

/// Reads the upgrade request's head; its `Sec-WebSocket-Key`.
fn read_upgrade(sock: &mut TcpStream, stop: &AtomicBool) -> Option<String> {
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        read_exact(sock, &mut b, stop)?;
        head.push(b[0]);
    }
    let head = String::from_utf8(head).ok()?;
    head.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("sec-websocket-key")
            .then(|| value.trim().to_string())
    })
}

/// Reads one frame from the client: (opcode, payload unmasked). A client's frame must be
/// masked: an unmasked one ends the connection (None).
fn read_frame(sock: &mut TcpStream, stop: &AtomicBool) -> Option<(u8, Vec<u8>)> {
    let mut h = [0u8; 2];
    read_exact(sock, &mut h, stop)?;
    if h[1] & 0x80 == 0 {
        return None;
    }
    let len = match h[1] & 0x7f {
        126 => {
            let mut l = [0u8; 2];
            read_exact(sock, &mut l, stop)?;
            u16::from_be_bytes(l) as usize
        }
        127 => {
            let mut l = [0u8; 8];
            read_exact(sock, &mut l, stop)?;
            u64::from_be_bytes(l) as usize
        }
        n => n as usize,
    };
    let mut mask = [0u8; 4];
    read_exact(sock, &mut mask, stop)?;
    let mut payload = vec![0u8; len];
    read_exact(sock, &mut payload, stop)?;
    for (i, b) in payload.iter_mut().enumerate() {
        *b ^= mask[i % 4];
    }
    Some((h[0] & 0x0f, payload))
}

/// A frame as a server sends it (unmasked); `len` overrides the payload's length in the header.
fn frame(out: &mut Vec<u8>, fin: bool, op: u8, payload: &[u8]) {
    out.push(if fin { 0x80 } else { 0 } | op);
    let n = payload.len();
    if n < 126 {
        out.push(n as u8);
    } else if n < 1 << 16 {
        out.push(126);
        out.extend_from_slice(&(n as u16).to_be_bytes());
    } else {
        out.push(127);
        out.extend_from_slice(&(n as u64).to_be_bytes());
    }
    out.extend_from_slice(payload);
}

/// Reads the client's frames until its Close (recorded by code) or the end of the connection.
fn await_close(sock: &mut TcpStream, stop: &AtomicBool, closes: &Mutex<Vec<u16>>) {
    while let Some((op, payload)) = read_frame(sock, stop) {
        if op == 0x8 {
            let code = match payload.get(..2) {
                Some(c) => u16::from_be_bytes([c[0], c[1]]),
                None => 0,
            };
            closes.lock().unwrap().push(code);
            return;
        }
    }
}

/// Writes `chunk` again and again until the flood's time is up or the client goes.
fn flood(sock: &mut TcpStream, chunk: &[u8], stop: &AtomicBool) {
    let until = Instant::now() + FLOOD_FOR;
    // `chunk` is whole frames: writing it round and round from where the last write stopped
    // keeps the framing. A write that times out (the client did not read for 200 ms, as a
    // loaded machine does) is retried: giving up there closed the socket over the client's
    // unread bytes, a reset the client counted instead of the timeout the test expects.
    let mut at = 0;
    while !stop.load(Ordering::Relaxed) && Instant::now() < until {
        match sock.write(&chunk[at..]) {
            Ok(0) => return,
            Ok(n) => at = (at + n) % chunk.len(),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        | std::io::ErrorKind::Interrupted
                ) => {}
            Err(_) => return,
        }
    }
}

fn serve(mut sock: TcpStream, mode: Hostile, stop: &AtomicBool, closes: &Mutex<Vec<u16>>) {
    sock.set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    sock.set_write_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let Some(key) = read_upgrade(&mut sock, stop) else {
        return;
    };
    if mode == Hostile::Silent {
        let mut b = [0u8; 1024];
        while read_exact(&mut sock, &mut b, stop).is_some() {}
        return;
    }
    let key = match mode {
        Hostile::WrongAccept => "dGhlIHNhbXBsZSBub25jZQ==".to_string(),
        _ => key,
    };
    let accept = accept_key(key.as_bytes());
    let mut out = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ".to_vec();
    out.extend_from_slice(&accept);
    out.extend_from_slice(b"\r\n\r\n");
    if sock.write_all(&out).is_err() {
        return;
    }
    if mode == Hostile::WrongAccept {
        // The client must give up on the connection: read until it does.
        let mut b = [0u8; 1024];
        while read_exact(&mut sock, &mut b, stop).is_some() {}
        return;
    }
    if mode == Hostile::PingFlood {
        let mut pings = Vec::new();
        for _ in 0..8192 {
            frame(&mut pings, true, 0x9, b"");
        }
        return flood(&mut sock, &pings, stop);
    }
    let mut echoed = 0;
    while let Some((op, payload)) = read_frame(&mut sock, stop) {
        if op == 0x8 {
            return;
        }
        out.clear();
        match mode {
            Hostile::HugeLength => {
                out.extend_from_slice(&[0x82, 127]);
                out.extend_from_slice(&(1u64 << 63).to_be_bytes());
                out.extend_from_slice(b"more");
                let _ = sock.write_all(&out);
                return await_close(&mut sock, stop, closes);
            }
            Hostile::EndlessFragments | Hostile::GrowingFragments => {
                frame(&mut out, false, 0x1, b"a");
                if sock.write_all(&out).is_err() {
                    return;
                }
                let piece = if mode == Hostile::GrowingFragments {
                    vec![b'a'; 4096]
                } else {
                    Vec::new()
                };
                let mut chunk = Vec::new();
                while chunk.len() < 64 * 1024 {
                    frame(&mut chunk, false, 0x0, &piece);
                }
                return flood(&mut sock, &chunk, stop);
            }
            Hostile::BadUtf8 => frame(&mut out, true, 0x1, &[b'o', 0xc3, 0x28]),
            Hostile::CloseAfter3 if echoed == 3 => {
                frame(&mut out, true, 0x8, &[0x03, 0xf3, b'b', b'y', b'e']);
                if sock.write_all(&out).is_err() {
                    return;
                }
                return await_close(&mut sock, stop, closes);
            }
            _ => {
                frame(&mut out, true, op, &payload);
                echoed += 1;
            }
        }
        if sock.write_all(&out).is_err() {
            return;
        }
        if mode == Hostile::BadUtf8 {
            return await_close(&mut sock, stop, closes);
        }
    }
}

/// Runs a load against a fresh server in `mode`: the result, the live heap's growth at its
/// peak during the run (bytes), and the Close codes the server read from the client.
fn against(mode: Hostile) -> (RunResult, usize, Vec<u16>) {
    against_with(mode, |_| {})
}

fn against_with(mode: Hostile, tweak: impl Fn(&mut Config)) -> (RunResult, usize, Vec<u16>) {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let s = Server::start(mode);
    let mut cfg = Config {
        url: format!("ws://{}/ws", s.addr),
        protocol: Protocol::Ws { pipeline: 1 },
        connections: 2,
        threads: 1,
        duration: Some(Duration::from_millis(1500)),
        timeout: Duration::from_millis(500),
        body: b"hello".to_vec(),
        expect_body: Some(b"hello".to_vec()),
        ..Config::default()
    };
    tweak(&mut cfg);
    let valid = cfg.validate().unwrap();
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let started = Instant::now();
    let r = run(&valid, &NullSink, &Cancel::new()).unwrap();
    let took = started.elapsed();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    // Ended by itself: the duration plus the timeout, and slack for a loaded machine (a bound
    // on a hang, well under the floods' 20 s, not a timing assertion).
    assert!(took < Duration::from_secs(10), "{mode:?}: ran {took:?}");
    // The server's threads have read what the client sent before the sockets closed.
    let closes = s.closes.clone();
    drop(s);
    let closes = closes.lock().unwrap().clone();
    // The counts add up: every message written was answered, failed, or is in flight.
    assert_eq!(
        r.requests_written,
        r.requests + (r.errors.total - r.errors.connect) + r.in_flight,
        "{mode:?}: {:?}",
        r.errors
    );
    (r, peak, closes)
}

/// Nothing answered, and every error of `class` (its example containing `words`).
fn only(mode: Hostile, r: &RunResult, class: &str, words: &str) {
    assert_eq!(r.requests, 0, "{mode:?}: nothing is a success");
    assert!(r.status.is_empty(), "{mode:?}: {:?}", r.status);
    let counts = r.errors.classes();
    let (_, n) = counts.iter().find(|(c, _)| *c == class).unwrap();
    assert!(*n > 0, "{mode:?}: {:?} {:?}", r.errors, r.error_examples);
    assert_eq!(r.errors.total, *n, "{mode:?}: {:?}", r.errors);
    assert!(
        r.error_examples[class].contains(words),
        "{mode:?}: {:?}",
        r.error_examples
    );
}

#[test]
fn a_server_that_never_answers_the_upgrade_is_a_connect_error() {
    let mode = Hostile::Silent;
    let (r, peak, _) = against(mode);
    only(mode, &r, "connect", "no WebSocket handshake within");
    assert_eq!(r.requests_written, 0);
    assert!(peak < 8 << 20, "peak live heap grew {peak} bytes");
}

#[test]
fn a_wrong_accept_key_is_a_connect_error_with_a_backoff() {
    let mode = Hostile::WrongAccept;
    let (r, _, _) = against(mode);
    only(mode, &r, "connect", "Sec-WebSocket-Accept");
    assert_eq!(r.requests_written, 0);
    // Each attempt fails at once and the next waits a growing backoff (5 ms doubling to 1 s):
    // a handful per connection in 1.5 s, not thousands.
    assert!(r.errors.connect < 60, "{:?}", r.errors);
}

/// A run bounded by a message count alone cannot use up its count against a server that never
/// upgrades: it gives up after twice the timeout without a message ending (before: the TCP
/// connects counted as progress, and the run went on for ever).
#[test]
fn a_count_bounded_run_gives_up_on_a_server_that_never_upgrades() {
    for mode in [Hostile::Silent, Hostile::WrongAccept] {
        let (r, _, _) = against_with(mode, |c| {
            c.duration = None;
            c.requests = Some(10);
        });
        only(mode, &r, "connect", "");
        assert_eq!(r.requests_written, 0);
    }
}

#[test]
fn a_frame_length_of_2_pow_63_is_a_protocol_error_and_the_client_says_1002() {
    let mode = Hostile::HugeLength;
    let (r, peak, closes) = against(mode);
    only(mode, &r, "protocol", "most significant bit");
    assert!(peak < 8 << 20, "peak live heap grew {peak} bytes");
    // The client failed each connection with a Close of 1002 that reached the server.
    assert!(
        !closes.is_empty() && closes.iter().all(|&c| c == 1002),
        "{closes:?}"
    );
}

#[test]
fn an_endless_fragmented_message_of_empty_frames_times_out() {
    let mode = Hostile::EndlessFragments;
    let (r, peak, _) = against(mode);
    // Empty continuations never grow the message: the message in flight waits out its timeout.
    only(mode, &r, "timeout", "no reply within");
    assert!(peak < 8 << 20, "peak live heap grew {peak} bytes");
}

#[test]
fn an_endless_fragmented_message_is_cut_at_the_message_limit() {
    let mode = Hostile::GrowingFragments;
    let (r, peak, closes) = against(mode);
    only(mode, &r, "protocol", "message over the limit");
    // Each connection holds at most one message under the 16 MiB limit.
    assert!(peak < 40 << 20, "peak live heap grew {peak} bytes");
    assert!(closes.iter().all(|&c| c == 1009), "{closes:?}");
}

#[test]
fn a_ping_flood_from_a_server_that_never_reads_stays_bounded_and_times_out() {
    let mode = Hostile::PingFlood;
    let (r, peak, _) = against(mode);
    only(mode, &r, "timeout", "no reply within");
    // Pongs are not queued without bound for a server that does not read them.
    assert!(peak < 8 << 20, "peak live heap grew {peak} bytes");
}

#[test]
fn invalid_utf8_in_a_text_frame_is_a_protocol_error_and_the_client_says_1007() {
    let mode = Hostile::BadUtf8;
    let (r, _, closes) = against(mode);
    only(mode, &r, "protocol", "UTF-8");
    assert!(
        !closes.is_empty() && closes.iter().all(|&c| c == 1007),
        "{closes:?}"
    );
}

#[test]
fn a_close_after_three_messages_fails_the_fourth_as_a_reset_and_the_reply_is_sent() {
    let mode = Hostile::CloseAfter3;
    let (r, _, closes) = against(mode);
    assert!(r.errors.reset > 0, "{:?} {:?}", r.errors, r.error_examples);
    assert_eq!(r.errors.total, r.errors.reset, "{:?}", r.errors);
    assert!(
        r.error_examples["reset"].contains("1011"),
        "{:?}",
        r.error_examples
    );
    assert_eq!(r.status["200"], r.requests);
    // Three echoes per connection before each close (the last connection may be cut by the
    // end of the run).
    assert!(
        r.requests >= 3 * r.errors.reset,
        "{} {:?}",
        r.requests,
        r.errors
    );
    let w = r.ws.as_ref().expect("a ws section");
    assert_eq!(w.closes.get("1011"), Some(&r.errors.reset), "{w:?}");
    // Every server close got the client's Close back, with the same code (RFC 6455 §5.5.1),
    // written before the client closed the socket. A close of the measured window's very end
    // may be cut by the run's stop, hence "at least all but two".
    assert!(closes.iter().all(|&c| c == 1011), "{closes:?}");
    assert!(
        closes.len() as u64 + 2 >= r.errors.reset,
        "{} client closes for {} server closes",
        closes.len(),
        r.errors.reset
    );
}

//! The hostile server: raw bytes from a thread per connection (blocking I/O), each mode
//! breaking RFC 6455, or an echo server's contract, one way.

use barrage_wire::ws::handshake::accept_key;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A flood stops by itself after this, so a client that never leaves its read loop shows as a
/// run far longer than its duration rather than as a hung test.
const FLOOD_FOR: Duration = Duration::from_secs(20);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hostile {
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
    /// Answers every message with its echo twice, both in one write.
    EchoTwice,
    /// A Close (1000) right behind the 101, in the same write; then reads until the client goes.
    CloseAfterUpgrade,
    /// Closes the connection right after the 101 (no Close frame).
    DropAfterUpgrade,
    /// Answers every message with its echo, its last byte changed.
    WrongEcho,
    /// Answers every message with a reply of `BIG_REPLY` bytes in 4 KiB fragments.
    BigReply,
}

/// `Hostile::BigReply`'s reply: longer than the 16 MiB every reply was once held to.
pub const BIG_REPLY: usize = 24 << 20;

pub struct Server {
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    /// Close frames the client sent, by code (0: none given).
    pub closes: Arc<Mutex<Vec<u16>>>,
    accept: Option<JoinHandle<()>>,
}

impl Server {
    pub fn start(mode: Hostile) -> Server {
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

/// Writes all of `buf`, however long the client takes to read it (a loaded machine may not read
/// for a while: giving up then would reset the connection), until the flood's time is up.
fn write_patiently(sock: &mut TcpStream, buf: &[u8], stop: &AtomicBool) -> bool {
    let until = Instant::now() + FLOOD_FOR;
    let mut at = 0;
    while at < buf.len() {
        if stop.load(Ordering::Relaxed) || Instant::now() > until {
            return false;
        }
        match sock.write(&buf[at..]) {
            Ok(0) => return false,
            Ok(n) => at += n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        | std::io::ErrorKind::Interrupted
                ) => {}
            Err(_) => return false,
        }
    }
    true
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
    if mode == Hostile::CloseAfterUpgrade {
        frame(&mut out, true, 0x8, &[0x03, 0xe8, b'b', b'y', b'e']);
    }
    if sock.write_all(&out).is_err() || mode == Hostile::DropAfterUpgrade {
        return;
    }
    if mode == Hostile::CloseAfterUpgrade {
        return await_close(&mut sock, stop, closes);
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
            Hostile::EchoTwice => {
                frame(&mut out, true, op, &payload);
                frame(&mut out, true, op, &payload);
            }
            Hostile::WrongEcho => {
                let mut wrong = payload.clone();
                if let Some(b) = wrong.last_mut() {
                    *b ^= 1;
                }
                frame(&mut out, true, op, &wrong);
            }
            Hostile::BigReply => {
                // Frame by frame: this process's heap is what the test measures.
                let piece = [b'a'; 4096];
                let n = BIG_REPLY / piece.len();
                for i in 0..n {
                    out.clear();
                    let op = if i == 0 { 0x2 } else { 0x0 };
                    frame(&mut out, i == n - 1, op, &piece);
                    if !write_patiently(&mut sock, &out, stop) {
                        return;
                    }
                }
                continue;
            }
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

//! `barrage serve` against hostile HTTP/2 clients, in raw frames: what one connection can make
//! the server hold is bounded by what it announced, and going past a bound ends the connection
//! with GOAWAY and a stated code, at once, not after buffering.
//!
//! Before: a header block of HEADERS and an endless run of CONTINUATION was buffered whole (156
//! MiB for one connection, answered 431 at the end), and `/echo` bodies the client did not let
//! the server send back (a send window of 0) were held up to 64 MiB per stream.

use crate::common;

use barrage_server::ServerConfig;
use common::{connect, server_with};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const ENHANCE_YOUR_CALM: u32 = 0xb;

fn frame(out: &mut Vec<u8>, kind: u8, flags: u8, stream: u32, payload: &[u8]) {
    let n = payload.len();
    out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8, kind, flags]);
    out.extend_from_slice(&stream.to_be_bytes());
    out.extend_from_slice(payload);
}

/// Reads frames until a GOAWAY (its error code and debug text) or the end of the connection.
fn goaway(sock: &mut TcpStream) -> Option<(u32, String)> {
    sock.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 65536];
    loop {
        while buf.len() >= 9 {
            let len = u32::from_be_bytes([0, buf[0], buf[1], buf[2]]) as usize;
            if buf.len() < 9 + len {
                break;
            }
            if buf[3] == 0x7 {
                let p = &buf[9..9 + len];
                let code = u32::from_be_bytes([p[4], p[5], p[6], p[7]]);
                return Some((code, String::from_utf8_lossy(&p[8..]).into_owned()));
            }
            buf.drain(..9 + len);
        }
        match sock.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// Writes `total` bytes of `unit` repeated from a thread; returns how many went out before the
/// server closed the connection.
fn flood(sock: &TcpStream, unit: Vec<u8>, total: usize) -> std::thread::JoinHandle<usize> {
    let mut w = sock.try_clone().unwrap();
    std::thread::spawn(move || {
        let mut sent = 0;
        while sent < total {
            if w.write_all(&unit).is_err() {
                break;
            }
            sent += unit.len();
        }
        sent
    })
}

#[test]
fn an_endless_continuation_run_gets_goaway_at_four_times_the_header_list_size() {
    let s = server_with(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    });
    let mut c = connect(s.local_addr());
    let mut open = PREFACE.to_vec();
    frame(&mut open, 0x4, 0, 0, &[]);
    // HEADERS without END_HEADERS: `:method GET` (index 2), then fragments that never end.
    frame(&mut open, 0x1, 0, 1, &[0x82]);
    c.write_all(&open).unwrap();
    let mut cont = Vec::new();
    frame(&mut cont, 0x9, 0, 1, &[0x82; 16_000]);
    // 64 MiB offered; the server announced a 16 KiB header list, so it stops at 64 KiB.
    let writer = flood(&c, cont, 64 << 20);
    let got = goaway(&mut c);
    drop(c);
    let sent = writer.join().unwrap();
    let (code, debug) = got.expect("a GOAWAY");
    assert_eq!(code, ENHANCE_YOUR_CALM, "{debug}");
    assert!(debug.contains("header block"), "{debug}");
    // The writer stopped when the server closed: what went out is the 64 KiB the server read,
    // plus what the two socket buffers held, far below the 64 MiB offered (before: all of it,
    // buffered by the server).
    assert!(sent < 32 << 20, "{sent} bytes went out");
}

/// Opens a connection whose client allows no DATA back (INITIAL_WINDOW_SIZE 0), sends the
/// request `block` on stream 1, then floods `data` frames up to 48 MiB (under the 64 MiB echo
/// limit): the GOAWAY that ends it (its code and debug text).
fn held_until_goaway(block: &[u8], data: &[u8]) -> (u32, String) {
    let s = server_with(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    });
    let mut c = connect(s.local_addr());
    let mut open = PREFACE.to_vec();
    frame(&mut open, 0x4, 0, 0, &[0, 4, 0, 0, 0, 0]);
    frame(&mut open, 0x1, 0x4, 1, block);
    c.write_all(&open).unwrap();
    let mut frames = Vec::new();
    frame(&mut frames, 0x0, 0, 1, data);
    let writer = flood(&c, frames, 48 << 20);
    let got = goaway(&mut c);
    drop(c);
    writer.join().unwrap();
    got.expect("a GOAWAY")
}

#[test]
fn echo_bodies_the_client_will_not_take_back_end_at_the_connection_window() {
    // POST /echo: :method POST (3), :scheme http (6), :path with literal "/echo" (name 4),
    // :authority literal (name 1). Held past the 16 MiB connection window, the connection ends.
    let mut block = vec![0x83, 0x86, 0x04, 5];
    block.extend_from_slice(b"/echo");
    block.extend_from_slice(&[0x01, 1, b'h']);
    let (code, debug) = held_until_goaway(&block, &[b'x'; 16_384]);
    assert_eq!(code, ENHANCE_YOUR_CALM, "{debug}");
    assert!(debug.contains("echo"), "{debug}");
}

/// A gRPC `Chat` whose client sends and never takes its echoes back (a send window of 0): the
/// echoes held count against the same connection window as `/echo` bodies, and the connection
/// ends there with GOAWAY, not after buffering all that was offered.
#[test]
fn grpc_chat_echoes_the_client_will_not_take_back_end_at_the_connection_window() {
    // POST /barrage.test.v1.Test/Chat, content-type application/grpc (a literal of static
    // name 31).
    let path = b"/barrage.test.v1.Test/Chat";
    let mut block = vec![0x83, 0x86, 0x04, path.len() as u8];
    block.extend_from_slice(path);
    block.extend_from_slice(&[0x01, 1, b'h', 0x0f, 0x10, 16]);
    block.extend_from_slice(b"application/grpc");
    // EchoRequest { payload: 16,000 bytes } = 0a 80 7d + the bytes, with gRPC's prefix.
    let mut msg = vec![0u8, 0, 0, 0x3e, 0x83, 0x0a, 0x80, 0x7d];
    msg.extend_from_slice(&[b'x'; 16_000]);
    let (code, debug) = held_until_goaway(&block, &msg);
    assert_eq!(code, ENHANCE_YOUR_CALM, "{debug}");
}

//! `barrage serve` against hostile HTTP/2 clients, in raw frames: what one connection can make
//! the server hold is bounded by what it announced, and going past a bound ends the connection
//! with GOAWAY and a stated code, at once, not after buffering; and a request reset in the
//! write that opened it (Rapid Reset) costs no body, whatever it asked for.
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

/// HEADERS of `path` on `stream`: GET (2) or POST (3), :scheme http (6), :path a literal of
/// static name 4, :authority "h"; gRPC's content-type (a literal of static name 31) for a call.
fn head_block(post: bool, path: &[u8], grpc: bool) -> Vec<u8> {
    let mut block = vec![if post { 0x83 } else { 0x82 }, 0x86, 0x04, path.len() as u8];
    block.extend_from_slice(path);
    block.extend_from_slice(&[0x01, 1, b'h']);
    if grpc {
        block.extend_from_slice(&[0x0f, 0x10, 16]);
        block.extend_from_slice(b"application/grpc");
    }
    block
}

/// Reads frames until the PING ACK carrying `mark` (`buf` keeps what was read past it): the
/// DATA bytes each stream carried meanwhile are added to `data` (by stream id), and the
/// response heads counted.
fn until_ping(
    c: &mut TcpStream,
    buf: &mut Vec<u8>,
    mark: [u8; 8],
    data: &mut Vec<(u32, u64)>,
) -> u64 {
    c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut heads = 0;
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        while buf.len() >= 9 {
            let len = u32::from_be_bytes([0, buf[0], buf[1], buf[2]]) as usize;
            if buf.len() < 9 + len {
                break;
            }
            let (kind, flags) = (buf[3], buf[4]);
            let stream = u32::from_be_bytes([buf[5], buf[6], buf[7], buf[8]]) & 0x7fff_ffff;
            let p = &buf[9..9 + len];
            match kind {
                0x0 => match data.iter_mut().find(|(s, _)| *s == stream) {
                    Some((_, n)) => *n += len as u64,
                    None => data.push((stream, len as u64)),
                },
                0x1 => heads += 1,
                0x6 if flags & 1 == 1 && p == mark => {
                    buf.drain(..9 + len);
                    return heads;
                }
                0x7 => panic!("GOAWAY {p:?}"),
                _ => {}
            }
            buf.drain(..9 + len);
        }
        match c.read(&mut chunk) {
            Ok(0) => panic!("the server closed the connection"),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) => panic!("{e}"),
        }
    }
}

/// Rapid Reset on a large body (issue 57): requests for `/bytes/1MiB`, and gRPC `Stream` calls
/// asking for 1,000 messages of 4 MiB, each reset (RST_STREAM CANCEL) in the write that opened
/// it, from a client whose windows let the server send as much as it likes. The answer's head
/// goes (it was answered before the reset was read), but no body: bodies wait until the read's
/// frames are all taken in, and the stream is gone by then. Before: each request's body was
/// made and written at once, up to the connection's high-water mark (256 KiB) of output.
#[test]
fn requests_reset_in_the_write_that_opened_them_cost_no_body() {
    let s = server_with(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    });
    let mut c = connect(s.local_addr());
    let mut open = PREFACE.to_vec();
    // INITIAL_WINDOW_SIZE 2^31-1, and the connection's window as large.
    frame(&mut open, 0x4, 0, 0, &[0, 4, 0x7f, 0xff, 0xff, 0xff]);
    frame(
        &mut open,
        0x8,
        0,
        0,
        &(0x7fff_ffffu32 - 65_535).to_be_bytes(),
    );
    c.write_all(&open).unwrap();
    // StreamRequest { count: 1000, size: 4 MiB } = 08 e8 07 10 80 80 80 02, with its prefix.
    let call = [
        0u8, 0, 0, 0, 8, 0x08, 0xe8, 0x07, 0x10, 0x80, 0x80, 0x80, 0x02,
    ];
    let cancel = 0x8u32.to_be_bytes();
    let mut data = Vec::new();
    let mut buf = Vec::new();
    let (batches, per_batch) = (20u32, 25u32);
    let mut stream = 1;
    let mut heads = 0;
    for b in 0..batches {
        // One write: 25 requests and their resets (every other one a gRPC call), then a PING
        // whose ACK says the server took all of them in.
        let mut w = Vec::new();
        for i in 0..per_batch {
            let grpc = i % 2 == 1;
            if grpc {
                let path = b"/barrage.test.v1.Test/Stream";
                frame(&mut w, 0x1, 0x4, stream, &head_block(true, path, true));
                frame(&mut w, 0x0, 0x1, stream, &call);
            } else {
                let path = b"/bytes/1048576";
                frame(&mut w, 0x1, 0x5, stream, &head_block(false, path, false));
            }
            frame(&mut w, 0x3, 0, stream, &cancel);
            stream += 2;
        }
        let mark = [b'r', b's', 0, 0, 0, 0, 0, b as u8];
        frame(&mut w, 0x6, 0, 0, &mark);
        c.write_all(&w).unwrap();
        heads += until_ping(&mut c, &mut buf, mark, &mut data);
    }
    let reset = u64::from(batches * per_batch);
    // Every request was routed and its head sent; not one body byte was made for them.
    assert_eq!(heads, reset);
    assert_eq!(data, vec![]);
    assert_eq!(s.stats().body_bytes, 0);

    // A request that is not reset gets its body whole, and that is all the server made.
    let mut w = Vec::new();
    frame(
        &mut w,
        0x1,
        0x5,
        stream,
        &head_block(false, b"/bytes/1048576", false),
    );
    let mark = *b"whole!!!";
    c.write_all(&w).unwrap();
    let mut got = Vec::new();
    let mut total = 0;
    while total < 1 << 20 {
        // Ask again until the body has come (the PING goes out after its last DATA frame).
        let mut p = Vec::new();
        frame(&mut p, 0x6, 0, 0, &mark);
        c.write_all(&p).unwrap();
        heads += until_ping(&mut c, &mut buf, mark, &mut got);
        total = got.iter().map(|&(_, n)| n).sum::<u64>();
    }
    assert_eq!(got, vec![(stream, 1 << 20)]);
    assert_eq!(heads, reset + 1);
    let st = s.stats();
    assert_eq!(st.body_bytes, 1 << 20);
    assert_eq!(st.responses, vec![("h2", 200, reset + 1)]);
}

//! The floor under bench/h3.sh's HTTP/3 figures: what moving the same datagrams costs with no
//! QUIC, no TLS and no HTTP, one `recv` and one `send` system call per datagram each way.
//!
//! `udp-floor echo ADDR REPLY_BYTES`: answers every datagram with one of REPLY_BYTES bytes to
//! its sender (blocking `recv_from`/`send_to`); prints `listening on ADDR` first; runs until
//! killed.
//! `udp-floor send ADDR SIZE WINDOW SECONDS`: keeps WINDOW datagrams of SIZE bytes in flight
//! to the echo (a new one sent for each reply) for SECONDS, then prints
//! `exchanges N seconds S` (N replies received). A datagram lost on the way is replaced after
//! 100 ms without replies, so the window never drains for good; the run ends by itself.

use std::net::UdpSocket;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: udp-floor echo ADDR REPLY_BYTES | udp-floor send ADDR SIZE WINDOW SECONDS";
    let num = |i: usize| -> usize {
        args.get(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("{usage}"))
    };
    match args.get(1).map(String::as_str) {
        Some("echo") => echo(&args[2], num(3)),
        Some("send") => send(&args[2], num(3), num(4), num(5) as u64),
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    }
}

fn echo(addr: &str, reply: usize) {
    let sock = UdpSocket::bind(addr).expect("bind");
    println!("listening on {}", sock.local_addr().expect("local address"));
    let out = vec![0x5a; reply];
    let mut buf = vec![0; 65536];
    loop {
        if let Ok((_, from)) = sock.recv_from(&mut buf) {
            let _ = sock.send_to(&out, from);
        }
    }
}

fn send(addr: &str, size: usize, window: usize, seconds: u64) {
    let sock = UdpSocket::bind("127.0.0.1:0").expect("bind");
    sock.connect(addr).expect("connect");
    sock.set_read_timeout(Some(Duration::from_millis(100)))
        .expect("timeout");
    let out = vec![0xa5; size];
    let mut buf = vec![0; 65536];
    for _ in 0..window {
        let _ = sock.send(&out);
    }
    let start = Instant::now();
    let end = start + Duration::from_secs(seconds);
    let mut n: u64 = 0;
    while Instant::now() < end {
        match sock.recv(&mut buf) {
            Ok(_) => {
                n += 1;
                let _ = sock.send(&out);
            }
            // Nothing for 100 ms: datagrams were dropped (a full socket buffer); send again.
            Err(_) => {
                for _ in 0..window {
                    let _ = sock.send(&out);
                }
            }
        }
    }
    println!(
        "exchanges {n} seconds {:.3}",
        start.elapsed().as_secs_f64()
    );
}

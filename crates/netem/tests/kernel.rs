//! The emulated link as the kernel sees it (not as barrage counts it): connect times and `ss`'s
//! RTT over a delay, a download's time over a rate, retransmissions in the namespace's
//! /proc/net/snmp over a loss. The tests run one at a time (they time things) and need root
//! and /dev/net/tun; without them each says so and passes.

use barrage_model::network::Network;
use barrage_model::units::{Loss, Rate};
use barrage_netem::{Net, NetError, NetOptions, CONTENDER_ADDR};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Mutex;
use std::time::{Duration, Instant};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn up(network: Network) -> Option<Net> {
    match Net::up(&NetOptions {
        network,
        seed: 1,
        cpus: None,
    }) {
        Ok(n) => Some(n),
        Err(e @ (NetError::Namespace(_) | NetError::NoTun(_))) => {
            eprintln!("SKIPPED: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// A listener on the contender's side, port 0.
fn listen(net: &Net) -> (TcpListener, SocketAddr) {
    let l = net
        .contender()
        .run(|| TcpListener::bind((CONTENDER_ADDR, 0)))
        .unwrap()
        .unwrap();
    let addr = l.local_addr().unwrap();
    (l, addr)
}

fn netns_list() -> String {
    std::process::Command::new("ip")
        .args(["netns", "list"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

#[test]
fn connect_takes_the_rtt_and_ss_sees_it() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let before = netns_list();
    let Some(net) = up(Network {
        delay: ms(50),
        ..Network::default()
    }) else {
        return;
    };
    let (listener, addr) = listen(&net);
    let echo = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut b = [0u8; 1];
        while s.read_exact(&mut b).is_ok() {
            s.write_all(&b).unwrap();
        }
    });
    let (mut times, ss) = net
        .load()
        .run(|| {
            let mut times = Vec::new();
            // The first connection stays open for the echo and ss; four more are timed.
            let t = Instant::now();
            let mut s = TcpStream::connect(addr).unwrap();
            times.push(t.elapsed());
            for _ in 0..4 {
                let t = Instant::now();
                let c = TcpStream::connect(addr).unwrap();
                times.push(t.elapsed());
                drop(c);
            }
            for _ in 0..5 {
                s.write_all(b"x").unwrap();
                let mut b = [0u8; 1];
                s.read_exact(&mut b).unwrap();
            }
            let ss = std::process::Command::new("ss")
                .args(["-tin", "dst", &addr.ip().to_string()])
                .output()
                .expect("ss (iproute2) runs");
            drop(s);
            (times, String::from_utf8_lossy(&ss.stdout).into_owned())
        })
        .unwrap();
    echo.join().unwrap();
    let run = net.down();
    times.sort();
    let median = times[times.len() / 2];
    eprintln!("connect times {times:?}; emulator {run:?}");
    assert!(
        (ms(90)..=ms(110)).contains(&median),
        "connect over rtt 100ms took {median:?} (all: {times:?})"
    );
    // ss: "rtt:100.2/40.1" -> the smoothed RTT in ms.
    let rtt: f64 = ss
        .split_whitespace()
        .find_map(|w| w.strip_prefix("rtt:"))
        .and_then(|v| v.split('/').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no rtt in ss -ti:\n{ss}"));
    eprintln!("ss -ti: rtt {rtt} ms");
    assert!((90.0..=110.0).contains(&rtt), "ss rtt {rtt} ms:\n{ss}");
    assert_eq!(run.path, "tun");
    assert!(run.packets > 20, "{run:?}");
    assert_eq!(netns_list(), before, "ip netns list changed");
}

/// Sends `bytes` from the contender's side to the load side; returns the receiver's time from
/// the connect to the end of the stream, and the load side's and contender side's snmp Tcp line.
fn download(net: &Net, bytes: usize) -> (Duration, String) {
    let (listener, addr) = listen(net);
    let sender = net.contender();
    let send = std::thread::scope(|sc| {
        let h = sc.spawn(|| {
            sender
                .run(|| {
                    let (mut s, _) = listener.accept().unwrap();
                    let chunk = vec![7u8; 1 << 16];
                    let mut left = bytes;
                    while left > 0 {
                        let n = left.min(chunk.len());
                        s.write_all(&chunk[..n]).unwrap();
                        left -= n;
                    }
                    // Written is not delivered: the counters are read once the receiver has
                    // everything (it closes after the end of the stream).
                    s.shutdown(std::net::Shutdown::Write).unwrap();
                    let _ = s.read(&mut [0u8; 1]);
                    snmp_tcp()
                })
                .unwrap()
        });
        let took = net
            .load()
            .run(|| {
                let t = Instant::now();
                let mut s = TcpStream::connect(addr).unwrap();
                let mut buf = vec![0u8; 1 << 16];
                let mut got = 0;
                loop {
                    let n = s.read(&mut buf).unwrap();
                    if n == 0 {
                        break;
                    }
                    got += n;
                }
                assert_eq!(got, bytes);
                let took = t.elapsed();
                drop(s);
                took
            })
            .unwrap();
        (took, h.join().unwrap())
    });
    send
}

/// The `Tcp:` values of this thread's namespace, by name.
fn snmp_tcp() -> String {
    std::fs::read_to_string("/proc/thread-self/net/snmp").unwrap()
}

fn tcp_counter(snmp: &str, name: &str) -> u64 {
    let lines: Vec<&str> = snmp.lines().filter(|l| l.starts_with("Tcp:")).collect();
    let names: Vec<&str> = lines[0].split_whitespace().collect();
    let values: Vec<&str> = lines[1].split_whitespace().collect();
    let i = names.iter().position(|n| *n == name).unwrap();
    values[i].parse().unwrap()
}

#[test]
fn a_download_takes_what_the_rate_allows() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(net) = up(Network {
        rate: Some(Rate(200_000_000)),
        ..Network::default()
    }) else {
        return;
    };
    // 128 MiB (not 1 GiB: 44 s per run), about 5.6 s at 200 Mbit/s.
    let bytes = 128 << 20;
    let (took, _) = download(&net, bytes);
    let run = net.down();
    // On the wire each full segment of 1448 bytes (MSS with timestamps) is a 1500-byte packet.
    let wire_bits = (bytes as f64 / 1448.0).ceil() * 1500.0 * 8.0;
    let want = wire_bits / 200e6;
    let got = took.as_secs_f64();
    eprintln!(
        "{bytes} B in {got:.3} s, link allows {want:.3} s ({:.1} Mbit/s of payload); emulator {run:?}",
        bytes as f64 * 8.0 / got / 1e6
    );
    assert!(
        (got / want - 1.0).abs() <= 0.05,
        "took {got:.3} s where 200 Mbit/s allows {want:.3} s"
    );
}

#[test]
fn loss_shows_as_retransmissions() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let bytes = 8 << 20;
    let mut retrans = Vec::new();
    for loss in [0.0, 0.02] {
        let Some(net) = up(Network {
            delay: ms(1),
            loss: Loss(loss),
            ..Network::default()
        }) else {
            return;
        };
        let (_, snmp) = download(&net, bytes);
        let run = net.down();
        let r = tcp_counter(&snmp, "RetransSegs");
        eprintln!(
            "loss {loss}: RetransSegs {r}, emulator dropped {}",
            run.dropped_loss
        );
        retrans.push((r, run.dropped_loss));
    }
    assert_eq!(retrans[0], (0, 0), "a clean link retransmits nothing");
    let (r, dropped) = retrans[1];
    assert!(dropped > 50, "2% of ~6,000 packets each way: {dropped}");
    // Data segments are about two thirds of the packets (an ACK per two segments comes back);
    // each one lost is sent again (lost ACKs cost nothing).
    assert!(r * 2 >= dropped, "RetransSegs {r} for {dropped} drops");
}

//! The emulator's cost and limits (bench/netem.sh runs it in release): UDP datagrams of SIZE
//! bytes sent from the load side's namespace to the contender's at a paced rate across a link of
//! DELAY one way; the receiver reads each datagram's send time (CLOCK_MONOTONIC, one machine) and
//! records the one-way delay it saw. Per offered rate it prints the rate received, the added
//! delay's p50/p99/max over DELAY (the kernel's view), the emulator's own lateness p99, and its
//! CPU per packet and in all.
//!
//! Usage: netem_bench [--delay-ms N] [--size BYTES] [--secs S] [--cpu N] RATE...

use barrage_model::network::Network;
use barrage_netem::{Net, NetOptions, CONTENDER_ADDR};
use hdrhistogram::Histogram;
use std::net::UdpSocket;
use std::time::{Duration, Instant};

fn clock_ns(id: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: fills ts.
    unsafe { libc::clock_gettime(id, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn mono_ns() -> u64 {
    clock_ns(libc::CLOCK_MONOTONIC)
}

/// The datagram's send time (CLOCK_REALTIME, in its first 8 bytes) and the time the kernel
/// queued it on the socket (SO_TIMESTAMPNS, the same clock): the delay the link gave it, free
/// of the receiving thread's own scheduling.
fn recv_delay_ns(fd: i32, buf: &mut [u8]) -> Option<u64> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    let mut cbuf = [0u64; 16];
    // SAFETY: msghdr points at live buffers; recvmsg fills them.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = cbuf.as_mut_ptr().cast();
        msg.msg_controllen = std::mem::size_of_val(&cbuf) as _;
        let n = libc::recvmsg(fd, &mut msg, 0);
        if n < 8 {
            return None;
        }
        let sent = u64::from_ne_bytes(buf[..8].try_into().ok()?);
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                let ts = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::timespec);
                let at = ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64;
                return Some(at.saturating_sub(sent));
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
        None
    }
}

fn set_int(fd: i32, opt: libc::c_int, v: libc::c_int) {
    // SAFETY: an int socket option.
    unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            opt,
            (&v as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as _,
        )
    };
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut delay_ms, mut size, mut secs, mut cpu) = (10u64, 64usize, 3u64, None);
    let mut rates = Vec::new();
    while let Some(a) = args.next() {
        let mut val = || {
            args.next()
                .expect("a value")
                .parse::<u64>()
                .expect("a number")
        };
        match a.as_str() {
            "--delay-ms" => delay_ms = val(),
            "--size" => size = val() as usize,
            "--secs" => secs = val(),
            "--cpu" => cpu = Some(vec![val() as usize]),
            r => rates.push(r.parse::<u64>().expect("a rate in packets per second")),
        }
    }
    println!("| offered pkt/s | sent pkt/s | through the emulator | received | dropped before it | added delay p50 µs | p99 µs | max µs | emulator late p99 µs | emulator CPU µs/pkt | emulator CPU % |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for rate in rates {
        let net = Net::up(&NetOptions {
            network: Network {
                delay: Duration::from_millis(delay_ms),
                ..Network::default()
            },
            seed: 1,
            cpus: cpu.clone(),
        })
        .expect("the network comes up (root, /dev/net/tun)");
        let rx = net
            .contender()
            .run(|| UdpSocket::bind((CONTENDER_ADDR, 0)))
            .unwrap()
            .unwrap();
        rx.set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        let to = rx.local_addr().unwrap();
        let total = rate * secs;
        let recv = std::thread::spawn(move || {
            use std::os::fd::AsRawFd;
            let fd = rx.as_raw_fd();
            set_int(fd, libc::SO_TIMESTAMPNS, 1);
            set_int(fd, libc::SO_RCVBUFFORCE, 64 << 20);
            let mut h = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).unwrap();
            let mut buf = vec![0u8; 65536];
            let mut got = 0u64;
            while let Some(d) = recv_delay_ns(fd, &mut buf) {
                let _ = h.record((d / 1000).max(1));
                got += 1;
            }
            (got, h)
        });
        let cpu0 = net.emulator_cpu();
        let t0 = Instant::now();
        let sender_cpu = cpu.as_ref().map(|c| if c[0] == 0 { 1 } else { 0 });
        net.load()
            .run(|| {
                // The sender spins: on a CPU of its own, away from the emulator's.
                if let Some(c) = sender_cpu {
                    // SAFETY: plain data; pid 0 is this thread.
                    unsafe {
                        let mut set: libc::cpu_set_t = std::mem::zeroed();
                        libc::CPU_SET(c, &mut set);
                        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
                    }
                }
                let tx = UdpSocket::bind("0.0.0.0:0").unwrap();
                let mut buf = vec![0u8; size.max(8)];
                let gap = 1e9 / rate as f64;
                let start = mono_ns();
                for i in 0..total {
                    let due = start + (i as f64 * gap) as u64;
                    while mono_ns() < due {
                        std::hint::spin_loop();
                    }
                    buf[..8].copy_from_slice(&clock_ns(libc::CLOCK_REALTIME).to_ne_bytes());
                    let _ = tx.send_to(&buf, to);
                }
            })
            .unwrap();
        let sent_for = t0.elapsed();
        let (got, h) = recv.join().unwrap();
        let cpu = net.emulator_cpu() - cpu0;
        let run = net.down();
        let added = |q: f64| h.value_at_quantile(q).saturating_sub(delay_ms * 1000);
        println!(
            "| {rate} | {:.0} | {} | {got} | {} | {} | {} | {} | {:.0} | {:.2} | {:.0} |",
            total as f64 / sent_for.as_secs_f64(),
            run.packets,
            total.saturating_sub(run.packets),
            added(0.5),
            added(0.99),
            h.max().saturating_sub(delay_ms * 1000),
            run.late_p99_us,
            cpu.as_secs_f64() * 1e6 / run.packets.max(1) as f64,
            100.0 * cpu.as_secs_f64() / sent_for.as_secs_f64(),
        );
    }
}

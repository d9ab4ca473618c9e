//! No allocation per request in steady state: the allocations of a run grow with its seconds
//! and connections, not with its requests. A counting global allocator compares a run of N
//! requests with one of 10 N on one connection against a server that allocates nothing per
//! response. What the calling thread does is not counted: it collects the workers' seconds
//! and, after the load, derives the document (each figure's interval from the run's seconds,
//! thousands of allocations once a run has two seconds or more): per second and per run, never
//! per request, and on a loaded machine the larger run spans more seconds than the smaller.

use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol};
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The thread that calls `run` (its coordinator), whose allocations are not counted.
    static CALLER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn count() {
    // `try_with`: a thread being torn down has no thread-locals left, and counts.
    if !CALLER.try_with(|c| c.get()).unwrap_or(false) {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count();
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        count();
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made by the workers while running `n` requests (pipelined by `depth`) on one
/// connection, and the run's seconds.
fn allocations_for(n: u64, depth: usize) -> (u64, u64) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        const RESP: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
        let mut out = [0u8; 64 * 1024];
        let mut buf = [0u8; 64 * 1024];
        for _ in 0..2 {
            // The probe connection, then the run's one connection.
            let (mut s, _) = listener.accept().unwrap();
            let mut tail = 0usize; // bytes of "\r\n\r\n" matched across reads
            loop {
                let n = match s.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let mut reqs = 0;
                for &b in &buf[..n] {
                    let want = b"\r\n\r\n"[tail];
                    tail = if b == want {
                        tail + 1
                    } else if b == b'\r' {
                        1
                    } else {
                        0
                    };
                    if tail == 4 {
                        reqs += 1;
                        tail = 0;
                    }
                }
                let mut len = 0;
                for _ in 0..reqs {
                    out[len..len + RESP.len()].copy_from_slice(RESP);
                    len += RESP.len();
                }
                if s.write_all(&out[..len]).is_err() {
                    break;
                }
            }
        }
    });
    let cfg = Config {
        url: format!("http://{addr}/"),
        connections: 1,
        threads: 1,
        protocol: Protocol::Http1 {
            pipeline: depth,
            keepalive: true,
        },
        requests: Some(n),
        duration: None,
        timeout: Duration::from_secs(30),
        ..Config::default()
    }
    .validate()
    .unwrap();
    let before = ALLOCS.load(Ordering::Relaxed);
    CALLER.with(|c| c.set(true));
    let r = run(&cfg, &NullSink, &Cancel::new()).unwrap();
    CALLER.with(|c| c.set(false));
    let used = ALLOCS.load(Ordering::Relaxed) - before;
    assert_eq!(r.requests, n);
    let seconds = r.duration_s.ceil() as u64;
    drop(r);
    server.join().unwrap();
    (used, seconds)
}

#[test]
fn allocations_do_not_grow_with_requests() {
    for depth in [1, 16] {
        let (small, s1) = allocations_for(2_000, depth);
        let (large, s2) = allocations_for(20_000, depth);
        let said = format!(
            "depth {depth}: {small} allocations for 2,000 requests over {s1} s, {large} for \
             20,000 over {s2} s"
        );
        eprintln!("{said}");
        // 18,000 more requests: nothing more but each second's record (a worker sends one a
        // second: its interval, 3 allocations); ten more allocations (one in 1,800 requests) fail.
        assert!(large < small + 10 + 10 * s2.saturating_sub(s1), "{said}");
    }
}

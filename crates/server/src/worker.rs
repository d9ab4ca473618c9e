//! One worker thread: its own SO_REUSEPORT listener, mio poll loop, connections and timers.

use crate::answer::Checksums;
use crate::conn::{Cause, Conn, End, Next, Scratch};
use crate::respond::Templates;
use crate::route::{random_fault, Fault};
use crate::transport::Transport;
use crate::{ServerConfig, Shared};
use mio::net::TcpListener;
use mio::{Events, Interest, Poll, Token, Waker};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, Read};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(crate) const LISTENER: Token = Token(0);
pub(crate) const WAKER: Token = Token(1);
const FIRST_CONN: usize = 2;

/// How often idle connections are looked for.
const SWEEP_EVERY: Duration = Duration::from_millis(500);

/// A timer: (deadline, connection slot, connection id, the connection's timer sequence number).
type TimerEntry = Reverse<(Instant, usize, u64, u64)>;

/// What a connection may use of its worker while it runs.
pub(crate) struct Ctx<'a> {
    pub shared: &'a Shared,
    pub templates: &'a Templates,
    pub now: Instant,
    pub draining: bool,
    /// This worker's counters (`--metrics`).
    pub counters: &'a crate::stats::Counters,
    slot: usize,
    timers: &'a mut BinaryHeap<TimerEntry>,
    /// The worker's memo of `/bytes` checksums.
    pub checksums: &'a mut Checksums,
}

impl Ctx<'_> {
    pub(crate) fn cfg(&self) -> &ServerConfig {
        &self.shared.cfg
    }

    pub(crate) fn arm_timer(&mut self, at: Instant, id: u64, seq: u64) {
        self.timers.push(Reverse((at, self.slot, id, seq)));
    }
}

/// With `--fault-rate`, decides whether this request gets a fault instead of its answer, for
/// every thread and protocol. Decision `i` of the whole server depends only on the seed and `i`,
/// so a run is repeatable.
pub(crate) fn pick_fault(shared: &Shared) -> Option<Fault> {
    let rate = shared.cfg.fault_rate;
    if rate <= 0.0 {
        return None;
    }
    let i = shared.fault_seq.fetch_add(1, Ordering::Relaxed);
    let r = splitmix64(shared.cfg.fault_seed ^ splitmix64(i));
    let u = (r >> 11) as f64 / (1u64 << 53) as f64;
    (u < rate).then(|| random_fault(splitmix64(r)))
}

/// SplitMix64: a tiny, well-mixed deterministic generator step.
pub(crate) fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub(crate) struct Worker {
    poll: Poll,
    listener: Option<TcpListener>,
    shared: Arc<Shared>,
    conns: Vec<Option<Conn>>,
    free: Vec<usize>,
    live: usize,
    next_id: u64,
    timers: BinaryHeap<TimerEntry>,
    checksums: Checksums,
    templates: Templates,
    scratch: Scratch,
    drain_deadline: Option<Instant>,
    /// This worker's index in `Shared::counters`.
    index: usize,
}

impl Worker {
    /// Sets up the poll and registers the listener; returns the worker and its waker.
    pub(crate) fn new(
        listener: std::net::TcpListener,
        shared: Arc<Shared>,
        index: usize,
    ) -> io::Result<(Worker, Arc<Waker>)> {
        let poll = Poll::new()?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
        let mut listener = TcpListener::from_std(listener);
        poll.registry()
            .register(&mut listener, LISTENER, Interest::READABLE)?;
        let templates = Templates::new(shared.alt_svc.clone());
        let input = vec![0u8; (shared.cfg.header_limit + 1).max(64 * 1024) + 64 * 1024];
        let worker = Worker {
            poll,
            listener: Some(listener),
            shared,
            conns: Vec::new(),
            free: Vec::new(),
            live: 0,
            next_id: 0,
            timers: BinaryHeap::new(),
            checksums: Checksums::default(),
            templates,
            scratch: Scratch {
                input: input.into_boxed_slice(),
                output: Vec::with_capacity(64 * 1024),
            },
            drain_deadline: None,
            index,
        };
        Ok((worker, waker))
    }

    /// The event loop; returns when shut down and drained (or the grace period ran out).
    pub(crate) fn run(mut self) {
        let mut events = Events::with_capacity(1024);
        let mut next_sweep = Instant::now() + SWEEP_EVERY;
        loop {
            let now = Instant::now();
            if self.drain_deadline.is_none() && self.shared.stop.load(Ordering::Acquire) {
                self.begin_drain(now);
            }
            if let Some(deadline) = self.drain_deadline {
                if self.live == 0 || now >= deadline {
                    break;
                }
            }
            let mut wake = next_sweep;
            if let Some(Reverse((at, ..))) = self.timers.peek() {
                wake = wake.min(*at);
            }
            if let Some(d) = self.drain_deadline {
                wake = wake.min(d);
            }
            let timeout = wake.saturating_duration_since(now);
            if let Err(e) = self.poll.poll(&mut events, Some(timeout)) {
                if e.kind() != io::ErrorKind::Interrupted {
                    break;
                }
            }
            self.templates.tick();
            let now = Instant::now();
            for ev in events.iter() {
                match ev.token() {
                    LISTENER => self.accept(now),
                    WAKER => {}
                    Token(t) => {
                        let drain = ev.is_read_closed() || ev.is_error();
                        self.drive(t - FIRST_CONN, now, Cause::Io { drain });
                    }
                }
            }
            self.fire_timers(now);
            if now >= next_sweep {
                self.sweep(now);
                next_sweep = now + SWEEP_EVERY;
            }
        }
        for slot in 0..self.conns.len() {
            if let Some(conn) = self.conns[slot].take() {
                self.close(conn, End::Close);
            }
        }
    }

    fn accept(&mut self, now: Instant) {
        loop {
            let Some(listener) = self.listener.as_ref() else {
                return;
            };
            let (stream, _peer) = match listener.accept() {
                Ok(s) => s,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // WouldBlock, or out of descriptors: wait for the next readiness.
                Err(_) => return,
            };
            self.shared.counters[self.index].accepted();
            let active = self.shared.active.fetch_add(1, Ordering::AcqRel);
            if active >= self.shared.cfg.max_connections {
                self.shared.active.fetch_sub(1, Ordering::AcqRel);
                drop(stream);
                continue;
            }
            let _ = stream.set_nodelay(true);
            let Ok(mut stream) = Transport::new(stream, self.shared.tls.as_ref()) else {
                self.shared.active.fetch_sub(1, Ordering::AcqRel);
                continue;
            };
            let slot = self.free.pop().unwrap_or_else(|| {
                self.conns.push(None);
                self.conns.len() - 1
            });
            let token = Token(slot + FIRST_CONN);
            let interest = Interest::READABLE | Interest::WRITABLE;
            if self
                .poll
                .registry()
                .register(stream.tcp_mut(), token, interest)
                .is_err()
            {
                self.free.push(slot);
                self.shared.active.fetch_sub(1, Ordering::AcqRel);
                continue;
            }
            self.next_id += 1;
            self.conns[slot] = Some(Conn::new(stream, self.next_id, now));
            self.live += 1;
        }
    }

    fn drive(&mut self, slot: usize, now: Instant, cause: Cause) {
        // Borrow the fields apart rather than moving the connection out and back (it is a few
        // hundred bytes, copied twice per event otherwise).
        let Some(conn) = self.conns.get_mut(slot).and_then(Option::as_mut) else {
            return;
        };
        let mut ctx = Ctx {
            shared: &self.shared,
            templates: &self.templates,
            now,
            draining: self.drain_deadline.is_some(),
            counters: &self.shared.counters[self.index],
            slot,
            timers: &mut self.timers,
            checksums: &mut self.checksums,
        };
        if let Next::End(end) = conn.run(&mut ctx, &mut self.scratch, cause) {
            let conn = self.conns[slot].take().expect("just ran");
            self.close(conn, end);
            self.free.push(slot);
        }
    }

    fn fire_timers(&mut self, now: Instant) {
        while let Some(Reverse((at, slot, id, seq))) = self.timers.peek().copied() {
            if at > now {
                break;
            }
            self.timers.pop();
            let current = self.conns[slot]
                .as_ref()
                .is_some_and(|c| c.id == id && c.timer_seq == seq);
            if current {
                self.drive(slot, now, Cause::Timer);
            }
        }
    }

    /// Closes keep-alive connections idle for longer than the idle timeout.
    fn sweep(&mut self, now: Instant) {
        // Timers of closed connections stay in the heap until due; drop them when they pile up
        // (a client opening and abandoning long sleeps must not grow memory for an hour).
        if self.timers.len() > 1024 + 4 * self.live {
            let conns = &self.conns;
            self.timers.retain(|Reverse((_, slot, id, seq))| {
                conns[*slot]
                    .as_ref()
                    .is_some_and(|c| c.id == *id && c.timer_seq == *seq)
            });
        }
        let idle = self.shared.cfg.idle_timeout;
        for slot in 0..self.conns.len() {
            let expired = self.conns[slot].as_ref().is_some_and(|c| {
                !c.is_working() && now.saturating_duration_since(c.last_active) > idle
            });
            if expired {
                let conn = self.conns[slot].take().expect("checked");
                self.close(conn, End::Close);
                self.free.push(slot);
            }
        }
    }

    /// Stops accepting and lets every connection finish what it has received.
    fn begin_drain(&mut self, now: Instant) {
        if let Some(mut l) = self.listener.take() {
            let _ = self.poll.registry().deregister(&mut l);
        }
        self.drain_deadline = Some(now + self.shared.cfg.grace);
        for slot in 0..self.conns.len() {
            self.drive(slot, now, Cause::Drain);
        }
    }

    fn close(&mut self, mut conn: Conn, end: End) {
        let _ = self.poll.registry().deregister(conn.stream.tcp_mut());
        match end {
            End::Reset => {
                let _ = socket2::SockRef::from(conn.stream.tcp()).set_linger(Some(Duration::ZERO));
            }
            End::Close => {
                // Send FIN first, then take what the client already sent, so that unread input
                // does not turn the close into a reset that could destroy our last response.
                // TLS says it is done first, so that the client can tell the end from a cut.
                conn.stream.close_notify();
                let tcp = conn.stream.tcp_mut();
                let _ = tcp.shutdown(std::net::Shutdown::Write);
                let mut sink = [0u8; 4096];
                for _ in 0..16 {
                    match tcp.read(&mut sink) {
                        Ok(n) if n > 0 => {}
                        _ => break,
                    }
                }
            }
        }
        drop(conn);
        self.live -= 1;
        self.shared.active.fetch_sub(1, Ordering::AcqRel);
    }
}

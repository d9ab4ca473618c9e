//! One worker: a thread that owns its connections and a mio event loop, for every protocol and
//! every load mode. No locks, no allocation per request. Each connection's protocol lives in a
//! session behind wire's one client interface ([`ClientSession`]): the loop opens requests on
//! it, writes what it has to send, feeds it what was read (in place, from one read buffer shared
//! by the worker's connections, with what a session left unconsumed carried per connection),
//! and records each request's [`End`] the same way whatever the protocol.

use crate::recorder::{micros, Interval, Recorder};
use crate::sink::Phase;
mod datagram;
mod ends;
mod exchange;
mod lifecycle;
mod open_loop;
mod script;

use crate::timer::Timer;
use crate::transport::Transport;
use crate::{Cancel, ErrorClass, Pacer};
use barrage_wire::client::{ClientSession, Order, Protocol, Session, Tag, MAX_CARRY};
use mio::{Events, Poll, Token};
use rustls::pki_types::ServerName;
use rustls::ClientConfig;
use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Read buffer per worker: room for a carry of up to `MAX_CARRY` plus a 64 KiB read.
const READ_BUF: usize = MAX_CARRY + 64 * 1024;
/// Sends later than this with a free connection available count as the generator's fault.
const GENERATOR_SLACK: Duration = Duration::from_millis(1);

/// What every worker of a run shares, read-only.
pub struct Shared {
    pub tls: Option<(Arc<ClientConfig>, ServerName<'static>)>,
    /// The protocol runs over UDP (HTTP/3's QUIC): each connection is a connected UDP socket,
    /// ready at once (the handshake is the session's), and the sessions' own timers
    /// ([`ClientSession::timer`]) wake the loop.
    pub udp: bool,
    /// The run's requests in sending order, by position.
    pub order: Order,
    /// The protocol: what its connections share (the requests encoded for it); each connection
    /// gets a session of it.
    pub protocol: Protocol,
    /// `--targets` runs: each request keeps figures of its own.
    pub per_target: bool,
    /// Requests in flight per connection (the pipeline depth, or HTTP/2's streams): the open
    /// loop's slots per connection.
    pub depth: usize,
    pub timeout: Duration,
    pub expect_status: Option<u16>,
    pub start: Instant,
    pub measure_start: Instant,
    pub end: Option<Instant>,
    pub cancel: Cancel,
    /// `--script`: what validation learned of it (each worker starts its own Lua state).
    pub script: Option<Arc<crate::script::ScriptPlan>>,
    /// A script's `os.exit` in some worker: every worker stops, as wrk's process would.
    pub script_exit: std::sync::atomic::AtomicBool,
}

/// This worker's share of the run.
pub struct Plan {
    pub connections: usize,
    /// Requests to write in the measured window (None: until the end time).
    pub budget: Option<u64>,
    pub pacer: Option<Pacer>,
    /// `--ramp-up`: when each connection opens, after the start (empty: all at once).
    pub ramp: Vec<Duration>,
    /// Where this worker starts in the round of requests (workers start apart, so that
    /// together they go over the targets evenly from the first request).
    pub first: usize,
    /// `--script`: what the setup phase gave this worker's thread.
    pub lua: Option<barrage_script::ThreadSetup>,
    /// Where this worker connects: the run's address, or the script's `thread.addr`.
    pub addr: SocketAddr,
}

pub enum Report {
    Second {
        phase: Phase,
        index: u64,
        span: Duration,
        interval: Box<Interval>,
    },
    Done(Box<Outcome>),
}

pub struct Outcome {
    pub rec: Recorder,
    /// Measured requests written but neither answered nor failed when the worker stopped.
    pub in_flight: u64,
    pub stopped: Instant,
    /// `--script`: the thread's globals, what it printed, its error.
    pub script: Option<crate::script::WorkerScript>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Backoff,
    Connecting,
    Handshaking,
    Ready,
}

/// A request's tag: what the worker needs back when it ends.
#[derive(Clone, Copy)]
struct Sent {
    intended: Instant,
    sent: Instant,
    measured: bool,
    /// The request (an index into the run's requests) and its position in the run's order.
    req: u32,
    pos: u32,
}

impl Tag for Sent {
    #[inline]
    fn counted(&self) -> bool {
        self.measured
    }
    #[inline]
    fn sent(&self) -> Instant {
        self.sent
    }
}

struct Conn<'a> {
    t: Option<Transport>,
    state: State,
    /// Start of the current state (connect start), or the end of a backoff.
    since: Instant,
    gen: u32,
    failures: u32,
    /// What the session left unconsumed of the last read (a partial head or frame; almost
    /// always empty), fed again in front of the next.
    carry: Vec<u8>,
    /// The connection's protocol state, kept across reconnects (`start` begins afresh).
    session: Session<'a, Sent>,
    /// A script's `delay()` before the next request.
    wait: script::Wait,
}

pub struct Worker<'a> {
    sh: &'a Shared,
    plan: Plan,
    tx: Sender<(usize, Report)>,
    index: usize,
    poll: Poll,
    conns: Vec<Conn<'a>>,
    rbuf: Vec<u8>,
    rec: Recorder,
    iv: Interval,
    measuring: bool,
    sec_start: Instant,
    sec_index: u64,
    inflight_total: u64,
    /// Connections connecting or in their TLS handshake: each will take up to `depth` requests
    /// once ready (so `-n`'s last requests need no connection opened beside them).
    opening: u64,
    /// Open loop: (connection, generation) for each free request slot.
    free: VecDeque<(u32, u32)>,
    /// Open loop: requests a server did not process (HTTP/2's REFUSED_STREAM, above a GOAWAY's
    /// last stream), sent again before any new one with their first intended times, so their
    /// latency still counts from when they were due.
    retry: VecDeque<Sent>,
    sent: u64,
    next_send: Option<Instant>,
    blocked: bool,
    /// Open loop: wakes the loop at the next send time.
    timer: Option<Timer>,
    /// The start, or the last request that ended (answered or failed): a run bounded only by
    /// a request count gives up when no request could end for a while (it would never end
    /// otherwise; requests that end use up the count).
    last_progress: Instant,
    tick: Duration,
    /// The next position in the round of requests.
    cursor: usize,
    /// Connections (index, generation, peer closed) whose reads stopped at the turn's limit
    /// with input left: read again on the next turn, since edge-triggered polling will not
    /// report them again.
    read_again: Vec<(usize, u32, bool)>,
    /// `--script`: this worker's Lua state (started in [`Worker::run`], on this thread).
    lua: Option<Box<crate::script::WorkerLua>>,
    /// The soonest end of a connection's `delay()` wait.
    next_wait: Option<Instant>,
}

impl<'a> Worker<'a> {
    pub fn new(
        sh: &'a Shared,
        plan: Plan,
        index: usize,
        tx: Sender<(usize, Report)>,
    ) -> io::Result<Self> {
        let now = Instant::now();
        let conns = (0..plan.connections)
            .map(|i| Conn {
                t: None,
                state: State::Backoff,
                since: now + plan.ramp.get(i).copied().unwrap_or_default(),
                gen: 0,
                failures: 0,
                carry: Vec::new(),
                session: sh.protocol.session(),
                wait: script::Wait::Ask,
            })
            .collect();
        let free_cap = if plan.pacer.is_some() {
            plan.connections * sh.depth
        } else {
            0
        };
        let measuring = sh.measure_start <= sh.start;
        let poll = Poll::new()?;
        let timer = match plan.pacer {
            Some(_) => Some(Timer::new(poll.registry(), Token(plan.connections))?),
            None => None,
        };
        Ok(Worker {
            sh,
            tx,
            index,
            poll,
            conns,
            rbuf: vec![0; READ_BUF],
            rec: Recorder::with_targets(if sh.per_target {
                sh.protocol.requests()
            } else {
                0
            }),
            iv: Interval::default(),
            measuring,
            sec_start: sh.start,
            sec_index: 0,
            inflight_total: 0,
            opening: 0,
            free: VecDeque::with_capacity(free_cap),
            retry: VecDeque::new(),
            sent: 0,
            next_send: None,
            blocked: false,
            timer,
            last_progress: now,
            // Timeouts and reconnects are checked on a coarse tick, not on every wakeup.
            tick: (sh.timeout / 20).clamp(Duration::from_millis(1), Duration::from_millis(50)),
            cursor: plan.first % sh.order.round(),
            read_again: Vec::new(),
            lua: None,
            next_wait: None,
            plan,
        })
    }

    pub fn run(mut self) {
        let mut events = Events::with_capacity(1024);
        // The script's Lua state, started here on the worker's own thread (`init(args)` runs
        // now); one that fails to start ends the worker before it connects.
        let mut failed = None;
        if let (Some(p), Some(given)) = (self.sh.script.as_deref(), self.plan.lua.take()) {
            // init() may run until the run's end plus the bound on a run without progress,
            // and stops at once when the run is cancelled (its first Ctrl-C).
            let now = Instant::now();
            let bound = crate::script::hook_bound(
                self.sh.timeout,
                now,
                self.sh.end.map(|e| (e, "the run's end")),
                Some(self.sh.cancel.flag()),
            );
            match crate::script::WorkerLua::start(p, &given, self.index == 0, &bound) {
                Ok(l) => {
                    // `wrk.thread.addr` set in init(): this thread's connections go there.
                    if let Some(a) = l.thread.take_addr() {
                        self.plan.addr = a;
                    }
                    self.lua = Some(Box::new(l));
                }
                Err(end) => {
                    if end.exit.is_some() {
                        self.sh.script_exit.store(true, Ordering::Relaxed);
                    }
                    failed = Some(end);
                }
            }
        }
        let now = Instant::now();
        for i in 0..self.conns.len() {
            // With --ramp-up the later ones wait for their time (`scan` opens them).
            if failed.is_none() && self.conns[i].since <= now {
                self.connect(i, now);
            }
        }
        let mut next_tick = now + self.tick;
        loop {
            let now = Instant::now();
            if !self.measuring && now >= self.sh.measure_start {
                self.flush_second(self.sh.measure_start);
                self.rec.reset();
                for c in &mut self.conns {
                    c.session.reset_counts();
                }
                self.measuring = true;
                self.sec_start = self.sh.measure_start;
                self.sec_index = 0;
            }
            while now >= self.sec_start + Duration::from_secs(1) {
                self.flush_second(self.sec_start + Duration::from_secs(1));
            }
            if self.sh.cancel.is_cancelled() || self.sh.end.is_some_and(|e| now >= e) {
                break;
            }
            if failed.is_some() || self.script_over() {
                break;
            }
            if self.measuring
                && self.plan.budget == Some(0)
                && self.inflight_total == 0
                && self.retry.is_empty()
            {
                break;
            }
            if self.sh.end.is_none()
                && now.saturating_duration_since(self.last_progress) > self.give_up_after()
            {
                break;
            }
            if now >= next_tick {
                self.scan(now);
                next_tick = now + self.tick;
            }
            if self.plan.pacer.is_some() {
                self.pace(now);
            }
            let mut wake = next_tick.min(self.sec_start + Duration::from_secs(1));
            if !self.measuring {
                wake = wake.min(self.sh.measure_start);
            }
            if let Some(e) = self.sh.end {
                wake = wake.min(e);
            }
            if let Some(t) = self.session_timer() {
                wake = wake.min(t);
            }
            if let Some(t) = self.next_wait {
                wake = wake.min(t);
            }
            if let (Some(s), Some(t)) = (self.next_send, self.timer.as_mut()) {
                t.arm(s);
            }
            let mut timeout = wake.saturating_duration_since(now);
            if !self.read_again.is_empty() {
                timeout = Duration::ZERO;
            }
            if let Err(e) = self.poll.poll(&mut events, Some(timeout)) {
                if e.kind() != io::ErrorKind::Interrupted {
                    break;
                }
            }
            for ev in events.iter() {
                if ev.token().0 == self.conns.len() {
                    if let Some(t) = self.timer.as_mut() {
                        t.fired();
                    }
                    continue;
                }
                let closed = ev.is_read_closed() || ev.is_error();
                let readable = ev.is_readable() || closed;
                self.on_event(ev.token().0, readable, closed, ev.is_writable());
            }
            if !self.read_again.is_empty() {
                let mut again = std::mem::take(&mut self.read_again);
                for &(i, gen, closed) in &again {
                    let c = &self.conns[i];
                    if c.gen == gen && c.state == State::Ready {
                        self.on_readable(i, closed, Instant::now());
                    }
                }
                // Keep the list's memory: those pushed meanwhile move into it.
                again.clear();
                again.append(&mut self.read_again);
                self.read_again = again;
            }
            if self.sh.udp {
                self.session_timers(Instant::now());
            }
            if self.next_wait.is_some() {
                self.waits_over(Instant::now());
            }
        }
        let stopped = Instant::now();
        self.flush_second(stopped);
        let mut in_flight = 0u64;
        for c in &mut self.conns {
            c.session
                .drain(&mut |s: Sent| in_flight += u64::from(s.measured));
            c.session.take_counts(&mut self.rec.proto);
        }
        // Sockets close with the worker.
        let script = match self.lua.take() {
            Some(l) => Some(l.end()),
            None => failed,
        };
        let outcome = Outcome {
            rec: std::mem::take(&mut self.rec),
            in_flight,
            stopped,
            script,
        };
        let _ = self.tx.send((self.index, Report::Done(Box::new(outcome))));
    }

    /// Sends the current second's interval (ending at `until`) to the coordinator.
    fn flush_second(&mut self, until: Instant) {
        let phase = if self.measuring {
            Phase::Measure
        } else {
            Phase::Warmup
        };
        let span = until.saturating_duration_since(self.sec_start);
        self.iv.in_flight = self.inflight_total;
        self.iv.open = self
            .conns
            .iter()
            .filter(|c| c.state == State::Ready)
            .count() as u64;
        let interval = Box::new(std::mem::take(&mut self.iv));
        let report = Report::Second {
            phase,
            index: self.sec_index,
            span,
            interval,
        };
        let _ = self.tx.send((self.index, report));
        self.sec_index += 1;
        self.sec_start = until;
    }

    /// Takes the next `k` positions of the round of requests (`k` at most the pipeline depth
    /// or 1); returns the first.
    fn take_requests(&mut self, k: usize) -> usize {
        let pos = self.cursor;
        self.cursor = (pos + k) % self.sh.order.round();
        pos
    }

    /// Counts `k` requests just opened (pipelined, paced or as HTTP/2 streams) as in flight,
    /// in the second's interval, and in the run's recorder while measuring.
    fn wrote(&mut self, k: u64) {
        self.inflight_total += k;
        self.iv.written += k;
        if self.measuring {
            self.rec.counts.written += k;
        }
    }

    /// Counts `all` errors in the second's interval, `measured` of them in the run's recorder.
    fn count_error(&mut self, kind: ErrorClass, lost: (u64, u64), why: &dyn std::fmt::Display) {
        count_lost(&mut self.rec, &mut self.iv, self.measuring, kind, lost, why);
    }
}

/// Counts `all` errors in the second's interval (while measuring, only the `measured` ones) and
/// `measured` of them in the run's recorder: a failed connection's requests or one request that
/// failed alone (`(1, 1)` or `(1, 0)`). A free function so that code holding other fields of the
/// worker can call it.
fn count_lost(
    rec: &mut Recorder,
    iv: &mut Interval,
    measuring: bool,
    kind: ErrorClass,
    (all, measured): (u64, u64),
    why: &dyn std::fmt::Display,
) {
    iv.error(kind, if measuring { measured } else { all });
    if measured > 0 {
        rec.error(kind, measured, || why.to_string());
    }
}

//! One worker: a thread that owns its connections and a mio event loop. No locks, no allocation
//! per request: request bytes are pre-encoded in sending order ([`Encoded`]) and written from
//! one buffer, responses are parsed in place from one read buffer shared by the worker's connections
//! (a partial head is carried per connection), bodies are discarded as they stream by.

use crate::encoded::Encoded;
use crate::parser::{Done, Parser};
use crate::sink::Phase;
use crate::stats::{micros, Interval, Recorder};
mod exchange;
mod h2;
mod open_loop;

use crate::timer::Timer;
use crate::transport::{TlsStream, Transport};
use crate::{Cancel, ErrorKind, Pacer};
use barrage_wire::h2::client::{self as h2client, Client};
use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token};
use rustls::pki_types::ServerName;
use rustls::ClientConfig;
use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Read buffer per worker: room for a carried head of up to `MAX_HEAD` plus a 64 KiB read.
const READ_BUF: usize = crate::parser::MAX_HEAD + 64 * 1024;
/// First and largest reconnect delay after consecutive failures.
const BACKOFF_BASE: Duration = Duration::from_millis(5);
const BACKOFF_MAX: Duration = Duration::from_secs(1);
/// Sends later than this with a free connection available count as the generator's fault.
const GENERATOR_SLACK: Duration = Duration::from_millis(1);

/// What every worker of a run shares, read-only.
pub struct Shared {
    pub addr: SocketAddr,
    pub tls: Option<(Arc<ClientConfig>, ServerName<'static>)>,
    /// The HTTP/1.1 requests in sending order.
    pub encoded: Encoded,
    /// Request i is a HEAD request (its response has no body).
    pub is_head: Vec<bool>,
    /// `--targets` runs: each request keeps figures of its own.
    pub per_target: bool,
    pub pipeline: usize,
    pub keepalive: bool,
    pub timeout: Duration,
    pub expect_status: Option<u16>,
    pub expect_body: Option<Vec<u8>>,
    pub start: Instant,
    pub measure_start: Instant,
    pub end: Option<Instant>,
    pub cancel: Cancel,
    /// HTTP/2: the request encoded for streams and the connections' settings (`pipeline` is
    /// then the streams per connection).
    pub h2: Option<H2Setup>,
}

/// What every HTTP/2 connection of a run shares.
pub struct H2Setup {
    /// Request i encoded for a stream (indexed as `Shared::is_head`).
    pub requests: Vec<h2client::Request>,
    pub client: h2client::Config,
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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Backoff,
    Connecting,
    Handshaking,
    Ready,
}

#[derive(Clone, Copy)]
struct Sent {
    intended: Instant,
    sent: Instant,
    measured: bool,
    /// The request (an index into the run's requests).
    req: u32,
}

struct Conn {
    t: Option<Transport>,
    state: State,
    /// Start of the current state (connect start), or the end of a backoff.
    since: Instant,
    gen: u32,
    inflight: VecDeque<Sent>,
    /// Pending part of a write from `Shared::encoded`.
    wpos: usize,
    wend: usize,
    parser: Parser,
    failures: u32,
    served: u64,
    /// HTTP/2: the connection's session and streams (`inflight` stays empty), and how much
    /// of its output was written.
    h2: Option<Box<Client<Sent>>>,
    h2_wpos: usize,
}

pub struct Worker<'a> {
    sh: &'a Shared,
    plan: Plan,
    tx: Sender<(usize, Report)>,
    index: usize,
    poll: Poll,
    conns: Vec<Conn>,
    rbuf: Vec<u8>,
    rec: Recorder,
    iv: Interval,
    measuring: bool,
    sec_start: Instant,
    sec_index: u64,
    inflight_total: u64,
    /// Open loop: (connection, generation) for each free request slot.
    free: VecDeque<(u32, u32)>,
    /// Open loop: HTTP/2 requests a server did not process (REFUSED_STREAM, above a GOAWAY's
    /// last stream), sent again before any new one with their first intended times, so their
    /// latency still counts from when they were due.
    retry: VecDeque<Sent>,
    sent: u64,
    next_send: Option<Instant>,
    blocked: bool,
    /// Open loop: wakes the loop at the next send time.
    timer: Option<Timer>,
    /// Last successful connect or response: a run bounded only by a request count gives up
    /// when the target has been unreachable for a while (it would never end otherwise).
    last_progress: Instant,
    tick: Duration,
    /// The next position in the round of requests.
    cursor: usize,
    /// Responses parsed from one read, before they are matched with their requests (reused).
    done: Vec<Done>,
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
                inflight: VecDeque::with_capacity(sh.pipeline),
                wpos: 0,
                wend: 0,
                parser: Parser::default(),
                failures: 0,
                served: 0,
                h2: None,
                h2_wpos: 0,
            })
            .collect();
        let free_cap = if plan.pacer.is_some() {
            plan.connections * sh.pipeline
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
            rec: Recorder::with_targets(if sh.per_target { sh.is_head.len() } else { 0 }),
            iv: Interval::default(),
            measuring,
            sec_start: sh.start,
            sec_index: 0,
            inflight_total: 0,
            free: VecDeque::with_capacity(free_cap),
            retry: VecDeque::new(),
            sent: 0,
            next_send: None,
            blocked: false,
            timer,
            last_progress: now,
            // Timeouts and reconnects are checked on a coarse tick, not on every wakeup.
            tick: (sh.timeout / 20).clamp(Duration::from_millis(1), Duration::from_millis(50)),
            cursor: plan.first % sh.encoded.round(),
            done: Vec::with_capacity(sh.pipeline + 1),
            plan,
        })
    }

    pub fn run(mut self) {
        let mut events = Events::with_capacity(1024);
        let now = Instant::now();
        for i in 0..self.conns.len() {
            // With --ramp-up the later ones wait for their time (`scan` opens them).
            if self.conns[i].since <= now {
                self.connect(i, now);
            }
        }
        let mut next_tick = now + self.tick;
        loop {
            let now = Instant::now();
            if !self.measuring && now >= self.sh.measure_start {
                self.flush_second(self.sh.measure_start);
                self.rec.reset();
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
            if let (Some(s), Some(t)) = (self.next_send, self.timer.as_mut()) {
                t.arm(s);
            }
            let timeout = wake.saturating_duration_since(now);
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
        }
        let stopped = Instant::now();
        self.flush_second(stopped);
        for i in 0..self.conns.len() {
            self.h2_account(i);
        }
        let in_flight = self
            .conns
            .iter()
            .flat_map(|c| {
                let h2 = c.h2.iter().flat_map(|h| h.streams().map(|(_, s)| s));
                c.inflight.iter().chain(h2)
            })
            .filter(|s| s.measured)
            .count() as u64;
        // Sockets close with the worker.
        let outcome = Outcome {
            rec: std::mem::take(&mut self.rec),
            in_flight,
            stopped,
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

    fn connect(&mut self, i: usize, now: Instant) {
        let c = &mut self.conns[i];
        c.since = now;
        let mut sock = match TcpStream::connect(self.sh.addr) {
            Ok(s) => s,
            Err(e) => return self.fail(i, ErrorKind::Connect, &e, now),
        };
        let _ = sock.set_nodelay(true);
        if let Err(e) = self.poll.registry().register(
            &mut sock,
            Token(i),
            Interest::READABLE | Interest::WRITABLE,
        ) {
            return self.fail(i, ErrorKind::Connect, &e, now);
        }
        let t = match &self.sh.tls {
            None => Transport::Plain(sock),
            Some((cfg, name)) => match rustls::ClientConnection::new(cfg.clone(), name.clone()) {
                Ok(tls) => Transport::Tls(Box::new(TlsStream { sock, tls })),
                Err(e) => {
                    let e = io::Error::other(e);
                    return self.fail(i, ErrorKind::Connect, &e, now);
                }
            },
        };
        let c = &mut self.conns[i];
        c.t = Some(t);
        c.state = State::Connecting;
    }

    fn on_event(&mut self, i: usize, readable: bool, closed: bool, writable: bool) {
        let now = Instant::now();
        let c = &mut self.conns[i];
        let Some(t) = c.t.as_mut() else { return };
        match c.state {
            State::Backoff => {}
            State::Connecting => {
                let sock = t.socket();
                match sock.take_error() {
                    Ok(None) => {}
                    Ok(Some(e)) | Err(e) => return self.fail(i, ErrorKind::Connect, &e, now),
                }
                match sock.peer_addr() {
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::NotConnected => return,
                    Err(e) => return self.fail(i, ErrorKind::Connect, &e, now),
                }
                c.state = State::Handshaking;
                self.on_event(i, readable, closed, writable);
            }
            State::Handshaking => match t.handshake() {
                Ok(true) => self.ready(i, now),
                Ok(false) => {}
                Err(e) => self.fail(i, ErrorKind::Connect, &e, now),
            },
            State::Ready if c.h2.is_some() => {
                if writable {
                    self.h2_flush(i);
                    if let Some(Err(e)) = self.conns[i].t.as_mut().map(|t| t.flush()) {
                        return self.fail(i, ErrorKind::Reset, &e, now);
                    }
                }
                if readable && self.conns[i].state == State::Ready {
                    self.on_readable(i, closed, now);
                }
            }
            State::Ready => {
                if writable {
                    if c.wpos < c.wend {
                        self.write_pending(i);
                    } else if let Err(e) = t.flush() {
                        return self.fail(i, ErrorKind::Reset, &e, now);
                    }
                }
                if readable && self.conns[i].state == State::Ready {
                    self.on_readable(i, closed, now);
                }
            }
        }
    }

    /// How long a run without a duration keeps trying a target that neither accepts nor
    /// answers.
    fn give_up_after(&self) -> Duration {
        (self.sh.timeout * 2).max(Duration::from_secs(2))
    }

    fn ready(&mut self, i: usize, now: Instant) {
        self.last_progress = now;
        let c = &mut self.conns[i];
        c.state = State::Ready;
        c.served = 0;
        if self.measuring {
            self.rec.counts.connects += 1;
            let _ = self.rec.connect.record(micros(now - c.since));
        }
        if self.sh.h2.is_some() {
            return self.h2_ready(i, now);
        }
        if self.plan.pacer.is_some() {
            for _ in 0..self.sh.pipeline {
                self.free.push_back((i as u32, c.gen));
            }
        } else {
            self.fill(i, now);
        }
    }

    /// A normal end of a connection (the peer or the request said close): requests still
    /// outstanding are lost (reset), and a new connection starts at once.
    fn close_and_reconnect(&mut self, i: usize, now: Instant) {
        let lost = self.drop_conn(i, ErrorKind::Reset);
        self.count_error(
            ErrorKind::Reset,
            lost,
            &"connection closed with requests outstanding",
        );
        self.conns[i].failures = 0;
        self.connect(i, now);
    }

    /// Closes the socket and forgets its requests, each a `kind` error of its target; returns
    /// how many were lost, and how many of those were measured.
    fn drop_conn(&mut self, i: usize, kind: ErrorKind) -> (u64, u64) {
        self.h2_account(i);
        let c = &mut self.conns[i];
        if self.sh.per_target {
            let h2 = c.h2.iter().flat_map(|h| h.streams().map(|(_, s)| s));
            for s in c.inflight.iter().chain(h2).filter(|s| s.measured) {
                self.rec.target_error(s.req, kind);
            }
        }
        c.t = None;
        c.gen = c.gen.wrapping_add(1);
        c.parser.reset();
        c.wpos = 0;
        c.wend = 0;
        let mut all = c.inflight.len() as u64;
        let mut measured = c.inflight.iter().filter(|s| s.measured).count() as u64;
        if let Some(mut client) = c.h2.take() {
            for s in client.drain() {
                all += 1;
                measured += u64::from(s.measured);
            }
        }
        c.h2_wpos = 0;
        self.inflight_total -= all;
        c.inflight.clear();
        c.state = State::Backoff;
        (all, measured)
    }

    /// Takes the next `k` positions of the round of requests (`k` at most the pipeline depth
    /// or 1); returns the first.
    fn take_requests(&mut self, k: usize) -> usize {
        let pos = self.cursor;
        self.cursor = (pos + k) % self.sh.encoded.round();
        pos
    }

    /// Counts `k` requests just written (pipelined, paced or as HTTP/2 streams) as in flight,
    /// in the second's interval, and in the run's recorder while measuring.
    fn wrote(&mut self, k: u64) {
        self.inflight_total += k;
        self.iv.written += k;
        if self.measuring {
            self.rec.counts.written += k;
        }
    }

    /// Counts `all` errors in the second's interval, `measured` of them in the run's recorder.
    fn count_error(&mut self, kind: ErrorKind, lost: (u64, u64), why: &dyn std::fmt::Display) {
        count_lost(&mut self.rec, &mut self.iv, self.measuring, kind, lost, why);
    }

    /// A failure: counts it (the connect attempt, or every measured request outstanding), closes
    /// the connection and schedules a reconnect after a capped exponential backoff.
    fn fail(&mut self, i: usize, kind: ErrorKind, why: &dyn std::fmt::Display, now: Instant) {
        let lost = self.drop_conn(i, kind);
        let n = if kind == ErrorKind::Connect {
            (1, u64::from(self.measuring))
        } else {
            lost
        };
        self.count_error(kind, n, why);
        let c = &mut self.conns[i];
        let c_fail = c.failures.min(16);
        c.failures = c.failures.saturating_add(1);
        let delay = (BACKOFF_BASE * (1u32 << c_fail.min(10))).min(BACKOFF_MAX);
        c.since = now + delay;
    }

    /// Periodic: request and connect timeouts, and reconnects whose backoff is over.
    fn scan(&mut self, now: Instant) {
        let timeout = self.sh.timeout;
        for i in 0..self.conns.len() {
            let c = &self.conns[i];
            match c.state {
                State::Backoff if now >= c.since => self.connect(i, now),
                State::Connecting | State::Handshaking if now - c.since > timeout => {
                    self.fail(i, ErrorKind::Connect, &"connect timed out", now)
                }
                State::Ready if c.h2.is_some() => self.h2_scan(i, now),
                State::Ready => {
                    if let Some(s) = c.inflight.front() {
                        if now.saturating_duration_since(s.sent) > timeout {
                            let why = format!("no response within {timeout:?}");
                            // The timed-out request is a timeout; others queued behind it on the
                            // same connection are lost with it and counted the same.
                            self.fail(i, ErrorKind::Timeout, &why, now);
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

/// Counts `all` errors in the second's interval (while measuring, only the `measured` ones) and
/// `measured` of them in the run's recorder: a failed connection's requests or one HTTP/2
/// stream (`(1, 1)` or `(1, 0)`). A free function so that code holding other fields of the
/// worker can call it.
fn count_lost(
    rec: &mut Recorder,
    iv: &mut Interval,
    measuring: bool,
    kind: ErrorKind,
    (all, measured): (u64, u64),
    why: &dyn std::fmt::Display,
) {
    iv.error(kind, if measuring { measured } else { all });
    if measured > 0 {
        rec.error(kind, measured, || why.to_string());
    }
}

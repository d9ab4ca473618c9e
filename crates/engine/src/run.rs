//! The coordinating thread: resolves and probes the target, starts the workers, merges their
//! per-second intervals into [`SecondStats`] for the sink, and builds the [`RunResult`].

use crate::config::ValidConfig;
use crate::pacer::{Rate, Stages};
use crate::recorder::{Interval, Recorder};
use crate::result::{Parts, RunResult, Timing};
use crate::setup;
use crate::sink::{Live, Phase, SecondStats, Sink};
use crate::worker::{Plan, Report, Shared, Worker};
use crate::{tls, Cancel, EngineError, Pacer};
use barrage_model::load::Protocol as LoadProtocol;
use barrage_wire::client::Order;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Runs the load described by `cfg`, reporting each second to `sink`, until the duration or
/// request count is reached or `cancel` is set. Fails only when the run cannot start (the
/// target cannot be resolved, refuses the first connection, or fails the TLS handshake).
pub fn run(cfg: &ValidConfig, sink: &dyn Sink, cancel: &Cancel) -> Result<RunResult, EngineError> {
    let c = &cfg.cfg;
    let target = &cfg.target;
    // `--connect-to`: the socket's address; the URL's host is still the requests' and TLS's.
    let addr = match &c.connect_to {
        Some(to) => resolve(to.as_str(), to)?,
        None => resolve((target.host.as_str(), target.port), &target.host)?,
    };
    let http2 = c.protocol.is_http2();
    let grpc = matches!(c.protocol, LoadProtocol::Grpc { .. });
    let http3 = matches!(c.protocol, LoadProtocol::Http3 { .. });
    // What TLS offers and verifies, for TCP's handshakes here and QUIC's in its session.
    let client_tls = target
        .tls
        .then(|| tls::client_config(c.insecure, c.protocol.alpn()));
    let tls = match &client_tls {
        None => None,
        // QUIC's handshake is the HTTP/3 session's.
        Some(_) if http3 => None,
        Some(config) => {
            let name = tls::server_name(&target.host)
                .map_err(|_| EngineError::ServerName(target.host.clone()))?;
            Some((config.clone(), name))
        }
    };
    raise_fd_limit(c.connections as u64 + 64);
    // HTTP/3 has no TCP to probe: a server that does not answer fails the connections, counted.
    let alpn = match http3 {
        true => None,
        false => probe(addr, &tls, &target.host, c.timeout)?,
    };
    // HTTP/2: h2c with prior knowledge in cleartext; under TLS what ALPN chose (a server that
    // picked http/1.1 gets HTTP/1.1, and the result says so).
    let protocol = match (http2, target.tls, alpn.as_deref()) {
        (false, _, _) => None,
        (true, false, _) => Some("h2c"),
        (true, true, Some(b"h2")) => Some("h2"),
        (true, true, _) => Some("http/1.1"),
    };
    let h2 = matches!(protocol, Some("h2" | "h2c"));
    if grpc && !h2 {
        return Err(EngineError::GrpcWithoutH2 {
            host: target.host.clone(),
            alpn: protocol.unwrap_or("no protocol").to_string(),
        });
    }
    // Requests in flight per connection: the protocol's depth (HTTP/2's streams, the pipeline
    // depth), but one for an HTTP/2 load that ALPN turned into HTTP/1.1.
    let mut depth = if http2 && !h2 { 1 } else { c.protocol.depth() };
    // A script's request() batch (wrk's pipeline.lua) goes out whole on one connection.
    if let Some(s) = cfg.script.as_deref().filter(|s| s.dynamic) {
        depth = depth.max(s.batch);
    }
    let order = Order::new(&cfg.order, depth);
    // Every request encoded once for the protocol: the connections' sessions send copies of
    // these bytes, never encoding anything per request.
    let speaks = setup::speaks(cfg, addr, h2, &order, depth, client_tls.as_ref())?;
    let threads = cfg.threads;
    // A script's setup phase, before any worker starts: what each thread gets.
    let script = match cfg.script.as_deref() {
        Some(p) => {
            let (mut env, given) = crate::script::setup(p, c, threads, addr, cancel.flag())?;
            let printed = env.take_output();
            Some((env, given, printed))
        }
        None => None,
    };
    // Shards started together: wait for the agreed wall-clock time (Ctrl-C still ends the wait).
    if let Some(at) = c.start_at {
        wait_until(at, cancel);
    }
    let started_unix = unix_now();
    let start = Instant::now();
    let measure_start = start + c.warmup;
    // The open loop's schedule, shared by the workers: a constant rate, or stages that start
    // with the run (the warmup is their first seconds) and end it.
    let rate = if c.stages.is_empty() {
        c.rate.map(Rate::Constant)
    } else {
        let stages: Vec<(Duration, f64)> =
            c.stages.iter().map(|s| (s.duration, s.target)).collect();
        Some(Rate::Stages(Arc::new(Stages::new(&stages))))
    };
    let end = match &rate {
        Some(Rate::Stages(s)) => Some(start + s.duration()),
        _ => c.duration.map(|d| measure_start + d),
    };
    let shared = Shared {
        tls,
        udp: http3,
        order,
        protocol: speaks,
        per_target: !cfg.targets.is_empty(),
        depth,
        timeout: c.timeout,
        // A gRPC load's expected status is a code, its calls' (the HTTP/2 session's to judge).
        expect_status: c.expect_status.filter(|_| !grpc),
        start,
        measure_start,
        end,
        cancel: cancel.clone(),
        script: cfg.script.clone(),
        script_exit: std::sync::atomic::AtomicBool::new(false),
    };
    let round = cfg.order.len();
    // A shard runs its share of the connections and of any request count; its workers take
    // the run's requests numbered (I-1) mod N, so all shards' send times interleave into the
    // one schedule a single generator would keep (whatever each shard's thread count).
    let (shard, shards) = c
        .shard
        .map_or((0, 1), |s| (s.index as usize - 1, s.count as usize));
    let connections = share(c.connections as u64, shards, shard) as usize;
    let requests = c.requests.map(|n| share(n, shards, shard));
    let plans: Vec<Plan> = (0..threads)
        .map(|w| {
            let mine = share(connections as u64, threads, w) as usize;
            Plan {
                connections: mine,
                budget: requests.map(|n| share(n, threads, w)),
                pacer: rate
                    .clone()
                    .map(|r| Pacer::split(r, threads * shards, w * shards + shard)),
                ramp: ramp_offsets(c.ramp_up, connections, threads, w, mine),
                first: (round * (shard * threads + w)) / (threads * shards),
                lua: script.as_ref().map(|(_, given, _)| given[w].clone()),
                // `thread.addr` as the script's setup left it.
                addr: script
                    .as_ref()
                    .and_then(|(_, given, _)| given[w].addr.as_deref()?.parse().ok())
                    .unwrap_or(addr),
            }
        })
        .collect();

    if !c.warmup.is_zero() {
        sink.phase(Phase::Warmup, start);
    } else {
        sink.phase(Phase::Measure, start);
    }
    let (tx, rx) = mpsc::channel::<(usize, Report)>();
    let collected = std::thread::scope(|s| -> Result<Collected, EngineError> {
        let mut handles = Vec::new();
        for (w, plan) in plans.into_iter().enumerate() {
            let worker = Worker::new(&shared, plan, w, tx.clone())?;
            handles.push(
                std::thread::Builder::new()
                    .name(format!("barrage-worker-{w}"))
                    .spawn_scoped(s, move || worker.run())?,
            );
        }
        drop(tx);
        let schedule = Schedule {
            rate: rate.as_ref(),
            warmup: c.warmup,
            share: 1.0 / shards as f64,
        };
        let collected = collect(
            rx,
            threads,
            sink,
            measure_start,
            c.warmup.is_zero(),
            schedule,
        );
        for h in handles {
            h.join().map_err(|_| EngineError::WorkerPanic)?;
        }
        Ok(collected)
    })?;
    if collected.done < threads {
        return Err(EngineError::WorkerPanic);
    }
    let measure_end = collected.stopped.max(measure_start);
    sink.phase(Phase::Done, measure_end);
    let mut result = RunResult::build(Parts {
        rec: collected.rec,
        in_flight: collected.in_flight,
        series: collected.series,
        timing: Timing {
            start,
            measure_start,
            measure_end,
        },
        cfg: c.clone(),
        target: target.clone(),
        threads,
        cancelled: cancel.is_cancelled(),
        protocol: protocol.map(str::to_string),
        targets: cfg.targets.clone(),
        started_unix,
    });
    if let Some((env, _, printed)) = script {
        let mut ends = collected.scripts;
        ends.sort_by_key(|(w, _)| *w);
        let ends = ends.into_iter().map(|(_, e)| e).collect();
        result.script = Some(crate::script::done(env, printed, ends, &result));
    }
    Ok(result)
}

/// Now, in Unix seconds.
fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Sleeps until the wall clock reads `at` (Unix seconds), or the run is cancelled.
fn wait_until(at: f64, cancel: &Cancel) {
    loop {
        let left = at - unix_now();
        if left <= 0.0 || cancel.is_cancelled() {
            return;
        }
        std::thread::sleep(Duration::from_secs_f64(left.min(0.05)));
    }
}

/// `--ramp-up`: when worker `w`'s connections open. Connections are dealt to workers in turn,
/// so connection `i` of worker `w` is the run's `i * workers + w`-th, and the run's `j`-th of
/// `total` opens at `ramp * j / total`.
fn ramp_offsets(
    ramp: Option<Duration>,
    total: usize,
    workers: usize,
    w: usize,
    mine: usize,
) -> Vec<Duration> {
    let Some(ramp) = ramp else {
        return Vec::new();
    };
    (0..mine)
        .map(|i| ramp.mul_f64((i * workers + w) as f64 / total as f64))
        .collect()
}

/// Worker `w`'s share of `n` among `workers` (the first ones take the remainder).
fn share(n: u64, workers: usize, w: usize) -> u64 {
    let workers = workers as u64;
    n / workers + u64::from((w as u64) < n % workers)
}

struct Collected {
    rec: Recorder,
    in_flight: u64,
    series: Vec<SecondStats>,
    stopped: Instant,
    done: usize,
    /// Each worker's script at its end, by worker.
    scripts: Vec<(usize, crate::script::WorkerScript)>,
}

/// A trailing partial second shorter than this, with no activity, is not reported.
const SLIVER: Duration = Duration::from_millis(10);

/// A second being merged: how many workers reported it, and the sum so far.
struct Pending {
    interval: Interval,
    span: Duration,
}

/// What the per-second series needs of the open loop's schedule: each second's target rate.
#[derive(Clone, Copy)]
struct Schedule<'a> {
    rate: Option<&'a Rate>,
    warmup: Duration,
    /// A shard's share of the schedule (1 unsharded).
    share: f64,
}

impl Schedule<'_> {
    /// The rate the schedule asked for over a second of the series (warmup seconds count from
    /// the run's start, measured ones from the end of the warmup).
    fn target(&self, measured: bool, index: u64, span: Duration) -> Option<f64> {
        let from = if measured {
            self.warmup.as_secs_f64()
        } else {
            0.0
        } + index as f64;
        let span = span.as_secs_f64();
        let rate = match self.rate? {
            Rate::Constant(r) => *r,
            Rate::Stages(s) if span > 0.0 => (s.count(from + span) - s.count(from)) / span,
            Rate::Stages(_) => return None,
        };
        Some(rate * self.share)
    }
}

fn collect(
    rx: mpsc::Receiver<(usize, Report)>,
    workers: usize,
    sink: &dyn Sink,
    measure_start: Instant,
    measure_marked: bool,
    schedule: Schedule<'_>,
) -> Collected {
    let mut out = Collected {
        rec: Recorder::default(),
        in_flight: 0,
        series: Vec::new(),
        stopped: measure_start,
        done: 0,
        scripts: Vec::new(),
    };
    let mut marked = measure_marked;
    // Seconds keyed by (phase rank, index); a second is complete when every worker has passed it.
    let mut pending: BTreeMap<(u8, u64), Pending> = BTreeMap::new();
    let mut last: Vec<Option<(u8, u64)>> = vec![None; workers];
    let mut finished = vec![false; workers];
    let emit = |key: (u8, u64), p: Pending, out: &mut Collected| {
        // A run that ends just past a second's boundary leaves a sliver of a second with nothing
        // in it; reported, it would plot as a second with no responses, i.e. as a stall.
        let i = &p.interval;
        if p.span < SLIVER && i.responses == 0 && i.errors.total() == 0 && i.written == 0 {
            return;
        }
        let h = &p.interval.latency;
        let q = |x: f64| {
            if h.is_empty() {
                0
            } else {
                h.value_at_quantile(x)
            }
        };
        let s = SecondStats {
            second: key.1,
            phase: if key.0 == 0 {
                Phase::Warmup
            } else {
                Phase::Measure
            },
            responses: p.interval.responses,
            errors: p.interval.errors.total(),
            requests_written: p.interval.written,
            bytes_read: p.interval.bytes_read,
            p50_us: q(0.5),
            p99_us: q(0.99),
            mean_us: if h.is_empty() { 0.0 } else { h.mean() },
            hdr: (!h.is_empty()).then(|| barrage_model::hdr::encode_coarse(h)),
            target_rps: schedule.target(key.0 == 1, key.1, p.span),
            span_s: p.span.as_secs_f64(),
        };
        sink.live(&Live::new(&s, &p.interval));
        if key.0 == 1 {
            out.series.push(s);
        }
    };
    loop {
        let msg = rx.recv_timeout(Duration::from_millis(100));
        if !marked && Instant::now() >= measure_start {
            sink.phase(Phase::Measure, measure_start);
            marked = true;
        }
        match msg {
            Ok((
                w,
                Report::Second {
                    phase,
                    index,
                    span,
                    interval,
                },
            )) => {
                let key = (u8::from(phase == Phase::Measure), index);
                let p = pending.entry(key).or_insert_with(|| Pending {
                    interval: Interval::default(),
                    span: Duration::ZERO,
                });
                p.interval.merge(&interval);
                p.span = p.span.max(span);
                last[w] = Some(key);
            }
            Ok((w, Report::Done(mut o))) => {
                if let Some(sc) = o.script.take() {
                    out.scripts.push((w, sc));
                }
                out.rec.merge(&o.rec);
                out.in_flight += o.in_flight;
                out.stopped = out.stopped.max(o.stopped);
                out.done += 1;
                finished[w] = true;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        while let Some((&key, _)) = pending.first_key_value() {
            let complete = (0..workers).all(|w| finished[w] || last[w].is_some_and(|l| l >= key));
            if !complete {
                break;
            }
            let (key, p) = pending.pop_first().expect("non-empty");
            emit(key, p, &mut out);
        }
    }
    while let Some((key, p)) = pending.pop_first() {
        emit(key, p, &mut out);
    }
    out
}

fn resolve(at: impl ToSocketAddrs, host: &str) -> Result<SocketAddr, EngineError> {
    let addrs = at
        .to_socket_addrs()
        .map_err(|source| EngineError::Resolve {
            host: host.to_string(),
            source,
        })?;
    let all: Vec<SocketAddr> = addrs.collect();
    // Prefer IPv4 when both are offered (what most servers listen on); any address otherwise.
    all.iter()
        .find(|a| a.is_ipv4())
        .or(all.first())
        .copied()
        .ok_or_else(|| EngineError::Resolve {
            host: host.to_string(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no addresses"),
        })
}

/// One blocking connection (and TLS handshake) before the run, so that a target that refuses
/// from the start, or a certificate that does not verify, fails the run with a clear cause.
/// Returns the protocol ALPN chose, if any.
fn probe(
    addr: SocketAddr,
    tls: &Option<(
        Arc<rustls::ClientConfig>,
        rustls::pki_types::ServerName<'static>,
    )>,
    host: &str,
    timeout: Duration,
) -> Result<Option<Vec<u8>>, EngineError> {
    let mut sock = TcpStream::connect_timeout(&addr, timeout)
        .map_err(|source| EngineError::Connect { addr, source })?;
    let Some((cfg, name)) = tls else {
        return Ok(None);
    };
    let tls_fail = |cause: String| EngineError::Tls {
        host: host.to_string(),
        cause,
    };
    sock.set_read_timeout(Some(timeout))?;
    sock.set_write_timeout(Some(timeout))?;
    let mut conn = rustls::ClientConnection::new(cfg.clone(), name.clone())
        .map_err(|e| tls_fail(e.to_string()))?;
    while conn.is_handshaking() {
        if let Err(e) = conn.complete_io(&mut sock) {
            // rustls wraps its own error (e.g. an unknown issuer) in the io::Error.
            let cause = match e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
                Some(r) => r.to_string(),
                None => e.to_string(),
            };
            return Err(tls_fail(cause));
        }
    }
    let alpn = conn.alpn_protocol().map(<[u8]>::to_vec);
    // Close politely; errors here do not matter.
    conn.send_close_notify();
    let _ = conn.write_tls(&mut sock);
    let _ = sock.flush();
    let mut sink = [0u8; 1];
    sock.set_read_timeout(Some(Duration::from_millis(1)))?;
    let _ = sock.read(&mut sink);
    Ok(alpn)
}

/// Many connections need many descriptors: raise the soft limit toward the hard one.
fn raise_fd_limit(want: u64) {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit only read and write the struct we pass.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return;
        }
        if lim.rlim_cur >= want as libc::rlim_t {
            return;
        }
        lim.rlim_cur = (want as libc::rlim_t).min(lim.rlim_max);
        libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ramp_spreads_connections_evenly() {
        use std::time::Duration;
        let ramp = Some(Duration::from_secs(10));
        // 5 connections over 2 workers: worker 0 has the run's 0th, 2nd, 4th; worker 1 the 1st
        // and 3rd.
        let w0 = super::ramp_offsets(ramp, 5, 2, 0, 3);
        let w1 = super::ramp_offsets(ramp, 5, 2, 1, 2);
        let secs = |v: Vec<Duration>| v.iter().map(|d| d.as_secs_f64()).collect::<Vec<_>>();
        assert_eq!(secs(w0), vec![0.0, 4.0, 8.0]);
        assert_eq!(secs(w1), vec![2.0, 6.0]);
        assert!(super::ramp_offsets(None, 5, 2, 0, 3).is_empty());
    }

    #[test]
    fn shares_add_up() {
        for n in [0u64, 1, 7, 100, 1001] {
            for w in 1..5 {
                let total: u64 = (0..w).map(|i| super::share(n, w, i)).sum();
                assert_eq!(total, n);
            }
        }
    }
}

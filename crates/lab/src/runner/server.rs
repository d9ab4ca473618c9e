//! One trial of a server study: start the contender on a free port, sample its process tree,
//! wait until it is ready, run the load phases back to back (the engine on the generator's CPUs),
//! stop and reap it, and turn it all into a [`Trial`] on one clock (the trial's origin).

use super::trial::{failure_of, placeholders, secs, spec_for, Ended, Part, Running};
use super::Ctx;
use crate::results::{Failure, FailureKind, GeneratorHealth, PhaseResult, Trial};
use crate::sample::Sampler;
use crate::study::{ContenderSpec, ReadySpec};
use crate::supervise::{Contender, Probe, Role, Spec};
use crate::sweep::Point;
use barrage_engine::Validate as _;
use barrage_netem::Net;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// How long an HTTP/3 point of a contender without a readiness probe waits for its UDP socket.
const UDP_READY: Duration = Duration::from_secs(10);

pub(crate) fn trial(ctx: &Ctx, point: &Point, c: &ContenderSpec, trial: u32, seq: usize) -> Trial {
    super::trial::run(ctx, point, c, trial, seq, &mut ServerPart::default())
}

/// What a server trial gathers while its contender runs, for judging and measuring it.
#[derive(Default)]
struct ServerPart {
    ready: bool,
    load_error: Option<String>,
    gen: GeneratorHealth,
    generator_late: bool,
    measured: Duration,
    hists: Vec<hdrhistogram::Histogram<u64>>,
    requests: u64,
    errors: u64,
    /// The phases' measured windows on the trial's clock.
    windows: Vec<(Duration, Duration)>,
}

impl Part for ServerPart {
    fn address(&mut self, _: &Ctx, net: Option<&Net>) -> Result<SocketAddr, Failure> {
        let port = super::trial::free_port().unwrap_or(0);
        Ok(SocketAddr::new(super::net::contender_ip(net), port))
    }

    fn spec(
        &mut self,
        ctx: &Ctx,
        point: &Point,
        c: &ContenderSpec,
        trial: u32,
        addr: SocketAddr,
    ) -> Spec {
        let load = point.phases.first().map(|p| &p.load);
        let vars = placeholders(ctx, c, addr, trial, load);
        spec_for(ctx, c, &vars, Role::Server)
    }

    /// Waits until the contender is ready, runs the load phases back to back, then stops it.
    fn run(
        &mut self,
        ctx: &Ctx,
        point: &Point,
        c: &ContenderSpec,
        t: &mut Trial,
        r: Running<'_>,
    ) -> Ended {
        let Running {
            mut proc,
            sampler,
            net,
            origin,
            addr,
        } = r;
        let probe = match &c.ready {
            ReadySpec::None => None,
            ReadySpec::Tcp { timeout } => Some((Probe::Tcp { addr }, *timeout)),
            ReadySpec::Http {
                path,
                status,
                timeout,
            } => Some((
                Probe::Http {
                    addr,
                    path: path.clone(),
                    expect_status: *status,
                },
                *timeout,
            )),
        };
        // The probe crosses the link from the load side, as the load will.
        self.ready = match &probe {
            Some((p, timeout)) => {
                super::net::in_load(net, || proc.wait_ready(p, *timeout).is_ok()).unwrap_or(false)
            }
            None => true,
        };
        // An HTTP/3 point also waits for a UDP socket at the port, in the contender's namespace:
        // a server that listens on TCP before it binds UDP passes a TCP probe while it would
        // still refuse the first QUIC handshakes.
        if self.ready && point.phases.iter().any(|p| p.load.protocol.is_datagram()) {
            let udp = Probe::UdpBound {
                pid: proc.pid(),
                port: addr.port(),
            };
            let timeout = probe.as_ref().map_or(UDP_READY, |(_, t)| *t);
            self.ready = proc.wait_ready(&udp, timeout).is_ok();
        }
        if self.ready {
            t.windows.ready_s = Some(secs(origin, Instant::now()));
            self.phases(ctx, point, t, &mut proc, net, origin, addr);
        }
        let samples = sampler.map(Sampler::stop);
        let exit = proc.stop();
        Ended { exit, samples }
    }

    fn judge(&mut self, ctx: &Ctx, _: &ContenderSpec, t: &mut Trial, ended: &Ended) {
        let exit = &ended.exit;
        t.failure = failure_of(exit);
        if t.failure.is_some() {
            return;
        }
        t.failure = if let Some(e) = self.load_error.take() {
            Some(Failure {
                kind: FailureKind::LoadError,
                message: e,
                stderr_tail: exit.stderr_tail.clone(),
            })
        } else if ctx.cancel.is_cancelled() {
            Some(Failure {
                kind: FailureKind::Interrupted,
                message: "interrupted (Ctrl-C)".into(),
                stderr_tail: String::new(),
            })
        } else if self.requests == 0 {
            Some(Failure {
                kind: FailureKind::NoResponses,
                message: format!(
                    "no valid response in the measured window ({} errors)",
                    self.errors
                ),
                stderr_tail: exit.stderr_tail.clone(),
            })
        } else {
            too_many_errors(ctx.study.max_errors, self.errors, &exit.stderr_tail)
        };
    }

    fn measure(&mut self, ctx: &Ctx, t: &mut Trial, ended: &Ended) {
        let (requests, measured) = (self.requests, self.measured);
        let m = &mut t.metrics;
        m.requests = Some(requests);
        m.errors = Some(self.errors);
        if measured > Duration::ZERO && t.ok {
            m.rps = Some(requests as f64 / measured.as_secs_f64());
        }
        if let Some(h) = barrage_model::hdr::merge(&self.hists).filter(|h| !h.is_empty()) {
            m.latency_p50_us = Some(h.value_at_quantile(0.5) as f64);
            m.latency_p99_us = Some(h.value_at_quantile(0.99) as f64);
            m.latency_p999_us = Some(h.value_at_quantile(0.999) as f64);
        }
        let gen = &mut self.gen;
        if let Some(s) = &ended.samples {
            let cpu: f64 = self
                .windows
                .iter()
                .map(|(a, b)| {
                    let (u, sy) = s.cpu_between(*a, *b);
                    (u + sy).as_secs_f64()
                })
                .sum();
            m.cpu_s = Some(cpu);
            let budget = ctx
                .contender_cpus
                .as_ref()
                .map_or_else(|| crate::results::available_cpus().len(), Vec::len)
                .max(1) as f64;
            if measured > Duration::ZERO {
                gen.contender_cpu_pct_of_budget =
                    Some(100.0 * cpu / (measured.as_secs_f64() * budget));
            }
            if requests > 0 {
                m.cpu_s_per_request = Some(cpu / requests as f64);
            }
            m.peak_rss_bytes = Some(s.peak_rss_bytes);
        }
        if self.ready {
            decide_limit(gen, self.generator_late);
            t.generator = Some(std::mem::take(gen));
        }
    }
}

impl ServerPart {
    /// The point's load phases back to back, each an engine run on the generator's CPUs (in
    /// the load side's namespace on a network), until one fails, is cancelled or the contender
    /// exits.
    #[allow(clippy::too_many_arguments)]
    fn phases(
        &mut self,
        ctx: &Ctx,
        point: &Point,
        t: &mut Trial,
        proc: &mut Contender,
        net: Option<&Net>,
        origin: Instant,
        addr: SocketAddr,
    ) {
        let gen = &mut self.gen;
        let headers = ctx
            .study
            .load
            .as_ref()
            .map(|l| l.headers.clone())
            .unwrap_or_default();
        let gen_threads = ctx.generator_cpus.as_ref().map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            Vec::len,
        );
        let emulator_cpu = || net.map_or(Duration::ZERO, |n| n.emulator_cpu());
        let cpu0 = crate::sample::self_cpu();
        let emu0 = emulator_cpu();
        let wall0 = Instant::now();
        for (i, ph) in point.phases.iter().enumerate() {
            let warmup = if i == 0 {
                ctx.study.warmup
            } else {
                Duration::ZERO
            };
            let cfg = ph.load_at(addr, &headers, warmup, gen_threads);
            let valid = match cfg.validate() {
                Ok(v) => v,
                Err(e) => {
                    self.load_error = Some(format!("phase {}: {e}", ph.name));
                    break;
                }
            };
            gen.threads = gen.threads.max(valid.threads());
            let cpus = ctx.generator_cpus.clone();
            let cancel = ctx.cancel.clone();
            // The engine runs on its own thread, pinned, so its workers inherit the generator's
            // CPUs and barrage's main thread keeps its own mask.
            let load_ns = net.map(|n| n.load());
            let res = std::thread::scope(|s| {
                s.spawn(|| {
                    if let Some(c) = &cpus {
                        let _ = crate::supervise::pin_current_thread(c);
                    }
                    // On a network the engine's threads start in the load side's namespace.
                    if let Some(ns) = load_ns {
                        ns.enter().map_err(|e| e.to_string())?;
                    }
                    barrage_engine::run(&valid, &super::LiveSink(ctx.progress), &cancel)
                        .map_err(|e| e.to_string())
                })
                .join()
            });
            let rr = match res {
                Ok(Ok(rr)) => rr,
                Ok(Err(e)) => {
                    self.load_error = Some(format!("phase {}: {e}", ph.name));
                    break;
                }
                Err(_) => {
                    self.load_error = Some(format!("phase {}: the load engine panicked", ph.name));
                    break;
                }
            };
            let tm = rr.timing;
            if i == 0 {
                t.windows.load_start_s = Some(secs(origin, tm.start));
                t.windows.warmup_start_s = Some(secs(origin, tm.start));
                t.windows.measure_start_s = Some(secs(origin, tm.measure_start));
            }
            t.windows.measure_end_s = Some(secs(origin, tm.measure_end));
            self.windows.push((
                tm.measure_start.saturating_duration_since(origin),
                tm.measure_end.saturating_duration_since(origin),
            ));
            self.measured += tm.measure_end.saturating_duration_since(tm.measure_start);
            self.requests += rr.requests;
            self.errors += rr.errors.total();
            if rr.rate.as_ref().is_some_and(|r| r.generator_bottleneck) {
                self.generator_late = true;
                gen.reasons.push(format!(
                    "phase {}: open-loop sends late by the generator's own fault",
                    ph.name
                ));
            }
            self.hists.push(rr.histogram.clone());
            t.phases.push(PhaseResult {
                name: ph.name.clone(),
                start_s: secs(origin, tm.start),
                measure_start_s: secs(origin, tm.measure_start),
                measure_end_s: secs(origin, tm.measure_end),
                end_s: secs(origin, Instant::now()),
                load: rr.doc.clone(),
            });
            if rr.cancelled || proc.has_exited() {
                break;
            }
        }
        let wall = wall0.elapsed();
        // The emulator's thread is barrage's too, but its CPU is the link's (reported apart).
        let emu = emulator_cpu().saturating_sub(emu0);
        gen.cpu_s = crate::sample::self_cpu()
            .saturating_sub(cpu0)
            .saturating_sub(emu)
            .as_secs_f64();
        let capacity = gen.threads.min(gen_threads).max(1) as f64 * wall.as_secs_f64();
        if capacity > 0.0 {
            gen.cpu_pct_of_capacity = 100.0 * gen.cpu_s / capacity;
        }
    }
}

/// The failure of a trial whose load errors exceed the study's `max_errors`: such a server did
/// not do the work (for example it answered pipelined requests out of order or dropped some), so
/// its throughput is not credited.
fn too_many_errors(max: Option<u64>, errors: u64, stderr_tail: &str) -> Option<Failure> {
    let max = max?;
    (errors > max).then(|| Failure {
        kind: FailureKind::Errors,
        message: format!(
            "{errors} load errors (wrong status or body, timeouts, resets), more than max_errors = {max}"
        ),
        stderr_tail: stderr_tail.to_string(),
    })
}

/// Which side limited the trial, from the CPU each side used (`barrage_model::verdict`), with the
/// evidence in words.
fn decide_limit(gen: &mut GeneratorHealth, late: bool) {
    use barrage_model::verdict::{decide, Evidence, Limit};
    gen.limit = decide(&Evidence {
        generator_cpu: gen.cpu_pct_of_capacity / 100.0,
        generator_late: late,
        contender_cpu: gen.contender_cpu_pct_of_budget.map(|p| p / 100.0),
    });
    gen.bottleneck = gen.limit == Limit::Generator;
    let contender = gen
        .contender_cpu_pct_of_budget
        .map_or("no samples".to_string(), |p| format!("{p:.0}%"));
    if matches!(gen.limit, Limit::Generator | Limit::Both) {
        gen.reasons.push(format!(
            "barrage used {:.0}% of its {} generator thread(s); the contender {contender} of its CPUs",
            gen.cpu_pct_of_capacity, gen.threads
        ));
    }
}

#[cfg(test)]
mod max_errors_tests {
    use super::too_many_errors;
    use crate::study::parse;
    use std::path::Path;

    #[test]
    fn errors_over_the_limit_fail_the_trial() {
        assert!(too_many_errors(None, 1000, "").is_none());
        assert!(too_many_errors(Some(0), 0, "").is_none());
        assert!(too_many_errors(Some(5), 5, "").is_none());
        let f = too_many_errors(Some(0), 3, "tail").unwrap();
        assert_eq!(
            (&f.kind, f.stderr_tail.as_str()),
            (&crate::results::FailureKind::Errors, "tail")
        );
        assert!(f.message.contains("3 load errors"), "{}", f.message);
    }

    #[test]
    fn max_errors_is_read_from_the_study_table() {
        let src = |extra: &str| {
            format!(
                "[study]\nname = \"t\"\n{extra}\n[load]\nduration = \"1s\"\n\n[[contender]]\nname = \"s\"\nstart = \"srv {{port}}\"\n"
            )
        };
        let study = |extra: &str| parse(&src(extra), "t.toml", Path::new("."));
        assert_eq!(study("").unwrap().max_errors, None);
        assert_eq!(study("max_errors = 0").unwrap().max_errors, Some(0));
        let e = study("max_errors = -1").unwrap_err().to_string();
        assert!(e.contains("max_errors must be 0 or more"), "{e}");
    }
}

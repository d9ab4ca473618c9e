//! One trial of a server study: start the contender on a free port, sample its process tree,
//! wait until it is ready, run the load phases back to back (the engine on the generator's CPUs),
//! stop and reap it, and turn it all into a [`Trial`] on one clock (the trial's origin).

use super::trial::{blank, failure_of, placeholders, secs, spawn_sampled, spec_for};
use super::Ctx;
use crate::results::{Failure, FailureKind, GeneratorHealth, PhaseResult, Trial};
use crate::sample::Sampler;
use crate::study::{ContenderSpec, ReadySpec};
use crate::supervise::{Probe, Role};
use crate::sweep::Point;
use barrage_engine::Validate as _;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

pub(crate) fn trial(ctx: &Ctx, point: &Point, c: &ContenderSpec, trial: u32, seq: usize) -> Trial {
    let origin = Instant::now();
    let net = super::net::up(ctx, point.network.as_ref(), point.id, trial);
    let port = super::trial::free_port().unwrap_or(0);
    let ip = super::net::contender_ip(net.as_ref().ok().and_then(Option::as_ref));
    let addr = SocketAddr::new(ip, port);
    let load = point.phases.first().map(|p| &p.load);
    let vars = placeholders(ctx, c, addr, trial, load);
    let spec = spec_for(ctx, c, &vars, Role::Server);
    let mut t = blank(point, c, trial, seq, spec.command.clone());
    let net = match net {
        Ok(n) => n,
        Err(failure) => {
            t.failure = Some(failure);
            return t;
        }
    };
    let started = super::net::in_contender(net.as_ref(), || spawn_sampled(ctx, &spec, origin));
    let (mut proc, sampler) = match started.and_then(|r| r) {
        Ok(started) => started,
        Err(failure) => {
            t.network = super::net::down(net);
            t.failure = Some(failure);
            return t;
        }
    };
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
    let ready = match &probe {
        Some((p, timeout)) => {
            super::net::in_load(net.as_ref(), || proc.wait_ready(p, *timeout).is_ok())
                .unwrap_or(false)
        }
        None => true,
    };
    if ready {
        t.windows.ready_s = Some(secs(origin, Instant::now()));
    }
    let mut load_error = None;
    let mut gen = GeneratorHealth::default();
    let mut generator_late = false;
    let mut measured = Duration::ZERO;
    let mut hists: Vec<hdrhistogram::Histogram<u64>> = Vec::new();
    let (mut requests, mut errors) = (0u64, 0u64);
    let mut windows: Vec<(Duration, Duration)> = Vec::new();
    if ready {
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
        let emulator_cpu = || net.as_ref().map_or(Duration::ZERO, |n| n.emulator_cpu());
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
                    load_error = Some(format!("phase {}: {e}", ph.name));
                    break;
                }
            };
            gen.threads = gen.threads.max(valid.threads());
            let cpus = ctx.generator_cpus.clone();
            let cancel = ctx.cancel.clone();
            // The engine runs on its own thread, pinned, so its workers inherit the generator's
            // CPUs and barrage's main thread keeps its own mask.
            let load_ns = net.as_ref().map(|n| n.load());
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
                    load_error = Some(format!("phase {}: {e}", ph.name));
                    break;
                }
                Err(_) => {
                    load_error = Some(format!("phase {}: the load engine panicked", ph.name));
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
            windows.push((
                tm.measure_start.saturating_duration_since(origin),
                tm.measure_end.saturating_duration_since(origin),
            ));
            measured += tm.measure_end.saturating_duration_since(tm.measure_start);
            requests += rr.requests;
            errors += rr.errors.total;
            if rr.rate.as_ref().is_some_and(|r| r.generator_bottleneck) {
                generator_late = true;
                gen.reasons.push(format!(
                    "phase {}: open-loop sends late by the generator's own fault",
                    ph.name
                ));
            }
            hists.push(rr.histogram.clone());
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
    let samples = sampler.map(Sampler::stop);
    let exit = proc.stop();
    t.network = super::net::down(net);
    t.windows.trial_end_s = secs(origin, Instant::now());
    t.failure = failure_of(&exit);
    if t.failure.is_none() {
        if let Some(e) = load_error {
            t.failure = Some(Failure {
                kind: FailureKind::LoadError,
                message: e,
                stderr_tail: exit.stderr_tail.clone(),
            });
        } else if ctx.cancel.is_cancelled() {
            t.failure = Some(Failure {
                kind: FailureKind::Interrupted,
                message: "interrupted (Ctrl-C)".into(),
                stderr_tail: String::new(),
            });
        } else if requests == 0 {
            t.failure = Some(Failure {
                kind: FailureKind::NoResponses,
                message: format!("no valid response in the measured window ({errors} errors)"),
                stderr_tail: exit.stderr_tail.clone(),
            });
        } else {
            t.failure = too_many_errors(ctx.study.max_errors, errors, &exit.stderr_tail);
        }
    }
    t.ok = t.failure.is_none();
    let m = &mut t.metrics;
    m.requests = Some(requests);
    m.errors = Some(errors);
    if measured > Duration::ZERO && t.ok {
        m.rps = Some(requests as f64 / measured.as_secs_f64());
    }
    if let Some(h) = barrage_model::hdr::merge(&hists).filter(|h| !h.is_empty()) {
        m.latency_p50_us = Some(h.value_at_quantile(0.5) as f64);
        m.latency_p99_us = Some(h.value_at_quantile(0.99) as f64);
        m.latency_p999_us = Some(h.value_at_quantile(0.999) as f64);
    }
    if let Some(s) = &samples {
        let cpu: f64 = windows
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
            gen.contender_cpu_pct_of_budget = Some(100.0 * cpu / (measured.as_secs_f64() * budget));
        }
        if requests > 0 {
            m.cpu_s_per_request = Some(cpu / requests as f64);
        }
        m.peak_rss_bytes = Some(s.peak_rss_bytes);
    }
    m.user_s = Some(exit.rusage.user.as_secs_f64());
    m.sys_s = Some(exit.rusage.sys.as_secs_f64());
    if ready {
        decide_limit(&mut gen, generator_late);
        t.generator = Some(gen);
    }
    t.samples = samples;
    t.exit = Some(exit);
    t
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

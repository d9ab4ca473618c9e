//! One trial of a server study: start the contender on a free port, sample its process tree,
//! wait until it is ready, run the load phases back to back (the engine on the generator's CPUs),
//! stop and reap it, and turn it all into a [`Trial`] on one clock (the trial's origin).

use super::{util, Ctx};
use crate::results::{Failure, GeneratorHealth, Metrics, PhaseResult, Trial, Windows};
use crate::sample::{Sampler, SamplerConfig};
use crate::study::{ContenderSpec, ReadySpec};
use crate::supervise::{self, Exit, Outcome, Probe, Role, Spec, StdoutMode};
use crate::sweep::Point;
use barrage_engine::Validate as _;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Bytes of stderr kept per trial.
pub(crate) const STDERR_TAIL: usize = 16 * 1024;

/// The engine configuration of one phase against `addr` (`threads` when the phase says 0).
/// A phase's load as the engine runs it against the contender at `addr`: the point's `Config`
/// (its `url` is the path) with the address, the study's headers and warmup, and the generator's
/// threads where the study left them to barrage (0).
pub fn engine_config(
    l: &barrage_engine::Config,
    addr: SocketAddr,
    headers: &[(String, String)],
    warmup: Duration,
    threads: usize,
) -> barrage_engine::Config {
    barrage_engine::Config {
        url: format!("http://{addr}{}", l.url),
        headers: headers.to_vec(),
        threads: if l.threads == 0 { threads } else { l.threads },
        warmup,
        ..l.clone()
    }
}

/// The placeholders of one run (docs/study.md). `load` is the point's load as the contender meets
/// it first (a server study's first phase; None in client studies): it fills `{protocol}`
/// (`http1` or `h2`), `{streams}` and `{pipeline}`, so a server that cannot serve both protocols
/// on one port (nginx before 1.25 on cleartext) can be started for the one the point speaks.
pub(crate) fn placeholders(
    ctx: &Ctx,
    c: &ContenderSpec,
    addr: SocketAddr,
    trial: u32,
    load: Option<&barrage_engine::Config>,
) -> BTreeMap<String, String> {
    let mut v = load_placeholders(load);
    v.insert("barrage".into(), ctx.opts.barrage_exe.display().to_string());
    v.insert("host".into(), addr.ip().to_string());
    v.insert("port".into(), addr.port().to_string());
    v.insert("addr".into(), addr.to_string());
    v.insert("base".into(), format!("http://{addr}"));
    v.insert("url".into(), format!("http://{addr}/"));
    v.insert("dir".into(), c.dir.display().to_string());
    v.insert("trial".into(), trial.to_string());
    v.insert("contender".into(), c.name.clone());
    v
}

/// `{protocol}`, `{streams}` and `{pipeline}` of a point's load (none without one).
fn load_placeholders(load: Option<&barrage_engine::Config>) -> BTreeMap<String, String> {
    let mut v = BTreeMap::new();
    if let Some(l) = load {
        let protocol = if l.http2 { "h2" } else { "http1" };
        v.insert("protocol".into(), protocol.into());
        v.insert("streams".into(), l.streams.to_string());
        v.insert("pipeline".into(), l.pipeline.to_string());
    }
    v
}

pub(crate) fn secs(origin: Instant, t: Instant) -> f64 {
    t.saturating_duration_since(origin).as_secs_f64()
}

pub(crate) fn failure_of(exit: &Exit) -> Option<Failure> {
    let (kind, message) = match &exit.outcome {
        Outcome::Ok => return None,
        Outcome::Exited { code } => ("exited", format!("exited with code {code}")),
        Outcome::Crashed { name, .. } => ("crashed", format!("killed by {name}")),
        Outcome::Oom { evidence } => ("oom", format!("out of memory ({evidence})")),
        Outcome::TimeBudgetExceeded { budget } => (
            "time_budget_exceeded",
            format!(
                "still running after its budget of {:.1} s; killed",
                budget.as_secs_f64()
            ),
        ),
        Outcome::NeverReady { reason } => ("never_ready", reason.to_string()),
        Outcome::Interrupted => ("interrupted", "interrupted (Ctrl-C)".into()),
        Outcome::Daemonized { processes } => (
            "daemonized",
            format!(
                "its command exited while {processes} process(es) it started kept running: it went to the background (run it in the foreground, e.g. nginx -g 'daemon off;'); they were killed"
            ),
        ),
    };
    Some(Failure {
        kind: kind.into(),
        message,
        stderr_tail: exit.stderr_tail.clone(),
    })
}

/// Starts a contender and its process-tree sampler on the trial's clock. A contender that cannot
/// be spawned is a recorded failure of kind `spawn`; a sampler that cannot start leaves the trial
/// without samples rather than failing it.
pub(super) fn spawn_sampled(
    ctx: &Ctx,
    spec: &Spec,
    origin: Instant,
) -> Result<(supervise::Contender, Option<Sampler>), Failure> {
    let proc = supervise::Contender::spawn(spec).map_err(|e| Failure {
        kind: "spawn".into(),
        message: e.to_string(),
        stderr_tail: String::new(),
    })?;
    let config = SamplerConfig {
        interval: ctx.study.sample_interval,
        ..SamplerConfig::default()
    };
    let sampler = Sampler::start_in(proc.pid(), proc.cgroup_procs(), origin, config).ok();
    Ok((proc, sampler))
}

pub(crate) fn blank(
    point: &Point,
    c: &ContenderSpec,
    trial: u32,
    seq: usize,
    command: String,
) -> Trial {
    Trial {
        seq,
        point: point.id,
        contender: c.name.clone(),
        trial,
        started_at: crate::results::now_rfc3339(),
        ok: false,
        failure: None,
        command,
        windows: Windows::default(),
        phases: Vec::new(),
        exit: None,
        samples: None,
        generator: None,
        validation: None,
        metrics: Metrics::default(),
        network: None,
    }
}

/// The supervisor's spec for one run: the start command with the placeholders filled (paths
/// shell-quoted: it runs under `sh -c`), and the environment with them filled as they are.
pub(crate) fn spec_for(
    ctx: &Ctx,
    c: &ContenderSpec,
    vars: &BTreeMap<String, String>,
    role: Role,
) -> Spec {
    let command = util::expand(&c.start, &util::shell_vars(vars));
    let mut spec = Spec::new(c.name.clone(), util::exec_simple(&command));
    spec.dir = c.dir.clone();
    spec.env = c
        .env
        .iter()
        .map(|(k, v)| (k.clone(), util::expand(v, vars)))
        .collect();
    spec.role = role;
    spec.stop_signal = c.stop_signal_number;
    spec.grace = ctx.study.stop_grace;
    spec.cpus = ctx.contender_cpus.clone();
    spec.memory_limit = c.memory_limit;
    spec.stdout = StdoutMode::Discard;
    spec.stderr_tail = STDERR_TAIL;
    spec
}

pub(crate) fn trial(ctx: &Ctx, point: &Point, c: &ContenderSpec, trial: u32, seq: usize) -> Trial {
    let origin = Instant::now();
    let net = super::net::up(ctx, point.network.as_ref(), point.id, trial);
    let port = util::free_port().unwrap_or(0);
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
    let mut hist: Option<hdrhistogram::Histogram<u64>> = None;
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
        let cpu0 = util::self_cpu();
        let emu0 = emulator_cpu();
        let wall0 = Instant::now();
        for (i, ph) in point.phases.iter().enumerate() {
            let warmup = if i == 0 {
                ctx.study.warmup
            } else {
                Duration::ZERO
            };
            let cfg = engine_config(&ph.load, addr, &headers, warmup, gen_threads);
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
                        let _ = util::pin_current_thread(c);
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
            match &mut hist {
                None => hist = Some(rr.histogram.clone()),
                Some(h) => {
                    let _ = h.add(&rr.histogram);
                }
            }
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
        gen.cpu_s = util::self_cpu()
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
                kind: "load_error".into(),
                message: e,
                stderr_tail: exit.stderr_tail.clone(),
            });
        } else if ctx.cancel.is_cancelled() {
            t.failure = Some(Failure {
                kind: "interrupted".into(),
                message: "interrupted (Ctrl-C)".into(),
                stderr_tail: String::new(),
            });
        } else if requests == 0 {
            t.failure = Some(Failure {
                kind: "no_responses".into(),
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
    if let Some(h) = hist.filter(|h| !h.is_empty()) {
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
        kind: "errors".into(),
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
            (f.kind.as_str(), f.stderr_tail.as_str()),
            ("errors", "tail")
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

#[cfg(test)]
mod placeholder_tests {
    use super::load_placeholders;
    use crate::study::parse;
    use crate::sweep::points;
    use std::path::Path;

    /// `{protocol}`, `{streams}` and `{pipeline}` follow each point's effective load: the base
    /// [load], overlaid by its variant and swept values.
    #[test]
    fn protocol_streams_and_pipeline_follow_the_point() {
        let src = r#"
[study]
name = "t"
[load]
connections = 16
duration = "1s"
[[load.variant]]
name = "http1"
pipeline = 1
[[load.variant]]
name = "http1-pipelined"
pipeline = 16
[[load.variant]]
name = "h2"
http2 = true
streams = [1, 100]
[[contender]]
name = "s"
start = "srv {port} {protocol}"
"#;
        let study = parse(src, "t.toml", Path::new(".")).unwrap();
        let got: Vec<(String, Vec<(String, String)>)> = points(&study)
            .unwrap()
            .iter()
            .map(|p| {
                let vars = load_placeholders(p.phases.first().map(|ph| &ph.load));
                (p.label.clone(), vars.into_iter().collect())
            })
            .collect();
        let row = |label: &str, protocol: &str, streams: &str, pipeline: &str| {
            let vars = [
                ("pipeline", pipeline),
                ("protocol", protocol),
                ("streams", streams),
            ];
            (
                label.to_string(),
                vars.iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect::<Vec<_>>(),
            )
        };
        assert_eq!(
            got,
            vec![
                row("http1", "http1", "1", "1"),
                row("http1-pipelined", "http1", "1", "16"),
                row("h2 streams=1", "h2", "1", "1"),
                row("h2 streams=100", "h2", "100", "1"),
            ]
        );
        // Client studies (no load): none of the three, so `{protocol}` stays as written.
        assert!(load_placeholders(None).is_empty());
    }
}

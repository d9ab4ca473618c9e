//! The one lifecycle of a trial, whatever the contender's role ([`run`]): the trial's network up,
//! the contender spawned with its sampler on the trial's clock (in its namespace), the role's
//! part while it runs, the network down, the failure judged and the figures every trial records.
//! A role is a [`Part`]: `server.rs` (the readiness probe and the load phases) and `client.rs`
//! (barrage's server as the target, the client's run and its validation). Also what both share:
//! the placeholders of a run, the supervisor's spec, an empty trial record, and how a
//! contender's exit becomes a failure.

use super::command;
use super::Ctx;
use crate::results::{Failure, FailureKind, Metrics, Trial, Windows};
use crate::sample::{Sampler, SamplerConfig};
use crate::study::ContenderSpec;
use crate::supervise::{self, Exit, Outcome, Role, Spec, StdoutMode};
use crate::sweep::Point;
use barrage_model::process::Samples;
use barrage_netem::Net;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Instant;

/// What one role does in the lifecycle of [`run`].
pub(crate) trait Part {
    /// The address the contender serves on (a server) or loads (a client: barrage's server, on
    /// a network this trial's own). A failure ends the trial before the contender starts.
    fn address(&mut self, ctx: &Ctx, net: Option<&Net>) -> Result<SocketAddr, Failure>;
    /// The contender's spec, its placeholders filled for `addr`.
    fn spec(
        &mut self,
        ctx: &Ctx,
        point: &Point,
        c: &ContenderSpec,
        trial: u32,
        addr: SocketAddr,
    ) -> Spec;
    /// While the contender runs, until it has exited or been stopped: the exit and the samples.
    fn run(
        &mut self,
        ctx: &Ctx,
        point: &Point,
        c: &ContenderSpec,
        t: &mut Trial,
        running: Running<'_>,
    ) -> Ended;
    /// What the role holds on the network, let go before the network goes down.
    fn release(&mut self) {}
    /// The trial's failure, once the network is down (the exit's own is judged first where
    /// the role does not judge exit codes itself).
    fn judge(&mut self, ctx: &Ctx, c: &ContenderSpec, t: &mut Trial, ended: &Ended);
    /// The role's figures, once the trial is judged (`t.ok` set).
    fn measure(&mut self, ctx: &Ctx, t: &mut Trial, ended: &Ended);
}

/// A contender running for its trial, handed to [`Part::run`].
pub(crate) struct Running<'a> {
    pub proc: supervise::Contender,
    pub sampler: Option<Sampler>,
    pub net: Option<&'a Net>,
    /// The trial's clock.
    pub origin: Instant,
    pub addr: SocketAddr,
}

/// A contender's end: how it exited and what its tree did.
pub(crate) struct Ended {
    pub exit: Exit,
    pub samples: Option<Samples>,
}

/// One trial of contender `c` at `point`, the same lifecycle for every role.
pub(crate) fn run(
    ctx: &Ctx,
    point: &Point,
    c: &ContenderSpec,
    trial: u32,
    seq: usize,
    part: &mut impl Part,
) -> Trial {
    let origin = Instant::now();
    let up = super::net::up(ctx, point.network.as_ref(), point.id, trial)
        .and_then(|net| part.address(ctx, net.as_ref()).map(|addr| (net, addr)));
    let (net, addr) = match up {
        Ok(x) => x,
        Err(failure) => {
            let mut t = blank(point, c, trial, seq, c.start.clone());
            t.failure = Some(failure);
            return t;
        }
    };
    let spec = part.spec(ctx, point, c, trial, addr);
    let mut t = blank(point, c, trial, seq, spec.command.clone());
    let started = super::net::in_contender(net.as_ref(), || spawn_sampled(ctx, &spec, origin));
    let (proc, sampler) = match started.and_then(|r| r) {
        Ok(started) => started,
        Err(failure) => {
            part.release();
            t.network = super::net::down(net);
            t.failure = Some(failure);
            return t;
        }
    };
    let running = Running {
        proc,
        sampler,
        net: net.as_ref(),
        origin,
        addr,
    };
    let ended = part.run(ctx, point, c, &mut t, running);
    part.release();
    t.network = super::net::down(net);
    t.windows.trial_end_s = secs(origin, Instant::now());
    part.judge(ctx, c, &mut t, &ended);
    t.ok = t.failure.is_none();
    part.measure(ctx, &mut t, &ended);
    let m = &mut t.metrics;
    m.user_s = Some(ended.exit.rusage.user.as_secs_f64());
    m.sys_s = Some(ended.exit.rusage.sys.as_secs_f64());
    t.samples = ended.samples;
    t.exit = Some(ended.exit);
    super::busy::record(ctx, &mut t);
    t
}

/// Bytes of stderr kept per trial.
pub(crate) const STDERR_TAIL: usize = 16 * 1024;

/// A free TCP port on 127.0.0.1 (bound, read, released: a contender then binds it; the race with
/// another process taking it in between is accepted and shows as a never-ready trial).
pub fn free_port() -> std::io::Result<u16> {
    let l = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(l.local_addr()?.port())
}

/// The placeholders of one run (docs/study.md). `load` is the point's load as the contender meets
/// it first (a server study's first phase; None in client studies): it fills `{protocol}`
/// (`http1`, `h2`, `ws` or `h3`), `{streams}` and `{pipeline}`, so a server that cannot serve both protocols
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
pub(crate) fn load_placeholders(load: Option<&barrage_engine::Config>) -> BTreeMap<String, String> {
    let mut v = BTreeMap::new();
    if let Some(l) = load {
        v.insert("protocol".into(), l.protocol.name().into());
        v.insert("streams".into(), l.protocol.streams().to_string());
        v.insert("pipeline".into(), l.protocol.pipeline().to_string());
    }
    v
}

pub(crate) fn secs(origin: Instant, t: Instant) -> f64 {
    t.saturating_duration_since(origin).as_secs_f64()
}

pub(crate) fn failure_of(exit: &Exit) -> Option<Failure> {
    let (kind, message) = match &exit.outcome {
        Outcome::Ok => return None,
        Outcome::Exited { code } => (FailureKind::Exited, format!("exited with code {code}")),
        Outcome::Crashed { name, .. } => (FailureKind::Crashed, format!("killed by {name}")),
        Outcome::Oom { evidence } => (FailureKind::Oom, format!("out of memory ({evidence})")),
        Outcome::TimeBudgetExceeded { budget } => (
            FailureKind::TimeBudgetExceeded,
            format!(
                "still running after its budget of {:.1} s; killed",
                budget.as_secs_f64()
            ),
        ),
        Outcome::NeverReady { reason } => (FailureKind::NeverReady, reason.to_string()),
        Outcome::Interrupted => (FailureKind::Interrupted, "interrupted (Ctrl-C)".into()),
        Outcome::Daemonized { processes } => (
            FailureKind::Daemonized,
            format!(
                "its command exited while {processes} process(es) it started kept running: it went to the background (run it in the foreground, e.g. nginx -g 'daemon off;'); they were killed"
            ),
        ),
    };
    Some(Failure {
        kind,
        message,
        stderr_tail: exit.stderr_tail.clone(),
    })
}

/// Starts a contender and its process-tree sampler on the trial's clock. A contender that cannot
/// be spawned is a recorded failure of kind `spawn`; a sampler that cannot start leaves the trial
/// without samples rather than failing it.
pub(crate) fn spawn_sampled(
    ctx: &Ctx,
    spec: &Spec,
    origin: Instant,
) -> Result<(supervise::Contender, Option<Sampler>), Failure> {
    let proc = supervise::Contender::spawn(spec).map_err(|e| Failure {
        kind: FailureKind::Spawn,
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
        outside_cpu: None,
        // Set by the runner, which knows the machine of the run.
        machine: 0,
        contender_cpus: None,
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
    let command = command::expand(&c.start, &command::shell_vars(vars));
    let mut spec = Spec::new(c.name.clone(), command::exec_simple(&command));
    spec.dir = c.dir.clone();
    spec.env = c
        .env
        .iter()
        .map(|(k, v)| (k.clone(), command::expand(v, vars)))
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

//! wrk's Lua scripts in a run (`barrage load -s`), through `barrage_script`: the script is
//! compiled and a probe thread started at validation (a broken script stops before any load),
//! the setup phase runs before the workers start (each worker gets its `setup(thread)` values
//! and `thread.addr`), each worker starts its own Lua state on its own thread, and `done` runs
//! over the run's figures at the end.
//!
//! A script without a `request()` hook is a static request (wrk.method, path, headers, body
//! after `init`): it becomes the run's request and goes through the encoded-once path of every
//! protocol. `request()`, `response()` and `delay()` are called by the worker per request,
//! over HTTP/1.1 (the session takes the script's text as it is, as wrk writes it).
//!
//! What wrk does to its process, the run does to itself: `os.exit(n)` in a hook ends every
//! worker, and the run reports what it measured with the status for the caller to exit with
//! ([`ScriptOutput::exit`]); in the probe it ends validation ([`ConfigError::Script`]'s `exit`).
//! A hook that runs once and does not return is stopped ([`hook_bound`]): at the run's end plus
//! the engine's bound on a run without progress, or when the run is cancelled.

use crate::config::{ConfigError, ResolvedRequest, Target};
use crate::RunResult;
use barrage_model::load::{Config, ErrorClass, Protocol};
use barrage_script::{
    Bound, Distribution, Errors, Failed, Resolver, Script, Setup, Summary, Thread, ThreadSetup,
    Transfer,
};
use hdrhistogram::Histogram;
use std::cell::OnceCell;
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::path::Path;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use barrage_script::ScriptError;

/// What validation learned of a script: the run's plan for it.
#[derive(Debug, Clone)]
pub struct ScriptPlan {
    pub script: Script,
    pub target: barrage_script::Target,
    /// `request()` is defined: the worker calls it for each request (or batch).
    pub dynamic: bool,
    /// Requests one `request()` call gave the probe (wrk's pipeline.lua: 3): the connection's
    /// depth is at least this.
    pub batch: usize,
    /// `response()` is defined: the sessions keep whole responses for it.
    pub responses: bool,
    /// `delay()` is defined: the worker waits what it says before each request.
    pub delay: bool,
}

/// What a script printed and how it ended, for the caller to show.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScriptOutput {
    /// What setup, the threads (in thread order) and done printed, also what a hook printed
    /// before it failed or called `os.exit`.
    pub printed: String,
    /// A hook's error that ended the run early (`file:line: message (in request())`), or a hook
    /// that did not return by its bound.
    pub error: Option<String>,
    /// `os.exit(status)` in a hook ended the run (or was called by `done`): the status wrk's
    /// process would have ended with, and the line that says so.
    pub exit: Option<(u8, String)>,
}

/// How far past the run's end a hook that runs once (the top level, `setup()`, `init()`,
/// `done()`) may go: the engine's bound on a run without progress (twice `--timeout`, at least
/// 2 s), so a script cannot hold a run longer than the network can.
pub(crate) fn grace(timeout: Duration) -> Duration {
    (timeout * 2).max(Duration::from_secs(2))
}

/// The run's length when it has one: its stages', else its warmup and duration.
fn length(cfg: &Config) -> Option<Duration> {
    if !cfg.stages.is_empty() {
        return Some(cfg.stages.iter().map(|s| s.duration).sum());
    }
    cfg.duration.map(|d| d + cfg.warmup)
}

/// The bound of hooks that run once from `now`, when the run's end is `end` (named `what`;
/// None: a run with no set end, `-n`, or done() after the run, whose hooks get [`grace`] from
/// their call), stopped too when `cancel` is set.
pub(crate) fn hook_bound(
    timeout: Duration,
    now: Instant,
    end: Option<(Instant, &str)>,
    cancel: Option<Arc<AtomicBool>>,
) -> Bound {
    let g = grace(timeout);
    let words = barrage_model::units::format_duration(g);
    match end {
        Some((end, what)) => Bound {
            until: Some(end.max(now) + g),
            limit: format!("by {what} plus {words}"),
            cancel,
        },
        None => Bound {
            until: Some(now + g),
            limit: format!("within {words} of its call"),
            cancel,
        },
    }
}

/// The bound of the hooks that run before the run starts (the probe, the setup phase): the
/// run's length from now, plus [`grace`].
fn before_run(cfg: &Config, cancel: Option<Arc<AtomicBool>>) -> Bound {
    let now = Instant::now();
    let end = length(cfg).map(|l| (now + l, "the run's length"));
    hook_bound(cfg.timeout, now, end, cancel)
}

/// A script's stop at validation, with what it printed (never lost) and, for `os.exit`, the
/// status.
fn stopped(f: Failed) -> ConfigError {
    ConfigError::Script {
        exit: f.error.exit_status(),
        message: f.error.to_string(),
        printed: String::from_utf8_lossy(&f.printed).into_owned(),
    }
}

/// `wrk.lookup` and `wrk.connect` for real: the system's resolver and a TCP connect.
pub(crate) struct Net;

impl Resolver for Net {
    fn lookup(&self, host: &str, service: &str) -> Vec<SocketAddr> {
        let port = match service {
            "http" => 80,
            "https" => 443,
            s => match s.parse::<u16>() {
                Ok(p) => p,
                Err(_) => return Vec::new(),
            },
        };
        (host, port)
            .to_socket_addrs()
            .map(Iterator::collect)
            .unwrap_or_default()
    }

    fn connect(&self, addr: SocketAddr) -> bool {
        TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_ok()
    }
}

fn resolver() -> Arc<dyn Resolver + Send + Sync> {
    Arc::new(Net)
}

/// Compiles `cfg.script`, starts a probe thread (init and the default request, a syntax or
/// runtime error found here, before any load), and checks the hooks against the run: the
/// static request replaces `requests` when there is no `request()` hook.
pub(crate) fn plan(
    cfg: &Config,
    path: &str,
    target: &Target,
    requests: &mut Vec<ResolvedRequest>,
) -> Result<ScriptPlan, ConfigError> {
    let fail = |e: ScriptError| ConfigError::script(e.to_string());
    let script = Script::load(Path::new(path), cfg.script_args.clone()).map_err(fail)?;
    let first = requests.first().cloned().unwrap_or(ResolvedRequest {
        method: "GET".into(),
        path: "/".into(),
        headers: Vec::new(),
        body: Vec::new(),
    });
    // wrk leaves wrk.port nil when the URL names no port.
    let named_port = target
        .authority
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok() && !target.authority.ends_with(']'));
    let starget = barrage_script::Target {
        url: cfg.url.clone(),
        scheme: if target.tls { "https" } else { "http" }.into(),
        host: target.host.clone(),
        port: named_port.then_some(target.port),
        method: first.method.clone(),
        path: first.path.clone(),
        headers: first.headers.clone(),
        body: (!first.body.is_empty()).then(|| first.body.clone()),
    };
    // The probe thread gets what a setup phase of its own gives a first thread (setup.lua's
    // `id`): init may need it. What the probe's phases print is dropped when they succeed (the
    // run prints its own), shown when they stop.
    let bound = before_run(cfg, None);
    let (mut env, given) =
        Setup::new(&script, &starget, resolver(), 1, None, &bound).map_err(stopped)?;
    let printed = env.take_output();
    let with_setup = |mut f: Failed| {
        f.printed.splice(0..0, printed.iter().copied());
        stopped(f)
    };
    let mut probe =
        Thread::new(&script, &starget, resolver(), &given[0], &bound).map_err(with_setup)?;
    let dynamic = !probe.is_static();
    if dynamic {
        if let Err(e) = probe.request_within(&bound) {
            let printed = probe.take_output();
            return Err(with_setup(Failed { error: e, printed }));
        }
    }
    let batch = probe.count();
    let responses = probe.wants_response();
    let delay = probe.wants_delay();
    let file = script.file();
    // A batch goes out whole on one connection: HTTP/1.1's pipeline and WebSocket's messages in
    // flight grow to it; streams are capped by the server too, so they are the user's to give.
    let streams = matches!(
        cfg.protocol,
        Protocol::Http2 { .. } | Protocol::Http3 { .. }
    );
    if streams && dynamic && batch > cfg.protocol.streams() {
        return Err(ConfigError::script(format!(
            "{file}: request() returns {batch} requests at once: give --streams {batch} or \
             more, so that they go out together"
        )));
    }
    let open_loop = cfg.rate.is_some() || !cfg.stages.is_empty();
    if open_loop && delay {
        return Err(ConfigError::script(format!(
            "{file}: delay() paces the closed loop; with --rate or --stages the schedule paces"
        )));
    }
    if open_loop && batch > 1 {
        return Err(ConfigError::script(format!(
            "{file}: a request() of {batch} requests at once is a pipelined batch, for the \
             closed loop; the open loop sends one request per slot"
        )));
    }
    // A targets or body-lines file gives the run's requests: a script may read their
    // responses, pace them and report on them, but not write requests of its own.
    let listed = cfg.targets.is_some() || cfg.body_lines.is_some();
    let from = if cfg.targets.is_some() {
        "--targets"
    } else {
        "--body-lines"
    };
    if listed && dynamic {
        return Err(ConfigError::script(format!(
            "{file}: request() writes every request, and {from} gives them too: use one"
        )));
    }
    if !dynamic {
        // The static request, as every protocol encodes it: the session writes Host and
        // content-length itself.
        let own: Vec<ResolvedRequest> = probe
            .requests()
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r.headers.retain(|(n, _)| {
                    !n.eq_ignore_ascii_case("host") && !n.eq_ignore_ascii_case("content-length")
                });
                r
            })
            .collect();
        if !listed {
            *requests = own;
        } else if own.len() != 1 || !same_request(&own[0], &first) {
            return Err(ConfigError::script(format!(
                "{file}: the script sets wrk's request (method, path, headers or body), and \
                 {from} gives the requests: use one"
            )));
        }
    }
    Ok(ScriptPlan {
        script,
        target: starget,
        dynamic,
        batch: batch.max(1),
        responses,
        delay,
    })
}

/// Whether two requests are the same, whatever the order of their fields (a Lua table has none).
fn same_request(a: &ResolvedRequest, b: &ResolvedRequest) -> bool {
    let sorted = |r: &ResolvedRequest| {
        let mut h = r.headers.clone();
        h.sort();
        h
    };
    a.method == b.method && a.path == b.path && a.body == b.body && sorted(a) == sorted(b)
}

/// The setup phase: `setup(thread)` for each of `threads`, each starting at `addr`, stopped
/// as the probe's (or at once when `cancel` is set). The environment stays on the calling
/// thread for `done`.
pub(crate) fn setup(
    plan: &ScriptPlan,
    cfg: &Config,
    threads: usize,
    addr: SocketAddr,
    cancel: Arc<AtomicBool>,
) -> Result<(Setup, Vec<ThreadSetup>), Failed> {
    let bound = before_run(cfg, Some(cancel));
    Setup::new(
        &plan.script,
        &plan.target,
        resolver(),
        threads,
        Some(addr),
        &bound,
    )
}

/// A worker's Lua state. Created on the worker's own thread (in `Worker::run`) and dropped
/// there: see the `Send` note below.
pub(crate) struct WorkerLua {
    pub thread: Thread,
    pub dynamic: bool,
    pub responses: bool,
    pub delay: bool,
    /// `request()` was called and its requests are not all sent yet (no room).
    pub pending: bool,
    /// A hook's error: the worker stops, and the run says why.
    pub error: Option<String>,
    /// `os.exit` in a hook: the status and its line; the run stops.
    pub exit: Option<(u8, String)>,
    /// The response being handed to `response()` (its buffers reused from one to the next).
    pub kept: barrage_wire::client::Kept,
}

// SAFETY: a `WorkerLua` is created inside `Worker::run`, on the worker's thread, after the
// worker moved there, and is dropped there; it never crosses threads. `Send` is only needed
// because the `Worker` that holds the (then empty) field is moved into its thread.
unsafe impl Send for WorkerLua {}

/// How a worker's script stopped it, sorted for the run: `os.exit` (the run ends, with its
/// status), cancelled (Ctrl-C: nothing to say), or an error.
pub(crate) fn sort_stop(
    e: ScriptError,
    error: &mut Option<String>,
    exit: &mut Option<(u8, String)>,
) {
    match e.exit_status() {
        Some(status) => *exit = Some((status, e.to_string())),
        None if matches!(e, ScriptError::Interrupted { .. }) => {}
        None => *error = Some(e.to_string()),
    }
}

impl WorkerLua {
    /// `first`: the run's first worker, whose state wrk asks for one request before the load
    /// (its `script_verify_request`, which counts a pipelined batch), a call whose request is
    /// never sent: counter.lua's first thread starts at /1 under wrk, and so here. `init` and
    /// that call run under `bound`. A script that stops here gives what it printed, and why.
    pub(crate) fn start(
        plan: &ScriptPlan,
        given: &ThreadSetup,
        first: bool,
        bound: &Bound,
    ) -> Result<WorkerLua, WorkerScript> {
        let ended = |e: ScriptError, printed: Vec<u8>| {
            let mut end = WorkerScript {
                globals: Vec::new(),
                printed,
                error: None,
                exit: None,
            };
            sort_stop(e, &mut end.error, &mut end.exit);
            end
        };
        let mut thread = Thread::new(&plan.script, &plan.target, resolver(), given, bound)
            .map_err(|f| ended(f.error, f.printed))?;
        if first && plan.dynamic {
            if let Err(e) = thread.request_within(bound) {
                let printed = thread.take_output();
                return Err(ended(e, printed));
            }
        }
        Ok(WorkerLua {
            thread,
            dynamic: plan.dynamic,
            responses: plan.responses,
            delay: plan.delay,
            pending: false,
            error: None,
            exit: None,
            kept: Default::default(),
        })
    }

    /// A per-request hook stopped: the worker stops, and an `os.exit` stops the run.
    pub(crate) fn stop(&mut self, e: ScriptError) {
        sort_stop(e, &mut self.error, &mut self.exit);
    }

    /// What the worker hands back when it ends: the thread's globals (for `done`'s
    /// `thread:get`), what it printed and how it stopped.
    pub(crate) fn end(mut self) -> WorkerScript {
        WorkerScript {
            globals: self.thread.snapshot(),
            printed: self.thread.take_output(),
            error: self.error,
            exit: self.exit,
        }
    }
}

/// A worker's script at its end.
pub(crate) struct WorkerScript {
    pub globals: Vec<(String, Transfer)>,
    pub printed: Vec<u8>,
    pub error: Option<String>,
    pub exit: Option<(u8, String)>,
}

/// The done phase over the run's result: wrk's summary, the latency distribution (µs) and the
/// per-second request rates.
pub(crate) fn done(
    mut setup: Setup,
    mut printed: Vec<u8>,
    ends: Vec<WorkerScript>,
    r: &RunResult,
) -> ScriptOutput {
    let mut error = None;
    let mut exit = None;
    let mut globals = Vec::with_capacity(ends.len());
    for e in ends {
        printed.extend_from_slice(&e.printed);
        error = error.or(e.error);
        exit = exit.or(e.exit);
        globals.push(e.globals);
    }
    let d = &r.doc;
    let count = |c: ErrorClass| d.errors.iter().find(|(k, _)| *k == c).map_or(0, |(_, n)| n);
    let status_errors: u64 = d
        .status
        .iter()
        .filter(|(code, _)| code.parse::<u16>().is_ok_and(|c| c > 399))
        .map(|(_, n)| n)
        .sum();
    let summary = Summary {
        duration_us: (d.duration_s * 1e6) as u64,
        requests: d.requests,
        bytes: d.bytes_read,
        errors: Errors {
            connect: count(ErrorClass::Connect),
            read: d.errors.total()
                - count(ErrorClass::Connect)
                - count(ErrorClass::Timeout)
                - count(ErrorClass::Status),
            write: 0,
            status: status_errors,
            timeout: count(ErrorClass::Timeout),
        },
    };
    let mut rates = Histogram::<u64>::new(3).expect("3 significant figures");
    for s in &d.series {
        if s.span_s > 0.0 {
            let _ = rates.record((s.responses as f64 / s.span_s).round() as u64);
        }
    }
    // done() runs after the run: its bound is the grace alone, and a Ctrl-C then is the
    // second one, which the caller carries out itself.
    let bound = hook_bound(r.config.timeout, Instant::now(), None, None);
    match setup.done(
        &summary,
        Rc::new(Hist::new(r.histogram.clone())),
        Rc::new(Hist::new(rates)),
        globals,
        &bound,
    ) {
        Ok(out) => printed.extend_from_slice(&out),
        Err(f) => {
            printed.extend_from_slice(&f.printed);
            // An exit in done() is the run's status unless a hook's exit came first (wrk's
            // process would have ended there).
            let (mut e, mut x) = (None, None);
            sort_stop(f.error, &mut e, &mut x);
            error = error.or(e);
            exit = exit.or(x);
        }
    }
    ScriptOutput {
        printed: String::from_utf8_lossy(&printed).into_owned(),
        error,
        exit,
    }
}

/// A histogram as `done`'s `latency` or `requests` object, its distinct values listed once
/// when first asked for (a dump reads them all, one call each).
struct Hist(Histogram<u64>, OnceCell<Vec<(u64, u64)>>);

impl Hist {
    fn new(h: Histogram<u64>) -> Hist {
        Hist(h, OnceCell::new())
    }

    /// Each recorded value (the highest its bucket holds, as the percentiles give) and its
    /// count, ascending.
    fn values(&self) -> &[(u64, u64)] {
        self.1.get_or_init(|| {
            self.0
                .iter_recorded()
                .map(|v| (v.value_iterated_to(), v.count_at_value()))
                .collect()
        })
    }
}

impl Distribution for Hist {
    fn min(&self) -> f64 {
        if self.0.is_empty() {
            return 0.0;
        }
        self.0.min() as f64
    }
    fn max(&self) -> f64 {
        self.0.max() as f64
    }
    fn mean(&self) -> f64 {
        self.0.mean()
    }
    fn stdev(&self) -> f64 {
        self.0.stdev()
    }
    fn percentile(&self, p: f64) -> f64 {
        self.0.value_at_percentile(p) as f64
    }
    fn distinct(&self) -> usize {
        self.values().len()
    }
    fn raw(&self, i: usize) -> Option<(f64, u64)> {
        let (v, n) = *self.values().get(i.checked_sub(1)?)?;
        Some((v as f64, n))
    }
}

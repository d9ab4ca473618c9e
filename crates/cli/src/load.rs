//! `barrage load URL`: command-line options -> `barrage_engine::Config`, then the engine's
//! result -> a wrk-like summary, the compact line, and optionally the `barrage.load/1` JSON.
//! While it runs: the live view on a terminal (`live.rs`; `-q` keeps the one progress line),
//! and the `--metrics` endpoint, both reading the figures so far (`crate::figures`).

#[cfg(test)]
mod declared;
mod live;
mod parse;
pub(crate) mod print;
mod progress;
mod thresholds;

use anyhow::Context;
use barrage_engine::Validate as _;
use barrage_engine::{Cancel, Config};
use std::io::{IsTerminal as _, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use barrage_model::load::{Protocol, ProtocolOptions, Stage, DEFAULT_H2_WINDOW};
pub use parse::parse_duration;
pub use thresholds::{exit_status, EXIT_THRESHOLD};

/// `--stages`' value: one argument holding the whole schedule (clap would take a bare `Vec`
/// for a list of arguments).
#[derive(Debug, Clone)]
pub struct Stages(pub Vec<Stage>);

/// `--stages`, in the one grammar (`barrage_model::units::parse_stages`).
fn parse_stages(s: &str) -> Result<Stages, String> {
    barrage_model::units::parse_stages(s).map(Stages)
}

/// Drive HTTP/1.1 or HTTP/2 load at a URL (closed loop like wrk and h2load, or open loop at a
/// fixed rate like wrk2) and report throughput, latency (HDR), errors by class and status codes.
#[derive(clap::Args, Default, Debug)]
pub struct Args {
    /// Target URL (http:// or https://). With --targets, the origin of targets written as
    /// paths (optional when the file has absolute URLs).
    #[arg(value_name = "URL", required_unless_present = "targets")]
    pub url: Option<String>,
    /// Connections to keep open.
    #[arg(short = 'c', long, value_name = "N", default_value_t = 10)]
    pub connections: usize,
    /// Worker threads [default: one per core, at most one per connection].
    #[arg(short = 't', long, value_name = "N")]
    pub threads: Option<usize>,
    /// How long to measure (e.g. 10s, 500ms, 1m, 1.5s) [default: 10s unless -n is given].
    #[arg(short = 'd', long, value_name = "DURATION", value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Stop after this many requests (total over all connections).
    #[arg(short = 'n', long, value_name = "N")]
    pub requests: Option<u64>,
    /// Open loop: send R requests per second over all connections (fractions allowed); latency
    /// is measured from each request's intended send time.
    #[arg(long, value_name = "R", conflicts_with = "stages")]
    pub rate: Option<f64>,
    /// Open loop on a rate schedule, k6's stages: `30s:1000,1m:1000,30s:0` ramps from 0 to
    /// 1000 req/s over 30 s, holds 1000 for a minute, ramps down to 0 over 30 s. Each stage goes
    /// linearly from the previous stage's rate (0 before the first) to its own; the run lasts
    /// their sum (the warmup is its first seconds). Latency counts from each request's
    /// scheduled time; the per-second series shows the target beside the achieved rate.
    #[arg(long, value_name = "STAGES", value_parser = parse_stages, conflicts_with_all = ["duration", "requests"])]
    pub stages: Option<Stages>,
    /// Closed loop: open the connections evenly over this time (e.g. 10s) instead of all at
    /// once.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, conflicts_with_all = ["rate", "stages"])]
    pub ramp_up: Option<Duration>,
    /// Send the requests of a targets file instead of one: vegeta's http format (`METHOD URL`,
    /// header lines, an optional `@body-file` relative to the file, a blank line between
    /// targets; URLs may be paths on URL's origin) or JSON lines (`{"method", "url",
    /// "header": {name: [values]}, "body": base64}`). One origin per run. Each target gets
    /// its own figures in the summary and the JSON.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["body", "body_file", "body_lines"])]
    pub targets: Option<String>,
    /// The targets file's format [default: json for .json, .jsonl and .ndjson, else http].
    #[arg(long, value_name = "FORMAT", value_parser = ["http", "json"], requires = "targets")]
    pub targets_format: Option<String>,
    /// Order of requests over the targets: each in turn (round-robin), or a shuffled order
    /// (random) drawn from --seed, repeated, so every target still gets an equal share.
    #[arg(long, value_name = "ORDER", value_parser = ["round-robin", "random"], default_value = "round-robin", requires = "targets")]
    pub targets_order: String,
    /// Seed of --targets-order random (the same seed gives the same order) [default: drawn,
    /// and recorded in the JSON's config].
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Request bodies from a file, one per line, sent in turn (oha's -Z).
    #[arg(short = 'Z', long, value_name = "FILE", conflicts_with_all = ["body", "body_file"])]
    pub body_lines: Option<String>,
    /// Requests in flight per connection (HTTP/1.1 pipelining).
    #[arg(long, value_name = "D", default_value_t = 1)]
    pub pipeline: usize,
    /// Speak HTTP/2: h2 chosen by ALPN on https:// (h2 and http/1.1 are offered; the summary
    /// says which the server chose), h2c with prior knowledge on http://.
    #[arg(long)]
    pub http2: bool,
    /// HTTP/2 and HTTP/3: concurrent streams per connection, as h2load's -m (-c connections
    /// x -m streams in flight). The server's stream limit caps it (for HTTP/2 the summary says
    /// when it did).
    #[arg(short = 'm', long, value_name = "N", default_value_t = 1)]
    pub streams: usize,
    /// HTTP/2: the receive window announced for each stream and opened for the connection
    /// (e.g. 64KiB, 1GiB) [default: 2^30-1, as h2load and oha, so that flow control never
    /// throttles a benchmark].
    #[arg(long, value_name = "SIZE", value_parser = parse::parse_window, requires = "http2")]
    pub h2_window: Option<u32>,
    /// Speak WebSocket to a ws:// or wss:// URL: each connection is upgraded once, then each
    /// request is one message (the body, text when it is UTF-8, binary else) and ends when the
    /// server's next message arrives; --pipeline messages in flight. Each reply must echo its
    /// message, byte for byte (else an error of class `body`): for a server that does not echo,
    /// give --expect-body (the reply every message must get) or --no-echo-check (any reply).
    /// The summary's requests are messages.
    #[arg(long, conflicts_with_all = ["http2", "targets"])]
    pub ws: bool,
    /// WebSocket: the longest reply accepted, its frames together (e.g. 64KiB, 1MiB); a longer
    /// one is an error of class `message_too_large` and its connection is closed (1009).
    /// Replies are checked as they arrive, so the limit costs no memory [default: 16MiB].
    #[arg(long, value_name = "SIZE", value_parser = barrage_model::units::parse_size, requires = "ws")]
    pub ws_max_message: Option<u64>,
    /// WebSocket: take any reply as the answer to its message instead of checking that it
    /// echoes it (for servers that answer with something else; --expect-body checks a fixed
    /// reply instead).
    #[arg(long, requires = "ws", conflicts_with = "expect_body")]
    pub no_echo_check: bool,
    /// Speak HTTP/3 over QUIC (UDP) to an https:// URL: --streams requests at once on each
    /// connection (capped by the server's limit), certificates verified unless --insecure,
    /// no 0-RTT.
    #[arg(long, conflicts_with_all = ["http2", "ws"])]
    pub http3: bool,
    /// Send `Connection: close` and open a new connection for every request.
    #[arg(long)]
    pub no_keepalive: bool,
    /// Per-request timeout; a late request is an error and its connection is reopened.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "10s")]
    pub timeout: Option<Duration>,
    /// Run load for this long first and discard its measurements.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub warmup: Option<Duration>,
    /// Request method.
    #[arg(short = 'X', long, value_name = "METHOD", default_value = "GET")]
    pub method: String,
    /// Extra request header, `Name: value` (repeatable); with --ws, on the upgrade request.
    #[arg(short = 'H', long = "header", value_name = "HEADER", value_parser = parse::parse_header)]
    pub headers: Vec<(String, String)>,
    /// Request body.
    #[arg(long, value_name = "STRING", conflicts_with = "body_file")]
    pub body: Option<String>,
    /// Request body from a file.
    #[arg(long, value_name = "PATH")]
    pub body_file: Option<PathBuf>,
    /// Count responses with another status as errors (class `status`).
    #[arg(long, value_name = "CODE")]
    pub expect_status: Option<u16>,
    /// Count responses with another body as errors (class `body`); with --ws, the reply every
    /// message must get, instead of its echo.
    #[arg(long, value_name = "STRING")]
    pub expect_body: Option<String>,
    /// Accept any TLS certificate.
    #[arg(short = 'k', long)]
    pub insecure: bool,
    /// A threshold the run must meet (repeatable; k6's): `p99 < 10ms`, `p99.9 <= 50ms`,
    /// `max < 1s`, `mean < 5ms`, `rps >= 10k`, `errors < 1%`, `errors <= 0`, `status_5xx <
    /// 0.1%`. Each is listed with its measured value; any failure exits 99.
    #[arg(long = "threshold", value_name = "EXPR", value_parser = barrage_model::threshold::parse)]
    pub thresholds: Vec<barrage_model::threshold::Threshold>,
    /// Stop the run as soon as a threshold can no longer pass (an error count past its bound,
    /// a latency above a bound on `max`); the result of what ran is still reported.
    #[arg(long, requires = "thresholds")]
    pub abort_on_fail: bool,
    /// Scale-out: run shard I of N (1-based) of this load: its share of the connections, of the
    /// rate and of -n (remainders spread so the shares add up), its open-loop sends interleaved
    /// with the other shards' into one schedule. Merge the shards' JSON with `barrage merge`.
    #[arg(long, value_name = "I/N", value_parser = parse::parse_shard)]
    pub shard: Option<barrage_model::load::Shard>,
    /// Wait until this wall-clock time and start then (Unix seconds, fractions allowed, or RFC
    /// 3339), so that shards start together.
    #[arg(long, value_name = "TIME", value_parser = barrage_model::time::parse_instant)]
    pub start_at: Option<f64>,
    /// Write the result as a `barrage.load/1` JSON document to PATH (`-` for stdout; the human
    /// summary then goes to stderr).
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
    /// Also append the run (its figures, the whole JSON document with its histograms, the
    /// config, the machine and the git commit of the current directory) to an SQLite history
    /// database, created when missing; safe with several runs at once. Without DB: the
    /// default, $BARRAGE_HISTORY, else $XDG_DATA_HOME/barrage/history.db, else
    /// ~/.local/share/barrage/history.db. Read it with `barrage history`.
    #[arg(long, value_name = "DB", num_args = 0..=1)]
    pub history: Option<Option<PathBuf>>,
    /// Serve the figures so far for Prometheus at http://ADDR/metrics (counters by phase and
    /// status code, errors by class, a latency histogram, gauges of in-flight requests and
    /// connections; OpenMetrics when asked for). Port 0 picks one; the address is printed on
    /// stderr.
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<SocketAddr>,
    /// After the run, keep serving --metrics for this long (Ctrl-C ends it sooner), so that a
    /// scraper gets the final figures.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, requires = "metrics")]
    pub metrics_linger: Option<Duration>,
    /// No live view on a terminal: one progress line instead (a non-terminal gets neither).
    #[arg(short = 'q', long)]
    pub quiet: bool,
}

impl Args {
    /// The engine configuration these options describe.
    pub fn to_config(&self) -> anyhow::Result<Config> {
        let body = match (&self.body, &self.body_file) {
            (Some(b), _) => b.clone().into_bytes(),
            (None, Some(p)) => std::fs::read(p)
                .with_context(|| format!("cannot read --body-file {}", p.display()))?,
            (None, None) => Vec::new(),
        };
        let duration = match (self.duration, self.requests, &self.stages) {
            (None, None, None) => Some(Duration::from_secs(10)),
            (d, _, _) => d,
        };
        let targets_order = match self.targets_order.as_str() {
            "random" => barrage_model::load::Order::Random,
            _ => barrage_model::load::Order::RoundRobin,
        };
        // The protocol's options read once, their rules in the flags' words.
        let protocol = Protocol::from_options(ProtocolOptions {
            pipeline: self.pipeline,
            keepalive: !self.no_keepalive,
            http2: self.http2,
            streams: self.streams,
            h2_window: self.h2_window.unwrap_or(DEFAULT_H2_WINDOW),
            ws: self.ws,
            http3: self.http3,
            ws_max_message: self.ws_max_message,
            echo_check: self.no_echo_check.then_some(false),
        })
        .map_err(|e| anyhow::anyhow!(e.flags()))?;
        Ok(Config {
            url: self.url.clone().unwrap_or_default(),
            method: self.method.clone(),
            headers: self.headers.clone(),
            body,
            connections: self.connections,
            threads: self.threads.unwrap_or(0),
            duration,
            requests: self.requests,
            rate: self.rate,
            stages: self.stages.clone().map(|s| s.0).unwrap_or_default(),
            timeout: self.timeout.unwrap_or(Duration::from_secs(10)),
            warmup: self.warmup.unwrap_or_default(),
            expect_status: self.expect_status,
            expect_body: self.expect_body.clone().map(String::into_bytes),
            insecure: self.insecure,
            protocol,
            targets: self.targets.clone(),
            targets_format: self.targets_format.clone(),
            targets_order,
            seed: self.seed,
            body_lines: self.body_lines.clone(),
            ramp_up: self.ramp_up,
            shard: self.shard,
            start_at: self.start_at,
        })
    }
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    let cfg = args.to_config()?;
    // The load's rules first, in the flags' words; then the engine reads the files and the URL.
    barrage_model::load::check(&cfg).map_err(|e| anyhow::anyhow!(e.flags()))?;
    let valid = cfg.validate()?;
    crate::history::check_value(args.history.as_ref())?;
    // Opened before the load: a path that is no history fails now, not after the run.
    let mut history = crate::history::open(args.history.as_ref())?;
    let started = barrage_model::time::now_rfc3339();
    let to_stdout = args.json.as_deref() == Some("-");
    // Signals blocked before any thread starts (the endpoint's, the view's, the workers'), so
    // that only the watcher receives them.
    let signals = crate::signals::CtrlC::install()?;
    let figures = Arc::new(crate::figures::Figures::new());
    let endpoint = match args.metrics {
        Some(addr) => {
            let f = figures.clone();
            let e = crate::metrics::Endpoint::start(
                addr,
                Box::new(move |om| {
                    let mut e = crate::metrics::expo::Expo::new(om);
                    crate::metrics::load::write(&mut e, &f.lock());
                    e.finish()
                }),
            )?;
            eprintln!("{}", e.announce());
            Some(e)
        }
        None => None,
    };
    let progress = progress::Progress::new(args.quiet);
    let cancel = Cancel::new();
    let view = (!args.quiet && std::io::stderr().is_terminal())
        .then(|| live::LiveView::start(figures.clone(), live::Plan::of(&cfg)));
    let tee = crate::figures::Tee(vec![&*figures, &progress]);
    let abort = thresholds::AbortOnFail::new(&tee, &args.thresholds, cancel.clone());
    let sink: &dyn barrage_engine::Sink = if args.abort_on_fail { &abort } else { &tee };
    let result = {
        let _watch = signals.watch(cancel.clone());
        barrage_engine::run(&valid, sink, &cancel)
    };
    progress.clear();
    if let Some(v) = view {
        v.finish();
    }
    let mut result = result?;
    let aborted = abort.broke.lock().ok().and_then(|b| b.clone());
    result.doc.thresholds = args
        .thresholds
        .iter()
        .map(|t| barrage_model::threshold::evaluate(t, &result.doc))
        .collect();
    let mut summary = print::summary(&result);
    if !result.thresholds.is_empty() {
        summary.push_str(&thresholds::lines(&result.thresholds, aborted.as_deref()));
    }
    if to_stdout {
        eprint!("{summary}");
    } else {
        print!("{summary}");
    }
    if args.json.is_some() || history.is_some() {
        let doc = serde_json::to_string_pretty(&result).context("cannot encode the result")?;
        match &args.json {
            Some(_) if to_stdout => println!("{doc}"),
            Some(path) => std::fs::write(path, format!("{doc}\n"))
                .with_context(|| format!("cannot write {path}"))?,
            None => {}
        }
        std::io::stdout().flush().ok();
        // Last, after the results are out: a history that fails cannot lose them. A run
        // stopped by Ctrl-C is recorded too, as `cancelled`, with what it measured.
        if let Some(h) = &mut history {
            let run =
                barrage_history::NewRun::load(&result.doc, doc, crate::history::origin(started));
            crate::history::record(h, &run)?;
        }
    }
    std::io::stdout().flush().ok();
    if let (Some(_), Some(linger)) = (&endpoint, args.metrics_linger) {
        let stop = Cancel::new();
        let _watch = signals.watch(stop.clone());
        let end = std::time::Instant::now() + linger;
        while std::time::Instant::now() < end && !stop.is_cancelled() {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    drop(endpoint);
    drop(signals);
    let status = thresholds::exit_status(&result.thresholds);
    if status == ExitCode::SUCCESS && result.doc.requests == 0 {
        // Nothing answered (a dead or hostile server, or one that allows no stream): the run
        // carried out, but what it was for failed, which a script must see.
        eprintln!(
            "barrage: no valid response ({} requests written, {} errors)",
            result.doc.requests_written,
            result.doc.errors.total()
        );
        return Ok(ExitCode::from(EXIT_NOTHING_ANSWERED));
    }
    Ok(status)
}

/// The exit status of a run that got no valid response at all.
pub const EXIT_NOTHING_ANSWERED: u8 = 1;

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpListener;

    fn args(url: &str) -> Args {
        Args {
            url: Some(url.into()),
            connections: 2,
            pipeline: 1,
            streams: 1,
            method: "GET".into(),
            ..Args::default()
        }
    }

    #[test]
    fn options_become_a_config() {
        let c = args("http://h/").to_config().unwrap();
        assert_eq!(c.duration, Some(Duration::from_secs(10)));
        assert_eq!(c.timeout, Duration::from_secs(10));
        assert!(c.protocol.keepalive());
        let c = Args {
            requests: Some(5),
            no_keepalive: true,
            body: Some("x=1".into()),
            expect_body: Some("ok".into()),
            ..args("http://h/")
        }
        .to_config()
        .unwrap();
        assert_eq!((c.duration, c.requests), (None, Some(5)));
        assert!(!c.protocol.keepalive());
        assert_eq!(c.body, b"x=1");
        assert_eq!(c.expect_body.as_deref(), Some(&b"ok"[..]));
        let missing = Args {
            body_file: Some("/nonexistent/body".into()),
            ..args("http://h/")
        };
        let e = format!("{:#}", missing.to_config().unwrap_err());
        assert!(e.contains("--body-file /nonexistent/body"), "{e}");
    }

    #[test]
    fn bad_url_and_refused_target_are_one_line_errors() {
        let e = format!("{:#}", main(args("localhost:80")).unwrap_err());
        assert_eq!(
            e,
            "bad URL \"localhost:80\": missing scheme (http:// or https://)"
        );
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let e = format!(
            "{:#}",
            main(args(&format!("http://127.0.0.1:{port}/"))).unwrap_err()
        );
        assert!(e.starts_with("cannot connect to 127.0.0.1:"), "{e}");
        assert!(!e.contains('\n'));
    }

    #[test]
    fn a_run_writes_the_json_document() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        // A keep-alive server for a handful of requests, one thread per connection.
        let server = std::thread::spawn(move || {
            let mut handles = Vec::new();
            for _ in 0..3 {
                let Ok((mut s, _)) = listener.accept() else {
                    break;
                };
                handles.push(std::thread::spawn(move || {
                    let mut buf = [0u8; 4096];
                    while let Ok(n) = s.read(&mut buf) {
                        if n == 0 {
                            break;
                        }
                        let reqs = buf[..n].windows(4).filter(|w| w == b"\r\n\r\n").count();
                        for _ in 0..reqs {
                            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
                        }
                    }
                }));
            }
            for h in handles {
                let _ = h.join();
            }
        });
        let path = std::env::temp_dir().join(format!("barrage-load-{}.json", std::process::id()));
        let a = Args {
            requests: Some(50),
            threads: Some(1),
            json: Some(path.display().to_string()),
            expect_body: Some("ok".into()),
            ..args(&format!("http://{addr}/"))
        };
        assert_eq!(main(a).unwrap(), ExitCode::SUCCESS);
        server.join().unwrap();
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(doc["schema"], "barrage.load/2");
        assert_eq!(doc["requests"], 50);
        assert_eq!(doc["errors"]["total"], 0);
    }
}

//! `barrage load URL`: command-line options -> `barrage_engine::Config`, then the engine's
//! result -> a wrk-like summary, the compact line, and optionally the `barrage.load/1` JSON.
//! While it runs: the live view on a terminal (`live.rs`; `-q` keeps the one progress line),
//! and the `--metrics` endpoint, both reading the figures so far (`crate::figures`).

mod flags;
mod live;
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

pub use barrage_model::units::parse_duration;
pub use flags::Given;
pub use thresholds::{exit_status, EXIT_THRESHOLD};

/// The measured time of a load given neither a duration, a number of requests nor stages.
const DEFAULT_DURATION: Duration = Duration::from_secs(10);

/// `barrage load URL`'s help line: every protocol it speaks, named by the model's one list
/// (`Protocol::every`), so the words cannot drift from what the flags offer.
pub fn about() -> String {
    format!(
        "Drive {} load at a URL (or a targets file) and report throughput, latency and errors",
        barrage_model::load::Protocol::every_word()
    )
}

/// A load at a URL (closed loop like wrk and h2load, or open loop at a fixed rate like wrk2),
/// reported as throughput, latency (HDR), errors by class and status codes. The load's options
/// are declared once in the model (`barrage_model::load::OPTIONS`); the rest are the command
/// line's own.
#[derive(clap::Args, Default, Debug)]
pub struct Args {
    /// The load's options, as declared in the model (`barrage_model::load::OPTIONS`).
    #[command(flatten)]
    pub options: Given,
    /// Request body from a file.
    #[arg(long, value_name = "PATH", value_hint = clap::ValueHint::FilePath, conflicts_with_all = ["body", "targets", "body_lines"])]
    pub body_file: Option<PathBuf>,
    /// A threshold the run must meet (repeatable; k6's): `p99 < 10ms`, `p99.9 <= 50ms`,
    /// `max < 1s`, `mean < 5ms`, `rps >= 10k`, `errors < 1%`, `errors <= 0`, `status_5xx <
    /// 0.1%`. Each is listed with its measured value; any failure exits 99.
    #[arg(long = "threshold", value_name = "EXPR", value_parser = barrage_model::threshold::parse)]
    pub thresholds: Vec<barrage_model::threshold::Threshold>,
    /// A threshold the run cannot judge with confidence (marked `ok?` or `FAIL?`: its interval
    /// from the run's own data straddles the bound) follows its measured value, instead of
    /// exiting 3.
    #[arg(long, requires = "thresholds")]
    pub allow_inconclusive: bool,
    /// Stop the run as soon as a threshold can no longer pass (an error count past its bound,
    /// a latency above a bound on `max`); the result of what ran is still reported.
    #[arg(long, requires = "thresholds")]
    pub abort_on_fail: bool,
    /// Write the result as a `barrage.load/2` JSON document to PATH (`-` for stdout; the human
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
        let mut given = self.options.clone();
        if let Some(p) = &self.body_file {
            let body = std::fs::read(p)
                .with_context(|| format!("cannot read --body-file {}", p.display()))?;
            given.0.insert("body".into(), serde_json::json!(body));
        }
        // The command line's own default: a load that says not when to stop runs 10 s.
        if !["duration", "requests", "stages"]
            .iter()
            .any(|o| given.has(o))
        {
            given.0.insert(
                "duration".into(),
                barrage_model::units::format_duration(DEFAULT_DURATION).into(),
            );
        }
        given.config()
    }
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    let cfg = args.to_config()?;
    // The load's rules first, in the flags' words; then the engine reads the files and the URL.
    barrage_model::load::check(&cfg).map_err(|e| anyhow::anyhow!(e.flags()))?;
    let valid = match cfg.validate() {
        Ok(v) => v,
        // A script that stopped in its probe, before any load: what it printed is shown, and
        // its os.exit status is barrage's, as wrk's process would end.
        Err(barrage_engine::ConfigError::Script {
            message,
            printed,
            exit,
        }) => return Ok(script_stopped_early(&printed, &message, exit, false)),
        Err(e) => return Err(e.into()),
    };
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
    // One watcher for the run and the linger after it; the run's last phase reaches it before
    // the figures `/metrics` shows, so a signal sent on seeing the run over ends the linger.
    let watch = signals.watch(cancel.clone());
    let tee = crate::figures::Tee(vec![&*watch.interrupts, &*figures, &progress]);
    let abort = thresholds::AbortOnFail::new(&tee, &args.thresholds, cancel.clone());
    let sink: &dyn barrage_engine::Sink = if args.abort_on_fail { &abort } else { &tee };
    let result = barrage_engine::run(&valid, sink, &cancel);
    watch.interrupts.run_over();
    progress.clear();
    if let Some(v) = view {
        v.finish();
    }
    let mut result = match result {
        Ok(r) => r,
        Err(barrage_engine::EngineError::Script(f)) => {
            let printed = String::from_utf8_lossy(&f.printed);
            let cancelled = matches!(f.error, barrage_engine::ScriptError::Interrupted { .. });
            return Ok(script_stopped_early(
                &printed,
                &f.error.to_string(),
                f.error.exit_status(),
                cancelled,
            ));
        }
        Err(e) => return Err(e.into()),
    };
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
    // What the script printed (setup, its threads, done) follows the summary, as under wrk.
    if let Some(printed) = result.script.as_ref().map(|s| &s.printed) {
        summary.push_str(printed);
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
        let end = std::time::Instant::now() + linger;
        while std::time::Instant::now() < end && !watch.interrupts.after_ended() {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    drop(watch);
    drop(endpoint);
    drop(signals);
    if let Some(e) = result.script.as_ref().and_then(|s| s.error.as_ref()) {
        // The run ended early by the script: what ran is reported above.
        eprintln!("barrage: the script stopped the run: {e}");
    }
    if let Some((status, line)) = result.script.as_ref().and_then(|s| s.exit.as_ref()) {
        // os.exit(n): wrk's process ends with n there; this one ends with it once the report is
        // out, whatever the thresholds said.
        eprintln!("barrage: the script ended the run: {line}");
        return Ok(ExitCode::from(*status));
    }
    if result.script.as_ref().is_some_and(|s| s.error.is_some()) {
        return Ok(ExitCode::from(crate::exit::BAD_INPUT));
    }
    let status = thresholds::exit_status(&result.thresholds, args.allow_inconclusive);
    // Nothing answered says more than a threshold that could not be judged for it.
    let unjudged = status == ExitCode::from(crate::exit::INCONCLUSIVE);
    if (status == ExitCode::SUCCESS || unjudged) && result.doc.requests == 0 {
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

/// A script that stopped before any load (in its probe or the setup phase): what it printed
/// (stdout, as the script's output always goes), the line saying why, and the status:
/// `os.exit`'s, 130 when Ctrl-C stopped it, else bad input. No load ran: there is no summary
/// and no document to write.
fn script_stopped_early(printed: &str, why: &str, exit: Option<u8>, cancelled: bool) -> ExitCode {
    print!("{printed}");
    std::io::stdout().flush().ok();
    match (exit, cancelled) {
        (Some(status), _) => {
            eprintln!("barrage: the script ended before any load: {why}");
            ExitCode::from(status)
        }
        (None, true) => ExitCode::from(crate::exit::INTERRUPTED),
        (None, false) => {
            eprintln!("barrage: {why}");
            ExitCode::from(crate::exit::BAD_INPUT)
        }
    }
}

/// The exit status of a run that got no valid response at all.
pub const EXIT_NOTHING_ANSWERED: u8 = crate::exit::NO_VALID_RESPONSE;

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpListener;

    /// `barrage load ARGS` parsed.
    fn parse(a: &[&str]) -> Args {
        #[derive(clap::Parser)]
        struct Load {
            #[command(flatten)]
            args: Args,
        }
        <Load as clap::Parser>::try_parse_from(std::iter::once("load").chain(a.iter().copied()))
            .unwrap()
            .args
    }

    fn args(url: &str) -> Args {
        parse(&[url, "-c", "2"])
    }

    #[test]
    fn options_become_a_config() {
        let c = args("http://h/").to_config().unwrap();
        assert_eq!(c.duration, Some(Duration::from_secs(10)));
        assert_eq!(c.timeout, Duration::from_secs(10));
        assert!(c.protocol.keepalive());
        let c = parse(&[
            "http://h/",
            "-n",
            "5",
            "--no-keepalive",
            "--body",
            "x=1",
            "--expect-body",
            "ok",
        ])
        .to_config()
        .unwrap();
        assert_eq!((c.duration, c.requests), (None, Some(5)));
        assert!(!c.protocol.keepalive());
        assert_eq!(c.body, b"x=1");
        assert_eq!(c.expect_body.as_deref(), Some(&b"ok"[..]));
        let c = parse(&["http://h/", "--stages", "1s:5"])
            .to_config()
            .unwrap();
        assert_eq!(c.duration, None, "stages set the run's length");
        let missing = parse(&["http://h/", "--body-file", "/nonexistent/body"]);
        let e = format!("{:#}", missing.to_config().unwrap_err());
        assert!(e.contains("--body-file /nonexistent/body"), "{e}");
        let file = std::env::temp_dir().join(format!("barrage-body-{}", std::process::id()));
        std::fs::write(&file, [0xff, 0, b'a']).unwrap();
        let c = parse(&["ws://h/", "--ws", "--body-file", file.to_str().unwrap()]);
        let c = c.to_config().unwrap();
        std::fs::remove_file(&file).unwrap();
        assert_eq!(c.body, [0xff, 0, b'a'], "a body file's bytes as they are");
    }

    /// `--http1.0` (a flag whose long name is not its field's) becomes its protocol, and its
    /// conflicts are said in flags, in one line.
    #[test]
    fn http10_flag_becomes_its_protocol() {
        let c = parse(&["http://h/", "--http1.0", "--no-keepalive"])
            .to_config()
            .unwrap();
        assert_eq!(
            c.protocol,
            barrage_model::load::Protocol::Http10 { keepalive: false }
        );
        let e = parse(&["http://h/", "--http1.0", "--pipeline", "4"])
            .to_config()
            .unwrap_err();
        assert_eq!(format!("{e:#}"), "--pipeline does not go with --http1.0");
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
        let url = format!("http://{addr}/");
        let json = path.display().to_string();
        let a = parse(&[
            &url,
            "-c",
            "2",
            "-n",
            "50",
            "-t",
            "1",
            "--json",
            &json,
            "--expect-body",
            "ok",
        ]);
        assert_eq!(main(a).unwrap(), ExitCode::SUCCESS);
        server.join().unwrap();
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(doc["schema"], "barrage.load/2");
        assert_eq!(doc["requests"], 50);
        assert_eq!(doc["errors"]["total"], 0);
    }

    /// `--connect-to` sends the run to another address than the URL's, the URL's host still
    /// named in every request: a name that does not resolve reaches the local server.
    #[test]
    fn connect_to_reaches_another_address_with_the_urls_host() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || {
            let mut hosts = Vec::new();
            // The probe's connection, then the run's one.
            for _ in 0..2 {
                let Ok((mut s, _)) = listener.accept() else {
                    break;
                };
                let mut buf = [0u8; 4096];
                while let Ok(n) = s.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let text = String::from_utf8_lossy(&buf[..n]).to_string();
                    hosts.extend(
                        text.lines()
                            .filter(|l| l.starts_with("Host:"))
                            .map(String::from),
                    );
                    for _ in 0..text.matches("\r\n\r\n").count() {
                        let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
                    }
                }
            }
            hosts
        });
        let to = addr.to_string();
        let a = parse(&[
            "http://barrage.invalid:9/",
            "-c",
            "1",
            "-t",
            "1",
            "-n",
            "5",
            "--connect-to",
            &to,
        ]);
        assert_eq!(
            a.to_config().unwrap().connect_to.as_deref(),
            Some(to.as_str())
        );
        assert_eq!(main(a).unwrap(), ExitCode::SUCCESS);
        let hosts = server.join().unwrap();
        assert!(hosts.len() >= 5, "{hosts:?}");
        assert!(
            hosts.iter().all(|h| h == "Host: barrage.invalid:9"),
            "{hosts:?}"
        );
    }
}

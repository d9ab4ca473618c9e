//! wrk's own example scripts (crates/script/tests/wrk/, unchanged from wrk's repository) under
//! `barrage load -s`, against nginx, checked in its access log: what reached the server is what
//! wrk would send (counter.lua's paths and X-Counter per thread, post.lua's method, body and
//! content type, pipeline.lua's batches, auth.lua's token from a response, stop.lua's 100
//! responses, setup.lua's per-thread counts, report.lua's percentiles, delay.lua's waits); a
//! broken script stops before any load, one that fails mid-run ends it and says why.
//!
//! nginx logs `$request_body` only for a request it proxies, so the server under test passes
//! every request to a second `server` block of the same nginx, which also answers
//! /authenticate with an X-Token header.

use crate::common;

use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, ConfigError, NullSink, Protocol, RunResult};
use common::nginx::{free_port, log_lines, start_nginx_with, Dir, Nginx};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// wrk's example script `name`.
pub(crate) fn wrk_script(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../script/tests/wrk")
        .join(name)
        .display()
        .to_string()
}

/// nginx logging method, URI, X-Counter, X-Token, Content-Type and body of every request.
fn logging_nginx(log: &Path, listen: &str) -> Option<Nginx> {
    let back = free_port();
    let http = format!(
        "log_format s escape=json '$request_method $request_uri c=$http_x_counter \
         t=$http_x_token ct=$http_content_type [$request_body]';\n  \
         server {{ listen 127.0.0.1:{back}; access_log off; \
         location /authenticate {{ add_header X-Token secret42; return 200 \"in\"; }} \
         location / {{ return 200 \"ok\"; }} }}"
    );
    let server = format!(
        "access_log {} s;\n    location / {{ proxy_pass http://127.0.0.1:{back}; }}",
        log.display()
    );
    start_nginx_with(&http, listen, &server)
}

/// Lines counted by their text.
fn tally(lines: &[String]) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for l in lines {
        *m.entry(l.clone()).or_default() += 1;
    }
    m
}

struct Lab {
    _dir: Dir,
    log: PathBuf,
    ng: Nginx,
}

fn lab(name: &str) -> Option<Lab> {
    lab_on(name, "")
}

/// [`lab`] with nginx's `listen` completed by `listen` (`" http2"`: h2c).
fn lab_on(name: &str, listen: &str) -> Option<Lab> {
    let dir = Dir::new(&format!("script-{name}"));
    let log = dir.0.join("access.log");
    let ng = logging_nginx(&log, listen)?;
    Some(Lab { _dir: dir, log, ng })
}

impl Lab {
    /// `-s script` with `connections` on as many threads, `-n n` (or `-d` when n is None).
    fn config(&self, script: &str, connections: usize, n: Option<u64>) -> Config {
        Config {
            url: format!("http://127.0.0.1:{}/", self.ng.port),
            connections,
            threads: connections,
            requests: n,
            duration: n.is_none().then(|| Duration::from_secs(5)),
            script: Some(script.to_string()),
            ..Config::default()
        }
    }

    fn run(&self, c: &Config) -> RunResult {
        let r = run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap();
        assert_eq!(r.errors.total(), 0, "{:?} {:?}", r.errors, r.error_examples);
        r
    }
}

/// counter.lua: each thread counts from 0, so two threads of 50 requests send /0../49 and
/// /1../50 (the first thread's first request() call is wrk's check of the script, never sent:
/// under wrk too), each with its X-Counter; `-n 100` is exactly 100 requests.
#[test]
fn counter_paths_per_thread() {
    let Some(l) = lab("counter") else { return };
    let r = l.run(&l.config(&wrk_script("counter.lua"), 2, Some(100)));
    assert_eq!(r.requests, 100);
    let got = tally(&log_lines(&l.log, 100));
    let want: BTreeMap<String, usize> = (0..=50)
        .map(|i| {
            (
                format!("GET /{i} c={i} t= ct= []"),
                1 + usize::from(i % 50 != 0),
            )
        })
        .collect();
    assert_eq!(got, want);
}

/// post.lua: a static request (no request() hook), so it goes through the encoded-once path:
/// every request is its POST with its body and content type, over HTTP/1.1 pipelined too.
#[test]
fn post_is_a_static_request() {
    let Some(l) = lab("post") else { return };
    let mut c = l.config(&wrk_script("post.lua"), 2, Some(60));
    c.protocol = Protocol::Http1 {
        pipeline: 3,
        keepalive: true,
    };
    let r = l.run(&c);
    assert_eq!(r.requests, 60);
    let got = tally(&log_lines(&l.log, 60));
    let line = "POST / c= t= ct=application/x-www-form-urlencoded [foo=bar&baz=quux]";
    assert_eq!(got, BTreeMap::from([(line.to_string(), 60)]));
}

/// pipeline.lua: request() returns three requests at once; each goes out, in thirds.
#[test]
fn pipeline_batches_of_three() {
    let Some(l) = lab("pipeline") else { return };
    let r = l.run(&l.config(&wrk_script("pipeline.lua"), 1, Some(99)));
    assert_eq!(r.requests, 99);
    let got = tally(&log_lines(&l.log, 99));
    let want: BTreeMap<String, usize> = ["bar", "baz", "foo"]
        .iter()
        .map(|q| (format!("GET /?{q} c= t= ct= []"), 33))
        .collect();
    assert_eq!(got, want);
}

/// auth.lua: the first response's X-Token goes into every later request.
#[test]
fn auth_reads_a_response() {
    let Some(l) = lab("auth") else { return };
    let r = l.run(&l.config(&wrk_script("auth.lua"), 1, Some(20)));
    assert_eq!(r.requests, 20);
    let got = tally(&log_lines(&l.log, 20));
    let want = BTreeMap::from([
        ("GET /authenticate c= t= ct= []".to_string(), 1),
        ("GET /resource c= t=secret42 ct= []".to_string(), 19),
    ]);
    assert_eq!(got, want);
}

/// stop.lua: the thread stops at its 100th response, so nginx sees exactly 100 requests
/// (one connection, one request at a time), long before the 5 s run would end.
#[test]
fn stop_ends_the_thread() {
    let Some(l) = lab("stop") else { return };
    let r = l.run(&l.config(&wrk_script("stop.lua"), 1, None));
    assert_eq!(r.requests, 100);
    let lines = log_lines(&l.log, 100);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(log_lines(&l.log, 100).len(), 100, "nothing after the stop");
    assert_eq!(lines.len(), 100);
    assert_eq!(r.script.as_ref().and_then(|s| s.error.clone()), None);
}

/// setup.lua: setup numbers the threads, init prints them, done reads each thread's counts:
/// every request() call reached nginx and got its response.
#[test]
fn setup_and_done_see_each_thread() {
    let Some(l) = lab("setup") else { return };
    let r = l.run(&l.config(&wrk_script("setup.lua"), 2, Some(40)));
    assert_eq!(log_lines(&l.log, 40).len(), 40);
    let printed = r.script.expect("a script's output").printed;
    assert!(printed.contains("thread 1 created\n"), "{printed}");
    assert!(printed.contains("thread 2 created\n"), "{printed}");
    // Thread 1's request() ran once more than it sent: wrk's check of the script, as under wrk.
    assert!(
        printed.contains("thread 1 made 21 requests and got 20 responses\n"),
        "{printed}"
    );
    assert!(
        printed.contains("thread 2 made 20 requests and got 20 responses\n"),
        "{printed}"
    );
}

/// report.lua: done's latency percentiles are the run's (µs), in wrk's format.
#[test]
fn report_prints_the_runs_percentiles() {
    let Some(l) = lab("report") else { return };
    let r = l.run(&l.config(&wrk_script("report.lua"), 1, Some(50)));
    let printed = r.script.expect("a script's output").printed;
    let p50 = r.histogram.value_at_percentile(50.0);
    let p99 = r.histogram.value_at_percentile(99.999);
    assert!(
        printed.starts_with("------------------------------\n"),
        "{printed}"
    );
    assert!(printed.contains(&format!("\n50%,{p50}\n")), "{printed}");
    assert!(printed.contains(&format!("\n99.999%,{p99}\n")), "{printed}");
}

/// delay.lua: 10-50 ms before each request, so 20 requests on one connection take at least
/// 19 waits of 10 ms (a bound the waits guarantee, whatever the machine's speed).
#[test]
fn delay_waits_before_each_request() {
    let Some(l) = lab("delay") else { return };
    let r = l.run(&l.config(&wrk_script("delay.lua"), 1, Some(20)));
    assert_eq!(r.requests, 20);
    assert_eq!(log_lines(&l.log, 20).len(), 20);
    assert!(
        r.duration() >= Duration::from_millis(190),
        "{:?}",
        r.duration()
    );
}

/// Over HTTP/2 (h2c to nginx) the hooks work as over HTTP/1.1: counter.lua's paths and
/// X-Counter per thread, post.lua's body, pipeline.lua's batches of three as three concurrent
/// streams, auth.lua's token read from a response's fields, delay.lua's waits.
#[test]
fn request_hooks_over_http2() {
    // wrk's `script` over h2c with `connections` on as many threads, `streams` each, `-n n`:
    // the run and nginx's log, counted by line.
    let h2 = |script: &str, connections, streams, n| {
        let l = lab_on(&format!("h2-{script}"), " http2")?;
        let mut c = l.config(&wrk_script(script), connections, Some(n));
        c.protocol = Protocol::Http2 {
            streams,
            window: barrage_model::load::DEFAULT_H2_WINDOW,
        };
        let r = l.run(&c);
        assert_eq!(r.requests, n, "{script}");
        assert_eq!(r.doc.protocol.as_ref().map(|p| p.key()), Some("http2"));
        Some((r, tally(&log_lines(&l.log, n as usize))))
    };
    let Some((_, got)) = h2("counter.lua", 2, 1, 100) else {
        return;
    };
    let want: BTreeMap<String, usize> = (0..=50)
        .map(|i| {
            (
                format!("GET /{i} c={i} t= ct= []"),
                1 + usize::from(i % 50 != 0),
            )
        })
        .collect();
    assert_eq!(got, want);
    let (_, got) = h2("post.lua", 1, 4, 20).unwrap();
    let line = "POST / c= t= ct=application/x-www-form-urlencoded [foo=bar&baz=quux]";
    assert_eq!(got, BTreeMap::from([(line.to_string(), 20)]));
    let (_, got) = h2("pipeline.lua", 1, 3, 99).unwrap();
    let want: BTreeMap<String, usize> = ["bar", "baz", "foo"]
        .iter()
        .map(|q| (format!("GET /?{q} c= t= ct= []"), 33))
        .collect();
    assert_eq!(got, want);
    let (_, got) = h2("auth.lua", 1, 1, 20).unwrap();
    let want = BTreeMap::from([
        ("GET /authenticate c= t= ct= []".to_string(), 1),
        ("GET /resource c= t=secret42 ct= []".to_string(), 19),
    ]);
    assert_eq!(got, want);
    let (r, _) = h2("delay.lua", 1, 1, 20).unwrap();
    assert!(
        r.duration() >= Duration::from_millis(190),
        "{:?}",
        r.duration()
    );
}

/// A script that does not compile stops at validation, in one line naming the file and line;
/// one whose request() fails mid-run ends the run with what ran, and says why.
#[test]
fn broken_scripts_say_where() {
    let Some(l) = lab("broken") else { return };
    let dir = Dir::new("script-broken-files");
    let syntax = dir.file("syntax.lua", "request = function()\n  return (\nend\n");
    match l.config(&syntax, 1, Some(5)).validate() {
        Err(ConfigError::Script { message: e, .. }) => {
            assert!(e.contains("syntax.lua:3:"), "{e}");
            assert!(!e.contains('\n'), "one line: {e}");
        }
        other => panic!("{other:?}"),
    }
    let late = dir.file(
        "late.lua",
        "n = 0\nrequest = function()\n  n = n + 1\n  if n > 10 then error(\"enough\") end\n  \
         return wrk.format(nil, \"/x\")\nend\n",
    );
    // The probe's call was in a state of its own; the one worker's first call is wrk's check
    // (never sent): 9 requests, then the 11th call fails.
    let r = run(
        &l.config(&late, 1, None).validate().unwrap(),
        &NullSink,
        &Cancel::new(),
    )
    .unwrap();
    assert_eq!(r.requests, 9);
    let e = r.script.and_then(|s| s.error).expect("the hook's error");
    assert!(
        e.contains("late.lua:4:") && e.contains("enough") && e.contains("request()"),
        "{e}"
    );
    // Over HTTP/2 a request() batch larger than the streams asked is refused before the run.
    let mut c = l.config(&wrk_script("pipeline.lua"), 1, Some(6));
    c.protocol = Protocol::Http2 {
        streams: 2,
        window: barrage_model::load::DEFAULT_H2_WINDOW,
    };
    match c.validate() {
        Err(ConfigError::Script { message: e, .. }) => assert!(e.contains("--streams 3"), "{e}"),
        other => panic!("{other:?}"),
    }
}

/// The same scripts under wrk itself (Debian's wrk; scripts/test installs it), against the same
/// nginx: what wrk sends is what barrage sends. wrk has no request count, so it runs one
/// connection for 1 s and barrage then sends as many requests as nginx logged from wrk:
/// counter.lua's /0../k-1 (each once, with its X-Counter), post.lua's one line, auth.lua's one
/// /authenticate and then its token, each the same multiset of log lines; pipeline.lua's thirds
/// (wrk's last batch may be cut by its end).
#[test]
fn wrk_sends_what_barrage_sends() {
    let Some(wrk) = barrage_testkit::tool("wrk", &[], "apt-get install wrk") else {
        return;
    };
    for name in ["counter.lua", "post.lua", "auth.lua", "pipeline.lua"] {
        // Each tool against an nginx (and a log) of its own.
        let (Some(w), Some(b)) = (
            lab(&format!("wrk-{}", name.trim_end_matches(".lua"))),
            lab(&format!("barrage-{}", name.trim_end_matches(".lua"))),
        ) else {
            return;
        };
        let url = format!("http://127.0.0.1:{}/", w.ng.port);
        let out = std::process::Command::new(&wrk)
            .args(["-t1", "-c1", "-d1s", "-s", &wrk_script(name), &url])
            .output()
            .expect("wrk runs");
        assert!(out.status.success(), "{name}: wrk failed: {out:?}");
        // nginx writes a line after each response: wait until the count stops moving.
        let mut lines = log_lines(&w.log, 1);
        loop {
            std::thread::sleep(Duration::from_millis(100));
            let again = log_lines(&w.log, lines.len());
            if again.len() == lines.len() {
                break;
            }
            lines = again;
        }
        let by_wrk = tally(&lines);
        let k = lines.len();
        assert!(k >= 3, "{name}: wrk sent {k}");
        let r = b.run(&b.config(&wrk_script(name), 1, Some(k as u64)));
        assert_eq!(r.requests, k as u64, "{name}");
        let by_barrage = tally(&log_lines(&b.log, k));
        if name == "pipeline.lua" {
            let thirds: Vec<usize> = by_wrk.values().copied().collect();
            assert_eq!(by_wrk.len(), 3, "{name}: {by_wrk:?}");
            assert!(thirds.iter().max().unwrap() - thirds.iter().min().unwrap() <= 1);
            assert_eq!(
                by_barrage.keys().collect::<Vec<_>>(),
                by_wrk.keys().collect::<Vec<_>>()
            );
        } else {
            let only = |a: &BTreeMap<String, usize>, b: &BTreeMap<String, usize>| {
                a.iter()
                    .filter(|(k, v)| b.get(*k) != Some(v))
                    .take(5)
                    .map(|(k, v)| format!("{k} x{v}"))
                    .collect::<Vec<_>>()
            };
            assert!(
                by_barrage == by_wrk,
                "{name}: {k} lines; barrage's not wrk's: {:?}; wrk's not barrage's: {:?}",
                only(&by_barrage, &by_wrk),
                only(&by_wrk, &by_barrage)
            );
        }
    }
}

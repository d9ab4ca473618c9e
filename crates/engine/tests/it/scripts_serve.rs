//! `barrage load -s` against `barrage serve` in process: over HTTP/3, WebSocket and FastCGI
//! (nginx here serves none of them), wrk's counter.lua sends the paths it sends over HTTP/1.1 (the server's access
//! log, one `METHOD TARGET STATUS` line per response, counted), and a script of our own whose
//! `request()` writes a body per request and whose `response()` reads each whole response
//! (its status, a field, its body) proves both ways: the server echoes each body (HTTP/3's
//! `/echo`, WebSocket's `/ws/echo`), the run checks each echo against its own message, and
//! `done()` sums what every thread's `response()` saw. On every HTTP protocol, a response longer
//! than what a script may keep reaches `response()` cut at the bound, and the run counts it
//! whole.

use crate::common::nginx::Dir;
use crate::scripts::wrk_script;
use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol, RunResult};
use barrage_server::{start_with_log, ServerConfig, ServerHandle, Tls};
use barrage_testkit::AccessLog;
use std::collections::BTreeMap;
use std::time::Duration;

/// Log lines counted by their text.
fn tally(lines: Vec<String>) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for l in lines {
        *m.entry(l).or_default() += 1;
    }
    m
}

/// `barrage serve` with its access log; over TLS with HTTP/3 when `h3`.
fn serve(h3: bool) -> (ServerHandle, AccessLog) {
    let log = AccessLog::default();
    let cfg = ServerConfig {
        threads: 1,
        log: true,
        tls: h3.then_some(Tls::SelfSigned),
        http3: h3,
        ..ServerConfig::default()
    };
    (start_with_log(cfg, Box::new(log.clone())).unwrap(), log)
}

/// A script whose request() sends `msg N` (N counting per thread, from 1) as the body of a POST
/// to `/echo`, and whose response() counts the responses that are 200 with that body and a
/// content-length (found in any case) that matches it, and how many of them came in order;
/// done() prints the sums over the threads.
const ECHO: &str = r#"
local threads = {}
function setup(thread) table.insert(threads, thread) end
n = 0
function request()
  n = n + 1
  return wrk.format("POST", "/echo", { ["X-N"] = tostring(n) }, "msg " .. n)
end
got, inorder, last = 0, 0, nil
function response(status, headers, body)
  local k = tonumber(body:match("^msg (%d+)$"))
  local len = headers["Content-Length"]
  if status == 200 and k and (len == nil or tonumber(len) == #body) then
    got = got + 1
    if last == nil or k == last + 1 then inorder = inorder + 1 end
    last = k
  end
end
function done(summary, latency, requests)
  local g, o = 0, 0
  for _, t in ipairs(threads) do g = g + t:get("got"); o = o + t:get("inorder") end
  io.write(string.format("got=%d inorder=%d requests=%d\n", g, o, summary.requests))
end
"#;

fn load(c: &Config) -> RunResult {
    let r = run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap();
    assert_eq!(r.errors.total(), 0, "{:?} {:?}", r.errors, r.error_examples);
    r
}

fn h3_config(s: &ServerHandle, path: &str, script: String, streams: usize, n: u64) -> Config {
    Config {
        url: format!("https://127.0.0.1:{}{path}", s.local_addr().port()),
        insecure: true,
        connections: 2,
        threads: 2,
        protocol: Protocol::Http3 { streams },
        requests: Some(n),
        timeout: Duration::from_secs(10),
        script: Some(script),
        ..Config::default()
    }
}

/// counter.lua over HTTP/3: each thread counts from 0 (its first call wrk's check, never sent),
/// so 2 threads of 50 send /0../49 and /1../50; a script's own bodies reach `/echo` and come back
/// whole to response(), in order on one stream per connection.
#[test]
fn request_and_response_hooks_over_http3() {
    let (s, log) = serve(true);
    let r = load(&h3_config(&s, "/", wrk_script("counter.lua"), 1, 100));
    assert_eq!(r.requests, 100);
    assert_eq!(r.doc.protocol.as_ref().map(|p| p.key()), Some("http3"));
    let want: BTreeMap<String, usize> = (0..=50)
        // barrage serve has no /N: each is a 404, logged with its path.
        .map(|i| (format!("GET /{i} 404"), 1 + usize::from(i % 50 != 0)))
        .collect();
    assert_eq!(tally(log.take_n(100)), want);

    let dir = Dir::new("script-h3-echo");
    let echo = dir.file("echo.lua", ECHO);
    let r = load(&h3_config(&s, "/", echo.clone(), 1, 60));
    let printed = r.script.expect("a script's output").printed;
    assert_eq!(printed, "got=60 inorder=60 requests=60\n");
    // Several streams at once: every response still read whole (order is the server's).
    let r = load(&h3_config(&s, "/", echo, 4, 60));
    let printed = r.script.expect("a script's output").printed;
    assert!(printed.starts_with("got=60 inorder="), "{printed}");
}

/// counter.lua and the echo script over FastCGI (`--fastcgi`): the paths counter.lua writes
/// reach the server, each as its own request, and each body comes back whole to response(),
/// in order (one request at a time on a connection).
#[test]
fn request_and_response_hooks_over_fastcgi() {
    let (s, log) = serve(false);
    let config = |script: String, n: u64| Config {
        url: format!("http://{}/", s.local_addr()),
        connections: 2,
        threads: 2,
        protocol: Protocol::Fastcgi { keepalive: true },
        requests: Some(n),
        timeout: Duration::from_secs(10),
        script: Some(script),
        ..Config::default()
    };
    let r = load(&config(wrk_script("counter.lua"), 100));
    assert_eq!(r.requests, 100);
    let want: BTreeMap<String, usize> = (0..=50)
        .map(|i| (format!("GET /{i} 404"), 1 + usize::from(i % 50 != 0)))
        .collect();
    assert_eq!(tally(log.take_n(100)), want);
    let dir = Dir::new("script-fastcgi-echo");
    let r = load(&config(dir.file("echo.lua", ECHO), 60));
    let printed = r.script.expect("a script's output").printed;
    assert_eq!(printed, "got=60 inorder=60 requests=60\n");
    assert_eq!(
        s.stats().responses,
        vec![("fastcgi", 200, 60), ("fastcgi", 404, 100)]
    );
}

/// A response() that records the longest body it was given; done() prints the longest over the
/// threads. No request(): the run's own request (the URL's) goes out.
const LONGEST: &str = r#"
local threads = {}
function setup(thread) table.insert(threads, thread) end
longest = 0
function response(status, headers, body)
  if status == 200 and #body > longest then longest = #body end
end
function done(summary, latency, requests)
  local m = 0
  for _, t in ipairs(threads) do m = math.max(m, t:get("longest")) end
  io.write("longest=" .. m .. "\n")
end
"#;

/// A body of 20 MiB, past the 16 MiB a script's response() is given: over HTTP/1.1, HTTP/2 (h2c)
/// and HTTP/3 the run reads and counts each response whole and response() gets its first 16 MiB
/// (`wire::kept::MAX_KEPT_BODY`), so a server's answer costs a script bounded memory.
#[test]
fn a_long_body_reaches_response_cut_at_the_bound() {
    let dir = Dir::new("script-longest");
    let script = dir.file("longest.lua", LONGEST);
    let want = format!("longest={}\n", barrage_wire::kept::MAX_KEPT_BODY);
    let path = format!("/bytes/{}", 20 << 20);
    let (plain, _) = serve(false);
    let (tls, _) = serve(true);
    let base = |url: String, protocol| Config {
        url,
        connections: 1,
        threads: 1,
        protocol,
        insecure: true,
        requests: Some(3),
        timeout: Duration::from_secs(20),
        script: Some(script.clone()),
        ..Config::default()
    };
    let runs = [
        (
            "HTTP/1.1",
            base(
                format!("http://{}{path}", plain.local_addr()),
                Protocol::Http1 {
                    pipeline: 1,
                    keepalive: true,
                },
            ),
        ),
        (
            "HTTP/2",
            base(
                format!("http://{}{path}", plain.local_addr()),
                Protocol::Http2 {
                    streams: 1,
                    window: barrage_model::load::DEFAULT_H2_WINDOW,
                },
            ),
        ),
        (
            "HTTP/3",
            base(
                format!("https://127.0.0.1:{}{path}", tls.local_addr().port()),
                Protocol::Http3 { streams: 1 },
            ),
        ),
    ];
    for (name, c) in runs {
        let r = load(&c);
        assert_eq!(r.requests, 3, "{name}");
        assert_eq!(r.status["200"], 3, "{name}");
        let printed = r.script.expect("a script's output").printed;
        assert_eq!(printed, want, "{name}");
    }
}

/// Over WebSocket each request()'s body is one message: the run checks each echo against the
/// message it answers (a wrong one would be an error), response() gets each reply whole, and
/// counter.lua's requests, which have no body, go as empty messages on the one upgrade.
#[test]
fn request_and_response_hooks_over_websocket() {
    let (s, _) = serve(false);
    let dir = Dir::new("script-ws-echo");
    let echo = dir.file("echo.lua", ECHO);
    let ws = |script: String, pipeline, n| Config {
        url: format!("ws://{}/ws/echo", s.local_addr()),
        connections: 2,
        threads: 2,
        protocol: Protocol::Ws {
            pipeline,
            max_message: 1 << 20,
            echo: true,
        },
        requests: Some(n),
        timeout: Duration::from_secs(10),
        script: Some(script),
        ..Config::default()
    };
    let r = load(&ws(echo.clone(), 1, 60));
    assert_eq!(r.requests, 60);
    let printed = r.script.expect("a script's output").printed;
    assert_eq!(printed, "got=60 inorder=60 requests=60\n");
    // Pipelined: replies still pair with their messages in order.
    let r = load(&ws(echo, 8, 200));
    let printed = r.script.expect("a script's output").printed;
    assert_eq!(printed, "got=200 inorder=200 requests=200\n");
    // pipeline.lua's batch of three goes out whole, on a pipeline raised to it.
    let r = load(&ws(wrk_script("pipeline.lua"), 1, 99));
    assert_eq!(r.requests, 99);
}

/// The open loop and shards, with a script over WebSocket: at a rate and in stages, each slot's
/// request() is one message, echoed and read whole by response(); a shard's setup() sees the shard's own
/// threads (setup.lua names each thread it creates), and its `-n` share is exact.
#[test]
fn open_loop_and_a_shard_with_a_script() {
    let (s, _) = serve(false);
    let dir = Dir::new("script-ws-modes");
    let echo = dir.file("echo.lua", ECHO);
    let ws = |script: String| Config {
        url: format!("ws://{}/ws/echo", s.local_addr()),
        connections: 2,
        threads: 2,
        protocol: Protocol::Ws {
            pipeline: 1,
            max_message: 1 << 20,
            echo: true,
        },
        requests: Some(40),
        timeout: Duration::from_secs(10),
        script: Some(script),
        ..Config::default()
    };
    let r = load(&Config {
        rate: Some(200.0),
        ..ws(echo.clone())
    });
    assert_eq!(r.requests, 40);
    let printed = r.script.expect("a script's output").printed;
    assert!(printed.starts_with("got=40 inorder="), "{printed}");
    // Stages: the schedule's slots, each one request() and its reply read whole.
    let r = load(&Config {
        requests: None,
        stages: vec![barrage_model::load::Stage {
            duration: Duration::from_millis(500),
            target: 100.0,
        }],
        ..ws(echo.clone())
    });
    let n = r.requests;
    assert!(n > 0);
    let printed = r.script.expect("a script's output").printed;
    assert!(
        printed.starts_with(&format!("got={n} inorder=")),
        "{n}: {printed}"
    );

    // Shard 2 of 2 of 6 connections: 3 connections on 3 threads here, so three thread setups.
    let r = load(&Config {
        connections: 6,
        threads: 6,
        shard: Some(barrage_model::load::Shard { index: 2, count: 2 }),
        ..ws(wrk_script("setup.lua"))
    });
    assert_eq!(r.requests, 20, "the shard's half of -n 40");
    let printed = r.script.expect("a script's output").printed;
    for i in 1..=3 {
        assert!(
            printed.contains(&format!("thread {i} created\n")),
            "{printed}"
        );
    }
    assert!(!printed.contains("thread 4 created"), "{printed}");
}

/// A response() that counts each body length it saw; done() prints them in order of length.
const LENGTHS: &str = r#"
local threads = {}
function setup(thread) table.insert(threads, thread) end
seen = {}
function response(status, headers, body)
  seen[#body] = (seen[#body] or 0) + 1
end
function done(summary, latency, requests)
  local all = {}
  for _, t in ipairs(threads) do
    for k, v in pairs(t:get("seen")) do all[k] = (all[k] or 0) + v end
  end
  local keys = {}
  for k in pairs(all) do table.insert(keys, k) end
  table.sort(keys)
  for _, k in ipairs(keys) do io.write(k .. "=" .. all[k] .. "\n") end
end
"#;

/// A targets file with a script that writes no request: the targets go out as listed (each its
/// share) and response() reads each one's response; a script that writes requests of its own
/// (request(), or wrk.path set in init) is refused with the targets, in one line.
#[test]
fn targets_with_a_script_that_reads_responses() {
    let (s, log) = serve(false);
    let dir = Dir::new("script-targets");
    let targets = dir.file(
        "targets.txt",
        "GET /bytes/10\n\nGET /bytes/20\n\nGET /bytes/30\n",
    );
    let lengths = dir.file("lengths.lua", LENGTHS);
    let base = |script: String| Config {
        url: format!("http://{}/", s.local_addr()),
        connections: 2,
        threads: 2,
        requests: Some(60),
        targets: Some(targets.clone()),
        script: Some(script),
        ..Config::default()
    };
    let r = load(&base(lengths));
    assert_eq!(r.requests, 60);
    let printed = r.script.expect("a script's output").printed;
    assert_eq!(printed, "10=20\n20=20\n30=20\n");
    let want: BTreeMap<String, usize> = [10, 20, 30]
        .iter()
        .map(|n| (format!("GET /bytes/{n} 200"), 20))
        .collect();
    assert_eq!(tally(log.take_n(60)), want);

    let own = dir.file("own.lua", "init = function(args) wrk.path = \"/x\" end\n");
    for script in [wrk_script("counter.lua"), own] {
        match base(script).validate() {
            Err(barrage_engine::ConfigError::Script { message: e, .. }) => {
                assert!(e.contains("--targets") && e.contains("use one"), "{e}");
                assert!(!e.contains('\n'), "{e}");
            }
            other => panic!("{other:?}"),
        }
    }
}

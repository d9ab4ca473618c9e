//! wrk scripts of the kinds people keep that failed (issue 57), each under `barrage load -s` (the
//! binary: its exit status, stdout, stderr and `--json` document) and, where wrk is the
//! reference, under Debian's wrk (scripts/test installs it and lua-cjson), each against a
//! `barrage serve` of its own in this process whose access log counts every response:
//! `init(args)` with the URL at `args[0]` and `wrk.thread.addr` set there; `require "cjson"`
//! (a C module) and `package.path`/`package.cpath` as wrk's LuaJIT has them; `done`'s
//! histogram dumps (`#latency`, `latency(i)`, `latency[i]`); `os.exit(n)` in init, response
//! and done (the status, and nothing of the report lost); a hook that prints and fails; and an
//! `init` that never returns, stopped at its bound or by the first Ctrl-C.
//!
//! wrk has no request count: it runs one connection for 1 s and barrage then sends as many
//! requests as the log counted from wrk (or wrk said it read: the server may have answered one
//! more, in flight at wrk's stop). The scripts that would run flat out wait 2 ms in delay()
//! between requests, so each tool sends hundreds rather than tens of thousands. Nothing here
//! asserts a time: a process that does not end by itself within five minutes fails the test
//! (and is killed).

use barrage_server::{start_with_log, ServerConfig, ServerHandle};
use barrage_testkit::AccessLog;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A `barrage serve` in this process and its access log (`METHOD TARGET STATUS` a line).
struct Serve {
    handle: ServerHandle,
    log: AccessLog,
}

fn serve() -> Serve {
    let log = AccessLog::default();
    let cfg = ServerConfig {
        threads: 1,
        log: true,
        ..ServerConfig::default()
    };
    let handle = start_with_log(cfg, Box::new(log.clone())).unwrap();
    Serve { handle, log }
}

impl Serve {
    fn port(&self) -> u16 {
        self.handle.local_addr().port()
    }
    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port())
    }
    /// Every line logged until the count stops moving (the server writes a line once a
    /// response is out, which may be after the client has it), counted by text.
    fn settle(&self) -> BTreeMap<String, usize> {
        self.settle_from(1)
    }
    /// [`Serve::settle`] once `n` lines are there (a slow machine's server may write them
    /// late: this waits for them, up to 10 s, before it watches for more).
    fn settle_from(&self, n: usize) -> BTreeMap<String, usize> {
        let mut lines = self.log.take_n(n);
        loop {
            std::thread::sleep(Duration::from_millis(300));
            let more = self.log.take_n(0);
            if more.is_empty() {
                break;
            }
            lines.extend(more);
        }
        let mut m = BTreeMap::new();
        for l in lines {
            *m.entry(l).or_default() += 1;
        }
        m
    }
    /// What was logged so far, at once.
    fn now(&self) -> Vec<String> {
        self.log.take_n(0)
    }
}

/// A directory of the test's own, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("barrage-wrk-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }
    fn file(&self, name: &str, text: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `cmd` to its end, which must come by itself within five minutes (else it is killed
/// and the test fails): a bound for a machine starved of CPU, never a timing.
fn ends(mut cmd: Command) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let o = std::thread::spawn(move || {
        let mut v = Vec::new();
        out.read_to_end(&mut v).map(|_| v)
    });
    let e = std::thread::spawn(move || {
        let mut v = Vec::new();
        err.read_to_end(&mut v).map(|_| v)
    });
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut late = false;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            late = true;
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = Output {
        status,
        stdout: o.join().unwrap().unwrap(),
        stderr: e.join().unwrap().unwrap(),
    };
    assert!(
        !late,
        "{cmd:?} did not end by itself within five minutes: {out:?}"
    );
    out
}

fn barrage(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_barrage"));
    c.arg("load").args(args);
    c
}

/// Debian's wrk, or None (skipped, failing under CI) without it.
fn wrk() -> Option<PathBuf> {
    barrage_testkit::tool("wrk", &[], "apt-get install wrk")
}

/// `wrk -t1 -c1 -d1s -s SCRIPT URL [-- ARGS]`.
fn wrk_run(wrk: &Path, threads: usize, script: &str, url: &str, args: &[&str]) -> Output {
    let mut c = Command::new(wrk);
    let t = threads.to_string();
    c.args(["-t", &t, "-c", &t, "-d1s", "-s", script, url]);
    if !args.is_empty() {
        c.arg("--").args(args);
    }
    ends(c)
}

/// Debian's lua-cjson is installed (else skipped, failing under CI).
fn cjson() -> bool {
    let found = barrage_script_cpath()
        .split(';')
        .map(|p| p.replace('?', "cjson"))
        .any(|p| p.starts_with("/usr/lib/") && Path::new(&p).is_file());
    if !found {
        barrage_testkit::missing(
            "no lua-cjson (apt-get install lua-cjson; scripts/test installs it)",
        );
    }
    found
}

/// Where Debian's wrk looks for C modules (what barrage's scripts get too).
fn barrage_script_cpath() -> String {
    format!(
        "./?.so;/usr/local/lib/lua/5.1/?.so;/usr/lib/{}-linux-gnu/lua/5.1/?.so;\
         /usr/local/lib/lua/5.1/loadall.so",
        std::env::consts::ARCH
    )
}

/// The number written right after `prefix` in `text` (its first occurrence).
fn number_after(text: &str, prefix: &str) -> usize {
    let at = text
        .find(prefix)
        .unwrap_or_else(|| panic!("no {prefix:?} in {text}"))
        + prefix.len();
    let digits: String = text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number after {prefix:?} in {text}"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).expect("the --json document")).unwrap()
}

/// `init(args)`: args[0] is the URL as given (its path names the requests, `#args` their
/// count), and `wrk.thread.addr` set there to what `wrk.lookup` gives points the thread at a
/// second server: under wrk and barrage (2 threads) every request reaches the second server,
/// none the first.
#[test]
fn init_reads_the_url_and_moves_its_thread() {
    let dir = Dir::new("addr");
    let script = dir.file(
        "addr.lua",
        "function init(args)\n  \
           wrk.path = args[0]:match(\"^http://[^/]+(/.*)$\") .. \"/\" .. #args\n  \
           wrk.thread.addr = wrk.lookup(\"127.0.0.1\", args[1])[1]\n\
         end\n\
         function delay() return 2 end\n",
    );
    let Some(wrk) = wrk() else { return };
    let (a, b) = (serve(), serve());
    let port = b.port().to_string();
    let out = wrk_run(&wrk, 1, &script, &a.url("/seen"), &[&port]);
    assert!(out.status.success(), "{out:?}");
    let by_wrk = b.settle();
    let k = by_wrk.get("GET /seen/1 404").copied().unwrap_or(0);
    assert!(k >= 3, "wrk sent {by_wrk:?}");
    assert_eq!(by_wrk.len(), 1, "{by_wrk:?}");
    assert_eq!(
        a.now(),
        Vec::<String>::new(),
        "nothing reached the URL's server"
    );

    let (a, b) = (serve(), serve());
    let port = b.port().to_string();
    let n = k.to_string();
    let url = a.url("/seen");
    let out = ends(barrage(&[
        "-c", "2", "-t", "2", "-n", &n, "-q", "-s", &script, &url, "--", &port,
    ]));
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        b.settle_from(k),
        BTreeMap::from([("GET /seen/1 404".to_string(), k)])
    );
    assert_eq!(a.now(), Vec::<String>::new());
}

/// `wrk.thread.addr` set in a later hook (wrk2's multi-server scripts do it in response()):
/// the connections the thread opens afterwards go there. Each response closes its connection
/// (`Connection: close`), so under wrk and barrage the first request reaches the URL's server
/// and every later one the second.
#[test]
fn a_later_hook_moves_the_next_connections() {
    let dir = Dir::new("moved");
    let script = dir.file(
        "moved.lua",
        "wrk.headers[\"Connection\"] = \"close\"\n\
         function init(args) port = args[1] end\n\
         function delay() return 2 end\n\
         moved = false\n\
         function response()\n  \
           if not moved then\n    \
             moved = true\n    \
             wrk.thread.addr = wrk.lookup(\"127.0.0.1\", port)[1]\n  \
           end\n\
         end\n",
    );
    let Some(wrk) = wrk() else { return };
    let (a, b) = (serve(), serve());
    let port = b.port().to_string();
    let out = wrk_run(&wrk, 1, &script, &a.url("/"), &[&port]);
    assert!(out.status.success(), "{out:?}");
    let first = BTreeMap::from([("GET / 200".to_string(), 1)]);
    assert_eq!(a.settle(), first);
    let k = b.settle()["GET / 200"];
    assert!(k >= 3, "{k}");

    let (a, b) = (serve(), serve());
    let port = b.port().to_string();
    let n = (k + 1).to_string();
    let out = ends(barrage(&[
        "-c",
        "1",
        "-n",
        &n,
        "-q",
        "-s",
        &script,
        &a.url("/"),
        "--",
        &port,
    ]));
    assert!(out.status.success(), "{out:?}");
    assert_eq!(a.settle(), first);
    assert_eq!(
        b.settle_from(k),
        BTreeMap::from([("GET / 200".to_string(), k)])
    );
}

/// lua-cjson, a C module, from where Debian's wrk finds it: a script that reads its requests
/// from a JSON file (the common multi-request-json.lua's way) sends the same requests under
/// wrk and barrage, and prints its count at its top level in each Lua state (wrk's main state
/// and its thread: twice); one that encodes its body (wrk2's post_json.lua's way) and decodes
/// every echo in response() counts each of them.
#[test]
fn cjson_loads_as_under_wrk() {
    if !cjson() {
        return;
    }
    let Some(wrk) = wrk() else { return };
    let dir = Dir::new("cjson");
    let list = dir.file(
        "requests.json",
        r#"[{"method": "GET", "path": "/json"},
            {"method": "POST", "path": "/echo", "body": "{\"a\": 1}",
             "headers": {"Content-Type": "application/json"}},
            {"method": "GET", "path": "/sleep/1"}]"#,
    );
    let multi = dir.file(
        "multi.lua",
        &format!(
            "local cjson = require \"cjson\"\n\
             local f = assert(io.open(\"{list}\", \"r\"))\n\
             local list = cjson.decode(f:read(\"*a\"))\n\
             f:close()\n\
             print(\"requests in the file: \" .. #list)\n\
             function delay() return 2 end\n\
             local i = 0\n\
             function request()\n  \
               i = i % #list + 1\n  \
               local r = list[i]\n  \
               return wrk.format(r.method, r.path, r.headers, r.body)\n\
             end\n"
        ),
    );
    let s = serve();
    let out = wrk_run(&wrk, 1, &multi, &s.url("/"), &[]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        text(&out.stdout)
            .matches("requests in the file: 3\n")
            .count(),
        2,
        "{out:?}"
    );
    let by_wrk = s.settle();
    let k: usize = by_wrk.values().sum();
    assert!(k >= 3, "{by_wrk:?}");
    let s = serve();
    let n = k.to_string();
    let out = ends(barrage(&[
        "-c",
        "1",
        "-n",
        &n,
        "-q",
        "-s",
        &multi,
        &s.url("/"),
    ]));
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        text(&out.stdout)
            .matches("requests in the file: 3\n")
            .count(),
        2,
        "{out:?}"
    );
    assert_eq!(s.settle_from(k), by_wrk);

    let post = dir.file(
        "post.lua",
        "local cjson = require \"cjson\"\n\
         wrk.method = \"POST\"\n\
         wrk.path = \"/echo\"\n\
         wrk.body = cjson.encode({ key = \"value\", n = 3 })\n\
         wrk.headers[\"Content-Type\"] = \"application/json\"\n\
         local threads = {}\n\
         function setup(t) table.insert(threads, t) end\n\
         ok = 0\n\
         function delay() return 2 end\n\
         function response(status, headers, body)\n  \
           local t = cjson.decode(body)\n  \
           if status == 200 and t.key == \"value\" and t.n == 3 then ok = ok + 1 end\n\
         end\n\
         function done(summary)\n  \
           local n = 0\n  \
           for _, t in ipairs(threads) do n = n + t:get(\"ok\") end\n  \
           io.write(string.format(\"decoded %d of %d\\n\", n, summary.requests))\n\
         end\n",
    );
    let s = serve();
    let out = wrk_run(&wrk, 1, &post, &s.url("/"), &[]);
    assert!(out.status.success(), "{out:?}");
    // wrk counts the responses it read: the server may have answered one more, in flight at
    // wrk's stop.
    let k = number_after(&text(&out.stdout), "decoded ");
    let by_wrk = s.settle_from(k);
    assert!(
        text(&out.stdout).ends_with(&format!("decoded {k} of {k}\n")),
        "{out:?}"
    );
    assert_eq!(by_wrk.len(), 1, "{by_wrk:?}");
    assert!(
        (k..=k + 1).contains(&by_wrk["POST /echo 200"]),
        "{k}: {by_wrk:?}"
    );
    let s = serve();
    let out = ends(barrage(&[
        "-c",
        "2",
        "-t",
        "2",
        "-n",
        "20",
        "-q",
        "-s",
        &post,
        &s.url("/"),
    ]));
    assert!(out.status.success(), "{out:?}");
    assert!(text(&out.stdout).ends_with("decoded 20 of 20\n"), "{out:?}");
    assert_eq!(
        s.settle_from(20),
        BTreeMap::from([("POST /echo 200".to_string(), 20)])
    );
}

/// `package.path` and `package.cpath` are the same strings as under Debian's wrk, without
/// `LUA_PATH` and with it (`;;` standing for the default), and a Lua module from the
/// directory it names loads with `require` in both.
#[test]
fn search_paths_are_wrks() {
    let Some(wrk) = wrk() else { return };
    let dir = Dir::new("paths");
    dir.file("wildmod.lua", "return { name = 'wild' }");
    let script = dir.file(
        "paths.lua",
        "function init(args)\n  \
           io.write(\"path=\", package.path, \"\\ncpath=\", package.cpath, \"\\n\")\n  \
           if args[1] then io.write(\"module=\", require(args[1]).name, \"\\n\") end\n\
         end\n",
    );
    // The lines the script printed (wrk prints them before its report, barrage after).
    let lines = |o: &Output| -> Vec<String> {
        text(&o.stdout)
            .lines()
            .filter(|l| {
                l.starts_with("path=") || l.starts_with("cpath=") || l.starts_with("module=")
            })
            .map(str::to_string)
            .collect()
    };
    let lua_path = format!("{}/?.lua;;", dir.0.display());
    for env in [None, Some(lua_path.as_str())] {
        let args: &[&str] = if env.is_some() { &["wildmod"] } else { &[] };
        let s = serve();
        let mut w = Command::new(&wrk);
        w.args(["-t1", "-c1", "-d1s", "-s", &script, &s.url("/")]);
        let mut b = barrage(&["-c", "1", "-n", "3", "-q", "-s", &script, &s.url("/")]);
        if !args.is_empty() {
            w.arg("--").args(args);
            b.arg("--").args(args);
        }
        for c in [&mut w, &mut b] {
            c.env_remove("LUA_PATH").env_remove("LUA_CPATH");
            if let Some(p) = env {
                c.env("LUA_PATH", p);
            }
        }
        let (by_wrk, by_barrage) = (ends(w), ends(b));
        assert!(by_wrk.status.success(), "{by_wrk:?}");
        assert!(by_barrage.status.success(), "{by_barrage:?}");
        let want = if env.is_some() { 3 } else { 2 };
        assert_eq!(lines(&by_wrk).len(), want, "{by_wrk:?}");
        assert_eq!(lines(&by_barrage), lines(&by_wrk));
        if env.is_some() {
            assert!(
                lines(&by_wrk)[0].starts_with(&format!("path={}/?.lua;./?.lua;", dir.0.display()))
            );
            assert_eq!(lines(&by_wrk)[2], "module=wild");
        }
    }
}

/// A histogram dump in done(): `#latency` distinct values, `latency(i)` each value and its
/// count (ascending, counts adding up to every response), 0 and `#latency` past the last,
/// `latency[i]` the key as text; the same lines under wrk (delay() spaces its requests, so
/// that wrk's coordinated-omission correction adds nothing) and barrage, and barrage's
/// `requests` object holds one rate per second of its series.
#[test]
fn done_dumps_the_histogram_as_under_wrk() {
    let Some(wrk) = wrk() else { return };
    let dir = Dir::new("dump");
    let script = dir.file(
        "dump.lua",
        "function delay() return 50 end\n\
         function done(summary, latency, requests)\n  \
           local sum, prev, up = 0, -1, true\n  \
           for i = 1, #latency do\n    \
             local v, c = latency(i)\n    \
             if v <= prev then up = false end\n    \
             prev, sum = v, sum + c\n  \
           end\n  \
           local past, pc = latency(#latency + 1)\n  \
           local rs = 0\n  \
           for i = 1, #requests do local _, c = requests(i); rs = rs + c end\n  \
           io.write(string.format(\"sum=%d requests=%d ascending=%s past=%d,%s index=%s,%s\\n\",\n    \
             sum, summary.requests, tostring(up), past, tostring(pc == #latency),\n    \
             latency[1], latency[2]))\n  \
           io.write(string.format(\"rates=%d\\n\", rs))\n\
         end\n",
    );
    let s = serve();
    let out = wrk_run(&wrk, 1, &script, &s.url("/"), &[]);
    assert!(out.status.success(), "{out:?}");
    let stdout = text(&out.stdout);
    let k = number_after(&stdout, "sum=");
    assert!(
        stdout.contains(&format!(
            "sum={k} requests={k} ascending=true past=0,true index=1,2\n"
        )),
        "{k}: {stdout}"
    );
    // The server may have answered one more, in flight at wrk's stop.
    let logged: usize = s.settle_from(k).values().sum();
    assert!((k..=k + 1).contains(&logged), "{k}: {logged}");
    let s = serve();
    let doc = dir.0.join("dump.json");
    let out = ends(barrage(&[
        "-c",
        "1",
        "-n",
        "20",
        "-q",
        "-s",
        &script,
        "--json",
        &doc.display().to_string(),
        &s.url("/"),
    ]));
    assert!(out.status.success(), "{out:?}");
    let d = json(&doc);
    let seconds = d["series"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["span_s"].as_f64().unwrap() > 0.0)
        .count();
    assert!(seconds >= 1);
    assert!(
        text(&out.stdout).ends_with(&format!(
            "sum=20 requests=20 ascending=true past=0,true index=1,2\nrates={seconds}\n"
        )),
        "{out:?}"
    );
    assert_eq!(
        s.settle_from(20),
        BTreeMap::from([("GET / 200".to_string(), 20)])
    );
}

/// `os.exit(n)` in init ends wrk before any load, with n and what the script printed (its top
/// level in the main state and the thread's, then init's line): barrage prints the same and
/// exits with n, one line on stderr saying so; neither sent a request.
#[test]
fn os_exit_in_init_before_any_load() {
    let Some(wrk) = wrk() else { return };
    let dir = Dir::new("exit-init");
    let script = dir.file(
        "exit.lua",
        "print(\"top\")\nfunction init(args) io.write(\"before\\n\") os.exit(3) end\n",
    );
    let s = serve();
    let by_wrk = wrk_run(&wrk, 1, &script, &s.url("/"), &[]);
    assert_eq!(by_wrk.status.code(), Some(3), "{by_wrk:?}");
    assert_eq!(text(&by_wrk.stdout), "top\ntop\nbefore\n");
    let out = ends(barrage(&[
        "-c",
        "1",
        "-d",
        "5s",
        "-q",
        "-s",
        &script,
        &s.url("/"),
    ]));
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert_eq!(text(&out.stdout), "top\ntop\nbefore\n");
    assert_eq!(
        text(&out.stderr),
        format!("barrage: the script ended before any load: {script}: os.exit(3) in init()\n")
    );
    assert_eq!(s.now(), Vec::<String>::new());
}

/// `os.exit(4)` in the 5th response(): wrk ends with 4 after 5 requests; barrage ends the run
/// there too, with 4 (over a failed `--threshold`'s 99), and keeps the report (the summary, the
/// script's line, the `--json` document counting those 5).
#[test]
fn os_exit_in_response_keeps_the_report() {
    let Some(wrk) = wrk() else { return };
    let dir = Dir::new("exit-response");
    let script = dir.file(
        "five.lua",
        "n = 0\nfunction response()\n  n = n + 1\n  \
         if n == 5 then io.write(\"five\\n\"); os.exit(4) end\nend\n",
    );
    let s = serve();
    let by_wrk = wrk_run(&wrk, 1, &script, &s.url("/"), &[]);
    assert_eq!(by_wrk.status.code(), Some(4), "{by_wrk:?}");
    assert!(text(&by_wrk.stdout).ends_with("five\n"), "{by_wrk:?}");
    let wrk_lines = s.settle_from(5);
    let s = serve();
    let doc = dir.0.join("five.json");
    let out = ends(barrage(&[
        "-c",
        "1",
        "-d",
        "30s",
        "-q",
        "-s",
        &script,
        "--threshold",
        "max < 1us",
        "--json",
        &doc.display().to_string(),
        &s.url("/"),
    ]));
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("  5 requests in ") && stdout.ends_with("five\n"),
        "{stdout}"
    );
    assert_eq!(
        text(&out.stderr),
        format!("barrage: the script ended the run: {script}: os.exit(4) in response()\n")
    );
    let d = json(&doc);
    assert_eq!(d["requests"], 5);
    assert_eq!(d["thresholds"][0]["pass"], false, "{d}");
    let lines = s.settle_from(5);
    assert_eq!(
        d["requests_written"].as_u64().unwrap(),
        5 + d["in_flight"].as_u64().unwrap()
    );
    assert_eq!(
        lines["GET / 200"] as u64,
        d["requests_written"].as_u64().unwrap()
    );
    assert_eq!(wrk_lines, BTreeMap::from([("GET / 200".to_string(), 5)]));
}

/// `os.exit(6)` in done(): wrk prints its report, then done's line, and ends with 6; so does
/// barrage, its `--json` document written.
#[test]
fn os_exit_in_done_keeps_the_report() {
    let Some(wrk) = wrk() else { return };
    let dir = Dir::new("exit-done");
    let script = dir.file(
        "done.lua",
        "function done(s) io.write(\"done \", s.requests, \"\\n\"); os.exit(6) end\n",
    );
    let s = serve();
    let by_wrk = wrk_run(&wrk, 1, &script, &s.url("/"), &[]);
    assert_eq!(by_wrk.status.code(), Some(6), "{by_wrk:?}");
    let stdout = text(&by_wrk.stdout);
    let k = number_after(&stdout, "done ");
    assert!(
        stdout.contains(&format!("  {k} requests in ")) && stdout.ends_with(&format!("done {k}\n")),
        "{k}: {stdout}"
    );
    let s = serve();
    let doc = dir.0.join("done.json");
    let out = ends(barrage(&[
        "-c",
        "2",
        "-t",
        "2",
        "-n",
        "10",
        "-q",
        "-s",
        &script,
        "--json",
        &doc.display().to_string(),
        &s.url("/"),
    ]));
    assert_eq!(out.status.code(), Some(6), "{out:?}");
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("  10 requests in ") && stdout.ends_with("done 10\n"),
        "{stdout}"
    );
    assert_eq!(json(&doc)["requests"], 10);
    assert_eq!(
        s.settle_from(10),
        BTreeMap::from([("GET / 200".to_string(), 10)])
    );
}

/// `os.exit(5)` in the init of a second thread only (the probe is the first's): wrk ends with
/// 5; barrage stops every worker and ends with 5 after its report, every count adding up and
/// the server's log between the responses counted and the requests written.
#[test]
fn os_exit_in_a_later_thread_stops_the_run() {
    let Some(wrk) = wrk() else { return };
    let dir = Dir::new("exit-thread");
    let script = dir.file(
        "second.lua",
        "local n = 0\nfunction setup(t) n = n + 1; t:set(\"id\", n) end\n\
         function init() if id == 2 then os.exit(5) end end\n",
    );
    let s = serve();
    let by_wrk = wrk_run(&wrk, 2, &script, &s.url("/"), &[]);
    assert_eq!(by_wrk.status.code(), Some(5), "{by_wrk:?}");
    drop(s);
    let s = serve();
    let doc = dir.0.join("second.json");
    let out = ends(barrage(&[
        "-c",
        "2",
        "-t",
        "2",
        "-d",
        "30s",
        "-q",
        "-s",
        &script,
        "--json",
        &doc.display().to_string(),
        &s.url("/"),
    ]));
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    assert_eq!(
        text(&out.stderr),
        format!("barrage: the script ended the run: {script}: os.exit(5) in init()\n")
    );
    let d = json(&doc);
    let (r, w, f) = (
        d["requests"].as_u64().unwrap(),
        d["requests_written"].as_u64().unwrap(),
        d["in_flight"].as_u64().unwrap(),
    );
    assert_eq!(w, r + f, "{d}");
    let logged: usize = s.settle_from(r as usize).values().sum();
    let logged = logged as u64;
    assert!(r <= logged && logged <= w, "{r} <= {logged} <= {w}");
}

/// What a hook printed before it failed is shown: init's line before its error (in the probe,
/// before any load) and done's before its own, after the report; each failure one line, exit 2.
#[test]
fn output_before_a_failure_is_shown() {
    let dir = Dir::new("fail");
    let s = serve();
    let script = dir.file(
        "init.lua",
        "function init() io.write(\"half\\n\"); error(\"broken\") end\n",
    );
    let out = ends(barrage(&[
        "-c",
        "1",
        "-n",
        "5",
        "-q",
        "-s",
        &script,
        &s.url("/"),
    ]));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(text(&out.stdout), "half\n");
    assert_eq!(
        text(&out.stderr),
        format!("barrage: {script}:1: broken (in init())\n")
    );
    let script = dir.file(
        "done.lua",
        "function done(s) io.write(\"got \", s.requests, \"\\n\"); error(\"late\") end\n",
    );
    let out = ends(barrage(&[
        "-c",
        "1",
        "-n",
        "5",
        "-q",
        "-s",
        &script,
        &s.url("/"),
    ]));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("  5 requests in ") && stdout.ends_with("got 5\n"),
        "{stdout}"
    );
    assert_eq!(
        text(&out.stderr),
        format!("barrage: the script stopped the run: {script}:1: late (in done())\n")
    );
    assert_eq!(
        s.settle_from(5),
        BTreeMap::from([("GET / 200".to_string(), 5)])
    );
}

/// An init that never returns: in the probe (every thread's) it is stopped at the run's length
/// plus the bound (`--timeout 1s`: 2 s), one line naming it, what it printed shown, no request
/// sent; in the second thread only, the first thread's share of `-n` is measured and reported,
/// then the one line.
#[test]
fn an_endless_init_is_stopped() {
    let dir = Dir::new("endless");
    let s = serve();
    let script = dir.file(
        "loop.lua",
        "function init() io.write(\"looping\\n\"); while true do end end\n",
    );
    let out = ends(barrage(&[
        "-c",
        "1",
        "-d",
        "1s",
        "--timeout",
        "1s",
        "-q",
        "-s",
        &script,
        &s.url("/"),
    ]));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(text(&out.stdout), "looping\n");
    let e = text(&out.stderr);
    assert!(
        e.starts_with(&format!(
            "barrage: {script}: init() did not return by the run's length plus 2s (stopped after "
        )) && e.ends_with(")\n")
            && e.lines().count() == 1,
        "{e}"
    );
    assert_eq!(s.now(), Vec::<String>::new());

    let script = dir.file(
        "second.lua",
        "local n = 0\nfunction setup(t) n = n + 1; t:set(\"id\", n) end\n\
         function init() if id == 2 then while true do end end end\n",
    );
    let doc = dir.0.join("second.json");
    let out = ends(barrage(&[
        "-c",
        "2",
        "-t",
        "2",
        "-n",
        "20",
        "--timeout",
        "1s",
        "-q",
        "-s",
        &script,
        "--json",
        &doc.display().to_string(),
        &s.url("/"),
    ]));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(text(&out.stdout).contains("  10 requests in "), "{out:?}");
    let e = text(&out.stderr);
    assert!(
        e.starts_with(&format!(
            "barrage: the script stopped the run: {script}: init() did not return within 2s of \
             its call (stopped after "
        )) && e.lines().count() == 1,
        "{e}"
    );
    assert_eq!(json(&doc)["requests"], 10);
    assert_eq!(
        s.settle_from(10),
        BTreeMap::from([("GET / 200".to_string(), 10)])
    );
}

/// The first Ctrl-C ends a run whose second thread's init never returns, with what the first
/// measured: the report and the document written (every count adding up, the server's log
/// between the responses counted and the requests written), no error (the run was cancelled).
#[test]
fn ctrl_c_ends_an_endless_init_with_what_was_measured() {
    let dir = Dir::new("ctrl-c");
    let s = serve();
    let script = dir.file(
        "second.lua",
        "local n = 0\nfunction setup(t) n = n + 1; t:set(\"id\", n) end\n\
         function init() if id == 2 then while true do end end end\n",
    );
    let doc = dir.0.join("ctrl-c.json");
    let mut cmd = barrage(&[
        "-c",
        "2",
        "-t",
        "2",
        "-d",
        "60s",
        "-q",
        "-s",
        &script,
        "--json",
        &doc.display().to_string(),
        &s.url("/"),
    ]);
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    let proc = barrage_testkit::Proc(child);
    // The load is running once the server has answered.
    let seen = s.log.take_n(1);
    assert!(!seen.is_empty(), "no request within 10 s");
    // SAFETY: kill(2) on our own child's pid, which `proc` has not reaped.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let mut child = proc;
    let deadline = Instant::now() + Duration::from_secs(300);
    let status = loop {
        if let Some(st) = child.0.try_wait().unwrap() {
            break st;
        }
        assert!(
            Instant::now() < deadline,
            "still running five minutes after Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    child
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let mut out = String::new();
    child
        .0
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert_eq!(status.code(), Some(0), "{out}{err}");
    assert_eq!(err, "", "a cancelled init is no error");
    assert!(out.contains(" requests in "), "{out}");
    let d = json(&doc);
    let (r, w, f) = (
        d["requests"].as_u64().unwrap(),
        d["requests_written"].as_u64().unwrap(),
        d["in_flight"].as_u64().unwrap(),
    );
    assert!(r >= 1);
    assert_eq!(w, r + f, "{d}");
    let more: usize = s
        .settle_from((r as usize).saturating_sub(seen.len()))
        .values()
        .sum();
    let logged = (seen.len() + more) as u64;
    assert!(r <= logged && logged <= w, "{r} <= {logged} <= {w}");
}

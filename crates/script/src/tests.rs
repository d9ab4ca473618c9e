//! wrk's own example scripts (tests/wrk/, unchanged) run through the API as wrk runs them,
//! and scripts that fail, each with the line barrage prints.

use std::net::SocketAddr;
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use super::*;

/// The test's own resolver: every host is 127.0.0.1 at the service's port.
pub(super) struct Loopback;

impl Resolver for Loopback {
    fn lookup(&self, _host: &str, service: &str) -> Vec<SocketAddr> {
        let port = service.parse().unwrap_or(80);
        vec![SocketAddr::from(([127, 0, 0, 1], port))]
    }
    fn connect(&self, addr: SocketAddr) -> bool {
        addr.ip().is_loopback()
    }
}

pub(super) fn target() -> Target {
    Target {
        url: "http://example.com:8080/".into(),
        scheme: "http".into(),
        host: "example.com".into(),
        port: Some(8080),
        method: "GET".into(),
        path: "/".into(),
        headers: vec![],
        body: None,
    }
}

fn wrk_script(name: &str, args: &[&str]) -> Script {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/wrk")
        .join(name);
    Script::load(&p, args.iter().map(|a| a.to_string()).collect()).unwrap()
}

fn thread(s: &Script) -> Thread {
    Thread::new(
        s,
        &target(),
        Arc::new(Loopback),
        &ThreadSetup::default(),
        &Bound::default(),
    )
    .unwrap()
}

fn header<'a>(r: &'a Request, name: &str) -> Option<&'a str> {
    r.headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

#[test]
fn a_script_without_hooks_sends_the_target_as_is() {
    let s = Script::from_source(Path::new("empty.lua"), String::new(), vec![]).unwrap();
    let t = thread(&s);
    assert!(t.is_static() && !t.wants_response());
    let r = &t.requests()[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str(), r.body.as_slice()),
        ("GET", "/", &b""[..])
    );
    assert_eq!(header(r, "host"), Some("example.com:8080"));
    assert_eq!(header(r, "content-length"), None);
}

#[test]
fn post_lua_changes_the_static_request() {
    let t = thread(&wrk_script("post.lua", &[]));
    assert!(t.is_static());
    assert_eq!(t.requests().len(), 1);
    let r = &t.requests()[0];
    assert_eq!(r.method, "POST");
    assert_eq!(r.body, b"foo=bar&baz=quux");
    assert_eq!(
        header(r, "content-type"),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(header(r, "content-length"), Some("16"));
}

#[test]
fn counter_lua_builds_a_request_each_time() {
    let mut t = thread(&wrk_script("counter.lua", &[]));
    assert!(!t.is_static());
    for i in 0..3 {
        assert_eq!(t.request().unwrap(), Produced::New);
        let r = &t.requests()[0];
        assert_eq!(r.path, format!("/{i}"));
        assert_eq!(header(r, "x-counter"), Some(i.to_string().as_str()));
        assert_eq!(header(r, "host"), Some("example.com:8080"));
    }
}

#[test]
fn pipeline_lua_sends_a_batch_parsed_once() {
    let mut t = thread(&wrk_script("pipeline.lua", &[]));
    assert_eq!(t.request().unwrap(), Produced::New);
    let paths: Vec<&str> = t.requests().iter().map(|r| r.path.as_str()).collect();
    assert_eq!(paths, ["/?foo", "/?bar", "/?baz"]);
    // The same string again: not parsed again.
    assert_eq!(t.request().unwrap(), Produced::Same);
    assert_eq!(t.requests().len(), 3);
}

#[test]
fn auth_lua_reads_a_response_and_changes_its_requests() {
    let mut t = thread(&wrk_script("auth.lua", &[]));
    assert!(t.wants_response());
    t.request().unwrap();
    assert_eq!(t.requests()[0].path, "/authenticate");
    t.response(200, &[("X-Token", b"s3cret")], b"").unwrap();
    t.request().unwrap();
    let r = &t.requests()[0];
    assert_eq!(r.path, "/resource");
    assert_eq!(header(r, "x-token"), Some("s3cret"));
}

/// HTTP/2 writes header names in lower case: auth.lua's `headers["X-Token"]` still finds it, and
/// iterating gives the names as the server wrote them.
#[test]
fn response_headers_are_found_in_any_case() {
    let mut t = thread(&wrk_script("auth.lua", &[]));
    t.request().unwrap();
    t.response(200, &[("x-token", b"lower")], b"").unwrap();
    t.request().unwrap();
    assert_eq!(header(&t.requests()[0], "x-token"), Some("lower"));
    let src = "names = {}\nresponse = function(s, h, b)\n  for k in pairs(h) do names[#names + 1] = k end\n  \
               seen = h[\"Content-Type\"] .. \",\" .. tostring(h[\"missing\"])\nend\n";
    let s = Script::from_source(Path::new("names.lua"), src.into(), vec![]).unwrap();
    let mut t = thread(&s);
    t.response(200, &[("content-type", b"text/plain")], b"")
        .unwrap();
    let g = t.snapshot();
    let seen = g.iter().find(|(n, _)| n == "seen").map(|(_, v)| v.clone());
    assert_eq!(seen, Some(crate::Transfer::Str(b"text/plain,nil".to_vec())));
}

#[test]
fn delay_lua_asks_10_to_50_ms() {
    let mut t = thread(&wrk_script("delay.lua", &[]));
    for _ in 0..50 {
        let d = t.delay().unwrap().unwrap();
        assert!(
            d >= Duration::from_millis(10) && d <= Duration::from_millis(50),
            "{d:?}"
        );
    }
}

#[test]
fn stop_lua_stops_its_thread_at_the_100th_response() {
    let mut t = thread(&wrk_script("stop.lua", &[]));
    for i in 1..=100 {
        assert!(!t.stopped(), "stopped before response {i}");
        t.response(200, &[], b"").unwrap();
    }
    assert!(t.stopped());
}

#[test]
fn addr_lua_resolves_and_prints_its_address() {
    let s = wrk_script("addr.lua", &[]);
    let (_setup, given) = Setup::new(
        &s,
        &target(),
        Arc::new(Loopback),
        2,
        None,
        &Bound::default(),
    )
    .unwrap();
    assert_eq!(given.len(), 2);
    for g in &given {
        assert_eq!(g.addr.as_deref(), Some("127.0.0.1:8080"));
        let mut t = Thread::new(&s, &target(), Arc::new(Loopback), g, &Bound::default()).unwrap();
        assert_eq!(
            String::from_utf8(t.take_output()).unwrap(),
            "thread addr: 127.0.0.1:8080\n"
        );
    }
}

/// A distribution of known values: 100 requests, value v (1..=100) once each.
pub(super) struct Known;

impl Distribution for Known {
    fn min(&self) -> f64 {
        1.0
    }
    fn max(&self) -> f64 {
        100.0
    }
    fn mean(&self) -> f64 {
        50.5
    }
    fn stdev(&self) -> f64 {
        28.87
    }
    fn percentile(&self, p: f64) -> f64 {
        (p.clamp(1.0, 100.0)).ceil()
    }
    fn distinct(&self) -> usize {
        100
    }
    fn raw(&self, i: usize) -> Option<(f64, u64)> {
        (1..=100).contains(&i).then_some((i as f64, 1))
    }
}

#[test]
fn setup_lua_hands_ids_to_threads_and_reads_their_counts_when_done() {
    let s = wrk_script("setup.lua", &[]);
    let (mut setup, given) = Setup::new(
        &s,
        &target(),
        Arc::new(Loopback),
        2,
        None,
        &Bound::default(),
    )
    .unwrap();
    assert_eq!(given[0].globals, [("id".to_owned(), Transfer::Number(1.0))]);
    assert_eq!(given[1].globals, [("id".to_owned(), Transfer::Number(2.0))]);
    let mut finished = Vec::new();
    let mut printed = String::new();
    for (i, g) in given.iter().enumerate() {
        let mut t = Thread::new(&s, &target(), Arc::new(Loopback), g, &Bound::default()).unwrap();
        for _ in 0..(3 + i) {
            t.request().unwrap();
        }
        for _ in 0..2 {
            t.response(200, &[], b"").unwrap();
        }
        printed += &String::from_utf8(t.take_output()).unwrap();
        finished.push(t.snapshot());
    }
    assert_eq!(printed, "thread 1 created\nthread 2 created\n");
    assert!(setup.has_done());
    let out = setup
        .done(
            &Summary::default(),
            Rc::new(Known),
            Rc::new(Known),
            finished,
            &Bound::default(),
        )
        .unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "thread 1 made 3 requests and got 2 responses\nthread 2 made 4 requests and got 2 responses\n"
    );
}

#[test]
fn report_lua_prints_the_latency_percentiles() {
    let s = wrk_script("report.lua", &[]);
    let (mut setup, _) = Setup::new(
        &s,
        &target(),
        Arc::new(Loopback),
        1,
        None,
        &Bound::default(),
    )
    .unwrap();
    let out = setup
        .done(
            &Summary::default(),
            Rc::new(Known),
            Rc::new(Known),
            vec![vec![]],
            &Bound::default(),
        )
        .unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "------------------------------\n50%,50\n90%,90\n99%,99\n99.999%,100\n"
    );
}

#[test]
fn done_sees_the_summary_and_the_distributions() {
    let src = r#"
        function done(summary, latency, requests)
          local v, n = latency(3)
          local past, pn = latency(101)
          io.write(summary.requests, " ", summary.bytes, " ", summary.duration, " ",
                   summary.errors.connect, " ", summary.errors.status, " ", summary.errors.timeout, " ",
                   latency.min, " ", latency.max, " ", latency.mean, " ", requests.stdev, " ",
                   v, " ", n, " ", past, " ", pn, "\n")
        end"#;
    let s = Script::from_source(Path::new("done.lua"), src.into(), vec![]).unwrap();
    let (mut setup, _) = Setup::new(
        &s,
        &target(),
        Arc::new(Loopback),
        1,
        None,
        &Bound::default(),
    )
    .unwrap();
    let summary = Summary {
        duration_us: 5_000_000,
        requests: 1234,
        bytes: 5678,
        errors: Errors {
            connect: 1,
            read: 0,
            write: 0,
            status: 7,
            timeout: 2,
        },
    };
    let out = setup
        .done(
            &summary,
            Rc::new(Known),
            Rc::new(Known),
            vec![vec![]],
            &Bound::default(),
        )
        .unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "1234 5678 5000000 1 7 2 1 100 50.5 28.87 3 1 0 100\n"
    );
}

#[test]
fn init_gets_the_arguments_after_the_double_dash() {
    let src = "function init(args) wrk.path = '/' .. args[1] .. '/' .. #args end";
    let s = Script::from_source(
        Path::new("args.lua"),
        src.into(),
        vec!["x".into(), "y".into()],
    )
    .unwrap();
    assert_eq!(thread(&s).requests()[0].path, "/x/2");
}

#[test]
fn failures_are_one_line_naming_the_file_the_line_and_the_hook() {
    let e =
        Script::from_source(Path::new("bad.lua"), "x = \nfunction(".into(), vec![]).unwrap_err();
    let ScriptError::Syntax(m) = &e else {
        panic!("{e:?}")
    };
    assert!(m.starts_with("bad.lua:2:") && !m.contains('\n'), "{m}");

    let src = "function request()\n  return nosuch.field\nend";
    let s = Script::from_source(Path::new("oops.lua"), src.into(), vec![]).unwrap();
    let e = thread(&s).request().unwrap_err().to_string();
    assert!(
        e.starts_with("oops.lua:2: ") && e.ends_with("(in request())") && !e.contains('\n'),
        "{e}"
    );

    let s = Script::from_source(
        Path::new("init.lua"),
        "function init() error('no') end".into(),
        vec![],
    )
    .unwrap();
    let e = Thread::new(
        &s,
        &target(),
        Arc::new(Loopback),
        &ThreadSetup::default(),
        &Bound::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert_eq!(e, "init.lua:1: no (in init())");

    let s = Script::from_source(
        Path::new("n.lua"),
        "function request() return 5 end".into(),
        vec![],
    )
    .unwrap();
    assert_eq!(
        thread(&s).request().unwrap_err().to_string(),
        "n.lua: request() returned a number"
    );

    let s = Script::from_source(
        Path::new("t.lua"),
        "function request() return 'hello' end".into(),
        vec![],
    )
    .unwrap();
    let e = thread(&s).request().unwrap_err().to_string();
    assert!(
        e.starts_with("t.lua: request() returned text that is not an HTTP/1.1 request"),
        "{e}"
    );

    let s = Script::from_source(
        Path::new("d.lua"),
        "function delay() return 'soon' end".into(),
        vec![],
    )
    .unwrap();
    assert_eq!(
        thread(&s).delay().unwrap_err().to_string(),
        "d.lua: delay() returned a string"
    );

    let e = Script::load(Path::new("/nonexistent/x.lua"), vec![])
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("/nonexistent/x.lua: "), "{e}");
}

#[test]
fn thread_stop_in_setup_and_functions_across_threads_are_refused() {
    let s = Script::from_source(
        Path::new("s.lua"),
        "function setup(t) t:stop() end".into(),
        vec![],
    )
    .unwrap();
    let e = Setup::new(
        &s,
        &target(),
        Arc::new(Loopback),
        1,
        None,
        &Bound::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        e.contains("thread:stop() can only be called while the thread runs")
            && e.ends_with("(in setup())"),
        "{e}"
    );
    let s = Script::from_source(
        Path::new("f.lua"),
        "function setup(t) t:set('f', print) end".into(),
        vec![],
    )
    .unwrap();
    let e = Setup::new(
        &s,
        &target(),
        Arc::new(Loopback),
        1,
        None,
        &Bound::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        e.contains("only booleans, nil, numbers, strings and tables"),
        "{e}"
    );
}

#[test]
fn requests_parse_with_their_bodies() {
    let text =
        b"POST /a HTTP/1.1\r\nhost: h\r\ncontent-length: 3\r\n\r\nabcGET /b HTTP/1.1\r\nhost: h\r\n\r\n";
    let r = parse_requests(text).unwrap();
    assert_eq!(r.len(), 2);
    assert_eq!(
        (
            r[0].method.as_str(),
            r[0].path.as_str(),
            r[0].body.as_slice()
        ),
        ("POST", "/a", &b"abc"[..])
    );
    assert_eq!((r[1].method.as_str(), r[1].path.as_str()), ("GET", "/b"));
    assert!(parse_requests(b"GET / HTTP/1.1\r\n")
        .unwrap_err()
        .contains("cut short"));
    assert!(
        parse_requests(b"POST / HTTP/1.1\r\nhost: h\r\ncontent-length: 9\r\n\r\nab")
            .unwrap_err()
            .contains("content-length says 9")
    );
    assert!(parse_requests(b"").is_err());
}

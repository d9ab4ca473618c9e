//! FastCGI on both sides, each against a real peer: `barrage load --fastcgi` against php-fpm
//! (whose own access log counts the requests) and against `barrage serve` (whose counters do),
//! and `barrage serve` as nginx's FastCGI upstream (`fastcgi_pass`), loaded through nginx.

use crate::common::nginx::{free_port, log_lines, start_nginx_with, Dir};
use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol, RunResult};
use barrage_server::{start, ServerConfig};
use std::net::TcpStream;
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn load(c: Config) -> RunResult {
    run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap()
}

fn fastcgi(url: String, keepalive: bool, requests: u64) -> Config {
    Config {
        url,
        protocol: Protocol::Fastcgi { keepalive },
        connections: 4,
        threads: 1,
        requests: Some(requests),
        expect_status: Some(200),
        ..Config::default()
    }
}

/// Against `barrage serve`: every request answered and checked, counted by the server as
/// FastCGI's responses; connections kept (4, plus the engine's probe) or one per request.
#[test]
fn fastcgi_against_barrage_serve() {
    for keepalive in [true, false] {
        let s = start(ServerConfig {
            threads: 1,
            ..ServerConfig::default()
        })
        .unwrap();
        let mut want = vec![0u8; 100_000];
        barrage_server::pattern::fill(0, &mut want);
        let c = Config {
            expect_body: Some(want),
            ..fastcgi(
                format!("http://{}/bytes/100000", s.local_addr()),
                keepalive,
                200,
            )
        };
        let r = load(c);
        assert_eq!(r.requests, 200, "keep {keepalive}: {:?}", r.error_examples);
        assert_eq!(r.errors.total(), 0, "{:?}", r.error_examples);
        let stats = s.stats();
        assert_eq!(
            stats.responses,
            vec![("fastcgi", 200, 200)],
            "keep {keepalive}"
        );
        let conns = if keepalive { 4 } else { 200 };
        assert_eq!(
            stats.accepted,
            conns + 1,
            "keep {keepalive}: the probe and {conns}"
        );
        assert_eq!(r.connects, conns, "keep {keepalive}");
        s.shutdown();
    }
}

/// A POST's body reaches the application and comes back (`/echo`), a HEAD is answered, and a
/// fault is a counted
/// error of its class: `/fault/reset` ends each request with an application status (class
/// `rst_stream`), `/fault/garbage` breaks FastCGI (class `parse`).
#[test]
fn fastcgi_bodies_and_faults_against_barrage_serve() {
    let s = start(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    })
    .unwrap();
    let body: Vec<u8> = (0..70_000u32).map(|i| (i % 251) as u8).collect();
    let c = Config {
        method: "POST".into(),
        body: body.clone(),
        expect_body: Some(body),
        ..fastcgi(format!("http://{}/echo", s.local_addr()), true, 50)
    };
    let r = load(c);
    assert_eq!(r.requests, 50, "{:?}", r.error_examples);
    assert_eq!(r.errors.total(), 0, "{:?}", r.error_examples);
    // A HEAD's response says its GET's Content-Length and has no body: a response.
    let c = Config {
        method: "HEAD".into(),
        ..fastcgi(format!("http://{}/bytes/1000", s.local_addr()), true, 20)
    };
    let r = load(c);
    assert_eq!(
        (r.requests, r.errors.total()),
        (20, 0),
        "{:?}",
        r.error_examples
    );
    for (path, class) in [("reset", "rst_stream"), ("garbage", "parse")] {
        let c = fastcgi(format!("http://{}/fault/{path}", s.local_addr()), true, 20);
        let r = load(c);
        let errors: Vec<(&str, u64)> = r
            .errors
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(c, n)| (c.name(), n))
            .collect();
        assert_eq!(
            errors,
            vec![(class, 20)],
            "/fault/{path}: {:?}",
            r.error_examples
        );
        assert_eq!(r.requests, 0, "/fault/{path}");
    }
    s.shutdown();
}

/// `barrage serve` behind nginx (`fastcgi_pass` with kept connections): every response through
/// nginx whole and checked, counted by barrage serve as FastCGI's, a request body passed on.
#[test]
fn barrage_serve_as_nginx_fastcgi_upstream() {
    let s = start(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    })
    .unwrap();
    let server = "location / { fastcgi_pass fcgi; fastcgi_keep_conn on; \
                  include /etc/nginx/fastcgi_params; }";
    let http = format!(
        "upstream fcgi {{ server {}; keepalive 8; }}",
        s.local_addr()
    );
    let Some(ng) = start_nginx_with(&http, "", server) else {
        return;
    };
    let mut want = vec![0u8; 50_000];
    barrage_server::pattern::fill(0, &mut want);
    let c = Config {
        url: format!("http://127.0.0.1:{}/bytes/50000", ng.port),
        connections: 4,
        threads: 1,
        requests: Some(300),
        expect_status: Some(200),
        expect_body: Some(want),
        ..Config::default()
    };
    let r = load(c);
    assert_eq!(r.requests, 300, "{:?}", r.error_examples);
    assert_eq!(r.errors.total(), 0, "{:?}", r.error_examples);
    let c = Config {
        url: format!("http://127.0.0.1:{}/echo", ng.port),
        method: "POST".into(),
        body: b"through nginx".to_vec(),
        expect_body: Some(b"through nginx".to_vec()),
        connections: 2,
        threads: 1,
        requests: Some(20),
        expect_status: Some(200),
        ..Config::default()
    };
    let r = load(c);
    assert_eq!(r.requests, 20, "{:?}", r.error_examples);
    assert_eq!(r.errors.total(), 0, "{:?}", r.error_examples);
    assert_eq!(s.stats().responses, vec![("fastcgi", 200, 320)]);
    drop(ng);
    s.shutdown();
}

/// php-fpm on a free loopback port with a pool of the test's (its access log written by
/// php-fpm itself), stopped and its directory removed when dropped. A php-fpm child serves one
/// connection at a time and holds a kept one: the pool has as many children as the load has
/// connections (fewer, and the connections past them wait in the backlog until they time out).
struct Fpm {
    child: Child,
    dir: Dir,
    port: u16,
}

impl Drop for Fpm {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let log = std::fs::read_to_string(self.dir.0.join("error.log")).unwrap_or_default();
            eprintln!("php-fpm error.log:\n{log}");
        }
        // The master's children (the pool's workers) outlive a master killed alone: the
        // whole process group goes, php-fpm's own (made at spawn).
        let group = -(self.child.id() as libc::pid_t);
        // SAFETY: kill(2) with a negative pid signals that process group; the group is the one
        // this test spawned php-fpm into (`process_group(0)`), and no memory is touched.
        unsafe { libc::kill(group, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

fn php_fpm() -> Option<PathBuf> {
    let found = std::fs::read_dir("/usr/sbin")
        .ok()?
        .flatten()
        .find_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with("php-fpm").then(|| e.path())
        });
    if found.is_none() {
        if std::env::var_os("CI").is_some() {
            panic!("php-fpm is not installed (scripts/test installs php-fpm)");
        }
        eprintln!("SKIPPED: php-fpm is not installed; install php-fpm to run this test");
    }
    found
}

fn start_fpm(bin: &PathBuf) -> Fpm {
    let dir = Dir::new("php-fpm");
    let port = free_port();
    let d = dir.0.display();
    dir.file(
        "hello.php",
        "<?php\nheader('X-Method: ' . $_SERVER['REQUEST_METHOD']);\n\
         if (isset($_GET['status'])) { http_response_code((int)$_GET['status']); }\n\
         echo 'hello ' . file_get_contents('php://input');\n",
    );
    let conf = dir.file(
        "fpm.conf",
        &format!(
            "[global]\nerror_log = {d}/error.log\ndaemonize = no\npid = {d}/fpm.pid\n\
             [test]\nlisten = 127.0.0.1:{port}\npm = static\npm.max_children = 4\n\
             access.log = {d}/access.log\naccess.format = \"%m %r%Q%q %s\"\n"
        ),
    );
    let child = Command::new(bin)
        .args([
            "--nodaemonize",
            "--allow-to-run-as-root",
            "--fpm-config",
            &conf,
        ])
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("php-fpm starts");
    let mut fpm = Fpm { child, dir, port };
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline && fpm.child.try_wait().unwrap().is_none(),
            "php-fpm is not listening on {port}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    fpm
}

/// Against php-fpm, the application FastCGI is most often benchmarked for: its script's status
/// and body checked on every response, a POST's body read by the script, and php-fpm's own
/// access log holding exactly the requests the run counted.
#[test]
fn fastcgi_against_php_fpm() {
    let Some(bin) = php_fpm() else { return };
    let fpm = start_fpm(&bin);
    let script = fpm.dir.0.join("hello.php").display().to_string();
    let url = |q: &str| format!("http://127.0.0.1:{}{script}{q}", fpm.port);
    let c = Config {
        expect_body: Some(b"hello ".to_vec()),
        ..fastcgi(url(""), true, 100)
    };
    let r = load(c);
    assert_eq!(r.requests, 100, "{:?}", r.error_examples);
    assert_eq!(r.errors.total(), 0, "{:?}", r.error_examples);
    let c = Config {
        method: "POST".into(),
        body: b"from barrage".to_vec(),
        expect_status: Some(201),
        expect_body: Some(b"hello from barrage".to_vec()),
        ..fastcgi(url("?status=201"), false, 20)
    };
    let r = load(c);
    assert_eq!(r.requests, 20, "{:?}", r.error_examples);
    assert_eq!(r.errors.total(), 0, "{:?}", r.error_examples);
    let lines = log_lines(&fpm.dir.0.join("access.log"), 120);
    assert_eq!(lines.len(), 120);
    let get = format!("GET {script} 200");
    let post = format!("POST {script}?status=201 201");
    assert_eq!(
        lines.iter().filter(|l| **l == get).count(),
        100,
        "{lines:?}"
    );
    assert_eq!(
        lines.iter().filter(|l| **l == post).count(),
        20,
        "{lines:?}"
    );
    // A script php-fpm does not have: its 404, a response like any other.
    let c = Config {
        expect_status: Some(404),
        ..fastcgi(url("-missing.php"), true, 10)
    };
    let r = load(c);
    assert_eq!(
        (r.requests, r.errors.total()),
        (10, 0),
        "{:?}",
        r.error_examples
    );
}

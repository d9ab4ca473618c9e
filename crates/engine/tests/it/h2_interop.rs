//! Counts exact against independent HTTP/2 servers: the requests barrage says it completed are
//! exactly the lines of the server's access log, every one 200, for nginx over h2c and h2o over
//! TLS (h2 by ALPN), in the closed loop with 10 streams per connection.

use crate::common;
use barrage_model::load::DEFAULT_H2_WINDOW;

use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol};
use common::nginx::{start_nginx, HELLO};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const N: u64 = 3_000;

fn load(url: String) -> barrage_engine::RunResult {
    let c = Config {
        url,
        connections: 4,
        threads: 2,
        requests: Some(N),
        duration: None,
        protocol: Protocol::Http2 {
            streams: 10,
            window: DEFAULT_H2_WINDOW,
        },
        insecure: true,
        expect_status: Some(200),
        expect_body: Some(b"Hello, World!".to_vec()),
        ..Config::default()
    };
    run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap()
}

/// The access log's lines, once the server has written them all (it may lag the responses).
fn log_lines(path: &Path, want: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        if lines.len() >= want || Instant::now() > deadline {
            return lines;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn nginx_h2c_logs_exactly_the_requests_barrage_completed() {
    let log = std::env::temp_dir().join(format!("barrage-h2-nginx-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let server = format!("access_log {} ;\n    {HELLO}", log.display());
    let Some(ng) = start_nginx(" http2", &server) else {
        return;
    };
    let r = load(format!("http://127.0.0.1:{}/", ng.port));
    assert_eq!(r.errors.total(), 0, "{:?}", r.error_examples);
    assert_eq!(r.requests, N);
    let lines = log_lines(&log, N as usize);
    assert_eq!(
        lines.len() as u64,
        r.requests,
        "access log lines = completed requests"
    );
    assert!(
        lines.iter().all(|l| l.contains("\"GET / HTTP/2.0\" 200 ")),
        "{:?}",
        &lines[..3]
    );
    let _ = std::fs::remove_file(&log);
}

struct H2o {
    child: Child,
    dir: PathBuf,
    port: u16,
}

impl Drop for H2o {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// h2o 2.2 over TLS on a free port: one thread, `/` a 13-byte file, an access log.
fn start_h2o() -> Option<H2o> {
    if !Path::new("/usr/bin/h2o").exists() || !Path::new("/usr/bin/openssl").exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "h2o and openssl must be installed (scripts/test installs them)"
        );
        eprintln!("SKIPPED: h2o or openssl is not installed");
        return None;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = std::env::temp_dir().join(format!("barrage-h2o-{}-{port}", std::process::id()));
    let www = dir.join("www");
    std::fs::create_dir_all(&www).unwrap();
    std::fs::write(www.join("index.html"), "Hello, World!").unwrap();
    let (key, cert) = (dir.join("key.pem"), dir.join("cert.pem"));
    let ok = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
        ])
        .args(["-nodes", "-days", "1", "-subj", "/CN=localhost", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(ok, "openssl req failed");
    // Started as root, h2o serves as "nobody": the files must be readable by all.
    let _ = Command::new("chmod")
        .arg("-R")
        .arg("a+rX")
        .arg(&dir)
        .status();
    let conf = format!(
        "num-threads: 1\nlisten:\n  host: 127.0.0.1\n  port: {port}\n  ssl:\n    certificate-file: {}\n    key-file: {}\n\
         access-log: {}\nhosts:\n  default:\n    paths:\n      /:\n        file.dir: {}\n",
        cert.display(),
        key.display(),
        dir.join("access.log").display(),
        www.display()
    );
    std::fs::write(dir.join("h2o.conf"), conf).unwrap();
    let child = Command::new("/usr/bin/h2o")
        .arg("-c")
        .arg(dir.join("h2o.conf"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let h = H2o { child, dir, port };
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "h2o did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(h)
}

#[test]
fn h2o_over_tls_logs_exactly_the_requests_barrage_completed() {
    let Some(h) = start_h2o() else {
        return;
    };
    let r = load(format!("https://127.0.0.1:{}/", h.port));
    assert_eq!(r.errors.total(), 0, "{:?}", r.error_examples);
    assert_eq!(r.requests, N);
    assert_eq!(
        barrage_model::load::Http2::of(&r.protocol)
            .unwrap()
            .protocol,
        "h2",
        "h2 chosen by ALPN"
    );
    let lines = log_lines(&h.dir.join("access.log"), N as usize);
    assert_eq!(
        lines.len() as u64,
        r.requests,
        "access log lines = completed requests"
    );
    assert!(
        lines.iter().all(|l| l.contains("\"GET / HTTP/2\" 200 ")),
        "{:?}",
        &lines[..3]
    );
}

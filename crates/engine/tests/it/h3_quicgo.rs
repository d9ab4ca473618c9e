//! `barrage load --http3` against a second independent HTTP/3 server: quic-go's http3 package
//! (bench/h3/server, v0.65.0, built here with Go), whose own log says how many requests its
//! handler ran. Exact counts in the closed loop (several connections and streams) and in the
//! open loop, each equal to the server's; the body checked on every response.

use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink, Protocol, RunResult};
use std::io::{BufRead, BufReader, Lines};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::Duration;

/// The quic-go server, built once per test binary into Cargo's scratch directory; `None` when
/// the test is skipped (no Go 1.26: barrage_testkit::go; quic-go v0.65 needs it).
fn binary() -> Option<PathBuf> {
    static BUILT: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let go = barrage_testkit::go((1, 26))?;
            let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/h3/server");
            let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("h3-quicgo-server");
            let built = Command::new(go)
                .current_dir(&src)
                .args(["build", "-trimpath", "-o"])
                .arg(&out)
                .arg(".")
                .status()
                .expect("go runs");
            assert!(built.success(), "go build of bench/h3/server failed");
            Some(out)
        })
        .clone()
}

/// The server, stopped with SIGTERM (its count printed) or killed when dropped.
struct QuicGo {
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
    port: u16,
}

impl QuicGo {
    fn start(bin: &Path) -> QuicGo {
        let mut child = Command::new(bin)
            .args(["-addr", "127.0.0.1:0"])
            .env("GOMAXPROCS", "1")
            .stdout(Stdio::piped())
            .spawn()
            .expect("the quic-go server starts");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let first = lines.next().expect("a first line").unwrap();
        let addr = first.strip_prefix("listening on ").expect(&first);
        let port = addr.rsplit(':').next().unwrap().parse().unwrap();
        QuicGo { child, lines, port }
    }

    /// Stops the server and returns its count of requests served.
    fn served(mut self) -> u64 {
        // SAFETY: kill(2) on the child's pid, which is ours until we wait for it.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let line = self.lines.next().expect("a count line").unwrap();
        let n = line
            .strip_prefix("served ")
            .and_then(|l| l.strip_suffix(" requests"))
            .expect(&line);
        n.parse().unwrap()
    }
}

impl Drop for QuicGo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn base(port: u16) -> Config {
    Config {
        url: format!("https://127.0.0.1:{port}/"),
        protocol: Protocol::Http3 { streams: 8 },
        insecure: true,
        connections: 4,
        threads: 2,
        expect_status: Some(200),
        expect_body: Some(b"Hello, World!".to_vec()),
        timeout: Duration::from_secs(10),
        ..Config::default()
    }
}

fn load(c: Config) -> RunResult {
    run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap()
}

fn assert_clean(r: &RunResult) {
    assert_eq!(r.errors.total(), 0, "{:?} {:?}", r.errors, r.error_examples);
    assert_eq!(r.status.get("200"), Some(&r.requests));
}

#[test]
fn closed_loop_counts_match_quic_gos_log() {
    let Some(bin) = binary() else { return };
    let s = QuicGo::start(&bin);
    let r = load(Config {
        requests: Some(3000),
        ..base(s.port)
    });
    assert_clean(&r);
    assert_eq!(r.requests, 3000);
    let h = barrage_model::load::Http3::of(&r.protocol).expect("an http3 section");
    assert_eq!((h.handshakes, h.streams), (4, 3000), "{h:?}");
    assert_eq!(s.served(), 3000);
}

#[test]
fn open_loop_counts_match_quic_gos_log() {
    let Some(bin) = binary() else { return };
    let s = QuicGo::start(&bin);
    let r = load(Config {
        requests: Some(400),
        rate: Some(800.0),
        ..base(s.port)
    });
    assert_clean(&r);
    assert_eq!(r.requests, 400);
    assert_eq!(s.served(), 400);
}

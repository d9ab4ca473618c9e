//! Studies over an emulated network (own `main`, no libtest harness: this binary is also the
//! contender `{barrage} serve --addr {addr}`). barrage's own latency for `/` over rtt 50ms is
//! 50ms plus the loopback figure; a client study downloads across the link; a crash of barrage
//! (SIGKILL) mid-trial leaves no process and no namespace; without privileges the study stops
//! with one line naming what is missing. Each test checks that `ip netns list` is unchanged.

use barrage_lab::results::Results;
use barrage_lab::runner::{self, NoProgress, RunOptions};
use barrage_lab::study;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

mod common;
use common::{validate_schema, Test};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("serve") => {
            return common::serve(&args[2..], |addr, _| barrage_server::ServerConfig {
                addr,
                threads: 1,
                ..Default::default()
            })
        }
        Some("study") => std::process::exit(study_main(Path::new(&args[2]), Path::new(&args[3]))),
        _ => {}
    }
    common::run_tests(
        &args,
        &[
            Test {
                name: "network_latency_is_rtt_plus_loopback",
                run: latency_is_rtt_plus_loopback,
                needs_net: true,
            },
            Test {
                name: "network_client_study_downloads_over_the_link",
                run: client_study_over_the_link,
                needs_net: true,
            },
            Test {
                name: "network_crash_leaves_nothing",
                run: crash_leaves_nothing,
                needs_net: true,
            },
            Test {
                name: "network_without_privileges_says_what_is_missing",
                run: without_privileges,
                needs_net: true,
            },
        ],
    );
}

fn study_main(file: &Path, out: &Path) -> i32 {
    barrage_lab::supervise::install_interrupt_cleanup().unwrap();
    let s = study::load(file).unwrap();
    match runner::run(&s, &opts(out), &NoProgress) {
        Ok(r) if r.status == "complete" => 0,
        Ok(_) => 130,
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("barrage-net-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn opts(out: &Path) -> RunOptions {
    RunOptions {
        out_dir: out.to_path_buf(),
        barrage_exe: std::env::current_exe().unwrap(),
        study_file: "test.toml".into(),
    }
}

fn run_src(src: &str, out: &Path) -> Results {
    let s = study::parse(src, "test.toml", Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
    runner::run(&s, &opts(out), &NoProgress).unwrap()
}

const SERVE: &str = r#"
[[contender]]
name = "barrage-serve"
start = "{barrage} serve --addr {addr}"
ready = "tcp"
"#;

fn latency_is_rtt_plus_loopback() {
    let out = scratch("latency");
    let src = format!(
        r#"
[study]
name = "rtt"
trials = 1
pin = false

[load]
connections = 1
duration = "2s"

[[load.variant]]
name = "loopback"

[[load.variant]]
name = "wan"
[load.variant.network]
rtt = "50ms"
{SERVE}"#
    );
    let r = run_src(&src, &out);
    assert_eq!(r.status, "complete");
    validate_schema(&out);
    let p50 = |variant: &str| {
        let p = r.points.iter().find(|p| p.label == variant).unwrap();
        let t = r.trials.iter().find(|t| t.point == p.id).unwrap();
        assert!(t.ok, "{variant}: {:?}", t.failure);
        (t.metrics.latency_p50_us.unwrap(), t)
    };
    let (lo, lo_t) = p50("loopback");
    let (wan, wan_t) = p50("wan");
    assert!(lo_t.network.is_none());
    let net = wan_t.network.as_ref().expect("the link's record");
    assert_eq!(net.path, "tun");
    assert!(net.packets > 40, "{net:?}");
    let want = 50_000.0 + lo;
    eprintln!("p50 loopback {lo} µs, rtt 50ms {wan} µs (want {want}); link {net:?}");
    assert!(
        (wan - want).abs() <= 0.05 * 50_000.0,
        "p50 over rtt 50ms is {wan} µs, loopback {lo} µs"
    );
    let point = r.points.iter().find(|p| p.label == "wan").unwrap();
    assert_eq!(
        point.network.as_ref().map(|n| n.to_string()).as_deref(),
        Some("rtt 50ms")
    );
    // The terminal table and the report's first screen say which network each point ran on.
    let table = barrage_report::terminal::table(&r);
    assert!(table.contains("rtt 50ms"), "{table}");
    let _ = std::fs::remove_dir_all(&out);
}

fn client_study_over_the_link() {
    let out = scratch("client");
    let src = r#"
[study]
name = "client-net"
trials = 1
pin = false
trial_timeout = "30s"

[network]
rtt = "20ms"
rate = "50mbit"

[client]
path = "/bytes/{size}"
params = { size = 2000000 }

[client.expect]
file = "{out}"
file_size = "{size}"
file_pattern = true

[[contender]]
name = "curl"
requires = ["curl"]
start = "curl -sS -o {out} {url}"
"#;
    let r = run_src(src, &out);
    assert_eq!(r.status, "complete");
    let t = &r.trials[0];
    assert!(t.ok, "{:?} {:?}", t.failure, t.validation);
    let wall = t.metrics.wall_s.unwrap();
    // 2 MB at 50 Mbit/s is 0.33 s on the wire, plus the handshake's and request's round trips.
    assert!(wall > 0.36, "{wall} s: the download did not cross the link");
    let net = t.network.as_ref().unwrap();
    assert!(net.bytes > 2_000_000, "{net:?}");
    validate_schema(&out);
    let _ = std::fs::remove_dir_all(&out);
}

/// Net namespaces that have processes in them, system-wide.
fn namespaces() -> Vec<String> {
    let o = Command::new("lsns")
        .args(["-t", "net", "-n", "-o", "NS"])
        .output()
        .unwrap();
    let mut v: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| l.trim().to_string())
        .collect();
    v.sort();
    v
}

fn net_ns_of(pid: i32) -> Option<PathBuf> {
    std::fs::read_link(format!("/proc/{pid}/ns/net")).ok()
}

fn children_of(pid: i32) -> Vec<i32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(p) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let after = &stat[stat.rfind(')').unwrap_or(0) + 2..];
        let ppid: i32 = after
            .split_whitespace()
            .nth(1)
            .and_then(|x| x.parse().ok())
            .unwrap_or(0);
        if ppid == pid {
            out.push(p);
        }
    }
    out
}

fn crash_leaves_nothing() {
    let out = scratch("crash");
    let file = out.join("study.toml");
    std::fs::write(
        &file,
        format!(
            "[study]\nname = \"crash\"\ntrials = 1\n[load]\nconnections = 2\nduration = \"60s\"\n[network]\nrtt = \"10ms\"\n{SERVE}"
        ),
    )
    .unwrap();
    let before = namespaces();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .arg("study")
        .arg(&file)
        .arg(out.join("results"))
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    // Wait for the contender to run in a namespace of its own.
    let deadline = Instant::now() + Duration::from_secs(20);
    let contender = loop {
        let mine = net_ns_of(std::process::id() as i32);
        if let Some(c) = children_of(pid)
            .into_iter()
            .find(|c| net_ns_of(*c).is_some() && net_ns_of(*c) != mine)
        {
            break c;
        }
        assert!(Instant::now() < deadline, "no contender in a namespace");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_ne!(
        namespaces(),
        before,
        "the contender's namespace shows in lsns"
    );
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: SIGKILL to the child we spawned.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    child.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while Path::new(&format!("/proc/{contender}")).exists() || namespaces() != before {
        assert!(
            Instant::now() < deadline,
            "after barrage's SIGKILL: contender {contender} alive: {}, namespaces {:?} (before {:?})",
            Path::new(&format!("/proc/{contender}")).exists(),
            namespaces(),
            before
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = std::fs::remove_dir_all(&out);
}

fn without_privileges() {
    let out = scratch("unprivileged");
    let file = out.join("study.toml");
    std::fs::write(
        &file,
        format!(
            "[study]\nname = \"u\"\n[load]\nduration = \"1s\"\n[network]\nrtt = \"10ms\"\n{SERVE}"
        ),
    )
    .unwrap();
    // Everyone may read the test binary and write the scratch directory.
    let _ = Command::new("chmod")
        .args(["-R", "a+rwX"])
        .arg(&out)
        .status();
    let o = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(std::env::current_exe().unwrap())
        .arg("study")
        .arg(&file)
        .arg(out.join("results"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let line = err.lines().find(|l| l.starts_with("error: ")).unwrap_or("");
    assert!(
        line.contains("[network]: an emulated network needs root (CAP_SYS_ADMIN)"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

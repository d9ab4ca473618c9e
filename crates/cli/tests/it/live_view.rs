//! `barrage load`'s live view, seen in a terminal: tmux runs the load against `barrage serve`
//! on loopback; captures of the pane during the run show its progress, and at the end hold the
//! figures of the run's JSON document. Ctrl-C in the terminal still ends with the summary and
//! the JSON. Each tmux runs on a socket of its own, killed at the end.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use barrage_testkit::Proc;

/// A tmux server of its own, killed when dropped.
struct Tmux(String);

impl Tmux {
    fn start(name: &str, cmd: &str) -> Tmux {
        let t = Tmux(format!("barrage-test-{name}-{}", std::process::id()));
        let ok = t
            .run(&["new-session", "-d", "-x", "150", "-y", "60", cmd])
            .status
            .success();
        assert!(ok, "tmux cannot start");
        t
    }
    fn run(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .args(["-L", &self.0])
            .args(args)
            .output()
            .unwrap()
    }
    /// The screen and its scrollback, lines joined.
    fn capture(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-J", "-S", "-200"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

fn have_tmux() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "tmux is not installed (scripts/test installs it)"
        );
        eprintln!("SKIPPED: tmux is not installed");
    }
    ok
}

fn serve() -> (Proc, String) {
    let mut p = Proc(
        Command::new(env!("CARGO_BIN_EXE_barrage"))
            .args(["serve", "--addr", "127.0.0.1:0", "--threads", "1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    BufReader::new(p.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_string();
    (p, addr)
}

fn json_path(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("barrage-live-{name}-{}.json", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

/// The document once it is written whole.
fn wait_json(p: &Path) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(v) = std::fs::read_to_string(p)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
        {
            let _ = std::fs::remove_file(p);
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "no JSON document at {}",
            p.display()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Captures until `want` is on the screen.
fn wait_screen(t: &Tmux, want: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let s = t.capture();
        if s.contains(want) {
            return s;
        }
        assert!(Instant::now() < deadline, "never saw {want:?} on:\n{s}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The live view's own lines: from its title to the summary's (both start `barrage load`).
fn view(screen: &str) -> String {
    let summary = screen
        .rfind("barrage load GET")
        .expect("the summary's title");
    let from = screen[..summary]
        .rfind("barrage load GET")
        .expect("the view's title");
    screen[from..summary].to_string()
}

fn check_view(screen: &str, doc: &Value) {
    let v = view(screen);
    let requests = doc["requests"].as_u64().unwrap();
    let written = doc["requests_written"].as_u64().unwrap();
    let errors = doc["errors"]["total"].as_u64().unwrap();
    assert!(
        v.contains(&format!(
            "responses {requests}  errors {errors}  written {written}"
        )),
        "the view lacks the JSON's counts ({requests}, {errors}, {written}):\n{v}"
    );
    let status = doc["status"].as_object().unwrap();
    let codes: Vec<String> = status.iter().map(|(c, n)| format!("{c} {n}")).collect();
    assert!(v.contains(&format!("status  {}", codes.join("  "))), "{v}");
    assert!(
        v.contains(&format!(
            "latency so far ({} responses)",
            doc["latency_us"]["count"]
        )),
        "{v}"
    );
    assert!(v.contains("histogram so far"), "{v}");
    assert!(v.contains("done, "), "{v}");
    // The summary follows the view.
    assert!(
        screen.contains(&format!("{requests} requests in ")),
        "{screen}"
    );
}

#[test]
fn the_live_view_shows_the_runs_figures() {
    if !have_tmux() {
        return;
    }
    let (_server, addr) = serve();
    let json = json_path("run");
    let cmd = format!(
        "{} load http://{addr}/ -c 2 -t 1 -d 3s --warmup 1s --json {}; sleep 60",
        env!("CARGO_BIN_EXE_barrage"),
        json.display()
    );
    let t = Tmux::start("run", &cmd);
    // While it runs: the warmup, then the measured window's progress.
    let s = wait_screen(&t, "warmup");
    assert!(s.contains("barrage load GET http://"), "{s}");
    let s = wait_screen(&t, "s of 3s  [#");
    assert!(s.contains("throughput  "), "{s}");
    let doc = wait_json(&json);
    let s = wait_screen(&t, "r:");
    check_view(&s, &doc);
}

#[test]
fn ctrl_c_ends_with_the_summary_and_the_json() {
    if !have_tmux() {
        return;
    }
    let (_server, addr) = serve();
    let json = json_path("ctrl-c");
    let cmd = format!(
        "{} load http://{addr}/ -c 2 -t 1 -d 60s --json {}; sleep 60",
        env!("CARGO_BIN_EXE_barrage"),
        json.display()
    );
    let t = Tmux::start("ctrl-c", &cmd);
    wait_screen(&t, "s of 60s  [");
    std::thread::sleep(Duration::from_millis(1500));
    assert!(t.run(&["send-keys", "C-c"]).status.success());
    let doc = wait_json(&json);
    assert_eq!(doc["cancelled"], true);
    let s = wait_screen(&t, "r:");
    check_view(&s, &doc);
}

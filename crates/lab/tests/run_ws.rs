//! A study with a WebSocket load beside an HTTP one (own `main`, no libtest harness: this binary
//! is also the contender `{barrage} serve --addr 127.0.0.1:{port}`, answering with barrage's
//! server library): variant `http` POSTs `ping` to `/echo`, variant `ws` (`ws = true`) upgrades
//! `/ws/echo` and sends `ping` as one message per request; both validate the echoed `ping`, and
//! the ws trials report their handshakes.

use barrage_lab::runner::{self, NoProgress, RunOptions};
use barrage_lab::study;
use std::path::Path;

mod common;
use common::{validate_schema, Test};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("serve") {
        return common::serve(&args[2..], |addr, _| barrage_server::ServerConfig {
            addr,
            threads: 1,
            ..Default::default()
        });
    }
    common::run_tests(
        &args,
        &[Test {
            name: "run_ws_and_http_variants_end_to_end",
            run: ws_and_http_variants,
            needs_net: false,
        }],
    );
}

const STUDY: &str = r#"
[study]
name = "ws"
trials = 1
warmup = "0s"             # every handshake in the measured window
cooldown = "0s"
sample_interval = "50ms"
stop_grace = "2s"

[load]
body = "ping"
expect_body = "ping"
connections = [1, 3]
duration = "300ms"
timeout = "2s"

[[load.variant]]
name = "http"
method = "POST"
path = "/echo"
expect_status = 200

[[load.variant]]
name = "ws"
ws = true
path = "/ws/echo"

[[contender]]
name = "barrage-serve"
start = "{barrage} serve --addr 127.0.0.1:{port}"
ready = "tcp"
"#;

fn ws_and_http_variants() {
    let out = std::env::temp_dir().join(format!("barrage-lab-ws-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let s = study::parse(STUDY, "ws.toml", Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
    let opts = RunOptions {
        out_dir: out.clone(),
        barrage_exe: std::env::current_exe().unwrap(),
        study_file: "ws.toml".into(),
    };
    let r = runner::run(&s, &opts, &NoProgress).unwrap();
    assert_eq!(r.status, "complete");
    assert_eq!(r.trials.len(), 4);
    let mut ws_trials = 0;
    for t in &r.trials {
        assert!(t.ok, "trial failed: {:?}", t.failure);
        let m = &t.metrics;
        assert!(m.requests.unwrap() > 0, "{}: no requests", t.point);
        assert_eq!(m.errors, Some(0), "{}: errors", t.point);
        let load = &t.phases[0].load;
        let point = &r.points[t.point];
        match point.variant.as_deref() {
            Some("ws") => {
                ws_trials += 1;
                let ws = barrage_model::load::Ws::of(&load.protocol)
                    .expect("a ws load reports its handshakes");
                let conns = point.phases[0].load.connections as u64;
                assert!(ws.handshakes >= conns, "{} handshakes", ws.handshakes);
                assert!(point.phases[0].load.protocol.is_ws());
            }
            Some("http") => assert!(
                barrage_model::load::Ws::of(&load.protocol).is_none(),
                "an HTTP load has no ws figures"
            ),
            v => panic!("unexpected variant {v:?}"),
        }
    }
    assert_eq!(ws_trials, 2);
    validate_schema(&out);
    assert!(barrage_lab::supervise::live_groups().is_empty());
    let _ = std::fs::remove_dir_all(&out);
}

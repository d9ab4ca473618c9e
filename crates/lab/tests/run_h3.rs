//! Studies over TLS and HTTP/3 (own `main`, no libtest harness: this binary is also the
//! contender `{barrage} serve --addr ADDR`, barrage's server library with a self-signed
//! certificate and HTTP/3 on UDP at the TCP port's number). On loopback, an h2-over-TLS variant
//! (`tls = true`, h2 by ALPN) and an h3 variant (`http3 = true`) at 1 and 10 streams, `insecure`
//! for the certificate, every response checked: no errors, the counts adding up, one QUIC
//! handshake per connection. Over an emulated link with loss (root and /dev/net/tun, else that
//! test is skipped as in run_network.rs): QUIC's datagrams cross the TUN link, some are dropped
//! and QUIC recovers them, and the load still has no errors. An h3 point waits for the
//! contender's UDP socket, past a TCP probe that passed: a server without one is never ready.

use barrage_lab::results::{Results, Trial};
use barrage_lab::runner::{self, NoProgress, RunOptions};
use barrage_lab::study;
use std::path::{Path, PathBuf};

mod common;
use common::{validate_schema, Test};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("serve") {
        // `serve --addr ADDR [--no-http3]`: over TLS (self-signed), with HTTP/3 or without.
        return common::serve(&args[2..], |addr, args| barrage_server::ServerConfig {
            addr,
            threads: 1,
            tls: Some(barrage_server::Tls::SelfSigned),
            http3: !args.iter().any(|a| a == "--no-http3"),
            ..Default::default()
        });
    }
    common::run_tests(
        &args,
        &[
            Test {
                name: "h3_and_h2_over_tls_on_loopback",
                run: on_loopback,
                needs_net: false,
            },
            Test {
                name: "h3_and_h2_over_a_lossy_link",
                run: over_a_lossy_link,
                needs_net: true,
            },
            Test {
                name: "h3_waits_for_the_udp_socket",
                run: waits_for_the_udp_socket,
                needs_net: false,
            },
        ],
    );
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("barrage-h3-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn run_src(src: &str, out: &Path) -> Results {
    let s = study::parse(src, "h3.toml", Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
    let opts = RunOptions {
        out_dir: out.to_path_buf(),
        barrage_exe: std::env::current_exe().unwrap(),
        study_file: "h3.toml".into(),
    };
    runner::run(&s, &opts, &NoProgress).unwrap()
}

/// The study's common part: `{addr}` is the contender's address on loopback and on a link.
const COMMON: &str = r#"
[study]
name = "h3"
trials = 1
pin = false
warmup = "0s"             # every handshake in the measured window
cooldown = "0s"
sample_interval = "50ms"
stop_grace = "2s"
max_errors = 0

[[contender]]
name = "barrage-serve"
start = "{barrage} serve --addr {addr}"
ready = "tcp"

[load]
path = "/"
expect_status = 200
expect_body = "Hello, World!"
insecure = true
connections = 2
"#;

/// Checks one trial's phase against its point: valid answers only, the counts adding up, the
/// URL's scheme, and the protocol's own figures. Returns the phase's requests.
fn check_trial(r: &Results, t: &Trial) -> u64 {
    let point = &r.points[t.point];
    assert!(t.ok, "{}: {:?}", point.label, t.failure);
    assert_eq!(t.metrics.errors, Some(0), "{}", point.label);
    let want = &point.phases[0].load;
    let doc = &t.phases[0].load;
    assert!(doc.requests > 0, "{}: no responses", point.label);
    assert_eq!(
        doc.status.get("200"),
        Some(&doc.requests),
        "{}",
        point.label
    );
    assert_eq!(doc.errors.total(), 0, "{}", point.label);
    assert_eq!(
        doc.requests_written,
        doc.requests + doc.in_flight,
        "{}: written = answered + in flight",
        point.label
    );
    let conns = want.connections as u64;
    // No more in flight at the stop than the connections' streams allow.
    assert!(doc.in_flight <= conns * want.protocol.streams() as u64);
    let url = doc.config["url"].as_str().unwrap();
    assert!(url.starts_with("https://") && url.ends_with('/'), "{url}");
    match want.protocol.name() {
        "h3" => {
            let h3 =
                barrage_model::load::Http3::of(&doc.protocol).expect("an h3 load reports QUIC");
            assert_eq!(h3.streams_asked, want.protocol.streams());
            // No errors: every connection made its one handshake and kept it.
            assert_eq!((h3.connections, h3.handshakes), (conns, conns), "{h3:?}");
            assert_eq!(h3.streams, doc.requests_written, "{h3:?}");
            assert!(h3.datagrams_received > 0 && h3.packets_sent > 0, "{h3:?}");
            assert!(barrage_model::load::Http2::of(&doc.protocol).is_none());
        }
        "h2" => {
            assert!(
                barrage_model::load::Http2::of(&doc.protocol).is_some(),
                "h2 by ALPN reports HTTP/2's figures"
            );
            assert!(barrage_model::load::Http3::of(&doc.protocol).is_none());
            assert_eq!(doc.connects, conns);
        }
        p => panic!("{}: unexpected protocol {p}", point.label),
    }
    doc.requests
}

fn on_loopback() {
    let out = scratch("loopback");
    let src = format!(
        r#"{COMMON}
duration = "300ms"
timeout = "2s"
streams = [1, 10]

[[load.variant]]
name = "h2"
http2 = true
tls = true

[[load.variant]]
name = "h3"
http3 = true
"#
    );
    let r = run_src(&src, &out);
    assert_eq!(r.status, "complete");
    let labels: Vec<&str> = r.points.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "h2 streams=1",
            "h2 streams=10",
            "h3 streams=1",
            "h3 streams=10"
        ]
    );
    assert_eq!(r.trials.len(), 4);
    for t in &r.trials {
        let n = check_trial(&r, t);
        eprintln!("  {}: {n} responses", r.points[t.point].label);
        assert!(r.points[t.point].phases[0].tls);
    }
    validate_schema(&out);
    let _ = std::fs::remove_dir_all(&out);
}

fn over_a_lossy_link() {
    let out = scratch("lossy");
    let src = format!(
        r#"{COMMON}
duration = "2s"
timeout = "5s"
streams = 10

[network]
rtt = "10ms"
loss = "2%"

[[load.variant]]
name = "h2"
http2 = true
tls = true

[[load.variant]]
name = "h3"
http3 = true
"#
    );
    let r = run_src(&src, &out);
    assert_eq!(r.status, "complete");
    assert_eq!(r.trials.len(), 2);
    for t in &r.trials {
        let label = &r.points[t.point].label;
        let n = check_trial(&r, t);
        let net = t.network.as_ref().expect("the link's record");
        eprintln!("  {label}: {n} responses; link {net:?}");
        assert_eq!(net.path, "tun");
        // 2% of the packets both ways: a few hundred packets make some drops certain enough
        // (the draws are seeded by point and trial, so a run repeats them).
        assert!(net.packets > 200, "{label}: {net:?}");
        assert!(net.dropped_loss > 0, "{label}: {net:?}");
        if let Some(h3) = barrage_model::load::Http3::of(&t.phases[0].load.protocol) {
            // QUIC's datagrams crossed the link, and QUIC saw some of them lost.
            assert!(h3.datagrams_sent > 100, "{h3:?}");
            assert!(h3.packets_lost > 0, "{h3:?}");
        }
    }
    validate_schema(&out);
    let _ = std::fs::remove_dir_all(&out);
}

fn waits_for_the_udp_socket() {
    let out = scratch("noudp");
    let src = format!(
        r#"{COMMON}
duration = "300ms"
http3 = true

[[contender]]
name = "tcp-only"
start = "{{barrage}} serve --addr {{addr}} --no-http3"
ready = {{ kind = "tcp", timeout = "1s" }}
"#
    );
    let r = run_src(&src, &out);
    assert_eq!(r.status, "complete");
    let t = r.trials.iter().find(|t| t.contender == "tcp-only").unwrap();
    let f = t.failure.as_ref().expect("never ready");
    assert_eq!(f.kind.to_string(), "never_ready", "{f:?}");
    assert!(f.message.contains("no UDP socket bound at port"), "{f:?}");
    assert!(t.phases.is_empty(), "no load ran: {:?}", t.phases.len());
    // The same server with its UDP socket is ready and answers.
    let ok = r
        .trials
        .iter()
        .find(|t| t.contender == "barrage-serve")
        .unwrap();
    check_trial(&r, ok);
    let _ = std::fs::remove_dir_all(&out);
}

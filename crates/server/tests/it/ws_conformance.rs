//! `/ws/echo` against an independent client: Python's `websockets` (PyPI; scripts/test installs
//! it in its tools venv) drives barrage serve over ws and over wss (TLS, self-signed) through
//! `ws_peers/echo_client.py`, which prints what it saw; the answers are checked here. Covered,
//! in Autobahn's terms: framing and echo of every length form, text and binary (1.x, 9.x in
//! small), pings and pongs (2.x), reserved bits (3.x), opcodes (4.x), fragmentation with
//! control frames between fragments (5.x), UTF-8 in whole and fragmented messages and close
//! reasons (6.x), the close handshake and its codes, valid and invalid (7.x), and limits.

use crate::common;

use barrage_server::{ServerConfig, Tls};
use common::server_with;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Python that has websockets (barrage_testkit::python_required).
fn python() -> PathBuf {
    barrage_testkit::python_required("websockets.sync.client", "websockets")
}

/// Runs the client against `base`; its reports, by case (several for a repeated case).
fn drive(base: &str) -> Vec<Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ws_peers/echo_client.py");
    let out = Command::new(python())
        .arg(script)
        .arg(base)
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "echo_client.py failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn find<'a>(seen: &'a [Value], case: &str) -> Vec<&'a Value> {
    seen.iter().filter(|v| v["case"] == case).collect()
}

fn one<'a>(seen: &'a [Value], case: &str) -> &'a Value {
    let v = find(seen, case);
    assert_eq!(v.len(), 1, "one report of {case:?} in {seen:?}");
    v[0]
}

#[test]
fn websockets_client_over_ws_and_wss() {
    for tls in [false, true] {
        let s = server_with(ServerConfig {
            threads: 1,
            ws_max_message: 2 << 20,
            tls: tls.then_some(Tls::SelfSigned),
            ..ServerConfig::default()
        });
        let scheme = if tls { "wss" } else { "ws" };
        let seen = drive(&format!("{scheme}://127.0.0.1:{}", s.local_addr().port()));
        one(&seen, "done");

        for kind in ["text", "binary"] {
            let sizes: Vec<(u64, bool)> = find(&seen, kind)
                .iter()
                .map(|v| (v["size"].as_u64().unwrap(), v["ok"] == true))
                .collect();
            let want: Vec<(u64, bool)> = [0, 125, 126, 65535, 65536, 1 << 20]
                .into_iter()
                .map(|n| (n, true))
                .collect();
            assert_eq!(sizes, want, "{scheme} {kind} echoes");
        }
        for case in [
            "unicode",
            "fragmented text",
            "fragmented binary",
            "ping between fragments",
            "ping",
            "ping empty",
        ] {
            assert_eq!(one(&seen, case)["ok"], true, "{scheme} {case}");
        }
        assert_eq!(one(&seen, "close 4000")["code"], 4000);
        assert_eq!(one(&seen, "close 1000")["code"], 1000);

        let refused = [
            ("invalid utf-8", 1007),
            ("invalid utf-8 in fragments", 1007),
            ("invalid utf-8 in close reason", 1007),
            ("unmasked frame", 1002),
            ("reserved bits", 1002),
            ("reserved opcode 3", 1002),
            ("reserved opcode 11", 1002),
            ("continuation first", 1002),
            ("text inside a message", 1002),
            ("ping of 126 bytes", 1002),
            ("fragmented ping", 1002),
            ("close of one byte", 1002),
            ("close code 1005", 1002),
            ("close code 1006", 1002),
            ("close code 1015", 1002),
            ("close code 999", 1002),
            ("close code 5000", 1002),
            ("too big", 1009),
            ("too big in fragments", 1009),
        ];
        for (case, code) in refused {
            assert_eq!(one(&seen, case)["code"], code, "{scheme} {case}");
        }
        let accepted = find(&seen, "close accepted");
        assert_eq!(accepted.len(), 14);
        for v in accepted {
            assert_eq!(v["code"], v["sent"], "{scheme} {v}");
        }

        let delay = one(&seen, "delay");
        assert_eq!(delay["got"], serde_json::json!(["one", "two", "three"]));
        assert!(delay["elapsed_ms"].as_u64().unwrap() >= 200, "{delay}");

        let fault = one(&seen, "fault close");
        assert_eq!(
            (&fault["first"], &fault["code"]),
            (&"first".into(), &4001.into())
        );
        // Dropped and reset: closed without a Close frame.
        assert_eq!(one(&seen, "fault drop")["code"], -1);
        assert_eq!(one(&seen, "fault reset")["code"], -1);
        assert_eq!(one(&seen, "fault stall")["stalled"], true);

        let stats = s.stats();
        // Every connection the client opened was upgraded: 2 + 19 + 14 + 1 + 4.
        assert_eq!(stats.ws_upgrades, 40, "{scheme}");
        assert_eq!(
            stats.ws_closes,
            vec![(1002, 14), (1007, 3), (1009, 2), (0, 1)],
            "{scheme}: the closes the server began"
        );
        assert!(
            stats.responses.contains(&("http/1.1", 101, 40)),
            "{stats:?}"
        );
    }
}

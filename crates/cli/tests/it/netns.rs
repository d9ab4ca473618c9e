//! A multi-host sharded run on one machine: the test makes a network namespace for the server
//! and one per shard (`ip netns`), each shard with its own address on a bridge in the server's
//! namespace (veth pairs). `barrage serve --log` answers in its namespace; three `barrage load
//! --shard I/3 --start-at T` run in theirs; `barrage merge` of their documents counts exactly
//! the responses the server logged. Skipped, with the reason, where namespaces cannot be made
//! (not root, no `ip`, no CAP_NET_ADMIN).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

const SHARDS: u32 = 3;

/// The namespaces (and with them their veth ends and the bridge), removed when dropped.
struct Net {
    server: String,
    shards: Vec<String>,
}

impl Drop for Net {
    fn drop(&mut self) {
        for ns in self.shards.iter().chain([&self.server]) {
            let _ = Command::new("ip").args(["netns", "del", ns]).status();
        }
    }
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Server namespace with bridge 10.77.0.1/24; shard i at 10.77.0.(10+i) on a veth to it.
fn make_net() -> Result<Net, String> {
    let tag = std::process::id() % 100_000;
    let net = Net {
        server: format!("bt-srv-{tag}"),
        shards: (1..=SHARDS).map(|i| format!("bt-sh{i}-{tag}")).collect(),
    };
    ip(&["netns", "add", &net.server])?;
    for ns in &net.shards {
        ip(&["netns", "add", ns])?;
    }
    let s = net.server.as_str();
    ip(&["-n", s, "link", "set", "lo", "up"])?;
    ip(&["-n", s, "link", "add", "br0", "type", "bridge"])?;
    ip(&["-n", s, "addr", "add", "10.77.0.1/24", "dev", "br0"])?;
    ip(&["-n", s, "link", "set", "br0", "up"])?;
    for (i, ns) in net.shards.iter().enumerate() {
        // Interface names are at most 15 bytes and unique while both ends are in this namespace.
        let (a, b) = (format!("bta{tag}x{i}"), format!("btb{tag}x{i}"));
        ip(&["link", "add", &a, "type", "veth", "peer", "name", &b])?;
        ip(&["link", "set", &a, "netns", ns])?;
        ip(&["link", "set", &b, "netns", s])?;
        ip(&["-n", s, "link", "set", &b, "master", "br0"])?;
        ip(&["-n", s, "link", "set", &b, "up"])?;
        let addr = format!("10.77.0.{}/24", 10 + i);
        ip(&["-n", ns, "addr", "add", &addr, "dev", &a])?;
        ip(&["-n", ns, "link", "set", &a, "up"])?;
        ip(&["-n", ns, "link", "set", "lo", "up"])?;
    }
    Ok(net)
}

struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn shards_in_their_own_namespaces_merge_to_what_the_server_answered() {
    let net = match make_net() {
        Ok(n) => n,
        Err(why) => {
            eprintln!("SKIPPED: cannot make network namespaces here ({why})");
            return;
        }
    };
    let bin = env!("CARGO_BIN_EXE_barrage");
    let mut server = Command::new("ip")
        .args(["netns", "exec", &net.server, bin, "serve"])
        .args(["--addr", "10.77.0.1:0", "--threads", "1", "--log"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("barrage serve starts");
    let mut first = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let addr = first.trim().trim_start_matches("listening on ").to_string();
    assert!(addr.starts_with("10.77.0.1:"), "{first:?}");
    // The access log, one line per response, read until the server stops.
    let log = server.stderr.take().unwrap();
    let server = Reaped(server);
    // (Other lines on stderr, such as the shutdown notice, are not responses.)
    let counter = std::thread::spawn(move || {
        BufReader::new(log)
            .lines()
            .map_while(Result::ok)
            .filter(|l| l.starts_with("GET / "))
            .count()
    });

    let dir = std::env::temp_dir().join(format!("barrage-netns-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let start_at = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 2)
    .to_string();
    let url = format!("http://{addr}/");
    let shards: Vec<(Child, std::path::PathBuf)> = net
        .shards
        .iter()
        .enumerate()
        .map(|(i, ns)| {
            let json = dir.join(format!("shard{}.json", i + 1));
            let child = Command::new("ip")
                .args(["netns", "exec", ns, bin, "load", &url])
                .args(["-c", "6", "-t", "1", "-n", "900", "--expect-status", "200"])
                .args(["--shard", &format!("{}/{SHARDS}", i + 1)])
                .args(["--start-at", &start_at, "--json"])
                .arg(&json)
                .stdout(Stdio::null())
                .spawn()
                .expect("barrage load starts");
            (child, json)
        })
        .collect();
    let mut files = Vec::new();
    for (mut child, json) in shards {
        assert!(child.wait().unwrap().success());
        files.push(json);
    }
    // Each shard ran from its own address.
    let peers: Vec<String> = files
        .iter()
        .map(|f| {
            let d: serde_json::Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
            assert_eq!(d["requests"], 300, "{}", f.display());
            d["config"]["shard"]["index"].to_string()
        })
        .collect();
    assert_eq!(peers, ["1", "2", "3"]);
    let merged = dir.join("merged.json");
    let out = Command::new(bin)
        .arg("merge")
        .args(&files)
        .arg("-o")
        .arg(&merged)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(&merged).unwrap()).unwrap();
    // A graceful stop, so the access log is whole.
    let mut server = server;
    let _ = Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status();
    let _ = server.0.wait();
    let answered = counter.join().unwrap() as u64;
    assert_eq!(m["requests"], 900);
    assert_eq!(m["errors"]["total"], 0);
    assert_eq!(
        answered, 900,
        "the server logged every response, and no other"
    );
    assert_eq!(m["merged"]["shards"], 3);
    assert!(m["merged"]["start_spread_s"].as_f64().unwrap() < 1.0);
    let _ = std::fs::remove_dir_all(&dir);
}

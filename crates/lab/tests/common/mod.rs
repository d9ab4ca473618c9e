//! Shared by the lab's integration tests: the results file checked against its JSON Schema.

use std::path::Path;

/// Asserts that `out/results.json` matches docs/schema/study.schema.json.
pub fn validate_schema(out: &Path) {
    let schema_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schema/study.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let v = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = v
        .iter_errors(&doc)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .take(10)
        .collect();
    assert!(
        errors.is_empty(),
        "results.json does not match the schema:\n{}",
        errors.join("\n")
    );
}

/// One test of a binary without libtest's harness (these binaries are also the contenders their
/// studies start): its name, its body, and whether it needs network namespaces (root and
/// /dev/net/tun; skipped with a line without them).
pub struct Test {
    pub name: &'static str,
    pub run: fn(),
    pub needs_net: bool,
}

/// Runs the tests `args` select (libtest-style substring filters; flags, and the values of
/// libtest's flags that take one, ignored). A test passes when it returns and leaves `ip netns
/// list` and barrage's process groups as it found them. Exits 101 when one failed.
pub fn run_tests(args: &[String], tests: &[Test]) {
    let mut filter: Vec<&String> = Vec::new();
    let mut skip_value = false;
    for a in &args[1..] {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        if a.starts_with('-') {
            skip_value =
                ["--test-threads", "--skip", "--color", "--format", "-Z"].contains(&a.as_str());
            continue;
        }
        filter.push(a);
    }
    let mut net: Option<bool> = None;
    let mut failed = 0;
    for t in tests {
        if !filter.is_empty() && !filter.iter().any(|p| t.name.contains(p.as_str())) {
            continue;
        }
        if t.needs_net && !*net.get_or_insert_with(can_make_namespaces) {
            eprintln!(
                "test {} ... SKIPPED: network tests need root and /dev/net/tun",
                t.name
            );
            continue;
        }
        eprintln!("test {} ...", t.name);
        let before = netns_list();
        let ok = std::panic::catch_unwind(t.run).is_ok();
        let after = netns_list();
        let groups = barrage_lab::supervise::live_groups();
        if ok && after == before && groups.is_empty() {
            eprintln!("test {} ... ok", t.name);
        } else {
            if after != before {
                eprintln!("ip netns list changed: {before:?} -> {after:?}");
            }
            if !groups.is_empty() {
                eprintln!("process groups left: {groups:?}");
            }
            eprintln!("test {} ... FAILED", t.name);
            failed += 1;
        }
    }
    if failed > 0 {
        eprintln!("{failed} failed");
        std::process::exit(101);
    }
}

fn can_make_namespaces() -> bool {
    barrage_netem::Net::up(&Default::default())
        .map(barrage_netem::Net::down)
        .is_ok()
}

fn netns_list() -> String {
    std::process::Command::new("ip")
        .args(["netns", "list"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// `serve --addr ADDR ...`: barrage's server with `config(ADDR, args)` until killed (the lab
/// stops it with SIGTERM); its address is the first line of stdout.
pub fn serve(
    args: &[String],
    config: impl FnOnce(std::net::SocketAddr, &[String]) -> barrage_server::ServerConfig,
) {
    let addr = args
        .iter()
        .position(|a| a == "--addr")
        .and_then(|i| args.get(i + 1))
        .expect("--addr")
        .parse()
        .expect("socket address");
    let server = barrage_server::start(config(addr, args)).expect("server starts");
    println!("listening on {}", server.local_addr());
    loop {
        std::thread::sleep(std::time::Duration::from_secs(3600));
    }
}

//! `barrage merge` as a process: incompatible files are a one-line error (exit 2), missing
//! shards and far-apart starts are warnings beside a merged document, which says what it holds.

use serde_json::json;
use std::process::Command;

fn doc(index: u32, count: u32, connections: u32, started: f64) -> serde_json::Value {
    json!({
        "schema": "barrage.load/1",
        "requests": 10, "requests_written": 10, "duration_s": 1.0, "threads": 1,
        "status": {"200": 10},
        "target": {"host": "127.0.0.1", "port": 8080},
        "config": {"url": "http://127.0.0.1:8080/", "connections": connections,
                   "shard": {"index": index, "count": count}},
        "started_unix": started
    })
}

#[test]
fn merge_refuses_other_loads_and_warns_of_missing_shards() {
    let dir = std::env::temp_dir().join(format!("barrage-merge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, v: serde_json::Value| {
        let p = dir.join(name);
        std::fs::write(&p, v.to_string()).unwrap();
        p.display().to_string()
    };
    let a = write("a.json", doc(1, 3, 6, 100.0));
    let b = write("b.json", doc(3, 3, 6, 103.0));
    let other = write("other.json", doc(2, 3, 8, 100.0));
    let merged = dir.join("m.json").display().to_string();
    let bin = env!("CARGO_BIN_EXE_barrage");

    let out = Command::new(bin)
        .args(["merge", &a, &other])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim(),
        format!(
            "barrage: {a} and {other} are not runs of the same load: their configurations differ"
        )
    );

    let out = Command::new(bin)
        .args(["merge", &a, &b, "-o", &merged])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: shards 2/3 are missing"), "{err}");
    assert!(
        err.contains("warning: the runs started 3.000 s apart"),
        "{err}"
    );
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(&merged).unwrap()).unwrap();
    assert_eq!(m["requests"], 20);
    assert_eq!(m["status"]["200"], 20);
    assert_eq!(
        (m["merged"]["shards"].clone(), m["merged"]["of"].clone()),
        (json!(2), json!(3))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

//! `barrage cluster k8s --dry-run`: the manifests validate against the official Kubernetes
//! schemas (`kubernetes-validate --strict`, which `scripts/test` installs) and, where a cluster
//! answers, `kubectl apply --dry-run=client`; the pods run their shards with the load's
//! options; bad options are refused in one line before anything is applied.

use std::process::Command;

fn barrage(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_barrage"))
        .args(args)
        .output()
        .expect("barrage runs")
}

fn have(cmd: &str, probe: &[&str]) -> bool {
    Command::new(cmd)
        .args(probe)
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn manifests_validate_against_the_kubernetes_schemas() {
    let dir = std::env::temp_dir().join(format!("barrage-k8s-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let targets = dir.join("api.txt");
    std::fs::write(&targets, "GET /a\n\nPOST /b\nX-B: 1\n").unwrap();
    let mut files = Vec::new();
    for (name, extra) in [("plain", vec![]), ("spread", vec!["--one-per-node"])] {
        let t = targets.display().to_string();
        let mut args = vec![
            "cluster",
            "k8s",
            "--shards",
            "4",
            "--dry-run",
            "--namespace",
            "perf",
        ];
        args.extend(extra);
        args.extend([
            "-c",
            "64",
            "-n",
            "100000",
            "--targets",
            &t,
            "http://svc:8080",
        ]);
        let out = barrage(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let yaml = String::from_utf8(out.stdout).unwrap();
        assert!(
            yaml.contains("completions: 4\n  parallelism: 4\n"),
            "{yaml}"
        );
        assert!(
            yaml.contains("barrage load --shard $((JOB_COMPLETION_INDEX+1))/4 --start-at "),
            "{yaml}"
        );
        assert!(
            yaml.contains("-c 64 -n 100000 --targets /etc/barrage/0-api.txt http://svc:8080"),
            "{yaml}"
        );
        assert!(
            yaml.contains("\"0-api.txt\": \"GET /a\\n\\nPOST /b\\nX-B: 1\\n\""),
            "{yaml}"
        );
        let f = dir.join(format!("{name}.yaml"));
        std::fs::write(&f, yaml).unwrap();
        files.push(f);
    }
    if have("kubernetes-validate", &["--version"]) {
        for f in &files {
            let out = Command::new("kubernetes-validate")
                .arg("--strict")
                .arg(f)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).to_string()
                + &String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{}: {text}", f.display());
            assert_eq!(text.matches("passed for resource").count(), 2, "{text}");
        }
    } else if std::env::var_os("CI").is_some() {
        panic!("kubernetes-validate is not installed (scripts/test installs it with pip)");
    } else {
        eprintln!(
            "SKIPPED: kubernetes-validate is not installed (pip install kubernetes-validate)"
        );
    }
    // kubectl's client-side dry run still asks a server for the API's shape.
    if have("kubectl", &["version", "--request-timeout=2s"]) {
        for f in &files {
            let out = Command::new("kubectl")
                .args(["apply", "--dry-run=client", "-f"])
                .arg(f)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    } else {
        eprintln!("SKIPPED: kubectl apply --dry-run=client: no cluster answers kubectl here");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_cluster_options_are_one_line_errors() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--shards", "3", "--dry-run", "-c", "2", "http://x/"],
            "2 connections cannot be split over 3 shards",
        ),
        (
            &["--shards", "2", "--dry-run", "--shard", "1/2", "http://x/"],
            "set by barrage cluster for each pod",
        ),
        (
            &["--shards", "2", "--dry-run", "--rate", "fast", "http://x/"],
            "invalid value 'fast'",
        ),
        (
            &[
                "--shards",
                "2",
                "--dry-run",
                "--targets",
                "/nonexistent/t.txt",
                "http://x/",
            ],
            "cannot read /nonexistent/t.txt",
        ),
    ];
    for (args, want) in cases {
        let mut all = vec!["cluster", "k8s"];
        all.extend(*args);
        let out = barrage(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(want) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
}

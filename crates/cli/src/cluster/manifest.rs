//! The Kubernetes manifests of a sharded load: an Indexed Job whose pod `i` runs
//! `barrage load --shard i+1/N --start-at T --json -` with the user's load options, spread over
//! nodes by pod anti-affinity, and a ConfigMap holding the files the load reads (targets, body
//! files). Pure: a plan in, YAML text out (every string scalar is JSON-quoted, which YAML reads
//! as the same string, so no value can break the document).

use std::fmt::Write;

/// What the manifests describe.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The Job's name (and the prefix of the ConfigMap's).
    pub name: String,
    pub namespace: Option<String>,
    pub image: String,
    pub shards: u32,
    /// Unix seconds at which every shard starts.
    pub start_at: f64,
    /// The load's options as given, with file paths already pointing into `/etc/barrage`.
    pub load_args: Vec<String>,
    /// Files for the ConfigMap: (key, contents).
    pub files: Vec<(String, String)>,
    /// Resource requests of each pod.
    pub cpu: String,
    pub memory: String,
    /// `required` anti-affinity: at most one shard per node (pods wait when nodes are short);
    /// otherwise `preferred`.
    pub one_per_node: bool,
}

/// Where the ConfigMap is mounted in each pod.
pub const FILES_DIR: &str = "/etc/barrage";

fn q(s: &str) -> String {
    serde_json::to_string(s).expect("a string always encodes")
}

/// `s` as one word for `sh -c`.
pub fn sh_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=@%+,".contains(&b))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The pod's command: the shard from the Job's completion index (0-based), the JSON alone on
/// stdout (so the pod's log is the document; the summary is dropped).
pub fn pod_command(p: &Plan) -> String {
    let mut cmd = format!(
        "exec barrage load --shard $((JOB_COMPLETION_INDEX+1))/{} --start-at {} --json -",
        p.shards, p.start_at
    );
    for a in &p.load_args {
        cmd.push(' ');
        cmd.push_str(&sh_quote(a));
    }
    cmd.push_str(" 2>/dev/null");
    cmd
}

/// The labels every object carries, indented by `pad` spaces.
fn labels(name: &str, pad: usize) -> String {
    let p = " ".repeat(pad);
    format!(
        "{p}app.kubernetes.io/name: \"barrage\"\n{p}barrage.dev/run: {}\n",
        q(name)
    )
}

/// The manifests as one YAML stream (ConfigMap first when there are files, then the Job).
pub fn render(p: &Plan) -> String {
    let mut o = String::new();
    let ns = p
        .namespace
        .as_ref()
        .map(|n| format!("  namespace: {}\n", q(n)))
        .unwrap_or_default();
    let files = format!("{}-files", p.name);
    if !p.files.is_empty() {
        o.push_str("apiVersion: v1\nkind: ConfigMap\nmetadata:\n");
        let _ = write!(
            o,
            "  name: {}\n{ns}  labels:\n{}",
            q(&files),
            labels(&p.name, 4)
        );
        o.push_str("data:\n");
        for (k, v) in &p.files {
            let _ = writeln!(o, "  {}: {}", q(k), q(v));
        }
        o.push_str("---\n");
    }
    o.push_str("apiVersion: batch/v1\nkind: Job\nmetadata:\n");
    let _ = write!(
        o,
        "  name: {}\n{ns}  labels:\n{}",
        q(&p.name),
        labels(&p.name, 4)
    );
    o.push_str("spec:\n  completionMode: \"Indexed\"\n");
    let _ = write!(o, "  completions: {n}\n  parallelism: {n}\n", n = p.shards);
    // One try per shard: a shard run again would start after the others, out of step.
    o.push_str("  backoffLimit: 0\n  ttlSecondsAfterFinished: 3600\n");
    o.push_str("  template:\n    metadata:\n      labels:\n");
    o.push_str(&labels(&p.name, 8));
    o.push_str("    spec:\n      restartPolicy: \"Never\"\n");
    o.push_str("      affinity:\n        podAntiAffinity:\n");
    let selector = format!("matchLabels:\n{}", labels(&p.name, 18));
    if p.one_per_node {
        o.push_str("          requiredDuringSchedulingIgnoredDuringExecution:\n");
        let _ = write!(
            o,
            "          - topologyKey: \"kubernetes.io/hostname\"\n            labelSelector:\n              {}",
            selector.replace(&" ".repeat(18), &" ".repeat(16))
        );
    } else {
        o.push_str("          preferredDuringSchedulingIgnoredDuringExecution:\n");
        o.push_str("          - weight: 100\n            podAffinityTerm:\n");
        o.push_str("              topologyKey: \"kubernetes.io/hostname\"\n");
        let _ = write!(
            o,
            "              labelSelector:\n                {selector}"
        );
    }
    o.push_str("      containers:\n      - name: \"barrage\"\n");
    let _ = writeln!(o, "        image: {}", q(&p.image));
    let _ = writeln!(
        o,
        "        command: [\"sh\", \"-c\", {}]",
        q(&pod_command(p))
    );
    o.push_str("        resources:\n          requests:\n");
    let _ = writeln!(
        o,
        "            cpu: {}\n            memory: {}",
        q(&p.cpu),
        q(&p.memory)
    );
    if !p.files.is_empty() {
        o.push_str("        volumeMounts:\n        - name: \"files\"\n");
        let _ = writeln!(
            o,
            "          mountPath: {}\n          readOnly: true",
            q(FILES_DIR)
        );
        o.push_str("      volumes:\n      - name: \"files\"\n        configMap:\n");
        let _ = writeln!(o, "          name: {}", q(&files));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Plan {
        Plan {
            name: "barrage-load".into(),
            namespace: Some("perf".into()),
            image: "ghcr.io/x/barrage:0.1.0".into(),
            shards: 4,
            start_at: 1767225600.0,
            load_args: vec![
                "-c".into(),
                "64".into(),
                "--targets".into(),
                "/etc/barrage/targets.txt".into(),
                "-H".into(),
                "X-Note: it's".into(),
                "http://svc:8080".into(),
            ],
            files: vec![("targets.txt".into(), "GET /a\n\nGET /b\n".into())],
            cpu: "2".into(),
            memory: "512Mi".into(),
            one_per_node: false,
        }
    }

    #[test]
    fn the_pod_runs_its_shard_with_the_load_options() {
        assert_eq!(
            pod_command(&plan()),
            "exec barrage load --shard $((JOB_COMPLETION_INDEX+1))/4 --start-at 1767225600 \
             --json - -c 64 --targets /etc/barrage/targets.txt -H 'X-Note: it'\\''s' \
             http://svc:8080 2>/dev/null"
        );
        assert_eq!(sh_quote(""), "''");
        assert_eq!(sh_quote("a b"), "'a b'");
    }

    #[test]
    fn manifests_hold_the_job_and_its_files() {
        let y = render(&plan());
        for want in [
            "kind: ConfigMap",
            "  \"targets.txt\": \"GET /a\\n\\nGET /b\\n\"",
            "kind: Job",
            "  completionMode: \"Indexed\"\n  completions: 4\n  parallelism: 4\n",
            "preferredDuringSchedulingIgnoredDuringExecution",
            "topologyKey: \"kubernetes.io/hostname\"",
            "image: \"ghcr.io/x/barrage:0.1.0\"",
            "mountPath: \"/etc/barrage\"",
            "  namespace: \"perf\"",
        ] {
            assert!(y.contains(want), "{want:?} missing in\n{y}");
        }
        let no_files = render(&Plan {
            files: vec![],
            one_per_node: true,
            ..plan()
        });
        assert!(!no_files.contains("ConfigMap") && !no_files.contains("volumes"));
        assert!(no_files.contains("requiredDuringSchedulingIgnoredDuringExecution"));
    }
}

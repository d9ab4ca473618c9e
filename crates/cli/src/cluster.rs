//! `barrage cluster k8s --shards N [load options] URL`: one load run as N shards on a
//! Kubernetes cluster (an Indexed Job, `manifest.rs`), started together and merged exactly.
//! With `--dry-run` it prints the manifests; otherwise it applies them with `kubectl`, waits for
//! the Job, reads each pod's `barrage.load/1` document from its log, merges them
//! (`barrage_model::merge`), prints the summary and deletes what it created.

pub mod manifest;

use anyhow::{bail, Context};
use barrage_model::load::LoadDoc;
use clap::Parser;
use manifest::{Plan, FILES_DIR};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

#[derive(clap::Subcommand, Debug)]
pub enum Cluster {
    /// Run the load as an Indexed Job on Kubernetes (kubectl's current context).
    K8s(K8sArgs),
}

/// `barrage cluster k8s` options; everything after them is `barrage load`'s.
#[derive(clap::Args, Debug)]
pub struct K8sArgs {
    /// Shards (pods), each running its share of the load (`barrage load --shard I/N`).
    #[arg(long, value_name = "N")]
    pub shards: u32,
    /// The container image with barrage in it (see the Dockerfile).
    #[arg(long, value_name = "IMAGE", default_value = concat!("barrage:", env!("CARGO_PKG_VERSION")))]
    pub image: String,
    /// The Job's name.
    #[arg(long, value_name = "NAME", default_value = "barrage-load")]
    pub name: String,
    /// Namespace [default: kubectl's]. (No `-n`: after these options, `-n` is `barrage
    /// load`'s request count.)
    #[arg(long, value_name = "NS")]
    pub namespace: Option<String>,
    /// CPU each pod requests (Kubernetes quantity).
    #[arg(long, value_name = "CPU", default_value = "1")]
    pub cpu: String,
    /// Memory each pod requests (Kubernetes quantity).
    #[arg(long, value_name = "MEMORY", default_value = "256Mi")]
    pub memory: String,
    /// At most one shard per node (required anti-affinity); by default shards are spread over
    /// nodes where possible (preferred).
    #[arg(long)]
    pub one_per_node: bool,
    /// How long after now the shards start together: time for pods to be scheduled and pull
    /// the image.
    #[arg(long, value_name = "DURATION", value_parser = crate::load::parse_duration, default_value = "30s")]
    pub lead: Duration,
    /// Print the manifests and stop.
    #[arg(long)]
    pub dry_run: bool,
    /// Keep the Job and its pods after the run (default: deleted).
    #[arg(long)]
    pub keep: bool,
    /// Write the merged `barrage.load/1` document to PATH.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<String>,
    /// `barrage load`'s options and URL, after the cluster's own options (e.g. `-c 256 -d 60s
    /// --rate 50000 http://svc:8080/`).
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        required = true,
        value_name = "LOAD OPTIONS"
    )]
    pub load: Vec<String>,
}

/// `barrage load`'s parser, to check the pass-through options here rather than in N pods.
#[derive(Parser)]
#[command(name = "barrage load")]
struct LoadOnly {
    #[command(flatten)]
    args: crate::load::Args,
}

pub fn main(c: Cluster) -> anyhow::Result<ExitCode> {
    let Cluster::K8s(a) = c;
    let plan = plan(&a)?;
    let yaml = manifest::render(&plan);
    if a.dry_run {
        print!("{yaml}");
        return Ok(ExitCode::SUCCESS);
    }
    run(&a, &plan, &yaml)
}

/// The plan of `a`: its load options checked as `barrage load` would, files moved into the
/// ConfigMap, the start time `lead` from now.
pub fn plan(a: &K8sArgs) -> anyhow::Result<Plan> {
    if a.shards == 0 {
        bail!("--shards must be at least 1");
    }
    let parsed =
        LoadOnly::try_parse_from(std::iter::once("barrage load".to_string()).chain(a.load.clone()))
            .map_err(|e| {
                anyhow::anyhow!(
                    "{}",
                    e.to_string()
                        .lines()
                        .next()
                        .unwrap_or("bad load options")
                        .trim_start_matches("error: ")
                )
            })?;
    let l = &parsed.args;
    if l.options.has("shard") || l.options.has("start_at") || l.json.is_some() {
        bail!("--shard, --start-at and --json are set by barrage cluster for each pod: leave them out");
    }
    let cfg = l.to_config()?;
    if cfg.connections < a.shards as usize {
        bail!(
            "{} connections cannot be split over {} shards: give each at least one",
            cfg.connections,
            a.shards
        );
    }
    // Files the load reads go into the ConfigMap; their options point into the mount: the
    // options whose value is a file (as declared), and the command line's --body-file.
    let file_flags: Vec<String> = barrage_model::load::OPTIONS
        .iter()
        .filter(|o| o.grammar == barrage_model::load::Grammar::File)
        .flat_map(|o| {
            let long = o.long().map(|l| format!("--{l}"));
            long.into_iter()
                .chain(o.flag.short.map(|c| format!("-{c}")))
        })
        .chain(["--body-file".to_string()])
        .collect();
    let mut files = Vec::new();
    let mut load_args = Vec::new();
    let mut it = a.load.iter().peekable();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        if file_flags.contains(&flag) {
            let path = match inline {
                Some(v) => v,
                None => it
                    .next()
                    .cloned()
                    .context("a file option without its file")?,
            };
            let text =
                std::fs::read_to_string(&path).with_context(|| format!("cannot read {path}"))?;
            if flag == "--targets" && text.lines().any(|l| l.trim_start().starts_with('@')) {
                bail!("{path}: @body files are not shipped to the pods; give the bodies inline as JSON lines (\"body\": base64)");
            }
            let key = format!(
                "{}-{}",
                files.len(),
                Path::new(&path)
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or("file")
            );
            load_args.push(flag);
            load_args.push(format!("{FILES_DIR}/{key}"));
            files.push((key, text));
        } else {
            load_args.push(arg.clone());
        }
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    Ok(Plan {
        name: a.name.clone(),
        namespace: a.namespace.clone(),
        image: a.image.clone(),
        shards: a.shards,
        start_at: (now + a.lead).as_secs() as f64,
        load_args,
        files,
        cpu: a.cpu.clone(),
        memory: a.memory.clone(),
        one_per_node: a.one_per_node,
    })
}

fn kubectl(a: &K8sArgs, args: &[&str]) -> anyhow::Result<String> {
    let mut cmd = Command::new("kubectl");
    if let Some(ns) = &a.namespace {
        cmd.args(["--namespace", ns]);
    }
    let out = cmd
        .args(args)
        .stdin(Stdio::null())
        .output()
        .context("cannot run kubectl (is it installed and on PATH?)")?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        bail!("kubectl {}: {}", args.join(" "), err.trim());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn run(a: &K8sArgs, plan: &Plan, yaml: &str) -> anyhow::Result<ExitCode> {
    let file =
        std::env::temp_dir().join(format!("barrage-{}-{}.yaml", plan.name, std::process::id()));
    std::fs::write(&file, yaml).with_context(|| format!("cannot write {}", file.display()))?;
    let f = file.display().to_string();
    kubectl(a, &["apply", "-f", &f])?;
    eprintln!(
        "barrage: job/{} applied: {} shards start at {} (Unix seconds)",
        plan.name, plan.shards, plan.start_at
    );
    let result = collect(a, plan);
    if !a.keep {
        let _ = kubectl(a, &["delete", "--wait=false", "-f", &f]);
    }
    let _ = std::fs::remove_file(&file);
    let docs = result?;
    let merged = barrage_model::merge::merge(&docs, 1.0)?;
    let cfg: barrage_engine::Config = serde_json::from_value(merged.config.clone())?;
    print!("{}", crate::load::print::of_doc(&merged, &cfg));
    for n in merged.merged.iter().flat_map(|m| &m.notes) {
        eprintln!("warning: {n}");
    }
    if let Some(path) = &a.output {
        let doc = serde_json::to_string_pretty(&merged)?;
        std::fs::write(path, doc + "\n").with_context(|| format!("cannot write {path}"))?;
    }
    // Merged shards are judged by their measured values (these commands have no
    // --allow-inconclusive of their own): what `barrage load --allow-inconclusive` does.
    Ok(crate::load::exit_status(&merged.thresholds, true))
}

/// Waits for the Job and reads every pod's document from its log.
fn collect(a: &K8sArgs, plan: &Plan) -> anyhow::Result<Vec<(String, LoadDoc)>> {
    let job = format!("job/{}", plan.name);
    // Generous: the lead, the load itself, and time to be scheduled late.
    let timeout = format!("--timeout={}s", a.lead.as_secs() + 3600);
    kubectl(a, &["wait", "--for=condition=complete", &timeout, &job])
        .with_context(|| format!("{job} did not complete (kubectl describe {job} says why)"))?;
    let selector = format!("job-name={}", plan.name);
    let pods = kubectl(
        a,
        &[
            "get",
            "pods",
            "-l",
            &selector,
            "-o",
            "jsonpath={range .items[*]}{.metadata.name}{\"\\n\"}{end}",
        ],
    )?;
    let mut docs = Vec::new();
    for pod in pods.lines().filter(|p| !p.is_empty()) {
        let log = kubectl(a, &["logs", pod])?;
        let doc: LoadDoc = serde_json::from_str(&log)
            .with_context(|| format!("pod {pod}: its log is not a barrage.load/1 document"))?;
        docs.push((pod.to_string(), doc));
    }
    if docs.len() != plan.shards as usize {
        eprintln!(
            "warning: {} of {} shards' documents were found",
            docs.len(),
            plan.shards
        );
    }
    Ok(docs)
}

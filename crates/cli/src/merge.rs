//! `barrage merge FILE... [-o OUT]`: `barrage load --json` documents of one load (its shards,
//! or runs on several machines) merged exactly into one (`barrage_model::merge`), its summary
//! printed, the document written.

use anyhow::Context;
use barrage_model::load::LoadDoc;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// `barrage load --json` documents of one load (e.g. each shard's of `--shard I/N`).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Write the merged `barrage.load/1` document to PATH (`-` for stdout; the summary then goes
    /// to stderr).
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<String>,
    /// Runs that started further apart than this are merged with a warning: their seconds do
    /// not line up.
    #[arg(long, value_name = "DURATION", value_parser = crate::load::parse_duration, default_value = "1s")]
    pub tolerance: Duration,
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    let mut docs = Vec::new();
    for f in &args.files {
        let name = f.display().to_string();
        let text = std::fs::read_to_string(f).with_context(|| format!("cannot read {name}"))?;
        let doc: LoadDoc = serde_json::from_str(&text)
            .with_context(|| format!("{name}: not a barrage load --json document"))?;
        docs.push((name, doc));
    }
    let merged = barrage_model::merge::merge(&docs, args.tolerance.as_secs_f64())?;
    let cfg: barrage_engine::Config =
        serde_json::from_value(merged.config.clone()).context("the merged configuration")?;
    let summary = crate::load::print::of_doc(&merged, &cfg);
    let to_stdout = args.output.as_deref() == Some("-");
    if to_stdout {
        eprint!("{summary}");
    } else {
        print!("{summary}");
    }
    for n in merged.merged.iter().flat_map(|m| &m.notes) {
        eprintln!("warning: {n}");
    }
    if let Some(path) = &args.output {
        let doc = serde_json::to_string_pretty(&merged).context("cannot encode the result")?;
        if to_stdout {
            println!("{doc}");
        } else {
            std::fs::write(path, doc + "\n").with_context(|| format!("cannot write {path}"))?;
        }
    }
    // Merged shards are judged by their measured values (these commands have no
    // --allow-inconclusive of their own): what `barrage load --allow-inconclusive` does.
    Ok(crate::load::exit_status(&merged.thresholds, true))
}

//! `barrage history [DB]`: lists the runs recorded with `--history` (filtered by URL, study or
//! metric; text or JSON), or draws each metric's trend over them (`--report out.html`). Also
//! what `load` and `run` share to record a run: resolving `--history [DB]`, opening the
//! database before the run (so a wrong path fails before the load, not after it), and where
//! and when the run ran (command line, machine, git commit).

mod list;

use anyhow::{bail, Context as _};
use barrage_history::{Filter, Git, History, Origin};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

/// List the runs recorded with `--history`, or draw each metric's trend over them.
#[derive(clap::Args, Default)]
pub struct Args {
    /// The history database [default: $BARRAGE_HISTORY, else
    /// $XDG_DATA_HOME/barrage/history.db, else ~/.local/share/barrage/history.db].
    #[arg(value_name = "DB")]
    pub db: Option<PathBuf>,
    /// Only load runs whose URL contains this text.
    #[arg(long, value_name = "TEXT")]
    pub url: Option<String>,
    /// Only studies of this name.
    #[arg(long, value_name = "NAME")]
    pub study: Option<String>,
    /// Only runs that recorded this metric (rps, latency_p99_us, errors, wall_s, ...); the
    /// listing shows it, and --report draws only it.
    #[arg(long, value_name = "KEY")]
    pub metric: Option<String>,
    /// Only the newest N runs (of those the other options take).
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
    /// The runs as JSON (id, time, kind, name, url, status, command, hostname, git, metrics).
    #[arg(long, conflicts_with = "report")]
    pub json: bool,
    /// Write an HTML page with one chart per metric, its value over the runs.
    #[arg(long, value_name = "PATH")]
    pub report: Option<PathBuf>,
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    let path = match &args.db {
        Some(p) => p.clone(),
        None => default_path()?,
    };
    let history = History::open_read_only(&path)?;
    let filter = Filter {
        url: args.url.clone(),
        study: args.study.clone(),
        metric: args.metric.clone(),
        kind: None,
        last: args.last,
    };
    let runs = history.list(&filter)?;
    if let Some(out) = &args.report {
        let page = list::trends(&history, &filter, &runs)?;
        let html = barrage_report::render(
            &page,
            barrage_report::Format::Html,
            &format!("barrage {}", env!("CARGO_PKG_VERSION")),
        );
        std::fs::write(out, html).with_context(|| format!("cannot write {}", out.display()))?;
        eprintln!(
            "barrage: trends of {} runs written to {}",
            runs.len(),
            out.display()
        );
    } else if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&runs).context("cannot encode the runs")?
        );
    } else if runs.is_empty() {
        eprintln!("barrage: no runs in {} match", path.display());
    } else {
        print!("{}", list::table(&runs, args.metric.as_deref()));
    }
    Ok(ExitCode::SUCCESS)
}

/// The default database, or why there is none.
fn default_path() -> anyhow::Result<PathBuf> {
    barrage_history::default_path().context(
        "no history database given, and no default: set BARRAGE_HISTORY (or HOME), or name one",
    )
}

/// Opens the database `--history [DB]` names (the default one when no DB is given, creating
/// its directory), or None without `--history`.
pub fn open(arg: Option<&Option<PathBuf>>) -> anyhow::Result<Option<History>> {
    let Some(arg) = arg else {
        return Ok(None);
    };
    let path = match arg {
        Some(p) => p.clone(),
        None => {
            let p = default_path()?;
            if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot create {}", dir.display()))?;
            }
            p
        }
    };
    Ok(Some(History::open(&path)?))
}

/// Appends `run` and says where (one line on stderr, with the id `compare history:ID` takes).
/// The caller has written its results first, so a failure here loses nothing measured.
pub fn record(history: &mut History, run: &barrage_history::NewRun) -> anyhow::Result<()> {
    let id = history
        .append(run)
        .context("cannot record the run in the history")?;
    eprintln!(
        "barrage: recorded as run {id} in {}",
        history.path().display()
    );
    Ok(())
}

/// Where and when a run ran: `time` (RFC 3339), this command line, the machine, and the git
/// commit of the working directory.
pub fn origin(time: String) -> Origin {
    Origin {
        time,
        command: command_line(std::env::args()),
        machine: barrage_lab::results::machine(),
        git: git(Path::new(".")),
        barrage_version: env!("CARGO_PKG_VERSION").to_string(),
    }
}

/// The arguments as one line a POSIX shell reads back as the same arguments: plain words as
/// they are, others in single quotes.
pub fn command_line(args: impl IntoIterator<Item = String>) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=,@%+".contains(c);
    args.into_iter()
        .map(|a| {
            if !a.is_empty() && a.chars().all(plain) {
                a
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The commit checked out in `dir` and whether tracked files differ from it; None outside a
/// git work tree or without git.
pub fn git(dir: &Path) -> Option<Git> {
    let run = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let commit = run(&["rev-parse", "--verify", "HEAD"])?;
    let dirty =
        run(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    Some(Git { commit, dirty })
}

/// Rejects a `--history` value that is plainly not a database but the argument the user meant
/// for the command: `--history` takes an optional value, so `--history URL` or `--history
/// study.toml` swallows it.
pub fn check_value(arg: Option<&Option<PathBuf>>) -> anyhow::Result<()> {
    if let Some(Some(p)) = arg {
        let s = p.to_string_lossy();
        let what = if s.starts_with("http://") || s.starts_with("https://") {
            "a URL"
        } else if s.ends_with(".toml") || s.ends_with(".json") {
            "a study or results file"
        } else {
            return Ok(());
        };
        bail!("--history {s}: that is {what}, not a database; put it before --history, or write --history DB");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_line_reads_back_as_its_arguments() {
        let args = [
            "barrage",
            "load",
            "http://h:8/x?a=1&b=2",
            "-H",
            "X-A: it's",
            "",
        ];
        assert_eq!(
            command_line(args.map(String::from)),
            r"barrage load 'http://h:8/x?a=1&b=2' -H 'X-A: it'\''s' ''"
        );
    }

    #[test]
    fn git_outside_a_work_tree_is_none() {
        // The root directory is no git work tree (and without git, there is none either).
        assert_eq!(git(Path::new("/")), None);
    }

    #[test]
    fn a_url_or_study_given_as_the_database_is_refused() {
        let v = |s: &str| Some(PathBuf::from(s));
        let e = check_value(Some(&v("http://127.0.0.1:8080/")))
            .unwrap_err()
            .to_string();
        assert!(e.contains("that is a URL"), "{e}");
        let e = check_value(Some(&v("studies/x/study.toml")))
            .unwrap_err()
            .to_string();
        assert!(e.contains("that is a study or results file"), "{e}");
        assert!(check_value(Some(&v("h.db"))).is_ok());
        assert!(check_value(Some(&None)).is_ok());
        assert!(check_value(None).is_ok());
    }
}

//! The `barrage` binary: turns command-line arguments into library configs and library results
//! into output. One module per subcommand; no measurement logic lives here.

use clap::{CommandFactory as _, Parser, Subcommand};
use std::process::ExitCode;

mod cluster;
mod compare;
mod exit;
mod figures;
mod history;
mod load;
mod manual;
mod merge;
mod metrics;
mod plan;
mod report;
mod run;
mod serve;
mod signals;

/// barrage: an HTTP performance lab.
///
/// `load` drives HTTP load at a URL (like wrk, wrk2 and oha), `serve` runs a fast target server
/// with test endpoints and faults, `run` runs a study of contenders with resource sampling and
/// statistics, `report` turns results into tables and plots, `compare` judges a change against
/// a baseline.
#[derive(Parser)]
#[command(name = "barrage", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    // Its words name every protocol from the model's one list.
    #[command(about = load::about(), long_about = None, after_help = exit::help(exit::LOAD))]
    Load(Box<load::Args>),
    /// Run a load as shards on a cluster (Kubernetes: an Indexed Job) and merge them.
    #[command(subcommand)]
    Cluster(cluster::Cluster),
    /// Merge `barrage load --json` documents of one load (its shards) exactly into one.
    Merge(merge::Args),
    /// Run the target server (test endpoints, fault injection).
    Serve(serve::Args),
    /// Run a study (default: the embedded study of barrage serve under three connection modes).
    #[command(after_help = exit::help(exit::RUN))]
    Run(run::Args),
    /// Choose a study's trial count by power from a pilot run: the trials each comparison needs
    /// to detect a ratio (--ratio 1.10) at the study's Holm-corrected level.
    Plan(plan::Args),
    /// Turn results (a study's results.json, or `barrage load --json` files) into HTML, Markdown, CSV, the terminal summary or summary.csv.
    Report(report::Args),
    /// List the runs recorded with `--history` (by URL, study or metric), or draw each
    /// metric's trend over them (--report).
    History(history::Args),
    /// Compare a new result with its baseline (two `barrage load --json` files, or two study
    /// results), metric by metric against a noise floor; `--fail-on regression` for CI.
    #[command(after_help = exit::help(exit::COMPARE))]
    Compare(compare::Args),
    /// Print the completion script of a shell for barrage (e.g. `source <(barrage completions
    /// bash)`, or save it where the shell looks: bash-completion's completions/barrage, a
    /// directory of zsh's $fpath as _barrage, fish's completions/barrage.fish).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print barrage's man page (roff) on stdout, or that of one command (`barrage man load`:
    /// barrage-load(1)); read it with `barrage man load | man -l -`.
    Man {
        /// The command whose page to print.
        command: Option<String>,
    },
}

/// An output file's extension, which picks its format when `--format` does not.
fn extension(path: Option<&std::path::Path>) -> Option<&str> {
    path?.extension()?.to_str()
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Load(args)) => load::main(*args),
        Some(Command::Merge(args)) => merge::main(args),
        Some(Command::Cluster(c)) => cluster::main(c),
        Some(Command::Serve(args)) => serve::main(args),
        Some(Command::Run(args)) => run::main(args),
        Some(Command::Report(args)) => report::main(args),
        Some(Command::Plan(args)) => plan::main(args),
        Some(Command::History(args)) => history::main(args),
        Some(Command::Compare(args)) => compare::main(args),
        Some(Command::Completions { shell }) => manual::completions(Cli::command(), shell),
        Some(Command::Man { command }) => manual::man(
            Cli::command(),
            command.as_deref(),
            &[
                ("load", exit::LOAD),
                ("run", exit::RUN),
                ("compare", exit::COMPARE),
            ],
        ),
        None => run::main(run::Args::default()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // One line: the error and its causes, as `barrage: what failed: why`.
            eprintln!("barrage: {e:#}");
            ExitCode::from(exit::BAD_INPUT)
        }
    }
}

//! `barrage run [STUDY]`: runs a study file (or the embedded default study) with a progress bar
//! over the trials, then prints the summary table; results go to `./results/<study>-<time>/`
//! (or `--out`). `--resume DIR` finishes an interrupted study. Ctrl-C stops the contenders,
//! keeps every finished trial and says how to resume. The status area and `--metrics` are
//! `run/status.rs`'s.

mod status;

use anyhow::Context as _;
use barrage_lab::runner::{self, RunOptions};
use barrage_lab::study;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Run a study of contenders (servers or client programs) with resource sampling and statistics.
#[derive(clap::Args, Default)]
pub struct Args {
    /// The study file (TOML, see docs/study.md). Without it: the embedded default study
    /// (barrage serve under keep-alive, no keep-alive and pipelining, 1 to 256 connections).
    pub study: Option<PathBuf>,
    /// Results directory (default: ./results/<study>-<timestamp>/).
    #[arg(long, short = 'o', value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Finish an interrupted study in DIR (its results.json), appending the missing trials.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["study", "out"])]
    pub resume: Option<PathBuf>,
    /// Print the embedded default study and exit.
    #[arg(long)]
    pub print_default: bool,
    /// Quick mode: a small grid that proves the study runs end to end in under a minute (the
    /// first 2 contenders whose `requires` are on PATH, connections <= 10 (the first two of
    /// them, else the first two values), every duration and phase 1 s, requests capped at 10,000,
    /// other swept fields cut to their first two values, client parameters to their first,
    /// 1 trial, no warmup or cooldown). Results go to ./results/<study>-quick-<timestamp>/.
    #[arg(long, conflicts_with_all = ["resume", "print_default"])]
    pub quick: bool,
    /// Run only the study's `[[subset]]` NAME: the points that meet its conditions and the
    /// contenders it lists (a partial run of one study file; `--resume` keeps it).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["resume", "print_default"])]
    pub subset: Option<String>,
    /// Most CPU other programs may take while a trial is measured, in % of one core (the
    /// machine's cores less the contender's tree and barrage's own process, averaged over the
    /// measured window); overrides the study's `busy_limit` (default 10).
    #[arg(long, value_name = "PCT", conflicts_with = "resume")]
    pub busy_limit: Option<f64>,
    /// What a trial over the busy limit means: `warn` (kept, flagged; the default), `retry`
    /// (run again once the machine is quiet, at most 3 times, then failed) or `fail` (failed as
    /// machine_busy, not credited); overrides the study's `on_busy`.
    #[arg(long, value_name = "POLICY", value_parser = ["warn", "retry", "fail"], conflicts_with = "resume")]
    pub on_busy: Option<String>,
    /// No progress bar (the summary is still printed).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Also append the study (the median of every metric per point and contender, and the
    /// whole results.json) with the machine and the git commit of the current directory to an
    /// SQLite history database, created when missing; an interrupted study is recorded as
    /// such. Without DB: $BARRAGE_HISTORY, else $XDG_DATA_HOME/barrage/history.db, else
    /// ~/.local/share/barrage/history.db. Read it with `barrage history`.
    #[arg(long, value_name = "DB", num_args = 0..=1)]
    pub history: Option<Option<PathBuf>>,
    /// Serve the study's figures for Prometheus at http://ADDR/metrics while it runs: trials
    /// planned, done and failed, the running trial, and the load's counters, latency
    /// histogram and gauges over its trials. Port 0 picks one; the address is printed on
    /// stderr.
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<SocketAddr>,
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    if args.print_default {
        print!("{}", study::DEFAULT_STUDY);
        return Ok(ExitCode::SUCCESS);
    }
    crate::history::check_value(args.history.as_ref())?;
    // Opened before the study: a path that is no history fails now, not hours later.
    let mut history = crate::history::open(args.history.as_ref())?;
    barrage_lab::supervise::install_interrupt_cleanup()
        .context("cannot install the Ctrl-C handler")?;
    let exe = std::env::current_exe().context("cannot find the barrage binary's path")?;
    let bar = status::Status::new(args.quiet);
    // What a barrage that died (kill -9, a crash) left: its contenders' cgroups.
    let swept = barrage_lab::supervise::sweep_dead_runs();
    if !swept.cgroups.is_empty() {
        bar.say(format!(
            "removed {} cgroup(s) left by {} barrage run(s) that died ({} process(es) still in them killed)",
            swept.cgroups.len(),
            swept.runs.max(1),
            swept.processes_killed
        ));
    }
    let _endpoint = match args.metrics {
        Some(addr) => {
            let study = bar.study.clone();
            let e = crate::metrics::Endpoint::start(
                addr,
                Box::new(move |om| {
                    let mut e = crate::metrics::expo::Expo::new(om);
                    study.write(&mut e);
                    e.finish()
                }),
            )?;
            bar.say(e.announce());
            Some(e)
        }
        None => None,
    };
    let (results, dir) = if let Some(dir) = &args.resume {
        let opts = RunOptions {
            out_dir: dir.clone(),
            barrage_exe: exe,
            study_file: String::new(),
        };
        let r = runner::resume(dir, &opts, &bar)
            .with_context(|| format!("cannot resume {}", dir.display()))?;
        (r, dir.clone())
    } else {
        let (st, file) = match &args.study {
            Some(p) => (study::load(p)?, p.display().to_string()),
            None => {
                let cwd = std::env::current_dir().context("no current directory")?;
                let file = "(embedded default study)".to_string();
                (study::parse(study::DEFAULT_STUDY, &file, &cwd)?, file)
            }
        };
        let mut st = if args.quick { st.quick() } else { st };
        if let Some(name) = &args.subset {
            st.select(name).map_err(anyhow::Error::msg)?;
        }
        if let Some(pct) = args.busy_limit {
            anyhow::ensure!(
                pct.is_finite() && pct >= 0.0,
                "--busy-limit is a % of one core, 0 or more, not {pct}"
            );
            st.busy_limit_pct = pct;
        }
        if let Some(p) = args
            .on_busy
            .as_deref()
            .and_then(barrage_model::busy::OnBusy::parse)
        {
            st.on_busy = p;
        }
        let dir = args.out.clone().unwrap_or_else(|| {
            let quick = if st.quick { "-quick" } else { "" };
            Path::new("results").join(format!(
                "{}{quick}-{}",
                st.name,
                barrage_lab::results::stamp()
            ))
        });
        let opts = RunOptions {
            out_dir: dir.clone(),
            barrage_exe: exe,
            study_file: file,
        };
        bar.println(format!(
            "study {}{}: {} -> {}",
            st.name,
            if st.quick {
                format!(
                    " (quick: {})",
                    st.contenders
                        .iter()
                        .map(|c| c.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            } else {
                String::new()
            },
            if st.description.is_empty() {
                "-"
            } else {
                &st.description
            },
            dir.display()
        ));
        let r =
            runner::run(&st, &opts, &bar).with_context(|| format!("study {} failed", st.name))?;
        (r, dir)
    };
    bar.finish();
    let csv = barrage_report::summary_csv::render(&results);
    barrage_lab::results::write_atomic(&dir.join("summary.csv"), csv.as_bytes())
        .context("cannot write summary.csv")?;
    // The report beside the results: the answer block below ends with its path.
    let report = dir.join("report.html");
    let label = dir.join("results.json").display().to_string();
    let page = barrage_report::build(&[(
        label,
        barrage_report::Input::Study(Box::new(results.clone())),
    )])
    .context("cannot build the report")?;
    let html = barrage_report::render(
        &page,
        barrage_report::Format::Html,
        &format!("barrage {}", env!("CARGO_PKG_VERSION")),
    );
    barrage_lab::results::write_atomic(&report, html.as_bytes())
        .context("cannot write report.html")?;
    print!("{}", barrage_report::terminal::answer(&results));
    println!(
        "report: {}  results: {}  summary: {}  (every comparison and warning: barrage report {} -f text)",
        report.display(),
        dir.join("results.json").display(),
        dir.join("summary.csv").display(),
        dir.display()
    );
    // Last, after every file is written: a history that fails cannot lose the results.
    if let Some(h) = &mut history {
        let file = dir.join("results.json");
        // The file as written, so that `compare history:ID` reads what `barrage report` would.
        let text = match std::fs::read_to_string(&file) {
            Ok(t) => t,
            Err(_) => {
                serde_json::to_string_pretty(&results).context("cannot encode the results")?
            }
        };
        let time = if results.started_at.is_empty() {
            barrage_model::time::now_rfc3339()
        } else {
            results.started_at.clone()
        };
        let run = barrage_history::NewRun::study(&results, text, crate::history::origin(time));
        crate::history::record(h, &run)?;
    }
    if results.status != barrage_model::study::RunStatus::Complete {
        println!(
            "interrupted: {} of {} trials kept; finish with: barrage run --resume {}",
            results.trials.len(),
            results.planned_trials,
            dir.display()
        );
        return Ok(ExitCode::from(crate::exit::INTERRUPTED));
    }
    if !results.thresholds.is_empty() {
        println!("Thresholds:");
        for t in &results.thresholds {
            println!("  {t}");
        }
        let failed = results.thresholds.iter().filter(|t| !t.pass).count();
        if failed > 0 {
            eprintln!(
                "barrage: {failed} of {} thresholds failed (listed above; results.json has them)",
                results.thresholds.len()
            );
            return Ok(ExitCode::from(crate::load::EXIT_THRESHOLD));
        }
    }
    Ok(ExitCode::SUCCESS)
}

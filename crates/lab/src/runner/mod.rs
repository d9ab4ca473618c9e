//! Runs a study: checks requirements and builds contenders, plans the trials (interleaved A B A B
//! by default), runs each one (servers under load: `server.rs`; client programs against barrage's
//! own server: `client.rs`), and after every trial recomputes the statistics and writes
//! `results.json` and `summary.csv` atomically. Ctrl-C (see [`crate::supervise`]) ends the
//! current trial, which is discarded, and leaves a results directory that `resume` finishes.

mod busy;
mod client;
pub mod command;
mod net;
mod server;
mod trial;

use crate::results::{
    self, ContenderInfo, ContenderStatus, FailureKind, Pinning, Results, ResultsError, RunStatus,
    StudyInfo, Trial,
};
use crate::study::{self, ContenderRole, PinMode, Study, StudyError};
use crate::supervise::{self, Role, Spec, StdoutMode};
use crate::sweep::{self, Point};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use thiserror::Error;

/// Errors that stop a study (a contender's failure never does: it is a recorded trial).
#[derive(Debug, Error)]
pub enum RunError {
    #[error(transparent)]
    Study(#[from] StudyError),
    #[error(transparent)]
    Results(#[from] ResultsError),
    #[error("invalid sweep: {0}")]
    Sweep(String),
    #[error("cannot create {path}")]
    Dir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot start barrage's target server: {0}")]
    Target(String),
    #[error("{0} does not belong to this study (it was written for {1:?})")]
    Mismatch(PathBuf, String),
    #[error("{0} already holds results: finish them with --resume, or choose another --out")]
    Exists(PathBuf),
    #[error("[network]: {0}")]
    Network(#[from] barrage_netem::NetError),
}

/// Where and how to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The results directory (created if missing).
    pub out_dir: PathBuf,
    /// The barrage binary, for the `{barrage}` placeholder.
    pub barrage_exe: PathBuf,
    /// How the study file is named in the results.
    pub study_file: String,
}

/// Progress reports for a terminal (the CLI draws a bar from them).
pub trait Progress: Sync {
    /// The plan: `total` trials, of which `done` were recorded before (resume).
    fn begin(&self, _total: usize, _done: usize) {}
    fn note(&self, _msg: &str) {}
    fn trial_start(&self, _what: &str) {}
    /// The point (an index of `Results::points`) of the trial about to start, told just before
    /// [`Progress::trial_start`].
    fn trial_point(&self, _point: usize) {}
    fn trial_end(&self, _t: &Trial) {}
    /// Live: one second of load of the running trial (server studies).
    fn second(&self, _responses_per_s: f64, _errors: u64) {}
    /// Live: the same second with the engine's details (for metrics); by default passes its
    /// throughput and errors on to [`Progress::second`].
    fn live(&self, l: &barrage_engine::Live<'_>) {
        let s = l.second;
        if s.span_s > 0.0 {
            self.second(s.responses as f64 / s.span_s, s.errors);
        }
    }
}

/// Feeds the engine's per-second records to a [`Progress`].
struct LiveSink<'a>(&'a dyn Progress);

impl barrage_engine::Sink for LiveSink<'_> {
    fn live(&self, l: &barrage_engine::Live<'_>) {
        self.0.live(l);
    }
}

/// Reports nothing.
pub struct NoProgress;
impl Progress for NoProgress {}

/// One planned trial.
#[derive(Debug, Clone, Copy)]
struct PlannedTrial {
    point: usize,
    contender: usize,
    trial: u32,
}

/// Everything a trial needs.
#[derive(Clone)]
pub(crate) struct Ctx<'a> {
    pub study: &'a Study,
    pub opts: &'a RunOptions,
    pub contender_cpus: Option<Vec<usize>>,
    pub generator_cpus: Option<Vec<usize>>,
    pub cancel: barrage_engine::Cancel,
    /// Client studies: barrage's own target server.
    pub target: Option<std::net::SocketAddr>,
    pub progress: &'a dyn Progress,
}

/// Runs a study into a new results directory.
pub fn run(study: &Study, opts: &RunOptions, progress: &dyn Progress) -> Result<Results, RunError> {
    if opts.out_dir.join("results.json").exists() {
        return Err(RunError::Exists(opts.out_dir.clone()));
    }
    std::fs::create_dir_all(&opts.out_dir).map_err(|source| RunError::Dir {
        path: opts.out_dir.clone(),
        source,
    })?;
    let points = sweep::points(study).map_err(RunError::Sweep)?;
    let cpus = results::available_cpus();
    let split = split_cpus(study.pin, &cpus);
    let pinning = Pinning {
        mode: match study.pin {
            PinMode::Auto => "auto",
            PinMode::On => "on",
            PinMode::Off => "off",
            PinMode::Cpus(_) => "cpus",
        }
        .into(),
        enabled: split.is_some(),
        contender_cpus: split.as_ref().map(|s| s.0.clone()),
        generator_cpus: split.as_ref().map(|s| s.1.clone()),
        note: match (&split, study.pin) {
            (Some(s), PinMode::Cpus(_)) => format!(
                "contender pinned to {} CPU(s), load generator to the other {}",
                s.0.len(),
                s.1.len()
            ),
            (None, PinMode::Cpus(n)) => format!(
                "not pinned: pin = {n} needs more than {n} CPUs, {} available",
                cpus.len()
            ),
            (Some(_), _) => "contender and load generator pinned to separate CPUs".into(),
            (None, PinMode::Off) => "pinning off (study setting)".into(),
            (None, _) => format!("not pinned: only {} CPU available", cpus.len()),
        },
    };
    let base_dir =
        std::fs::canonicalize(&study.base_dir).unwrap_or_else(|_| study.base_dir.clone());
    let now = results::now_rfc3339();
    let r = Results {
        schema: results::SCHEMA.into(),
        barrage_version: env!("CARGO_PKG_VERSION").into(),
        study: StudyInfo {
            name: study.name.clone(),
            description: study.description.clone(),
            kind: study.kind,
            trials: study.trials,
            warmup_s: study.warmup.as_secs_f64(),
            cooldown_s: study.cooldown.as_secs_f64(),
            interleave: study.interleave,
            sample_interval_s: study.sample_interval.as_secs_f64(),
            trial_timeout_s: study.trial_timeout.as_secs_f64(),
            file: opts.study_file.clone(),
            base_dir: base_dir.display().to_string(),
            source: study.source.clone(),
            quick: study.quick,
            max_errors: study.max_errors,
            busy_limit_pct: Some(study.busy_limit_pct),
            on_busy: Some(study.on_busy),
            thresholds: study.thresholds.clone(),
            questions: study.questions.clone(),
            subset: study.subset.clone(),
            figures: study
                .client
                .as_ref()
                .map(|c| c.figures.clone())
                .unwrap_or_default(),
        },
        machine: results::machine(),
        pinning,
        started_at: now.clone(),
        updated_at: now,
        finished_at: None,
        status: RunStatus::Running,
        points,
        contenders: Vec::new(),
        planned_trials: 0,
        trials: Vec::new(),
        summary: Vec::new(),
        comparisons: Vec::new(),
        warnings: Vec::new(),
        thresholds: Vec::new(),
        answers: Vec::new(),
        other_machines: Vec::new(),
    };
    execute(study, r, opts, progress)
}

/// Finishes an interrupted study in `dir` (its `results.json`), appending the missing trials.
pub fn resume(dir: &Path, opts: &RunOptions, progress: &dyn Progress) -> Result<Results, RunError> {
    let mut r = crate::results::read(dir)?;
    // Whatever version it was read from, it is written in the current one.
    r.schema = results::SCHEMA.into();
    let study = study::parse(&r.study.source, &r.study.file, Path::new(&r.study.base_dir))?;
    let mut study = if r.study.quick { study.quick() } else { study };
    // The part of the study the run was started on.
    if let Some(s) = &r.study.subset {
        study.select(s).map_err(RunError::Sweep)?;
    }
    // The busy policy the run started with (`barrage run --busy-limit/--on-busy` override the file).
    if let Some(pct) = r.study.busy_limit_pct {
        study.busy_limit_pct = pct;
    }
    if let Some(p) = r.study.on_busy {
        study.on_busy = p;
    }
    let points = sweep::points(&study).map_err(RunError::Sweep)?;
    if points != r.points {
        return Err(RunError::Mismatch(dir.to_path_buf(), r.study.name.clone()));
    }
    // Contenders are re-checked (a requirement may have been installed since).
    r.contenders.clear();
    r.status = RunStatus::Running;
    r.finished_at = None;
    let opts = RunOptions {
        out_dir: dir.to_path_buf(),
        study_file: r.study.file.clone(),
        ..opts.clone()
    };
    execute(&study, r, &opts, progress)
}

fn execute(
    study: &Study,
    mut r: Results,
    opts: &RunOptions,
    progress: &dyn Progress,
) -> Result<Results, RunError> {
    net::preflight(study)?;
    // A `cpus` value the machine cannot give fails before any contender starts.
    let available = results::available_cpus();
    for c in &study.cpus {
        c.of(&available).map_err(RunError::Sweep)?;
    }
    let cancel = barrage_engine::Cancel::new();
    {
        let c = cancel.clone();
        supervise::on_interrupt(move || c.cancel());
    }
    if r.contenders.is_empty() {
        r.contenders = study
            .contenders
            .iter()
            .map(|c| prepare(c, study, progress))
            .collect();
    }
    let ready: Vec<usize> = (0..study.contenders.len())
        .filter(|&i| r.contenders[i].status == ContenderStatus::Ready)
        .collect();
    let plan: Vec<PlannedTrial> = plan(study, r.points.len(), &ready)
        .into_iter()
        .filter(|p| study.includes(&r.points[p.point], &study.contenders[p.contender].name))
        .collect();
    r.planned_trials = plan.len();
    let machine = results::machine_index(&mut r, results::machine());
    let done = results::done_counts(&r);
    let todo: Vec<PlannedTrial> = plan
        .into_iter()
        .filter(|p| {
            let key = (p.point, study.contenders[p.contender].name.clone());
            p.trial >= done.get(&key).copied().unwrap_or(0)
        })
        .collect();
    progress.begin(r.planned_trials, r.planned_trials - todo.len());
    // Client studies: barrage's own server, on the generator's CPUs, for the whole study.
    let gen_cpus = r.pinning.generator_cpus.clone();
    let target = match study.kind {
        ContenderRole::Client => Some(start_target(study, gen_cpus.as_deref())?),
        ContenderRole::Server => None,
    };
    let ctx = Ctx {
        study,
        opts,
        contender_cpus: r.pinning.contender_cpus.clone(),
        generator_cpus: gen_cpus,
        cancel: cancel.clone(),
        target: target.as_ref().map(|t| t.local_addr()),
        progress,
    };
    save(&mut r, opts)?;
    let mut last_end: Option<Instant> = None;
    for p in todo {
        if supervise::interrupted() || cancel.is_cancelled() {
            break;
        }
        if let Some(end) = last_end {
            let wait = study.cooldown.saturating_sub(end.elapsed());
            std::thread::sleep(wait);
        }
        let point = &r.points[p.point];
        let c = &study.contenders[p.contender];
        progress.trial_point(p.point);
        progress.trial_start(&describe(point, &c.name, p.trial, study.trials));
        let seq = r.trials.len();
        // The point's own CPUs for the contender (the `cpus` axis), else the run's pinning.
        let ctx = Ctx {
            contender_cpus: match point.params.get("cpus").and_then(study::CpuCount::of_value) {
                Some(c) => Some(c.of(&available).map_err(RunError::Sweep)?),
                None => ctx.contender_cpus.clone(),
            },
            ..ctx.clone()
        };
        let trial = busy::run_policed(&ctx, || match study.kind {
            ContenderRole::Server => server::trial(&ctx, point, c, p.trial, seq),
            ContenderRole::Client => client::trial(&ctx, point, c, p.trial, seq),
        });
        last_end = Some(Instant::now());
        let interrupted = trial
            .failure
            .as_ref()
            .is_some_and(|f| f.kind == FailureKind::Interrupted);
        if interrupted || supervise::interrupted() {
            // An interrupted trial measured a cut-off run: it is dropped, and resume redoes it.
            break;
        }
        progress.trial_end(&trial);
        r.trials.push(Trial {
            machine,
            contender_cpus: ctx.contender_cpus.clone(),
            ..trial
        });
        save(&mut r, opts)?;
    }
    drop(target);
    // Client trials' scratch directories go after each trial; their parent goes when empty.
    let _ = std::fs::remove_dir(opts.out_dir.join(".tmp"));
    let complete = r.trials.len() >= r.planned_trials;
    r.status = if complete {
        RunStatus::Complete
    } else {
        RunStatus::Interrupted
    };
    if complete {
        r.finished_at = Some(results::now_rfc3339());
    }
    save(&mut r, opts)?;
    Ok(r)
}

fn describe(point: &Point, contender: &str, trial: u32, trials: u32) -> String {
    let at = if point.label.is_empty() {
        String::new()
    } else {
        format!(" {}", point.label)
    };
    format!("{contender}{at} #{}/{trials}", trial + 1)
}

/// Recompute the statistics and write `results.json` (its exports, such as summary.csv, are the
/// report's, written by the CLI).
fn save(r: &mut Results, opts: &RunOptions) -> Result<(), RunError> {
    r.updated_at = results::now_rfc3339();
    barrage_model::summary::update(r);
    crate::results::write(r, &opts.out_dir)?;
    Ok(())
}

/// The trial order: for each point, rounds of every contender (A B A B) when interleaved, else
/// all trials of A then all of B.
fn plan(study: &Study, points: usize, ready: &[usize]) -> Vec<PlannedTrial> {
    let mut out = Vec::new();
    let cell = |point, contender, trial| PlannedTrial {
        point,
        contender,
        trial,
    };
    if study.compares_points() {
        // A question compares conditions (CPUs, links, durations...): its points are
        // interleaved too, trial by trial, so drift hits each condition alike.
        for trial in 0..study.trials {
            for point in 0..points {
                for &contender in ready {
                    out.push(cell(point, contender, trial));
                }
            }
        }
        return out;
    }
    for point in 0..points {
        if study.interleave {
            for trial in 0..study.trials {
                for &contender in ready {
                    out.push(cell(point, contender, trial));
                }
            }
        } else {
            for &contender in ready {
                for trial in 0..study.trials {
                    out.push(cell(point, contender, trial));
                }
            }
        }
    }
    out
}

/// Checks `requires` and runs `build`; the result says whether the contender takes part.
fn prepare(c: &study::ContenderSpec, study: &Study, progress: &dyn Progress) -> ContenderInfo {
    let mut info = ContenderInfo {
        name: c.name.clone(),
        dir: c.dir.display().to_string(),
        start: c.start.clone(),
        build: c.build.clone(),
        requires: c.requires.clone(),
        status: ContenderStatus::Ready,
        skip_reason: None,
        build_log: None,
        build_s: None,
    };
    let missing: Vec<&str> = c
        .requires
        .iter()
        .filter(|r| !supervise::find_command(r))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        info.status = ContenderStatus::Skipped;
        info.skip_reason = Some(format!(
            "requires {}, not found on PATH",
            missing
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        progress.note(&format!(
            "skipping {}: {}",
            c.name,
            info.skip_reason.as_deref().unwrap_or("")
        ));
        return info;
    }
    if let Some(build) = &c.build {
        progress.note(&format!("building {}: {build}", c.name));
        let mut spec = Spec::new(format!("{} (build)", c.name), build.clone());
        spec.dir = c.dir.clone();
        spec.env = c.env.clone();
        spec.role = Role::Client;
        spec.stdout = StdoutMode::Discard;
        spec.grace = study.stop_grace;
        let exit = match supervise::Contender::spawn(&spec) {
            Ok(p) => p.wait(Duration::from_secs(1800)),
            Err(e) => {
                info.status = ContenderStatus::BuildFailed;
                info.skip_reason = Some(format!("build could not start: {e}"));
                return info;
            }
        };
        info.build_s = Some(exit.wall.as_secs_f64());
        if exit.outcome.is_failure() {
            info.status = ContenderStatus::BuildFailed;
            info.skip_reason = Some(format!("build failed: {:?}", exit.outcome));
            info.build_log = Some(exit.stderr_tail.clone());
        }
    }
    info
}

/// barrage's target server for a client study, on the generator's CPUs.
fn target_config(study: &Study, cpus: Option<&[usize]>) -> barrage_server::ServerConfig {
    let threads = match (study.target.threads, cpus) {
        (0, Some(c)) => c.len(),
        (t, _) => t,
    };
    barrage_server::ServerConfig {
        threads,
        fault_rate: study.target.fault_rate,
        concurrency: study.target.concurrency,
        ..Default::default()
    }
}

fn start_target(
    study: &Study,
    cpus: Option<&[usize]>,
) -> Result<barrage_server::ServerHandle, RunError> {
    let cfg = target_config(study, cpus);
    let cpus = cpus.map(<[usize]>::to_vec);
    // Started from a pinned thread so the server's workers inherit the generator's CPUs.
    std::thread::spawn(move || {
        if let Some(c) = &cpus {
            let _ = supervise::pin_current_thread(c);
        }
        barrage_server::start(cfg).map_err(|e| RunError::Target(e.to_string()))
    })
    .join()
    .map_err(|_| RunError::Target("server start panicked".into()))?
}

/// The pinning plan: (contender's CPUs, generator's CPUs), None when nothing is pinned. `on` and
/// `auto` give the contender the first half, `pin = N` the first N; the generator the rest.
fn split_cpus(pin: PinMode, cpus: &[usize]) -> Option<(Vec<usize>, Vec<usize>)> {
    let n = match pin {
        PinMode::Off => return None,
        PinMode::On | PinMode::Auto => cpus.len().div_ceil(2),
        PinMode::Cpus(n) => n,
    };
    (n > 0 && n < cpus.len()).then(|| (cpus[..n].to_vec(), cpus[n..].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points are run one after the other, unless a question compares points: then trial by
    /// trial over every point, so a comparison of conditions is a within-run one.
    #[test]
    fn points_interleave_when_a_question_compares_them() {
        let src = |q: &str| {
            format!(
                "[study]\nname = \"p\"\ntrials = 2\ncpus = [1, \"all\"]\n[load]\nduration = \"1s\"\n\
                 [[contender]]\nname = \"a\"\nstart = \"true {{port}}\"\n\
                 [[contender]]\nname = \"b\"\nstart = \"true {{port}}\"\n{q}"
            )
        };
        let order = |s: &str| {
            let st = study::parse(s, "t.toml", std::path::Path::new(".")).unwrap();
            plan(&st, 2, &[0, 1])
                .iter()
                .map(|p| (p.trial, p.point, p.contender))
                .collect::<Vec<_>>()
        };
        let within =
            "[[question]]\nid = \"q\"\nclaim = \"a > b\"\nmetric = \"rps\"\nat = \"cpus=1\"\n";
        assert_eq!(
            order(&src(within)),
            [
                (0, 0, 0),
                (0, 0, 1),
                (1, 0, 0),
                (1, 0, 1),
                (0, 1, 0),
                (0, 1, 1),
                (1, 1, 0),
                (1, 1, 1)
            ]
        );
        for across in [
            "[[question]]\nid = \"q\"\nclaim = \"a[cpus=all] > a[cpus=1]\"\nmetric = \"rps\"\n",
            "[[question]]\nid = \"q\"\nclaim = \"a > b\"\nmetric = \"rps\"\nacross = \"cpus=all vs cpus=1\"\n",
        ] {
            assert_eq!(
                order(&src(across)),
                [(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1), (1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1)],
                "{across}"
            );
        }
    }

    #[test]
    fn cpu_split() {
        let on = PinMode::On;
        assert_eq!(split_cpus(on, &[0]), None);
        assert_eq!(split_cpus(on, &[0, 1]), Some((vec![0], vec![1])));
        assert_eq!(
            split_cpus(PinMode::Auto, &[0, 1, 2]),
            Some((vec![0, 1], vec![2]))
        );
        assert_eq!(split_cpus(PinMode::Off, &[0, 1, 2]), None);
        assert_eq!(split_cpus(PinMode::Cpus(2), &[0, 1]), None);
        assert_eq!(split_cpus(PinMode::Cpus(0), &[0, 1]), None);
        assert_eq!(
            split_cpus(PinMode::Cpus(1), &[0, 1, 2, 3]),
            Some((vec![0], vec![1, 2, 3]))
        );
    }
}

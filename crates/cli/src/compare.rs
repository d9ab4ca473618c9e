//! `barrage compare BASE NEW`: reads two results of the same kind (two `barrage load --json`
//! documents, or two studies' results), has the model compare them metric by metric (single
//! load runs by each figure's intervals, studies by their trials), writes the comparison as a
//! terminal table, Markdown or JSON, and exits 1 on a regression when asked to
//! (`--fail-on regression`), for CI, and 3 when it found none but cannot judge a figure that
//! changed beyond the noise floor (unless `--allow-inconclusive`): a gate never passes what it
//! could not judge. Several load runs a side (`A1 A2 -- B1 B2`, or two folders of them) are
//! compared as trials.

use anyhow::Context;
use barrage_model::compare::{Comparison, DocKind, Options};
use barrage_model::load::LoadDoc;
use barrage_report::diff::{self, render};
use barrage_report::Input;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Output format of `barrage compare`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutFormat {
    /// An aligned table for the terminal.
    Table,
    /// Markdown, ready to paste into a pull request.
    Md,
    /// JSON (`barrage.compare/1`), for scripts.
    Json,
}

/// When `barrage compare` exits 1.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FailOn {
    /// Never: exit 0 whatever changed.
    #[default]
    Never,
    /// When a metric got worse beyond the noise floor (and significantly, where trials allow a
    /// test).
    Regression,
}

#[derive(clap::Args)]
pub struct Args {
    /// BASE and NEW: each a `barrage load --json` file, a study's results.json or the directory
    /// holding it, or a directory of load documents (several runs, compared as trials). With
    /// `--`, the runs before it are the baseline's and those after it the new result's.
    #[arg(value_name = "BASE NEW", required = true)]
    pub sides: Vec<String>,
    /// Runs of the new result, after `--` (`barrage compare a1.json a2.json -- b1.json b2.json`).
    #[arg(last = true, value_name = "NEW_RUNS")]
    pub new_runs: Vec<String>,
    /// The noise floor: a change within ± this is not called a change, however significant
    /// ("5%", "2.5%"; a bare number is a percentage too).
    #[arg(long, value_name = "PERCENT", default_value = "5%", value_parser = parse_noise)]
    pub noise: f64,
    /// Exit 1 when this is found (`regression`), or never. With `regression`, a figure that
    /// changed beyond the noise floor but cannot be judged (too little data in a run) exits 3.
    #[arg(long, value_enum, default_value_t, value_name = "WHEN")]
    pub fail_on: FailOn,
    /// With --fail-on regression: exit 0 rather than 3 when no regression was found but a
    /// figure cannot be judged (each is still named on stderr).
    #[arg(long)]
    pub allow_inconclusive: bool,
    /// Output format (default: from the output file's extension, .md or .json, else table).
    #[arg(short, long, value_enum)]
    pub format: Option<OutFormat>,
    /// Where to write the comparison (`-` or none: stdout).
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// The history database `history:` sides are read from (`history:latest`,
    /// `history:previous`, `history:latest~N`, `history:ID`) [default: $BARRAGE_HISTORY, else
    /// $XDG_DATA_HOME/barrage/history.db, else ~/.local/share/barrage/history.db].
    #[arg(long, value_name = "DB")]
    pub history: Option<PathBuf>,
}

/// "5%", "2.5", "0%" -> the fraction (0.05, 0.025, 0).
pub fn parse_noise(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let n = t.strip_suffix('%').unwrap_or(t).trim();
    match n.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v / 100.0),
        _ => Err(format!("{s:?} is not a percentage of 0 or more (e.g. 5%)")),
    }
}

/// One side of a comparison: how it is named, and what it holds.
pub struct Side {
    pub label: String,
    pub input: Input,
}

/// Reads BASE or NEW: a results file, or a study's results directory. Every side goes through
/// here, so that `history:latest` and `history:ID` (a run in the results history) can be
/// answered in this one place once the history database exists.
pub fn read_side(spec: &str, history: Option<&Path>) -> anyhow::Result<Side> {
    if let Some(which) = barrage_history::Which::from_side(spec) {
        let which = which?;
        let db = match history {
            Some(p) => p.to_path_buf(),
            None => {
                barrage_history::default_path().context("no history database: give --history DB")?
            }
        };
        let stored = barrage_history::History::open_read_only(&db)?.document(which)?;
        let input = barrage_report::parse(&stored.document)
            .with_context(|| format!("{spec} (run {} of {})", stored.id, db.display()))?;
        return Ok(Side {
            label: format!("{spec} (run {}, {})", stored.id, stored.time),
            input,
        });
    }
    let given = Path::new(spec);
    let file = if given.is_dir() {
        given.join("results.json")
    } else {
        given.to_path_buf()
    };
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("cannot read {}", file.display()))?;
    let input = barrage_report::parse(&text).with_context(|| file.display().to_string())?;
    Ok(Side {
        label: crate::report::label(given, &file),
        input,
    })
}

/// A directory that holds load documents rather than a study's results.json: its `*.json`
/// files, in name order.
fn runs_in(dir: &Path) -> anyhow::Result<Option<Vec<PathBuf>>> {
    if !dir.is_dir() || dir.join("results.json").exists() {
        return Ok(None);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    anyhow::ensure!(
        !files.is_empty(),
        "{}: neither a results.json nor load documents (*.json) in it",
        dir.display()
    );
    Ok(Some(files))
}

/// The inputs of one side: each spec read (a directory of load documents gives each of them),
/// and how the side is named.
fn read_many(specs: &[String], db: Option<&Path>) -> anyhow::Result<(String, Vec<Input>)> {
    let mut inputs = Vec::new();
    for spec in specs {
        match runs_in(Path::new(spec))? {
            Some(files) => {
                for f in files {
                    inputs.push(read_side(&f.display().to_string(), db)?.input);
                }
            }
            None => inputs.push(read_side(spec, db)?.input),
        }
    }
    let label = match specs {
        [one] => one.clone(),
        [first, .., last] => format!("{first} .. {last}"),
        [] => String::new(),
    };
    Ok((label, inputs))
}

/// Several load runs a side: their documents, or the error naming a side that holds a study.
fn loads_of(label: &str, inputs: Vec<Input>) -> anyhow::Result<Vec<LoadDoc>> {
    inputs
        .into_iter()
        .map(|i| match i {
            Input::Load(d) => Ok(*d),
            Input::Study(_) => anyhow::bail!(
                "{label}: several results a side are load runs (barrage load --json); a study's trials are already in its results"
            ),
        })
        .collect()
}

/// The comparison the arguments ask for: two results, or runs a side as trials.
fn comparison(args: &Args, options: &Options) -> anyhow::Result<Comparison> {
    let db = args.history.as_deref();
    let (base_specs, new_specs) = if args.new_runs.is_empty() {
        anyhow::ensure!(
            args.sides.len() == 2,
            "give BASE and NEW, or several runs a side separated by -- (got {} results and no --)",
            args.sides.len()
        );
        (&args.sides[..1], &args.sides[1..])
    } else {
        (&args.sides[..], &args.new_runs[..])
    };
    let one_file = |specs: &[String]| {
        specs.len() == 1 && !Path::new(&specs[0]).is_dir()
            || specs.len() == 1 && Path::new(&specs[0]).join("results.json").exists()
    };
    if one_file(base_specs) && one_file(new_specs) {
        let (base, new) = (
            read_side(&base_specs[0], db)?,
            read_side(&new_specs[0], db)?,
        );
        // Two files of one name (main/load.json, pr/load.json) are told apart by their paths.
        let (bl, nl) = if base.label == new.label && base_specs[0] != new_specs[0] {
            (base_specs[0].clone(), new_specs[0].clone())
        } else {
            (base.label, new.label)
        };
        return Ok(diff::compare(
            (&bl, &base.input),
            (&nl, &new.input),
            options,
        )?);
    }
    let (bl, base) = read_many(base_specs, db)?;
    let (nl, new) = read_many(new_specs, db)?;
    let (base, new) = (loads_of(&bl, base)?, loads_of(&nl, new)?);
    Ok(barrage_model::compare::load_trials(
        (&bl, &base),
        (&nl, &new),
        options,
    )?)
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    let options = Options { noise: args.noise };
    let d = comparison(&args, &options)?;
    let format = args
        .format
        .unwrap_or_else(|| match crate::extension(args.output.as_deref()) {
            Some("md" | "markdown") => OutFormat::Md,
            Some("json") => OutFormat::Json,
            _ => OutFormat::Table,
        });
    let text = match format {
        OutFormat::Table => render::text(&d),
        OutFormat::Md => render::markdown(&d),
        OutFormat::Json => render::json(&d),
    };
    match &args.output {
        Some(p) if p.as_os_str() != "-" => {
            std::fs::write(p, text).with_context(|| format!("cannot write {}", p.display()))?;
            eprintln!("barrage: comparison written to {}", p.display());
        }
        _ => {
            use std::io::Write;
            std::io::stdout()
                .write_all(text.as_bytes())
                .context("cannot write to stdout")?;
        }
    }
    if args.fail_on == FailOn::Never {
        return Ok(ExitCode::SUCCESS);
    }
    let (code, lines) = gate(&d, args.allow_inconclusive);
    for line in lines {
        eprintln!("barrage: {line}");
    }
    Ok(ExitCode::from(code))
}

/// The exit status of `--fail-on regression` on `d`, and the lines that say why: a regression
/// exits 1; else a figure that cannot be judged exits 3, unless allowed (it is named either way:
/// it was not judged "no change").
fn gate(d: &Comparison, allow_inconclusive: bool) -> (u8, Vec<String>) {
    let mut lines = regression_lines(d);
    let code = if d.regressions > 0 {
        crate::exit::REGRESSION
    } else if d.inconclusive > 0 && !allow_inconclusive {
        crate::exit::INCONCLUSIVE
    } else {
        crate::exit::OK
    };
    let floor = format!("±{} noise floor", render::percent(d.noise));
    let why = if allow_inconclusive {
        "allowed by --allow-inconclusive"
    } else {
        "run longer to judge it, or allow it with --allow-inconclusive"
    };
    lines.extend(d.unjudged().map(|r| {
        format!(
            "cannot judge: {}: {} -> {} ({}), beyond the {floor}, but a run's interval of it is open where it faces the other run; {why}",
            render::row_name(r),
            r.old_text,
            r.new_text,
            render::change_text(r)
        )
    }));
    (code, lines)
}

/// One line per regression, naming it and what it was judged on.
fn regression_lines(d: &Comparison) -> Vec<String> {
    let floor = format!("±{} noise floor", render::percent(d.noise));
    d.regressed()
        .map(|r| {
            let why = match (&d.kind, &r.test) {
                (DocKind::Load, None) => {
                    format!("beyond the {floor}; no intervals to test it (a barrage.load/1 document), judged by the floor alone")
                }
                (_, Some(t)) if t.testable => format!(
                    "beyond the {floor}, adjusted {}",
                    barrage_report::table::p_text(t.p_adjusted.unwrap_or(t.p))
                ),
                (_, Some(_)) => {
                    format!("beyond the {floor}; too few trials to test, judged by the floor alone")
                }
                (DocKind::Study, None) => "every trial failed on one side (see the notes)".into(),
            };
            format!(
                "regression: {}: {} -> {} ({}), {why}",
                render::row_name(r),
                r.old_text,
                r.new_text,
                render::change_text(r)
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use barrage_model::compare::{Row, Verdict};

    #[test]
    fn noise_floors_parse_as_percentages() {
        for (text, want) in [
            ("5%", 0.05),
            ("2.5%", 0.025),
            ("50", 0.5),
            (" 0% ", 0.0),
            ("150%", 1.5),
        ] {
            assert_eq!(parse_noise(text), Ok(want), "{text}");
        }
        for bad in ["-1%", "five", "%", "inf", "NaN%", ""] {
            assert!(parse_noise(bad).is_err(), "{bad}");
        }
    }

    /// A comparison of load runs whose rows have these verdicts.
    fn verdicts(vs: &[(&str, Verdict)]) -> Comparison {
        let rows: Vec<Row> = vs
            .iter()
            .map(|&(label, verdict)| Row {
                point: String::new(),
                contender: String::new(),
                metric: label.into(),
                label: label.into(),
                better: barrage_model::metric::Better::Lower,
                old: Some(10.0),
                new: Some(13.0),
                old_text: "10 ms".into(),
                new_text: "13 ms".into(),
                change: Some(0.3),
                test: None,
                verdict,
            })
            .collect();
        let count = |v: Verdict| rows.iter().filter(|r| r.verdict == v).count();
        Comparison {
            schema: barrage_model::compare::SCHEMA.into(),
            kind: DocKind::Load,
            base: "a".into(),
            new: "b".into(),
            noise: 0.05,
            alpha: 0.05,
            regressions: count(Verdict::Regression),
            improvements: count(Verdict::Improvement),
            inconclusive: count(Verdict::NotEnoughData),
            rows,
            notes: Vec::new(),
            machines: None,
        }
    }

    #[test]
    fn the_gate_fails_a_regression_and_never_passes_what_it_cannot_judge() {
        use Verdict::*;
        // (rows, --allow-inconclusive) -> exit status, lines on stderr
        type Case<'a> = (&'a [(&'a str, Verdict)], bool, u8, usize);
        let cases: &[Case] = &[
            (&[("p50", WithinNoise)], false, 0, 0),
            (&[("p50", Regression), ("p99", NotEnoughData)], false, 1, 2),
            (&[("p50", Regression), ("p99", NotEnoughData)], true, 1, 2),
            (&[("p50", WithinNoise), ("p99", NotEnoughData)], false, 3, 1),
            (&[("p50", WithinNoise), ("p99", NotEnoughData)], true, 0, 1),
            (
                &[("p50", NotSignificant), ("rps", Improvement)],
                false,
                0,
                0,
            ),
        ];
        for (rows, allow, code, n) in cases {
            let (got, lines) = gate(&verdicts(rows), *allow);
            assert_eq!(
                (got, lines.len()),
                (*code, *n),
                "{rows:?} allow={allow}: {lines:?}"
            );
        }
        let (_, lines) = gate(&verdicts(&[("p99", NotEnoughData)]), false);
        assert_eq!(
            lines,
            ["cannot judge: p99: 10 ms -> 13 ms (+30.0%), beyond the ±5% noise floor, but a run's interval of it is open where it faces the other run; run longer to judge it, or allow it with --allow-inconclusive"]
        );
    }

    #[test]
    fn history_sides_are_read_from_the_history() {
        let missing = Path::new("/nonexistent/barrage/history.db");
        for spec in ["history:latest", "history:42"] {
            let e = format!("{:#}", read_side(spec, Some(missing)).err().unwrap());
            assert!(e.contains("/nonexistent/barrage/history.db"), "{spec}: {e}");
        }
        let e = format!(
            "{:#}",
            read_side("history:soon", Some(missing)).err().unwrap()
        );
        assert!(e.contains("bad history run \"soon\""), "{e}");
        let e = read_side("/nonexistent/barrage/x.json", None)
            .err()
            .unwrap();
        assert!(format!("{e:#}").starts_with("cannot read /nonexistent/barrage/x.json"));
    }
}

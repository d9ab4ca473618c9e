//! `barrage report`: reads results (a study's `results.json` or its directory, or `barrage load
//! --json` documents), builds the report and writes it as HTML, Markdown or CSV.

use anyhow::{bail, Context};
use barrage_report::{Format, Input};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Output format of `barrage report`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutFormat {
    /// One self-contained HTML file with SVG plots (opens offline).
    #[default]
    Html,
    /// Markdown tables (for a README or a pull request).
    Md,
    /// CSV in long form (one line per point, contender and metric).
    Csv,
    /// The terminal summary `barrage run` prints (study results only).
    Text,
    /// summary.csv: one row per point and contender, every statistic of every metric (study
    /// results only).
    SummaryCsv,
}

#[derive(clap::Args, Default)]
pub struct Args {
    /// Results: a study's results.json (or the directory holding it), or `barrage load --json`
    /// documents. With two or more study results the first is the baseline and the others are
    /// compared with it point by point.
    #[arg(required = true, value_name = "RESULTS")]
    pub results: Vec<PathBuf>,
    /// Where to write the report (`-` for stdout). Default: report.html beside the first results
    /// file for HTML, stdout for Markdown and CSV.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Output format (default: from the output file's extension, else html).
    #[arg(short, long, value_enum)]
    pub format: Option<OutFormat>,
    /// Plot the latency distributions at this point (its label as the tables show it, e.g.
    /// "c=64"); repeatable. Default: the largest value of the swept parameter.
    #[arg(long = "point", value_name = "LABEL")]
    pub points: Vec<String>,
    /// Write only the study's questions table (its original's claims, each with ours and a
    /// verdict): `-f md` (a README's "original vs here" section) or `-f text`.
    #[arg(long)]
    pub questions: bool,
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    if args.results.is_empty() {
        bail!("no results given");
    }
    let format = args
        .format
        .unwrap_or_else(|| match crate::extension(args.output.as_deref()) {
            Some("md" | "markdown") => OutFormat::Md,
            Some("csv") => OutFormat::Csv,
            Some("txt") if args.questions => OutFormat::Text,
            _ if args.questions => OutFormat::Md,
            _ => OutFormat::Html,
        });
    let mut inputs = Vec::new();
    for p in &args.results {
        let file = if p.is_dir() {
            p.join("results.json")
        } else {
            p.clone()
        };
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let input: Input =
            barrage_report::parse(&text).with_context(|| format!("{}", file.display()))?;
        inputs.push((label(p, &file), input));
    }
    let options = barrage_report::Options {
        hdr_points: args.points.clone(),
    };
    let text = match format {
        _ if args.questions => questions(&inputs, format)?,
        OutFormat::Text | OutFormat::SummaryCsv => per_study(&inputs, format)?,
        _ => {
            let page =
                barrage_report::build_with(&inputs, &options).context("cannot build the report")?;
            let fmt = match format {
                OutFormat::Md => Format::Markdown,
                OutFormat::Csv => Format::Csv,
                _ => Format::Html,
            };
            barrage_report::render(
                &page,
                fmt,
                &format!("barrage {}", env!("CARGO_PKG_VERSION")),
            )
        }
    };
    let out = match (&args.output, format) {
        (Some(p), _) => Some(p.clone()),
        (None, OutFormat::Html) => {
            let first = &args.results[0];
            let dir = if first.is_dir() {
                first.clone()
            } else {
                first.parent().map(Path::to_path_buf).unwrap_or_default()
            };
            Some(dir.join("report.html"))
        }
        (None, _) => None,
    };
    match out {
        Some(p) if p.as_os_str() != "-" => {
            std::fs::write(&p, text).with_context(|| format!("cannot write {}", p.display()))?;
            eprintln!("barrage: report written to {}", p.display());
        }
        _ => {
            use std::io::Write;
            std::io::stdout()
                .write_all(text.as_bytes())
                .context("cannot write to stdout")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The questions table of each study input (`--questions`), as Markdown or text.
fn questions(inputs: &[(String, Input)], format: OutFormat) -> anyhow::Result<String> {
    let mut out = String::new();
    for (label, input) in inputs {
        let Input::Study(r) = input else {
            bail!("{label}: --questions takes study results, not load documents");
        };
        if r.study.questions.is_empty() {
            bail!(
                "{label}: the study {} declares no [[question]]",
                r.study.name
            );
        }
        out.push_str(&match format {
            OutFormat::Md => barrage_report::questions::markdown(r),
            OutFormat::Text => barrage_report::questions::text(r),
            _ => bail!("--questions writes md or text, not {format:?}"),
        });
    }
    Ok(out)
}

/// The terminal summary or summary.csv of each study input, one after the other.
fn per_study(inputs: &[(String, Input)], format: OutFormat) -> anyhow::Result<String> {
    let mut out = String::new();
    for (label, input) in inputs {
        let Input::Study(r) = input else {
            bail!("{label}: --format text and summary-csv take study results, not load documents");
        };
        out.push_str(&match format {
            OutFormat::SummaryCsv => barrage_report::summary_csv::render(r),
            _ => format!(
                "{}\n{}",
                barrage_report::terminal::answer(r),
                barrage_report::terminal::table(r)
            ),
        });
    }
    Ok(out)
}

/// A short name for a results file: its directory's name for `DIR/results.json`, else the file
/// name.
pub(crate) fn label(given: &Path, file: &Path) -> String {
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    if given.is_dir() || file.file_name().is_some_and(|n| n == "results.json") {
        if let Some(d) = file.parent().and_then(name) {
            return d;
        }
    }
    name(file).unwrap_or_else(|| file.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../report/tests/fixtures")
            .join(name)
    }

    fn tmp(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("barrage-cli-report-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn writes_each_format_and_infers_it_from_the_extension() {
        let d = tmp("formats");
        for (file, format, starts) in [
            ("r.md", None, "# barrage study: tiny"),
            ("r.csv", None, "section,point,contender,metric"),
            ("r.html", None, "<!DOCTYPE html>"),
            ("r.txt", Some(OutFormat::Md), "# barrage study: tiny"),
        ] {
            let out = d.join(file);
            let args = Args {
                results: vec![fixture("server-study.json")],
                output: Some(out.clone()),
                format,
                points: vec![],
                questions: false,
            };
            assert_eq!(main(args).unwrap(), ExitCode::SUCCESS);
            let text = std::fs::read_to_string(&out).unwrap();
            assert!(
                text.starts_with(starts),
                "{file}: {}",
                &text[..80.min(text.len())]
            );
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_results_directory_gets_report_html_inside() {
        let d = tmp("dir");
        std::fs::copy(fixture("single-trial.json"), d.join("results.json")).unwrap();
        let args = Args {
            results: vec![d.clone()],
            ..Args::default()
        };
        assert_eq!(main(args).unwrap(), ExitCode::SUCCESS);
        let html = std::fs::read_to_string(d.join("report.html")).unwrap();
        assert!(html.contains("Single trial per point"));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn bad_inputs_are_errors_with_the_file_name() {
        let d = tmp("bad");
        let f = d.join("x.json");
        std::fs::write(&f, r#"{"schema":"nope/1"}"#).unwrap();
        let e = main(Args {
            results: vec![f],
            output: Some(d.join("o.html")),
            ..Args::default()
        })
        .unwrap_err();
        let msg = format!("{e:#}");
        assert!(msg.contains("x.json") && msg.contains("nope/1"), "{msg}");
        let e = main(Args {
            results: vec![d.join("missing.json")],
            ..Args::default()
        })
        .unwrap_err();
        assert!(format!("{e:#}").contains("cannot read"), "{e:#}");
        let _ = std::fs::remove_dir_all(&d);
    }

    /// `--questions` writes the study's questions table alone (Markdown by default, text with
    /// `-f text`) and refuses a study without questions.
    #[test]
    fn questions_writes_the_table_alone() {
        let d = tmp("questions");
        let fanout = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../studies/fanout/results");
        let r = barrage_lab::results::read(&fanout).unwrap();
        for (format, file, want) in [
            (None, "q.md", barrage_report::questions::markdown(&r)),
            (
                Some(OutFormat::Text),
                "q.txt",
                barrage_report::questions::text(&r),
            ),
        ] {
            let out = d.join(file);
            let args = Args {
                results: vec![fanout.clone()],
                output: Some(out.clone()),
                format,
                points: vec![],
                questions: true,
            };
            assert_eq!(main(args).unwrap(), ExitCode::SUCCESS);
            assert_eq!(std::fs::read_to_string(&out).unwrap(), want);
        }
        let e = main(Args {
            results: vec![fixture("server-study.json")],
            output: Some(d.join("none.md")),
            format: None,
            points: vec![],
            questions: true,
        })
        .unwrap_err();
        assert!(
            format!("{e:#}").contains("declares no [[question]]"),
            "{e:#}"
        );
        let _ = std::fs::remove_dir_all(&d);
    }
}

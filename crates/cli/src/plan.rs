//! `barrage plan PILOT`: trials per contender by power, from a pilot run's spread
//! (`barrage_model::plan`): for every comparison of contenders the pilot made on a metric, the
//! trials a side that detect a ratio (`--ratio`) with the power asked for at the study's
//! Holm-strict level, and the count to put in the study file.

use anyhow::Context as _;
use barrage_model::plan::{plan, PlanConfig};
use std::path::PathBuf;
use std::process::ExitCode;

/// Choose a study's trial count by power from a pilot run (its results directory or
/// results.json).
#[derive(clap::Args)]
pub struct Args {
    /// The pilot: a results directory of `barrage run`, or its results.json.
    pub pilot: PathBuf,
    /// The ratio to detect, either way: 1.10 or "10%" (a 10% difference); several, comma-separated.
    #[arg(long, default_value = "1.10", value_delimiter = ',')]
    pub ratio: Vec<String>,
    /// The metric compared (a key: wall_s, rps, cpu_s, peak_rss_bytes, a declared figure).
    /// Default: the study's primary metric.
    #[arg(long)]
    pub metric: Option<String>,
    /// The chance of finding the ratio (0 < power < 1).
    #[arg(long, default_value_t = 0.8)]
    pub power: f64,
    /// Comparisons the full study will test (its Holm family). Default: as many as the pilot
    /// made, which a study of the same contenders, points and metrics makes too.
    #[arg(long)]
    pub comparisons: Option<usize>,
}

/// "1.10", "10%" -> 1.10.
fn parse_ratio(s: &str) -> anyhow::Result<f64> {
    let t = s.trim();
    let v = match t.strip_suffix('%') {
        Some(p) => 1.0 + p.trim().parse::<f64>().context("not a percentage")? / 100.0,
        None => t.parse::<f64>().context("not a number")?,
    };
    anyhow::ensure!(v.is_finite() && v > 0.0 && v != 1.0, "a ratio other than 1");
    Ok(v)
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        args.power > 0.0 && args.power < 1.0,
        "--power is a probability between 0 and 1, not {}",
        args.power
    );
    let ratios = args
        .ratio
        .iter()
        .map(|s| parse_ratio(s).with_context(|| format!("--ratio {s}")))
        .collect::<anyhow::Result<Vec<f64>>>()?;
    let r = barrage_lab::results::read(&args.pilot)
        .with_context(|| format!("cannot read the pilot {}", args.pilot.display()))?;
    let metric = match &args.metric {
        Some(k) => barrage_model::metric::find(&r, k)
            .with_context(|| format!("the pilot has no metric {k:?}"))?,
        None => barrage_model::metric::primary(&r).clone(),
    };
    println!(
        "pilot {} ({}): {} on {}",
        r.study.name,
        args.pilot.display(),
        metric.label,
        barrage_report::study_section::machine_text(&r.machine)
    );
    if !r.study.questions.is_empty() {
        print_questions(&r);
    }
    for ratio in ratios {
        let cfg = PlanConfig {
            ratio,
            power: args.power,
            comparisons: args.comparisons,
            ..PlanConfig::default()
        };
        let p = plan(&r, &metric, &cfg);
        println!(
            "\nto detect {ratio:.3}x with power {:.2} at α = {} / {} comparisons = {:.5} each:",
            cfg.power, cfg.alpha, p.comparisons, p.alpha_each
        );
        if p.rows.is_empty() {
            println!(
                "  no comparison of contenders with 2 or more successful trials a side on {}",
                metric.label
            );
            continue;
        }
        let pw = p
            .rows
            .iter()
            .map(|r| r.point.len())
            .max()
            .unwrap_or(0)
            .max(5);
        let vw = p
            .rows
            .iter()
            .map(|r| r.a.len() + r.b.len() + 4)
            .max()
            .unwrap_or(0)
            .max(6);
        println!(
            "  {:<pw$} {:<vw$} {:>7} {:>9} {:>9} {:>9} {:>10} {:>10}",
            "point", "a vs b", "trials", "sd(ln)", "pilot", "power", "trials", "trials"
        );
        println!(
            "  {:<pw$} {:<vw$} {:>7} {:>9} {:>9} {:>9} {:>10} {:>10}",
            "", "", "(pilot)", "", "ratio", "now", "needed", "observed"
        );
        let n = |t: Option<u32>| t.map_or("> 10000".to_string(), |t| t.to_string());
        for row in &p.rows {
            println!(
                "  {:<pw$} {:<vw$} {:>7} {:>9.4} {:>8.3}x {:>9.2} {:>10} {:>10}",
                if row.point.is_empty() {
                    "-"
                } else {
                    &row.point
                },
                format!("{} vs {}", row.a, row.b),
                format!("{}/{}", row.n_a, row.n_b),
                row.sd_log,
                row.observed,
                row.power_now,
                n(row.trials),
                n(row.trials_observed),
            );
        }
        match p.trials {
            Some(t) => println!(
                "  => trials = {t} (the most any comparison needs; the pilot's spread from {}-{} trials a side is itself uncertain: a larger pilot gives a firmer count)",
                p.rows.iter().map(|r| r.n_a.min(r.n_b)).min().unwrap_or(0),
                p.rows.iter().map(|r| r.n_a.max(r.n_b)).max().unwrap_or(0),
            ),
            None => println!("  => more than 10000 trials for some comparison: this ratio is below what this spread can show"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The study's questions first: each one's trials a group for 0.8 power at the original's
/// effect (its margin for an equivalence), at the questions' Holm-strict level, from the
/// pilot's spread (the model's answers carry it).
fn print_questions(r: &barrage_model::study::Results) {
    let answers = barrage_model::question::answers(r);
    let tested = answers.iter().filter(|a| a.p.is_some()).count().max(1);
    println!(
        "\nthe study's questions, each at its original's effect with power 0.80 at α = 0.05 / {tested} questions:"
    );
    let iw = answers.iter().map(|a| a.id.len()).max().unwrap_or(8).max(8);
    println!(
        "  {:<iw$} {:>9} {:>7} {:>9} {:>10}  verdict now",
        "question", "expected", "trials", "power", "trials"
    );
    println!(
        "  {:<iw$} {:>9} {:>7} {:>9} {:>10}",
        "", "", "(pilot)", "now", "needed"
    );
    for (q, a) in r.study.questions.iter().zip(&answers) {
        let expected = match (q.expected, q.parsed()) {
            (Some(e), _) => barrage_model::question::factor(e),
            (None, Ok(c)) if matches!(c.op, barrage_model::question::Op::Equivalent { .. }) => {
                "1.00x".into()
            }
            _ => "-".into(),
        };
        let power = a.power.map_or("-".into(), |p| format!("{p:.2}"));
        let need = match (a.power, a.trials_needed) {
            (None, _) => "-".to_string(),
            (Some(_), Some(n)) => n.to_string(),
            (Some(_), None) => "> 10000".into(),
        };
        let verdict = if a.note.is_empty() {
            a.verdict.as_str().to_string()
        } else {
            format!("{} ({})", a.verdict.as_str(), a.note)
        };
        println!(
            "  {:<iw$} {:>9} {:>7} {:>9} {:>10}  {verdict}",
            a.id, expected, a.n, power, need
        );
    }
    let most = answers
        .iter()
        .filter(|a| a.power.is_some())
        .map(|a| a.trials_needed)
        .try_fold(0u32, |m, t| t.map(|t| m.max(t)));
    match most {
        Some(0) => println!("  => no question has an effect to size the trials at (give each an expected)"),
        Some(t) => println!("  => trials = {t} gives every question with an expected effect its power"),
        None => println!("  => some question needs more than 10000 trials a side at its effect: its original's effect is below what this spread can show"),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_ratio;

    #[test]
    fn ratios() {
        assert_eq!(parse_ratio("1.10").unwrap(), 1.10);
        assert!((parse_ratio("10%").unwrap() - 1.10).abs() < 1e-12);
        assert!((parse_ratio(" 34.7 %").unwrap() - 1.347).abs() < 1e-12);
        assert!(parse_ratio("1").is_err());
        assert!(parse_ratio("-2").is_err());
        assert!(parse_ratio("x").is_err());
    }
}

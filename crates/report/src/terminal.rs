//! The terminal rendering of a study's results: the answer block (ranked table, at most five
//! verdict lines, one line per kind of note: what `barrage run` prints at the end, one screen),
//! and the full summary table with every comparison and warning (`barrage report -f text`).

use crate::table::merged_percentile;
use barrage_model::metric::{self, Format, Metric};
use barrage_model::study::{Cell, ContenderRole, Results};
use std::fmt::Write as _;

fn median_ci(c: &Cell, m: &Metric) -> String {
    match c.stats.get(m.key.as_ref()) {
        None => "-".into(),
        Some(s) => match s.ci95_median {
            Some(ci) => format!(
                "{} [{}, {}]",
                m.show_in_table(s.median),
                m.show_in_table(ci.lo),
                m.show_in_table(ci.hi)
            ),
            None => m.show_in_table(s.median),
        },
    }
}

/// What a column of the terminal table shows of its registry metric.
#[derive(Clone, Copy)]
enum Show {
    /// The median with its 95% interval.
    MedianCi,
    /// The median (latency percentiles: the percentile of the merged histograms).
    Median,
    /// The second best trial ("2nd best of N", the original benchmarks' statistic).
    SecondBest,
    /// The total over the successful trials (errors).
    Total,
}

/// The table's columns, each a metric of the study: servers their fixed set; clients their
/// primary metric, then the body throughput, then CPU per request (clients that report their
/// rate), the wall time and the rest, PSS beside RSS for multi-process trees, and the figures
/// the study declared.
fn columns(r: &Results) -> Vec<(Metric, Show)> {
    use Show::*;
    if r.study.kind == ContenderRole::Server {
        return vec![
            (metric::RPS, MedianCi),
            (metric::RPS, SecondBest),
            (metric::P50, Median),
            (metric::P99, Median),
            (metric::P999, Median),
            (metric::CPU_PER_REQUEST, Median),
            (metric::PEAK_RSS, Median),
            (metric::ERRORS, Total),
        ];
    }
    let has = |m: &Metric| {
        r.summary
            .iter()
            .any(|c| c.stats.contains_key(m.key.as_ref()))
    };
    let primary = metric::primary(r);
    let mut cols = vec![(primary.clone(), MedianCi)];
    if has(&metric::MB_PER_S) {
        cols.push((metric::MB_PER_S, Median));
    }
    if primary.key == metric::RPS.key {
        cols.push((metric::CPU_PER_REQUEST, Median));
        cols.push((metric::WALL, MedianCi));
    }
    for m in [metric::USER, metric::SYS, metric::PEAK_RSS] {
        cols.push((m, Median));
    }
    if crate::answer::pss_differs(r) && has(&metric::PEAK_PSS) {
        cols.push((metric::PEAK_PSS, Median));
    }
    for m in metric::of_results(r) {
        if m.is_figure() && has(&m) {
            cols.push((m, Median));
        }
    }
    cols
}

/// A column's header: throughputs by their unit ("req/s", "MB/s"), the rest by their label.
fn header(m: &Metric, show: Show) -> String {
    let name = match m.format {
        Format::Rate | Format::MegabytesPerSecond => m.unit,
        _ => &m.label,
    };
    match show {
        Show::MedianCi => format!("{name} median [95% CI]"),
        Show::SecondBest => "2nd best".into(),
        Show::Median | Show::Total => name.into(),
    }
}

/// A column's text for one cell of the model's summary.
fn text(c: &Cell, m: &Metric, show: Show) -> String {
    let stat = c.stats.get(m.key.as_ref());
    match show {
        Show::MedianCi => median_ci(c, m),
        Show::SecondBest => stat
            .and_then(|s| s.second_best)
            .map_or("-".into(), |v| m.show_in_table(v)),
        Show::Total => c.errors.to_string(),
        Show::Median => match m.merged_quantile {
            Some(q) => c
                .latency
                .as_ref()
                .and_then(|l| merged_percentile(l, q))
                .map_or("-".into(), |us| m.show(us)),
            None => stat.map_or("-".into(), |s| m.show_in_table(s.median)),
        },
    }
}

/// The summary table, comparisons and warnings, for a terminal (plain text, aligned columns).
pub fn table(r: &Results) -> String {
    let cols = columns(r);
    // Which network each point ran on, when some point ran on one.
    let network = |point: usize| barrage_model::network::point_text(r, point);
    let with_network = r.points.iter().any(|p| network(p.id).is_some());
    let mut head: Vec<String> = ["point", "contender", "ok"].map(String::from).to_vec();
    if with_network {
        head.insert(1, "network".into());
    }
    head.extend(cols.iter().map(|(m, show)| header(m, *show)));
    head.push("note".into());
    let mut rows = vec![head];
    for c in &r.summary {
        let mut note = Vec::new();
        if c.generator_bottleneck {
            note.push("generator-bound".to_string());
        }
        if c.trials_failed > 0 {
            note.push(format!("{} failed", c.trials_failed));
        }
        let label = if c.label.is_empty() {
            "-".into()
        } else {
            c.label.clone()
        };
        let mut row = vec![
            label,
            c.contender.clone(),
            format!("{}/{}", c.trials_ok, c.trials_ok + c.trials_failed),
        ];
        if with_network {
            row.insert(1, network(c.point).unwrap_or_default());
        }
        row.extend(cols.iter().map(|(m, show)| text(c, m, *show)));
        row.push(note.join(", "));
        rows.push(row);
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "study {} ({} trials per point; latency percentiles from merged HDR histograms)",
        r.study.name, r.study.trials
    );
    out.push_str(&align(&rows));
    let _ = writeln!(out, "{}", machine_line(r));
    let primary = barrage_model::metric::primary(r).key.as_ref();
    // The primary metric always (a "no significant difference" is news too); the others only
    // when they differ significantly.
    let mut cmp: Vec<_> = r
        .comparisons
        .iter()
        .filter(|c| c.metric == primary || c.comparison.significant)
        .collect();
    cmp.sort_by_key(|c| (c.point, c.metric != primary));
    if !cmp.is_empty() {
        out.push_str(
            "\ncomparisons (Welch's t-test on log values, Holm-corrected over the study, α = 0.05):\n",
        );
        for c in cmp {
            let at = if c.label.is_empty() {
                String::new()
            } else {
                format!(" at {}", c.label)
            };
            let what = if c.metric == primary {
                String::new()
            } else {
                format!(" [{}]", c.metric)
            };
            let whose = c
                .contender
                .as_ref()
                .map_or(String::new(), |k| format!("{k}: "));
            let _ = writeln!(
                out,
                "  {whose}{} vs {}{at}{what}: {}",
                c.a, c.b, c.comparison.phrase
            );
        }
    }
    if !r.warnings.is_empty() {
        out.push_str("\nwarnings:\n");
        for w in &r.warnings {
            let _ = writeln!(out, "  ! {}", w.message);
        }
    }
    out
}

/// The answer block in text: the question, the ranked table, the verdicts, one line per kind of
/// note, and the pinning and the sampler's cost.
pub fn answer(r: &Results) -> String {
    let a = crate::answer::answer(r);
    // The questions first; then, labelled, the exploratory ranking.
    let mut out = crate::questions::text(r);
    if !out.is_empty() {
        out.push_str(
            "exploratory, beyond the questions: each contender against the best at its point\n",
        );
    }
    let _ = writeln!(out, "study {}: {}", r.study.name, a.question);
    let mut head: Vec<String> = vec!["#".into(), "contender".into()];
    let mut last_group = "";
    for c in &a.columns {
        head.push(if c.group.is_empty() {
            c.header.clone()
        } else if c.group != last_group {
            format!("{} {}", c.group, c.header)
        } else {
            c.header.clone()
        });
        last_group = &c.group;
    }
    let mut rows = vec![head];
    for (i, row) in a.rows.iter().enumerate() {
        let mut line = vec![(i + 1).to_string(), row.name.clone()];
        line.extend(row.cells.iter().map(|c| c.text.clone()));
        rows.push(line);
    }
    out.push_str(&align(&rows));
    let _ = writeln!(out, "{}", a.ranked_by);
    for n in &a.network {
        let _ = writeln!(out, "{n}");
    }
    for v in &a.verdicts {
        let _ = writeln!(out, "  {v}");
    }
    for n in &a.notes {
        let _ = writeln!(out, "  ! {}", n.text);
    }
    let _ = writeln!(out, "{}", machine_line(r));
    out
}

/// Pinning and the sampler's cost, in one line.
fn machine_line(r: &Results) -> String {
    let server = r.study.kind == ContenderRole::Server;
    // Over all trials: the sampler's CPU time over its wall time (short trials alone would
    // overstate it with the fixed cost of the first walk of /proc).
    let (cpu, wall) =
        r.trials
            .iter()
            .filter_map(|t| t.samples.as_ref())
            .fold((0.0, 0.0), |(c, w), s| {
                (
                    c + s.sampler_cpu.as_secs_f64(),
                    w + s.sampler_wall.as_secs_f64(),
                )
            });
    let sampler = (wall > 0.0).then(|| 100.0 * cpu / wall);
    let pin = match (&r.pinning.contender_cpus, &r.pinning.generator_cpus) {
        (Some(c), Some(g)) => format!(
            "contender on CPU {c:?}, {} on CPU {g:?}",
            if server {
                "load generator"
            } else {
                "target server"
            }
        ),
        _ => r.pinning.note.clone(),
    };
    format!(
        "pinning: {pin}; sampler cost: {}",
        sampler.map_or("-".to_string(), |p| format!("{p:.2}% of a core"))
    )
}

pub(crate) fn align(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width: Vec<usize> = (0..cols)
        .map(|i| {
            rows.iter()
                .map(|r| r.get(i).map_or(0, |s| s.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, s)| format!("{s:<w$}", w = width[i]))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

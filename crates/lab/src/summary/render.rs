//! Renderings of the statistics: the terminal summary table and `summary.csv`, as strings.

use super::{fmt_metric, fmt_secs, metrics};
use crate::results::Results;
use crate::study::Kind;
use std::fmt::Write as _;

fn median_ci(c: &super::Cell, name: &str) -> String {
    match c.stats.get(name) {
        None => "-".into(),
        Some(s) => match s.ci95_median {
            Some(ci) => format!(
                "{} [{}, {}]",
                fmt_metric(name, s.median),
                fmt_metric(name, ci.lo),
                fmt_metric(name, ci.hi)
            ),
            None => fmt_metric(name, s.median),
        },
    }
}

/// The summary table, comparisons and warnings, for a terminal (plain text, aligned columns).
pub fn table(r: &Results) -> String {
    let server = r.study.kind == Kind::Server;
    let mut rows: Vec<Vec<String>> = Vec::new();
    rows.push(if server {
        [
            "point",
            "contender",
            "ok",
            "req/s median [95% CI]",
            "2nd best",
            "p50",
            "p99",
            "p99.9",
            "CPU/req",
            "peak RSS",
            "errors",
            "note",
        ]
        .map(String::from)
        .to_vec()
    } else {
        [
            "point",
            "contender",
            "ok",
            "wall median [95% CI]",
            "user",
            "sys",
            "peak RSS",
            "note",
        ]
        .map(String::from)
        .to_vec()
    });
    // Clients that report their own throughput (`client.rate`) get its columns.
    let rated = !server && r.summary.iter().any(|c| c.stats.contains_key("rps"));
    if rated {
        rows[0].insert(3, "req/s median [95% CI]".into());
        rows[0].insert(4, "CPU/req".into());
    }
    // Clients whose body size the study checks get their throughput beside the wall time.
    let sized = !server && r.summary.iter().any(|c| c.stats.contains_key("mb_per_s"));
    if sized {
        rows[0].insert(4, "MB/s".into());
    }
    for c in &r.summary {
        let ok = format!("{}/{}", c.trials_ok, c.trials_ok + c.trials_failed);
        let med = |n: &str| {
            c.stats
                .get(n)
                .map_or("-".to_string(), |s| fmt_metric(n, s.median))
        };
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
        rows.push(if server {
            let lat = |f: fn(&super::MergedLatency) -> u64| {
                c.latency
                    .as_ref()
                    .map_or("-".to_string(), |l| fmt_secs(f(l) as f64 / 1e6))
            };
            vec![
                label,
                c.contender.clone(),
                ok,
                median_ci(c, "rps"),
                // "2nd best of N", the original benchmarks' statistic (see docs/study.md).
                c.stats
                    .get("rps")
                    .and_then(|s| s.second_best)
                    .map_or("-".to_string(), |v| fmt_metric("rps", v)),
                lat(|l| l.p50_us),
                lat(|l| l.p99_us),
                lat(|l| l.p999_us),
                med("cpu_s_per_request"),
                med("peak_rss_bytes"),
                c.errors.to_string(),
                note.join(", "),
            ]
        } else {
            let mut row = vec![
                label,
                c.contender.clone(),
                ok,
                median_ci(c, "wall_s"),
                med("user_s"),
                med("sys_s"),
                med("peak_rss_bytes"),
                note.join(", "),
            ];
            if rated {
                row.insert(3, median_ci(c, "rps"));
                row.insert(4, med("cpu_s_per_request"));
            }
            if sized {
                row.insert(4, med("mb_per_s"));
            }
            row
        });
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "study {} ({} trials per point; latency percentiles from merged HDR histograms)",
        r.study.name, r.study.trials
    );
    out.push_str(&align(&rows));
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
    let _ = writeln!(
        out,
        "pinning: {pin}; sampler cost: {}",
        sampler.map_or("-".to_string(), |p| format!("{p:.2}% of a core"))
    );
    let (primary, _) = super::primary(r);
    // The primary metric always (a "no significant difference" is news too); the others only
    // when they differ significantly.
    let mut cmp: Vec<_> = r
        .comparisons
        .iter()
        .filter(|c| c.metric == primary || c.comparison.significant)
        .collect();
    cmp.sort_by_key(|c| (c.point, c.metric != primary));
    if !cmp.is_empty() {
        out.push_str("\ncomparisons (Mann-Whitney U, α = 0.05):\n");
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
            let _ = writeln!(
                out,
                "  {} vs {}{at}{what}: {} (p = {:.3})",
                c.a, c.b, c.comparison.phrase, c.comparison.p_value
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

fn align(rows: &[Vec<String>]) -> String {
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

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `summary.csv`: one row per point and contender; every statistic of every metric as raw numbers
/// (seconds, bytes, requests per second, microseconds). `latency_p50_us_median` and the like are
/// statistics of the per-trial percentiles (what the significance tests compare); the latency
/// percentiles to quote are the `merged_latency_*` columns, from the merged HDR histograms.
pub fn csv(r: &Results) -> String {
    let ms = metrics(r.study.kind);
    let mut head = vec![
        "point".to_string(),
        "label".into(),
        "contender".into(),
        "trials_ok".into(),
        "trials_failed".into(),
    ];
    for (m, _) in &ms {
        for s in [
            "median",
            "mean",
            "stddev",
            "min",
            "max",
            "second_best",
            "ci95_lo",
            "ci95_hi",
        ] {
            head.push(format!("{m}_{s}"));
        }
    }
    for h in [
        "merged_latency_count",
        "merged_latency_mean_us",
        "merged_latency_p50_us",
        "merged_latency_p90_us",
        "merged_latency_p99_us",
        "merged_latency_p999_us",
        "merged_latency_max_us",
        "errors",
        "generator_bottleneck",
    ] {
        head.push(h.into());
    }
    let mut out = head.join(",");
    out.push('\n');
    let num = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v}"));
    for c in &r.summary {
        let mut row = vec![
            c.point.to_string(),
            csv_field(&c.label),
            csv_field(&c.contender),
            c.trials_ok.to_string(),
            c.trials_failed.to_string(),
        ];
        for (m, _) in &ms {
            match c.stats.get(*m) {
                Some(s) => {
                    row.extend([
                        num(Some(s.median)),
                        num(Some(s.mean)),
                        num(s.stddev),
                        num(Some(s.min)),
                        num(Some(s.max)),
                        num(s.second_best),
                        num(s.ci95_median.map(|i| i.lo)),
                        num(s.ci95_median.map(|i| i.hi)),
                    ]);
                }
                None => row.extend(std::iter::repeat_n(String::new(), 8)),
            }
        }
        match &c.latency {
            Some(l) => row.extend([
                l.count.to_string(),
                format!("{}", l.mean_us),
                l.p50_us.to_string(),
                l.p90_us.to_string(),
                l.p99_us.to_string(),
                l.p999_us.to_string(),
                l.max_us.to_string(),
            ]),
            None => row.extend(std::iter::repeat_n(String::new(), 7)),
        }
        row.push(c.errors.to_string());
        row.push(c.generator_bottleneck.to_string());
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

//! The terminal rendering of a study's results: the summary table, the comparisons and the
//! warnings, as plain text with aligned columns (what `barrage run` prints at the end).

use barrage_model::metric;
use barrage_model::study::{Cell, Kind, MergedLatency, Results};
use std::fmt::Write as _;

/// A stored value of metric `key` for people ("12.3k", "1.25 ms", "48.0 MiB").
fn fmt_metric(key: &str, v: f64) -> String {
    match metric::get(key) {
        Some(m) if m.key == metric::RPS.key => metric::fmt_count(v),
        Some(m) => m.show(v),
        None => metric::fmt_secs(v),
    }
}

use metric::fmt_secs;

fn median_ci(c: &Cell, name: &str) -> String {
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
    let has = |m: &metric::Metric| r.summary.iter().any(|c| c.stats.contains_key(m.key));
    let rated = !server && has(&metric::RPS);
    if rated {
        rows[0].insert(3, "req/s median [95% CI]".into());
        rows[0].insert(4, "CPU/req".into());
    }
    // Clients whose body size the study checks get their throughput beside the wall time.
    let sized = !server && has(&metric::MB_PER_S);
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
            let lat = |f: fn(&MergedLatency) -> u64| {
                c.latency
                    .as_ref()
                    .map_or("-".to_string(), |l| fmt_secs(f(l) as f64 / 1e6))
            };
            vec![
                label,
                c.contender.clone(),
                ok,
                median_ci(c, metric::RPS.key),
                // "2nd best of N", the original benchmarks' statistic (see docs/study.md).
                c.stats
                    .get(metric::RPS.key)
                    .and_then(|s| s.second_best)
                    .map_or("-".to_string(), |v| fmt_metric(metric::RPS.key, v)),
                lat(|l| l.p50_us),
                lat(|l| l.p99_us),
                lat(|l| l.p999_us),
                med(metric::CPU_PER_REQUEST.key),
                med(metric::PEAK_RSS.key),
                c.errors.to_string(),
                note.join(", "),
            ]
        } else {
            let mut row = vec![
                label,
                c.contender.clone(),
                ok,
                median_ci(c, metric::WALL.key),
                med(metric::USER.key),
                med(metric::SYS.key),
                med(metric::PEAK_RSS.key),
                note.join(", "),
            ];
            if rated {
                row.insert(3, median_ci(c, metric::RPS.key));
                row.insert(4, med(metric::CPU_PER_REQUEST.key));
            }
            if sized {
                row.insert(4, med(metric::MB_PER_S.key));
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
    let primary = barrage_model::metric::primary(r).key;
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
            let _ = writeln!(
                out,
                "  {} vs {}{at}{what}: {}",
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

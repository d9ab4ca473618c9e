//! What `barrage history` shows: the runs as an aligned table (one line per run, newest last),
//! and the trends page (one chart per metric) built from the history for the report crate.

use barrage_history::figures::describe;
use barrage_history::{DocKind, Filter, History, MetricRow, RunRow};
use barrage_model::load::LoadDoc;
use barrage_model::metric::Better;
use barrage_report::page::Page;
use barrage_report::trend::{Series, Trend};

/// The runs as a table: id, time, kind, what ran (URL or study), git commit (`+` when the
/// work tree had changes), status when not complete, and its figures: a load run's throughput,
/// p99 and errors, a study's best cell, or `metric`'s value when one is asked for.
pub fn table(runs: &[RunRow], metric: Option<&str>) -> String {
    // The status column only when some run did not complete.
    let statuses = runs.iter().any(|r| r.status != "complete");
    let mut header = vec![
        "id", "time", "kind", "target", "commit", "status", "figures",
    ];
    if !statuses {
        header.remove(5);
    }
    let mut rows: Vec<Vec<String>> = vec![header.into_iter().map(String::from).collect()];
    for r in runs {
        let what = match r.kind {
            DocKind::Load => r.url.clone(),
            DocKind::Study => r.name.clone(),
        };
        let commit = r.git.as_ref().map_or("-".to_string(), |g| {
            let short: String = g.commit.chars().take(10).collect();
            if g.dirty {
                short + "+"
            } else {
                short
            }
        });
        let mut row = vec![
            r.id.to_string(),
            r.time.clone(),
            r.kind.as_str().into(),
            what,
            commit,
        ];
        if statuses {
            row.push(r.status.clone());
        }
        row.push(figures(r, metric));
        rows.push(row);
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in &rows {
        let mut line = format!("{:>w$}", r[0], w = widths[0]);
        for (cell, w) in r.iter().zip(&widths).skip(1) {
            line.push_str(&format!("  {cell:<w$}"));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// One run's figures as a few words.
fn figures(r: &RunRow, metric: Option<&str>) -> String {
    let value = |key: &str| {
        r.metrics
            .iter()
            .find(|m| m.key == key)
            .map(|m| describe(key).show(m.value))
    };
    match (r.kind, metric) {
        (DocKind::Load, Some(key)) => value(key).unwrap_or_else(|| "-".into()),
        (DocKind::Load, None) => {
            let mut parts = Vec::new();
            parts.extend(value("rps"));
            parts.extend(value("latency_p99_us").map(|v| format!("p99 {v}")));
            parts.extend(value("errors").map(|v| format!("{v} errors")));
            parts.join(", ")
        }
        (DocKind::Study, _) => {
            let key = metric
                .or_else(|| {
                    ["rps", "wall_s"]
                        .into_iter()
                        .find(|k| r.metrics.iter().any(|m| m.key == *k))
                })
                .or_else(|| r.metrics.first().map(|m| m.key.as_str()));
            let cells = {
                let mut c: Vec<(&str, &str)> = r
                    .metrics
                    .iter()
                    .map(|m| (m.point.as_str(), m.contender.as_str()))
                    .collect();
                c.sort_unstable();
                c.dedup();
                c.len()
            };
            match key.and_then(|k| best(&r.metrics, k)) {
                Some(b) => {
                    let m = describe(&b.key);
                    let at = if b.point.is_empty() {
                        String::new()
                    } else {
                        format!(" at {}", b.point)
                    };
                    format!(
                        "{cells} cells; best {}: {} ({}{at})",
                        m.label,
                        m.show(b.value),
                        b.contender
                    )
                }
                None => format!("{cells} cells"),
            }
        }
    }
}

/// The best cell of a study on `key`, by the metric's direction.
fn best<'a>(metrics: &'a [MetricRow], key: &str) -> Option<&'a MetricRow> {
    let higher = describe(key).better == Better::Higher;
    metrics.iter().filter(|m| m.key == key).max_by(|a, b| {
        let o = a.value.total_cmp(&b.value);
        if higher {
            o
        } else {
            o.reverse()
        }
    })
}

/// The trends page of the runs the filter takes: one chart per metric recorded (only the
/// filter's metric when it names one), one line per URL or study cell.
pub fn trends(history: &History, filter: &Filter, runs: &[RunRow]) -> anyhow::Result<Page> {
    let keys = match &filter.metric {
        Some(k) => vec![k.clone()],
        None => history.metric_keys(filter)?,
    };
    let mut trends = Vec::new();
    // Load runs' documents, read once each for their intervals.
    let mut docs: std::collections::HashMap<i64, Option<LoadDoc>> = Default::default();
    for key in keys {
        let m = describe(&key);
        let mut series: Vec<Series> = Vec::new();
        for p in history.trend(&key, filter)? {
            let name = p.series.label();
            let band = if p.series.kind == DocKind::Load {
                let doc = docs.entry(p.id).or_insert_with(|| {
                    let stored = history.document(barrage_history::Which::Id(p.id)).ok()?;
                    serde_json::from_str::<LoadDoc>(&stored.document).ok()
                });
                doc.as_ref()
                    .and_then(|d| d.intervals.as_ref()?.of(&m))
                    .and_then(|b| Some((p.id, b.lo?, b.hi?)))
            } else {
                None
            };
            let s = match series.iter_mut().position(|s| s.name == name) {
                Some(i) => &mut series[i],
                None => {
                    series.push(Series {
                        name,
                        ..Series::default()
                    });
                    series.last_mut().expect("pushed")
                }
            };
            s.points.push((p.id, p.value));
            s.band.extend(band);
        }
        trends.push(Trend { metric: m, series });
    }
    let path = history.path().display().to_string();
    let span = match (runs.first(), runs.last()) {
        (Some(a), Some(b)) => format!(", runs {} to {} ({} to {})", a.id, b.id, a.time, b.time),
        _ => String::new(),
    };
    let notes = vec![format!("{} runs from {path}{span}.", runs.len())];
    let meta = runs
        .iter()
        .map(|r| {
            let commit = r
                .git
                .as_ref()
                .map_or(String::new(), |g| format!(" at {}", g.commit));
            (
                format!("run {}", r.id),
                format!(
                    "{} on {}{commit}: {} ({})",
                    r.time, r.hostname, r.command, r.status
                ),
            )
        })
        .collect();
    Ok(barrage_report::trend::page(
        &format!("barrage history: {path}"),
        notes,
        meta,
        &trends,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use barrage_history::Git;

    fn row(id: i64, kind: DocKind, metrics: &[(&str, &str, &str, f64)]) -> RunRow {
        RunRow {
            id,
            time: "2026-01-02T03:04:05Z".into(),
            kind,
            name: "pingpong".into(),
            url: "http://127.0.0.1:8080/".into(),
            status: "complete".into(),
            command: "barrage".into(),
            hostname: "h".into(),
            git: Some(Git {
                commit: "0123456789abcdef".into(),
                dirty: id == 2,
            }),
            barrage_version: "0.1.0".into(),
            metrics: metrics
                .iter()
                .map(|&(key, point, contender, value)| MetricRow {
                    key: key.into(),
                    point: point.into(),
                    contender: contender.into(),
                    value,
                })
                .collect(),
        }
    }

    #[test]
    fn the_table_has_one_aligned_line_per_run() {
        let runs = [
            row(
                1,
                DocKind::Load,
                &[
                    ("rps", "", "", 12_345.0),
                    ("latency_p99_us", "", "", 1250.0),
                    ("errors", "", "", 0.0),
                ],
            ),
            row(
                2,
                DocKind::Study,
                &[
                    ("rps", "c=16", "go", 900.0),
                    ("rps", "c=64", "go", 1500.0),
                    ("rps", "c=64", "rust", 1400.0),
                    ("latency_p99_us", "c=64", "rust", 700.0),
                ],
            ),
        ];
        let t = table(&runs, None);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines,
            [
                "id  time                  kind   target                  commit       figures",
                " 1  2026-01-02T03:04:05Z  load   http://127.0.0.1:8080/  0123456789   12.3k req/s, p99 1.25 ms, 0 errors",
                " 2  2026-01-02T03:04:05Z  study  pingpong                0123456789+  3 cells; best throughput: 1500 req/s (go at c=64)",
            ]
        );
        // Lower is better for latency: the best p99 is the smallest.
        let t = table(&runs[1..], Some("latency_p99_us"));
        assert!(t.contains("best p99: 700.0 µs (rust at c=64)"), "{t}");
    }
}

//! The plots each study's question calls for, chosen from the shape of its data:
//!
//! - the main chart beside the answer: keep-alive vs close bars for paired contenders, the
//!   speed-up over depth 1 for a pipelining sweep, the primary metric against any other sweep
//!   (throughput vs connections; wall time from n=10 to n=100, a slope chart), else the primary
//!   metric as ranked horizontal bars;
//! - client studies: every client's memory over time on one log-y chart, the memory limit drawn
//!   and a cross where a client was killed; processes and threads over time when they vary.

use super::plots::{axis_label, failures_of, sweep_axis_name, sweep_chart};
use super::{cells_order, point_label, trials_of};
use crate::answer::Answer;
use crate::page::Plot;
use crate::svg::{Axis, HBarChart, HBarRow, Line, LineChart};
use crate::table::{dedup, Table};
use barrage_model::metric::{self as registry, Metric};
use barrage_model::process::MemoryLimitApplied;
use barrage_model::study::{FailureKind, Results, Trial};

const MIB: f64 = 1024.0 * 1024.0;

/// The chart beside the answer, and the key of the metric it shows against the sweep (so the
/// sweep plots do not draw it twice).
pub fn main_chart(doc: &Results, table: &Table, answer: &Answer) -> Option<(Plot, Option<String>)> {
    let m = registry::primary(doc);
    if let Some(pairs) = crate::answer::pairs(doc) {
        return Some((Plot::HBar(paired_bars(doc, table, m, &pairs, answer)), None));
    }
    if sweep_axis_name(doc).as_deref() == Some("pipeline") {
        if let Some(c) = speedup_chart(doc, table, m) {
            return Some((Plot::Line(c), None));
        }
    }
    if let Some((c, _)) = sweep_chart(doc, table, m) {
        return Some((Plot::Line(c), Some(m.key.to_string())));
    }
    Some((Plot::HBar(ranked_bars(doc, table, m, answer)), None))
}

/// The primary metric as horizontal bars in the answer's rank order, failures written out.
fn ranked_bars(doc: &Results, table: &Table, m: &Metric, answer: &Answer) -> HBarChart {
    let rows = answer
        .rows
        .iter()
        .filter_map(|a| table.rows.iter().find(|r| r.contender == a.name))
        .map(|r| HBarRow {
            label: r.contender.clone(),
            note: failures_of(doc, r).unwrap_or_default(),
            bars: vec![table
                .cell(r, &m.key)
                .map(|c| super::plots::bar(c, r))
                .unwrap_or_default()],
        })
        .collect();
    HBarChart {
        title: format!("{} by contender", capital(&m.label)),
        x: Axis::from_zero(axis_label(m)),
        series: vec![(m.label.to_string(), 0)],
        rows,
        metrics: vec![Some(m.key.to_string())],
        marks: Vec::new(),
    }
}

/// Close and keep-alive side by side for every pair (at every point: a row of the answer
/// names its pair and point, "x at c=10"), in the answer's order.
fn paired_bars(
    doc: &Results,
    table: &Table,
    m: &Metric,
    pairs: &[(String, String, String)],
    answer: &Answer,
) -> HBarChart {
    let labels = dedup(table.rows.iter().map(|r| r.point.clone()));
    let several = doc.points.len() > 1;
    let rows = answer
        .rows
        .iter()
        .filter_map(|a| {
            labels.iter().find_map(|label| {
                pairs
                    .iter()
                    .find(|p| {
                        if several {
                            a.name == format!("{} at {label}", p.0)
                        } else {
                            a.name == p.0
                        }
                    })
                    .map(|p| (a.name.clone(), label, p))
            })
        })
        .map(|(name, label, (_, close, ka))| {
            let bar = |contender: &str| {
                table
                    .rows
                    .iter()
                    .find(|r| r.contender == contender && (!several || r.point == *label))
                    .and_then(|r| Some(super::plots::bar(table.cell(r, &m.key)?, r)))
                    .unwrap_or_default()
            };
            HBarRow {
                label: name,
                bars: vec![bar(close), bar(ka)],
                note: String::new(),
            }
        })
        .collect();
    HBarChart {
        title: format!(
            "{}: new connection per request vs keep-alive",
            capital(&m.label)
        ),
        x: Axis::from_zero(axis_label(m)),
        series: vec![("close".into(), 3), ("keep-alive".into(), 0)],
        rows,
        metrics: vec![Some(m.key.to_string()), Some(m.key.to_string())],
        marks: Vec::new(),
    }
}

/// Each contender's primary metric over its own value at the smallest pipeline depth, against
/// the depth on a log axis (ticks at the depths run). A derived value, not a table cell.
fn speedup_chart(doc: &Results, table: &Table, m: &Metric) -> Option<LineChart> {
    let (base, _) = sweep_chart(doc, table, m)?;
    let mut c = LineChart::new(
        format!("{} speed-up over depth 1", capital(&m.label)),
        base.x.clone(),
        Axis::from_zero(format!("{} / {} at depth 1 (x)", m.label, m.label)),
    );
    for l in base.lines {
        let Some(&(x0, y0)) = l.points.first().filter(|p| p.1 > 0.0) else {
            continue;
        };
        let _ = x0;
        c.lines.push(Line {
            name: l.name,
            color: l.color,
            markers: true,
            points: l.points.iter().map(|&(x, y)| (x, y / y0)).collect(),
            ..Line::default()
        });
    }
    Some(c)
}

/// Client studies whose trials ran under a memory limit or were killed for memory: every
/// client's RSS over time on one log-y chart (its first failed trial, else its first trial),
/// the limit as a line, a cross where a trial ended failed.
pub fn memory_timelines(doc: &Results) -> Option<LineChart> {
    let limit = doc
        .trials
        .iter()
        .filter_map(|t| t.exit.as_ref())
        .filter_map(|e| match e.memory_limit {
            MemoryLimitApplied::Rlimit { bytes }
            | MemoryLimitApplied::CgroupV1 { bytes, .. }
            | MemoryLimitApplied::CgroupV2 { bytes, .. } => Some(bytes),
            MemoryLimitApplied::None => None,
        })
        .max();
    let any_oom = doc.trials.iter().any(|t| {
        t.failure
            .as_ref()
            .is_some_and(|f| f.kind == FailureKind::Oom)
    });
    if limit.is_none() && !any_oom {
        return None;
    }
    let mut c = LineChart::new(
        "Memory over time, every client (x: killed)",
        Axis::from_zero("time since start (s)"),
        Axis::log("RSS of the process tree (MiB)"),
    );
    let names = dedup(cells_order(doc).into_iter().map(|(_, n)| n));
    let mut tmax: f64 = 0.0;
    for (i, name) in names.iter().enumerate() {
        let trials: Vec<&Trial> = doc.trials.iter().filter(|t| &t.contender == name).collect();
        let Some(t) = trials.iter().find(|t| !t.ok).or(trials.first()) else {
            continue;
        };
        let Some(s) = &t.samples else { continue };
        let t0 = t.windows.trial_start_s;
        let points: Vec<(f64, f64)> = s
            .samples
            .iter()
            .map(|x| (x.t.as_secs_f64() - t0, x.rss_bytes as f64 / MIB))
            .filter(|p| p.1 > 0.0)
            .collect();
        tmax = points.iter().map(|p| p.0).fold(tmax, f64::max);
        c.lines.push(Line {
            name: name.clone(),
            color: i,
            points,
            end_cross: !t.ok,
            ..Line::default()
        });
    }
    if let Some(l) = limit {
        c.lines.push(Line {
            name: format!("memory limit ({})", registry::fmt_bytes(l as f64)),
            color: 6,
            dashed: true,
            points: vec![(0.0, l as f64 / MIB), (tmax, l as f64 / MIB)],
            ..Line::default()
        });
    }
    (!c.lines.is_empty()).then_some(c)
}

/// Processes and threads of the tree over time when they vary (fan-out by processes or
/// threads): the median trial of every contender at the sweep's last point.
pub fn tree_timelines(doc: &Results) -> Vec<LineChart> {
    let order = cells_order(doc);
    let Some(last) = order.iter().map(|o| o.0).next_back() else {
        return Vec::new();
    };
    let at = point_label(doc, last);
    let suffix = if at.is_empty() {
        String::new()
    } else {
        format!(" at {at}")
    };
    let mut procs = LineChart::new(
        format!("Processes over time{suffix}"),
        Axis::from_zero("time since start (s)"),
        Axis::from_zero("processes in the tree"),
    );
    let mut threads = LineChart::new(
        format!("Threads over time{suffix}"),
        Axis::from_zero("time since start (s)"),
        Axis::from_zero("threads in the tree"),
    );
    let mut varies = false;
    for (i, (_, name)) in order.iter().filter(|o| o.0 == last).enumerate() {
        let Some(t) = trials_of(doc, last, name).into_iter().find(|t| t.ok) else {
            continue;
        };
        let Some(s) = &t.samples else { continue };
        let t0 = t.windows.trial_start_s;
        let pts = |f: &dyn Fn(&barrage_model::process::Sample) -> f64| {
            s.samples
                .iter()
                .map(|x| (x.t.as_secs_f64() - t0, f(x)))
                .collect::<Vec<_>>()
        };
        let (p, th) = (pts(&|x| x.processes as f64), pts(&|x| x.threads as f64));
        varies |= p.iter().chain(&th).any(|v| v.1 > 1.0);
        procs.lines.push(Line {
            name: name.clone(),
            color: i,
            points: p,
            ..Line::default()
        });
        threads.lines.push(Line {
            name: name.clone(),
            color: i,
            points: th,
            ..Line::default()
        });
    }
    if varies {
        vec![procs, threads]
    } else {
        Vec::new()
    }
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

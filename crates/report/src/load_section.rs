//! The section for `barrage load --json` documents: one row per document (its overall figures,
//! and its per-second throughput as the sample for comparisons), the HDR percentile distribution
//! of each, and the per-second throughput, errors and latency over time.

use crate::answer::{Answer, AnswerCell, AnswerColumn, AnswerRow};
use crate::hdr;
use crate::page::{Plot, PlotGroup, Section};
use crate::svg::{Axis, Line, LineChart, Shade};
use crate::table::{Cell, Column, Row, Table};
use barrage_model::load::{LoadDoc, Phase};
use barrage_model::metric::fmt_count;
use barrage_model::metric::{Metric, ERRORS, P50, P99, P999, RPS};

/// The table's columns: the median of the per-second throughput (the per-second rates are the
/// samples a comparison of two single runs can be tested on), then the run's own figures.
pub fn columns() -> Vec<Column> {
    vec![
        Column::PerSecond(RPS),
        Column::Run(RPS),
        Column::Stat(P50),
        Column::Stat(P99),
        Column::Stat(P999),
        Column::Stat(ERRORS),
    ]
}

/// Per-second throughput of the measured seconds (whole seconds only: a partial last second is a
/// noisy rate).
pub fn second_rates(d: &LoadDoc) -> Vec<f64> {
    d.series
        .iter()
        .filter(|s| s.phase == Phase::Measure)
        .filter(|s| s.span_s == 0.0 || s.span_s >= 0.999)
        .map(|s| s.responses as f64 / if s.span_s > 0.0 { s.span_s } else { 1.0 })
        .collect()
}

/// Whether a per-second record is long enough to plot as a rate: the stub a run ends with (a few
/// milliseconds) would draw a meaningless spike or drop.
pub fn plottable(span_s: f64) -> bool {
    span_s == 0.0 || span_s >= 0.25
}

/// The table row of one document: each column's figure of the document, in the column's unit.
pub fn row(label: &str, d: &LoadDoc) -> Row {
    let cells = columns()
        .into_iter()
        .map(|col| {
            let m = col.metric();
            let stored = match col {
                Column::PerSecond(_) => second_rates(d),
                _ => vec![figure(d, m)],
            };
            Cell::new(stored.iter().map(|v| v * m.scale).collect(), &col)
        })
        .collect();
    Row {
        contender: label.to_string(),
        cells,
        trials: 1,
        ..Row::default()
    }
}

/// The document's own figure of a registry metric (stored units; 0 for a latency of a run with
/// no valid response).
fn figure(d: &LoadDoc, m: &Metric) -> f64 {
    barrage_model::metric::load_value(m, d).unwrap_or(0.0)
}

/// Builds the section for the documents (label, document).
pub fn section(docs: &[(String, &LoadDoc)]) -> Section {
    // No test between the rows here: two runs are compared by the comparison section
    // (`comparison`), the model's, as `barrage compare` judges them.
    let table = Table {
        columns: columns(),
        rows: docs.iter().map(|(l, d)| row(l, d)).collect(),
    };
    let mut meta = Vec::new();
    for (l, d) in docs {
        meta.push((
            l.clone(),
            format!(
                "{} — {} responses, {} written, {} errors, {:.2} s measured",
                d.config_summary(),
                d.requests,
                d.requests_written,
                d.errors.total(),
                d.duration_s
            ),
        ));
    }
    let mut notes = vec![
        "Each document is a single run; throughput per second is the median of its measured seconds. Each figure's 95% interval is from the run's own data (barrage.load/2: order statistics and the seconds for percentiles, a block bootstrap of the seconds for throughput and mean; docs/compare.md).".to_string(),
    ];
    for (l, d) in docs {
        notes.push(intervals_note(l, d));
    }
    for (l, d) in docs {
        if d.errors.total() > 0 {
            notes.push(format!(
                "{l}: {} errors ({}).",
                d.errors.total(),
                d.errors.breakdown()
            ));
        }
    }
    // Each run's protocol figures, in the words the terminal prints them in.
    for (l, d) in docs {
        if let Some(f) = &d.protocol {
            notes.push(format!("{l}: {}.", f.lines().join("; ")));
        }
    }
    let mut plots = vec![distribution_group(docs, &mut notes)];
    plots.push(series_group(docs));
    Section {
        heading: "Load runs".into(),
        answer: Some(answer(docs)),
        meta,
        notes,
        table: Some(table),
        plots,
        ..Section::default()
    }
}

/// A run's intervals in words: "a.json: 95% intervals: throughput [702, 741] req/s, mean
/// [5.41 ms, 5.52 ms], p99.9 [9.12 ms, beyond the slowest response] ...", or why it has none.
pub fn intervals_note(label: &str, d: &LoadDoc) -> String {
    let Some(i) = &d.intervals else {
        return format!("{label}: no intervals (a barrage.load/1 document).");
    };
    let figures: Vec<String> = barrage_model::load::intervals::judged()
        .filter_map(|m| {
            let b = i.of(m)?;
            let end = |v: Option<f64>, open: &str| v.map_or(open.to_string(), |v| m.show(v));
            Some(if b.lo.is_none() && b.hi.is_none() {
                format!("{} not enough data", m.label)
            } else {
                format!(
                    "{} [{}, {}]",
                    m.label,
                    end(b.lo, "below the fastest response"),
                    end(b.hi, "beyond the slowest response")
                )
            })
        })
        .collect();
    format!(
        "{label}: {} intervals over {} responses and {} measured seconds: {}.",
        barrage_model::stats::format_level(i.level),
        i.responses,
        i.seconds,
        figures.join(", ")
    )
}

/// What each run achieved, as the terminal says it: the rate (against its target for an open
/// loop), how late requests went out, latency corrected and uncorrected, errors.
pub fn answer(docs: &[(String, &LoadDoc)]) -> Answer {
    let ms = |us: f64| format!("{:.2} ms", us / 1000.0);
    let col = |h: &str| AnswerColumn {
        group: String::new(),
        header: h.into(),
        metric: None,
    };
    let text = |t: String, v: Option<f64>| AnswerCell {
        value: v,
        text: t,
        ..AnswerCell::default()
    };
    let mut verdicts = Vec::new();
    let rows = docs
        .iter()
        .map(|(l, d)| {
            let lat = &d.latency_us;
            let unc = d.latency_uncorrected_us.as_ref();
            let (target, share, late) = match &d.rate {
                Some(r) => {
                    let share = 100.0 * r.achieved_rps / r.target_rps.max(f64::MIN_POSITIVE);
                    verdicts.push(format!(
                        "{l}: achieved {} of the {} req/s target ({share:.0}%); requests went out late by p50 {}, p99 {}, max {}.",
                        fmt_count(r.achieved_rps),
                        fmt_count(r.target_rps),
                        ms(r.lateness_us.p50 as f64),
                        ms(r.lateness_us.p99 as f64),
                        ms(r.lateness_us.max as f64)
                    ));
                    if r.generator_bottleneck {
                        verdicts.push(format!(
                            "{l}: barrage's generator could not keep the schedule ({} sends late with a free connection): the figures measure barrage as much as the target.",
                            r.late_by_generator
                        ));
                    }
                    (
                        text(fmt_count(r.target_rps), Some(r.target_rps)),
                        text(format!("{share:.0}%"), Some(share)),
                        text(
                            format!("{} / {}", ms(r.lateness_us.p50 as f64), ms(r.lateness_us.p99 as f64)),
                            Some(r.lateness_us.p99 as f64),
                        ),
                    )
                }
                None => (
                    text("closed loop".into(), None),
                    text("-".into(), None),
                    text("-".into(), None),
                ),
            };
            let achieved = d.rate.as_ref().map_or(d.rps, |r| r.achieved_rps);
            AnswerRow {
                name: l.clone(),
                cells: vec![
                    text(fmt_count(achieved), Some(achieved)),
                    target,
                    share,
                    late,
                    text(
                        format!("{} / {}", ms(lat.p50 as f64), ms(lat.p99 as f64)),
                        Some(lat.p99 as f64),
                    ),
                    unc.map_or(text("-".into(), None), |u| {
                        text(
                            format!("{} / {}", ms(u.p50 as f64), ms(u.p99 as f64)),
                            Some(u.p99 as f64),
                        )
                    }),
                    text(d.errors.total().to_string(), Some(d.errors.total() as f64)),
                ],
            }
        })
        .collect();
    verdicts.truncate(crate::answer::MAX_VERDICTS);
    Answer {
        question: "What rate did each run achieve, and at what latency?".into(),
        columns: vec![
            col("achieved req/s"),
            col("target req/s"),
            col("of target"),
            col("send lateness p50 / p99"),
            col("p50 / p99 (corrected)"),
            col("p50 / p99 (uncorrected)"),
            col("errors"),
        ],
        rows,
        ranked_by: "One row per document, in the order given. Corrected latency is measured from each request's intended send time (open loop), uncorrected from when it was actually sent.".into(),
        verdicts,
        notes: Vec::new(),
        network: Vec::new(),
    }
}

fn distribution_group(docs: &[(String, &LoadDoc)], notes: &mut Vec<String>) -> PlotGroup {
    let mut c = LineChart::new(
        "Latency distribution (HDR percentiles)",
        Axis::log("percentile"),
        Axis::log("latency (ms)"),
    );
    let mut max_x: f64 = 10.0;
    for (i, (l, d)) in docs.iter().enumerate() {
        let Some(b64) = d.hdr.as_deref().filter(|s| !s.is_empty()) else {
            notes.push(format!(
                "{l}: no HDR histogram in the document; no distribution plot."
            ));
            continue;
        };
        match barrage_model::hdr::decode(b64) {
            Ok(h) => {
                let pts: Vec<(f64, f64)> = hdr::percentile_curve(&h)
                    .into_iter()
                    .map(|(x, v)| (x, v / 1000.0))
                    .collect();
                max_x = pts.iter().map(|p| p.0).fold(max_x, f64::max);
                let corrected = d.hdr_uncorrected.is_some();
                c.lines.push(Line {
                    name: if corrected {
                        format!("{l} (corrected)")
                    } else {
                        l.clone()
                    },
                    color: i,
                    points: pts,
                    ..Line::default()
                });
                // Open loop: the latency from the actual send beside the corrected one, dashed.
                if let Some(u) = d
                    .hdr_uncorrected
                    .as_deref()
                    .and_then(|b| barrage_model::hdr::decode(b).ok())
                {
                    c.lines.push(Line {
                        name: format!("{l} (uncorrected)"),
                        color: i,
                        dashed: true,
                        points: hdr::percentile_curve(&u)
                            .into_iter()
                            .map(|(x, v)| (x, v / 1000.0))
                            .collect(),
                        ..Line::default()
                    });
                }
            }
            Err(e) => notes.push(format!("{l}: bad HDR histogram: {e}")),
        }
    }
    c.x.ticks = Some(hdr::percentile_ticks(max_x));
    c.x.quantity = crate::svg::Quantity::Percentile;
    PlotGroup {
        heading: "Latency distribution".into(),
        notes: Vec::new(),
        plots: vec![Plot::Line(c)],
    }
}

fn series_group(docs: &[(String, &LoadDoc)]) -> PlotGroup {
    let mut rps = LineChart::new(
        "Throughput per second",
        Axis::time("time (s)"),
        Axis::from_zero("responses/s"),
    );
    let mut errs = LineChart::new(
        "Errors per second",
        Axis::time("time (s)"),
        Axis::from_zero("errors/s"),
    );
    let mut p99 = LineChart::new(
        "Latency per second (p99 and p50)",
        Axis::time("time (s)"),
        Axis::log("latency (ms)"),
    );
    for (i, (l, d)) in docs.iter().enumerate() {
        let tl: Vec<_> = d
            .timeline()
            .into_iter()
            .filter(|(_, s)| plottable(s.span_s))
            .collect();
        let rate = |n: u64, span: f64| n as f64 / if span > 0.0 { span } else { 1.0 };
        // Each record covers [x, x + span): plot it at the end of its second.
        let end = |x: f64, s: &barrage_model::load::Second| {
            x + if s.span_s > 0.0 { s.span_s } else { 1.0 }
        };
        // One line over the measured seconds: `y` of each record.
        let line =
            |name: String, y: &dyn Fn(&barrage_model::load::Second) -> f64, markers: bool| Line {
                name,
                color: i,
                points: tl.iter().map(|(x, s)| (end(*x, s), y(s))).collect(),
                markers,
                ..Line::default()
            };
        let few = tl.len() < 40;
        rps.lines
            .push(line(l.clone(), &|s| rate(s.responses, s.span_s), few));
        // An open loop's schedule (a constant rate, or stages) beside what was answered, dashed.
        if tl.iter().any(|(_, s)| s.target_rps.is_some()) {
            let mut target = line(
                format!("{l} target"),
                &|s| s.target_rps.unwrap_or(0.0),
                false,
            );
            target.dashed = true;
            rps.lines.push(target);
        }
        errs.lines
            .push(line(l.clone(), &|s| rate(s.errors, s.span_s), few));
        // p99 and p50 in different colours (not only a dash apart).
        let mut l99 = line(format!("{l} p99"), &|s| s.p99_us as f64 / 1000.0, false);
        l99.color = 2 * i;
        let mut l50 = line(format!("{l} p50"), &|s| s.p50_us as f64 / 1000.0, few);
        l50.color = 2 * i + 1;
        p99.lines.push(l99);
        p99.lines.push(l50);
        // Shade the warmup seconds once (all documents share the time axis from their start).
        if i == 0 {
            let w: Vec<_> = tl
                .iter()
                .filter(|(_, s)| s.phase == Phase::Warmup)
                .collect();
            if let (Some(a), Some(b)) = (w.first(), w.last()) {
                for c in [&mut rps, &mut errs, &mut p99] {
                    c.shades.push(Shade {
                        from: a.0,
                        to: end(b.0, b.1),
                        label: "warmup".into(),
                        class: "warmup",
                    });
                }
            }
        }
    }
    let no_errors = docs
        .iter()
        .all(|(_, d)| d.series.iter().all(|s| s.errors == 0));
    let mut notes = Vec::new();
    let mut plots = vec![Plot::Line(rps)];
    if no_errors {
        notes.push("No errors in any second: no error plot.".to_string());
    } else {
        plots.push(Plot::Line(errs));
    }
    plots.push(Plot::Line(p99));
    PlotGroup {
        heading: "Per-second series".into(),
        notes,
        plots,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_loops_target_is_plotted_beside_the_responses() {
        let second = |i: u64, responses: u64, target: Option<f64>| barrage_model::load::Second {
            second: i,
            responses,
            target_rps: target,
            span_s: 1.0,
            ..Default::default()
        };
        let d = LoadDoc {
            series: vec![
                second(0, 240, Some(250.0)),
                second(1, 760, Some(750.0)),
                second(2, 1000, Some(1000.0)),
            ],
            ..LoadDoc::default()
        };
        let g = series_group(&[("run".to_string(), &d)]);
        let Plot::Line(c) = &g.plots[0] else {
            panic!("the throughput chart is a line chart")
        };
        let pts = |name: &str| {
            c.lines
                .iter()
                .find(|l| l.name == name)
                .map(|l| l.points.clone())
                .unwrap_or_else(|| panic!("no line {name}"))
        };
        assert_eq!(pts("run"), vec![(1.0, 240.0), (2.0, 760.0), (3.0, 1000.0)]);
        assert_eq!(
            pts("run target"),
            vec![(1.0, 250.0), (2.0, 750.0), (3.0, 1000.0)]
        );
        assert!(
            c.lines
                .iter()
                .find(|l| l.name == "run target")
                .unwrap()
                .dashed
        );
        // A closed loop has no target line.
        let closed = LoadDoc {
            series: vec![second(0, 240, None)],
            ..LoadDoc::default()
        };
        let g = series_group(&[("run".to_string(), &closed)]);
        let Plot::Line(c) = &g.plots[0] else { panic!() };
        assert_eq!(c.lines.len(), 1);
    }
}

//! Overload and recovery across servers: when a report holds several overload studies (one per
//! server, each an open-loop phase above the server's maximum and one below it), one section
//! first answers across them: a ranked table (how soon each server answered normally again,
//! what it achieved under overload), a recovery table of every phase of every server, and small
//! multiples of achieved vs target rate and p99 per second. The per-server sections follow,
//! folded.

use crate::answer::{Answer, AnswerCell, AnswerColumn, AnswerRow};
use crate::page::{Plot, PlotGroup, Recovery, Section};
use crate::svg::{Axis, Bar, HBarChart, HBarRow, Line, LineChart};
use barrage_model::metric::fmt_count;
use barrage_model::stats::median;
use barrage_model::study::Results;

/// The section across `studies` when each is an overload study with its own contender.
pub fn section(studies: &[(String, &Results)]) -> Option<Section> {
    if studies.len() < 2 {
        return None;
    }
    let mut per: Vec<(String, Vec<Recovery>, &Results)> = Vec::new();
    for (_, doc) in studies {
        let rows = crate::study_section::recovery::rows(doc);
        if rows.is_empty() {
            return None;
        }
        let name = rows[0].contender.clone();
        per.push((name, rows, doc));
    }
    // (server, achieved under overload, its target, p99 under overload, errors, recovered after)
    struct Fig {
        name: String,
        achieved: Option<f64>,
        target: Option<f64>,
        p99_ms: Option<f64>,
        errors: u64,
        /// Median over trials of "normal again after"; `Some(None)`: never in most trials.
        after: Option<Option<f64>>,
        trials: usize,
    }
    let mut figs: Vec<Fig> = per
        .iter()
        .map(|(name, rows, _)| {
            let first: Vec<&Recovery> = rows
                .iter()
                .filter(|r| r.recovered_after_s.is_none())
                .collect();
            let later: Vec<&Recovery> = rows
                .iter()
                .filter(|r| r.recovered_after_s.is_some())
                .collect();
            let m = |f: &dyn Fn(&Recovery) -> Option<f64>| {
                median(&first.iter().filter_map(|r| f(r)).collect::<Vec<_>>())
            };
            let recovered: Vec<f64> = later
                .iter()
                .filter_map(|r| r.recovered_after_s.flatten())
                .collect();
            let after = if later.is_empty() {
                None
            } else if recovered.len() * 2 > later.len() {
                Some(median(&recovered))
            } else {
                Some(None)
            };
            Fig {
                name: name.clone(),
                achieved: m(&|r| Some(r.achieved_rps)),
                target: m(&|r| r.target_rps),
                p99_ms: m(&|r| Some(r.p99_ms)),
                errors: first.iter().map(|r| r.errors).sum(),
                after,
                trials: first.len(),
            }
        })
        .collect();
    // Ranked: recovered soonest first (never last), then the larger share of the target.
    let share = |f: &Fig| match (f.achieved, f.target) {
        (Some(a), Some(t)) if t > 0.0 => a / t,
        _ => 0.0,
    };
    figs.sort_by(|a, b| {
        let k = |f: &Fig| match f.after {
            Some(Some(s)) => s,
            _ => f64::INFINITY,
        };
        k(a).total_cmp(&k(b)).then(share(b).total_cmp(&share(a)))
    });
    let after_text = |f: &Fig| match f.after {
        None => "-".to_string(),
        Some(None) => "never".to_string(),
        Some(Some(s)) => format!("{s:.1} s"),
    };
    let rows: Vec<AnswerRow> = figs
        .iter()
        .map(|f| AnswerRow {
            name: f.name.clone(),
            cells: vec![
                AnswerCell {
                    value: f.after.flatten(),
                    text: after_text(f),
                    failed: f.after == Some(None),
                    ..AnswerCell::default()
                },
                AnswerCell {
                    value: f.achieved,
                    text: match (f.achieved, f.target) {
                        (Some(a), Some(t)) => format!(
                            "{} of {} ({:.0}%)",
                            fmt_count(a),
                            fmt_count(t),
                            100.0 * a / t
                        ),
                        (Some(a), None) => fmt_count(a),
                        _ => "-".into(),
                    },
                    ..AnswerCell::default()
                },
                AnswerCell {
                    value: f.p99_ms,
                    text: f.p99_ms.map_or("-".into(), |v| format!("{v:.1} ms")),
                    ..AnswerCell::default()
                },
                AnswerCell {
                    value: Some(f.errors as f64),
                    text: f.errors.to_string(),
                    ..AnswerCell::default()
                },
            ],
        })
        .collect();
    let recovered = figs
        .iter()
        .filter(|f| matches!(f.after, Some(Some(_))))
        .count();
    let never: Vec<&str> = figs
        .iter()
        .filter(|f| f.after == Some(None))
        .map(|f| f.name.as_str())
        .collect();
    let mut verdicts = vec![format!(
        "{recovered} of {} servers answered normally again in the phase after the overload{}.",
        figs.len(),
        if never.is_empty() {
            String::new()
        } else {
            format!("; never (within the phase): {}", never.join(", "))
        }
    )];
    if let Some(f) = figs.iter().max_by(|a, b| share(a).total_cmp(&share(b))) {
        verdicts.push(format!(
            "Largest share of its overload target: {} ({}).",
            f.name,
            rows.iter()
                .find(|r| r.name == f.name)
                .map_or(String::new(), |r| r.cells[1].text.clone())
        ));
    }
    if let Some(f) = figs.iter().min_by(|a, b| share(a).total_cmp(&share(b))) {
        verdicts.push(format!(
            "Smallest share of its overload target: {} ({:.0}%).",
            f.name,
            100.0 * share(f)
        ));
    }
    let trials = figs.iter().map(|f| f.trials).max().unwrap_or(0);
    let answer = Answer {
        question: "Which server holds up under a load above its maximum, and how soon does it answer normally once the load drops?".into(),
        columns: ["normal again after", "achieved under overload (req/s)", "p99 under overload", "errors under overload"]
            .iter()
            .map(|h| AnswerColumn {
                group: String::new(),
                header: h.to_string(),
                metric: None,
            })
            .collect(),
        rows,
        ranked_by: format!("Ranked by how soon the server answered normally again after the overload (median of {trials} trials), then by the share of its target it achieved under overload. Each server's target is its own: a rate above the maximum it reached closed-loop."),
        verdicts,
        notes: Vec::new(),
        network: Vec::new(),
    };
    let chart = HBarChart {
        title: "Seconds until normal again after the overload".into(),
        x: Axis::from_zero("normal again after (s)"),
        series: vec![("seconds".into(), 0)],
        rows: figs
            .iter()
            .map(|f| HBarRow {
                label: f.name.clone(),
                bars: vec![Bar {
                    value: f.after.flatten(),
                    ..Bar::default()
                }],
                note: if f.after == Some(None) {
                    "never (within the phase)".into()
                } else {
                    String::new()
                },
            })
            .collect(),
        metrics: vec![None],
        marks: Vec::new(),
    };
    let mut recovery: Vec<Recovery> = Vec::new();
    let mut multiples = Vec::new();
    for f in &figs {
        let (_, rows, doc) = per.iter().find(|p| p.0 == f.name)?;
        recovery.extend(rows.iter().cloned());
        multiples.extend(small_multiples(&f.name, doc));
    }
    Some(Section {
        heading: "Overload and recovery across servers".into(),
        answer: Some(answer),
        answer_chart: Some(Plot::HBar(chart)),
        recovery,
        small_multiples: true,
        plots: vec![PlotGroup {
            heading: "Per second, every server: achieved vs target rate, and p99 latency".into(),
            notes: vec!["The first trial of each server; dashed: the target rate; a vertical mark where the phase changes.".into()],
            plots: multiples,
        }],
        ..Section::default()
    })
}

/// Achieved vs target rate and p99 per second of one server's first trial.
fn small_multiples(name: &str, doc: &Results) -> Vec<Plot> {
    let Some(t) = doc.trials.iter().find(|t| t.ok) else {
        return Vec::new();
    };
    let t0 = t.windows.trial_start_s;
    let mut rate = LineChart::new(
        format!("{name}: achieved vs target"),
        Axis::from_zero("time since trial start (s)"),
        Axis::from_zero("responses/s"),
    );
    let mut p99 = LineChart::new(
        format!("{name}: p99 per second"),
        Axis::from_zero("time since trial start (s)"),
        Axis::log("p99 latency (ms)"),
    );
    let (mut achieved, mut target, mut lat) = (Vec::new(), Vec::new(), Vec::new());
    for (i, ph) in t.phases.iter().enumerate() {
        let mut x = ph.measure_start_s - t0;
        let start = x;
        for sec in &ph.load.series {
            let span = if sec.span_s > 0.0 { sec.span_s } else { 1.0 };
            x += span;
            if !crate::load_section::plottable(sec.span_s) {
                continue;
            }
            achieved.push((x, sec.responses as f64 / span));
            if sec.p99_us > 0 {
                lat.push((x, sec.p99_us as f64 / 1000.0));
            }
        }
        if let Some(r) = &ph.load.rate {
            target.push((start, r.target_rps));
            target.push((x, r.target_rps));
        }
        if i > 0 {
            rate.marks.push((start, ph.name.clone()));
            p99.marks.push((start, ph.name.clone()));
        }
    }
    rate.lines.push(Line {
        name: "achieved".into(),
        color: 0,
        points: achieved,
        ..Line::default()
    });
    rate.lines.push(Line {
        name: "target".into(),
        color: 6,
        dashed: true,
        points: target,
        ..Line::default()
    });
    p99.lines.push(Line {
        name: "p99".into(),
        color: 3,
        points: lat,
        ..Line::default()
    });
    vec![Plot::Line(rate), Plot::Line(p99)]
}

//! Studies of paired contenders (`X-close` / `X-keepalive`): one row per pair with both medians
//! and the speed-up of keep-alive over close, judged by the model's comparison of two samples
//! (`compare::judge_samples`: close as the old side, keep-alive as the new, each pair tested
//! with Welch on logs and Holm-corrected over the pairs, no noise floor); then the figures the
//! study declared, close and keep-alive.

use super::{
    contenders, failure_text, mark_best, median, point_ids, show, values, Answer, AnswerCell,
    AnswerColumn, AnswerRow, MAX_VERDICTS,
};
use barrage_model::compare::{self, Row as Judged, Sample, Verdict};
use barrage_model::metric::{self, Metric};
use barrage_model::stats;
use barrage_model::study::Results;

/// Contender pairs that differ only by `close` / `keepalive` in their names: (what they share,
/// close, keep-alive). `None` unless every contender is in a pair.
pub fn pairs(doc: &Results) -> Option<Vec<(String, String, String)>> {
    let names = contenders(doc);
    let mut out = Vec::new();
    for n in &names {
        let Some(base) = n.strip_suffix("-close") else {
            continue;
        };
        let ka = format!("{base}-keepalive");
        if names.contains(&ka) {
            out.push((base.to_string(), n.clone(), ka));
        }
    }
    (!out.is_empty() && out.len() * 2 == names.len()).then_some(out)
}

/// The pairs' table: close and keep-alive medians and the speed-up, judged together by the
/// model's comparison (each pair at each point tested, Welch on logs, Holm-corrected over all of
/// them). With several points a row is a pair at a point ("ruby-threads at rtt=20ms"), the rows
/// of a point together in the study's order of points, ranked within it, its best marked
/// within it.
pub(super) fn paired(doc: &Results, m: &Metric, pairs: &[(String, String, String)]) -> Answer {
    let points = point_ids(doc);
    let several = points.len() > 1;
    // (point, the row's name, close, keep-alive) for every pair at every point.
    let cells: Vec<(usize, String, &String, &String)> = points
        .iter()
        .flat_map(|&p| {
            pairs.iter().map(move |(base, close, ka)| {
                let name = if several {
                    format!("{base} at {}", doc.point_label(p))
                } else {
                    base.clone()
                };
                (p, name, close, ka)
            })
        })
        .collect();
    let samples = cells
        .iter()
        .map(|(point, name, close, ka)| Sample {
            point: String::new(),
            contender: name.clone(),
            metric: m.clone(),
            old: values(doc, *point, close, m),
            new: values(doc, *point, ka, m),
            failed: None,
        })
        .collect();
    // No noise floor: the question is whether keep-alive is faster at all.
    let judged = compare::judge_samples(samples, 0.0);
    let mut tested: Vec<(usize, AnswerRow, Option<&Judged>)> = cells
        .iter()
        .zip(&judged)
        .map(|((point, name, close, ka), j)| {
            let cell = |name: &str| {
                let trials = doc.trials_of(*point, name);
                let value = median(doc, *point, name, m);
                AnswerCell {
                    text: value.map_or_else(
                        || failure_text(&trials).unwrap_or("-".into()),
                        |v| show(m, v),
                    ),
                    value,
                    failed: !trials.is_empty() && trials.iter().all(|t| !t.ok),
                    with_failures: trials.iter().any(|t| !t.ok),
                    best: false,
                }
            };
            let mut row = AnswerRow {
                name: name.clone(),
                cells: vec![cell(close), cell(ka), AnswerCell::default()],
            };
            let j = (j.change.is_some() && j.test.is_some()).then_some(j);
            if let Some(j) = j {
                row.cells[2] = speedup_cell(j, m);
            }
            (*point, row, j)
        })
        .collect();
    let rank = |p: usize| points.iter().position(|&q| q == p).unwrap_or(0);
    tested.sort_by(|a, b| {
        let v = |r: &AnswerRow| r.cells[1].value.unwrap_or(f64::NAN);
        let within = if m.higher_is_better() {
            v(&b.1).total_cmp(&v(&a.1))
        } else {
            v(&a.1).total_cmp(&v(&b.1))
        };
        rank(a.0).cmp(&rank(b.0)).then(within)
    });
    let unit = if m.key == metric::RPS.key {
        m.unit
    } else {
        &m.label
    };
    // The figures the study declared, close and keep-alive side by side (empty cells for
    // contenders that do not print them).
    let figures: Vec<Metric> = metric::of_results(doc)
        .into_iter()
        .filter(|f| f.is_figure() && doc.trials.iter().any(|t| t.ok && f.value(t).is_some()))
        .collect();
    let mut rows: Vec<AnswerRow> = Vec::with_capacity(tested.len());
    let mut best: Vec<Option<&Metric>> = vec![Some(m), Some(m), None];
    best.extend(figures.iter().flat_map(|f| [Some(f), Some(f)]));
    for &p in &points {
        let mut at: Vec<AnswerRow> = tested
            .iter()
            .filter(|(q, _, _)| *q == p)
            .map(|(_, r, _)| r.clone())
            .collect();
        for row in &mut at {
            let Some((_, _, close, ka)) = cells.iter().find(|c| c.0 == p && c.1 == row.name) else {
                continue;
            };
            for f in &figures {
                for name in [close, ka] {
                    let value = median(doc, p, name, f);
                    row.cells.push(AnswerCell {
                        text: value.map_or_else(|| "-".into(), |v| show(f, v)),
                        value,
                        with_failures: doc.trials_of(p, name).iter().any(|t| !t.ok),
                        ..AnswerCell::default()
                    });
                }
            }
        }
        mark_best(&mut at, &best);
        rows.extend(at);
    }
    let cs: Vec<&Judged> = tested.iter().filter_map(|(_, _, j)| *j).collect();
    let faster = cs
        .iter()
        .filter(|j| called(j) && j.verdict == Verdict::Improvement)
        .count();
    let slower = cs
        .iter()
        .filter(|j| called(j) && j.verdict == Verdict::Regression)
        .count();
    let mut verdicts = vec![format!(
        "Keep-alive is significantly faster than a new connection per request in {faster} of {} pairs{}{} (Welch's t-test on log values, Holm-corrected over the pairs).",
        cs.len(),
        if several {
            format!(" ({} at each of {} points)", pairs.len(), points.len())
        } else {
            String::new()
        },
        if slower > 0 {
            format!(", slower in {slower}")
        } else {
            String::new()
        }
    )];
    let extreme = |pick_max: bool| {
        tested
            .iter()
            .filter(|(_, _, j)| j.is_some_and(called))
            .max_by(|a, b| {
                let (x, y) = (a.1.cells[2].value, b.1.cells[2].value);
                let o = x.unwrap_or(0.0).total_cmp(&y.unwrap_or(0.0));
                if pick_max {
                    o
                } else {
                    o.reverse()
                }
            })
    };
    if let Some((_, r, _)) = extreme(true) {
        verdicts.push(format!("Largest gain: {} {}.", r.name, r.cells[2].text));
    }
    if let Some((_, r, _)) = extreme(false) {
        verdicts.push(format!("Smallest gain: {} {}.", r.name, r.cells[2].text));
    }
    // The fastest with keep-alive means something within one point only.
    if let (false, Some(top)) = (several, rows.first()) {
        verdicts.push(format!(
            "Fastest with keep-alive: {} at {} {unit}.",
            top.name, top.cells[1].text
        ));
    }
    verdicts.truncate(MAX_VERDICTS);
    let column = |group: &str, header: String, metric: Option<Metric>| AnswerColumn {
        group: group.to_string(),
        header,
        metric,
    };
    let mut columns = vec![
        column("", format!("{unit}, close"), Some(m.clone())),
        column("", format!("{unit}, keep-alive"), Some(m.clone())),
        column("", "keep-alive / close [95% CI]".into(), None),
    ];
    // Under a group of their own: "alloc/iter" over "close" and "keep-alive".
    for f in figures {
        columns.push(column(&f.label, "close".into(), Some(f.clone())));
        columns.push(column(&f.label, "keep-alive".into(), Some(f.clone())));
    }
    let ranked_by = if several {
        format!(
            "One row per client and concurrency model at each point, the points in the study's order; ranked within each point by {} with keep-alive (median of {} trials), best first.",
            m.label, doc.study.trials
        )
    } else {
        format!(
            "One row per client and concurrency model; ranked by {} with keep-alive (median of {} trials), best first.",
            m.label, doc.study.trials
        )
    };
    Answer {
        columns,
        rows,
        ranked_by,
        verdicts,
        ..Answer::default()
    }
}

/// Whether the comparison called the pair a change on a test (with no noise floor, an untested
/// pair would be called on its medians alone).
fn called(j: &Judged) -> bool {
    j.verdict.is_change() && !j.untested()
}

/// Keep-alive over close as a ratio in the metric's better direction, with its interval in the
/// same direction: "1.47x [1.41, 1.53]", and "n.s. (p = ...)" unless the comparison called it.
fn speedup_cell(j: &Judged, m: &Metric) -> AnswerCell {
    let ratio = j.change.map_or(1.0, |c| c + 1.0);
    // Lower is better: close over keep-alive, the model's turn of keep-alive over close.
    let flip = |x: f64| {
        if m.higher_is_better() {
            x
        } else {
            compare::turned_ratio(x)
        }
    };
    let speedup = flip(ratio);
    let test = j.test.as_ref();
    // The interval at the level its corrected p is judged at (said when not 95%).
    let ci = test
        .and_then(|t| t.shown_interval())
        .map_or(String::new(), |(i, level)| {
            let i = if m.higher_is_better() {
                i
            } else {
                compare::turned_interval(i)
            };
            let (lo, hi) = (i.lo, i.hi);
            let at = if (level - 0.95).abs() > 1e-9 {
                format!(" at {}", stats::format_level(level))
            } else {
                String::new()
            };
            format!(
                " [{}, {}]{at}",
                stats::format_factor(lo),
                stats::format_factor(hi)
            )
        });
    let text = match test {
        Some(_) if called(j) => format!("{}x{ci}", stats::format_factor(speedup)),
        Some(t) if t.testable => format!(
            "{}x{ci}, n.s. (p = {})",
            stats::format_factor(speedup),
            stats::format_p(t.p_judged())
        ),
        _ => format!("{}x{ci}, untested", stats::format_factor(speedup)),
    };
    AnswerCell {
        value: Some(speedup),
        text,
        ..AnswerCell::default()
    }
}

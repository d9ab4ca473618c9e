//! Studies of paired contenders (`X-close` / `X-keepalive`): one row per pair with both medians
//! and the speed-up of keep-alive over close, each pair tested (Welch on logs) and the p-values
//! Holm-corrected over the pairs; then the figures the study declared, close and keep-alive.

use super::{
    contenders, failure_text, mark_best, median, point_ids, show, values, Answer, Cell, Column,
    Row, MAX_VERDICTS,
};
use barrage_model::metric::{self, Metric};
use barrage_model::stats::{self, Comparison, Wording};
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

/// The pairs' table: close and keep-alive medians and the speed-up, each pair tested (Welch on
/// logs) and the p-values Holm-corrected over the pairs.
pub(super) fn paired(doc: &Results, m: &Metric, pairs: &[(String, String, String)]) -> Answer {
    let point = point_ids(doc).first().copied().unwrap_or(0);
    let mut tested: Vec<(Row, Option<Comparison>)> = pairs
        .iter()
        .map(|(base, close, ka)| {
            let (vc, vk) = (values(doc, point, close, m), values(doc, point, ka, m));
            let c = stats::compare(&vk, &vc, m.higher_is_better());
            let cell = |name: &str| {
                let trials = doc.trials_of(point, name);
                let value = median(doc, point, name, m);
                Cell {
                    text: value.map_or_else(
                        || failure_text(&trials).unwrap_or("-".into()),
                        |v| show(m, v),
                    ),
                    value,
                    failed: !trials.is_empty() && trials.iter().all(|t| !t.ok),
                    best: false,
                }
            };
            let row = Row {
                name: base.clone(),
                cells: vec![cell(close), cell(ka), Cell::default()],
            };
            (row, c)
        })
        .collect();
    {
        let mut refs: Vec<(&mut Comparison, Wording)> = tested
            .iter_mut()
            .filter_map(|(_, c)| c.as_mut().map(|c| (c, Wording::Speed)))
            .collect();
        stats::adjust(&mut refs);
    }
    for (row, c) in &mut tested {
        if let Some(c) = c {
            // Keep-alive over close, as a ratio in the metric's better direction.
            let speedup = if m.higher_is_better() {
                c.ratio
            } else {
                1.0 / c.ratio
            };
            row.cells[2] = Cell {
                value: Some(speedup),
                text: if c.significant {
                    format!(
                        "{}x{}",
                        stats::format_factor(speedup),
                        stats::interval_text(c)
                    )
                } else {
                    format!(
                        "{}x{}, n.s. (p = {})",
                        stats::format_factor(speedup),
                        stats::interval_text(c),
                        stats::format_p(c.p_adjusted.unwrap_or(c.p_value))
                    )
                },
                ..Cell::default()
            };
        }
    }
    tested.sort_by(|a, b| {
        let v = |r: &Row| r.cells[1].value.unwrap_or(f64::NAN);
        if m.higher_is_better() {
            v(&b.0).total_cmp(&v(&a.0))
        } else {
            v(&a.0).total_cmp(&v(&b.0))
        }
    });
    let unit = if m.key == metric::RPS.key {
        m.unit
    } else {
        &m.label
    };
    let mut rows: Vec<Row> = tested.iter().map(|(r, _)| r.clone()).collect();
    // The figures the study declared, close and keep-alive side by side (empty cells for
    // contenders that do not print them).
    let figures: Vec<Metric> = metric::of_results(doc)
        .into_iter()
        .filter(|f| f.is_figure() && doc.trials.iter().any(|t| t.ok && f.value(t).is_some()))
        .collect();
    for row in &mut rows {
        let Some((_, close, ka)) = pairs.iter().find(|p| p.0 == row.name) else {
            continue;
        };
        for f in &figures {
            for name in [close, ka] {
                let value = median(doc, point, name, f);
                row.cells.push(Cell {
                    text: value.map_or_else(|| "-".into(), |v| show(f, v)),
                    value,
                    ..Cell::default()
                });
            }
        }
    }
    let mut best: Vec<Option<&Metric>> = vec![Some(m), Some(m), None];
    best.extend(figures.iter().flat_map(|f| [Some(f), Some(f)]));
    mark_best(&mut rows, &best);
    let cs: Vec<&Comparison> = tested.iter().filter_map(|(_, c)| c.as_ref()).collect();
    let faster = cs.iter().filter(|c| c.significant && c.a_better).count();
    let slower = cs.iter().filter(|c| c.significant && !c.a_better).count();
    let mut verdicts = vec![format!(
        "Keep-alive is significantly faster than a new connection per request in {faster} of {} pairs{} (Welch's t-test on log values, Holm-corrected over the pairs).",
        cs.len(),
        if slower > 0 {
            format!(", slower in {slower}")
        } else {
            String::new()
        }
    )];
    let extreme = |pick_max: bool| {
        tested
            .iter()
            .filter(|(_, c)| c.as_ref().is_some_and(|c| c.significant))
            .max_by(|a, b| {
                let (x, y) = (a.0.cells[2].value, b.0.cells[2].value);
                let o = x.unwrap_or(0.0).total_cmp(&y.unwrap_or(0.0));
                if pick_max {
                    o
                } else {
                    o.reverse()
                }
            })
    };
    if let Some((r, _)) = extreme(true) {
        verdicts.push(format!("Largest gain: {} {}.", r.name, r.cells[2].text));
    }
    if let Some((r, _)) = extreme(false) {
        verdicts.push(format!("Smallest gain: {} {}.", r.name, r.cells[2].text));
    }
    if let Some(top) = rows.first() {
        verdicts.push(format!(
            "Fastest with keep-alive: {} at {} {unit}.",
            top.name, top.cells[1].text
        ));
    }
    verdicts.truncate(MAX_VERDICTS);
    let column = |group: &str, header: String, metric: Option<Metric>| Column {
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
    Answer {
        columns,
        rows,
        ranked_by: format!(
            "One row per client and concurrency model; ranked by {} with keep-alive (median of {} trials), best first.",
            m.label, doc.study.trials
        ),
        verdicts,
        ..Answer::default()
    }
}

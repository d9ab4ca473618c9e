//! Two result files, a baseline and a change: every (point, contender) and metric of either file
//! side by side, with the change's ratio to the baseline and the model's test (Welch's t-test on
//! log values) over the two files' trials. Points match by label, contenders by name; what one
//! side lacks is said so.

use crate::answer::{Answer, Cell as ACell, Column as AColumn, Row as ARow};
use crate::page::{CompareRow, Plot, PlotGroup, Section};
use crate::study_section::{columns, table};
use crate::svg::LineChart;
use crate::table::{compare, dedup, Cell};
use barrage_model::study::Results;

/// Whether two files share a contender that ran in both (else there is nothing to compare).
pub fn comparable(base: &Results, change: &Results) -> bool {
    let ran = |d: &Results| -> Vec<String> {
        let mut names: Vec<String> = d.trials.iter().map(|t| t.contender.clone()).collect();
        names.sort();
        names.dedup();
        names
    };
    let b = ran(base);
    ran(change).iter().any(|c| b.contains(c))
}

/// The comparison section of `change` against `base`.
pub fn section(base_label: &str, base: &Results, change_label: &str, change: &Results) -> Section {
    let (tb, tc) = (table(base), table(change));
    let keys = dedup(
        tb.rows
            .iter()
            .chain(&tc.rows)
            .map(|r| (r.point.clone(), r.contender.clone())),
    );
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    if base.study.kind != change.study.kind {
        notes.push(format!("The files hold different kinds of study ({:?} vs {:?}): only the metrics they share are compared.", base.study.kind, change.study.kind));
    }
    let empty = Cell::default();
    for (point, contender) in keys {
        let b = tb
            .rows
            .iter()
            .find(|r| r.point == point && r.contender == contender);
        let c = tc
            .rows
            .iter()
            .find(|r| r.point == point && r.contender == contender);
        for m in columns(base).into_iter().filter(|c| c.compared()) {
            let cell = |t: &crate::table::Table, r: Option<&crate::table::Row>| -> Cell {
                match (r, t.columns.iter().position(|x| *x == m)) {
                    (Some(r), Some(i)) => r.cells[i].clone(),
                    _ => empty.clone(),
                }
            };
            let (bc, cc) = (cell(&tb, b), cell(&tc, c));
            if bc.summary.is_none() && cc.summary.is_none() {
                continue;
            }
            let verdict = compare(&m, "baseline", &bc, &cc);
            rows.push(CompareRow {
                point: point.clone(),
                contender: contender.clone(),
                metric: m,
                baseline: bc,
                change: cc,
                verdict,
            });
        }
    }
    let single = rows
        .iter()
        .any(|r| r.verdict.as_ref().is_some_and(|v| v.p.is_none()));
    if single {
        notes.push("Some points have a single trial on one side: their ratio is shown without a significance test.".into());
    }
    let plots = overlay(base, &tb, change, &tc).into_iter().collect();
    // Two runs of one study are named by their study names when those differ (download vs
    // download-allcpus), else by their directories.
    let (bl, cl) = if base.study.name != change.study.name {
        (base.study.name.clone(), change.study.name.clone())
    } else {
        (short(base_label), short(change_label))
    };
    let mut answer = answer(base, &bl, &cl, &rows);
    let chart = side_by_side(base, &bl, &cl, &rows, &answer);
    let failed_in = |d: &Results| -> Vec<String> {
        dedup(d.trials.iter().map(|t| t.contender.clone()))
            .into_iter()
            .filter(|n| d.trials.iter().filter(|t| &t.contender == n).all(|t| !t.ok))
            .collect()
    };
    let (fb, fc) = (failed_in(base), failed_in(change));
    let both: Vec<&String> = fb.iter().filter(|n| fc.contains(n)).collect();
    if !both.is_empty() {
        answer.verdicts.push(format!(
            "Every trial failed in both runs for {} contenders: {}.",
            both.len(),
            both.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Section {
        plots,
        answer: Some(answer),
        answer_chart: Some(chart),
        heading: format!("Comparison: {cl} vs baseline {bl}"),
        meta: vec![
            (
                "baseline".into(),
                format!("{base_label} ({}, {})", base.study.name, base.started_at),
            ),
            (
                "change".into(),
                format!(
                    "{change_label} ({}, {})",
                    change.study.name, change.started_at
                ),
            ),
        ],
        notes,
        comparison: rows,
        ..Section::default()
    }
}

/// A file's short name: its directory for `DIR/results.json`, else the label itself.
fn short(label: &str) -> String {
    let p = std::path::Path::new(label);
    match (p.file_name(), p.parent().and_then(|d| d.file_name())) {
        (Some(f), Some(d)) if f == "results.json" => d.to_string_lossy().into_owned(),
        _ => label.to_string(),
    }
}

/// The comparison's answer: per contender (and point) the primary metric in both files and the
/// change's ratio, tested per row (Welch's t-test on logs) and Holm-corrected over the rows.
fn answer(base: &Results, base_label: &str, change_label: &str, rows: &[CompareRow]) -> Answer {
    let m = barrage_model::metric::primary(base);
    let (b, c) = (base_label.to_string(), change_label.to_string());
    let picked: Vec<&CompareRow> = rows.iter().filter(|r| r.metric.is_stat_of(m)).collect();
    let ps: Vec<f64> = picked
        .iter()
        .filter_map(|r| r.verdict.as_ref()?.p)
        .collect();
    let adjusted = barrage_model::stats::ratio::holm(&ps);
    let mut k = 0;
    let mut sig = Vec::new();
    for r in &picked {
        match r.verdict.as_ref().and_then(|v| v.p.map(|_| v)) {
            Some(v) => {
                sig.push(adjusted[k] < barrage_model::stats::ALPHA && v.ratio != 1.0);
                k += 1;
            }
            None => sig.push(false),
        }
    }
    let better = m.higher_is_better();
    let center = |r: &CompareRow| r.change.center();
    let mut order: Vec<usize> = (0..picked.len()).collect();
    order.sort_by(|&x, &y| {
        let (a, b) = (center(picked[x]), center(picked[y]));
        match (a, b) {
            (Some(a), Some(b)) if better => b.total_cmp(&a),
            (Some(a), Some(b)) => a.total_cmp(&b),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            _ => std::cmp::Ordering::Equal,
        }
    });
    let improved = |r: &CompareRow| {
        r.verdict
            .as_ref()
            .is_some_and(|v| if better { v.ratio > 1.0 } else { v.ratio < 1.0 })
    };
    let (mut up, mut down) = (0, 0);
    for (i, r) in picked.iter().enumerate() {
        if sig[i] {
            if improved(r) {
                up += 1;
            } else {
                down += 1;
            }
        }
    }
    let cell = |t: String, v: Option<f64>| ACell {
        value: v,
        text: t,
        ..ACell::default()
    };
    let arows: Vec<ARow> = order
        .iter()
        .map(|&i| {
            let r = picked[i];
            let name = if r.point.is_empty() {
                r.contender.clone()
            } else {
                format!("{} {}", r.contender, r.point)
            };
            let ratio = r.verdict.as_ref().map_or("-".to_string(), |v| {
                format!(
                    "{}x{}",
                    barrage_model::stats::format_factor(v.ratio),
                    if sig[i] { "" } else { " (n.s.)" }
                )
            });
            ARow {
                name,
                cells: vec![
                    cell(r.baseline.text(), r.baseline.center()),
                    cell(r.change.text(), r.change.center()),
                    cell(ratio, r.verdict.as_ref().map(|v| v.ratio)),
                ],
            }
        })
        .collect();
    let verdicts = vec![
        format!(
            "{} in {c}: significantly better than in {b} for {up} of {} contenders, worse for {down}, no significant difference for the rest (Welch's t-test on log values per contender, Holm-corrected over the {}).",
            capital(&m.label),
            picked.len(),
            picked.len()
        ),
    ];
    Answer {
        question: format!("What changes from {b} to {c}?"),
        columns: vec![
            AColumn {
                group: String::new(),
                header: format!("{} ({}), {b} [95% CI]", m.label, m.unit),
                metric: Some(m.clone()),
            },
            AColumn {
                group: String::new(),
                header: format!("{} ({}), {c} [95% CI]", m.label, m.unit),
                metric: Some(m.clone()),
            },
            AColumn {
                group: String::new(),
                header: format!("{c} / {b}"),
                metric: None,
            },
        ],
        rows: arows,
        ranked_by: format!(
            "Ranked by {} in {c}, best first; n.s.: not significant after the correction.",
            m.label
        ),
        verdicts,
        notes: Vec::new(),
        network: Vec::new(),
    }
}

/// The primary metric of both runs as horizontal bars, one row per contender in the answer's
/// order: baseline and change side by side, with their intervals and trials.
fn side_by_side(base: &Results, b: &str, c: &str, rows: &[CompareRow], answer: &Answer) -> Plot {
    let m = barrage_model::metric::primary(base);
    let bar = |cell: &Cell| crate::svg::Bar {
        value: cell.center(),
        err: cell.ci(),
        dots: cell.values.clone(),
        ..Default::default()
    };
    let hrows = answer
        .rows
        .iter()
        .filter_map(|a| {
            rows.iter().find(|r| {
                r.metric.is_stat_of(m)
                    && (r.contender == a.name || format!("{} {}", r.contender, r.point) == a.name)
            })
        })
        .map(|r| crate::svg::HBarRow {
            label: a_name(r),
            bars: vec![bar(&r.baseline), bar(&r.change)],
            note: String::new(),
        })
        .collect();
    Plot::HBar(crate::svg::HBarChart {
        title: format!("{}: {b} vs {c}", capital(&m.label)),
        x: crate::svg::Axis::from_zero(crate::study_section::plots::axis_label(m)),
        series: vec![(b.to_string(), 3), (c.to_string(), 0)],
        rows: hrows,
        // Two files: the values are each file's cells, checked by the comparison's own tests.
        metrics: vec![None, None],
        marks: Vec::new(),
    })
}

fn a_name(r: &CompareRow) -> String {
    if r.point.is_empty() {
        r.contender.clone()
    } else {
        format!("{} {}", r.contender, r.point)
    }
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// The sweep plots of both files in one: each line of the baseline dashed, the change's solid
/// in the same colour, both with their confidence bands.
fn overlay(
    base: &Results,
    tb: &crate::table::Table,
    change: &Results,
    tc: &crate::table::Table,
) -> Option<PlotGroup> {
    let gb = crate::study_section::plots::sweep_plots(base, tb)?;
    let gc = crate::study_section::plots::sweep_plots(change, tc)?;
    let mut plots = Vec::new();
    // Charts pair by the metric they plot: a file without a metric has no chart of it.
    let mut changed: Vec<LineChart> = gc
        .plots
        .into_iter()
        .filter_map(|p| match p {
            Plot::Line(c) => Some(c),
            Plot::Bar(_) | Plot::HBar(_) => None,
        })
        .collect();
    for pb in gb.plots {
        let Plot::Line(mut b) = pb else { continue };
        let Some(i) = changed
            .iter()
            .position(|c| c.metric.is_some() && c.metric == b.metric)
        else {
            continue;
        };
        let c = changed.remove(i);
        let names: Vec<String> = b.lines.iter().map(|l| l.name.clone()).collect();
        for l in &mut b.lines {
            l.dashed = true;
            l.name = format!("{} (baseline)", l.name);
        }
        for mut l in c.lines {
            l.color = names
                .iter()
                .position(|n| *n == l.name)
                .unwrap_or(names.len() + l.color);
            l.name = format!("{} (change)", l.name);
            b.lines.push(l);
        }
        b.title = format!("{}: baseline vs change", b.title);
        plots.push(Plot::Line(b));
    }
    Some(PlotGroup {
        heading: "Baseline (dashed) vs change (solid)".into(),
        notes: vec!["Same colour: same contender; shaded bands: 95% confidence intervals of each file's median.".into()],
        plots,
    })
}

//! Two result files, a baseline and a change: every (point, contender) and metric of either file
//! side by side, with the change's ratio to the baseline and the model's test (Welch's t-test on
//! log values) over the two files' trials. Points match by label, contenders by name; what one
//! side lacks is said so.

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
            let verdict = compare(m, "baseline", &bc, &cc);
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
    Section {
        plots,
        heading: format!("Comparison: {} vs baseline {}", change_label, base_label),
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

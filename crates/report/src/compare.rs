//! Two result files, a baseline and a change: the model's comparison of the two
//! (`barrage_model::compare::studies`, the very value `barrage compare` renders: cells paired by
//! point label and contender, each metric tested, Holm-corrected over the comparison, judged
//! against the noise floor), laid out as a section: its answer (the primary metric per
//! contender, with each row's verdict), the two runs side by side, every row of the comparison,
//! and the sweep plots of both files in one.

use crate::answer::{Answer, AnswerCell, AnswerColumn, AnswerRow};
use crate::diff::render;
use crate::page::{Plot, PlotGroup, Section};
use crate::study_section::table;
use crate::svg::LineChart;
use crate::table::{dedup, Cell, Table};
use barrage_model::compare::{self, Comparison, Options, Row, Verdict};
use barrage_model::study::Results;

/// Whether two files share a contender at a point (else there is nothing to compare).
pub fn comparable(base: &Results, change: &Results) -> bool {
    !compare::shared_cells(base, change).is_empty()
}

/// A row of the primary metric with each file's cell of it (trial values, median, interval),
/// for the answer and its chart.
struct Line<'a> {
    row: &'a Row,
    baseline: Cell,
    change: Cell,
}

/// The comparison section of `change` against `base`.
pub fn section(base_label: &str, base: &Results, change_label: &str, change: &Results) -> Section {
    let (tb, tc) = (table(base), table(change));
    let cmp = match compare::studies(
        (base_label, base),
        (change_label, change),
        &Options::default(),
    ) {
        Ok(c) => c,
        Err(e) => {
            return Section {
                heading: format!("Comparison: {change_label} vs baseline {base_label}"),
                notes: vec![e.to_string()],
                ..Section::default()
            }
        }
    };
    let plots = overlay(base, &tb, change, &tc).into_iter().collect();
    // Two runs of one study are named by their study names when those differ (download vs
    // download-allcpus), else by their directories.
    let (bl, cl) = if base.study.name != change.study.name {
        (base.study.name.clone(), change.study.name.clone())
    } else {
        (short(base_label), short(change_label))
    };
    let m = barrage_model::metric::primary(base);
    let cell = |t: &Table, r: &Row| -> Cell {
        t.row(&r.point, &r.contender)
            .and_then(|x| t.cell(x, &m.key))
            .cloned()
            .unwrap_or_default()
    };
    let lines: Vec<Line> = cmp
        .rows
        .iter()
        .filter(|r| r.metric == m.key)
        .map(|r| Line {
            row: r,
            baseline: cell(&tb, r),
            change: cell(&tc, r),
        })
        .collect();
    let mut answer = answer(base, &cmp, &bl, &cl, &lines);
    let chart = side_by_side(base, &bl, &cl, &lines, &answer);
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
        // Different machines first: every figure below is read in its light.
        notes: cmp.machines.iter().chain(&cmp.notes).cloned().collect(),
        comparison: Some(cmp),
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

/// The ratio new/old of a row, and its words: "0.50x", with what the comparison made of it
/// when that is not a change: "(not significant)", "(within noise)", "(untested)".
fn ratio_text(r: &Row) -> (Option<f64>, String) {
    let ratio = r.change.map(|c| c + 1.0);
    let qualifier = match r.verdict {
        Verdict::Regression | Verdict::Improvement if r.untested() => " (untested)",
        Verdict::Regression | Verdict::Improvement => "",
        Verdict::NotSignificant => " (n.s.)",
        Verdict::WithinNoise => " (within noise)",
        Verdict::NotEnoughData => " (cannot judge)",
        Verdict::NotJudged | Verdict::Missing => "",
    };
    let text = match (ratio, r.verdict) {
        (Some(x), _) => format!("{}x{qualifier}", barrage_model::stats::format_factor(x)),
        (None, Verdict::Regression) => "failed".into(),
        (None, Verdict::Improvement) => "now runs".into(),
        (None, _) => "-".into(),
    };
    (ratio, text)
}

/// The comparison's answer: per contender (and point) the primary metric in both files and the
/// change's ratio, with the verdict the comparison gave its row.
fn answer(base: &Results, cmp: &Comparison, b: &str, c: &str, lines: &[Line]) -> Answer {
    let m = barrage_model::metric::primary(base);
    let better = m.higher_is_better();
    let center = |l: &Line| l.change.center().or(l.row.new);
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by(|&x, &y| match (center(&lines[x]), center(&lines[y])) {
        (Some(a), Some(b)) if better => b.total_cmp(&a),
        (Some(a), Some(b)) => a.total_cmp(&b),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        _ => std::cmp::Ordering::Equal,
    });
    let count = |v: Verdict| lines.iter().filter(|l| l.row.verdict == v).count();
    let (up, down) = (count(Verdict::Improvement), count(Verdict::Regression));
    let cell = |t: String, v: Option<f64>| AnswerCell {
        value: v,
        text: t,
        ..AnswerCell::default()
    };
    let shown = |c: &Cell, text: &str| {
        if c.summary.is_some() {
            c.text()
        } else {
            text.to_string()
        }
    };
    let arows: Vec<AnswerRow> = order
        .iter()
        .map(|&i| {
            let l = &lines[i];
            let (ratio, text) = ratio_text(l.row);
            AnswerRow {
                name: a_name(l.row),
                cells: vec![
                    cell(shown(&l.baseline, &l.row.old_text), l.baseline.center()),
                    cell(shown(&l.change, &l.row.new_text), l.change.center()),
                    cell(text, ratio),
                ],
            }
        })
        .collect();
    let verdicts = vec![format!(
        "{} in {c}: better than in {b} for {up} of {} contenders, worse for {down}, no change called for the rest (beyond the ±{} noise floor and significant, Welch's t-test on log values Holm-corrected over the comparison's {} tests; the same verdicts as barrage compare).",
        capital(&m.label),
        lines.len(),
        render::percent(cmp.noise),
        cmp.tests()
    )];
    Answer {
        question: format!("What changes from {b} to {c}?"),
        columns: vec![
            AnswerColumn {
                group: String::new(),
                header: format!("{} ({}), {b} [95% CI]", m.label, m.unit),
                metric: Some(m.clone()),
            },
            AnswerColumn {
                group: String::new(),
                header: format!("{} ({}), {c} [95% CI]", m.label, m.unit),
                metric: Some(m.clone()),
            },
            AnswerColumn {
                group: String::new(),
                header: format!("{c} / {b}"),
                metric: None,
            },
        ],
        rows: arows,
        ranked_by: format!(
            "Ranked by {} in {c}, best first; n.s.: beyond the noise floor but not significant after the correction.",
            m.label
        ),
        verdicts,
        notes: Vec::new(),
        network: Vec::new(),
    }
}

/// The primary metric of both runs as horizontal bars, one row per contender in the answer's
/// order: baseline and change side by side, with their intervals and trials.
fn side_by_side(base: &Results, b: &str, c: &str, lines: &[Line], answer: &Answer) -> Plot {
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
        .filter_map(|a| lines.iter().find(|l| a_name(l.row) == a.name))
        .map(|l| crate::svg::HBarRow {
            label: a_name(l.row),
            bars: vec![bar(&l.baseline), bar(&l.change)],
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

fn a_name(r: &Row) -> String {
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

//! The section of one study: header, summary table with comparisons, sweep plots (throughput and
//! latency percentiles vs the swept parameter, with the CI band), client bars, the HDR latency
//! distribution per contender, and per contender and point the CPU, RSS and per-second timelines
//! of every trial with the warmup and measured windows shaded.

use crate::page::{Failure, Section, Verdict};
use crate::svg::fmt_num;
use crate::table::{
    dedup, from_model, merged_percentile, scaled, Cell, Column, Comparison, Row, Table,
};
use barrage_model::metric::{self as registry, Metric};
use barrage_model::study::{Between, ContenderRole, Results, RunStatus, Trial};

mod across;
mod counts;
pub mod plots;
pub mod question;
pub mod recovery;
mod timelines;

/// Whether the study measured clients (programs run against barrage's server).
pub fn is_client(doc: &Results) -> bool {
    doc.study.kind == ContenderRole::Client
}

/// The table's columns: the metrics of the study (the registry's and its declared figures that
/// have values), primary first; server studies
/// show the 2nd best trial's throughput beside its median (see [`Column::SecondBest`]).
pub fn columns(doc: &Results) -> Vec<Column> {
    let mut cols = Vec::new();
    for m in registry::of_study(doc) {
        if !is_client(doc) && m.key == registry::RPS.key {
            cols.push(Column::Stat(m.clone()));
            cols.push(Column::SecondBest(m));
        } else {
            cols.push(Column::Stat(m));
        }
    }
    cols
}

/// Label of a point by id ("" for a study with a single unlabelled point): the model's.
pub fn point_label(doc: &Results, id: usize) -> String {
    doc.point_label(id)
}

pub use barrage_model::study::value_text;

/// The (point id, contender) pairs in study order: the model's.
pub fn cells_order(doc: &Results) -> Vec<(usize, String)> {
    doc.cells_order()
}

/// Trials of one contender at one point, in trial order.
pub fn trials_of<'a>(doc: &'a Results, point: usize, contender: &str) -> Vec<&'a Trial> {
    let mut v: Vec<&Trial> = doc
        .trials
        .iter()
        .filter(|t| t.point == point && t.contender == contender)
        .collect();
    v.sort_by_key(|t| t.trial as usize);
    v
}

/// The summary table (also used by the two-file comparison): per (point, contender) the model's
/// statistics of every column's metric (`barrage_model::summary::update`, run when the file was
/// read), in the column's unit, and the model's comparisons with the best contender (or variant).
pub fn table(doc: &Results) -> Table {
    let columns = columns(doc);
    let order = cells_order(doc);
    let mut rows = Vec::new();
    for (p, name) in &order {
        let trials = trials_of(doc, *p, name);
        let model = doc
            .summary
            .iter()
            .find(|c| c.point == *p && &c.contender == name)
            .cloned()
            .unwrap_or_else(|| unsummarised(doc, &trials));
        // Latency percentiles of the merged histograms of all successful trials, as the terminal
        // shows them (percentiles are never averaged).
        let fallback = model
            .latency
            .is_none()
            .then(|| merged_hdr(&trials))
            .flatten();
        let merged_us = |q: f64| match &model.latency {
            Some(l) => merged_percentile(l, q),
            None => fallback.as_ref().map(|h| h.value_at_quantile(q) as f64),
        };
        let cells = columns
            .iter()
            .map(|col| {
                let m = col.metric();
                let values = m
                    .values(trials.iter().copied())
                    .iter()
                    .map(|v| v * m.scale)
                    .collect();
                let summary = model.stats.get(m.key.as_ref()).map(|s| scaled(s, m.scale));
                let mut c = Cell {
                    values,
                    summary,
                    headline: None,
                    bare: false,
                };
                if let Column::SecondBest(_) = col {
                    c.headline = c.summary.as_ref().and_then(|s| s.second_best);
                    c.bare = true;
                } else if let (Some(q), true) = (m.merged_quantile, c.summary.is_some()) {
                    c.headline = merged_us(q).map(|us| us * m.scale);
                }
                c
            })
            .collect();
        let mut notes = Vec::new();
        if trials
            .iter()
            .any(|t| t.generator.as_ref().is_some_and(|g| g.bottleneck))
        {
            notes.push("barrage's load generator was the bottleneck in some trials".to_string());
        }
        rows.push(Row {
            point: point_label(doc, *p),
            contender: name.clone(),
            cells,
            trials: trials.len(),
            failed: trials.iter().filter(|t| !t.ok).count(),
            notes,
            ..Row::default()
        });
    }
    // A point with one contender but variants: its variants are what there is to compare.
    let ids: Vec<usize> = order.iter().map(|o| o.0).collect();
    for (i, r) in rows.iter_mut().enumerate() {
        let p = ids[i];
        let alone = ids.iter().filter(|q| **q == p).count() == 1;
        let Some(meta) = doc.points.iter().find(|m| m.id == p) else {
            continue;
        };
        if let (true, Some(v)) = (alone, &meta.variant) {
            r.group = format!("{}|{}", r.contender, rest_params(doc, p));
            r.ref_label = v.clone();
        }
    }
    for (i, r) in rows.iter_mut().enumerate() {
        r.vs_best = columns
            .iter()
            .map(|col| match col {
                Column::Stat(m) => model_comparison(doc, ids[i], r, m),
                _ => None,
            })
            .collect();
    }
    // Ranked within each point by the primary metric (best first), points in study order:
    // a reader finds the answer at the top of each point.
    let primary = registry::primary(doc);
    let col = columns.iter().position(|c| c.is_stat_of(primary));
    let point_rank: Vec<String> = dedup(rows.iter().map(|r| r.point.clone()));
    let key = |r: &Row| {
        let v = col
            .and_then(|i| r.cells.get(i))
            .and_then(|c| c.center())
            .map(|v| if primary.higher_is_better() { -v } else { v });
        (
            point_rank.iter().position(|p| *p == r.point),
            v.is_none(),
            v.unwrap_or(0.0),
        )
    };
    rows.sort_by(|a, b| {
        let (x, y) = (key(a), key(b));
        x.0.cmp(&y.0).then(x.1.cmp(&y.1)).then(x.2.total_cmp(&y.2))
    });
    Table { columns, rows }
}

/// The statistics of a contender the model does not summarise (one without a "ready" status in
/// an old or minimal file): the model's statistics of the same trials; the merged latency is
/// left to [`merged_hdr`].
fn unsummarised(doc: &Results, trials: &[&Trial]) -> barrage_model::study::Cell {
    barrage_model::study::Cell {
        stats: barrage_model::summary::metrics(doc)
            .into_iter()
            .filter_map(|m| {
                let s = barrage_model::stats::summarize(
                    &m.values(trials.iter().copied()),
                    m.higher_is_better(),
                )?;
                Some((m.key.to_string(), s))
            })
            .collect(),
        ..Default::default()
    }
}

/// The merged latency histogram of the successful `trials`' phases.
pub fn merged_hdr(trials: &[&Trial]) -> Option<hdrhistogram::Histogram<u64>> {
    let hs: Vec<_> = trials
        .iter()
        .filter(|t| t.ok)
        .flat_map(|t| t.phases.iter().filter_map(|p| p.load.histogram()))
        .collect();
    barrage_model::hdr::merge(&hs).filter(|h| !h.is_empty())
}

/// A point's parameters other than its variant, as one string (variants of a contender are
/// compared at otherwise equal parameters).
fn rest_params(doc: &Results, id: usize) -> String {
    let mut rest = doc
        .points
        .iter()
        .find(|p| p.id == id)
        .map(|p| p.params.clone())
        .unwrap_or_default();
    rest.remove("variant");
    serde_json::to_string(&rest).unwrap_or_default()
}

/// The model's comparison of `row` (at point `id`) with the best of its group on `m`, from the
/// row's side: between contenders at the point, or between variants of its contender.
fn model_comparison(doc: &Results, id: usize, row: &Row, m: &Metric) -> Option<Comparison> {
    let c = doc.comparisons.iter().find(|c| {
        c.metric == m.key
            && if row.group.is_empty() {
                c.between == Between::Contenders && c.point == id && c.b == row.contender
            } else {
                c.between == Between::Variants
                    && c.b == row.ref_label
                    && rest_params(doc, c.point) == rest_params(doc, id)
                    && c.contender.as_deref() == Some(row.contender.as_str())
            }
    })?;
    Some(from_model(&c.comparison, m, &c.a))
}

/// Builds the section of a study labelled `label` (its file name); `hdr_points` are the point
/// labels whose latency distributions to plot (none: the highest point of each line).
pub fn section(label: &str, doc: &Results, hdr_points: &[String]) -> Section {
    let table = table(doc);
    let failures: Vec<Failure> = doc
        .trials
        .iter()
        .filter(|t| !t.ok)
        .map(|t| Failure {
            point: point_label(doc, t.point),
            contender: t.contender.clone(),
            trial: (t.trial as usize) + 1,
            reason: t.reason_text(),
            stderr_tail: t
                .failure
                .as_ref()
                .map(|f| f.stderr_tail.clone())
                .unwrap_or_default(),
        })
        .collect();
    let notes = notes(doc, &table, failures.len());
    let answer = crate::answer::answer(doc);
    let questions = crate::questions::rows(doc);
    let main = question::main_chart(doc, &table, &answer);
    let skip = main.as_ref().and_then(|m| m.1.clone());
    let mut plots = Vec::new();
    if let Some(g) = plots::sweep_plots_except(doc, &table, skip.as_deref()) {
        plots.push(g);
    } else if !is_client(doc) {
        plots.push(plots::point_bars(&table));
    }
    let mut extra = Vec::new();
    if let Some(c) = question::memory_timelines(doc) {
        extra.push(crate::page::Plot::Line(c));
    }
    extra.extend(
        question::tree_timelines(doc)
            .into_iter()
            .map(crate::page::Plot::Line),
    );
    if !extra.is_empty() {
        plots.push(crate::page::PlotGroup {
            heading: "Memory, processes and threads over time".into(),
            notes: vec!["One trial per contender: its first failed trial, else its first (memory); the first successful trial at the last point (processes, threads).".into()],
            plots: extra,
        });
    }
    if is_client(doc) {
        plots.push(plots::client_bars(doc, &table));
    } else {
        plots.extend(plots::distributions(doc, hdr_points));
    }
    let timelines = timelines::groups(doc);
    let verdicts = doc
        .comparisons
        .iter()
        .map(|c| Verdict {
            point: c.label.clone(),
            between: c.between.to_string(),
            metric: metric_name(doc, &c.metric),
            a: c.a.clone(),
            b: c.b.clone(),
            ratio: c.comparison.ratio,
            p: c.comparison.p_adjusted.or(Some(c.comparison.p_value)),
            significant: c.comparison.significant,
            phrase: c.comparison.phrase.clone(),
        })
        .collect();
    Section {
        heading: format!("Study {} ({label})", doc.study.name),
        machine: Some(machine_text(&doc.machine)),
        meta: meta(label, doc),
        notes,
        failure_groups: failure_groups(doc),
        table: Some(table),
        verdicts,
        plots,
        questions_tally: if questions.is_empty() {
            String::new()
        } else {
            crate::questions::tally(doc, &questions)
        },
        questions,
        answer: Some(answer),
        answer_chart: main.map(|m| m.0),
        timelines,
        failures,
        counts: counts::rows(doc),
        recovery: recovery::rows(doc),
        ..Section::default()
    }
}

/// Failed trials grouped per point, contender and reason, with the peak memory seen and the
/// median time to failure.
fn failure_groups(doc: &Results) -> Vec<crate::page::FailureGroup> {
    let mut out: Vec<crate::page::FailureGroup> = Vec::new();
    for (p, name) in cells_order(doc) {
        let trials = trials_of(doc, p, &name);
        let reasons = dedup(
            trials
                .iter()
                .filter(|t| !t.ok)
                .map(|t| crate::answer::failure_kind(t)),
        );
        for reason in reasons {
            let failed: Vec<&&Trial> = trials
                .iter()
                .filter(|t| !t.ok && crate::answer::failure_kind(t) == reason)
                .collect();
            let walls: Vec<f64> = failed
                .iter()
                .filter_map(|t| t.exit.as_ref().map(|e| e.wall.as_secs_f64()))
                .filter(|w| *w > 0.0)
                .collect();
            out.push(crate::page::FailureGroup {
                point: point_label(doc, p),
                contender: name.clone(),
                reason,
                failed: failed.len(),
                trials: trials.len(),
                peak_bytes: failed
                    .iter()
                    .filter_map(|t| {
                        let cg = t.exit.as_ref().and_then(|e| e.cgroup_peak_bytes);
                        t.peak_rss_bytes().max(cg)
                    })
                    .max(),
                after_s: barrage_model::stats::median(&walls),
            });
        }
    }
    out
}

/// People's name of a metric key of `doc` (the registry's label, or the label its study
/// declared for a figure).
pub fn metric_name(doc: &Results, key: &str) -> String {
    registry::find(doc, key).map_or_else(|| key.to_string(), |m| m.label.into_owned())
}

/// The notes under the header: the lab's warnings when the file has them (else the same checks
/// done here), failed and skipped contenders, an interrupted study, and a study whose single
/// trials allow no confidence interval.
fn notes(doc: &Results, table: &Table, failed: usize) -> Vec<String> {
    let mut notes = Vec::new();
    if matches!(doc.status, RunStatus::Interrupted | RunStatus::Running) {
        notes.push(format!(
            "The study is {} ({} of {} planned trials recorded): the report shows the trials that finished.",
            if doc.status == RunStatus::Running { "incomplete" } else { "interrupted" },
            doc.trials.len(),
            doc.planned_trials
        ));
    }
    let max_ok = table
        .rows
        .iter()
        .map(|r| r.trials - r.failed)
        .max()
        .unwrap_or(0);
    if max_ok <= 1 {
        notes.push("Single trial per point: no confidence interval and no significance test are possible (run more trials for them).".into());
    }
    if failed > 0 {
        notes.push(format!(
            "{failed} of {} trials failed: their values are left out of the statistics, written in red in the tables and charts and grouped under Failed trials.",
            doc.trials.len()
        ));
    }
    // The model's warnings are the answer's folded notes (one line per kind).
    let _ = table;
    notes
}

/// The machine a run was on, in one line: CPU model, CPUs, memory, kernel, OS, host (what
/// `results.json` records; "unknown" when it records nothing).
pub fn machine_text(m: &barrage_model::study::Machine) -> String {
    let mut machine = Vec::new();
    if !m.cpu_model.is_empty() {
        machine.push(m.cpu_model.clone());
    }
    if m.cpus > 0 {
        machine.push(format!("{} CPUs", m.cpus));
    }
    if m.memory_bytes > 0 {
        machine.push(format!(
            "{:.1} GiB memory",
            m.memory_bytes as f64 / (1u64 << 30) as f64
        ));
    }
    if !m.kernel.is_empty() {
        machine.push(format!("Linux {}", m.kernel));
    }
    if !m.os.is_empty() {
        machine.push(m.os.clone());
    }
    if !m.hostname.is_empty() {
        machine.push(format!("host {}", m.hostname));
    }
    if machine.is_empty() {
        "unknown".into()
    } else {
        machine.join(", ")
    }
}

fn meta(label: &str, doc: &Results) -> Vec<(String, String)> {
    let ok = doc.trials.iter().filter(|t| t.ok).count();
    let date = match &doc.finished_at {
        Some(f) if !doc.started_at.is_empty() => format!("{} to {f}", doc.started_at),
        _ => or_unknown(&doc.started_at),
    };
    let mut v = vec![
        (
            "study".to_string(),
            if doc.study.description.is_empty() {
                doc.study.name.clone()
            } else {
                // As the answer's question: a parameter with one value filled in.
                format!(
                    "{} — {}",
                    doc.study.name,
                    crate::answer::fill_params(&doc.study.description, doc)
                )
            },
        ),
        ("results file".to_string(), label.to_string()),
        (
            "kind".to_string(),
            if is_client(doc) {
                "client".into()
            } else {
                "server".into()
            },
        ),
        ("date".to_string(), date),
        ("status".to_string(), or_unknown(doc.status.as_str())),
        ("machine".to_string(), machine_text(&doc.machine)),
        (
            "barrage version".to_string(),
            or_unknown(&doc.barrage_version),
        ),
        ("pinning".to_string(), pinning_text(&doc.pinning)),
        (
            "trials".to_string(),
            format!(
                "{} per point{}; {} run of {} planned, {} failed",
                doc.study.trials,
                if doc.study.interleave {
                    ", interleaved"
                } else {
                    ", not interleaved"
                },
                doc.trials.len(),
                doc.planned_trials.max(doc.trials.len()),
                doc.trials.len() - ok
            ),
        ),
        ("points".to_string(), doc.points.len().max(1).to_string()),
    ];
    if doc.study.warmup_s > 0.0 {
        v.push((
            "warmup".into(),
            format!("{} s", fmt_num(doc.study.warmup_s)),
        ));
    }
    if doc.study.sample_interval_s > 0.0 {
        let i = doc.study.sample_interval_s;
        v.push((
            "sample interval".into(),
            format!("{} ms", fmt_num(i * 1000.0)),
        ));
    }
    v
}

fn or_unknown(s: &str) -> String {
    if s.is_empty() {
        "unknown".into()
    } else {
        s.to_string()
    }
}

/// Pinning as one line: "on: contender CPUs 0, generator CPUs 1 (note)".
pub fn pinning_text(p: &barrage_model::study::Pinning) -> String {
    let cpus = |c: &Option<Vec<usize>>| match c {
        Some(v) if !v.is_empty() => v
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(","),
        _ => "not pinned".into(),
    };
    if p.mode.is_empty() {
        return "not recorded".into();
    }
    let mut s = format!(
        "{} (asked: {})",
        if p.enabled { "pinned" } else { "not pinned" },
        p.mode
    );
    if p.enabled {
        s.push_str(&format!(
            "; contender CPUs {}, generator CPUs {}",
            cpus(&p.contender_cpus),
            cpus(&p.generator_cpus)
        ));
    }
    if !p.note.is_empty() {
        s.push_str(&format!("; {}", p.note));
    }
    s
}

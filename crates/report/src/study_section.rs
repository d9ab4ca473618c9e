//! The section of one study: header, summary table with comparisons, sweep plots (throughput and
//! latency percentiles vs the swept parameter, with the CI band), client bars, the HDR latency
//! distribution per contender, and per contender and point the CPU, RSS and per-second timelines
//! of every trial with the warmup and measured windows shaded.

use crate::hdr;
use crate::page::{Failure, Section, Verdict};
use crate::svg::fmt_num;
use crate::table::{dedup, Cell, Metric, Row, Table, RPS, RPS_SECOND_BEST};
use barrage_model::metric as registry;
use barrage_model::study::Kind;
use barrage_model::study::{Results, Trial};
use serde_json::Value;

mod counts;
pub mod plots;
pub mod recovery;
mod timelines;

/// Whether the study measured clients (programs run against barrage's server).
pub fn is_client(doc: &Results) -> bool {
    doc.study.kind == Kind::Client
}

/// The table's metrics: the registry's metrics of the study, primary first.
pub fn metrics(doc: &Results) -> Vec<Metric> {
    registry::of_study(doc)
        .into_iter()
        .map(Metric::of)
        .collect()
}

/// Label of a point by id ("" for a study with a single unlabelled point).
pub fn point_label(doc: &Results, id: usize) -> String {
    match doc.points.iter().find(|p| p.id == id) {
        Some(p) if !p.label.is_empty() => p.label.clone(),
        Some(p) if !p.params.is_empty() => p
            .params
            .iter()
            .map(|(k, v)| format!("{k}={}", value_text(v)))
            .collect::<Vec<_>>()
            .join(" "),
        _ if doc.points.len() <= 1 => String::new(),
        _ => format!("point {id}"),
    }
}

pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The (point id, contender) pairs in study order: points as listed, contenders as listed (then
/// any contender seen only in trials).
pub fn cells_order(doc: &Results) -> Vec<(usize, String)> {
    let mut points: Vec<usize> = doc.points.iter().map(|p| p.id).collect();
    points.extend(doc.trials.iter().map(|t| t.point));
    let points = dedup(points);
    let mut names: Vec<String> = doc
        .contenders
        .iter()
        .filter(|c| c.ran())
        .map(|c| c.name.clone())
        .collect();
    names.extend(doc.trials.iter().map(|t| t.contender.clone()));
    let names = dedup(names);
    let mut out = Vec::new();
    for p in &points {
        for n in &names {
            if doc
                .trials
                .iter()
                .any(|t| t.point == *p && &t.contender == n)
            {
                out.push((*p, n.clone()));
            }
        }
    }
    out
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

/// The merged latency histogram of `trials`' phases (undecodable histograms are skipped).
pub fn merged_hdr(trials: &[&Trial]) -> Option<hdrhistogram::Histogram<u64>> {
    let hs: Vec<_> = trials
        .iter()
        .flat_map(|t| {
            t.phases
                .iter()
                .filter_map(|p| hdr::decode(p.load.hdr.as_deref()?).ok())
        })
        .collect();
    hdr::merge(&hs)
}

/// The summary table (also used by the two-file comparison).
pub fn table(doc: &Results) -> Table {
    let mut metrics = metrics(doc);
    // Server studies: the 2nd best trial's throughput beside the median (see RPS_SECOND_BEST).
    if !is_client(doc) {
        if let Some(i) = metrics.iter().position(|m| m.key == RPS.key) {
            metrics.insert(i + 1, RPS_SECOND_BEST);
        }
    }
    let mut rows = Vec::new();
    for (p, name) in cells_order(doc) {
        let trials = trials_of(doc, p, &name);
        let ok: Vec<&Trial> = trials.iter().copied().filter(|t| t.ok).collect();
        let mut cells: Vec<Cell> = metrics
            .iter()
            .map(|m| {
                let values = m.def.map_or_else(Vec::new, |d| {
                    ok.iter()
                        .filter_map(|t| d.value(t))
                        .map(|v| v * m.scale)
                        .collect()
                });
                let mut c = Cell::new(values, m);
                if m.second_best {
                    c.headline = c.summary.as_ref().and_then(|s| s.second_best);
                    c.bare = true;
                }
                c
            })
            .collect();
        // Latency percentiles of the merged histograms of all successful trials, as the lab's
        // terminal table shows them (percentiles are never averaged).
        if let Some(h) = merged_hdr(&ok).filter(|h| !h.is_empty()) {
            for (m, c) in metrics.iter().zip(cells.iter_mut()) {
                let Some(q) = m.def.and_then(|d| d.merged_quantile) else {
                    continue;
                };
                if c.summary.is_some() {
                    c.headline = Some(h.value_at_quantile(q) as f64 * m.scale);
                }
            }
        }
        let mut notes = Vec::new();
        if trials
            .iter()
            .any(|t| t.generator.as_ref().is_some_and(|g| g.bottleneck))
        {
            notes.push("barrage's load generator was the bottleneck in some trials".to_string());
        }
        rows.push(Row {
            point: point_label(doc, p),
            contender: name.clone(),
            cells,
            trials: trials.len(),
            failed: trials.iter().filter(|t| !t.ok).count(),
            vs_best: Vec::new(),
            notes,
            group: String::new(),
            ref_label: String::new(),
        });
    }
    // A point with one contender but variants: its variants are what there is to compare.
    let ids: Vec<usize> = cells_order(doc).into_iter().map(|o| o.0).collect();
    for (i, r) in rows.iter_mut().enumerate() {
        let p = ids[i];
        let alone = ids.iter().filter(|q| **q == p).count() == 1;
        let Some(meta) = doc.points.iter().find(|m| m.id == p) else {
            continue;
        };
        if let (true, Some(v)) = (alone, &meta.variant) {
            let mut rest = meta.params.clone();
            rest.remove("variant");
            r.group = format!(
                "{}|{}",
                r.contender,
                serde_json::to_string(&rest).unwrap_or_default()
            );
            r.ref_label = v.clone();
        }
    }
    let mut t = Table { metrics, rows };
    t.compare();
    t
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
    let mut plots = Vec::new();
    if is_client(doc) {
        plots.push(plots::client_bars(doc, &table));
    } else {
        plots.push(plots::sweep_plots(doc, &table).unwrap_or_else(|| plots::point_bars(&table)));
        plots.extend(plots::distributions(doc, hdr_points));
    }
    plots.extend(timelines::groups(doc));
    let verdicts = doc
        .comparisons
        .iter()
        .map(|c| Verdict {
            point: c.label.clone(),
            between: c.between.clone(),
            metric: metric_name(&c.metric),
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
        meta: meta(label, doc),
        notes,
        table: Some(table),
        verdicts,
        plots,
        failures,
        counts: counts::rows(doc),
        recovery: recovery::rows(doc),
        ..Section::default()
    }
}

/// People's name of a metric key (the registry's label).
pub fn metric_name(key: &str) -> String {
    registry::get(key).map_or_else(|| key.to_string(), |m| m.label.to_string())
}

/// The notes under the header: the lab's warnings when the file has them (else the same checks
/// done here), failed and skipped contenders, an interrupted study, and a study whose single
/// trials allow no confidence interval.
fn notes(doc: &Results, table: &Table, failed: usize) -> Vec<String> {
    let mut notes = Vec::new();
    if doc.status == "interrupted" || doc.status == "running" {
        notes.push(format!(
            "The study is {} ({} of {} planned trials recorded): the report shows the trials that finished.",
            if doc.status == "running" { "incomplete" } else { "interrupted" },
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
            "{failed} of {} trials failed: their values are left out of the statistics, drawn as crosses in the bar charts and listed under Failed trials.",
            doc.trials.len()
        ));
    }
    // The model's warnings (recomputed from the trials when the file was read).
    notes.extend(
        doc.warnings
            .iter()
            .filter(|w| w.kind != "few_trials" && w.kind != "failed_trials")
            .map(|w| w.message.clone()),
    );
    let _ = table;
    notes
}

fn meta(label: &str, doc: &Results) -> Vec<(String, String)> {
    let m = &doc.machine;
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
                format!("{} — {}", doc.study.name, doc.study.description)
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
        ("status".to_string(), or_unknown(&doc.status)),
        (
            "machine".to_string(),
            if machine.is_empty() {
                "unknown".into()
            } else {
                machine.join(", ")
            },
        ),
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

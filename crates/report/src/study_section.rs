//! The section of one study: header, summary table with comparisons, sweep plots (throughput and
//! latency percentiles vs the swept parameter, with the CI band), client bars, the HDR latency
//! distribution per contender, and per contender and point the CPU, RSS and per-second timelines
//! of every trial with the warmup and measured windows shaded.

use crate::hdr;
use crate::model::study::{StudyDoc, Trial};
use crate::page::{Failure, Section, Verdict};
use crate::svg::fmt_num;
use crate::table::{
    dedup, Cell, Metric, Row, Table, CPU_PER_REQ, ERRORS, MB_PER_S, P50, P99, P999, PEAK_RSS, RPS,
    RPS_SECOND_BEST, SYS, USER, WALL,
};
use serde_json::Value;

mod counts;
mod extract;
pub mod plots;
pub mod recovery;
mod timelines;

pub use extract::figure;

/// Whether the study measured servers (load) or clients (programs run against barrage's server).
pub fn is_client(doc: &StudyDoc) -> bool {
    doc.study.kind == "client" || doc.trials.iter().any(|t| t.metrics.wall_s.is_some())
}

/// The table's metrics for the study's kind (first: the headline metric).
pub fn metrics(doc: &StudyDoc) -> Vec<Metric> {
    if is_client(doc) && doc.trials.iter().any(|t| t.metrics.rps.is_some()) {
        // Clients that report their own throughput (the study's `client.rate`).
        vec![RPS, CPU_PER_REQ, WALL, USER, SYS, PEAK_RSS]
    } else if is_client(doc) && doc.trials.iter().any(|t| t.metrics.mb_per_s.is_some()) {
        // Downloads (the study checks a body size): throughput beside the wall time.
        vec![WALL, MB_PER_S, USER, SYS, PEAK_RSS]
    } else if is_client(doc) {
        vec![WALL, USER, SYS, PEAK_RSS]
    } else {
        vec![RPS, P50, P99, P999, ERRORS, CPU_PER_REQ, PEAK_RSS]
    }
}

/// Label of a point by id ("" for a study with a single unlabelled point).
pub fn point_label(doc: &StudyDoc, id: usize) -> String {
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
pub fn cells_order(doc: &StudyDoc) -> Vec<(usize, String)> {
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
pub fn trials_of<'a>(doc: &'a StudyDoc, point: usize, contender: &str) -> Vec<&'a Trial> {
    let mut v: Vec<&Trial> = doc
        .trials
        .iter()
        .filter(|t| t.point == point && t.contender == contender)
        .collect();
    v.sort_by_key(|t| t.index);
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
pub fn table(doc: &StudyDoc) -> Table {
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
        let ok: Vec<&Trial> = trials.iter().copied().filter(|t| t.ok()).collect();
        let mut cells: Vec<Cell> = metrics
            .iter()
            .map(|m| {
                let second_best = m.key == RPS_SECOND_BEST.key;
                let key = if second_best { RPS.key } else { m.key };
                let mut c = Cell::new(
                    ok.iter()
                        .filter_map(|t| figure(t, key))
                        .map(|v| v * m.scale)
                        .collect(),
                    m,
                );
                if second_best {
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
                let q = match m.key {
                    "latency_p50_us" => 0.5,
                    "latency_p99_us" => 0.99,
                    "latency_p999_us" => 0.999,
                    _ => continue,
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
            failed: trials.iter().filter(|t| !t.ok()).count(),
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
pub fn section(label: &str, doc: &StudyDoc, hdr_points: &[String]) -> Section {
    let table = table(doc);
    let failures: Vec<Failure> = doc
        .trials
        .iter()
        .filter(|t| !t.ok())
        .map(|t| Failure {
            point: point_label(doc, t.point),
            contender: t.contender.clone(),
            trial: t.index + 1,
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
            ratio: c.ratio.unwrap_or(f64::INFINITY),
            p: c.p_value,
            significant: c.significant,
            phrase: c.phrase.clone(),
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

/// People's name of a lab metric key.
pub fn metric_name(key: &str) -> String {
    let all = [
        RPS,
        P50,
        P99,
        P999,
        ERRORS,
        CPU_PER_REQ,
        PEAK_RSS,
        WALL,
        USER,
        SYS,
        MB_PER_S,
    ];
    match all.iter().find(|m| m.key == key) {
        Some(m) => m.name.to_string(),
        None if key == "cpu_s" => "CPU time".into(),
        None => key.to_string(),
    }
}

/// The notes under the header: the lab's warnings when the file has them (else the same checks
/// done here), failed and skipped contenders, an interrupted study, and a study whose single
/// trials allow no confidence interval.
fn notes(doc: &StudyDoc, table: &Table, failed: usize) -> Vec<String> {
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
    if !doc.warnings.is_empty() {
        notes.extend(
            doc.warnings
                .iter()
                .filter(|w| w.kind != "few_trials" && w.kind != "failed_trials")
                .map(|w| w.message.clone()),
        );
        return notes;
    }
    for c in doc.contenders.iter().filter(|c| !c.ran()) {
        notes.push(format!(
            "{} was not run: {}",
            c.name,
            c.skip_reason.clone().unwrap_or_else(|| c.status.clone())
        ));
    }
    for r in &table.rows {
        let at = if r.point.is_empty() {
            r.contender.clone()
        } else {
            format!("{} at {}", r.contender, r.point)
        };
        for n in &r.notes {
            notes.push(format!("{at}: {n}."));
        }
        let Some(s) = r.cells.first().and_then(|c| c.summary.as_ref()) else {
            continue;
        };
        let vals = &r.cells[0].values;
        let m = &table.metrics[0];
        if let Some(f) =
            crate::stats::first_trial_slow(vals, m.better == crate::table::Better::Higher)
        {
            notes.push(format!(
                "{at}: the first trial was {}x worse than the rest ({}: {} vs median {}); consider a longer warmup.",
                crate::table::fmt_factor(f.factor),
                m.name,
                fmt_num(vals[0]),
                fmt_num(s.median)
            ));
        }
        for i in crate::stats::outliers(vals) {
            notes.push(format!(
                "{at}: trial {} is an outlier ({} = {} {}).",
                i + 1,
                m.name,
                fmt_num(vals[i]),
                m.unit
            ));
        }
    }
    notes
}

fn meta(label: &str, doc: &StudyDoc) -> Vec<(String, String)> {
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
    let ok = doc.trials.iter().filter(|t| t.ok()).count();
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
                match doc.study.interleave {
                    Some(true) => ", interleaved",
                    Some(false) => ", not interleaved",
                    None => "",
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
    if let Some(i) = doc.study.sample_interval_s {
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
pub fn pinning_text(p: &crate::model::study::Pinning) -> String {
    let cpus = |c: &Option<Vec<u64>>| match c {
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

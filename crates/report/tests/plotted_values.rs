//! Every plotted summary value equals the registry's value for the metric its chart names, for
//! every committed study run and every study fixture: the plot of "p50 latency" shows p50, the
//! bars of "peak RSS" show peak RSS. The expected value is computed here from the trials alone
//! (the registry's reader, the median of the successful trials, or the merged-HDR percentile for
//! latency), not through the report's table, so a plot that picks a column by position fails.

mod common;

use barrage_model::metric::{self, Metric};
use barrage_model::study::Results;
use barrage_report::page::Plot;
use barrage_report::study_section::point_label;
use barrage_report::{build, parse, Input};
use std::path::{Path, PathBuf};

/// The value the table shows for `def` at (point label, contender), in the axis unit.
fn expected(r: &Results, point: &str, contender: &str, def: &Metric) -> Option<f64> {
    let id = r
        .points
        .iter()
        .map(|p| p.id)
        .chain(r.trials.iter().map(|t| t.point))
        .find(|id| point_label(r, *id) == point)?;
    let ok: Vec<_> = r
        .trials
        .iter()
        .filter(|t| t.point == id && t.contender == contender && t.ok)
        .collect();
    if let Some(q) = def.merged_quantile {
        let hs: Vec<_> = ok
            .iter()
            .flat_map(|t| t.phases.iter().filter_map(|p| p.load.histogram()))
            .collect();
        if let Some(h) = barrage_model::hdr::merge(&hs).filter(|h| !h.is_empty()) {
            return Some(h.value_at_quantile(q) as f64 * def.scale);
        }
    }
    let vals: Vec<f64> = ok.iter().filter_map(|t| def.value(t)).collect();
    barrage_model::stats::median(&vals).map(|m| m * def.scale)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Checks one results file; returns how many plotted values it checked.
fn check(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let input = parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let Input::Study(r) = &input else {
        return 0;
    };
    let r = r.as_ref().clone();
    let page = build(&[(path.display().to_string(), input)]).expect("report builds");
    let mut checked = 0;
    let mut wrong = Vec::new();
    let mut verify = |title: &str, key: &str, v: f64, (pl, c): &(String, String)| {
        let def = metric::get(key).unwrap_or_else(|| panic!("{title}: {key} is no metric"));
        match expected(&r, pl, c, def) {
            Some(e) if close(v, e) => checked += 1,
            e => wrong.push(format!(
                "{title}: {c} at {pl:?}: plotted {v}, {key} is {e:?}"
            )),
        }
    };
    for section in &page.sections {
        for plot in section.plots.iter().flat_map(|g| &g.plots) {
            match plot {
                Plot::Line(chart) => {
                    let Some(key) = chart.metric else { continue };
                    for line in &chart.lines {
                        assert_eq!(line.points.len(), line.provenance.len(), "{}", chart.title);
                        for (p, prov) in line.points.iter().zip(&line.provenance) {
                            verify(&chart.title, key, p.1, prov);
                        }
                    }
                }
                Plot::Bar(chart) => {
                    for group in &chart.groups {
                        for (k, bar) in group.bars.iter().enumerate() {
                            let key = chart.metrics.get(k).copied().flatten();
                            if let (Some(key), Some(v), Some(prov)) =
                                (key, bar.value, &bar.provenance)
                            {
                                verify(&chart.title, key, v, prov);
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{}:\n{}",
        path.display(),
        wrong.join("\n")
    );
    checked
}

fn committed_runs() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../studies");
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == "results.json") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn plotted_values_are_the_registry_values_in_fixtures() {
    let mut total = 0;
    for f in [
        "server-study.json",
        "server-study-b.json",
        "client-failed.json",
        "single-trial.json",
        "variants.json",
        "overload.json",
    ] {
        let n = check(&common::fixtures().join(f));
        assert!(n > 0, "{f}: no plotted summary value");
        total += n;
    }
    eprintln!("fixtures: {total} plotted values checked");
}

#[test]
fn plotted_values_are_the_registry_values_in_committed_runs() {
    let runs = committed_runs();
    assert!(runs.len() >= 5, "{runs:?}");
    let mut total = 0;
    for p in &runs {
        let n = check(p);
        eprintln!("{}: {n} plotted values checked", p.display());
        total += n;
    }
    eprintln!("committed runs: {total} plotted values checked");
    assert!(total > 500, "{total}");
}

//! Every plotted summary value is the registry's value for the metric its chart names, for every
//! committed study run (`studies/**/results.json`) and every study fixture: the chart labelled
//! "p50 latency" plots p50, the bars labelled "peak RSS" show peak RSS.
//!
//! For each point of each line or bar chart that plots a summary metric (the chart records the
//! metric's key, each point its (point label, contender)), three things are checked:
//! - the chart's words name that metric: its title or series names its label (the registry's, or
//!   the one a study declared for a figure), its y axis its unit;
//! - the value is the one computed here from the trials alone, scaled to the axis unit: the median
//!   of `Metric::value` over the successful trials, or for a latency percentile the percentile of
//!   all successful trials' merged HDR histograms (never through the report's table, so a plot
//!   that picks a column by position fails);
//! - the value is the one the summary table shows for that metric, looked up by its key.
//!
//! A last test breaks a page on purpose (a chart showing one metric under another's label) and
//! makes sure the check catches it.

use crate::common;

use barrage_model::metric::{self, Metric};
use barrage_model::study::Results;
use barrage_report::page::{Plot, Section};
use barrage_report::study_section::point_label;
use barrage_report::table::Table;
use barrage_report::{build, parse, Input};
use std::path::{Path, PathBuf};

/// The value of `m` for `contender` at the point labelled `point`, in the axis unit, from the
/// trials alone.
fn expected(r: &Results, point: &str, contender: &str, m: &Metric) -> Option<f64> {
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
    let vals: Vec<f64> = ok.iter().filter_map(|t| m.value(t)).collect();
    let median = barrage_model::stats::median(&vals)?;
    if let Some(q) = m.merged_quantile {
        let hs: Vec<_> = ok
            .iter()
            .flat_map(|t| t.phases.iter().filter_map(|p| p.load.histogram()))
            .collect();
        if let Some(h) = barrage_model::hdr::merge(&hs).filter(|h| !h.is_empty()) {
            return Some(h.value_at_quantile(q) as f64 * m.scale);
        }
    }
    Some(median * m.scale)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Whether `text` names `label` as a word: "p99" in "p99 latency (ms)", not in "p99.9 latency".
fn names(text: &str, label: &str) -> bool {
    let (t, l) = (text.to_lowercase(), label.to_lowercase());
    t.match_indices(&l).any(|(i, _)| {
        let before = t[..i].chars().next_back();
        let after = t[i + l.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric())
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '.')
    })
}

/// What checking a page found.
#[derive(Default)]
struct Found {
    checked: usize,
    wrong: Vec<String>,
}

impl Found {
    /// One plotted value `v` of `m` (a chart titled `title`) for (point label, contender) of `r`,
    /// whose summary table is `table`.
    fn value(
        &mut self,
        r: &Results,
        table: &Table,
        title: &str,
        m: &Metric,
        v: f64,
        at: &(String, String),
    ) {
        let (pl, c) = at;
        let shown = table
            .row(pl, c)
            .and_then(|row| table.cell(row, &m.key))
            .and_then(|cell| cell.center());
        match (expected(r, pl, c, m), shown) {
            (Some(e), Some(s)) if close(v, e) && close(v, s) => self.checked += 1,
            (e, s) => self.wrong.push(format!(
                "{title}: {c} at {pl:?}: plotted {v}, {} is {e:?}, the table shows {s:?}",
                m.key
            )),
        }
    }

    /// A chart's words must name its metric: `label` (title or series) and `unit` (y axis).
    fn words(&mut self, title: &str, named: &[&str], y: &str, m: &Metric) {
        let unit_named = m.unit.is_empty() || y.contains(&format!("({})", m.unit));
        if !named.iter().any(|t| names(t, &m.label)) || !unit_named {
            self.wrong.push(format!(
                "{title}: its words {named:?} / {y:?} do not name {} ({})",
                m.label, m.unit
            ));
        }
    }
}

/// The metric keyed `key` of `r`: a registry one or a figure its study declared.
fn metric_of(r: &Results, key: &str) -> Metric {
    metric::find(r, key).unwrap_or_else(|| panic!("{key} is no metric of {}", r.study.name))
}

/// Checks every summary chart of `section`; `doc` gives the results (and their summary table) a
/// line of that name plots.
fn check_section<'a>(
    section: &Section,
    doc: &dyn Fn(&str) -> (&'a Results, &'a Table),
    f: &mut Found,
) {
    // The answer's main chart is checked like every other.
    for plot in section
        .plots
        .iter()
        .flat_map(|g| &g.plots)
        .chain(section.answer_chart.iter())
    {
        match plot {
            Plot::Line(chart) => {
                let Some(key) = chart.metric.as_deref() else {
                    // Not a summary chart: its lines carry no table provenance.
                    assert!(
                        chart.lines.iter().all(|l| l.provenance.is_empty()),
                        "{}: table values without a metric",
                        chart.title
                    );
                    continue;
                };
                for (i, line) in chart.lines.iter().enumerate() {
                    assert_eq!(line.points.len(), line.provenance.len(), "{}", chart.title);
                    let (r, t) = doc(&line.name);
                    let m = metric_of(r, key);
                    if i == 0 {
                        f.words(&chart.title, &[&chart.title], &chart.y.label, &m);
                    }
                    for (p, at) in line.points.iter().zip(&line.provenance) {
                        f.value(r, t, &chart.title, &m, p.1, at);
                    }
                }
            }
            Plot::Bar(chart) => {
                let groups: Vec<&[barrage_report::svg::Bar]> =
                    chart.groups.iter().map(|g| &g.bars[..]).collect();
                bars(
                    f,
                    &chart.title,
                    &chart.y.label,
                    &chart.series,
                    &chart.metrics,
                    &groups,
                    &doc,
                );
            }
            Plot::HBar(chart) => {
                let rows: Vec<&[barrage_report::svg::Bar]> =
                    chart.rows.iter().map(|r| &r.bars[..]).collect();
                bars(
                    f,
                    &chart.title,
                    &chart.x.label,
                    &chart.series,
                    &chart.metrics,
                    &rows,
                    &doc,
                );
            }
        }
    }
}

/// The bars of a bar chart (either orientation): each series' metric named by its words, each
/// value the table's cell it came from.
fn bars<'a>(
    f: &mut Found,
    title: &str,
    axis: &str,
    series: &[(String, usize)],
    metrics: &[Option<String>],
    groups: &[&[barrage_report::svg::Bar]],
    doc: &dyn Fn(&str) -> (&'a Results, &'a Table),
) {
    assert_eq!(metrics.len(), series.len(), "{title}");
    for (k, (name, _)) in series.iter().enumerate() {
        let Some(key) = &metrics[k] else {
            continue;
        };
        let (r, t) = doc(name);
        let m = metric_of(r, key);
        f.words(title, &[title, name], axis, &m);
        for bar in groups.iter().filter_map(|g| g.get(k)) {
            let (Some(v), Some(at)) = (bar.value, &bar.provenance) else {
                continue;
            };
            f.value(r, t, title, &m, v, at);
        }
    }
}

/// Reads and parses a results file once.
fn read(path: &Path) -> Input {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Checks the report page of one study; returns what was found.
fn check_study(label: &str, input: Input) -> Found {
    let Input::Study(r) = &input else {
        panic!("{label} is not a study")
    };
    let r = r.as_ref().clone();
    let page = build(&[(label.to_string(), input)]).expect("report builds");
    let mut f = Found::default();
    for section in &page.sections {
        let table = section.table.clone().unwrap_or_default();
        check_section(section, &|_| (&r, &table), &mut f);
    }
    f
}

fn assert_right(label: &str, f: &Found) {
    assert!(f.wrong.is_empty(), "{label}:\n{}", f.wrong.join("\n"));
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

const STUDY_FIXTURES: [&str; 6] = [
    "server-study.json",
    "server-study-b.json",
    "client-failed.json",
    "single-trial.json",
    "variants.json",
    "overload.json",
];

#[test]
fn plotted_values_are_the_registry_values_in_fixtures() {
    let mut total = 0;
    for name in STUDY_FIXTURES {
        let f = check_study(name, read(&common::fixtures().join(name)));
        assert_right(name, &f);
        assert!(f.checked > 0, "{name}: no plotted summary value");
        total += f.checked;
    }
    eprintln!("fixtures: {total} plotted values checked");
}

#[test]
fn plotted_values_are_the_registry_values_in_committed_runs() {
    let runs = committed_runs();
    assert!(runs.len() >= 5, "{runs:?}");
    let mut total = 0;
    for p in &runs {
        let f = check_study(&p.display().to_string(), read(p));
        assert_right(&p.display().to_string(), &f);
        assert!(f.checked > 0, "{}: no plotted summary value", p.display());
        eprintln!("{}: {} plotted values checked", p.display(), f.checked);
        total += f.checked;
    }
    eprintln!("committed runs: {total} plotted values checked");
    assert!(total > 500, "{total}");
}

#[test]
fn plotted_values_of_a_baseline_and_a_change_are_each_files_values() {
    let (a, b) = ("server-study.json", "server-study-b.json");
    let inputs: Vec<(String, Input)> = [a, b]
        .iter()
        .map(|n| (n.to_string(), read(&common::fixtures().join(n))))
        .collect();
    let doc = |i: usize| inputs[i].1.study().expect("a study").clone();
    let (base, change) = (doc(0), doc(1));
    let (tb, tc) = (
        barrage_report::study_section::table(&base),
        barrage_report::study_section::table(&change),
    );
    let page = build(&inputs).expect("report builds");
    let overlay = &page.sections[0];
    assert!(
        overlay.heading.starts_with("Comparison"),
        "{}",
        overlay.heading
    );
    let mut f = Found::default();
    check_section(
        overlay,
        &|line: &str| {
            if line.ends_with("(baseline)") {
                (&base, &tb)
            } else {
                assert!(line.ends_with("(change)"), "{line}");
                (&change, &tc)
            }
        },
        &mut f,
    );
    assert_right("baseline vs change", &f);
    assert!(f.checked > 0);
}

#[test]
fn the_check_catches_a_value_under_another_metrics_label() {
    let input = read(&common::fixtures().join("server-study.json"));
    let r = input.study().expect("a study").clone();
    let table = barrage_report::study_section::table(&r);
    let page = build(&[("s".into(), input)]).expect("report builds");
    let sweep = page.sections[0]
        .plots
        .iter()
        .find(|g| g.heading.starts_with("Sweep"))
        .expect("a sweep")
        .clone();
    let chart = |key: &str| {
        sweep
            .plots
            .iter()
            .find_map(|p| match p {
                Plot::Line(c) if c.metric.as_deref() == Some(key) => Some(c.clone()),
                _ => None,
            })
            .expect("a chart of the metric")
    };
    let run = |plots| {
        let mut section = Section::default();
        section.plots.push(barrage_report::page::PlotGroup {
            plots,
            ..sweep.clone()
        });
        let mut f = Found::default();
        check_section(&section, &|_| (&r, &table), &mut f);
        f
    };
    assert_right("untouched", &run(vec![Plot::Line(chart(&metric::P50.key))]));
    // The p99 values under the p50 chart's words and key: what a shifted column drew.
    let mut shifted = chart(&metric::P50.key);
    shifted.lines = chart(&metric::P99.key).lines;
    let f = run(vec![Plot::Line(shifted)]);
    assert!(f.wrong.len() >= 2, "{:?}", f.wrong);
    // The p99 chart claiming to show p50 under its p99 words.
    let mut relabelled = chart(&metric::P99.key);
    relabelled.metric = Some(metric::P50.key.to_string());
    let f = run(vec![Plot::Line(relabelled)]);
    assert!(
        f.wrong.iter().any(|w| w.contains("do not name p50")),
        "{:?}",
        f.wrong
    );
    assert!(!names("p99.9 latency (ms)", "p99") && names("p99 latency (ms)", "p99"));
}

/// The CPU timeline of a point is one line, the median across its trials of user+sys CPU, inside
/// the trials' min-max band: checked at every drawn bin against the fixture's samples (each
/// trial's samples on its own clock, the baseline sample left out), computed here independently.
#[test]
fn cpu_timeline_is_the_median_of_the_trials_in_their_band() {
    let input = read(&common::fixtures().join("server-study.json"));
    let Input::Study(r) = &input else { panic!() };
    let r = r.as_ref().clone();
    let page = build(&[("server-study".into(), input)]).unwrap();
    let mut checked = 0;
    for group in page.sections.iter().flat_map(|s| &s.timelines) {
        let heading = group.heading.strip_prefix("Timelines: ").unwrap();
        let (contender, point) = heading.split_once(" at ").unwrap();
        let Some(Plot::Line(cpu)) = group.plots.first() else {
            panic!("{heading}: no CPU chart first")
        };
        let trials: Vec<_> = r
            .trials
            .iter()
            .filter(|t| {
                t.contender == contender && point_label(&r, t.point) == point && t.samples.is_some()
            })
            .collect();
        let total = &cpu.lines[0];
        assert!(total.name.starts_with("user+sys"), "{}", total.name);
        if trials.len() > 1 {
            assert!(
                total
                    .name
                    .contains(&format!("median of {} trials", trials.len())),
                "{}",
                total.name
            );
            assert_eq!(total.band.len(), total.points.len());
        }
        for (i, &(x, med)) in total.points.iter().enumerate() {
            let mut v: Vec<f64> = trials
                .iter()
                .filter_map(|t| {
                    let s = t.samples.as_ref().unwrap();
                    let step = s.config.interval.as_secs_f64();
                    let own: Vec<f64> = s.samples[1..]
                        .iter()
                        .filter(|x0| {
                            let tt = x0.t.as_secs_f64() - t.windows.trial_start_s;
                            ((tt / step).round() * step - x).abs() < step / 4.0
                        })
                        .map(|x0| x0.cpu_user_pct + x0.cpu_sys_pct)
                        .collect();
                    (!own.is_empty()).then(|| own.iter().sum::<f64>() / own.len() as f64)
                })
                .collect();
            v.sort_by(f64::total_cmp);
            assert!(!v.is_empty(), "{heading}: bin {x} has no sample");
            let n = v.len();
            let want = (v[(n - 1) / 2] + v[n / 2]) / 2.0;
            assert!(
                (med - want).abs() < 1e-9,
                "{heading} at {x}: {med} vs {want}"
            );
            if trials.len() > 1 {
                let (_, lo, hi) = total.band[i];
                assert_eq!((lo, hi), (v[0], v[n - 1]), "{heading} at {x}");
            }
            checked += 1;
        }
    }
    assert!(checked > 20, "{checked} CPU bins checked");
}

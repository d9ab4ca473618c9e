//! The answer block: what a study found, before anything else (hyperfine's verdict lines,
//! TechEmpower's ranked table). Made from the model's statistics and comparisons only:
//!
//! - a ranked contender x point table of the study's primary metric (and for client studies peak
//!   memory, PSS beside RSS for multi-process trees, and the figures the study declared),
//!   failures inline ("OOM 5/5, 2.00 GiB, after 3.8 s");
//! - for studies of paired contenders (`X-close` / `X-keepalive`), one row per pair with the
//!   speed-up of keep-alive over close, tested and Holm-corrected over the pairs;
//! - at most five verdict lines, each a ratio with its 95% interval and a significance test
//!   that could have said so;
//! - the study's warnings folded to one line per kind, with a count.
//!
//! HTML and the terminal render the same [`Answer`] value.

use crate::study_section::{cells_order, point_label};
use barrage_model::metric::{self, Metric};
use barrage_model::stats::{self, Comparison};
use barrage_model::study::{Between, ContenderRole, Results, Trial, WarningKind};

/// The answer of one study.
#[derive(Debug, Clone, Default)]
pub struct Answer {
    /// The study's question (its description, else its name).
    pub question: String,
    pub columns: Vec<AnswerColumn>,
    /// Ranked best first.
    pub rows: Vec<AnswerRow>,
    /// How the rows are ranked: "ranked by req/s at c=1000 (median of 3 trials), best first".
    pub ranked_by: String,
    /// At most [`MAX_VERDICTS`] lines.
    pub verdicts: Vec<String>,
    /// The study's warnings, one line per kind.
    pub notes: Vec<NoteLine>,
    /// Which network the points ran on (`model::network::summary_lines`); empty on loopback.
    pub network: Vec<String>,
}

/// The most verdict lines an answer shows.
pub const MAX_VERDICTS: usize = 5;

/// A column of the ranked table.
#[derive(Debug, Clone)]
pub struct AnswerColumn {
    /// What the column's group of columns shows ("req/s", "peak RSS"), empty for none.
    pub group: String,
    /// "c=100" under its group, or the whole header ("keep-alive / close").
    pub header: String,
    /// The metric the column's values are in (`None`: a ratio).
    pub metric: Option<Metric>,
}

/// A row: a contender (or a pair of contenders).
#[derive(Debug, Clone, Default)]
pub struct AnswerRow {
    pub name: String,
    pub cells: Vec<AnswerCell>,
}

/// One cell: the median in stored units (what the rank and the tests read) and its text.
#[derive(Debug, Clone, Default)]
pub struct AnswerCell {
    pub value: Option<f64>,
    pub text: String,
    /// Every trial of the cell failed.
    pub failed: bool,
    /// Some trial of the cell failed (its median is of the others): never marked best.
    pub with_failures: bool,
    /// The best value of its column among the cells whose every trial succeeded.
    pub best: bool,
}

/// The study's warnings of one kind.
#[derive(Debug, Clone, Default)]
pub struct NoteLine {
    pub kind: WarningKind,
    pub count: usize,
    /// "23 trials flagged as outliers ..." or, for a kind seen once, its message.
    pub text: String,
    /// The distinct messages (folded under the line).
    pub details: Vec<String>,
}

/// The answer of `doc`.
pub fn answer(doc: &Results) -> Answer {
    let m = metric::primary(doc);
    let mut a = match pairs(doc) {
        Some(p) => paired(doc, m, &p),
        None => ranked(doc, m),
    };
    a.question = if doc.study.description.is_empty() {
        doc.study.name.clone()
    } else {
        fill_params(&doc.study.description, doc)
    };
    a.notes = fold_notes(doc);
    a.network = barrage_model::network::summary_lines(doc);
    a
}

/// The metrics of the table: the primary one; for client studies peak memory (RSS, and PSS
/// beside it where trees of several processes share pages: [`pss_differs`]),
/// then the figures the study declared that some trial has.
fn metrics(doc: &Results, primary: &Metric) -> Vec<Metric> {
    let mut v = vec![primary.clone()];
    if doc.study.kind != ContenderRole::Client {
        return v;
    }
    if primary.key != metric::PEAK_RSS.key {
        v.push(metric::PEAK_RSS);
    }
    if pss_differs(doc) && has_values(doc, &metric::PEAK_PSS) {
        v.push(metric::PEAK_PSS);
    }
    v.extend(
        metric::of_results(doc)
            .into_iter()
            .filter(|m| m.is_figure() && has_values(doc, m)),
    );
    v
}

/// Whether some successful trial has a value of `m`.
fn has_values(doc: &Results, m: &Metric) -> bool {
    doc.trials.iter().any(|t| t.ok && m.value(t).is_some())
}

/// Whether PSS was read while some trial's tree held several processes (a fork, a
/// multiprocessing pool): there summed RSS counts the pages they share once per process, and PSS
/// (shared pages divided among their processes) is the figure to read beside it. Trees of one
/// process, or with short-lived helpers the PSS ticks never saw, have nothing to divide.
pub fn pss_differs(doc: &Results) -> bool {
    doc.trials.iter().any(|t| {
        t.samples.as_ref().is_some_and(|s| {
            s.samples
                .iter()
                .any(|x| x.pss_bytes.is_some() && x.processes > 1)
        })
    })
}

/// The point ids in study order.
fn point_ids(doc: &Results) -> Vec<usize> {
    crate::table::dedup(cells_order(doc).into_iter().map(|(p, _)| p))
}

/// The contenders in study order.
fn contenders(doc: &Results) -> Vec<String> {
    crate::table::dedup(cells_order(doc).into_iter().map(|(_, c)| c))
}

fn summary<'a>(
    doc: &'a Results,
    point: usize,
    name: &str,
) -> Option<&'a barrage_model::study::Cell> {
    doc.summary
        .iter()
        .find(|c| c.point == point && c.contender == name)
}

/// The median of `m` for `name` at `point` (stored units), over the successful trials.
fn median(doc: &Results, point: usize, name: &str, m: &Metric) -> Option<f64> {
    summary(doc, point, name)?
        .stats
        .get(m.key.as_ref())
        .map(|s| s.median)
}

/// The successful trials' values of `m` for `name` at `point`.
fn values(doc: &Results, point: usize, name: &str, m: &Metric) -> Vec<f64> {
    m.values(
        doc.trials_of(point, name)
            .into_iter()
            .filter(|t| t.ok)
            .collect::<Vec<_>>(),
    )
}

/// A stored value for people: throughput as a count ("12.3k"), the rest the metric's way (the
/// registry's `Metric::show_in_table`, which the terminal uses too).
pub fn show(m: &Metric, v: f64) -> String {
    m.show_in_table(v)
}

/// Failures of a cell inline: "OOM 5/5, 2.00 GiB, after 3.8 s" (all failed) or "2/5 failed:
/// crashed" (some).
pub fn failure_text(trials: &[&Trial]) -> Option<String> {
    failure_text_as(trials, None)
}

/// [`failure_text`] as a column of metric `m` shows it when every trial failed: the peak memory
/// column the memory seen ("2.00 GiB at failure"), another the failure without the memory.
fn failure_text_as(trials: &[&Trial], m: Option<&Metric>) -> Option<String> {
    let failed: Vec<&&Trial> = trials.iter().filter(|t| !t.ok).collect();
    if failed.is_empty() {
        return None;
    }
    let mut kinds = crate::table::dedup(failed.iter().map(|t| failure_kind(t)));
    kinds.sort();
    let kinds = kinds.join(", ");
    let n = trials.len();
    if failed.len() < n {
        return Some(format!("{}/{n} failed: {kinds}", failed.len()));
    }
    let peak = failed
        .iter()
        .filter_map(|t| {
            let cg = t.exit.as_ref().and_then(|e| e.cgroup_peak_bytes);
            t.peak_rss_bytes().max(cg)
        })
        .max();
    let wall = stats::median(
        &failed
            .iter()
            .filter_map(|t| t.exit.as_ref().map(|e| e.wall.as_secs_f64()))
            .filter(|w| *w > 0.0)
            .collect::<Vec<_>>(),
    );
    if m.is_some_and(|m| m.key == metric::PEAK_RSS.key) {
        return Some(peak.filter(|p| *p > 0).map_or("-".into(), |p| {
            format!("{} at failure", metric::fmt_bytes(p as f64))
        }));
    }
    let mut s = format!("{kinds} {}/{n}", failed.len());
    if let Some(p) = peak.filter(|p| *p > 0 && m.is_none()) {
        s.push_str(&format!(", {}", metric::fmt_bytes(p as f64)));
    }
    if let Some(w) = wall {
        s.push_str(&format!(", after {}", metric::WALL.show(w)));
    }
    Some(s)
}

/// A failure's kind in a few words.
pub fn failure_kind(t: &Trial) -> String {
    t.failure
        .as_ref()
        .map_or("failed", |f| f.kind.label())
        .to_string()
}

/// The contender x point table ranked by the primary metric at the last point (the heaviest
/// load of a sweep); rows with no value there rank after, by how many trials succeeded.
fn ranked(doc: &Results, primary: &Metric) -> Answer {
    let points = point_ids(doc);
    let names = contenders(doc);
    let ms = metrics(doc, primary);
    let mut columns = Vec::new();
    let mut keys = Vec::new();
    for m in &ms {
        for p in &points {
            let label = point_label(doc, *p);
            let unit = if m.key == metric::RPS.key {
                m.unit
            } else {
                &m.label
            };
            columns.push(AnswerColumn {
                group: if label.is_empty() {
                    String::new()
                } else {
                    unit.to_string()
                },
                header: if label.is_empty() {
                    unit.to_string()
                } else {
                    label
                },
                metric: Some(m.clone()),
            });
            keys.push((*p, m));
        }
    }
    let mut rows: Vec<AnswerRow> = names
        .iter()
        .map(|n| AnswerRow {
            name: n.clone(),
            cells: keys
                .iter()
                .map(|(p, m)| {
                    let trials = doc.trials_of(*p, n);
                    let value = median(doc, *p, n, m);
                    let memory_col = ms.len() > 1;
                    let fail = failure_text_as(&trials, memory_col.then_some(*m));
                    let text = match (value, &fail) {
                        (Some(v), Some(f)) => format!("{} ({f})", show(m, v)),
                        (Some(v), None) => show(m, v),
                        (None, Some(f)) => f.clone(),
                        (None, None) => "-".into(),
                    };
                    AnswerCell {
                        value,
                        text,
                        failed: !trials.is_empty() && trials.iter().all(|t| !t.ok),
                        with_failures: trials.iter().any(|t| !t.ok),
                        best: false,
                    }
                })
                .collect(),
        })
        .collect();
    let head = points.last().copied().unwrap_or(0);
    let head_col = keys
        .iter()
        .position(|(p, m)| *p == head && m.key == primary.key)
        .unwrap_or(0);
    let better = primary.higher_is_better();
    rows.sort_by(|a, b| {
        let (x, y) = (a.cells[head_col].value, b.cells[head_col].value);
        match (x, y) {
            (Some(x), Some(y)) if better => y.total_cmp(&x),
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => ok_trials(doc, &b.name).cmp(&ok_trials(doc, &a.name)),
        }
    });
    mark_best(
        &mut rows,
        &keys.iter().map(|k| Some(k.1)).collect::<Vec<_>>(),
    );
    let label = point_label(doc, head);
    let trials = doc.study.trials;
    let ranked_by = format!(
        "Ranked by {}{} (median of {trials} trial{}), best first.",
        primary.label,
        if label.is_empty() {
            String::new()
        } else {
            format!(" at {label}")
        },
        if trials == 1 { "" } else { "s" }
    );
    Answer {
        columns,
        verdicts: verdicts(doc, primary, &points),
        rows,
        ranked_by,
        ..Answer::default()
    }
}

fn ok_trials(doc: &Results, name: &str) -> usize {
    doc.trials
        .iter()
        .filter(|t| t.ok && t.contender == name)
        .count()
}

/// Marks the best value of every column that holds a metric, among the cells whose every trial
/// succeeded: a median of the trials that survived (the others out of memory, say) is not a
/// figure to hold up as the best; when no cell of a column qualifies, none is marked.
fn mark_best(rows: &mut [AnswerRow], metrics: &[Option<&Metric>]) {
    for (i, m) in metrics.iter().enumerate() {
        let Some(m) = m else { continue };
        let pick = |a: f64, b: f64| {
            if m.higher_is_better() {
                a.max(b)
            } else {
                a.min(b)
            }
        };
        let clean = |c: &AnswerCell| !c.with_failures && !c.failed;
        let Some(best) = rows
            .iter()
            .map(|r| &r.cells[i])
            .filter(|c| clean(c))
            .filter_map(|c| c.value)
            .reduce(pick)
        else {
            continue;
        };
        for r in rows.iter_mut() {
            let c = &mut r.cells[i];
            c.best = clean(c) && c.value == Some(best);
        }
    }
}

/// The verdict lines of a ranked study: at the last point, the leader against the runner-up
/// and against the last; then the leader of every other point (last first), up to
/// [`MAX_VERDICTS`]. Every line is one of the model's comparisons (Holm-corrected over the study).
fn verdicts(doc: &Results, m: &Metric, points: &[usize]) -> Vec<String> {
    let mut out = Vec::new();
    // A study of one contender's variants compares the variants.
    let between = if doc
        .comparisons
        .iter()
        .any(|c| c.between == Between::Contenders)
    {
        Between::Contenders
    } else {
        Between::Variants
    };
    for (i, p) in points.iter().rev().enumerate() {
        let mut cs: Vec<_> = doc
            .comparisons
            .iter()
            .filter(|c| c.point == *p && c.metric == m.key && c.between == between)
            .collect();
        if cs.is_empty() {
            continue;
        }
        // Closest first: the runner-up is the one the leader beats by the least.
        cs.sort_by(|a, b| a.comparison.factor.total_cmp(&b.comparison.factor));
        let label = point_label(doc, *p);
        let at = if label.is_empty() {
            String::new()
        } else {
            format!(" at {label}")
        };
        out.push(format!(
            "{}{at}: {}",
            leader(m, &cs[0].a),
            versus(&cs[0].comparison, &format!("{}, the runner-up", cs[0].b))
        ));
        if i == 0 && cs.len() > 1 {
            let last = cs[cs.len() - 1];
            out.push(format!(
                "{}{at}: {}",
                leader(m, &last.a),
                versus(&last.comparison, &format!("{}, the last", last.b))
            ));
        }
        if out.len() >= MAX_VERDICTS {
            break;
        }
    }
    out.truncate(MAX_VERDICTS);
    out
}

fn leader(m: &Metric, name: &str) -> String {
    let what = if m.higher_is_better() {
        "highest"
    } else {
        "lowest"
    };
    format!("{name} has the {what} {}", m.label)
}

/// "1.47x faster [1.41, 1.53] than B (p = 0.003)", or "no significant difference from B
/// (1.02x [0.97, 1.08], p = 0.41)", or "too few trials to test against B (...)".
pub fn versus(c: &Comparison, b: &str) -> String {
    let p = c.p_adjusted.unwrap_or(c.p_value);
    if !c.testable {
        return format!("cannot be tested against {b}: {}", c.phrase);
    }
    if !c.significant {
        let rest = c
            .phrase
            .strip_prefix("no significant difference ")
            .unwrap_or(&c.phrase);
        return format!("no significant difference from {b} {rest}");
    }
    let p = stats::format_p(p);
    let p = if p.starts_with('<') {
        format!("p {p}")
    } else {
        format!("p = {p}")
    };
    format!("{} than {b} ({p})", c.phrase)
}

/// A description that names the study's client parameters (`for {seconds} s`) with their
/// values where every point has the same one ("for 5 s"). A swept parameter stays as written:
/// its values are the points' labels, which the tables show.
pub fn fill_params(text: &str, doc: &Results) -> String {
    let mut out = text.to_string();
    let names: Vec<&String> = doc
        .points
        .iter()
        .flat_map(|p| p.client_params.keys())
        .collect();
    for name in crate::table::dedup(names) {
        let key = format!("{{{name}}}");
        if !out.contains(&key) {
            continue;
        }
        let values = crate::table::dedup(
            doc.points
                .iter()
                .map(|p| p.client_params.get(name.as_str()).map(|v| v.to_string())),
        );
        if let [Some(one)] = values.as_slice() {
            out = out.replace(&key, one);
        }
    }
    out
}

/// The study's warnings, one line per kind with a count; a message repeated word for word is
/// shown once.
pub fn fold_notes(doc: &Results) -> Vec<NoteLine> {
    let kinds = crate::table::dedup(doc.warnings.iter().map(|w| w.kind.clone()));
    kinds
        .into_iter()
        .map(|kind| {
            let msgs: Vec<String> = doc
                .warnings
                .iter()
                .filter(|w| w.kind == kind)
                .map(|w| w.message.clone())
                .collect();
            let count = msgs.len();
            let details = crate::table::dedup(msgs);
            let text = match (&kind, details.len()) {
                (_, 1) => details[0].clone(),
                (WarningKind::Outlier, n) => {
                    format!("{n} trials flagged as outliers (more than 3 MADs from their cell's median).")
                }
                (WarningKind::FirstTrialSlow, n) => {
                    format!("{n} cells' first trial was the slowest (a warm-up effect).")
                }
                (WarningKind::GeneratorBottleneck, n) => {
                    format!("{n} cells were limited by barrage's load generator, not the contender.")
                }
                (WarningKind::Skipped, n) => format!("{n} contenders were skipped."),
                (WarningKind::FailedTrials, n) => format!("{n} cells have failed trials."),
                (WarningKind::MachineBusy, n) => format!(
                    "{n} warnings of a busy machine: other programs took more CPU than the study's bound while trials were measured."
                ),
                (k, n) => format!("{n} warnings of kind {k}."),
            };
            NoteLine {
                kind,
                count,
                text,
                details,
            }
        })
        .collect()
}

mod pairs;
#[cfg(test)]
mod tests;

use pairs::paired;
pub use pairs::pairs;

//! The summary table every output format shares: per (point, contender) and metric, the trial
//! values summarised (median, CI, ...), plus the relative comparison of each contender with the
//! best one at the same point and its significance (Mann-Whitney U over the trials).

use crate::stats::{compare_worded, summarize, Summary, Wording};
use crate::svg::fmt_num;

/// Significance level of the comparisons (the lab's).
pub use crate::stats::ALPHA;

pub use barrage_model::metric::Better;
use barrage_model::metric::{self as registry, Metric as Def};

/// A column of the summary table: a metric of the registry (`barrage_model::metric`), or for the
/// `barrage load` section a figure of the load document, with how it is shown.
#[derive(Debug, Clone, Copy)]
pub struct Metric {
    /// Stable identifier (CSV): the registry key, or a derived one ("rps_second_best").
    pub key: &'static str,
    pub name: &'static str,
    pub unit: &'static str,
    pub better: Better,
    /// Comparisons say "1.5x faster/slower" (`None`) or "1.5x more/less NOUN".
    pub noun: Option<&'static str>,
    /// Stored values are multiplied by this to show them in `unit` (bytes -> MiB, µs -> ms).
    pub scale: f64,
    /// The registry metric whose trial values the column holds (`None`: a load-document figure).
    pub def: Option<&'static Def>,
    /// The column shows the 2nd best trial of `def`, bare (no CI, not compared again).
    pub second_best: bool,
}

impl PartialEq for Metric {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}

impl Metric {
    /// The column of a registry metric.
    pub const fn of(def: &'static Def) -> Metric {
        Metric {
            key: def.key,
            name: def.label,
            unit: def.unit,
            better: def.better,
            noun: def.noun,
            scale: def.scale,
            def: Some(def),
            second_best: false,
        }
    }
}

pub const RPS: Metric = Metric::of(&registry::RPS);
/// The second best trial's throughput ("2nd best of N", the statistic of the original
/// benchmarks): a column beside the throughput's median and CI, from the same trials, so it is
/// shown bare (no CI) and not compared again.
pub const RPS_SECOND_BEST: Metric = Metric {
    key: "rps_second_best",
    name: "2nd best",
    second_best: true,
    ..RPS
};
pub const P50: Metric = Metric::of(&registry::P50);
pub const P99: Metric = Metric::of(&registry::P99);
pub const P999: Metric = Metric::of(&registry::P999);
pub const ERRORS: Metric = Metric::of(&registry::ERRORS);
pub const PEAK_RSS: Metric = Metric::of(&registry::PEAK_RSS);

/// Per-trial values of one metric for one contender at one point.
#[derive(Debug, Clone, Default)]
pub struct Cell {
    pub values: Vec<f64>,
    pub summary: Option<Summary>,
    /// A figure that stands for the cell better than the median of the trials, e.g. a latency
    /// percentile of all trials' merged HDR histograms (shown as the value, with the trials' CI).
    pub headline: Option<f64>,
    /// Show the headline alone, without the trials' CI ("-" when there is none).
    pub bare: bool,
}

impl Cell {
    /// Values already in the metric's display unit.
    pub fn new(values: Vec<f64>, metric: &Metric) -> Self {
        let summary = summarize(&values, metric.better == Better::Higher);
        Cell {
            values,
            summary,
            headline: None,
            bare: false,
        }
    }

    /// The value shown: the headline figure, else the median of the trials.
    pub fn center(&self) -> Option<f64> {
        self.headline.or(self.summary.as_ref().map(|s| s.median))
    }

    /// "12.3k [12.1k, 12.5k]" or "12.3k" (one trial) or "-" (none).
    pub fn text(&self) -> String {
        if self.bare {
            return self.headline.map_or("-".into(), fmt_num);
        }
        match (&self.summary, self.center()) {
            (Some(s), Some(c)) => match s.ci {
                Some((lo, hi)) => format!("{} [{}, {}]", fmt_num(c), fmt_num(lo), fmt_num(hi)),
                None => fmt_num(c),
            },
            _ => "-".into(),
        }
    }
}

/// One row: a contender at a point.
#[derive(Debug, Clone, Default)]
pub struct Row {
    pub point: String,
    pub contender: String,
    /// Aligned with [`Table::metrics`].
    pub cells: Vec<Cell>,
    /// Trials run, and how many of them failed (failed trials have no values).
    pub trials: usize,
    pub failed: usize,
    /// Per metric: the comparison with the best contender at this point.
    pub vs_best: Vec<Option<Comparison>>,
    pub notes: Vec<String>,
    /// Rows compared with each other share a group (empty: the point); e.g. the variants of one
    /// contender at otherwise equal parameters when the point has a single contender.
    pub group: String,
    /// How this row is named in another row's comparison (empty: the contender).
    pub ref_label: String,
}

impl Row {
    /// The key of the group this row is compared within.
    pub fn group_key(&self) -> &str {
        if self.group.is_empty() {
            &self.point
        } else {
            &self.group
        }
    }
    fn name(&self) -> &str {
        if self.ref_label.is_empty() {
            &self.contender
        } else {
            &self.ref_label
        }
    }
}

/// "1.47x slower than X (p = 0.008)".
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub reference: String,
    /// How many times better or worse (>= 1) this row is than the reference, by median.
    pub factor: f64,
    /// Plain ratio of the medians, this / reference.
    pub ratio: f64,
    pub p: Option<f64>,
    /// p < α and the medians differ.
    pub significant: bool,
    pub text: String,
}

/// The summary table.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub metrics: Vec<Metric>,
    pub rows: Vec<Row>,
}

impl Table {
    /// The column of a registry metric's trial values (its median and CI, not its 2nd best).
    pub fn column(&self, def: &Def) -> Option<usize> {
        self.metrics
            .iter()
            .position(|m| m.key == def.key && !m.second_best)
    }

    /// Fills in `vs_best` for every row: at each point, the best median per metric is the
    /// reference; every other row is compared with it.
    pub fn compare(&mut self) {
        let points: Vec<String> = dedup(self.rows.iter().map(|r| r.group_key().to_string()));
        for r in &mut self.rows {
            r.vs_best = vec![None; self.metrics.len()];
        }
        for p in points {
            let idx: Vec<usize> = (0..self.rows.len())
                .filter(|&i| self.rows[i].group_key() == p)
                .collect();
            if idx.len() < 2 {
                continue;
            }
            for (m, metric) in self.metrics.iter().enumerate() {
                if metric.second_best {
                    continue;
                }
                let med = |i: usize| {
                    self.rows[i]
                        .cells
                        .get(m)
                        .and_then(|c| c.summary.as_ref())
                        .map(|s| s.median)
                };
                let best = idx
                    .iter()
                    .copied()
                    .filter(|&i| med(i).is_some())
                    .reduce(|a, b| {
                        let (x, y) = (med(a).unwrap_or_default(), med(b).unwrap_or_default());
                        let b_better = match metric.better {
                            Better::Higher => y > x,
                            Better::Lower => y < x,
                        };
                        if b_better {
                            b
                        } else {
                            a
                        }
                    });
                let Some(best) = best else { continue };
                let found: Vec<(usize, Option<Comparison>)> = idx
                    .iter()
                    .filter(|&&i| i != best && med(i).is_some())
                    .map(|&i| {
                        (
                            i,
                            compare(
                                metric,
                                self.rows[best].name(),
                                &self.rows[best].cells[m],
                                &self.rows[i].cells[m],
                            ),
                        )
                    })
                    .collect();
                for (i, c) in found {
                    self.rows[i].vs_best[m] = c;
                }
            }
        }
    }
}

/// Compares `this` with `reference` on `metric`: ratio of medians and the Mann-Whitney test
/// (crates/lab's `compare_worded`, so the words are the terminal's).
pub fn compare(
    metric: &Metric,
    ref_name: &str,
    reference: &Cell,
    this: &Cell,
) -> Option<Comparison> {
    let (r, t) = (reference.summary.as_ref()?, this.summary.as_ref()?);
    let wording = match metric.noun {
        None => Wording::Speed,
        Some(n) => Wording::Amount {
            noun: n.to_string(),
        },
    };
    let c = compare_worded(
        &this.values,
        &reference.values,
        metric.better == Better::Higher,
        &wording,
    )?;
    let _ = (r, t);
    let tested = c.testable;
    let amount = if c.ratio == 1.0 {
        "equal".to_string()
    } else {
        barrage_model::stats::amount_text(&c, &wording)
    };
    let ci = barrage_model::stats::interval_text(&c);
    let text = if !tested {
        let n = c.n_a.min(c.n_b);
        let trials = if n == 1 {
            "one trial".to_string()
        } else {
            format!("{n} trials")
        };
        format!("{amount}{ci} than {ref_name} ({trials}: too few to test)")
    } else if c.significant {
        format!("{amount}{ci} than {ref_name} ({})", p_text(c.p_value))
    } else {
        format!(
            "no significant difference from {ref_name} ({}; medians {amount}{ci})",
            p_text(c.p_value)
        )
    };
    Some(Comparison {
        reference: ref_name.to_string(),
        factor: c.factor,
        ratio: c.ratio,
        p: tested.then_some(c.p_value),
        significant: tested && c.significant,
        text,
    })
}

/// "1.47", "108" — as the terminal formats factors.
pub fn fmt_factor(f: f64) -> String {
    barrage_model::stats::format_factor(f)
}

/// "0.008", "< 0.001".
pub fn fmt_p(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".into()
    } else {
        format!("{p:.3}")
    }
}

/// "p = 0.008", "p < 0.001".
pub fn p_text(p: f64) -> String {
    if p < 0.001 {
        "p < 0.001".into()
    } else {
        format!("p = {p:.3}")
    }
}

/// Keeps the first occurrence of each value, in order.
pub fn dedup<T: PartialEq>(it: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for x in it {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, v: &[f64]) -> Row {
        Row {
            point: "c=1".into(),
            contender: name.into(),
            cells: vec![Cell::new(v.to_vec(), &RPS)],
            trials: v.len(),
            ..Row::default()
        }
    }

    #[test]
    fn compares_with_the_best() {
        let mut t = Table {
            metrics: vec![RPS],
            rows: vec![
                row("slow", &[100.0, 101.0, 99.0, 100.5, 100.2]),
                row("fast", &[147.0, 148.0, 146.0, 147.5, 147.2]),
                row("same", &[146.9, 148.1, 146.2, 147.6, 147.0]),
            ],
        };
        t.compare();
        assert!(t.rows[1].vs_best[0].is_none(), "the best has no comparison");
        let c = t.rows[0].vs_best[0].as_ref().unwrap();
        assert_eq!(c.reference, "fast");
        assert!(
            c.text
                .starts_with("1.47x slower [1.46, 1.48] than fast (p < 0.001)"),
            "{}",
            c.text
        );
        let c = t.rows[2].vs_best[0].as_ref().unwrap();
        assert!(
            c.text.starts_with("no significant difference from fast"),
            "{}",
            c.text
        );
    }

    #[test]
    fn single_trial_says_no_test() {
        let mut t = Table {
            metrics: vec![PEAK_RSS],
            rows: vec![row("a", &[10.0]), row("b", &[1080.0])],
        };
        for r in &mut t.rows {
            r.cells[0] = Cell::new(r.cells[0].values.clone(), &PEAK_RSS);
        }
        t.compare();
        let c = t.rows[1].vs_best[0].as_ref().unwrap();
        assert_eq!(
            c.text,
            "108x more memory than a (one trial: too few to test)"
        );
        assert_eq!(t.rows[1].cells[0].text(), "1080");
    }
}

//! The summary table every output format shares: per (point, contender) and column, the trial
//! values and their statistics (median, CI, ...), plus the comparison of each row with the best
//! one of its group and its significance.
//!
//! Every column names a metric of the study (the registry's, [`barrage_model::metric`], or a
//! figure the study declared): a cell is found by the metric's key ([`Table::cell`]), never by
//! a position, so inserting a column cannot shift
//! what a plot or an export shows. For studies the statistics and comparisons are the model's
//! (`barrage_model::summary::update`, see `study_section::table`); this module words them.

use crate::svg::fmt_num;
use barrage_model::metric::{Better, Metric};
use barrage_model::stats::{self, Interval, Summary};
use barrage_model::study::MergedLatency;

pub use words::{fmt_factor, fmt_p, from_model, p_text};

mod words;

/// What a column of the summary table shows, and of which metric.
#[derive(Debug, Clone)]
pub enum Column {
    /// The metric's trial values: median [95% CI] (latency percentiles: the percentile of all
    /// trials' merged histograms), compared between rows.
    Stat(Metric),
    /// The second best trial of the metric ("2nd best of N", the original benchmarks' statistic):
    /// a statistic of the same trials, shown bare and not compared again.
    SecondBest(Metric),
    /// `barrage load` documents: the median of the run's per-second rates of the metric, the
    /// sample two single runs can be compared on.
    PerSecond(Metric),
    /// `barrage load` documents: the run's own figure of the metric.
    Run(Metric),
}

impl PartialEq for Column {
    fn eq(&self, o: &Self) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(o)
            && self.metric().key == o.metric().key
    }
}

impl Column {
    /// The metric whose values the column holds.
    pub fn metric(&self) -> &Metric {
        match self {
            Column::Stat(m) | Column::SecondBest(m) | Column::PerSecond(m) | Column::Run(m) => m,
        }
    }

    /// Stable identifier (CSV): the metric's key, suffixed for a derived view.
    pub fn key(&self) -> String {
        let k = &self.metric().key;
        match self {
            Column::Stat(_) | Column::Run(_) => k.to_string(),
            Column::SecondBest(_) => format!("{k}_second_best"),
            Column::PerSecond(_) => format!("{k}_per_second"),
        }
    }

    /// The header: the metric's label ("p99"), or the view of it ("2nd best").
    pub fn name(&self) -> String {
        let l = &self.metric().label;
        match self {
            Column::Stat(_) => l.to_string(),
            Column::SecondBest(_) => "2nd best".to_string(),
            Column::PerSecond(_) => format!("{l} (median of seconds)"),
            Column::Run(_) => format!("{l} (run)"),
        }
    }

    /// The header with the unit: "p99 (ms)", "errors".
    pub fn header(&self) -> String {
        match self.unit() {
            "" => self.name(),
            u => format!("{} ({u})", self.name()),
        }
    }

    /// The unit of the shown values (the metric's, after its scale).
    pub fn unit(&self) -> &'static str {
        self.metric().unit
    }

    /// Whether rows are compared on this column.
    pub fn compared(&self) -> bool {
        !matches!(self, Column::SecondBest(_))
    }

    /// Whether this is the column of `m`'s trial statistics (not a derived view of them).
    pub fn is_stat_of(&self, m: &Metric) -> bool {
        self.is_stat_keyed(&m.key)
    }

    /// Whether this is the column of the trial statistics of the metric keyed `key`.
    pub fn is_stat_keyed(&self, key: &str) -> bool {
        matches!(self, Column::Stat(d) if d.key == key)
    }

    fn higher_is_better(&self) -> bool {
        self.metric().better == Better::Higher
    }
}

/// The values of one column for one row, already in the column's unit.
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
    /// A cell of `values` (in the column's unit) summarised with the model's statistics.
    pub fn new(values: Vec<f64>, column: &Column) -> Self {
        let summary = stats::summarize(&values, column.higher_is_better());
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

    /// The 95% interval of the median, as (low, high).
    pub fn ci(&self) -> Option<(f64, f64)> {
        self.summary
            .as_ref()
            .and_then(|s| s.ci95_median)
            .map(|i| (i.lo, i.hi))
    }

    /// "12.3k [12.1k, 12.5k]" or "12.3k" (one trial) or "-" (none).
    pub fn text(&self) -> String {
        if self.bare {
            return self.headline.map_or("-".into(), fmt_num);
        }
        match (self.summary.is_some(), self.center(), self.ci()) {
            (true, Some(c), Some((lo, hi))) => {
                format!("{} [{}, {}]", fmt_num(c), fmt_num(lo), fmt_num(hi))
            }
            (true, Some(c), None) => fmt_num(c),
            _ => "-".into(),
        }
    }
}

/// A summary in stored units shown in a column's unit (`scale` > 0: every statistic, the
/// intervals included, scales with the values).
pub fn scaled(s: &Summary, scale: f64) -> Summary {
    let iv = |i: Interval| Interval {
        lo: i.lo * scale,
        hi: i.hi * scale,
    };
    Summary {
        n: s.n,
        median: s.median * scale,
        mean: s.mean * scale,
        stddev: s.stddev.map(|v| v * scale),
        min: s.min * scale,
        max: s.max * scale,
        second_best: s.second_best.map(|v| v * scale),
        ci95_mean: s.ci95_mean.map(iv),
        ci95_median: s.ci95_median.map(iv),
    }
}

/// The percentile `q` of a merged latency, µs: the figure the model recorded (p50, p90, p99,
/// p99.9), else read from its histogram.
pub fn merged_percentile(l: &MergedLatency, q: f64) -> Option<f64> {
    let recorded = [
        (0.5, l.p50_us),
        (0.9, l.p90_us),
        (0.99, l.p99_us),
        (0.999, l.p999_us),
    ];
    match recorded.iter().find(|r| r.0 == q) {
        Some(r) => Some(r.1 as f64),
        None => Some(
            barrage_model::hdr::decode(&l.hdr)
                .ok()?
                .value_at_quantile(q) as f64,
        ),
    }
}

/// One row: a contender at a point.
#[derive(Debug, Clone, Default)]
pub struct Row {
    pub point: String,
    pub contender: String,
    /// Aligned with [`Table::columns`].
    pub cells: Vec<Cell>,
    /// Trials run, and how many of them failed (failed trials have no values).
    pub trials: usize,
    pub failed: usize,
    /// Per column: the comparison with the best row of the group.
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

    /// How comparisons name this row: its variant within a group of variants, else its contender.
    pub fn name(&self) -> &str {
        if self.ref_label.is_empty() {
            &self.contender
        } else {
            &self.ref_label
        }
    }
}

/// "1.47x slower [1.41, 1.53] than X (p = 0.008)".
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub reference: String,
    /// How many times better or worse (>= 1) this row is than the reference, by median.
    pub factor: f64,
    /// Plain ratio of the medians, this / reference.
    pub ratio: f64,
    pub p: Option<f64>,
    /// p < α (after the study's correction, where there is one) and the medians differ.
    pub significant: bool,
    pub text: String,
}

/// The summary table.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
}

impl Table {
    /// The index of the column of `m`'s trial statistics (not of a derived view of them).
    pub fn column(&self, m: &Metric) -> Option<usize> {
        self.columns.iter().position(|c| c.is_stat_of(m))
    }

    /// The cell of `row` for the metric with `key` (its trial statistics).
    pub fn cell<'a>(&self, row: &'a Row, key: &str) -> Option<&'a Cell> {
        let i = self.columns.iter().position(|c| c.is_stat_keyed(key))?;
        row.cells.get(i)
    }

    /// The row of `contender` at the point labelled `point`.
    pub fn row(&self, point: &str, contender: &str) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.point == point && r.contender == contender)
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
    use barrage_model::metric::{PEAK_RSS, RPS};

    #[test]
    fn cells_are_found_by_metric_key_not_position() {
        let cols = [
            Column::Stat(RPS),
            Column::SecondBest(RPS),
            Column::Stat(PEAK_RSS),
        ];
        let t = Table {
            columns: cols.to_vec(),
            rows: vec![Row {
                cells: cols
                    .iter()
                    .zip([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
                    .map(|(c, v)| Cell::new(v.to_vec(), c))
                    .collect(),
                ..Row::default()
            }],
        };
        let r = &t.rows[0];
        assert_eq!(t.cell(r, "rps").unwrap().values, [1.0, 2.0]);
        assert_eq!(t.cell(r, "peak_rss_bytes").unwrap().values, [5.0, 6.0]);
        assert!(t.cell(r, "latency_p50_us").is_none());
        assert_eq!(Column::SecondBest(RPS).key(), "rps_second_best");
        assert_eq!(
            Column::PerSecond(RPS).name(),
            "throughput (median of seconds)"
        );
    }

    #[test]
    fn a_summary_scales_with_its_values() {
        let xs = [1000.0, 1500.0, 1200.0, 1100.0];
        let s = stats::summarize(&xs, false).unwrap();
        let k = scaled(&s, 1e-3);
        assert_eq!(k.n, 4);
        assert!((k.median - s.median / 1000.0).abs() < 1e-12);
        let (a, b) = (k.ci95_median.unwrap(), s.ci95_median.unwrap());
        assert!((a.lo - b.lo / 1000.0).abs() < 1e-12 && (a.hi - b.hi / 1000.0).abs() < 1e-12);
    }
}

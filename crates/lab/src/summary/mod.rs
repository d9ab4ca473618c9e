//! Statistics of a results document: per point and contender (median, mean, stddev, min, max,
//! 2nd best, 95% CI of every metric; latency percentiles from the *merged* HDR histograms of all
//! trials), comparisons with significance, warnings; and their renderings as a terminal table and
//! `summary.csv` (strings: printing is the CLI's job).

use crate::results::Results;
use crate::study::Kind;

pub use barrage_model::study::{Cell, ComparisonRow, MergedLatency, Warning};
pub use barrage_model::summary::update;

/// Metrics of a study kind: (key, higher is better), from the registry.
pub fn metrics(kind: Kind) -> Vec<(&'static str, bool)> {
    barrage_model::summary::metrics(kind)
        .map(|m| (m.key, m.higher_is_better()))
        .collect()
}

pub(crate) fn primary(r: &Results) -> (&'static str, bool) {
    let m = barrage_model::metric::primary(r);
    (m.key, m.higher_is_better())
}

/// A metric value for people: "12.3k", "1.25 ms", "48.0 MiB", "3.2 µs".
pub fn fmt_metric(name: &str, v: f64) -> String {
    match name {
        "rps" => fmt_count(v),
        _ => barrage_model::metric::get(name).map_or_else(|| fmt_secs(v), |m| m.show(v)),
    }
}

pub use barrage_model::metric::{fmt_bytes, fmt_count, fmt_secs};

mod render;
pub use render::{csv, table};

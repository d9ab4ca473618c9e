//! The figures a load run is recorded by: the registry's (`metric::LOAD`: throughput, p50, p90,
//! p99, p99.9, maximum and mean latency, errors, the error share), each read by the registry's
//! one reading of a load document (`metric::load_value`), so a run's error share here is the
//! one `barrage compare` judges; and the request count, which the registry lacks, declared here
//! as a `Metric` too, so that listings and trend charts show every figure one way. Histories
//! written before schema 2 recorded the error share without connect errors; opening one for
//! writing recomputes it from the stored documents (`open.rs`).

use barrage_model::load::LoadDoc;
use barrage_model::metric::{
    self, Better, Format, Metric, Read, ERRORS, ERROR_PCT, LATENCY_MAX as MAX,
    LATENCY_MEAN as MEAN, P50, P90, P99, P999, RPS,
};
use std::borrow::Cow;

/// Valid responses in the measured window.
pub const REQUESTS: Metric = Metric {
    key: Cow::Borrowed("requests"),
    label: Cow::Borrowed("requests"),
    unit: "",
    scale: 1.0,
    better: Better::Higher,
    noun: Some(Cow::Borrowed("requests")),
    kinds: &[],
    read: Read::Figure,
    format: Format::Count,
    compared: false,
    merged_quantile: None,
};
/// The metrics of a load run, in listing order.
pub const LOAD: &[&Metric] = &[
    &RPS, &P50, &P90, &P99, &P999, &MAX, &MEAN, &ERRORS, &ERROR_PCT, &REQUESTS,
];

/// The metric with this key: a load run's (above), else the registry's. Figures a study
/// declared are known only to their results document: None.
pub fn metric(key: &str) -> Option<Metric> {
    LOAD.iter()
        .find(|m| m.key == key)
        .map(|m| (*m).clone())
        .or_else(|| metric::get(key).cloned())
}

/// The metric with this key, or, for a figure a study declared (its label and unit are known
/// only to its results document), a plain one named by its key.
pub fn describe(key: &str) -> Metric {
    metric(key).unwrap_or_else(|| Metric {
        key: Cow::Owned(key.to_string()),
        label: Cow::Owned(key.to_string()),
        noun: None,
        format: Format::Number,
        ..REQUESTS
    })
}

/// The figures of a load document, in stored units: the registry's reading of each (latency
/// figures only when some response was timed: an empty histogram has no p99, and 0 would read
/// as very fast), and the request count.
pub fn of_load(d: &LoadDoc) -> Vec<(&'static Metric, f64)> {
    LOAD.iter()
        .filter_map(|&m| {
            let v = if m.key == REQUESTS.key {
                Some(d.requests as f64)
            } else {
                metric::load_value(m, d)
            }?;
            v.is_finite().then_some((m, v))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_load_metric_has_a_reading_and_a_unique_key() {
        let mut d = LoadDoc {
            rps: 2000.0,
            requests: 990,
            ..LoadDoc::default()
        };
        d.errors.count(barrage_model::load::ErrorClass::Timeout, 10);
        d.errors.count(barrage_model::load::ErrorClass::Connect, 5);
        d.latency_us = barrage_model::load::Latency {
            count: 990,
            mean: 150.5,
            p50: 100,
            p90: 200,
            p99: 300,
            p999: 400,
            max: 500,
            ..Default::default()
        };
        let got: Vec<(&str, f64)> = of_load(&d)
            .iter()
            .map(|(m, v)| (m.key.as_ref(), *v))
            .collect();
        assert_eq!(
            got,
            [
                ("rps", 2000.0),
                ("latency_p50_us", 100.0),
                ("latency_p90_us", 200.0),
                ("latency_p99_us", 300.0),
                ("latency_p999_us", 400.0),
                ("latency_max_us", 500.0),
                ("latency_mean_us", 150.5),
                ("errors", 15.0),
                // 15 errors of 1005 outcomes, the 5 connect errors included (the registry's).
                ("error_pct", 100.0 * 15.0 / 1005.0),
                ("requests", 990.0),
            ]
        );
        for (i, m) in LOAD.iter().enumerate() {
            assert!(LOAD[..i].iter().all(|o| o.key != m.key), "{}", m.key);
            assert_eq!(metric(&m.key).unwrap().label, m.label);
        }
        assert_eq!(metric("peak_rss_bytes").unwrap().label, "peak RSS");
        assert!(metric("nonsense").is_none());
        assert_eq!(describe("allocs").label, "allocs");
        assert_eq!(describe("rps").unit, "req/s");
    }

    #[test]
    fn a_run_without_responses_has_no_latency_figures() {
        let mut d = LoadDoc::default();
        d.errors.count(barrage_model::load::ErrorClass::Connect, 3);
        let keys: Vec<&str> = of_load(&d).iter().map(|(m, _)| m.key.as_ref()).collect();
        assert_eq!(keys, ["rps", "errors", "error_pct", "requests"]);
        // Every outcome an error: a dead server's error share is 100%, not missing.
        assert_eq!(of_load(&d)[2].1, 100.0);
    }
}

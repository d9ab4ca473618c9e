//! The figures a load run is recorded by. Those the model's metric registry declares (throughput,
//! p50, p90, p99, p99.9, maximum and mean latency, errors) keep its keys, labels and units; the
//! request count and the share of requests that ended in an error (connect errors left out) are
//! declared here, as `Metric` values too, so that listings and trend charts show every figure
//! one way. They are read from the document, never from a trial (hence `Read::Figure`).

use barrage_model::load::LoadDoc;
use barrage_model::metric::{
    self, Better, Format, Metric, Read, ERRORS, LATENCY_MAX as MAX, LATENCY_MEAN as MEAN, P50, P90,
    P99, P999, RPS,
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
/// Requests that ended in an error, as a percentage of the requests that ended (connect errors
/// belong to no request and are left out, as the document counts them).
pub const ERROR_PCT: Metric = Metric {
    key: Cow::Borrowed("error_pct"),
    label: Cow::Borrowed("errors"),
    unit: "%",
    better: Better::Lower,
    noun: Some(Cow::Borrowed("errors")),
    format: Format::Number,
    ..REQUESTS
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

/// The figures of a load document, in stored units. Latency figures only when some response
/// was timed (an empty histogram has no p99, and 0 would read as very fast).
pub fn of_load(d: &LoadDoc) -> Vec<(&'static Metric, f64)> {
    let l = &d.latency_us;
    let timed = l.count > 0;
    let ended = d.requests + d.errors.of_requests();
    LOAD.iter()
        .filter_map(|&m| {
            let v = match m.key.as_ref() {
                "rps" => Some(d.rps),
                "latency_p50_us" => timed.then_some(l.p50 as f64),
                "latency_p90_us" => timed.then_some(l.p90 as f64),
                "latency_p99_us" => timed.then_some(l.p99 as f64),
                "latency_p999_us" => timed.then_some(l.p999 as f64),
                "latency_max_us" => timed.then_some(l.max as f64),
                "latency_mean_us" => timed.then_some(l.mean),
                "errors" => Some(d.errors.total as f64),
                "error_pct" => {
                    (ended > 0).then(|| d.errors.of_requests() as f64 * 100.0 / ended as f64)
                }
                "requests" => Some(d.requests as f64),
                _ => None,
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
        d.errors.timeout = 10;
        d.errors.connect = 5;
        d.errors.total = 15;
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
                // 10 of the 1000 requests that ended; the 5 connect errors are no requests.
                ("error_pct", 1.0),
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
        d.errors.connect = 3;
        d.errors.total = 3;
        let keys: Vec<&str> = of_load(&d).iter().map(|(m, _)| m.key.as_ref()).collect();
        assert_eq!(keys, ["rps", "errors", "requests"]);
    }
}

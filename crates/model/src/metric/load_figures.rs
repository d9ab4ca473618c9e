//! The figures of a `barrage load --json` document (`barrage.load/1`) a comparison reads: the
//! registry's metrics a study shares with it (throughput, p50, p99, p99.9, errors, error rate)
//! and those no study trial records (mean, p90 and maximum latency), which therefore read
//! nothing from a trial and belong to no study kind.

use super::{Metric, Read, ERRORS, ERROR_PCT, P50, P99, P999, RPS};
use crate::load::LoadDoc;
use std::borrow::Cow;

/// Mean latency of a load run.
pub const LATENCY_MEAN: Metric = Metric {
    key: Cow::Borrowed("latency_mean_us"),
    label: Cow::Borrowed("mean"),
    kinds: &[],
    read: Read::Field(|_| None),
    merged_quantile: None,
    ..P50
};
/// p90 latency of a load run.
pub const P90: Metric = Metric {
    key: Cow::Borrowed("latency_p90_us"),
    label: Cow::Borrowed("p90"),
    merged_quantile: Some(0.9),
    ..LATENCY_MEAN
};
/// The slowest response of a load run: one request's latency, so it is shown but not compared
/// (`compared: false`); p99.9 is the tail figure a comparison can stand on.
pub const LATENCY_MAX: Metric = Metric {
    key: Cow::Borrowed("latency_max_us"),
    label: Cow::Borrowed("max"),
    compared: false,
    ..LATENCY_MEAN
};

/// What a `barrage.load/1` document is compared on, in table order ([`load_value`] reads each).
pub const LOAD: &[Metric] = &[
    RPS,
    LATENCY_MEAN,
    P50,
    P90,
    P99,
    P999,
    LATENCY_MAX,
    ERRORS,
    ERROR_PCT,
];

/// The figure of `m` in a load document, in stored units: `None` for a metric the document
/// does not have, and for latencies when no response was valid (a run without responses has no
/// latency, not a latency of 0).
pub fn load_value(m: &Metric, d: &LoadDoc) -> Option<f64> {
    let l = &d.latency_us;
    let latency = |v: f64| (l.count > 0).then_some(v);
    let outcomes = d.requests + d.errors.total();
    let figures = [
        (&RPS, Some(d.rps)),
        (&LATENCY_MEAN, latency(l.mean)),
        (&P50, latency(l.p50 as f64)),
        (&P90, latency(l.p90 as f64)),
        (&P99, latency(l.p99 as f64)),
        (&P999, latency(l.p999 as f64)),
        (&LATENCY_MAX, latency(l.max as f64)),
        (&ERRORS, Some(d.errors.total() as f64)),
        (
            &ERROR_PCT,
            (outcomes > 0).then(|| 100.0 * d.errors.total() as f64 / outcomes as f64),
        ),
    ];
    figures
        .into_iter()
        .find(|(k, _)| k.key == m.key)
        .and_then(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metric::{of_results, PEAK_RSS};
    use crate::study::{ContenderRole, Results};

    #[test]
    fn reads_a_load_documents_figures() {
        let mut d = LoadDoc {
            rps: 1500.5,
            requests: 1497,
            ..LoadDoc::default()
        };
        d.errors.count(crate::load::ErrorClass::Timeout, 2);
        d.errors.count(crate::load::ErrorClass::Connect, 1);
        assert_eq!(load_value(&RPS, &d), Some(1500.5));
        assert_eq!(load_value(&ERRORS, &d), Some(3.0));
        assert_eq!(load_value(&ERROR_PCT, &d), Some(0.2));
        // No valid response: no latency at all, rather than a latency of 0.
        assert_eq!(load_value(&P50, &d), None);
        d.latency_us = crate::load::Latency {
            count: 1497,
            mean: 5210.5,
            p50: 5100,
            p90: 5600,
            p99: 6900,
            p999: 9100,
            max: 12000,
            ..Default::default()
        };
        let got: Vec<Option<f64>> = LOAD.iter().map(|m| load_value(m, &d)).collect();
        let want = [
            1500.5, 5210.5, 5100.0, 5600.0, 6900.0, 9100.0, 12000.0, 3.0, 0.2,
        ];
        assert_eq!(got, want.map(Some));
        assert_eq!(load_value(&PEAK_RSS, &d), None);
        // No study lists the load documents' own figures.
        for kind in [ContenderRole::Server, ContenderRole::Client] {
            let mut r = Results::default();
            r.study.kind = kind;
            let keys: Vec<String> = of_results(&r).iter().map(|m| m.key.to_string()).collect();
            for m in [&LATENCY_MEAN, &P90, &LATENCY_MAX, &ERROR_PCT] {
                assert!(
                    !keys.contains(&m.key.to_string()),
                    "{kind:?} lists {}",
                    m.key
                );
            }
        }
    }
}

//! The figures of a load (`barrage load`, and the trials of `barrage run`) as metric families:
//! counters by phase (`warmup`, `measure`; the measured ones are the run's document's totals),
//! the latency histogram so far, and the last second's gauges.

use super::expo::{Expo, MetricType};
use crate::figures::{State, Totals};
use barrage_engine::{ErrorClass, Phase};

/// Upper bounds of the latency histogram's buckets, seconds.
const BUCKETS: [f64; 17] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0, 30.0,
];

const PHASES: [(&str, Phase); 2] = [("warmup", Phase::Warmup), ("measure", Phase::Measure)];

/// Writes the load's families.
pub fn write(e: &mut Expo, st: &State) {
    let counter = |e: &mut Expo, name: &str, help: &str, value: &dyn Fn(&Totals) -> u64| {
        e.family(name, MetricType::Counter, help);
        for (label, p) in PHASES {
            e.sample(
                &format!("{name}_total"),
                &[("phase", label)],
                value(st.totals(p)) as f64,
            );
        }
    };
    counter(e, "barrage_requests_written", "Requests written.", &|t| {
        t.written
    });
    counter(
        e,
        "barrage_responses",
        "Valid responses (the document's requests).",
        &|t| t.responses,
    );
    counter(
        e,
        "barrage_bytes_read",
        "Bytes read from the server.",
        &|t| t.bytes_read,
    );
    counter(
        e,
        "barrage_bytes_written",
        "Bytes written to the server.",
        &|t| t.bytes_written,
    );
    e.family(
        "barrage_errors",
        MetricType::Counter,
        "Failed requests, failed connects and unasked messages, by class.",
    );
    for (label, p) in PHASES {
        for k in ErrorClass::ALL {
            let n = st.totals(p).errors[k];
            let l = [("phase", label), ("class", k.name())];
            e.sample("barrage_errors_total", &l, n as f64);
        }
    }
    e.family(
        "barrage_status",
        MetricType::Counter,
        "Complete responses by status code (valid or not).",
    );
    for (label, p) in PHASES {
        for (code, n) in &st.totals(p).status {
            let code = code.to_string();
            let l = [("phase", label), ("code", code.as_str())];
            e.sample("barrage_status_total", &l, *n as f64);
        }
    }
    e.family(
        "barrage_latency_seconds",
        MetricType::Histogram,
        "Latency of valid responses (from the intended send time in open loop).",
    );
    for (label, p) in PHASES {
        let h = &st.totals(p).latency;
        let buckets: Vec<(f64, u64)> = BUCKETS
            .iter()
            .map(|&le| (le, h.count_between(0, (le * 1e6) as u64)))
            .collect();
        let sum = h.mean() * h.len() as f64 / 1e6;
        e.histogram(
            "barrage_latency_seconds",
            &[("phase", label)],
            &buckets,
            h.len(),
            sum,
        );
    }
    let last = st.recent.back();
    let gauge = |e: &mut Expo, name: &str, help: &str, v: f64| {
        e.family(name, MetricType::Gauge, help);
        e.sample(name, &[], v);
    };
    let phase = match st.phase {
        Phase::Warmup => 0.0,
        Phase::Measure => 1.0,
        Phase::Done => 2.0,
    };
    gauge(e, "barrage_phase", "0 warmup, 1 measure, 2 done.", phase);
    gauge(
        e,
        "barrage_in_flight",
        "Requests written and not yet answered, at the last second's end.",
        st.in_flight as f64,
    );
    gauge(
        e,
        "barrage_connections",
        "Connections open, at the last second's end.",
        st.connections as f64,
    );
    let rps = last.map_or(0.0, |s| {
        if s.span_s > 0.0 {
            s.responses as f64 / s.span_s
        } else {
            0.0
        }
    });
    gauge(
        e,
        "barrage_throughput_rps",
        "Valid responses per second over the last second.",
        rps,
    );
    e.family(
        "barrage_second_latency_seconds",
        MetricType::Gauge,
        "The last second's latency percentiles.",
    );
    for (q, v) in [
        ("0.5", last.map_or(0, |s| s.p50_us)),
        ("0.99", last.map_or(0, |s| s.p99_us)),
    ] {
        e.sample(
            "barrage_second_latency_seconds",
            &[("quantile", q)],
            v as f64 / 1e6,
        );
    }
}

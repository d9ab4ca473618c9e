//! Per-trial figures, by metric key: the lab's own per-trial `metrics` (so the report's numbers
//! are the terminal's), and for a record without them, the same figures computed from the trial's
//! phases (merged HDR histograms, never averaged percentiles) and samples.

use crate::hdr;
use crate::model::study::{Samples, Trial};

/// The figure of `t` for metric `key`, in the lab's units (req/s, µs, s, bytes).
pub fn figure(t: &Trial, key: &str) -> Option<f64> {
    let m = &t.metrics;
    let v = match key {
        "rps" => m.rps.or_else(|| {
            let secs: f64 = t.phases.iter().map(|p| p.load.duration_s).sum();
            (secs > 0.0).then(|| requests(t) as f64 / secs)
        }),
        "latency_p50_us" => m.latency_p50_us.or_else(|| quantile(t, 0.5)),
        "latency_p99_us" => m.latency_p99_us.or_else(|| quantile(t, 0.99)),
        "latency_p999_us" => m.latency_p999_us.or_else(|| quantile(t, 0.999)),
        "errors" => m.errors.map(|e| e as f64).or_else(|| {
            (!t.phases.is_empty())
                .then(|| t.phases.iter().map(|p| p.load.errors.total as f64).sum())
        }),
        "cpu_s_per_request" => m.cpu_s_per_request.or_else(|| {
            let s = t.samples.as_ref().filter(|s| !s.samples.is_empty())?;
            let n = requests(t);
            let cpu: f64 = t
                .phases
                .iter()
                .map(|p| cpu_between(s, p.measure_start_s, p.measure_end_s))
                .sum();
            (n > 0).then(|| cpu / n as f64)
        }),
        "peak_rss_bytes" => t.peak_rss_bytes().map(|b| b as f64),
        "wall_s" => m.wall_s,
        "mb_per_s" => m.mb_per_s,
        "user_s" => m.user_s,
        "sys_s" => m.sys_s,
        "cpu_s" => m.cpu_s,
        _ => None,
    };
    v.filter(|v| v.is_finite())
}

fn requests(t: &Trial) -> u64 {
    t.metrics
        .requests
        .unwrap_or_else(|| t.phases.iter().map(|p| p.load.requests).sum())
}

/// A latency quantile (µs) of the trial's phases' merged histograms.
fn quantile(t: &Trial, q: f64) -> Option<f64> {
    let hs: Vec<_> = t
        .phases
        .iter()
        .filter_map(|p| hdr::decode(p.load.hdr.as_deref()?).ok())
        .collect();
    let h = hdr::merge(&hs).filter(|h| !h.is_empty())?;
    Some(h.value_at_quantile(q) as f64)
}

/// Tree CPU seconds (user + sys) spent in `[from, to]` (trial-clock seconds): each sample's
/// percentage covers the interval since the previous sample; partial overlaps count pro rata.
pub fn cpu_between(s: &Samples, from: f64, to: f64) -> f64 {
    let mut total = 0.0;
    for w in s.samples.windows(2) {
        let (p, c) = (&w[0], &w[1]);
        let overlap = c.t_s.min(to) - p.t_s.max(from);
        if c.t_s > p.t_s && overlap > 0.0 {
            total += (c.cpu_user_pct + c.cpu_sys_pct) / 100.0 * overlap;
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::study::Sample;

    #[test]
    fn cpu_is_integrated_over_the_window() {
        let s = Samples {
            samples: (0..=10)
                .map(|i| Sample {
                    t_s: i as f64 * 0.1,
                    cpu_user_pct: 50.0,
                    cpu_sys_pct: 25.0,
                    ..Sample::default()
                })
                .collect(),
            ..Samples::default()
        };
        // 0.5 s at 75 % of a core.
        assert!((cpu_between(&s, 0.2, 0.7) - 0.375).abs() < 1e-9);
        assert!((cpu_between(&s, 0.25, 0.35) - 0.075).abs() < 1e-9);
        assert_eq!(cpu_between(&s, 2.0, 3.0), 0.0);
    }

    #[test]
    fn lab_metrics_come_first() {
        let mut t = Trial::default();
        t.metrics.rps = Some(1234.0);
        t.metrics.peak_rss_bytes = Some(42);
        assert_eq!(figure(&t, "rps"), Some(1234.0));
        assert_eq!(figure(&t, "peak_rss_bytes"), Some(42.0));
        assert_eq!(figure(&t, "latency_p99_us"), None);
        assert_eq!(figure(&t, "nonsense"), None);
    }
}

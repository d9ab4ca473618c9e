//! Every compared figure of one load run with an interval from the run's own data (the
//! document's `intervals`, new in `barrage.load/2`):
//!
//! - throughput, mean latency and the error rate: a block bootstrap over the measured seconds
//!   (`stats::blocks`; responses over seconds, summed latency over responses, errors over
//!   attempts), from a fixed seed;
//! - the latency percentiles: the wider of two intervals. Order statistics of the run's HDR
//!   histogram (`stats::order`: the binomial ranks of its responses) bound what independent
//!   responses allow, and say when there are too few for a tail (p99.9 of 1,600 may be beyond
//!   the slowest). Responses are not independent, though: a stall of the server or the machine
//!   slows many at once. The block bootstrap of the seconds with their own histograms
//!   (`stats::seconds`) measures how the percentile moved while the run went on.
//!
//! Two measured seconds are the fewest that show how a figure moves in time (Student's t of
//! one degree of freedom pays for how little they say): a 2 s CI run is judged. On recorded
//! real runs of a busy machine (`tests/it/short_runs.rs`), 2-second windows' percentile
//! intervals held the rest of their run's value as often as 3-second windows' did, while the
//! ranks alone held it in a quarter of the 1-second windows: one second's percentile lay
//! beyond ×10 of the rest of its run in more than 5% of seconds, a spread no interval narrow
//! enough to judge a change could claim. So a run under `stats::blocks::MIN_SECONDS` measured
//! seconds has open intervals ("not enough data"), percentiles included: a change of them
//! beyond the noise floor cannot be judged, and is never "no change".

use super::{LoadDoc, Phase};
use crate::metric::{self, Metric};
use crate::stats::{blocks, order, seconds};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The confidence level of a document's intervals.
pub const LEVEL: f64 = 0.95;
/// Bootstrap resamples, and their seed ("barrage!"); percentiles resample whole histograms,
/// which costs more, and take fewer.
pub const RESAMPLES: usize = 10_000;
pub const PERCENTILE_RESAMPLES: usize = 2_000;
pub const SEED: u64 = 0x6261_7272_6167_6521;

/// An interval whose ends may be open: `None` is an end the run's data cannot bound (p99.9 of
/// 1,600 responses may be beyond the slowest one seen; a run of 2 seconds cannot say how its
/// throughput varies).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Bound {
    pub lo: Option<f64>,
    pub hi: Option<f64>,
}

impl Bound {
    /// Both ends known.
    pub fn closed(&self) -> bool {
        self.lo.is_some() && self.hi.is_some()
    }
}

/// The intervals of a run's figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Intervals {
    /// Confidence level of every interval (0.95).
    pub level: f64,
    /// Measured seconds the bootstrap drew from, seconds per block, resamples and their seed.
    pub seconds: usize,
    pub block_s: usize,
    pub resamples: usize,
    pub seed: u64,
    /// Valid responses the percentiles rest on.
    pub responses: u64,
    /// By the metric registry's key (`rps`, `latency_p99_us`, `error_pct`), in its units.
    pub figures: BTreeMap<String, Bound>,
}

/// The figures that get an interval: the compared ones of a load document, in table order.
pub fn judged() -> impl Iterator<Item = &'static Metric> {
    metric::LOAD.iter().filter(|m| m.compared)
}

impl Intervals {
    /// The interval of `m`, when the document has one for it.
    pub fn of(&self, m: &Metric) -> Option<Bound> {
        self.figures.get(m.key.as_ref()).copied()
    }

    /// The intervals of `d`, whose latency histogram is `h`. `None` without valid responses
    /// or errors (nothing was measured).
    pub fn compute(d: &LoadDoc, h: Option<&hdrhistogram::Histogram<u64>>) -> Option<Intervals> {
        let seconds: Vec<_> = d
            .series
            .iter()
            .filter(|s| s.phase == Phase::Measure)
            .collect();
        let col = |f: &dyn Fn(&super::Second) -> f64| seconds.iter().map(|s| f(s)).collect();
        let span: Vec<f64> = col(&|s| if s.span_s > 0.0 { s.span_s } else { 1.0 });
        let responses: Vec<f64> = col(&|s| s.responses as f64);
        let boot =
            |num: &[f64], den: &[f64]| blocks::ratio_interval(num, den, LEVEL, RESAMPLES, SEED);
        let rps = boot(&responses, &span);
        // Documents from before the seconds carried their mean (barrage.load/1) have none.
        let has_means = seconds.iter().any(|s| s.mean_us > 0.0);
        let latency_sum: Vec<f64> = col(&|s| s.responses as f64 * s.mean_us);
        let mean = boot(&latency_sum, &responses).filter(|_| has_means);
        let errors: Vec<f64> = col(&|s| 100.0 * s.errors as f64);
        let attempts: Vec<f64> = col(&|s| (s.responses + s.errors) as f64);
        let error_pct = boot(&errors, &attempts);
        let l = &d.latency_us;
        let n = l.count;
        if n == 0 && d.errors.total() == 0 {
            return None;
        }
        let qs: Vec<f64> = judged().filter_map(|m| m.merged_quantile).collect();
        let percentiles: Vec<(f64, Bound)> =
            qs.iter().copied().zip(percentiles(d, h, &qs)).collect();
        // The document's figure rescales the bootstrap's interval: the seconds' sums and the
        // run's totals may differ by a sliver (a second cut short at the stop).
        let scaled = |b: Option<blocks::BlockInterval>, value: Option<f64>| match (b, value) {
            (Some(b), Some(v)) if b.estimate > 0.0 => Bound {
                lo: Some((b.interval.lo * v / b.estimate).max(0.0)),
                hi: Some(b.interval.hi * v / b.estimate),
            },
            (Some(b), Some(_)) => Bound {
                lo: Some(b.interval.lo.max(0.0)),
                hi: Some(b.interval.hi),
            },
            _ => Bound::default(),
        };
        let mut figures = BTreeMap::new();
        for m in judged() {
            let value = metric::load_value(m, d);
            if value.is_none() {
                continue;
            }
            let bound = if let Some(q) = m.merged_quantile {
                percentiles
                    .iter()
                    .find(|(p, _)| *p == q)
                    .map_or_else(Bound::default, |(_, b)| *b)
            } else if m.key == metric::RPS.key {
                scaled(rps, value)
            } else if m.key == metric::LATENCY_MEAN.key {
                scaled(mean, value)
            } else {
                let mut b = scaled(error_pct, value);
                // No error in N attempts bounds the rate by 1 − (α/2)^(1/N) (the exact
                // binomial bound), not by 0: the seconds alone would say [0, 0].
                let outcomes = d.requests + d.errors.total();
                if d.errors.total() == 0 && outcomes > 0 && b.hi.is_some() {
                    let tail = (1.0 - LEVEL) / 2.0;
                    let exact = 100.0 * (1.0 - tail.powf(1.0 / outcomes as f64));
                    b.hi = b.hi.map(|h| h.max(exact));
                }
                b
            };
            figures.insert(m.key.to_string(), bound);
        }
        let any = rps.or(mean).or(error_pct);
        Some(Intervals {
            level: LEVEL,
            seconds: seconds.len(),
            block_s: any.map_or(0, |b| b.block),
            resamples: RESAMPLES,
            seed: SEED,
            responses: n,
            figures,
        })
    }
}

/// The bound of each quantile of `qs` in `d` (whose latency histogram is `h`): the hull of its
/// order-statistic interval and its seconds' bootstrap interval; open where either is (too few
/// responses, or fewer than [`blocks::MIN_SECONDS`] measured seconds).
pub fn percentiles(
    d: &LoadDoc,
    h: Option<&hdrhistogram::Histogram<u64>>,
    qs: &[f64],
) -> Vec<Bound> {
    let open = vec![Bound::default(); qs.len()];
    let Some(h) = h.filter(|h| !h.is_empty()) else {
        return open;
    };
    // Seconds without a histogram (a `barrage.load/1` document) cannot be resampled.
    let hists: Option<Vec<_>> = d
        .series
        .iter()
        .filter(|s| s.phase == Phase::Measure && s.responses > 0)
        .map(|s| crate::hdr::decode(s.hdr.as_deref()?).ok())
        .collect();
    let values: Vec<f64> = qs.iter().map(|&q| h.value_at_quantile(q) as f64).collect();
    let time = hists.and_then(|hs| {
        seconds::quantile_intervals(&hs, qs, &values, LEVEL, PERCENTILE_RESAMPLES, SEED)
    });
    let Some(time) = time else {
        return open;
    };
    qs.iter()
        .zip(time)
        .map(
            |(&q, t)| match (order::hdr_interval(h, q, LEVEL, h.len() as f64), t) {
                (Some(r), Some(t)) => Bound {
                    lo: r.lo.map(|lo| lo.min(t.lo)),
                    hi: r.hi.map(|hi| hi.max(t.hi)),
                },
                _ => Bound::default(),
            },
        )
        .collect()
}

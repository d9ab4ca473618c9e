//! Every compared figure of one load run with an interval from the run's own data (the
//! document's `intervals`, new in `barrage.load/2`):
//!
//! - throughput, mean latency and the error rate: a block bootstrap over the measured seconds
//!   (`stats::blocks`; responses over seconds, summed latency over responses, errors over
//!   attempts), from a fixed seed;
//! - the latency percentiles: order statistics of the run's HDR histogram (`stats::order`), the
//!   binomial ranks of the responses, counted as `responses / design_effect` independent ones.
//!
//! Responses are not independent: a stall of the server, or of the machine, slows many at
//! once. The design effect (Kish) measures that on the one figure both ways can see: the
//! bootstrap variance of the mean latency over its variance were the responses independent
//! (stdev² / n), at least 1. Percentile ranks then rest on the effective number of responses,
//! so a run whose seconds differ gets wider percentile intervals too. A run too short for the
//! bootstrap (under `stats::blocks::MIN_SECONDS` seconds) has no interval for its ratio figures
//! and a design effect of 1 (its percentiles as if responses were independent).

use super::{LoadDoc, Phase};
use crate::metric::{self, Metric};
use crate::stats::{blocks, order};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The confidence level of a document's intervals.
pub const LEVEL: f64 = 0.95;
/// Bootstrap resamples, and their seed ("barrage!").
pub const RESAMPLES: usize = 10_000;
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
    /// How much more the mean latency varies than independent responses would make it (≥ 1).
    pub design_effect: f64,
    /// Responses / design effect: what a percentile's ranks rest on.
    pub effective_responses: u64,
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
        if n == 0 && d.errors.total == 0 {
            return None;
        }
        let iid_var = l.stdev * l.stdev / n.max(1) as f64;
        let design_effect = match mean {
            Some(b) if iid_var > 0.0 => (b.se * b.se / iid_var).max(1.0),
            _ => 1.0,
        };
        let n_eff = n as f64 / design_effect;
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
                h.filter(|h| !h.is_empty())
                    .and_then(|h| order::hdr_interval(h, q, LEVEL, n_eff))
                    .map_or_else(Bound::default, |b| Bound { lo: b.lo, hi: b.hi })
            } else if m.key == metric::RPS.key {
                scaled(rps, value)
            } else if m.key == metric::LATENCY_MEAN.key {
                scaled(mean, value)
            } else {
                let mut b = scaled(error_pct, value);
                // No error in N attempts bounds the rate by 1 − (α/2)^(1/N) (the exact
                // binomial bound), not by 0: the seconds alone would say [0, 0].
                let outcomes = d.requests + d.errors.total;
                if d.errors.total == 0 && outcomes > 0 && b.hi.is_some() {
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
            design_effect,
            effective_responses: n_eff.floor() as u64,
            figures,
        })
    }
}

//! Overload and recovery: for a study whose trials run several open-loop phases (a rate above
//! the server's maximum, then one below it), each phase's target and achieved rate, errors and
//! latency, and for every phase after the first how many seconds the server needed to answer
//! normally again. "Normally" is judged against the phase's own end: a second counts as
//! recovered when it has no errors and its p99 latency is at most twice the median p99 of the
//! phase's last three seconds, or under 10 ms (so that sub-millisecond jitter of a fast server
//! does not count as trouble); a phase whose last three seconds still have errors, or deliver
//! less than 90% of the target rate, did not recover at all.
//!
//! In the lab each phase is its own engine run on fresh connections: what the server still had
//! queued from the overload goes with the old connections, so this measures the server's own
//! recovery (its queues, its accept backlog, a collector catching up), not the generator's.

use super::{cells_order, trials_of};
use crate::load_section::plottable;
use crate::page::Recovery;
use barrage_model::load::{LoadDoc, Second};
use barrage_model::study::Results;

/// One row per phase of every trial with two or more open-loop phases; empty otherwise.
pub fn rows(doc: &Results) -> Vec<Recovery> {
    let mut out = Vec::new();
    for (p, name) in cells_order(doc) {
        for t in trials_of(doc, p, &name) {
            let paced = t.phases.iter().filter(|ph| ph.load.rate.is_some()).count();
            if paced < 2 {
                continue;
            }
            for (i, ph) in t.phases.iter().enumerate() {
                let l = &ph.load;
                let target = l.rate.as_ref().map(|r| r.target_rps);
                out.push(Recovery {
                    contender: name.clone(),
                    trial: (t.trial as usize) + 1,
                    phase: ph.name.clone(),
                    target_rps: target,
                    achieved_rps: l.rate.as_ref().map_or(l.rps, |r| r.achieved_rps),
                    errors: l.errors.total(),
                    breakdown: l.errors.breakdown(),
                    p99_ms: l.latency_us.p99 as f64 / 1000.0,
                    max_ms: l.latency_us.max as f64 / 1000.0,
                    recovered_after_s: if i == 0 {
                        None
                    } else {
                        Some(recovered_after(l, target))
                    },
                });
            }
        }
    }
    out
}

/// Seconds from the phase's start to its first normal second; `None` when it never settled.
/// Each lab phase is its own engine run: its series is its seconds (a warmup, if any, first).
/// A stub of a second is no rate (the plots' rule, `plottable`): older engines ended every run
/// with an empty one, which would read as a second without responses.
pub fn recovered_after(l: &LoadDoc, target: Option<f64>) -> Option<f64> {
    let measured = l.series.last().map(|s| s.phase).unwrap_or_default();
    let secs: Vec<&Second> = l
        .series
        .iter()
        .filter(|s| s.phase == measured && plottable(s.span_s))
        .collect();
    settle(&secs, target)
}

/// A per-second p99 under this is normal whatever the phase's end looks like (µs).
const JITTER_US: f64 = 10_000.0;

/// See the module doc; `secs` are one phase's seconds in order.
pub fn settle(secs: &[&Second], target: Option<f64>) -> Option<f64> {
    if secs.len() < 4 {
        return None;
    }
    let tail = &secs[secs.len() - 3..];
    let span = |s: &Second| if s.span_s > 0.0 { s.span_s } else { 1.0 };
    let tail_rate = tail.iter().map(|s| s.responses as f64).sum::<f64>()
        / tail.iter().map(|s| span(s)).sum::<f64>();
    let steady = tail.iter().all(|s| s.errors == 0) && target.is_none_or(|t| tail_rate >= 0.9 * t);
    if !steady {
        return None;
    }
    let mut p99: Vec<f64> = tail.iter().map(|s| s.p99_us as f64).collect();
    p99.sort_by(f64::total_cmp);
    let normal = (2.0 * p99[1]).max(JITTER_US);
    let mut t = 0.0;
    for s in secs {
        if s.errors == 0 && s.p99_us as f64 <= normal {
            return Some(t);
        }
        t += span(s);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sec(responses: u64, errors: u64, p99_ms: f64) -> Second {
        Second {
            phase: barrage_model::load::Phase::Measure,
            responses,
            errors,
            p99_us: (p99_ms * 1000.0) as u64,
            span_s: 1.0,
            ..Second::default()
        }
    }

    #[test]
    fn settles_at_the_first_normal_second() {
        let s = [
            sec(900, 5, 900.0),
            sec(1500, 0, 400.0),
            sec(1000, 0, 3.0),
            sec(1000, 0, 2.0),
            sec(1000, 0, 2.0),
            sec(1000, 0, 2.5),
        ];
        let v: Vec<&Second> = s.iter().collect();
        assert_eq!(settle(&v, Some(1000.0)), Some(2.0));
        // At once when the first second is already normal.
        assert_eq!(settle(&v[2..], Some(1000.0)), Some(0.0));
    }

    #[test]
    fn jitter_under_ten_milliseconds_is_normal() {
        let s = [
            sec(1000, 0, 8.0),
            sec(1000, 0, 0.4),
            sec(1000, 0, 0.5),
            sec(1000, 0, 0.5),
        ];
        let v: Vec<&Second> = s.iter().collect();
        assert_eq!(settle(&v, Some(1000.0)), Some(0.0));
        let slow = [
            sec(1000, 0, 11.0),
            sec(1000, 0, 0.4),
            sec(1000, 0, 0.5),
            sec(1000, 0, 0.5),
        ];
        let v: Vec<&Second> = slow.iter().collect();
        assert_eq!(settle(&v, Some(1000.0)), Some(1.0));
    }

    #[test]
    fn a_phase_that_ends_with_errors_or_short_of_its_rate_never_recovered() {
        let errors = [
            sec(1000, 0, 2.0),
            sec(1000, 0, 2.0),
            sec(1000, 1, 2.0),
            sec(1000, 0, 2.0),
        ];
        let v: Vec<&Second> = errors.iter().collect();
        assert_eq!(settle(&v, Some(1000.0)), None);
        let short = [
            sec(1000, 0, 2.0),
            sec(500, 0, 2.0),
            sec(500, 0, 2.0),
            sec(500, 0, 2.0),
        ];
        let v: Vec<&Second> = short.iter().collect();
        assert_eq!(settle(&v, Some(1000.0)), None);
        // Too short a phase to judge.
        assert_eq!(settle(&v[..3], Some(1000.0)), None);
    }
}

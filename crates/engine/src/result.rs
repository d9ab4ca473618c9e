//! The run's result: the `barrage.load/1` document (serde) plus, for Rust callers, the merged
//! histograms and the instants of the run's phases.

use crate::config::{Config, Target};
use crate::error::ErrorKind;
use crate::sink::SecondStats;
use crate::stats::{encode_hdr, Counts, LatencySummary, Recorder};
use hdrhistogram::Histogram;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The schema name and version of the JSON document.
pub const SCHEMA: &str = "barrage.load/1";

/// Errors by class. `total` includes connect errors, which belong to no request.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ErrorCounts {
    pub connect: u64,
    pub timeout: u64,
    pub reset: u64,
    pub parse: u64,
    pub status: u64,
    pub body: u64,
    pub total: u64,
}

impl ErrorCounts {
    pub fn from_counts(c: &Counts) -> Self {
        let e = |k: ErrorKind| c.errors[k.index()];
        ErrorCounts {
            connect: e(ErrorKind::Connect),
            timeout: e(ErrorKind::Timeout),
            reset: e(ErrorKind::Reset),
            parse: e(ErrorKind::Parse),
            status: e(ErrorKind::Status),
            body: e(ErrorKind::Body),
            total: c.error_total(),
        }
    }
    /// Errors that ended a written request (all but connect errors).
    pub fn of_requests(&self) -> u64 {
        self.total - self.connect
    }
}

/// Open loop: how well the generator kept the schedule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RateReport {
    pub target_rps: f64,
    /// Requests written per second of the measured window.
    pub achieved_rps: f64,
    /// How late requests went out relative to their intended times, in microseconds.
    pub lateness_us: LatencySummary,
    /// Sends more than 1 ms late although a connection was free (the generator's own delay).
    pub late_by_generator: u64,
    /// True when the generator itself could not keep the schedule (over 1% of sends late by
    /// its own fault): the latencies then measure barrage as much as the target.
    pub generator_bottleneck: bool,
}

/// Where the phases of the run fell, on the monotonic clock (for the lab's sample timeline).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    pub start: Instant,
    pub measure_start: Instant,
    pub measure_end: Instant,
}

/// The result of a run; serialized, it is the `barrage.load/1` document.
#[derive(Debug, Clone, Serialize)]
pub struct RunResult {
    pub schema: &'static str,
    /// Valid responses (status and body as expected).
    pub requests: u64,
    pub requests_written: u64,
    /// Requests written but neither answered nor failed when the run stopped.
    /// `requests_written == requests + errors.total - errors.connect + in_flight`.
    pub in_flight: u64,
    pub connects: u64,
    pub errors: ErrorCounts,
    /// The first message seen for each error class.
    pub error_examples: BTreeMap<String, String>,
    pub duration_s: f64,
    pub rps: f64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// Latency of valid responses (from the intended send time in open loop).
    pub latency_us: LatencySummary,
    /// Open loop only: latency from the actual send time (not corrected).
    pub latency_uncorrected_us: Option<LatencySummary>,
    /// Time to establish connections (TCP connect and TLS handshake).
    pub connect_us: LatencySummary,
    /// Complete responses by status code, valid or not.
    pub status: BTreeMap<String, u64>,
    pub rate: Option<RateReport>,
    /// One record per second of the measured window.
    pub series: Vec<SecondStats>,
    /// `latency_us`'s histogram, HdrHistogram V2 compressed, base64.
    pub hdr: String,
    pub hdr_uncorrected: Option<String>,
    pub threads: usize,
    pub target: Target,
    pub cancelled: bool,
    pub config: Config,
    #[serde(skip)]
    pub histogram: Histogram<u64>,
    #[serde(skip)]
    pub uncorrected_histogram: Option<Histogram<u64>>,
    #[serde(skip)]
    pub timing: Timing,
}

pub(crate) struct Parts {
    pub rec: Recorder,
    pub in_flight: u64,
    pub series: Vec<SecondStats>,
    pub timing: Timing,
    pub cfg: Config,
    pub target: Target,
    pub threads: usize,
    pub cancelled: bool,
}

impl RunResult {
    pub(crate) fn build(p: Parts) -> RunResult {
        let Parts {
            rec,
            in_flight,
            series,
            timing,
            cfg,
            target,
            threads,
            cancelled,
        } = p;
        let dur = timing
            .measure_end
            .saturating_duration_since(timing.measure_start);
        let secs = dur.as_secs_f64();
        let per_s = |n: u64| if secs > 0.0 { n as f64 / secs } else { 0.0 };
        let c = &rec.counts;
        let open = cfg.rate.is_some();
        let rate = cfg.rate.map(|target_rps| RateReport {
            target_rps,
            achieved_rps: per_s(c.written),
            lateness_us: LatencySummary::of(&rec.lateness),
            late_by_generator: c.late_by_generator,
            generator_bottleneck: c.late_by_generator * 100 > c.written.max(1),
        });
        let status = rec
            .status
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(code, &n)| (code.to_string(), n))
            .collect();
        let error_examples = ErrorKind::ALL
            .iter()
            .filter_map(|k| {
                rec.examples[k.index()]
                    .clone()
                    .map(|m| (k.name().to_string(), m))
            })
            .collect();
        RunResult {
            schema: SCHEMA,
            requests: c.responses,
            requests_written: c.written,
            in_flight,
            connects: c.connects,
            errors: ErrorCounts::from_counts(c),
            error_examples,
            duration_s: secs,
            rps: per_s(c.responses),
            bytes_read: c.bytes_read,
            bytes_written: c.bytes_written,
            latency_us: LatencySummary::of(&rec.latency),
            latency_uncorrected_us: open.then(|| LatencySummary::of(&rec.uncorrected)),
            connect_us: LatencySummary::of(&rec.connect),
            status,
            rate,
            series,
            hdr: encode_hdr(&rec.latency),
            hdr_uncorrected: open.then(|| encode_hdr(&rec.uncorrected)),
            threads,
            target,
            cancelled,
            config: cfg,
            uncorrected_histogram: open.then(|| rec.uncorrected.clone()),
            histogram: rec.latency,
            timing,
        }
    }

    /// The measured window's length.
    pub fn duration(&self) -> Duration {
        self.timing
            .measure_end
            .saturating_duration_since(self.timing.measure_start)
    }
}

//! The run's result: the `barrage.load/2` document (`barrage_model::load::LoadDoc`, built here,
//! declared once in the model) plus, for Rust callers, the typed config and target, the merged
//! histograms and the instants of the run's phases.

use crate::config::{Config, Target};
use crate::recorder::{encode_hdr, LatencySummary, Recorder};
use crate::sink::SecondStats;
use barrage_model::load::{ErrorClass, LoadDoc, ProtocolFigures, TargetFigures};
use hdrhistogram::Histogram;
use serde::{Serialize, Serializer};
use std::time::{Duration, Instant};

/// How well an open-loop run kept its schedule: the document's type.
pub use barrage_model::load::Rate as RateReport;
pub use barrage_model::load::SCHEMA;

/// Each target's figures, from its record.
fn target_figures(infos: Vec<(String, String, usize)>, rec: &Recorder) -> Vec<TargetFigures> {
    infos
        .into_iter()
        .zip(&rec.targets)
        .map(|((method, url, line), t)| {
            let mut status: Vec<_> = t.status.clone();
            status.sort_unstable();
            TargetFigures {
                method,
                url,
                line,
                requests: t.responses,
                errors: t.errors,
                status: status.iter().map(|(k, n)| (k.to_string(), *n)).collect(),
                latency_us: LatencySummary::of(&t.latency),
                hdr: Some(encode_hdr(&t.latency)),
            }
        })
        .collect()
}

/// Where the phases of the run fell, on the monotonic clock (for the lab's sample timeline).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    pub start: Instant,
    pub measure_start: Instant,
    pub measure_end: Instant,
}

/// The result of a run: its `barrage.load/2` document (also reachable through `Deref`, so
/// `r.requests` reads the document) and what only Rust callers need. Serialized, it is the
/// document.
#[derive(Debug, Clone)]
pub struct RunResult {
    pub doc: LoadDoc,
    /// The configuration as run (the document holds it as JSON).
    pub config: Config,
    pub target: Target,
    pub histogram: Histogram<u64>,
    pub uncorrected_histogram: Option<Histogram<u64>>,
    pub timing: Timing,
    /// `--script`: what it printed (setup, the threads, done) and a hook's error that ended
    /// the run.
    pub script: Option<crate::ScriptOutput>,
}

impl std::ops::Deref for RunResult {
    type Target = LoadDoc;
    fn deref(&self) -> &LoadDoc {
        &self.doc
    }
}

impl Serialize for RunResult {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.doc.serialize(s)
    }
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
    /// `--http2` runs: the protocol spoken (`h2`, `h2c`, or `http/1.1` when ALPN chose it).
    pub protocol: Option<String>,
    /// `--targets` runs: (method, URL, line) of each target, as `rec.targets`.
    pub targets: Vec<(String, String, usize)>,
    /// When the load started, Unix seconds.
    pub started_unix: f64,
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
            protocol,
            targets,
            started_unix,
        } = p;
        let dur = timing
            .measure_end
            .saturating_duration_since(timing.measure_start);
        let secs = dur.as_secs_f64();
        let per_s = |n: u64| if secs > 0.0 { n as f64 / secs } else { 0.0 };
        let c = &rec.counts;
        // Stages: the target is the schedule's mean rate over the measured window.
        let scheduled = if cfg.stages.is_empty() {
            cfg.rate
        } else {
            let v: Vec<_> = cfg.stages.iter().map(|s| (s.duration, s.target)).collect();
            let st = crate::pacer::Stages::new(&v);
            let w = cfg.warmup.as_secs_f64();
            let span = st.duration().as_secs_f64() - w;
            Some((st.total() - st.count(w)) / span.max(f64::MIN_POSITIVE))
        };
        // A shard keeps its share of the schedule.
        let scheduled = scheduled.map(|r| r / f64::from(cfg.shard.map_or(1, |s| s.count)));
        let open = scheduled.is_some();
        let rate = scheduled.map(|target_rps| RateReport {
            target_rps,
            achieved_rps: per_s(c.written),
            lateness_us: LatencySummary::of(&rec.lateness),
            hdr_lateness: Some(encode_hdr(&rec.lateness)),
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
        let error_examples = ErrorClass::ALL
            .iter()
            .filter_map(|k| {
                rec.examples[k.index()]
                    .clone()
                    .map(|m| (k.name().to_string(), m))
            })
            .collect();
        let doc = LoadDoc {
            schema: SCHEMA.to_string(),
            requests: c.responses,
            requests_written: c.written,
            in_flight,
            connects: c.connects,
            errors: c.errors,
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
            hdr: Some(encode_hdr(&rec.latency)),
            hdr_uncorrected: open.then(|| encode_hdr(&rec.uncorrected)),
            threads,
            target: serde_json::to_value(&target).unwrap_or_default(),
            cancelled,
            config: serde_json::to_value(&cfg).unwrap_or_default(),
            protocol: rec
                .proto
                .figures(&cfg.protocol, protocol.as_deref(), c.written)
                .map(|f| with_messages(f, &rec.messages)),
            targets: target_figures(targets, &rec),
            thresholds: Vec::new(),
            started_unix,
            hdr_connect: Some(encode_hdr(&rec.connect)),
            merged: None,
            intervals: None,
        };
        let intervals =
            barrage_model::load::intervals::Intervals::compute(&doc, Some(&rec.latency));
        let doc = LoadDoc { intervals, ..doc };
        RunResult {
            doc,
            config: cfg,
            target,
            uncorrected_histogram: open.then(|| rec.uncorrected.clone()),
            histogram: rec.latency,
            timing,
            script: None,
        }
    }

    /// The measured window's length.
    pub fn duration(&self) -> Duration {
        self.timing
            .measure_end
            .saturating_duration_since(self.timing.measure_start)
    }
}

/// A gRPC run's section with its reply messages' latency (the sessions count the messages,
/// the workers time them); another protocol's as it is.
fn with_messages(f: ProtocolFigures, messages: &Histogram<u64>) -> ProtocolFigures {
    match f {
        ProtocolFigures::Grpc(g) => ProtocolFigures::Grpc(barrage_model::load::Grpc {
            message_latency_us: Some(LatencySummary::of(messages)),
            hdr_message: Some(encode_hdr(messages)),
            ..g
        }),
        f => f,
    }
}

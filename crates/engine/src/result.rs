//! The run's result: the `barrage.load/2` document (`barrage_model::load::LoadDoc`, built here,
//! declared once in the model) plus, for Rust callers, the typed config and target, the merged
//! histograms and the instants of the run's phases.

use crate::config::{Config, Target};
use crate::error::ErrorKind;
use crate::recorder::{encode_hdr, Counts, LatencySummary, Recorder};
use crate::sink::SecondStats;
use barrage_model::load::{LoadDoc, Protocol, TargetFigures};
use hdrhistogram::Histogram;
use serde::{Serialize, Serializer};
use std::time::{Duration, Instant};

pub use barrage_model::load::SCHEMA;
/// Errors by class (`total` includes connect and unasked errors, which belong to no request), and how well
/// an open-loop run kept its schedule: the document's types.
pub use barrage_model::load::{Errors as ErrorCounts, Http2 as Http2Report, Rate as RateReport};

/// The errors of a run's counters.
pub fn error_counts(c: &Counts) -> ErrorCounts {
    let e = |k: ErrorKind| c.errors[k.index()];
    ErrorCounts {
        connect: e(ErrorKind::Connect),
        timeout: e(ErrorKind::Timeout),
        reset: e(ErrorKind::Reset),
        parse: e(ErrorKind::Parse),
        status: e(ErrorKind::Status),
        body: e(ErrorKind::Body),
        rst_stream: e(ErrorKind::StreamReset),
        protocol: e(ErrorKind::Protocol),
        header_too_large: e(ErrorKind::HeaderTooLarge),
        message_too_large: e(ErrorKind::MessageTooLarge),
        unasked: e(ErrorKind::Unasked),
        total: c.error_total(),
    }
}

/// The `http2` part of the document from the workers' counts.
fn http2_report(protocol: String, rec: &Recorder, cfg: &Config) -> barrage_model::load::Http2 {
    let h = &rec.proto.h2;
    let rst_stream = h
        .rst_by_code
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(code, &n)| {
            let name = barrage_wire::h2::ErrorCode::from_u32(code as u32).name();
            (name.to_string(), n)
        })
        .collect();
    let saving = if h.header_bytes_decoded > 0 {
        1.0 - h.header_bytes_received as f64 / h.header_bytes_decoded as f64
    } else {
        0.0
    };
    barrage_model::load::Http2 {
        protocol,
        streams_asked: cfg.protocol.streams() as u32,
        server_stream_limit: (h.min_limit != u32::MAX).then_some(h.min_limit),
        capped_connections: h.capped,
        streams: h.streams,
        connections: h.connections,
        header_bytes_received: h.header_bytes_received,
        header_bytes_decoded: h.header_bytes_decoded,
        hpack_saving: saving,
        rst_stream,
        goaways: h.goaways,
        retried: h.retried,
    }
}

/// The `http3` part of the document from the workers' counts.
fn http3_report(rec: &Recorder, cfg: &Config) -> barrage_model::load::Http3 {
    let h = &rec.proto.h3;
    let per = |n: u64, d: u64| if d > 0 { n as f64 / d as f64 } else { 0.0 };
    barrage_model::load::Http3 {
        streams_asked: cfg.protocol.streams(),
        connections: h.connections,
        handshakes: h.handshakes,
        handshake_mean_us: per(h.handshake_us, h.handshakes),
        streams: h.streams,
        datagrams_sent: h.datagrams_sent,
        datagrams_received: h.datagrams_received,
        datagrams_per_request: per(h.datagrams_sent + h.datagrams_received, rec.counts.written),
        packets_sent: h.packets_sent,
        packets_lost: h.packets_lost,
        bytes_lost: h.bytes_lost,
        congestion_events: h.congestion_events,
        goaways: h.goaways,
        retried: h.retried,
        qpack_inserts: h.qpack_inserts,
    }
}

/// The `ws` part of the document from the workers' counts.
fn ws_report(rec: &Recorder) -> barrage_model::load::Ws {
    let w = &rec.proto.ws;
    barrage_model::load::Ws {
        handshakes: w.handshakes,
        handshake_mean_us: if w.handshakes > 0 {
            w.handshake_ns as f64 / w.handshakes as f64 / 1000.0
        } else {
            0.0
        },
        closes: w.closes.iter().map(|(c, n)| (c.to_string(), *n)).collect(),
    }
}

/// Each target's figures, from its record.
fn target_figures(infos: Vec<(String, String, usize)>, rec: &Recorder) -> Vec<TargetFigures> {
    infos
        .into_iter()
        .zip(&rec.targets)
        .map(|((method, url, line), t)| {
            let mut c = Counts {
                errors: t.errors,
                ..Counts::default()
            };
            c.responses = t.responses;
            let mut status: Vec<_> = t.status.clone();
            status.sort_unstable();
            TargetFigures {
                method,
                url,
                line,
                requests: t.responses,
                errors: error_counts(&c),
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
        let error_examples = ErrorKind::ALL
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
            errors: error_counts(c),
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
            http2: protocol.map(|protocol| http2_report(protocol, &rec, &cfg)),
            ws: cfg.protocol.is_ws().then(|| ws_report(&rec)),
            http3: matches!(cfg.protocol, Protocol::Http3 { .. }).then(|| http3_report(&rec, &cfg)),
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
        }
    }

    /// The measured window's length.
    pub fn duration(&self) -> Duration {
        self.timing
            .measure_end
            .saturating_duration_since(self.timing.measure_start)
    }
}

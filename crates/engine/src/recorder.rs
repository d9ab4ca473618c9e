//! Recording: per-worker HDR histograms and counters, per-second intervals, and the summaries
//! computed from merged histograms. Nothing here allocates per request.

use barrage_model::load::{ErrorClass, Errors};
use barrage_wire::client::Counts as ProtoCounts;

use hdrhistogram::Histogram;
use std::time::Duration;

/// Highest value a histogram holds: one hour in microseconds.
pub const HIST_MAX_US: u64 = 3_600_000_000;

/// A latency histogram in microseconds, 1 µs to 1 h, 3 significant figures.
pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, HIST_MAX_US, 3).expect("constant histogram bounds are valid")
}

/// Microseconds of a duration, at least 1 (the histogram's lowest value) and at most 1 h.
pub fn micros(d: Duration) -> u64 {
    (d.as_micros().min(u128::from(HIST_MAX_US)) as u64).max(1)
}

/// Counters of one worker (or, merged, of the run).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    pub responses: u64,
    pub written: u64,
    pub errors: Errors,
    pub connects: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// Open loop: sends that went out more than 1 ms late although a connection was free.
    pub late_by_generator: u64,
}

impl Counts {
    pub fn add(&mut self, o: &Counts) {
        self.responses += o.responses;
        self.written += o.written;
        self.errors.add(&o.errors);
        self.connects += o.connects;
        self.bytes_read += o.bytes_read;
        self.bytes_written += o.bytes_written;
        self.late_by_generator += o.late_by_generator;
    }
}

/// Everything a worker measures over the measured window.
#[derive(Debug, Clone)]
pub struct Recorder {
    pub counts: Counts,
    /// Latency of valid responses (from the intended send time in open loop).
    pub latency: Histogram<u64>,
    /// Open loop: latency from the actual send time.
    pub uncorrected: Histogram<u64>,
    /// Open loop: how late each request went out.
    pub lateness: Histogram<u64>,
    /// Time to establish each connection (TCP and TLS).
    pub connect: Histogram<u64>,
    /// gRPC: each reply message's latency, from its call's start as `latency` counts it.
    pub messages: Histogram<u64>,
    /// Complete responses by status code (valid or not).
    pub status: Vec<u64>,
    /// The first message seen for each error class, to tell the user what went wrong.
    pub examples: [Option<String>; ErrorClass::COUNT],
    /// What each protocol counts beyond requests (HTTP/2's resets, GOAWAYs, streams...), as its
    /// client sessions count it; the recorder only adds them up.
    pub proto: ProtoCounts,
    /// `--targets` runs: each target's figures (indexed as the run's requests; empty else).
    pub targets: Vec<TargetRec>,
}

/// What one target of a `--targets` run got.
#[derive(Debug, Clone)]
pub struct TargetRec {
    /// Valid responses.
    pub responses: u64,
    pub errors: Errors,
    /// (status, responses), in the order first seen: a target sees few codes.
    pub status: Vec<(u16, u64)>,
    /// Latency of valid responses, µs, 2 significant figures, growing as needed: a thousand
    /// targets per worker stay a few MiB.
    pub latency: Histogram<u64>,
}

impl Default for TargetRec {
    fn default() -> Self {
        TargetRec {
            responses: 0,
            errors: Errors::default(),
            status: Vec::new(),
            latency: Histogram::new(2).expect("2 significant figures are valid"),
        }
    }
}

impl TargetRec {
    fn add(&mut self, o: &TargetRec) {
        self.responses += o.responses;
        self.errors.add(&o.errors);
        for &(code, n) in &o.status {
            self.count_status(code, n);
        }
        // Auto-resizing histograms grow to take any other's values.
        let _ = self.latency.add(&o.latency);
    }

    fn count_status(&mut self, code: u16, n: u64) {
        match self.status.iter_mut().find(|(c, _)| *c == code) {
            Some((_, m)) => *m += n,
            None => self.status.push((code, n)),
        }
    }
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder {
            counts: Counts::default(),
            latency: new_histogram(),
            uncorrected: new_histogram(),
            lateness: new_histogram(),
            connect: new_histogram(),
            messages: new_histogram(),
            status: vec![0; 1000],
            examples: Default::default(),
            proto: ProtoCounts::default(),
            targets: Vec::new(),
        }
    }
}

impl Recorder {
    pub fn reset(&mut self) {
        self.counts = Counts::default();
        self.latency.reset();
        self.uncorrected.reset();
        self.lateness.reset();
        self.connect.reset();
        self.messages.reset();
        self.status.iter_mut().for_each(|s| *s = 0);
        self.examples = Default::default();
        self.proto = ProtoCounts::default();
        let n = self.targets.len();
        self.targets.clear();
        self.targets.resize_with(n, TargetRec::default);
    }

    /// A recorder keeping figures for `n` targets.
    pub fn with_targets(n: usize) -> Recorder {
        let mut r = Recorder::default();
        r.targets.resize_with(n, TargetRec::default);
        r
    }

    /// A measured request of target `t` failed (no-op without per-target figures).
    pub fn target_error(&mut self, t: u32, kind: ErrorClass) {
        if let Some(r) = self.targets.get_mut(t as usize) {
            r.errors.count(kind, 1);
        }
    }

    /// A measured response to target `t`: its status, and its latency when valid (`error`
    /// None).
    pub fn target_done(&mut self, t: u32, status: u16, error: Option<ErrorClass>, lat: u64) {
        let Some(r) = self.targets.get_mut(t as usize) else {
            return;
        };
        r.count_status(status, 1);
        match error {
            Some(k) => r.errors.count(k, 1),
            None => {
                r.responses += 1;
                let _ = r.latency.record(lat);
            }
        }
    }

    pub fn error(&mut self, kind: ErrorClass, n: u64, why: impl FnOnce() -> String) {
        self.counts.errors.count(kind, n);
        let ex = &mut self.examples[kind.index()];
        if ex.is_none() {
            *ex = Some(why());
        }
    }

    pub fn merge(&mut self, o: &Recorder) {
        self.counts.add(&o.counts);
        // Same bounds everywhere, so adding cannot fail.
        let _ = self.latency.add(&o.latency);
        let _ = self.uncorrected.add(&o.uncorrected);
        let _ = self.lateness.add(&o.lateness);
        let _ = self.connect.add(&o.connect);
        let _ = self.messages.add(&o.messages);
        for (a, b) in self.status.iter_mut().zip(&o.status) {
            *a += b;
        }
        self.proto.add(&o.proto);
        if self.targets.len() < o.targets.len() {
            self.targets
                .resize_with(o.targets.len(), TargetRec::default);
        }
        for (a, b) in self.targets.iter_mut().zip(&o.targets) {
            a.add(b);
        }
        for (a, b) in self.examples.iter_mut().zip(&o.examples) {
            if a.is_none() {
                a.clone_from(b);
            }
        }
    }
}

/// Distribution summary of a histogram in microseconds: the document's type.
pub use barrage_model::load::Latency as LatencySummary;

/// The histogram in the V2 compressed (deflate) encoding, base64, and back: the model's codec.
pub use barrage_model::hdr::encode as encode_hdr;

/// Reads a histogram written by [`encode_hdr`].
pub fn decode_hdr(s: &str) -> Option<Histogram<u64>> {
    barrage_model::hdr::decode(s).ok()
}

/// One worker's second (or, merged, the run's): its counters and latency histogram, and what
/// only live views and metrics read (errors by class, status codes, bytes written, the gauges
/// at its end). Counted as the series counts: in the measured window only what the run's
/// totals count, so the measured seconds add up to the document's figures.
#[derive(Debug, Clone)]
pub struct Interval {
    pub responses: u64,
    /// Errors by class (the second's errors are their total).
    pub errors: Errors,
    pub written: u64,
    pub bytes_read: u64,
    pub latency: Histogram<u64>,
    /// Complete responses by status code (valid or not), in the order first seen.
    pub status: Vec<(u16, u64)>,
    pub bytes_written: u64,
    /// Gauges at the second's end: requests in flight, connections open (ready).
    pub in_flight: u64,
    pub open: u64,
}

impl Default for Interval {
    fn default() -> Self {
        Interval {
            responses: 0,
            errors: Errors::default(),
            written: 0,
            bytes_read: 0,
            latency: new_histogram(),
            status: Vec::new(),
            bytes_written: 0,
            in_flight: 0,
            open: 0,
        }
    }
}

impl Interval {
    pub fn merge(&mut self, o: &Interval) {
        self.responses += o.responses;
        self.errors.add(&o.errors);
        self.written += o.written;
        self.bytes_read += o.bytes_read;
        let _ = self.latency.add(&o.latency);
        for &(code, n) in &o.status {
            self.count_status(code, n);
        }
        self.bytes_written += o.bytes_written;
        self.in_flight += o.in_flight;
        self.open += o.open;
    }

    /// Counts `n` errors of class `kind`.
    pub fn error(&mut self, kind: ErrorClass, n: u64) {
        self.errors.count(kind, n);
    }

    /// Counts `n` responses with status `code` (a second sees few codes: a short list).
    pub fn count_status(&mut self, code: u16, n: u64) {
        match self.status.iter_mut().find(|(c, _)| *c == code) {
            Some((_, m)) => *m += n,
            None => self.status.push((code, n)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_and_roundtrip() {
        let mut h = new_histogram();
        for v in 1..=1000u64 {
            h.record(v).unwrap();
        }
        let s = LatencySummary::of(&h);
        assert_eq!((s.count, s.min, s.max, s.p50), (1000, 1, 1000, 500));
        assert!((s.mean - 500.5).abs() < 0.01);
        assert_eq!(s.p99, 990);
        let back = decode_hdr(&encode_hdr(&h)).unwrap();
        assert_eq!(back, h);
        assert_eq!(LatencySummary::of(&new_histogram()).count, 0);
    }

    #[test]
    fn micros_clamps() {
        assert_eq!(micros(Duration::ZERO), 1);
        assert_eq!(micros(Duration::from_millis(3)), 3000);
        assert_eq!(micros(Duration::from_secs(10_000)), HIST_MAX_US);
    }

    #[test]
    fn merge_adds() {
        let mut a = Recorder::default();
        let mut b = Recorder::default();
        a.counts.responses = 2;
        b.counts.responses = 3;
        b.error(ErrorClass::Timeout, 2, || "t".into());
        b.status[200] = 3;
        b.latency.record(7).unwrap();
        a.merge(&b);
        assert_eq!(a.counts.responses, 5);
        assert_eq!(a.counts.errors.total(), 2);
        assert_eq!(
            a.examples[ErrorClass::Timeout.index()].as_deref(),
            Some("t")
        );
        assert_eq!(a.status[200], 3);
        assert_eq!(a.latency.len(), 1);
    }

    #[test]
    fn intervals_merge_by_class_and_status() {
        let mut a = Interval::default();
        let mut b = Interval::default();
        a.error(ErrorClass::Timeout, 2);
        a.count_status(200, 3);
        b.error(ErrorClass::Timeout, 1);
        b.error(ErrorClass::Reset, 4);
        b.count_status(500, 1);
        b.count_status(200, 2);
        (a.in_flight, b.in_flight, b.open) = (1, 2, 5);
        a.merge(&b);
        assert_eq!(a.errors.total(), 7);
        assert_eq!(a.errors[ErrorClass::Timeout], 3);
        assert_eq!(a.errors[ErrorClass::Reset], 4);
        assert_eq!(a.status, vec![(200, 5), (500, 1)]);
        assert_eq!((a.in_flight, a.open), (3, 5));
    }

    #[test]
    fn targets_merge_exactly() {
        let mut a = Recorder::with_targets(2);
        let mut b = Recorder::with_targets(2);
        a.target_done(0, 200, None, 100);
        a.target_done(1, 500, Some(ErrorClass::Status), 5);
        b.target_done(1, 200, None, 3_000_000);
        b.target_done(1, 500, Some(ErrorClass::Status), 5);
        b.target_error(1, ErrorClass::Timeout);
        b.target_error(7, ErrorClass::Timeout); // no such target: ignored
        a.merge(&b);
        let t1 = &a.targets[1];
        assert_eq!(t1.responses, 1);
        assert_eq!(t1.status, vec![(500, 2), (200, 1)]);
        assert_eq!(t1.errors[ErrorClass::Status], 2);
        assert_eq!(t1.errors[ErrorClass::Timeout], 1);
        // 2 significant figures: within 1% of the value recorded.
        let max = t1.latency.max();
        assert!(max.abs_diff(3_000_000) <= 30_000, "{max}");
        assert_eq!(a.targets[0].latency.len(), 1);
        a.reset();
        assert_eq!(a.targets.len(), 2);
        assert_eq!(a.targets[1].responses, 0);
        assert!(a.targets[1].latency.is_empty());
    }
}

//! What a load has done so far, added up from the engine's live seconds
//! ([`barrage_engine::Live`]): the one state that the live view (`load/live.rs`) and the
//! metrics endpoint (`metrics.rs`) read, so that neither keeps counts of its own. The measured
//! phase's totals are the run's document's (valid responses, errors by class, status codes,
//! bytes read). Also [`Tee`], which hands every record to several sinks.

use barrage_engine::{Live, Phase, SecondStats, Sink};
use barrage_model::load::Errors;
use hdrhistogram::Histogram;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

/// Seconds of history kept for the live view's charts.
const HISTORY: usize = 600;

/// One phase's sums.
#[derive(Debug, Clone)]
pub struct Totals {
    /// Valid responses.
    pub responses: u64,
    pub written: u64,
    /// Errors by class.
    pub errors: Errors,
    /// Complete responses by status code (valid or not).
    pub status: BTreeMap<u16, u64>,
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// Latency of valid responses, µs.
    pub latency: Histogram<u64>,
    /// Seconds recorded (the last may be partial).
    pub seconds: f64,
}

impl Default for Totals {
    fn default() -> Self {
        Totals {
            responses: 0,
            written: 0,
            errors: Errors::default(),
            status: BTreeMap::new(),
            bytes_read: 0,
            bytes_written: 0,
            latency: barrage_engine::recorder::new_histogram(),
            seconds: 0.0,
        }
    }
}

impl Totals {
    fn add(&mut self, l: &Live<'_>) {
        let s = l.second;
        self.responses += s.responses;
        self.written += s.requests_written;
        self.errors.add(l.errors());
        for &(code, n) in l.status() {
            *self.status.entry(code).or_default() += n;
        }
        self.bytes_read += s.bytes_read;
        self.bytes_written += l.bytes_written();
        // Same bounds, so adding cannot fail.
        let _ = self.latency.add(l.latency());
        self.seconds += s.span_s;
    }
}

/// The state so far.
#[derive(Debug, Clone)]
pub struct State {
    pub phase: Phase,
    /// When the run started (None before it).
    pub started: Option<Instant>,
    /// When the measured phase began (None before it).
    pub measure_from: Option<Instant>,
    pub warmup: Totals,
    pub measure: Totals,
    /// Gauges at the end of the last second.
    pub in_flight: u64,
    pub connections: u64,
    /// The last seconds (at most [`HISTORY`]), both phases, oldest first.
    pub recent: VecDeque<SecondStats>,
}

impl State {
    /// The totals of a phase (Done reads as the measured phase).
    pub fn totals(&self, phase: Phase) -> &Totals {
        match phase {
            Phase::Warmup => &self.warmup,
            _ => &self.measure,
        }
    }
}

/// The shared state, fed as a [`Sink`].
pub struct Figures(Mutex<State>);

impl Figures {
    pub fn new() -> Self {
        Figures(Mutex::new(State {
            phase: Phase::Warmup,
            started: None,
            measure_from: None,
            warmup: Totals::default(),
            measure: Totals::default(),
            in_flight: 0,
            connections: 0,
            recent: VecDeque::new(),
        }))
    }

    /// The state (held briefly: the engine's coordinating thread waits for it).
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Default for Figures {
    fn default() -> Self {
        Figures::new()
    }
}

impl Sink for Figures {
    fn live(&self, l: &Live<'_>) {
        let mut st = self.lock();
        match l.second.phase {
            Phase::Warmup => st.warmup.add(l),
            _ => st.measure.add(l),
        }
        if st.phase != Phase::Done {
            st.phase = l.second.phase;
        }
        st.in_flight = l.in_flight();
        st.connections = l.connections();
        if st.recent.len() == HISTORY {
            st.recent.pop_front();
        }
        st.recent.push_back(l.second.clone());
    }

    fn phase(&self, phase: Phase, at: Instant) {
        let mut st = self.lock();
        // The run's first phase starts it.
        st.started.get_or_insert(at);
        if phase == Phase::Measure {
            st.measure_from = Some(at);
        }
        st.phase = phase;
    }
}

/// Hands every record to each of its sinks, in order.
pub struct Tee<'a>(pub Vec<&'a dyn Sink>);

impl Sink for Tee<'_> {
    fn second(&self, s: &SecondStats) {
        self.0.iter().for_each(|k| k.second(s));
    }
    fn live(&self, l: &Live<'_>) {
        self.0.iter().for_each(|k| k.live(l));
    }
    fn phase(&self, phase: Phase, at: Instant) {
        self.0.iter().for_each(|k| k.phase(phase, at));
    }
}

//! `--threshold` and `--abort-on-fail`: the thresholds a run must meet (the grammar and the
//! evaluation are the model's, `barrage_model::threshold`), a sink that stops the run once one
//! can no longer pass, and k6's exit status 99 when any failed.

use barrage_engine::{Cancel, Phase, SecondStats, Sink};
use barrage_model::threshold::{self, Outcome, Threshold};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// k6's exit status for a broken threshold.
pub const EXIT_THRESHOLD: u8 = crate::exit::THRESHOLD;

/// Passes every record on to `inner` and, with `--abort-on-fail`, cancels the run when a
/// threshold breaks for good (an error count past its bound, a second's p99 above a bound on
/// `max`), saying which.
pub struct AbortOnFail<'a> {
    pub inner: &'a dyn Sink,
    pub thresholds: &'a [Threshold],
    pub cancel: Cancel,
    errors: AtomicU64,
    worst_p99: AtomicU64,
    /// The threshold that stopped the run.
    pub broke: Mutex<Option<String>>,
}

impl<'a> AbortOnFail<'a> {
    pub fn new(inner: &'a dyn Sink, thresholds: &'a [Threshold], cancel: Cancel) -> Self {
        AbortOnFail {
            inner,
            thresholds,
            cancel,
            errors: AtomicU64::new(0),
            worst_p99: AtomicU64::new(0),
            broke: Mutex::new(None),
        }
    }
}

impl Sink for AbortOnFail<'_> {
    fn second(&self, s: &SecondStats) {
        self.inner.second(s);
        self.check(s);
    }
    fn live(&self, l: &barrage_engine::Live<'_>) {
        self.inner.live(l);
        self.check(l.second);
    }
    fn phase(&self, phase: Phase, at: Instant) {
        self.inner.phase(phase, at);
    }
}

impl AbortOnFail<'_> {
    /// Cancels the run when a threshold can no longer pass.
    fn check(&self, s: &SecondStats) {
        if s.phase != Phase::Measure {
            return;
        }
        let errors = self.errors.fetch_add(s.errors, Ordering::Relaxed) + s.errors;
        let worst = self
            .worst_p99
            .fetch_max(s.p99_us, Ordering::Relaxed)
            .max(s.p99_us);
        if let Some(t) = self
            .thresholds
            .iter()
            .find(|t| threshold::broken_early(t, errors, worst))
        {
            let mut broke = self.broke.lock().unwrap_or_else(|e| e.into_inner());
            if broke.is_none() {
                *broke = Some(t.expr.clone());
                self.cancel.cancel();
            }
        }
    }
}

/// The exit status a document's thresholds call for: 99 (k6's) with a line naming the broken
/// ones, else success.
pub fn exit_status(outcomes: &[Outcome]) -> std::process::ExitCode {
    let failed: Vec<&str> = outcomes
        .iter()
        .filter(|t| !t.pass)
        .map(|t| t.expr.as_str())
        .collect();
    if failed.is_empty() {
        return std::process::ExitCode::SUCCESS;
    }
    eprintln!("barrage: threshold failed: {}", failed.join(", "));
    std::process::ExitCode::from(EXIT_THRESHOLD)
}

/// The summary's lines for `outcomes`.
pub fn lines(outcomes: &[Outcome], aborted: Option<&str>) -> String {
    let mut o = String::from("Thresholds:\n");
    for t in outcomes {
        o.push_str(&format!("  {t}\n"));
    }
    if outcomes.iter().any(|t| t.confident == Some(false)) {
        o.push_str("  ?: the run's own data cannot tell whether that bound holds (its interval straddles it); a longer run can. The exit status follows the measured value.\n");
    }
    if let Some(expr) = aborted {
        o.push_str(&format!(
            "  run stopped early: {expr} could no longer pass (--abort-on-fail)\n"
        ));
    }
    o
}

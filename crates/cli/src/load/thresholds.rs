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

/// The exit status a document's thresholds call for, with a line naming the thresholds
/// behind it: 99 (k6's) when one failed with confidence; else 3 when one cannot be judged with
/// confidence (`ok?`, `FAIL?`: its interval straddles the bound or is open), unless
/// `allow_inconclusive`, under which such a threshold follows its measured value (99 when it
/// fails); else success.
pub fn exit_status(outcomes: &[Outcome], allow_inconclusive: bool) -> std::process::ExitCode {
    let (code, line) = status(outcomes, allow_inconclusive);
    if let Some(line) = line {
        eprintln!("barrage: {line}");
    }
    std::process::ExitCode::from(code)
}

/// [`exit_status`]'s decision: the code and the line saying why.
fn status(outcomes: &[Outcome], allow_inconclusive: bool) -> (u8, Option<String>) {
    let unsure = |t: &&Outcome| t.confident == Some(false);
    let names = |ts: Vec<&Outcome>| {
        ts.iter()
            .map(|t| t.expr.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let failed: Vec<&Outcome> = outcomes
        .iter()
        .filter(|t| !t.pass && (allow_inconclusive || !unsure(t)))
        .collect();
    if !failed.is_empty() {
        return (
            EXIT_THRESHOLD,
            Some(format!("threshold failed: {}", names(failed))),
        );
    }
    let inconclusive: Vec<&Outcome> = outcomes.iter().filter(unsure).collect();
    if !inconclusive.is_empty() && !allow_inconclusive {
        return (
            crate::exit::INCONCLUSIVE,
            Some(format!(
                "threshold cannot be judged with confidence: {} (run longer, or --allow-inconclusive to judge by the measured value)",
                names(inconclusive)
            )),
        );
    }
    (crate::exit::OK, None)
}

/// The summary's lines for `outcomes`.
pub fn lines(outcomes: &[Outcome], aborted: Option<&str>) -> String {
    let mut o = String::from("Thresholds:\n");
    for t in outcomes {
        o.push_str(&format!("  {t}\n"));
    }
    if outcomes.iter().any(|t| t.confident == Some(false)) {
        o.push_str("  ?: the run's own data cannot tell whether that bound holds (its interval straddles it); a longer run can. The exit status is 3 for it unless --allow-inconclusive, which follows the measured value.\n");
    }
    if let Some(expr) = aborted {
        o.push_str(&format!(
            "  run stopped early: {expr} could no longer pass (--abort-on-fail)\n"
        ));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(expr: &str, pass: bool, confident: Option<bool>) -> Outcome {
        Outcome {
            expr: expr.into(),
            pass,
            confident,
            ..Outcome::default()
        }
    }

    #[test]
    fn a_threshold_that_cannot_be_judged_has_its_own_status() {
        let ok = outcome("p50 < 10ms", true, Some(true));
        let fail = outcome("p99 < 1ms", false, Some(true));
        let ok_q = outcome("p99.9 < 20ms", true, Some(false));
        let fail_q = outcome("p99 < 5ms", false, Some(false));
        // No interval (a count): judged by its value, as always.
        let count = outcome("errors <= 0", false, None);
        // (outcomes, --allow-inconclusive) -> status
        let cases: &[(&[&Outcome], bool, u8)] = &[
            (&[], false, 0),
            (&[&ok], false, 0),
            (&[&ok, &fail], false, 99),
            (&[&count], false, 99),
            (&[&ok, &ok_q], false, 3),
            (&[&ok, &ok_q], true, 0),
            (&[&fail_q], false, 3),
            (&[&fail_q], true, 99),
            // A failure judged with confidence wins over one that cannot be judged.
            (&[&fail, &ok_q], false, 99),
        ];
        for (ts, allow, code) in cases {
            let ts: Vec<Outcome> = ts.iter().map(|t| (*t).clone()).collect();
            assert_eq!(status(&ts, *allow).0, *code, "{ts:?} allow={allow}");
        }
        assert_eq!(
            status(&[ok_q.clone(), fail_q.clone()], false).1.unwrap(),
            "threshold cannot be judged with confidence: p99.9 < 20ms, p99 < 5ms (run longer, or --allow-inconclusive to judge by the measured value)"
        );
        assert_eq!(
            status(&[ok_q, fail_q], true).1.unwrap(),
            "threshold failed: p99 < 5ms"
        );
    }
}

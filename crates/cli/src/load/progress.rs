//! While a run goes on with `-q`: the progress line on stderr (only when it is a terminal; the
//! live view, `live.rs`, takes its place otherwise).

use barrage_engine::{Phase, SecondStats, Sink};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// The progress line: one rewrite per second from the engine's per-second records.
pub struct Progress {
    tty: bool,
    shown: AtomicBool,
    measured_s: AtomicU64,
    responses: AtomicU64,
    errors: AtomicU64,
}

impl Progress {
    /// The line, drawn when `on` and stderr is a terminal.
    pub fn new(on: bool) -> Self {
        Progress {
            tty: on && std::io::stderr().is_terminal(),
            shown: AtomicBool::new(false),
            measured_s: AtomicU64::new(0),
            responses: AtomicU64::new(0),
            errors: AtomicU64::new(0),
        }
    }

    /// Erases the line before the summary is printed.
    pub fn clear(&self) {
        if self.shown.load(Ordering::Relaxed) {
            eprint!("\r\x1b[2K");
            let _ = std::io::stderr().flush();
        }
    }
}

impl Sink for Progress {
    fn second(&self, s: &SecondStats) {
        if !self.tty {
            return;
        }
        let (label, elapsed) = match s.phase {
            Phase::Warmup => ("warmup", s.second + 1),
            _ => {
                self.measured_s.fetch_add(1, Ordering::Relaxed);
                self.responses.fetch_add(s.responses, Ordering::Relaxed);
                self.errors.fetch_add(s.errors, Ordering::Relaxed);
                ("", s.second + 1)
            }
        };
        let rate = if s.span_s > 0.0 {
            s.responses as f64 / s.span_s
        } else {
            0.0
        };
        let mut line = format!(
            "\r\x1b[2K  {label}{}{elapsed}s  {rate:.0} req/s  p50 {:.2}ms  p99 {:.2}ms  errors {}",
            if label.is_empty() { "" } else { " " },
            s.p50_us as f64 / 1000.0,
            s.p99_us as f64 / 1000.0,
            s.errors
        );
        if s.phase == Phase::Measure {
            line.push_str(&format!(
                "  (total {} responses, {} errors)",
                self.responses.load(Ordering::Relaxed),
                self.errors.load(Ordering::Relaxed)
            ));
        }
        eprint!("{line}");
        let _ = std::io::stderr().flush();
        self.shown.store(true, Ordering::Relaxed);
    }

    fn phase(&self, _phase: Phase, _at: Instant) {}
}

//! `barrage run`'s one status area on a terminal (an indicatif bar): trials done of total,
//! elapsed, an ETA from the trials this run has finished, failures so far, the running trial
//! with its live throughput against the best trial of the same point so far. Failed trials and
//! notes are printed above it. The same events feed `--metrics` (`crate::figures` for the
//! load's counters, plus the study's trial counts).

use crate::figures::Figures;
use crate::metrics::expo::{Expo, MetricType};
use barrage_engine::Sink as _;
use barrage_lab::results::Trial;
use barrage_lab::runner::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The study's progress, shared with the bar's ETA key and the metrics endpoint.
#[derive(Default)]
pub struct Study {
    pub figures: Figures,
    planned: AtomicU64,
    done: AtomicU64,
    failed: AtomicU64,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// The running trial and its point.
    what: String,
    point: usize,
    /// Trials recorded before this run (resume), and when this run began.
    resumed: u64,
    began: Option<Instant>,
    /// Per point: the best throughput of a trial so far, and whose.
    best: HashMap<usize, (f64, String)>,
}

impl Study {
    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Time left, from the trials this run finished so far (None before the first).
    pub fn eta(&self) -> Option<Duration> {
        let i = self.inner();
        let done = self.done.load(Ordering::Relaxed).saturating_sub(i.resumed);
        let left = self
            .planned
            .load(Ordering::Relaxed)
            .saturating_sub(self.done.load(Ordering::Relaxed));
        let began = i.began?;
        (done > 0).then(|| began.elapsed().mul_f64(left as f64 / done as f64))
    }

    /// The running trial's line: what it is, its last second, the best of its point so far.
    fn line(&self, rps: Option<(f64, u64)>) -> String {
        let i = self.inner();
        let mut s = i.what.clone();
        if let Some((rps, errors)) = rps {
            s.push_str(&format!(": {rps:.0} req/s"));
            if errors > 0 {
                s.push_str(&format!(", {errors} errors"));
            }
        }
        if let Some((best, who)) = i.best.get(&i.point) {
            s.push_str(&format!(" (best here so far {best:.0} req/s, {who})"));
        }
        s
    }

    /// The study's families for `--metrics`: the load's, then the trials'.
    pub fn write(&self, e: &mut Expo) {
        crate::metrics::load::write(e, &self.figures.lock());
        e.family(
            "barrage_trials_planned",
            MetricType::Gauge,
            "Trials the study plans.",
        );
        e.sample(
            "barrage_trials_planned",
            &[],
            self.planned.load(Ordering::Relaxed) as f64,
        );
        e.family(
            "barrage_trials_done",
            MetricType::Counter,
            "Trials recorded (failed ones too).",
        );
        e.sample(
            "barrage_trials_done_total",
            &[],
            self.done.load(Ordering::Relaxed) as f64,
        );
        e.family(
            "barrage_trials_failed",
            MetricType::Counter,
            "Trials that failed.",
        );
        e.sample(
            "barrage_trials_failed_total",
            &[],
            self.failed.load(Ordering::Relaxed) as f64,
        );
        e.family(
            "barrage_trial_info",
            MetricType::Gauge,
            "The running trial.",
        );
        let what = self.inner().what.clone();
        e.sample("barrage_trial_info", &[("trial", &what)], 1.0);
    }
}

/// The terminal's status area, fed by the lab's progress events.
pub struct Status {
    pb: ProgressBar,
    pub study: Arc<Study>,
}

impl Status {
    /// The area on stderr (hidden when `quiet`).
    pub fn new(quiet: bool) -> Status {
        let study = Arc::new(Study::default());
        if quiet {
            return Status {
                pb: ProgressBar::hidden(),
                study,
            };
        }
        let pb = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        let s = study.clone();
        let f = study.clone();
        pb.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:25} {pos}/{len} trials, ETA {trials_eta}{failed}  {wide_msg}",
            )
            .expect("valid template")
            .with_key("trials_eta", move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = match s.eta() {
                    Some(d) => write!(w, "{}", indicatif::FormattedDuration(d)),
                    None => write!(w, "-"),
                };
            })
            .with_key("failed", move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                let n = f.failed.load(Ordering::Relaxed);
                if n > 0 {
                    let _ = write!(w, ", {n} failed");
                }
            }),
        );
        pb.enable_steady_tick(Duration::from_millis(200));
        Status { pb, study }
    }

    pub fn println(&self, msg: String) {
        self.pb.println(msg);
    }

    /// A line said even when the area is hidden (`-q`, or no terminal), on stderr.
    pub fn say(&self, msg: String) {
        if self.pb.is_hidden() {
            eprintln!("{msg}");
        } else {
            self.pb.println(msg);
        }
    }

    pub fn finish(&self) {
        self.pb.finish_and_clear();
    }
}

impl Progress for Status {
    fn begin(&self, total: usize, done: usize) {
        let s = &self.study;
        s.planned.store(total as u64, Ordering::Relaxed);
        s.done.store(done as u64, Ordering::Relaxed);
        {
            let mut i = s.inner();
            i.resumed = done as u64;
            i.began = Some(Instant::now());
        }
        self.pb.set_length(total as u64);
        self.pb.set_position(done as u64);
    }
    fn note(&self, msg: &str) {
        self.pb.println(msg);
    }
    fn trial_point(&self, point: usize) {
        self.study.inner().point = point;
    }
    fn trial_start(&self, what: &str) {
        self.study.inner().what = what.to_string();
        self.pb.set_message(self.study.line(None));
    }
    fn second(&self, rps: f64, errors: u64) {
        self.pb.set_message(self.study.line(Some((rps, errors))));
    }
    fn live(&self, l: &barrage_engine::Live<'_>) {
        self.study.figures.live(l);
        let s = l.second;
        if s.span_s > 0.0 {
            self.second(s.responses as f64 / s.span_s, s.errors);
        }
    }
    fn trial_end(&self, t: &Trial) {
        let s = &self.study;
        s.done.fetch_add(1, Ordering::Relaxed);
        if let Some(f) = &t.failure {
            s.failed.fetch_add(1, Ordering::Relaxed);
            self.pb.println(format!(
                "trial failed: {} (point {}, trial {}): {}: {}",
                t.contender,
                t.point,
                t.trial + 1,
                f.kind,
                f.message
            ));
        } else if let Some(rps) = t.metrics.rps {
            let mut i = s.inner();
            let best = i.best.entry(t.point).or_insert((rps, t.contender.clone()));
            if rps > best.0 {
                *best = (rps, t.contender.clone());
            }
        }
        self.pb.inc(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eta_from_this_runs_trials_and_the_best_of_a_point() {
        let st = Status::new(true);
        st.begin(10, 2);
        assert_eq!(st.study.eta(), None);
        st.study.inner().began = Some(Instant::now() - Duration::from_secs(20));
        st.trial_point(1);
        st.trial_start("a 10c #1/1");
        let mut t = Trial {
            point: 1,
            contender: "a".into(),
            ..Trial::default()
        };
        t.metrics.rps = Some(500.0);
        st.trial_end(&t);
        t.contender = "b".into();
        t.metrics.rps = Some(900.0);
        st.trial_end(&t);
        // 2 trials in 20 s, 6 left: 60 s.
        let eta = st.study.eta().unwrap().as_secs_f64();
        assert!((eta - 60.0).abs() < 1.0, "{eta}");
        assert_eq!(
            st.study.line(Some((700.0, 3))),
            "a 10c #1/1: 700 req/s, 3 errors (best here so far 900 req/s, b)"
        );
        t.failure = Some(Default::default());
        st.trial_end(&t);
        let mut e = Expo::new(false);
        st.study.write(&mut e);
        let page = e.finish();
        assert!(page.contains("barrage_trials_planned 10\n"), "{page}");
        assert!(page.contains("barrage_trials_done_total 5\n"), "{page}");
        assert!(page.contains("barrage_trials_failed_total 1\n"), "{page}");
        assert!(
            page.contains("barrage_trial_info{trial=\"a 10c #1/1\"} 1\n"),
            "{page}"
        );
    }
}

//! `barrage load`'s live view on a terminal: progress through the duration, the request count
//! or the stages; counts so far (responses, errors by class, status codes, in flight,
//! connections); throughput and latency percentiles over time (sparklines of the last seconds);
//! the latency distribution and histogram so far. Drawn on stderr in place, from the
//! per-second figures the engine already produces (`figures.rs`), at most four times a
//! second by a thread of its own; the last frame stays on the screen above the summary.
//! [`frame`] is pure (the state in, the lines out), so it is tested without a terminal.

use crate::figures::{Figures, State};
use crate::load::print::{bytes, distribution, ms};
use barrage_engine::LatencySummary;
use barrage_engine::{Config, Phase};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the view is redrawn.
const REDRAW: Duration = Duration::from_millis(250);
/// Rows of the latency histogram.
const ROWS: usize = 8;
const SPARKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// What the view knows of the run before it starts.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// `GET http://host/ c=10 ...`.
    pub title: String,
    pub warmup: Duration,
    pub duration: Option<Duration>,
    pub requests: Option<u64>,
    /// The stages' ends, from the run's start, with their target rates.
    pub stages: Vec<(Duration, f64)>,
}

impl Plan {
    pub fn of(c: &Config) -> Plan {
        let mut title = match &c.call {
            Some(call) => format!("gRPC {call} {} c={}", c.url, c.connections),
            None => format!("{} {} c={}", c.method, c.url, c.connections),
        };
        title.push_str(&c.protocol.title());
        if let Some(r) = c.rate {
            title.push_str(&format!(" rate={r}/s"));
        }
        let mut end = Duration::ZERO;
        Plan {
            title,
            warmup: c.warmup,
            duration: c.duration,
            requests: c.requests,
            stages: c
                .stages
                .iter()
                .map(|s| {
                    end += s.duration;
                    (end, s.target)
                })
                .collect(),
        }
    }
}

/// The running view; [`LiveView::finish`] draws the last frame and stops it.
pub struct LiveView {
    figures: Arc<Figures>,
    plan: Plan,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<usize>>,
}

impl LiveView {
    pub fn start(figures: Arc<Figures>, plan: Plan) -> LiveView {
        let stop = Arc::new(AtomicBool::new(false));
        let (f, p, s) = (figures.clone(), plan.clone(), stop.clone());
        let thread = std::thread::Builder::new()
            .name("barrage-live".into())
            .spawn(move || {
                eprint!("\x1b[?25l");
                let mut drawn = 0;
                while !s.load(Ordering::Acquire) {
                    drawn = draw(&f, &p, drawn);
                    std::thread::park_timeout(REDRAW);
                }
                drawn
            })
            .ok();
        LiveView {
            figures,
            plan,
            stop,
            thread,
        }
    }

    /// Draws the final figures (the run's totals) and leaves them on the screen.
    pub fn finish(mut self) {
        self.stop.store(true, Ordering::Release);
        let drawn = self.thread.take().map_or(0, |t| {
            t.thread().unpark();
            t.join().unwrap_or(0)
        });
        draw(&self.figures, &self.plan, drawn);
        eprint!("\x1b[?25h");
        let _ = std::io::stderr().flush();
    }
}

impl Drop for LiveView {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
            eprint!("\x1b[?25h");
        }
    }
}

/// Redraws over the `drawn` lines of the last frame; returns the lines drawn now.
fn draw(f: &Figures, plan: &Plan, drawn: usize) -> usize {
    let (cols, rows) = term_size();
    let lines = frame(&f.lock(), plan, Instant::now(), cols);
    let lines = &lines[..lines.len().min(rows.saturating_sub(1).max(1))];
    let mut out = String::new();
    if drawn > 0 {
        out.push_str(&format!("\x1b[{drawn}A\r"));
    }
    for l in lines {
        out.push_str("\x1b[2K");
        out.push_str(l);
        out.push('\n');
    }
    out.push_str("\x1b[J");
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(out.as_bytes());
    let _ = err.flush();
    lines.len()
}

/// The terminal's columns and rows (80x24 when stderr is no terminal).
fn term_size() -> (usize, usize) {
    // SAFETY: TIOCGWINSZ fills the winsize struct we own.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::ioctl(libc::STDERR_FILENO, libc::TIOCGWINSZ, &mut ws) };
    if rc == 0 && ws.ws_col > 0 && ws.ws_row > 0 {
        (usize::from(ws.ws_col), usize::from(ws.ws_row))
    } else {
        (80, 24)
    }
}

/// The view's lines, each at most `width` characters.
pub fn frame(st: &State, plan: &Plan, now: Instant, width: usize) -> Vec<String> {
    let mut o = Vec::new();
    o.push(format!("barrage load {}", plan.title));
    o.push(progress(st, plan, now, width));
    let phase = if st.phase == Phase::Warmup {
        Phase::Warmup
    } else {
        Phase::Measure
    };
    let t = st.totals(phase);
    let label = if phase == Phase::Warmup {
        "warmup: "
    } else {
        ""
    };
    o.push(format!(
        "{label}responses {}  errors {}  written {}  in flight {}  connections {}  read {}",
        t.responses,
        t.errors.total(),
        t.written,
        st.in_flight,
        st.connections,
        bytes(t.bytes_read as f64)
    ));
    let status: Vec<String> = t.status.iter().map(|(c, n)| format!("{c} {n}")).collect();
    o.push(format!(
        "status  {}",
        if status.is_empty() {
            "-".into()
        } else {
            status.join("  ")
        }
    ));
    let errors: Vec<String> = t
        .errors
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    o.push(format!(
        "errors  {}",
        if errors.is_empty() {
            "none".into()
        } else {
            errors.join("  ")
        }
    ));
    let rate = |s: &barrage_engine::SecondStats| {
        if s.span_s > 0.0 {
            s.responses as f64 / s.span_s
        } else {
            0.0
        }
    };
    let mean = if t.seconds > 0.0 {
        t.responses as f64 / t.seconds
    } else {
        0.0
    };
    let now_rps = st.recent.back().map_or(0.0, rate);
    o.push(format!(
        "throughput  {now_rps:.0} req/s last second, {mean:.0} req/s mean"
    ));
    let room = width.saturating_sub(16).clamp(8, 120);
    let recent: Vec<_> = st.recent.iter().rev().take(room).rev().collect();
    let rps: Vec<f64> = recent.iter().map(|s| rate(s)).collect();
    let peak = rps.iter().cloned().fold(0.0, f64::max);
    o.push(format!("  req/s  {} peak {peak:.0}", spark(&rps)));
    for (name, q) in [("p50", 0), ("p99", 1)] {
        let v: Vec<f64> = recent
            .iter()
            .map(|s| if q == 0 { s.p50_us } else { s.p99_us } as f64)
            .collect();
        let top = v.iter().cloned().fold(0.0, f64::max);
        o.push(format!("  {name}    {} peak {}", spark(&v), ms(top)));
    }
    o.push(format!("latency so far ({} responses)", t.latency.len()));
    let mut d = String::new();
    distribution(&mut d, &LatencySummary::of(&t.latency));
    o.extend(d.lines().map(str::to_string));
    o.extend(histogram(&t.latency, width));
    o.into_iter().map(|l| cut(l, width)).collect()
}

/// Where the run is: its phase, time or requests against the plan, and a bar.
fn progress(st: &State, plan: &Plan, now: Instant, width: usize) -> String {
    let since = |t: Option<Instant>| t.map_or(Duration::ZERO, |t| now.saturating_duration_since(t));
    let (what, done) = if st.phase == Phase::Done {
        let what = format!("done, {:.1}s measured", st.measure.seconds);
        (what, Some(1.0))
    } else if !plan.stages.is_empty() {
        let at = since(st.started);
        let total = plan.stages.last().map_or(Duration::ZERO, |s| s.0);
        let i = plan
            .stages
            .iter()
            .position(|s| at < s.0)
            .unwrap_or(plan.stages.len() - 1);
        let what = format!(
            "stage {} of {} (to {} req/s)  {:.1}s of {:.0}s",
            i + 1,
            plan.stages.len(),
            plan.stages[i].1,
            at.as_secs_f64(),
            total.as_secs_f64()
        );
        (what, Some(at.as_secs_f64() / total.as_secs_f64().max(1e-9)))
    } else if st.phase == Phase::Warmup {
        let at = since(st.started);
        let what = format!(
            "warmup {:.1}s of {:.0}s",
            at.as_secs_f64(),
            plan.warmup.as_secs_f64()
        );
        (
            what,
            Some(at.as_secs_f64() / plan.warmup.as_secs_f64().max(1e-9)),
        )
    } else if let Some(n) = plan.requests {
        let w = st.measure.written;
        (
            format!("{w} of {n} requests"),
            Some(w as f64 / n.max(1) as f64),
        )
    } else if let Some(d) = plan.duration {
        let at = since(st.measure_from);
        let what = format!("{:.1}s of {:.0}s", at.as_secs_f64(), d.as_secs_f64());
        (what, Some(at.as_secs_f64() / d.as_secs_f64().max(1e-9)))
    } else {
        (
            format!("{:.1}s", since(st.measure_from).as_secs_f64()),
            None,
        )
    };
    let Some(f) = done else { return what };
    let f = f.clamp(0.0, 1.0);
    let n = width.saturating_sub(what.len() + 8).min(40);
    let full = (f * n as f64).round() as usize;
    format!(
        "{what}  [{}{}] {:>3.0}%",
        "#".repeat(full),
        "-".repeat(n - full),
        f * 100.0
    )
}

/// A sparkline of `v`, scaled to its largest value.
fn spark(v: &[f64]) -> String {
    let top = v.iter().cloned().fold(0.0, f64::max);
    v.iter()
        .map(|&x| {
            if top <= 0.0 {
                SPARKS[0]
            } else {
                SPARKS[((x / top) * 7.0).round().clamp(0.0, 7.0) as usize]
            }
        })
        .collect()
}

/// The histogram so far: [`ROWS`] bins, spaced by ratio from the lowest value to the highest.
fn histogram(h: &hdrhistogram::Histogram<u64>, width: usize) -> Vec<String> {
    if h.is_empty() {
        return Vec::new();
    }
    let (lo, hi) = (h.min().max(1) as f64, h.max().max(1) as f64);
    let step = (hi / lo).powf(1.0 / ROWS as f64).max(1.0 + 1e-9);
    let mut edges: Vec<u64> = (1..=ROWS)
        .map(|i| (lo * step.powi(i as i32)).ceil() as u64)
        .collect();
    edges.dedup();
    let mut from = 0;
    let counts: Vec<(u64, u64)> = edges
        .iter()
        .map(|&to| {
            let n = h.count_between(from, to);
            from = to + 1;
            (to, n)
        })
        .collect();
    let top = counts.iter().map(|c| c.1).max().unwrap_or(1).max(1);
    let bar = width.saturating_sub(32).clamp(10, 50);
    let mut o = vec!["histogram so far".to_string()];
    for (to, n) in counts {
        let len = (n as f64 / top as f64 * bar as f64).round() as usize;
        let pct = n as f64 * 100.0 / h.len() as f64;
        o.push(format!(
            "  <= {:>8}  {:<bar$} {pct:5.1}% {n}",
            ms(to as f64),
            "█".repeat(len)
        ));
    }
    o
}

/// `l` cut to `width` characters.
fn cut(l: String, width: usize) -> String {
    match l.char_indices().nth(width) {
        Some((i, _)) => l[..i].to_string(),
        None => l,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::Figures;
    use barrage_model::load::Protocol;

    /// The title names the protocols no figure names (HTTP/2's streams, WebSocket, HTTP/1.0).
    #[test]
    fn the_title_names_the_protocol() {
        let c = |protocol| barrage_engine::Config {
            url: "http://h/".into(),
            connections: 2,
            protocol,
            ..barrage_engine::Config::default()
        };
        let title = |p| Plan::of(&c(p)).title;
        assert_eq!(title(Protocol::default()), "GET http://h/ c=2");
        assert_eq!(
            title(Protocol::Http10 { keepalive: true }),
            "GET http://h/ c=2 http1.0"
        );
        let h2 = Protocol::Http2 {
            streams: 10,
            window: 65_535,
        };
        assert_eq!(title(h2), "GET http://h/ c=2 http2 m=10");
    }

    #[test]
    fn a_frame_holds_the_figures() {
        let mut st = Figures::new().lock().clone();
        let t0 = Instant::now();
        st.started = Some(t0);
        st.measure_from = Some(t0);
        st.phase = Phase::Measure;
        st.measure.responses = 1234;
        st.measure.written = 1240;
        st.measure
            .errors
            .count(barrage_engine::ErrorClass::Timeout, 6);
        st.measure.status.insert(200, 1234);
        for v in [100u64, 200, 400, 800, 1600] {
            st.measure.latency.record(v).unwrap();
        }
        st.measure.seconds = 2.0;
        st.recent.push_back(barrage_engine::SecondStats {
            responses: 617,
            span_s: 1.0,
            p50_us: 200,
            p99_us: 1600,
            ..Default::default()
        });
        let plan = Plan {
            title: "GET http://h/ c=2".into(),
            duration: Some(Duration::from_secs(4)),
            ..Plan::default()
        };
        let lines = frame(&st, &plan, t0 + Duration::from_secs(1), 100);
        let text = lines.join("\n");
        assert!(lines.iter().all(|l| l.chars().count() <= 100));
        assert_eq!(lines[0], "barrage load GET http://h/ c=2");
        assert!(
            lines[1].starts_with("1.0s of 4s  [#") && lines[1].ends_with(" 25%"),
            "{text}"
        );
        assert!(
            text.contains("responses 1234  errors 6  written 1240"),
            "{text}"
        );
        assert!(text.contains("status  200 1234"), "{text}");
        assert!(text.contains("errors  timeout 6"), "{text}");
        assert!(
            text.contains("617 req/s last second, 617 req/s mean"),
            "{text}"
        );
        assert!(text.contains("latency so far (5 responses)"), "{text}");
        let rows: Vec<&String> = lines.iter().filter(|l| l.starts_with("  <= ")).collect();
        let counted: u64 = rows
            .iter()
            .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(counted, 5, "{text}");
        // Stages: the one running, by the time since the start.
        let plan = Plan {
            stages: vec![
                (Duration::from_secs(2), 100.0),
                (Duration::from_secs(6), 500.0),
            ],
            ..plan
        };
        let l = frame(&st, &plan, t0 + Duration::from_secs(3), 100);
        assert!(
            l[1].starts_with("stage 2 of 2 (to 500 req/s)  3.0s of 6s"),
            "{}",
            l[1]
        );
        st.phase = Phase::Done;
        let l = frame(&st, &plan, t0, 100);
        assert!(l[1].starts_with("done, 2.0s measured"), "{}", l[1]);
        assert_eq!(cut("ab█cd".into(), 3), "ab█");
    }
}

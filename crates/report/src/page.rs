//! The report as a value, before it becomes HTML, Markdown or CSV: sections with a header (key,
//! value pairs), notes, a summary table, comparison tables and groups of plots. The exporters
//! only lay this out; every figure is computed when the page is built.

use crate::svg::{BarChart, HBarChart, LineChart};
use crate::table::Table;

/// The whole report.
#[derive(Debug, Clone, Default)]
pub struct Page {
    pub title: String,
    pub sections: Vec<Section>,
}

/// One input file (or the group of load documents), or a comparison of two files.
#[derive(Debug, Clone, Default)]
pub struct Section {
    pub heading: String,
    /// The machine the run was on, in one line, shown under the heading (studies).
    pub machine: Option<String>,
    /// Header facts: study, date, machine, version, pinning, trials, ...
    pub meta: Vec<(String, String)>,
    /// Warnings and facts the reader must not miss (failed trials, no CI possible, ...).
    pub notes: Vec<String>,
    pub table: Option<Table>,
    /// A comparison of two files: the model's, as `barrage compare` renders it.
    pub comparison: Option<barrage_model::compare::Comparison>,
    /// The lab's comparisons (contenders at a point, variants of a contender), as the terminal
    /// shows them.
    pub verdicts: Vec<Verdict>,
    pub plots: Vec<PlotGroup>,
    /// Shown folded (e.g. each server's own section under the cross-server overload section).
    pub folded: bool,
    /// Plots drawn small, several to a row (small multiples).
    pub small_multiples: bool,
    /// The study's questions (its original's claims) with their verdicts, shown before
    /// everything else, and the line that counts them (studies with questions only).
    pub questions: Vec<crate::questions::Row>,
    pub questions_tally: String,
    /// What the study found, shown first (studies only).
    pub answer: Option<crate::answer::Answer>,
    /// The question's main chart, shown beside the answer.
    pub answer_chart: Option<Plot>,
    /// Per contender and point: CPU, memory and per-second timelines (folded in HTML).
    pub timelines: Vec<PlotGroup>,
    /// Failed trials grouped per contender, point and reason.
    pub failure_groups: Vec<FailureGroup>,
    /// Failed trials with their reason and stderr tail.
    pub failures: Vec<Failure>,
    /// Server studies: every load phase's raw counts (`r: w: e: t:`).
    pub counts: Vec<Counts>,
    /// Studies with two or more open-loop phases: overload and recovery, per phase of each trial.
    pub recovery: Vec<Recovery>,
}

impl Counts {
    /// Column names of [`Counts::cells`]; `phased`: with the phase column.
    pub fn header(phased: bool) -> Vec<&'static str> {
        let mut h = vec![
            "point",
            "contender",
            "trial",
            "r",
            "w",
            "e",
            "errors by class",
            "t (ms)",
        ];
        if phased {
            h.insert(3, "phase");
        }
        h
    }

    /// Whether the column named `h` of [`Counts::header`] holds numbers.
    pub fn numeric(h: &str) -> bool {
        matches!(h, "trial" | "r" | "w" | "e" | "t (ms)")
    }

    /// The row as text, one cell per [`Counts::header`] column (the exporters escape them).
    pub fn cells(&self, phased: bool) -> Vec<String> {
        let mut c = vec![
            self.point.clone(),
            self.contender.clone(),
            format!("{}{}", self.trial, if self.ok { "" } else { " (failed)" }),
            self.responses.to_string(),
            self.written.to_string(),
            self.errors.to_string(),
            self.breakdown.clone(),
            format!("{:.2}", self.mean_latency_ms),
        ];
        if phased {
            c.insert(3, self.phase.clone());
        }
        c
    }
}

impl Verdict {
    /// Column names of [`Verdict::cells`].
    pub const HEADER: [&'static str; 7] = [
        "point",
        "between",
        "metric",
        "better (A)",
        "other (B)",
        "A vs B",
        "p",
    ];

    /// The row as text, one cell per [`Verdict::HEADER`] column (the exporters escape them).
    pub fn cells(&self) -> [String; 7] {
        [
            self.point.clone(),
            self.between.clone(),
            self.metric.clone(),
            self.a.clone(),
            self.b.clone(),
            self.phrase.clone(),
            self.p.map_or(String::new(), crate::table::fmt_p),
        ]
    }
}

impl Recovery {
    /// Column names of [`Recovery::cells`].
    pub const HEADER: [&'static str; 10] = [
        "contender",
        "trial",
        "phase",
        "target req/s",
        "achieved req/s",
        "errors",
        "by class",
        "p99 (ms)",
        "max (ms)",
        "normal again after",
    ];

    /// The row as text, one cell per [`Recovery::HEADER`] column (the exporters escape them).
    pub fn cells(&self) -> [String; 10] {
        [
            self.contender.clone(),
            self.trial.to_string(),
            self.phase.clone(),
            self.target_rps.map_or("-".into(), |t| format!("{t:.0}")),
            format!("{:.0}", self.achieved_rps),
            self.errors.to_string(),
            self.breakdown.clone(),
            format!("{:.1}", self.p99_ms),
            format!("{:.1}", self.max_ms),
            match self.recovered_after_s {
                None => "-".into(),
                Some(None) => "never (within the phase)".into(),
                Some(Some(s)) => format!("{s:.1} s"),
            },
        ]
    }
}

/// One open-loop phase of one trial of an overload-and-recovery study.
#[derive(Debug, Clone, Default)]
pub struct Recovery {
    pub contender: String,
    /// 1-based.
    pub trial: usize,
    pub phase: String,
    pub target_rps: Option<f64>,
    pub achieved_rps: f64,
    pub errors: u64,
    /// "timeout 12, reset 3".
    pub breakdown: String,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// Phases after the first: `Some(Some(s))` recovered after s seconds, `Some(None)` never
    /// within the phase; `None` for the first phase.
    pub recovered_after_s: Option<Option<f64>>,
}

/// The raw counts of one load phase of one trial, as `barrage load` prints them last.
#[derive(Debug, Clone, Default)]
pub struct Counts {
    pub point: String,
    pub contender: String,
    /// 1-based.
    pub trial: usize,
    /// The phase's name when the trial has several, else empty.
    pub phase: String,
    /// `r`: valid responses.
    pub responses: u64,
    /// `w`: requests written.
    pub written: u64,
    /// `e`: errors, and by class ("timeout 12, reset 3").
    pub errors: u64,
    pub breakdown: String,
    /// `t`: mean latency.
    pub mean_latency_ms: f64,
    /// Whether the trial passed.
    pub ok: bool,
}

/// A titled group of plots (e.g. one contender at one point).
#[derive(Debug, Clone, Default)]
pub struct PlotGroup {
    pub heading: String,
    pub notes: Vec<String>,
    pub plots: Vec<Plot>,
}

/// A plot of either kind.
#[derive(Debug, Clone)]
pub enum Plot {
    Line(LineChart),
    Bar(BarChart),
    HBar(HBarChart),
}

impl Plot {
    pub fn is_empty(&self) -> bool {
        match self {
            Plot::Line(c) => c.is_empty(),
            Plot::Bar(c) => c.is_empty(),
            Plot::HBar(c) => c.is_empty(),
        }
    }
    pub fn title(&self) -> &str {
        match self {
            Plot::Line(c) => &c.title,
            Plot::Bar(c) => &c.title,
            Plot::HBar(c) => &c.title,
        }
    }
    pub fn to_svg(&self) -> String {
        match self {
            Plot::Line(c) => c.to_svg(),
            Plot::Bar(c) => c.to_svg(),
            Plot::HBar(c) => c.to_svg(),
        }
    }
}

/// The failed trials of one contender at one point for one reason.
#[derive(Debug, Clone, Default)]
pub struct FailureGroup {
    pub point: String,
    pub contender: String,
    /// "OOM", "timeout", "crashed", ...
    pub reason: String,
    pub failed: usize,
    pub trials: usize,
    /// The largest memory seen in the failed trials (RSS or the memory cgroup's peak), bytes.
    pub peak_bytes: Option<u64>,
    /// Median wall time until the failure, seconds.
    pub after_s: Option<f64>,
}

/// A failed trial, shown rather than hidden.
#[derive(Debug, Clone, Default)]
pub struct Failure {
    pub point: String,
    pub contender: String,
    pub trial: usize,
    pub reason: String,
    pub stderr_tail: String,
}

/// One of the study's comparisons (the model's): A (the better by median) against B on a metric.
#[derive(Debug, Clone, Default)]
pub struct Verdict {
    pub point: String,
    /// "contenders" or "variants".
    pub between: String,
    pub metric: String,
    pub a: String,
    pub b: String,
    pub ratio: f64,
    pub p: Option<f64>,
    pub significant: bool,
    /// "1.47x faster", "108x more memory", "no significant difference".
    pub phrase: String,
}

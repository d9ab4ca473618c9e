//! The metric registry: every per-trial figure a study reports, declared once: its key (in
//! `summary[].stats`, comparisons and CSV), its label and unit, which direction is better, how it
//! is read from a trial, and how it is shown. The lab's statistics, the report's tables, plots and
//! comparisons all name metrics from here, never by a column position or a string of their own.
//!
//! Adding a metric: a field in [`crate::study::Metrics`], an entry here (and in [`ALL`]), and the
//! lab code that measures it.
//!
//! A study may also declare figures of its own, which its contenders print
//! ([`crate::figure`]); the metrics of one results document are the registry's of its kind and
//! those ([`of_results`]), and everything that iterates a study's metrics takes that list.

use crate::study::{ContenderRole, Results, Trial};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

mod load_figures;
pub use load_figures::{load_value, LATENCY_MAX, LATENCY_MEAN, LOAD, P90};

/// Which direction is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    Higher,
    Lower,
}

/// How values are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A count per second ("12.3k").
    Rate,
    /// Microseconds shown as a time ("1.25 ms").
    Micros,
    /// Seconds shown as a time ("2.50 s", "3.2 µs").
    Seconds,
    /// Bytes ("48.0 MiB").
    Bytes,
    /// Megabytes (10^6) per second ("112 MB/s").
    MegabytesPerSecond,
    /// A plain count ("17").
    Count,
    /// A plain number with two decimals ("0.97").
    Number,
    /// Milliseconds shown as a time ("1.25 ms").
    Millis,
    /// A percentage ("0.25%").
    Percent,
}

/// How a metric's value is read from a trial.
#[derive(Debug, Clone, Copy)]
pub enum Read {
    /// A registry metric: computed from the trial's fields.
    Field(fn(&Trial) -> Option<f64>),
    /// A figure the study declared: `metrics.figures[key]`, the number the contender printed.
    Figure,
}

/// One metric: a registry one (the constants below) or a figure a study declared
/// ([`crate::figure::Figure::metric`]).
#[derive(Debug, Clone)]
pub struct Metric {
    /// Stable identifier (results, CSV).
    pub key: Cow<'static, str>,
    /// Short name for table headers and legends ("p99").
    pub label: Cow<'static, str>,
    /// Unit of the numbers in tables and on plot axes ("ms"), after `scale`.
    pub unit: &'static str,
    /// Stored values (the lab's units: req/s, µs, s, bytes) times this give `unit`.
    pub scale: f64,
    pub better: Better,
    /// Comparisons say "1.5x faster/slower" (`None`) or "1.5x more/less NOUN".
    pub noun: Option<Cow<'static, str>>,
    /// The study kinds that report it.
    pub kinds: &'static [ContenderRole],
    /// How the trial's value, in stored units, is read.
    pub read: Read,
    pub format: Format,
    /// Whether studies compare contenders on it (not on error counts, which say whether a
    /// figure is valid rather than how good it is).
    pub compared: bool,
    /// A latency percentile: the quantile to read from the merged HDR histogram of all trials,
    /// which tables show as the cell's figure (percentiles are never averaged).
    pub merged_quantile: Option<f64>,
}

const SERVER: &[ContenderRole] = &[ContenderRole::Server];
const CLIENT: &[ContenderRole] = &[ContenderRole::Client];
const BOTH: &[ContenderRole] = &[ContenderRole::Server, ContenderRole::Client];

pub const RPS: Metric = Metric {
    key: Cow::Borrowed("rps"),
    label: Cow::Borrowed("throughput"),
    unit: "req/s",
    scale: 1.0,
    better: Better::Higher,
    noun: None,
    kinds: BOTH,
    read: Read::Field(|t| t.metrics.rps),
    format: Format::Rate,
    compared: true,
    merged_quantile: None,
};
pub const MB_PER_S: Metric = Metric {
    key: Cow::Borrowed("mb_per_s"),
    label: Cow::Borrowed("throughput"),
    unit: "MB/s",
    scale: 1.0,
    better: Better::Higher,
    noun: None,
    kinds: CLIENT,
    read: Read::Field(|t| t.metrics.mb_per_s),
    format: Format::MegabytesPerSecond,
    compared: true,
    merged_quantile: None,
};
pub const WALL: Metric = Metric {
    key: Cow::Borrowed("wall_s"),
    label: Cow::Borrowed("wall"),
    unit: "s",
    scale: 1.0,
    better: Better::Lower,
    noun: None,
    kinds: CLIENT,
    read: Read::Field(|t| t.metrics.wall_s),
    format: Format::Seconds,
    compared: true,
    merged_quantile: None,
};
pub const P50: Metric = Metric {
    key: Cow::Borrowed("latency_p50_us"),
    label: Cow::Borrowed("p50"),
    unit: "ms",
    scale: 1e-3,
    better: Better::Lower,
    noun: None,
    kinds: SERVER,
    read: Read::Field(|t| t.metrics.latency_p50_us),
    format: Format::Micros,
    compared: true,
    merged_quantile: Some(0.5),
};
pub const P99: Metric = Metric {
    key: Cow::Borrowed("latency_p99_us"),
    label: Cow::Borrowed("p99"),
    read: Read::Field(|t| t.metrics.latency_p99_us),
    merged_quantile: Some(0.99),
    ..P50
};
pub const P999: Metric = Metric {
    key: Cow::Borrowed("latency_p999_us"),
    label: Cow::Borrowed("p99.9"),
    read: Read::Field(|t| t.metrics.latency_p999_us),
    merged_quantile: Some(0.999),
    ..P50
};
pub const ERRORS: Metric = Metric {
    key: Cow::Borrowed("errors"),
    label: Cow::Borrowed("errors"),
    unit: "",
    scale: 1.0,
    better: Better::Lower,
    noun: Some(Cow::Borrowed("errors")),
    kinds: SERVER,
    read: Read::Field(|t| {
        t.metrics.errors.map(|e| e as f64).or_else(|| {
            (!t.phases.is_empty())
                .then(|| t.phases.iter().map(|p| p.load.errors.total() as f64).sum())
        })
    }),
    format: Format::Count,
    compared: false,
    merged_quantile: None,
};
pub const USER: Metric = Metric {
    key: Cow::Borrowed("user_s"),
    label: Cow::Borrowed("user"),
    unit: "s",
    scale: 1.0,
    better: Better::Lower,
    noun: Some(Cow::Borrowed("user CPU")),
    kinds: CLIENT,
    read: Read::Field(|t| t.metrics.user_s),
    format: Format::Seconds,
    compared: true,
    merged_quantile: None,
};
pub const SYS: Metric = Metric {
    key: Cow::Borrowed("sys_s"),
    label: Cow::Borrowed("sys"),
    noun: Some(Cow::Borrowed("sys CPU")),
    read: Read::Field(|t| t.metrics.sys_s),
    ..USER
};
pub const CPU: Metric = Metric {
    key: Cow::Borrowed("cpu_s"),
    label: Cow::Borrowed("CPU"),
    noun: Some(Cow::Borrowed("CPU")),
    read: Read::Field(|t| t.metrics.cpu_s),
    ..USER
};
pub const CPU_PER_REQUEST: Metric = Metric {
    key: Cow::Borrowed("cpu_s_per_request"),
    label: Cow::Borrowed("CPU/req"),
    unit: "µs",
    scale: 1e6,
    better: Better::Lower,
    noun: Some(Cow::Borrowed("CPU")),
    kinds: BOTH,
    read: Read::Field(|t| t.metrics.cpu_s_per_request),
    format: Format::Seconds,
    compared: true,
    merged_quantile: None,
};
pub const PEAK_RSS: Metric = Metric {
    key: Cow::Borrowed("peak_rss_bytes"),
    label: Cow::Borrowed("peak RSS"),
    unit: "MiB",
    scale: 1.0 / 1048576.0,
    better: Better::Lower,
    noun: Some(Cow::Borrowed("memory")),
    kinds: BOTH,
    read: Read::Field(|t| t.metrics.peak_rss_bytes.map(|b| b as f64)),
    format: Format::Bytes,
    compared: true,
    merged_quantile: None,
};

/// CPU cores the contender's tree kept busy on average: its CPU seconds over the wall time of a
/// client run, or over the measured windows of a server trial. Derived from the figures above, so
/// the lab stores nothing more for it.
pub const CORES: Metric = Metric {
    key: Cow::Borrowed("cores_used"),
    label: Cow::Borrowed("cores used"),
    unit: "",
    scale: 1.0,
    better: Better::Lower,
    noun: Some(Cow::Borrowed("cores")),
    kinds: BOTH,
    read: Read::Field(|t| {
        let cpu = t.metrics.cpu_s?;
        let secs = t.metrics.wall_s.unwrap_or_else(|| {
            t.phases
                .iter()
                .map(|p| p.measure_end_s - p.measure_start_s)
                .sum()
        });
        (secs > 0.0).then(|| cpu / secs)
    }),
    format: Format::Number,
    compared: false,
    merged_quantile: None,
};
/// Peak proportional set size of the tree (shared pages divided among the processes sharing
/// them): the memory figure for multi-process trees, where summed RSS counts shared pages once
/// per process.
pub const PEAK_PSS: Metric = Metric {
    key: Cow::Borrowed("peak_pss_bytes"),
    label: Cow::Borrowed("peak PSS"),
    read: Read::Field(|t| t.samples.as_ref()?.peak_pss_bytes.map(|b| b as f64)),
    ..PEAK_RSS
};

/// The share of a load's outcomes that were errors, in %: errors / (valid responses + errors),
/// connect errors included (a refused connection is an outcome of the load too). A study trial's comes from its `requests` and `errors`; `barrage compare`
/// judges it (`compared`) because an error count alone grows with the run's length and rate.
/// No study table lists it (`kinds` empty), so adding it changed no study's output.
pub const ERROR_PCT: Metric = Metric {
    key: Cow::Borrowed("error_pct"),
    label: Cow::Borrowed("error rate"),
    unit: "%",
    scale: 1.0,
    better: Better::Lower,
    noun: Some(Cow::Borrowed("errors")),
    kinds: &[],
    read: Read::Field(|t| {
        let (ok, bad) = (t.metrics.requests? as f64, t.metrics.errors? as f64);
        (ok + bad > 0.0).then(|| 100.0 * bad / (ok + bad))
    }),
    format: Format::Percent,
    compared: true,
    merged_quantile: None,
};

/// Every metric, in table order (the load documents' own figures last: no study lists them).
pub const ALL: &[Metric] = &[
    RPS,
    MB_PER_S,
    WALL,
    P50,
    P99,
    P999,
    ERRORS,
    USER,
    SYS,
    CPU,
    CPU_PER_REQUEST,
    CORES,
    PEAK_RSS,
    PEAK_PSS,
    ERROR_PCT,
    LATENCY_MEAN,
    P90,
    LATENCY_MAX,
];

/// The registry metric with this key.
pub fn get(key: &str) -> Option<&'static Metric> {
    ALL.iter().find(|m| m.key == key)
}

impl Metric {
    /// The trial's value if it is finite.
    pub fn value(&self, t: &Trial) -> Option<f64> {
        match self.read {
            Read::Field(read) => read(t),
            Read::Figure => t.metrics.figures.get(self.key.as_ref()).copied(),
        }
        .filter(|v| v.is_finite())
    }

    /// Values of the successful trials among `trials`, in their order.
    pub fn values<'a>(&self, trials: impl IntoIterator<Item = &'a Trial>) -> Vec<f64> {
        trials
            .into_iter()
            .filter(|t| t.ok)
            .filter_map(|t| self.value(t))
            .collect()
    }

    pub fn higher_is_better(&self) -> bool {
        self.better == Better::Higher
    }

    /// Whether this is a figure the study declared rather than a registry metric.
    pub fn is_figure(&self) -> bool {
        matches!(self.read, Read::Figure)
    }

    /// How comparisons word it: "faster/slower" or "more/less NOUN".
    pub fn wording(&self) -> crate::stats::Wording {
        match &self.noun {
            Some(noun) => crate::stats::Wording::Amount {
                noun: noun.to_string(),
            },
            None => crate::stats::Wording::Speed,
        }
    }

    /// A stored value in a table whose header names the throughput's unit: throughput as a
    /// bare count ("12.3k"), every other metric as [`Metric::show`] ("1.25 ms", "48.0 MiB").
    pub fn show_in_table(&self, v: f64) -> String {
        if self.key == RPS.key {
            fmt_count(v)
        } else {
            self.show(v)
        }
    }

    /// A stored value for people: "12.3k req/s", "1.25 ms", "48.0 MiB", "3.2 µs".
    pub fn show(&self, v: f64) -> String {
        match self.format {
            Format::Rate => format!("{} {}", fmt_count(v), self.unit),
            Format::Micros => fmt_secs(v / 1e6),
            Format::Millis => fmt_secs(v / 1e3),
            Format::Seconds => fmt_secs(v),
            Format::Bytes => fmt_bytes(v),
            Format::MegabytesPerSecond => format!("{v:.0} MB/s"),
            Format::Count => format!("{v:.0}"),
            Format::Number => format!("{v:.2}"),
            Format::Percent => format!("{v:.2}%"),
        }
    }
}

/// Every metric of a results document, whether or not a trial has a value: the registry's
/// metrics of its kind in [`ALL`]'s order, then the figures its study declared
/// (`study.figures`), in their order. The statistics, comparisons and CSV columns of a study.
pub fn of_results(r: &Results) -> Vec<Metric> {
    ALL.iter()
        .filter(|m| m.kinds.contains(&r.study.kind))
        .cloned()
        .chain(r.study.figures.iter().map(crate::figure::Figure::metric))
        .collect()
}

/// The metric of `r` with this key: a registry one or a figure its study declared.
pub fn find(r: &Results, key: &str) -> Option<Metric> {
    get(key).cloned().or_else(|| {
        r.study
            .figures
            .iter()
            .find(|f| f.key == key)
            .map(crate::figure::Figure::metric)
    })
}

/// The metrics a study reports: those of [`of_results`] of which at least one successful trial
/// has a value (a download study has MB/s, a study of clients that report their rate has
/// req/s), the primary metric first.
pub fn of_study(r: &Results) -> Vec<Metric> {
    let primary = primary(r);
    let mut v: Vec<Metric> = vec![primary.clone()];
    v.extend(
        of_results(r).into_iter().filter(|m| {
            m.key != primary.key && r.trials.iter().any(|t| t.ok && m.value(t).is_some())
        }),
    );
    v
}

/// The metric that ranks contenders: throughput for servers; for clients the throughput they
/// report themselves when the study asks for it (`client.rate`), else wall time.
pub fn primary(r: &Results) -> &'static Metric {
    match r.study.kind {
        ContenderRole::Server => &ALL[0],
        ContenderRole::Client if r.trials.iter().any(|t| t.ok && RPS.value(t).is_some()) => &ALL[0],
        ContenderRole::Client => &ALL[2],
    }
}

/// A count for people: "12.3k", "1.25M", "950".
pub fn fmt_count(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.2}M", v / 1e6)
    } else if v >= 1e4 {
        format!("{:.1}k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

/// Bytes for people: "1.70 GiB", "48.0 MiB", and below 1 MiB the exact count, "1,460 B",
/// "209,920 B": sizes of that order are buffer and chunk sizes (a TCP segment's 1,448 or 1,460
/// bytes, a 64 KiB read) whose exact value is the finding, which "1 KiB" would hide.
pub fn fmt_bytes(v: f64) -> String {
    if v >= (1u64 << 30) as f64 {
        format!("{:.2} GiB", v / (1u64 << 30) as f64)
    } else if v >= (1u64 << 20) as f64 {
        format!("{:.1} MiB", v / (1u64 << 20) as f64)
    } else {
        format!("{} B", thousands(v.round()))
    }
}

/// A whole number with thousands separators: "1,460", "-12,000".
fn thousands(v: f64) -> String {
    let digits = format!("{:.0}", v.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0.0 {
        out.insert(0, '-');
    }
    out
}

/// Seconds for people: "2.50 s", "1.25 ms", "3.2 µs".
pub fn fmt_secs(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_below_a_mebibyte_are_exact() {
        let cases = [
            (0.0, "0 B"),
            (512.0, "512 B"),
            (1448.0, "1,448 B"),
            (1460.0, "1,460 B"),
            (1454.5, "1,455 B"),
            (65536.0, "65,536 B"),
            (1_000_000.0, "1,000,000 B"),
            (1_048_575.0, "1,048,575 B"),
            (1_048_576.0, "1.0 MiB"),
            (48.0 * 1_048_576.0, "48.0 MiB"),
            (1.7 * (1u64 << 30) as f64, "1.70 GiB"),
        ];
        for (v, want) in cases {
            assert_eq!(fmt_bytes(v), want, "{v}");
        }
        // Two chunk sizes the old "1 KiB" showed alike now differ.
        assert_ne!(fmt_bytes(1460.0), fmt_bytes(1448.0));
    }

    #[test]
    fn keys_are_unique_and_found() {
        for (i, m) in ALL.iter().enumerate() {
            assert!(ALL[..i].iter().all(|o| o.key != m.key), "{}", m.key);
            assert_eq!(get(&m.key).unwrap().key, m.key);
        }
        assert!(get("nonsense").is_none());
    }

    #[test]
    fn reads_each_field_it_names() {
        let mut t = Trial {
            ok: true,
            ..Trial::default()
        };
        t.metrics.rps = Some(1234.0);
        t.metrics.latency_p99_us = Some(900.0);
        t.metrics.peak_rss_bytes = Some(42);
        t.metrics.sys_s = Some(0.5);
        assert_eq!(RPS.value(&t), Some(1234.0));
        assert_eq!(P99.value(&t), Some(900.0));
        assert_eq!(P50.value(&t), None);
        assert_eq!(PEAK_RSS.value(&t), Some(42.0));
        assert_eq!(SYS.value(&t), Some(0.5));
        assert_eq!(USER.value(&t), None);
        assert_eq!(P99.show(1250.0), "1.25 ms");
        assert_eq!(PEAK_RSS.show(48.0 * 1048576.0), "48.0 MiB");
        assert_eq!(RPS.show(12_345.0), "12.3k req/s");
        // Cores: CPU over the client's wall time, or over a server's measured windows.
        t.metrics.cpu_s = Some(1.5);
        t.metrics.wall_s = Some(3.0);
        assert_eq!(CORES.value(&t), Some(0.5));
        t.metrics.wall_s = None;
        t.phases = vec![crate::study::PhaseResult {
            measure_start_s: 1.0,
            measure_end_s: 2.0,
            ..Default::default()
        }];
        assert_eq!(CORES.value(&t), Some(1.5));
        assert_eq!(PEAK_PSS.value(&t), None);
    }

    #[test]
    fn error_rate_is_errors_over_all_outcomes() {
        let mut t = Trial {
            ok: true,
            ..Trial::default()
        };
        assert_eq!(ERROR_PCT.value(&t), None);
        t.metrics.requests = Some(990);
        t.metrics.errors = Some(10);
        assert_eq!(ERROR_PCT.value(&t), Some(1.0));
        assert_eq!(ERROR_PCT.show(0.25), "0.25%");
        assert_eq!(ERROR_PCT.show_in_table(0.25), "0.25%");
        assert_eq!(
            (RPS.show(12345.0), RPS.show_in_table(12345.0)),
            ("12.3k req/s".to_string(), "12.3k".to_string())
        );
        t.metrics.requests = Some(0);
        t.metrics.errors = Some(0);
        assert_eq!(ERROR_PCT.value(&t), None);
    }
}

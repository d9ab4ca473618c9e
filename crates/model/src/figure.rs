//! Figures a study declares (`[[client.figure]]` in a study file): numbers a contender prints on
//! its stdout as `key=value` tokens (allocations, its own timing of the work), recorded per trial
//! in `metrics.figures` and summarised, compared, tabled and plotted like the registry's
//! metrics. The declarations are written into the results document (`study.figures`), so a
//! reader takes a figure's label, unit and direction from there and never re-declares them.

use crate::metric::{Better, Format, Metric, Read};
use crate::study::ContenderRole;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The unit a contender prints a figure in (the study file's `unit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Unit {
    #[serde(rename = "bytes")]
    Bytes,
    #[serde(rename = "s")]
    Seconds,
    #[serde(rename = "ms")]
    Millis,
    #[serde(rename = "us")]
    Micros,
    #[serde(rename = "count")]
    Count,
    #[serde(rename = "req/s")]
    RequestsPerSecond,
    #[serde(rename = "number")]
    Number,
}

impl Unit {
    /// Every unit with its name in study files, in the order error messages list them.
    pub const ALL: &'static [(&'static str, Unit)] = &[
        ("bytes", Unit::Bytes),
        ("s", Unit::Seconds),
        ("ms", Unit::Millis),
        ("us", Unit::Micros),
        ("count", Unit::Count),
        ("req/s", Unit::RequestsPerSecond),
        ("number", Unit::Number),
    ];

    /// The unit named `name` in a study file.
    pub fn parse(name: &str) -> Option<Unit> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, u)| *u)
    }

    /// The names a study file may use, for error messages: "bytes, s, ms, ...".
    pub fn names() -> String {
        Self::ALL
            .iter()
            .map(|(n, _)| *n)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether values in this unit are a time or a rate: comparisons say "faster/slower".
    fn is_speed(self) -> bool {
        matches!(
            self,
            Unit::Seconds | Unit::Millis | Unit::Micros | Unit::RequestsPerSecond
        )
    }
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// One declared figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// The name of the `key=value` token on stdout (the last one wins); also the metric's key in
    /// `metrics.figures`, `summary[].stats`, comparisons and CSV.
    pub key: String,
    /// Table header and legend.
    pub label: String,
    pub unit: Unit,
    pub better: Better,
    /// Whether the statistics compare contenders on it.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub compared: bool,
    /// Whether a trial whose stdout lacks it fails (otherwise it gets no value and a note).
    #[serde(default, skip_serializing_if = "is_false")]
    pub required: bool,
}

impl Figure {
    /// The metric of this figure: values stored as printed, read from `metrics.figures[key]`,
    /// shown in its unit. Bytes stay bytes (a figure in bytes is as often a chunk of 1,460 B as
    /// an allocation of megabytes: tables shorten large values to 2.7M, and a chunk in MiB
    /// would read 0.00139).
    pub fn metric(&self) -> Metric {
        let (unit, scale, format) = match self.unit {
            Unit::Bytes => ("B", 1.0, Format::Bytes),
            Unit::Seconds => ("s", 1.0, Format::Seconds),
            Unit::Millis => ("ms", 1.0, Format::Millis),
            Unit::Micros => ("µs", 1.0, Format::Micros),
            Unit::Count => ("", 1.0, Format::Count),
            Unit::RequestsPerSecond => ("req/s", 1.0, Format::Rate),
            Unit::Number => ("", 1.0, Format::Number),
        };
        Metric {
            key: Cow::Owned(self.key.clone()),
            label: Cow::Owned(self.label.clone()),
            unit,
            scale,
            better: self.better,
            noun: (!self.unit.is_speed()).then(|| Cow::Owned(self.label.clone())),
            kinds: &[ContenderRole::Client],
            read: Read::Figure,
            format,
            compared: self.compared,
            merged_quantile: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::Trial;

    fn fig(key: &str, unit: Unit, better: Better) -> Figure {
        Figure {
            key: key.into(),
            label: "allocated".into(),
            unit,
            better,
            compared: true,
            required: false,
        }
    }

    #[test]
    fn a_figure_reads_its_own_token_and_shows_in_its_unit() {
        let m = fig("alloc_bytes", Unit::Bytes, Better::Lower).metric();
        let mut t = Trial {
            ok: true,
            ..Trial::default()
        };
        assert_eq!(m.value(&t), None);
        t.metrics.figures.insert("alloc_bytes".into(), 85_934.0);
        t.metrics.figures.insert("other".into(), 1.0);
        assert_eq!(m.value(&t), Some(85_934.0));
        assert_eq!(m.show(2.0 * 1048576.0), "2.0 MiB");
        assert_eq!(m.show(1460.0), "1,460 B");
        assert_eq!((m.unit, m.scale), ("B", 1.0));
        assert!(!m.higher_is_better() && m.is_figure());
        assert_eq!(m.noun.as_deref(), Some("allocated"));
        let s = fig("fanout_s", Unit::Seconds, Better::Lower).metric();
        assert_eq!(s.show(1.0123), "1.01 s");
        assert_eq!(s.noun, None, "times compare as faster/slower");
        let ms = fig("t_ms", Unit::Millis, Better::Lower).metric();
        assert_eq!(ms.show(115.0), "115.00 ms");
        assert_eq!(
            fig("n", Unit::Count, Better::Higher).metric().show(5827.0),
            "5827"
        );
    }

    #[test]
    fn units_parse_by_their_study_names_and_round_trip() {
        assert_eq!(Unit::parse("req/s"), Some(Unit::RequestsPerSecond));
        assert_eq!(Unit::parse("us"), Some(Unit::Micros));
        assert_eq!(Unit::parse("kB"), None);
        assert_eq!(Unit::names(), "bytes, s, ms, us, count, req/s, number");
        let f = fig("alloc_bytes", Unit::Bytes, Better::Lower);
        let json = serde_json::to_string(&f).unwrap();
        assert_eq!(
            json,
            r#"{"key":"alloc_bytes","label":"allocated","unit":"bytes","better":"lower"}"#
        );
        let back: Figure = serde_json::from_str(&json).unwrap();
        assert_eq!(back, f);
        let g: Figure = serde_json::from_str(
            r#"{"key":"x","label":"x","unit":"req/s","better":"higher","compared":false}"#,
        )
        .unwrap();
        assert!(!g.compared && !g.required);
    }
}

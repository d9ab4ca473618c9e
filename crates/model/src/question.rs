//! A study's questions: the claims of its original, declared once in the study file
//! (`[[question]]`), tested exactly as declared, as one Holm family, and answered with a verdict.
//!
//! A question names two sides (contenders, each at a point of the sweep), an operator and a
//! metric: `"elixir-hedwig > node-botkit"` (a difference of the metric's values, not of
//! "better": `<` on a latency means lower latency), `"a ~ b within 5%"` (equivalence, by two
//! one-sided tests), `"ruby < php, perl"` (the left side against each on the right: all must
//! hold, an intersection-union test), and with `across = "cpus=all vs cpus=1"` an interaction
//! (each side's figure is its ratio between the two conditions: "the second CPU helps A more
//! than B"). A side may add conditions of its own to the question's `at`:
//! `node[cpus=all] ~ node[cpus=1] within 10%`. A `window = "0s..1s"` reads `rps` (or `share`,
//! the window's responses over the measured run's) from each trial's per-second series: the 1 s
//! and 15 s figures of a 30 s run, the first second's share.
//!
//! This module parses and holds the declaration; [`answer`] computes the answers from a results
//! document (pure, recomputed with its summary).

mod answer;
mod claim;
#[cfg(test)]
mod tests;

pub use answer::{
    answers, by_field, metric_of, point_at, points_meeting, side_conditions, Answer, Verdict, SHARE,
};
pub use claim::{conditions, Claim, Op, Side};

use serde::{Deserialize, Serialize};

/// One `[[question]]` as the study declared it (kept in the results as declared; the parsed
/// form is derived from it whenever it is needed, never stored beside it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Question {
    /// A short stable name ("bots-throughput-c50").
    pub id: String,
    /// The original's words this question tests, quoted.
    pub original: String,
    /// The claim, in [`Claim`]'s grammar.
    pub claim: String,
    /// The metric keys compared (several: the claim must hold on each, as "best in both time
    /// and memory").
    pub metric: Vec<String>,
    /// The point both sides are read at: `k=v` conditions on the sweep's axes, space-separated
    /// (`variant=NAME` names a variant); empty for a study with one point.
    pub at: String,
    /// An interaction: two condition sets, `"cpus=all vs cpus=1"`; each side's figure is its
    /// ratio between them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub across: Option<String>,
    /// A window of each trial's measured per-second series, `"0s..1s"` (from the measured
    /// window's start), for `rps` and `share`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// The original's effect as a ratio of the left side over the right (from its own figures),
    /// or for an equivalence the ratio it saw; what power is computed at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<f64>,
}

/// A ratio as the questions show it, with three decimals below 10 (a 0.3% effect shows:
/// "1.003x", "0.912x"), then "12.3x", "123x".
pub fn factor(v: f64) -> String {
    match v {
        v if !v.is_finite() => "∞".into(),
        v if v >= 100.0 => format!("{v:.0}x"),
        v if v >= 10.0 => format!("{v:.1}x"),
        v => format!("{v:.3}x"),
    }
}

/// `k=v` conditions on a study's axes, in the order given.
pub type Conditions = Vec<(String, String)>;

/// A window of the measured per-second series, in seconds from the measured window's start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub from_s: f64,
    pub to_s: f64,
}

/// The metrics a window can read from the per-second series.
pub const WINDOW_METRICS: &[&str] = &["rps", "share"];

impl Question {
    /// The claim parsed, or why it cannot be.
    pub fn parsed(&self) -> Result<Claim, String> {
        claim::parse(&self.claim)
    }

    /// The question's point conditions.
    pub fn at_conditions(&self) -> Result<Vec<(String, String)>, String> {
        conditions(&self.at)
    }

    /// The two condition sets of an interaction (`None`: not one).
    pub fn across_conditions(&self) -> Result<Option<[Conditions; 2]>, String> {
        let Some(a) = &self.across else {
            return Ok(None);
        };
        let Some((x, y)) = a.split_once(" vs ") else {
            return Err(format!(
                "across {a:?} is two condition sets joined by \" vs \" (\"cpus=all vs cpus=1\")"
            ));
        };
        let (x, y) = (conditions(x)?, conditions(y)?);
        if x.is_empty() || y.is_empty() {
            return Err(format!("across {a:?}: each side names a condition"));
        }
        Ok(Some([x, y]))
    }

    /// The window, or why it cannot be read.
    pub fn window(&self) -> Result<Option<Window>, String> {
        let Some(w) = &self.window else {
            return Ok(None);
        };
        let bad =
            || format!("window {w:?} is FROM..TO in seconds of the measured run (\"0s..1s\")");
        let (a, b) = w.split_once("..").ok_or_else(bad)?;
        let secs = |s: &str| {
            crate::units::parse_duration(s.trim())
                .map(|d| d.as_secs_f64())
                .map_err(|_| bad())
        };
        let (from_s, to_s) = (secs(a)?, secs(b)?);
        if to_s <= from_s {
            return Err(format!("window {w:?} ends before it starts"));
        }
        Ok(Some(Window { from_s, to_s }))
    }

    /// Every rule of the declaration that needs no results: the claim's grammar, the
    /// conditions, the window and its metrics, the expected effect. The lab adds the rules
    /// that need the study (contenders, metrics, points).
    pub fn check(&self) -> Result<Claim, String> {
        if self.id.trim().is_empty() {
            return Err("a question needs an id".into());
        }
        let c = self.parsed()?;
        self.at_conditions()?;
        self.across_conditions()?;
        if self.metric.is_empty() {
            return Err(format!("question {:?} names no metric", self.id));
        }
        if self.window()?.is_some() {
            if let Some(m) = self
                .metric
                .iter()
                .find(|m| !WINDOW_METRICS.contains(&m.as_str()))
            {
                return Err(format!(
                    "question {:?}: a window reads {} from the per-second series, not {m:?}",
                    self.id,
                    WINDOW_METRICS.join(" or ")
                ));
            }
        }
        if let Some(e) = self.expected {
            if !(e.is_finite() && e > 0.0) {
                return Err(format!(
                    "question {:?}: expected is a ratio above 0, not {e}",
                    self.id
                ));
            }
        }
        if c.right.len() > 1 && self.across.is_some() {
            return Err(format!(
                "question {:?}: an interaction compares one side with one other",
                self.id
            ));
        }
        Ok(c)
    }
}

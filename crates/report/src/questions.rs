//! The questions table: each of the study's questions with the original's words and effect,
//! ours with its interval, and the verdict — the report's first screen, the first thing
//! `barrage run` prints, and (as Markdown) a study README's "original vs here" section. It
//! renders the model's answers ([`barrage_model::question::answers`]); it judges nothing.

use barrage_model::question::factor;
use barrage_model::question::{metric_of, Answer, Question, Verdict};
use barrage_model::study::Results;
use std::fmt::Write as _;

/// One question as the tables show it: every cell as text.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub id: String,
    /// The original's words, as the study quotes them.
    pub original: String,
    /// The claim with its metric and point ("ruby-threads < perl-ithreads-lwp, wall at n=10").
    pub claim: String,
    /// The original's effect ("0.77x"), or "—".
    pub expected: String,
    /// Ours: the two sides' medians ("1.00 s vs 1.30 s").
    pub here: String,
    /// The ratio of geometric means with its 95% interval ("0.77x [0.75, 0.79]").
    pub ratio: String,
    /// The Holm-adjusted p over the questions.
    pub p: String,
    /// The power this run had at the original's effect, with the trials a group that 0.8 needs
    /// when it fell short ("0.51 (7 for 0.8)"), or "—".
    pub power: String,
    pub verdict: Verdict,
    /// What the verdict leaves out: the power of an inconclusive answer, why one is unanswered.
    pub detail: String,
}

/// The header of [`Row::cells`].
pub const HEADER: [&str; 9] = [
    "question",
    "the original",
    "claim (metric, point)",
    "original",
    "here (medians)",
    "ratio [95% CI]",
    "p (Holm)",
    "power at original",
    "verdict",
];

impl Row {
    /// The cells under [`HEADER`].
    pub fn cells(&self) -> [String; 9] {
        let verdict = if self.detail.is_empty() {
            self.verdict.as_str().to_string()
        } else {
            format!("{}: {}", self.verdict.as_str(), self.detail)
        };
        [
            self.id.clone(),
            self.original.clone(),
            self.claim.clone(),
            self.expected.clone(),
            self.here.clone(),
            self.ratio.clone(),
            self.p.clone(),
            self.power.clone(),
            verdict,
        ]
    }
}

/// The rows of `r`'s questions, in declaration order (empty for a study without questions).
pub fn rows(r: &Results) -> Vec<Row> {
    // Always from the trials, by the model's one function: a results file written by an older
    // barrage (or before its last trial) shows the answers of this one.
    let answers = barrage_model::question::answers(r);
    r.study
        .questions
        .iter()
        .zip(&answers)
        .map(|(q, a)| row(r, q, a))
        .collect()
}

fn row(r: &Results, q: &Question, a: &Answer) -> Row {
    let metrics: Vec<String> = q
        .metric
        .iter()
        .map(|k| metric_of(r, k).map_or(k.clone(), |m| m.label.to_string()))
        .collect();
    let mut claim = format!("{}, {}", q.claim.trim(), metrics.join(" and "));
    if let Some(w) = &q.window {
        let _ = write!(claim, " over {w}");
    }
    if !q.at.trim().is_empty() {
        let _ = write!(claim, " at {}", q.at.trim());
    }
    if let Some(x) = &q.across {
        let _ = write!(claim, ", {x}");
    }
    let shown = metric_of(r, &a.metric);
    let show = |v: Option<f64>| match (v, &shown) {
        (Some(v), _) if q.across.is_some() => factor(v),
        (Some(v), Some(m)) => m.show(v),
        (Some(v), None) => format!("{v}"),
        (None, _) => "—".into(),
    };
    let single = q.metric.len() == 1 && q.parsed().is_ok_and(|c| c.right.len() == 1);
    let here = if a.left_median.is_none() {
        "—".into()
    } else if single {
        format!("{} vs {}", show(a.left_median), show(a.right_median))
    } else {
        // The weakest pair of a claim on several sides or metrics: say which.
        let label = shown
            .as_ref()
            .map_or(a.metric.clone(), |m| m.label.to_string());
        format!(
            "{} vs {} ({} vs {}, {label})",
            show(a.left_median),
            show(a.right_median),
            a.left,
            a.right
        )
    };
    let ratio = match (a.ratio, a.ci95) {
        (Some(x), Some(ci)) => format!(
            "{} [{}, {}]",
            factor(x),
            factor(ci.lo).trim_end_matches('x'),
            factor(ci.hi).trim_end_matches('x')
        ),
        _ => "—".into(),
    };
    let p = a
        .p_adjusted
        .map_or("—".into(), barrage_model::stats::format_p);
    let power = match (a.power, a.trials_needed) {
        (Some(pw), Some(n)) if pw < 0.8 => format!("{pw:.2} ({n} for 0.8)"),
        (Some(pw), None) if pw < 0.8 => format!("{pw:.2} (> 10,000 for 0.8)"),
        (Some(pw), _) => format!("{pw:.2}"),
        (None, _) => "—".into(),
    };
    let detail = match a.verdict {
        Verdict::Inconclusive => {
            let mut d = match (a.power, q.expected) {
                (Some(pw), Some(e)) => format!(
                    "power {:.2} at the original's {} with {} trials",
                    pw,
                    factor(e),
                    a.n
                ),
                (Some(pw), None) => format!("power {pw:.2} with {} trials", a.n),
                _ => format!("{} trials; no expected effect to size the power at", a.n),
            };
            match a.trials_needed {
                Some(n) if a.power.is_some_and(|p| p < 0.8) => {
                    let _ = write!(d, "; 0.8 needs {n} a side");
                }
                None if a.power.is_some_and(|p| p < 0.8) => {
                    d.push_str("; 0.8 needs more than 10,000 a side");
                }
                _ => {}
            }
            d
        }
        _ => a.note.clone(),
    };
    Row {
        id: q.id.clone(),
        original: q.original.clone(),
        claim,
        expected: q.expected.map_or("—".into(), factor),
        here,
        ratio,
        p,
        power,
        verdict: a.verdict,
        detail,
    }
}

/// A Markdown table cell: pipes escaped, lines joined.
fn md(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The questions table in Markdown, with a line under it counting the verdicts (empty without
/// questions).
pub fn markdown(r: &Results) -> String {
    let rows = rows(r);
    if rows.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "| {} |\n|{}\n",
        HEADER.join(" | "),
        "---|".repeat(HEADER.len())
    );
    for row in &rows {
        let cells: Vec<String> = row.cells().iter().map(|c| md(c)).collect();
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    let _ = writeln!(s, "\n{}", tally(r, &rows));
    s
}

/// The line under the table: the verdicts counted, the family and its level, the machine.
pub fn tally(r: &Results, rows: &[Row]) -> String {
    let count = |v: Verdict| rows.iter().filter(|x| x.verdict == v).count();
    let tested = rows.len() - count(Verdict::Unanswered);
    if tested == 0 {
        return format!(
            "{} questions, none tested: the run has no data for them (each row says why). \
             Measured on {}.",
            rows.len(),
            crate::study_section::machine_text(&r.machine)
        );
    }
    format!(
        "{} questions: {} agree, {} disagree, {} inconclusive, {} unanswered. Each is tested as \
         declared (Welch's t on log values; an equivalence by two one-sided tests), Holm-corrected \
         over the {tested} tested at α = 0.05; power at the original's effect at α / {tested}. \
         Measured on {}.",
        rows.len(),
        count(Verdict::Agrees),
        count(Verdict::Disagrees),
        count(Verdict::Inconclusive),
        count(Verdict::Unanswered),
        crate::study_section::machine_text(&r.machine)
    )
}

/// The questions table for a terminal: one block per question (the cells are too wide for
/// columns), then the tally.
pub fn text(r: &Results) -> String {
    let rows = rows(r);
    if rows.is_empty() {
        return String::new();
    }
    let mut s = format!("questions of {} (its original's claims):\n", r.study.name);
    for row in &rows {
        let _ = writeln!(
            s,
            "  {:<12} {}  [{}]",
            row.verdict.as_str().to_uppercase(),
            row.id,
            row.claim
        );
        let _ = writeln!(
            s,
            "               original {} | here {} | {} | p {} | power {}",
            row.expected, row.here, row.ratio, row.p, row.power
        );
        if !row.detail.is_empty() {
            let _ = writeln!(s, "               {}", row.detail);
        }
    }
    let _ = writeln!(s, "{}\n", tally(r, &rows));
    s
}

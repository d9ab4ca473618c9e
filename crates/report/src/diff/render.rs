//! A [`Comparison`] laid out: a terminal table, Markdown ready to paste into a pull request, or JSON
//! (`barrage.compare/1`, the value itself). Every format says what was compared, the noise
//! floor, each row's verdict and the notes; none recomputes anything.

use crate::table::fmt_p;
use barrage_model::compare::{Comparison, DocKind, Row, Verdict};
use std::fmt::Write as _;

/// A Markdown table longer than this shows the rows called changes first and folds the full
/// table: a pull request comment should lead with what changed, not with forty quiet rows.
const FOLD_ROWS: usize = 12;

pub use barrage_model::compare::percent;

/// A relative change with its sign: "+394.1%", "-79.9%", "0.0%".
pub fn signed_percent(c: f64) -> String {
    let v = c * 100.0;
    if v.abs() < 0.05 {
        "0.0%".into()
    } else if v.abs() >= 1000.0 {
        format!("{v:+.0}%")
    } else {
        format!("{v:+.1}%")
    }
}

/// The row's change: "+394.1%", "from 0" (nothing before), or "-" (a side missing).
pub fn change_text(r: &Row) -> String {
    match (r.change, r.old, r.new) {
        (Some(c), _, _) => signed_percent(c),
        (None, Some(_), Some(_)) => "from 0".into(),
        _ => "-".into(),
    }
}

/// The interval of the change (the ratio's, less 1) at the level its corrected p is judged at,
/// the level said when it is not 95%: "[-51.2%, -48.8%]", "[+2.1%, +9.8%] at 99.2%", or "-".
pub fn ci_text(r: &Row) -> String {
    r.test
        .as_ref()
        .and_then(|t| t.shown_interval())
        .map_or("-".into(), |(i, level)| {
            let at = if (level - 0.95).abs() > 1e-9 {
                format!(" at {}", barrage_model::stats::format_level(level))
            } else {
                String::new()
            };
            format!(
                "[{}, {}]{at}",
                signed_percent(i.lo - 1.0),
                signed_percent(i.hi - 1.0)
            )
        })
}

/// The corrected p-value judged, "untested" where no test was possible, "-" where none ran.
pub fn p_text(r: &Row) -> String {
    match &r.test {
        Some(t) if t.testable => fmt_p(t.p_adjusted.unwrap_or(t.p)),
        Some(_) => "untested".into(),
        None => "-".into(),
    }
}

/// The verdict in words; a study row judged without a test says so.
pub fn verdict_text(r: &Row) -> String {
    let untested = r.test.as_ref().is_some_and(|t| !t.testable);
    let called = |w: &str| {
        if untested {
            format!("{w} (untested)")
        } else {
            w.to_string()
        }
    };
    match r.verdict {
        Verdict::Regression => called("regression"),
        Verdict::Improvement => called("improvement"),
        Verdict::NotSignificant => "not significant".into(),
        Verdict::WithinNoise => "within noise".into(),
        Verdict::NotJudged => "not judged".into(),
        Verdict::Missing => "missing".into(),
        Verdict::NotEnoughData => "cannot judge".into(),
    }
}

/// How a row is named in a sentence: "p50", "p50 of rust-axum at c=64".
pub fn row_name(r: &Row) -> String {
    match (r.contender.is_empty(), r.point.is_empty()) {
        (true, _) => r.label.clone(),
        (false, true) => format!("{} of {}", r.label, r.contender),
        (false, false) => format!("{} of {} at {}", r.label, r.contender, r.point),
    }
}

/// "2 regressions (throughput, p50), 0 improvements beyond the ±5% noise floor.", with the
/// figures that cannot be judged named after it.
pub fn summary(d: &Comparison) -> String {
    let floor = format!("±{} noise floor", percent(d.noise));
    let names = |v: Verdict| {
        let all: Vec<String> = d
            .rows
            .iter()
            .filter(|r| r.verdict == v)
            .map(row_name)
            .collect();
        match all.len() {
            0 => String::new(),
            n if n > 5 => format!(" ({}, and {} more)", all[..5].join(", "), n - 5),
            _ => format!(" ({})", all.join(", ")),
        }
    };
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let quiet = d
        .rows
        .iter()
        .filter(|r| r.verdict == Verdict::NotSignificant)
        .count();
    let unproven = if quiet > 0 {
        format!(
            "; {} beyond it not significant",
            plural(quiet, "change", "changes")
        )
    } else {
        String::new()
    };
    // Rows that cannot be judged are never "no change": they are said, with their names.
    let unjudged = d.unjudged().count();
    let cannot = if unjudged > 0 {
        format!(
            "; cannot judge {}{}: changed beyond it, with too little data to tell from chance",
            plural(unjudged, "figure", "figures"),
            names(Verdict::NotEnoughData)
        )
    } else {
        String::new()
    };
    if d.regressions == 0 && d.improvements == 0 && unjudged == 0 {
        return format!("No change beyond the {floor}{unproven}.");
    }
    format!(
        "{}{}, {}{} beyond the {floor}{unproven}{cannot}.",
        plural(d.regressions, "regression", "regressions"),
        names(Verdict::Regression),
        plural(d.improvements, "improvement", "improvements"),
        names(Verdict::Improvement)
    )
}

fn what(d: &Comparison) -> &'static str {
    match d.kind {
        DocKind::Load => "load runs",
        DocKind::Study => "study results",
    }
}

/// The table's header and rows as text cells: studies with the contender (and the point, when
/// the study has several); the interval and p wherever a row was tested.
pub fn cells(d: &Comparison, rows: &[&Row]) -> Vec<Vec<String>> {
    let points = rows.iter().any(|r| !r.point.is_empty());
    let study = d.kind == DocKind::Study;
    let tested = study || d.rows.iter().any(|r| r.test.is_some());
    let mut head: Vec<&str> = Vec::new();
    if points {
        head.push("point");
    }
    if study {
        head.push("contender");
    }
    head.extend(["metric", "old", "new", "change"]);
    if tested {
        head.extend(["CI", "p"]);
    }
    head.push("verdict");
    let mut out = vec![head.iter().map(|s| s.to_string()).collect()];
    for r in rows {
        let mut line = Vec::new();
        if points {
            line.push(r.point.clone());
        }
        if study {
            line.push(r.contender.clone());
        }
        line.extend([
            r.label.clone(),
            r.old_text.clone(),
            r.new_text.clone(),
            change_text(r),
        ]);
        if tested {
            line.extend([ci_text(r), p_text(r)]);
        }
        line.push(verdict_text(r));
        out.push(line);
    }
    out
}

/// The terminal table: a header line, the aligned table, the notes, the summary.
pub fn text(d: &Comparison) -> String {
    let mut s = format!(
        "barrage compare: {} -> {} ({}, noise floor ±{})\n\n",
        d.base,
        d.new,
        what(d),
        percent(d.noise)
    );
    if let Some(m) = &d.machines {
        let _ = writeln!(s, "note: {m}\n");
    }
    let rows: Vec<&Row> = d.rows.iter().collect();
    s.push_str(&crate::terminal::align(&cells(d, &rows)));
    s.push('\n');
    for n in &d.notes {
        let _ = writeln!(s, "note: {n}");
    }
    let _ = writeln!(s, "{}", summary(d));
    s
}

/// Markdown for a pull request: a heading naming both sides, the summary with the noise floor,
/// the table (long ones: the changed rows, then every row folded), the notes.
pub fn markdown(d: &Comparison) -> String {
    let mut s = format!(
        "### barrage compare: `{}` → `{}`\n\n{}, noise floor ±{}. {}\n\n",
        d.base,
        d.new,
        capital(what(d)),
        percent(d.noise),
        bold_regressions(&summary(d), d.regressions)
    );
    if let Some(m) = &d.machines {
        let _ = write!(s, "> **{}**\n\n", crate::markdown::cell(m));
    }
    let all: Vec<&Row> = d.rows.iter().collect();
    if all.len() <= FOLD_ROWS {
        md_table(&mut s, d, &all);
    } else {
        let changed: Vec<&Row> = d
            .rows
            .iter()
            .filter(|r| {
                matches!(
                    r.verdict,
                    Verdict::Regression
                        | Verdict::Improvement
                        | Verdict::NotSignificant
                        | Verdict::NotEnoughData
                        | Verdict::Missing
                )
            })
            .collect();
        if !changed.is_empty() {
            md_table(&mut s, d, &changed);
            s.push('\n');
        }
        let _ = write!(s, "<details><summary>All {} rows</summary>\n\n", all.len());
        md_table(&mut s, d, &all);
        s.push_str("\n</details>\n");
    }
    if !d.notes.is_empty() {
        s.push('\n');
        for n in &d.notes {
            let _ = writeln!(s, "- {}", crate::markdown::cell(n));
        }
    }
    s
}

/// The summary with its regression count in bold, so a reviewer's eye lands on it.
fn bold_regressions(summary: &str, n: usize) -> String {
    if n == 0 {
        return summary.to_string();
    }
    let word = if n == 1 { "regression" } else { "regressions" };
    summary.replacen(&format!("{n} {word}"), &format!("**{n} {word}**"), 1)
}

/// The rows as a Markdown table (regressions in bold): `barrage compare -f md`'s, and the
/// comparison section's of `barrage report A B -f md`.
pub fn md_table(s: &mut String, d: &Comparison, rows: &[&Row]) {
    let cells = cells(d, rows);
    let head = &cells[0];
    let _ = writeln!(s, "| {} |", head.join(" | "));
    // Figures align right, names and verdicts left.
    let rule: Vec<&str> = head
        .iter()
        .map(|h| match h.as_str() {
            "old" | "new" | "change" | "CI" | "p" => "--:",
            _ => "---",
        })
        .collect();
    let _ = writeln!(s, "|{}|", rule.join("|"));
    for (line, r) in cells[1..].iter().zip(rows) {
        let shown: Vec<String> = line
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let c = crate::markdown::cell(c);
                if i == line.len() - 1 && r.verdict == Verdict::Regression {
                    format!("**{c}**")
                } else {
                    c
                }
            })
            .collect();
        let _ = writeln!(s, "| {} |", shown.join(" | "));
    }
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// The JSON document (`barrage.compare/1`): the [`Comparison`] itself.
pub fn json(d: &Comparison) -> String {
    let mut s = serde_json::to_string_pretty(d).unwrap_or_default();
    s.push('\n');
    s
}

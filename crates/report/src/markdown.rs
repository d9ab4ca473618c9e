//! Markdown output: the header, notes, summary and comparison tables of every section, for a
//! README or a pull request. Plots are left to the HTML report.

use crate::page::{Page, Section};
use crate::table::{Column, Table};
use std::fmt::Write as _;

/// Renders the page as GitHub-flavoured Markdown.
pub fn render(page: &Page) -> String {
    let mut s = format!("# {}\n", cell(&page.title));
    for sec in &page.sections {
        section(&mut s, sec);
    }
    s
}

/// The answer first: the question, the ranked table, the verdicts, one line per kind of note.
fn answer(s: &mut String, a: &crate::answer::Answer) {
    let _ = writeln!(s, "**{}**\n", cell(&a.question));
    answer_table(s, a);
    let _ = writeln!(s, "\n{}\n", cell(&a.ranked_by));
    for n in &a.network {
        let _ = writeln!(s, "{}\n", cell(n));
    }
    for v in &a.verdicts {
        let _ = writeln!(s, "- {}", cell(v));
    }
    if !a.verdicts.is_empty() {
        s.push('\n');
    }
    for n in &a.notes {
        let _ = writeln!(s, "> **Note:** {}", cell(&n.text));
    }
    if !a.notes.is_empty() {
        s.push('\n');
    }
}

/// The answer's ranked table alone (also what the HTML report's "Copy as Markdown" copies).
pub(crate) fn answer_table(s: &mut String, a: &crate::answer::Answer) {
    let heads: Vec<String> = a
        .columns
        .iter()
        .map(|c| {
            if c.group.is_empty() {
                cell(&c.header)
            } else {
                format!("{} {}", cell(&c.group), cell(&c.header))
            }
        })
        .collect();
    let _ = writeln!(
        s,
        "| # | contender | {} |\n|---:|---|{}",
        heads.join(" | "),
        "---:|".repeat(heads.len())
    );
    for (i, r) in a.rows.iter().enumerate() {
        let cells: Vec<String> = r
            .cells
            .iter()
            .map(|c| {
                if c.best {
                    format!("**{}**", cell(&c.text))
                } else {
                    cell(&c.text)
                }
            })
            .collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} |",
            i + 1,
            cell(&r.name),
            cells.join(" | ")
        );
    }
}

fn section(s: &mut String, sec: &Section) {
    let _ = write!(s, "\n## {}\n\n", cell(&sec.heading));
    if let Some(m) = &sec.machine {
        let _ = write!(s, "Machine: {}\n\n", cell(m));
    }
    if !sec.questions.is_empty() {
        s.push_str("### The original's claims, tested\n\n");
        let _ = writeln!(
            s,
            "| {} |\n|{}",
            crate::questions::HEADER.join(" | "),
            "---|".repeat(crate::questions::HEADER.len())
        );
        for r in &sec.questions {
            let cells: Vec<String> = r.cells().iter().map(|c| cell(c)).collect();
            let _ = writeln!(s, "| {} |", cells.join(" | "));
        }
        let _ = writeln!(s, "\n{}\n", cell(&sec.questions_tally));
        if sec.answer.is_some() {
            s.push_str("Exploratory, beyond the questions: each contender against the best at its point (a Holm family of its own).\n\n");
        }
    }
    if let Some(a) = &sec.answer {
        answer(s, a);
    }
    if !sec.meta.is_empty() {
        s.push_str("| | |\n|---|---|\n");
        for (k, v) in &sec.meta {
            let _ = writeln!(s, "| {} | {} |", cell(k), cell(v));
        }
        s.push('\n');
    }
    for n in &sec.notes {
        let _ = writeln!(s, "> **Note:** {}", cell(n));
    }
    if !sec.notes.is_empty() {
        s.push('\n');
    }
    if let Some(t) = &sec.table {
        table(s, t);
    }
    if !sec.verdicts.is_empty() {
        let header = crate::page::Verdict::HEADER;
        let _ = writeln!(
            s,
            "| {} |\n|{}",
            header.join(" | "),
            "---|".repeat(header.len())
        );
        for v in &sec.verdicts {
            let cells: Vec<String> = v.cells().iter().map(|c| cell(c)).collect();
            let _ = writeln!(s, "| {} |", cells.join(" | "));
        }
        s.push('\n');
    }
    if let Some(c) = &sec.comparison {
        // The rows as `barrage compare -f md` lays them out.
        let rows: Vec<_> = c.rows.iter().collect();
        crate::diff::render::md_table(s, c, &rows);
        s.push('\n');
    }
    if !sec.recovery.is_empty() {
        recovery(s, &sec.recovery);
    }
    if !sec.counts.is_empty() {
        counts(s, &sec.counts);
    }
    if !sec.failures.is_empty() {
        s.push_str("Failed trials:\n\n");
        for f in &sec.failures {
            let _ = writeln!(
                s,
                "- {} / {} trial {}: {}",
                cell(&f.point),
                cell(&f.contender),
                f.trial,
                cell(&f.reason)
            );
        }
        s.push('\n');
    }
}

/// Overload and recovery: each open-loop phase of each trial.
fn recovery(s: &mut String, rows: &[crate::page::Recovery]) {
    let header = crate::page::Recovery::HEADER;
    let _ = write!(
        s,
        "Overload and recovery (latency from the intended send time; normal again: the first second with no errors and a p99 within 2x the phase's final p99 or under 10 ms; each phase runs on fresh connections):\n\n| {} |\n|{}\n",
        header.join(" | "),
        "---|".repeat(header.len())
    );
    for r in rows {
        let cells: Vec<String> = r.cells().iter().map(|c| cell(c)).collect();
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    s.push('\n');
}

/// Every phase's raw counts, one row each.
fn counts(s: &mut String, rows: &[crate::page::Counts]) {
    let phased = rows.iter().any(|r| !r.phase.is_empty());
    let header = crate::page::Counts::header(phased);
    let _ = writeln!(
        s,
        "Raw counts per trial (r responses, w requests written, e errors, t mean latency):\n\n| {} |\n|{}",
        header.join(" | "),
        "---|".repeat(header.len())
    );
    for r in rows {
        let cells: Vec<String> = r.cells(phased).iter().map(|c| cell(c)).collect();
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    s.push('\n');
}

/// The summary table: medians with their 95 % CI, then the comparison of the first metric
/// (and of every other metric whose difference is significant).
pub fn table(s: &mut String, t: &Table) {
    let with_point = t.rows.iter().any(|r| !r.point.is_empty());
    s.push('|');
    if with_point {
        s.push_str(" point |");
    }
    s.push_str(" contender | trials |");
    for m in &t.columns {
        let _ = write!(s, " {} |", m.header());
    }
    s.push_str(" comparison |\n|");
    let cols = t.columns.len() + 3 + usize::from(with_point);
    s.push_str(&"---|".repeat(cols));
    s.push('\n');
    for r in &t.rows {
        s.push('|');
        if with_point {
            let _ = write!(s, " {} |", cell(&r.point));
        }
        let trials = if r.failed > 0 {
            format!("{} ({} failed)", r.trials, r.failed)
        } else {
            r.trials.to_string()
        };
        let _ = write!(s, " {} | {} |", cell(&r.contender), trials);
        for c in &r.cells {
            let _ = write!(s, " {} |", c.text());
        }
        let _ = writeln!(s, " {} |", cell(&comparison_text(t, r)));
    }
    s.push('\n');
    s.push_str(values_note(t));
    s.push_str("\n\n");
}

/// What the cells mean.
pub fn values_note(t: &Table) -> &'static str {
    let merged = t
        .rows
        .iter()
        .any(|r| r.cells.iter().any(|c| c.headline.is_some() && !c.bare));
    let second_best = t.columns.iter().any(|m| matches!(m, Column::SecondBest(_)));
    match (merged, second_best) {
        (true, true) => "Values: median over successful trials [95% confidence interval of the median]; 2nd best: the second highest trial throughput (\"2nd best of N\"); latency percentiles: of all trials' merged HDR histograms [CI of the per-trial percentile].",
        (true, false) => "Values: median over successful trials [95% confidence interval of the median]; latency percentiles: of all trials' merged HDR histograms [CI of the per-trial percentile].",
        (false, true) => "Values: median over successful trials [95% confidence interval of the median]; 2nd best: the second highest trial throughput (\"2nd best of N\").",
        (false, false) => "Values: median over successful trials [95% confidence interval of the median].",
    }
}

/// The comparison column: the headline metric's verdict, plus any other metric whose
/// difference is significant.
pub fn comparison_text(t: &Table, r: &crate::table::Row) -> String {
    let mut parts = Vec::new();
    // The best row is the one the others of its group are compared with on the first column.
    let reference = t.rows.iter().any(|o| {
        o.group_key() == r.group_key()
            && o.vs_best
                .first()
                .and_then(|c| c.as_ref())
                .is_some_and(|c| c.reference == r.name())
    });
    if reference && r.vs_best.first().is_some_and(|c| c.is_none()) {
        // A median of the trials that survived is the others' reference, not "the best".
        parts.push(if r.failed > 0 {
            format!(
                "highest median {} of its {} successful trials ({} failed)",
                t.columns[0].name(),
                r.trials - r.failed,
                r.failed
            )
        } else {
            format!("best {}", t.columns[0].name())
        });
    }
    for (i, c) in r.vs_best.iter().enumerate() {
        if let Some(c) = c {
            if i == 0 || c.significant {
                parts.push(format!("{}: {}", t.columns[i].name(), c.text));
            }
        }
    }
    // Row notes (e.g. the load generator was the bottleneck) belong with the figures they qualify.
    parts.extend(r.notes.iter().map(|n| format!("note: {n}")));
    parts.join("; ")
}

/// Escapes a table cell (pipes and line breaks would end it).
pub(crate) fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

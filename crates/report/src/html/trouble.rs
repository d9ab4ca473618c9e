//! The study section's tables of what went wrong and what came after: failed trials grouped
//! with their stderr, recovery after overload, and the counts per second.

use crate::page::Section;
use crate::svg::esc;
use std::fmt::Write as _;

/// Failed trials grouped per contender, point and reason (count, peak memory, time to failure),
/// with every failed trial's stderr folded below.
pub(super) fn failure_groups(s: &mut String, sec: &Section, id: &str) {
    let _ = writeln!(
        s,
        "<h3 id=\"{id}-failures\">Failed trials</h3>\n<table><tr><th>contender</th><th>point</th><th>reason</th><th>failed</th><th>peak memory</th><th>failed after</th></tr>"
    );
    for g in &sec.failure_groups {
        let _ = write!(
            s,
            "<tr class=\"failed\"><td class=\"key\">{}</td><td class=\"key\">{}</td><td>{}</td><td class=\"num\">{}/{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            esc(&g.contender),
            esc(&g.point),
            esc(&g.reason),
            g.failed,
            g.trials,
            g.peak_bytes.map_or("-".into(), |b| barrage_model::metric::fmt_bytes(b as f64)),
            g.after_s.map_or("-".into(), |w| barrage_model::metric::WALL.show(w)),
        );
    }
    s.push_str("</table>\n");
    let with_stderr: Vec<_> = sec
        .failures
        .iter()
        .filter(|f| !f.stderr_tail.trim().is_empty())
        .collect();
    let _ = write!(
        s,
        "<details><summary>Each failed trial ({}; {} with stderr)</summary><table><tr><th>point</th><th>contender</th><th>trial</th><th>reason</th></tr>",
        sec.failures.len(),
        with_stderr.len()
    );
    for f in &sec.failures {
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            esc(&f.point),
            esc(&f.contender),
            f.trial,
            esc(&f.reason),
        );
    }
    s.push_str("</table>");
    for f in with_stderr {
        let _ = write!(
            s,
            "<p class=\"small\">{} {} trial {}: stderr (tail)</p><pre>{}</pre>",
            esc(&f.contender),
            esc(&f.point),
            f.trial,
            esc(&f.stderr_tail)
        );
    }
    s.push_str("</details>\n");
}

/// Overload and recovery: each open-loop phase of each trial.
pub(super) fn recovery(s: &mut String, rows: &[crate::page::Recovery]) {
    s.push_str("<h3>Overload and recovery</h3>\n<table><tr>");
    for h in crate::page::Recovery::HEADER {
        let _ = write!(s, "<th>{}</th>", esc(h));
    }
    s.push_str("</tr>");
    for r in rows {
        s.push_str("<tr>");
        for (i, c) in r.cells().iter().enumerate() {
            // Numbers right-aligned: trial, rates, errors, latencies.
            let num = matches!(i, 1 | 3 | 4 | 5 | 7 | 8);
            let _ = write!(
                s,
                "<td{}>{}</td>",
                if num { " class=\"num\"" } else { "" },
                esc(c)
            );
        }
        s.push_str("</tr>");
    }
    s.push_str("</table>\n<p>Latency is measured from each request's intended send time (coordinated omission corrected). <em>Normal again after</em>: seconds from the phase's start to its first second with no errors and a p99 within 2x the median p99 of the phase's last three seconds (or under 10 ms); <em>never</em> when those last seconds still had errors or delivered under 90% of the target rate. Each phase runs on fresh connections: this is the server's own recovery, not the drain of the generator's backlog.</p>\n");
}

/// Every phase's raw counts, folded (a full grid has hundreds of rows).
pub(super) fn counts(s: &mut String, rows: &[crate::page::Counts]) {
    use crate::page::Counts;
    let phased = rows.iter().any(|r| !r.phase.is_empty());
    let header = Counts::header(phased);
    let _ = write!(
        s,
        "<h3>Raw counts per trial (r: w: e: t:)</h3>\n<details><summary>{} rows: r responses, w requests written, e errors (by class), t mean latency</summary>\n<table><tr>",
        rows.len()
    );
    for h in &header {
        let _ = write!(s, "<th>{}</th>", esc(h));
    }
    s.push_str("</tr>");
    for r in rows {
        s.push_str(if r.ok {
            "<tr>"
        } else {
            "<tr class=\"failed\">"
        });
        for (h, c) in header.iter().zip(r.cells(phased)) {
            let class = if Counts::numeric(h) {
                " class=\"num\""
            } else {
                ""
            };
            let _ = write!(s, "<td{class}>{}</td>", esc(&c));
        }
        s.push_str("</tr>");
    }
    s.push_str("</table></details>\n");
}

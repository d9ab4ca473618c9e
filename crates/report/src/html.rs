//! The self-contained HTML report: one file, inline CSS (a dark theme when the reader's system
//! asks for one, `prefers-color-scheme`), inline SVG plots, one inline script (hover, zoom and
//! "Copy as Markdown" of each answer table, [`crate::interact`]; the page is whole without it),
//! no font or image fetched from anywhere, so it opens offline and prints (plots avoid page
//! breaks).

use crate::answer::{Answer, NoteLine};
use crate::page::{Page, Section};
use crate::svg::esc;
use crate::table::Table;
use barrage_model::study::WarningKind;
use std::fmt::Write as _;

mod trouble;
use trouble::{counts, failure_groups, recovery};

const CSS: &str = r#"
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1a1a1a; margin: 0 auto; padding: 16px 20px 48px; max-width: 1400px; }
h1 { font-size: 24px; margin: 8px 0 4px; }
h2 { font-size: 19px; margin: 32px 0 8px; border-bottom: 2px solid #0072B2; padding-bottom: 3px; }
h3 { font-size: 16px; margin: 22px 0 6px; }
h4 { font-size: 14px; margin: 14px 0 4px; }
table { border-collapse: collapse; margin: 8px 0 12px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
td.num { text-align: right; white-space: nowrap; }
td.key { white-space: nowrap; }
td.cmp { min-width: 18em; font-size: 12px; }
table.summary td, table.ranked td, table.summary th { white-space: nowrap; }
table.summary tr.first td { border-top: 2px solid #888; }
td.best { font-weight: 700; }
td.failed, tr.failed td { color: #B03A00; }
p.question { font-size: 16px; margin: 4px 0 10px; color: #333; }
p.machine { font-size: 13px; margin: 2px 0 8px; color: #555; }
.answer { display: flex; flex-wrap: wrap; gap: 12px 24px; align-items: flex-start; }
.answer-text { flex: 1 1 560px; min-width: 0; overflow-x: auto; }
table.ranked { margin-top: 0; }
table.ranked th { white-space: nowrap; }
table.ranked th.group { text-align: center; }
table.ranked { font-size: 13px; }
p.caption, p.small { font-size: 12px; color: #444; margin: 2px 0 8px; }
ul.verdicts { margin: 6px 0; padding-left: 18px; }
ul.verdicts li { margin: 3px 0; }
figure.main { flex: 0 1 520px; min-width: 360px; }
.notes { margin: 10px 0; font-size: 12.5px; }
nav.toc { margin: 12px 0; padding: 6px 10px; background: #f4f7fb; font-size: 13px; }
details { margin: 8px 0; }
details > summary { cursor: pointer; font-weight: 600; }
details.note > summary { font-weight: normal; }
details.section > summary { font-size: 17px; margin-top: 12px; }
section.multiples .plots figure { width: 32%; }
.wide { overflow-x: auto; max-width: 100%; }
table.meta th { width: 10em; }
table.questions td.verdict { font-weight: 600; }
tr.agrees td.verdict { color: #007A4D; }
tr.disagrees td.verdict { color: #B03A00; }
.note { background: #fff8ec; border-left: 3px solid #C98500; padding: 2px 8px; margin: 3px 0; }
.sig { font-weight: 600; }
.plots { display: flex; flex-wrap: wrap; gap: 12px 10px; }
figure { margin: 0; break-inside: avoid; page-break-inside: avoid; }
svg.plot { max-width: 100%; height: auto; background: #fff; }
svg.plot text { font: 11px system-ui, "DejaVu Sans", sans-serif; fill: #222; }
svg.plot text.title { font-size: 13px; font-weight: 600; }
svg.plot text.axis-label { font-size: 12px; }
svg.plot .grid { stroke: #e4e4e4; stroke-width: 1; }
svg.plot .frame { fill: none; stroke: #888; stroke-width: 1; }
svg.plot .line { fill: none; stroke-width: 2; stroke-linejoin: round; }
svg.plot .errbar { fill: none; stroke: #222; stroke-width: 1.2; }
svg.plot .shade.warmup { fill: #E69F00; fill-opacity: 0.13; }
svg.plot .shade.measure { fill: #009E73; fill-opacity: 0.10; }
svg.plot .shade.phase { fill: #56B4E9; fill-opacity: 0.10; }
svg.plot text.shade-label { font-size: 10px; fill: #555; }
svg.plot .mark { stroke: #555; stroke-dasharray: 4 3; }
svg.plot .trial { fill: #fff; stroke: #222; stroke-width: 1; }
svg.plot .failed path { stroke: #D55E00; stroke-width: 2.5; }
svg.plot .failed text { fill: #D55E00; font-weight: 600; }
tr.failed td { color: #D55E00; }
pre { background: #f6f6f6; padding: 6px 8px; overflow-x: auto; font-size: 12px; max-height: 14em; }
footer { margin-top: 40px; color: #666; font-size: 12px; }
@media print { body { max-width: none; padding: 0; } h2 { break-before: auto; } .plots { gap: 6px; } }
svg.plot .zx * { vector-effect: non-scaling-stroke; }
svg.plot.zoomed .axes > .x { display: none; }
svg.plot.zoomable { cursor: crosshair; }
svg.plot .xhair { stroke: #444; stroke-width: 1; pointer-events: none; }
svg.plot .sel { fill: #0072B2; fill-opacity: 0.15; pointer-events: none; }
.tip { position: fixed; z-index: 10; pointer-events: none; white-space: pre; background: #fff; border: 1px solid #888; border-radius: 3px; padding: 3px 7px; font-size: 12px; font-variant-numeric: tabular-nums; box-shadow: 0 1px 4px rgba(0,0,0,.2); }
@media print { .tip, svg.plot .xhair, svg.plot .sel { display: none; } }
button.copy-md { font: 12px system-ui, sans-serif; margin: 0 0 6px; padding: 2px 8px; cursor: pointer; }
@media print { button.copy-md { display: none; } }
@media screen and (prefers-color-scheme: dark) {
:root { color-scheme: dark; }
body { background: #16181c; color: #e2e2e2; }
h2 { border-bottom-color: #56B4E9; }
th, td { border-color: #4a4d52; }
th { background: #262a30; }
p.question { color: #d0d0d0; }
p.machine { color: #aaa; }
p.caption, p.small { color: #b0b0b0; }
footer { color: #999; }
nav.toc { background: #1f2630; }
.note { background: #2c2618; border-left-color: #E69F00; }
pre { background: #22252a; }
td.failed, tr.failed td { color: #FF8A4C; }
svg.plot { background: #1c1f24; }
svg.plot text { fill: #dcdcdc; }
svg.plot text.shade-label { fill: #aaa; }
svg.plot .grid { stroke: #33373d; }
svg.plot .frame { stroke: #777; }
svg.plot .errbar { stroke: #ddd; }
svg.plot .trial { fill: #1c1f24; stroke: #ddd; }
svg.plot .mark, svg.plot .xhair { stroke: #aaa; }
svg.plot [stroke='#000000'] { stroke: #e8e8e8; }
svg.plot [fill='#000000'] { fill: #e8e8e8; }
.tip { background: #24272c; color: #eee; border-color: #777; }
}
"#;

/// Renders the page as one HTML document.
pub fn render(page: &Page, generator: &str) -> String {
    let mut s = String::with_capacity(1 << 16);
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{t}</title><style>{CSS}</style></head><body>\n<h1>{t}</h1>\n",
        t = esc(&page.title)
    );
    // One study alone: its heading would repeat the page's title.
    let alone = page.sections.len() == 1 && page.sections[0].answer.is_some();
    for (i, sec) in page.sections.iter().enumerate() {
        section(&mut s, sec, &format!("s{i}"), alone);
    }
    let _ = write!(s, "<footer>Generated by {}. Self-contained: no network; one inline script adds hover and zoom.</footer>\n{}</body></html>\n", esc(generator), crate::interact::script());
    s
}

/// The questions first: the original's claims, each with ours and its verdict.
fn questions(s: &mut String, rows: &[crate::questions::Row], tally: &str) {
    s.push_str(
        "<h3 id=\"questions\">The original's claims, tested</h3><table class=\"questions\"><tr>",
    );
    for h in crate::questions::HEADER {
        let _ = write!(s, "<th>{}</th>", esc(h));
    }
    s.push_str("</tr>");
    for r in rows {
        let _ = write!(s, "<tr class=\"{}\">", r.verdict.as_str());
        for (i, c) in r.cells().iter().enumerate() {
            let class = if i == crate::questions::HEADER.len() - 1 {
                " class=\"verdict\""
            } else {
                ""
            };
            let _ = write!(s, "<td{class}>{}</td>", esc(c));
        }
        s.push_str("</tr>");
    }
    let _ = writeln!(s, "</table><p class=\"caption\">{}</p>", esc(tally));
}

/// The answer first: the question, the ranked table with its verdicts beside the main chart.
fn answer(s: &mut String, a: &Answer, chart: Option<&crate::page::Plot>) {
    let _ = writeln!(s, "<p class=\"question\">{}</p>", esc(&a.question));
    s.push_str("<div class=\"answer\"><div class=\"answer-text\"><table class=\"ranked\">");
    if a.columns.iter().any(|c| !c.group.is_empty()) {
        // Groups of columns ("req/s" over c=1 .. c=1000) on a row of their own.
        s.push_str("<tr><th colspan=\"2\"></th>");
        let mut i = 0;
        while i < a.columns.len() {
            let g = &a.columns[i].group;
            let n = a.columns[i..].iter().take_while(|c| &c.group == g).count();
            let _ = write!(s, "<th colspan=\"{n}\" class=\"group\">{}</th>", esc(g));
            i += n;
        }
        s.push_str("</tr>");
    }
    s.push_str("<tr><th>#</th><th>contender</th>");
    for c in &a.columns {
        let _ = write!(s, "<th>{}</th>", esc(&c.header));
    }
    s.push_str("</tr>");
    for (i, r) in a.rows.iter().enumerate() {
        let _ = write!(
            s,
            "<tr><td class=\"num\">{}</td><td class=\"key\">{}</td>",
            i + 1,
            esc(&r.name)
        );
        for c in &r.cells {
            let class = match (c.failed, c.best) {
                (true, _) => "num failed",
                (false, true) => "num best",
                _ => "num",
            };
            let _ = write!(s, "<td class=\"{class}\">{}</td>", esc(&c.text));
        }
        s.push_str("</tr>");
    }
    let bold = if a.rows.iter().flat_map(|r| &r.cells).any(|c| c.best) {
        " Bold: the best of its column."
    } else {
        ""
    };
    let _ = write!(
        s,
        "</table><p class=\"caption\">{}{bold}</p>",
        esc(&a.ranked_by)
    );
    for n in &a.network {
        let _ = write!(s, "<p class=\"caption\">{}</p>", esc(n));
    }
    if !a.verdicts.is_empty() {
        s.push_str("<ul class=\"verdicts\">");
        for v in &a.verdicts {
            let _ = write!(s, "<li>{}</li>", esc(v));
        }
        s.push_str("</ul>");
    }
    s.push_str("</div>");
    if let Some(p) = chart.filter(|p| !p.is_empty()) {
        let _ = write!(s, "<figure class=\"main\">{}</figure>", p.to_svg());
    }
    s.push_str("</div>\n");
}

/// The study's warnings, one line per kind; a kind with several messages folds them.
fn folded_notes(s: &mut String, notes: &[NoteLine], facts: &[String]) {
    if notes.is_empty() && facts.is_empty() {
        return;
    }
    s.push_str("<div class=\"notes\">");
    for f in facts {
        let _ = write!(s, "<p class=\"note\">{}</p>", esc(f));
    }
    for n in notes {
        if n.details.len() > 1 {
            let _ = write!(
                s,
                "<details class=\"note\"><summary>{}</summary><ul>",
                esc(&n.text)
            );
            for d in &n.details {
                let _ = write!(s, "<li>{}</li>", esc(d));
            }
            s.push_str("</ul></details>");
        } else {
            let _ = write!(s, "<p class=\"note\">{}</p>", esc(&n.text));
        }
    }
    s.push_str("</div>\n");
}

fn plot_group(s: &mut String, g: &crate::page::PlotGroup, level: &str) {
    let _ = writeln!(s, "<{level}>{}</{level}>", esc(&g.heading));
    for n in &g.notes {
        let _ = writeln!(s, "<p class=\"small\">{}</p>", esc(n));
    }
    s.push_str("<div class=\"plots\">");
    for p in &g.plots {
        if p.is_empty() {
            let _ = write!(
                s,
                "<p class=\"small\">{}: no data to plot.</p>",
                esc(p.title())
            );
        } else {
            let _ = write!(s, "<figure>{}</figure>", p.to_svg());
        }
    }
    s.push_str("</div>\n");
}

fn section(s: &mut String, sec: &Section, id: &str, alone: bool) {
    let class = if sec.small_multiples {
        " class=\"multiples\""
    } else {
        ""
    };
    let _ = writeln!(s, "<section id=\"{id}\"{class}>");
    if sec.folded {
        let _ = writeln!(
            s,
            "<details class=\"section\"><summary>{}</summary>",
            esc(&sec.heading)
        );
    } else if !alone {
        let _ = writeln!(s, "<h2>{}</h2>", esc(&sec.heading));
    }
    if let Some(m) = &sec.machine {
        let _ = writeln!(s, "<p class=\"machine\">Machine: {}</p>", esc(m));
    }
    if !sec.questions.is_empty() {
        questions(s, &sec.questions, &sec.questions_tally);
    }
    if let Some(a) = &sec.answer {
        if !sec.questions.is_empty() {
            s.push_str("<p class=\"caption\">Exploratory, beyond the questions: each contender against the best at its point (a Holm family of its own).</p>");
        }
        answer(s, a, sec.answer_chart.as_ref());
        // The table in Markdown, by the Markdown report's own code, for the script's "Copy as
        // Markdown" button (inert without the script).
        let mut md = String::new();
        crate::markdown::answer_table(&mut md, a);
        let _ = writeln!(s, "<template class=\"answer-md\">{}</template>", esc(&md));
    }
    // The section's own facts already say what these two kinds say.
    let kinds: Vec<NoteLine> = sec
        .answer
        .iter()
        .flat_map(|a| &a.notes)
        .filter(|n| !matches!(n.kind, WarningKind::FewTrials | WarningKind::FailedTrials))
        .cloned()
        .collect();
    folded_notes(s, &kinds, &sec.notes);
    // The table of contents: what follows, each folded part named.
    let mut toc: Vec<(&str, String)> = Vec::new();
    if sec.table.is_some() {
        toc.push(("results", "Results table".into()));
    }
    if sec.comparison.is_some() {
        toc.push(("change", "Baseline vs change".into()));
    }
    if !sec.plots.is_empty() {
        toc.push(("plots", "Plots".into()));
    }
    if !sec.failure_groups.is_empty() {
        toc.push(("failures", "Failed trials".into()));
    }
    if !sec.recovery.is_empty() {
        toc.push(("recovery", "Overload and recovery".into()));
    }
    if !sec.verdicts.is_empty() {
        toc.push((
            "comparisons",
            format!("All {} comparisons", sec.verdicts.len()),
        ));
    }
    if !sec.timelines.is_empty() {
        toc.push(("timelines", format!("Timelines ({})", sec.timelines.len())));
    }
    if !sec.counts.is_empty() {
        toc.push(("counts", "Raw counts".into()));
    }
    if !sec.meta.is_empty() {
        toc.push(("about", "About this run".into()));
    }
    if toc.len() > 1 {
        s.push_str("<nav class=\"toc\">Contents: ");
        let links: Vec<String> = toc
            .iter()
            .map(|(a, t)| format!("<a href=\"#{id}-{a}\">{}</a>", esc(t)))
            .collect();
        s.push_str(&links.join(" · "));
        s.push_str("</nav>\n");
    }
    if let Some(t) = &sec.table {
        let _ = writeln!(s, "<h3 id=\"{id}-results\">Results</h3>");
        table(s, t, sec.verdicts.is_empty());
    }
    if let Some(c) = &sec.comparison {
        // Under an answer the full list (every metric) is folded.
        let folded = sec.answer.is_some();
        if folded {
            let _ = writeln!(
                s,
                "<details id=\"{id}-change\"><summary>Baseline vs change: every metric ({} rows)</summary>",
                c.rows.len()
            );
        } else {
            let _ = writeln!(s, "<h3 id=\"{id}-change\">Baseline vs change</h3>");
        }
        // The rows as `barrage compare` lays them out; a change called is highlighted.
        let rows: Vec<_> = c.rows.iter().collect();
        let cells = crate::diff::render::cells(c, &rows);
        s.push_str("<table><tr>");
        for h in &cells[0] {
            let _ = write!(s, "<th>{}</th>", esc(h));
        }
        s.push_str("</tr>");
        for (line, r) in cells[1..].iter().zip(&rows) {
            s.push_str("<tr>");
            let last = line.len() - 1;
            for (i, cell) in line.iter().enumerate() {
                let class = match i {
                    _ if i == last && r.verdict.is_change() => " class=\"sig\"",
                    _ if i == last || (!r.point.is_empty() && i == 0) => "",
                    _ if cell
                        .starts_with(|ch: char| ch.is_ascii_digit() || "+-<[".contains(ch)) =>
                    {
                        " class=\"num\""
                    }
                    _ => "",
                };
                let _ = write!(s, "<td{class}>{}</td>", esc(cell));
            }
            s.push_str("</tr>");
        }
        s.push_str("</table>\n");
        if folded {
            s.push_str("</details>\n");
        }
    }
    if !sec.plots.is_empty() {
        let _ = writeln!(s, "<div id=\"{id}-plots\"></div>");
    }
    for g in &sec.plots {
        plot_group(s, g, "h3");
    }
    if !sec.failure_groups.is_empty() {
        failure_groups(s, sec, id);
    }
    if !sec.recovery.is_empty() {
        let _ = writeln!(s, "<div id=\"{id}-recovery\"></div>");
        recovery(s, &sec.recovery);
    }
    if !sec.verdicts.is_empty() {
        let _ = write!(
            s,
            "<details id=\"{id}-comparisons\"><summary>All {} comparisons (each contender with the best at its point, every metric)</summary>\n<table><tr>",
            sec.verdicts.len()
        );
        for h in crate::page::Verdict::HEADER {
            let _ = write!(s, "<th>{}</th>", esc(h));
        }
        s.push_str("</tr>");
        for v in &sec.verdicts {
            s.push_str("<tr>");
            for (i, c) in v.cells().iter().enumerate() {
                let class = match i {
                    5 if v.significant => " class=\"sig\"",
                    6 => " class=\"num\"",
                    _ => "",
                };
                let _ = write!(s, "<td{class}>{}</td>", esc(c));
            }
            s.push_str("</tr>");
        }
        s.push_str("</table>\n<p class=\"small\">A is the better of the two by median; the verdict comes with Welch's t-test on log values (Mann-Whitney U where a value is not positive), its p-value Holm-corrected over all the study's comparisons, at α = 0.05.</p></details>\n");
    }
    if !sec.timelines.is_empty() {
        let _ = writeln!(
            s,
            "<details id=\"{id}-timelines\"><summary>Timelines: CPU, memory, throughput and errors over time, per contender and point ({})</summary>",
            sec.timelines.len()
        );
        for g in &sec.timelines {
            plot_group(s, g, "h4");
        }
        s.push_str("</details>\n");
    }
    if !sec.counts.is_empty() {
        let _ = writeln!(s, "<div id=\"{id}-counts\"></div>");
        counts(s, &sec.counts);
    }
    if !sec.meta.is_empty() {
        let _ = write!(
            s,
            "<details id=\"{id}-about\"><summary>About this run: machine, date, version, pinning, trials</summary><table class=\"meta\">"
        );
        for (k, v) in &sec.meta {
            let _ = write!(s, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(v));
        }
        s.push_str("</table></details>\n");
    }
    if sec.folded {
        s.push_str("</details>");
    }
    s.push_str("</section>\n");
}

/// The summary table, one line per row, ranked within each point; `with_comparison`: the
/// comparison column (documents without a study's comparisons, e.g. `barrage load` runs).
fn table(s: &mut String, t: &Table, with_comparison: bool) {
    let with_point = t.rows.iter().any(|r| !r.point.is_empty());
    // A wide table scrolls on its own instead of squeezing its text columns into tall rows.
    s.push_str("<div class=\"wide\"><table class=\"summary\"><tr>");
    if with_point {
        s.push_str("<th>point</th>");
    }
    s.push_str("<th>contender</th><th>trials</th>");
    for m in &t.columns {
        let _ = write!(s, "<th>{}</th>", esc(&m.header()));
    }
    if with_comparison {
        s.push_str("<th>comparison</th>");
    }
    s.push_str("</tr>");
    let mut last_point = None;
    for r in &t.rows {
        // A new point starts with a rule; its label is written once.
        let first = last_point != Some(&r.point);
        last_point = Some(&r.point);
        let class = match (first && with_point, r.failed > 0 && r.failed == r.trials) {
            (true, true) => " class=\"first failed\"",
            (true, false) => " class=\"first\"",
            (false, true) => " class=\"failed\"",
            _ => "",
        };
        let _ = write!(s, "<tr{class}>");
        if with_point {
            let _ = write!(
                s,
                "<td class=\"key\">{}</td>",
                if first { esc(&r.point) } else { String::new() }
            );
        }
        let trials = if r.failed > 0 {
            format!("{} ({} failed)", r.trials, r.failed)
        } else {
            r.trials.to_string()
        };
        let _ = write!(
            s,
            "<td class=\"key\">{}</td><td class=\"num\">{}</td>",
            esc(&r.contender),
            esc(&trials)
        );
        for c in &r.cells {
            let _ = write!(s, "<td class=\"num\">{}</td>", esc(&c.text()));
        }
        if with_comparison {
            // One comparison per line: "throughput: ...; p50: ..." reads as a list.
            let cmp = esc(&crate::markdown::comparison_text(t, r)).replace("; ", "<br>");
            let _ = write!(s, "<td class=\"cmp\">{cmp}</td>");
        }
        s.push_str("</tr>");
    }
    let tests = if with_comparison {
        " Comparisons: ratio of medians [95% interval of the ratio] with Welch's t-test on log values (Mann-Whitney U where a value is not positive) at α = 0.05."
    } else {
        " Ranked within each point by the primary metric; every comparison is under All comparisons."
    };
    let _ = writeln!(
        s,
        "</table></div>\n<p class=\"small\">{}{tests}</p>",
        esc(crate::markdown::values_note(t))
    );
}

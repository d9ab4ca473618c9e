//! CSV output in long form (one line per section, point, contender and metric), so a
//! spreadsheet or a script can pivot it any way: the summary statistics, the comparison with the
//! best contender at the point, and, for two files, the baseline-vs-change lines.

use crate::page::Page;
use crate::table::fmt_p;
use barrage_model::stats::Summary;
use std::fmt::Write as _;

pub const HEADER: &str = "section,point,contender,metric,unit,trials,failed,n,median,mean,stddev,min,max,ci_low,ci_high,vs,ratio,p_value,verdict,baseline_n,baseline_median,baseline_ci_low,baseline_ci_high";

/// Renders every table of the page.
pub fn render(page: &Page) -> String {
    let mut s = String::from(HEADER);
    s.push('\n');
    for sec in &page.sections {
        if let Some(t) = &sec.table {
            for r in &t.rows {
                for (i, m) in t.columns.iter().enumerate() {
                    let c = &r.cells[i];
                    // The 2nd best column is a view of the throughput's trials (its row here
                    // would repeat the throughput's statistics); summary.csv has it as a number.
                    if c.bare {
                        continue;
                    }
                    let cmp = r.vs_best.get(i).and_then(|c| c.as_ref());
                    let sm = c.summary.as_ref();
                    let _ = writeln!(
                        s,
                        "{},{},{},{},{},{},{},{},{},{},{},{},,,,",
                        field(&sec.heading),
                        field(&r.point),
                        field(&r.contender),
                        m.key(),
                        field(m.unit()),
                        r.trials,
                        r.failed,
                        stat_fields(sm),
                        field(cmp.map_or("", |c| c.reference.as_str())),
                        num(cmp.map(|c| c.ratio)),
                        cmp.and_then(|c| c.p).map_or(String::new(), fmt_p),
                        field(cmp.map_or("", |c| c.text.as_str())),
                    );
                }
            }
        }
        for v in &sec.verdicts {
            let _ = writeln!(
                s,
                "{},{},{},{},,,,,,,,,,,,{},{},{},{},,,,",
                field(&sec.heading),
                field(&v.point),
                field(&v.a),
                field(&v.metric),
                field(&v.b),
                num(Some(v.ratio)),
                v.p.map_or(String::new(), fmt_p),
                field(&format!("{} ({})", v.phrase, v.between)),
            );
        }
        if let Some(cmp) = &sec.comparison {
            for r in &cmp.rows {
                // The model's rows, in the registry's shown unit like the table's lines (a
                // study's own figure has no scale); the verdict in `barrage compare`'s words.
                let (scale, unit) =
                    barrage_model::metric::get(&r.metric).map_or((1.0, ""), |m| (m.scale, m.unit));
                let t = r.test.as_ref();
                let _ = writeln!(
                    s,
                    "{},{},{},{},{},,,{},{},,,,,,,baseline,{},{},{},{},{},,",
                    field(&sec.heading),
                    field(&r.point),
                    field(&r.contender),
                    field(&r.metric),
                    field(unit),
                    t.map_or(String::new(), |t| t.trials_new.to_string()),
                    num(r.new.map(|v| v * scale)),
                    num(r.change.map(|c| c + 1.0)),
                    t.filter(|t| t.testable)
                        .map_or(String::new(), |t| fmt_p(t.p_judged())),
                    field(&crate::diff::render::verdict_text(r)),
                    t.map_or(String::new(), |t| t.trials_old.to_string()),
                    num(r.old.map(|v| v * scale)),
                );
            }
        }
    }
    s
}

/// `n,median,mean,stddev,min,max,ci_low,ci_high` of a summary (empty fields without one).
/// A single value's standard deviation is written as 0, as it always was in this export.
fn stat_fields(sm: Option<&Summary>) -> String {
    let ci = sm.and_then(|s| s.ci95_median);
    [
        sm.map_or(0, |s| s.n).to_string(),
        num(sm.map(|s| s.median)),
        num(sm.map(|s| s.mean)),
        num(sm.map(|s| s.stddev.unwrap_or(0.0))),
        num(sm.map(|s| s.min)),
        num(sm.map(|s| s.max)),
        num(ci.map(|c| c.lo)),
        num(ci.map(|c| c.hi)),
    ]
    .join(",")
}

fn num(v: Option<f64>) -> String {
    v.map_or(String::new(), |v| format!("{v}"))
}

/// Quotes a CSV field when it needs it (RFC 4180).
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn quoting() {
        assert_eq!(super::field("a,b"), "\"a,b\"");
        assert_eq!(super::field("say \"x\""), "\"say \"\"x\"\"\"");
        assert_eq!(super::field("plain"), "plain");
    }
}

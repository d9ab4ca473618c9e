//! A row's comparison with its reference in words: "1.47x slower [1.41, 1.53] than X (p =
//! 0.008)", from the model's comparison of a study (A the best, B this row: turned around so the
//! row is the subject) or from comparing two cells here (load documents, two result files).

use super::{Cell, Column, Comparison};
use barrage_model::metric::Metric;
use barrage_model::stats::{self, Interval, Wording};

/// Compares `this` with `reference` on `column` (the model's test, uncorrected: the two cells are
/// not part of a study's family of comparisons).
pub fn compare(
    column: &Column,
    ref_name: &str,
    reference: &Cell,
    this: &Cell,
) -> Option<Comparison> {
    reference.summary.as_ref()?;
    this.summary.as_ref()?;
    let m = column.metric();
    let w = m.wording();
    let c = stats::compare_worded(
        &this.values,
        &reference.values,
        column.higher_is_better(),
        &w,
    )?;
    Some(worded(&c, &w, ref_name))
}

/// The model's comparison `c` of the best (A, named `best`) with a row (B) on `m`, from the row's
/// side: its p-value is the study's corrected one.
pub fn from_model(c: &stats::Comparison, m: &Metric, best: &str) -> Comparison {
    worded(&turned(c), &m.wording(), best)
}

/// B against A instead of A against B.
fn turned(c: &stats::Comparison) -> stats::Comparison {
    let inv = |x: f64| {
        if x == 0.0 {
            f64::INFINITY
        } else if x.is_infinite() {
            0.0
        } else {
            1.0 / x
        }
    };
    stats::Comparison {
        median_a: c.median_b,
        median_b: c.median_a,
        ratio: inv(c.ratio),
        a_better: c.median_a != c.median_b && !c.a_better,
        ratio_ci95: c.ratio_ci95.map(|i| Interval {
            lo: inv(i.hi),
            hi: inv(i.lo),
        }),
        ratio_ci: c.ratio_ci.map(|i| Interval {
            lo: inv(i.hi),
            hi: inv(i.lo),
        }),
        n_a: c.n_b,
        n_b: c.n_a,
        ..c.clone()
    }
}

/// `c` (this row as A, the reference as B) in words.
fn worded(c: &stats::Comparison, w: &Wording, ref_name: &str) -> Comparison {
    let amount = if c.ratio == 1.0 {
        "equal".to_string()
    } else {
        stats::amount_text(c, w)
    };
    let ci = stats::interval_text(c);
    let p = c.p_adjusted.unwrap_or(c.p_value);
    let text = if !c.testable {
        let trials = match c.n_a.min(c.n_b) {
            1 => "one trial".to_string(),
            n => format!("{n} trials"),
        };
        format!("{amount}{ci} than {ref_name} ({trials}: too few to test)")
    } else if c.significant {
        format!("{amount}{ci} than {ref_name} ({})", p_text(p))
    } else {
        format!(
            "no significant difference from {ref_name} ({}; medians {amount}{ci})",
            p_text(p)
        )
    };
    Comparison {
        reference: ref_name.to_string(),
        factor: c.factor,
        ratio: c.ratio,
        p: c.testable.then_some(p),
        significant: c.testable && c.significant,
        text,
    }
}

/// "1.47", "108" — as the terminal formats factors.
pub fn fmt_factor(f: f64) -> String {
    stats::format_factor(f)
}

/// A p-value as every output writes it: the model's one format ("0.03", "0.0012", "< 0.0001").
pub fn fmt_p(p: f64) -> String {
    stats::format_p(p)
}

/// "p = 0.03", "p = 0.0012", "p < 0.0001".
pub fn p_text(p: f64) -> String {
    let s = stats::format_p(p);
    if s.starts_with('<') {
        format!("p {s}")
    } else {
        format!("p = {s}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use barrage_model::metric::{PEAK_RSS, RPS};

    #[test]
    fn the_models_comparison_is_worded_from_the_rows_side() {
        let best = [147.0, 148.0, 146.0, 147.5, 147.2];
        let this = [100.0, 101.0, 99.0, 100.5, 100.2];
        let ab = stats::compare_worded(&best, &this, true, &Wording::Speed).unwrap();
        let mine = from_model(&ab, &RPS, "fast");
        let col = Column::Stat(RPS);
        let direct = compare(
            &col,
            "fast",
            &Cell::new(best.to_vec(), &col),
            &Cell::new(this.to_vec(), &col),
        )
        .unwrap();
        assert_eq!(mine.text, direct.text);
        assert!(
            mine.text.starts_with("1.47x slower [1.46, 1.48] than fast"),
            "{}",
            mine.text
        );
        assert!((mine.ratio - direct.ratio).abs() < 1e-12);
        // Amounts turn around too: the best uses less memory, so this row uses more.
        let ab = stats::compare_worded(
            &[10.0, 11.0],
            &[20.0, 21.0],
            false,
            &Wording::Amount {
                noun: "memory".into(),
            },
        )
        .unwrap();
        let t = from_model(&ab, &PEAK_RSS, "lean");
        assert!(
            t.text.contains("more memory") && t.text.contains("than lean"),
            "{}",
            t.text
        );
    }

    #[test]
    fn p_values_have_one_format_everywhere() {
        for (p, bare, worded) in [
            (0.00005, "< 0.0001", "p < 0.0001"),
            (0.0007, "0.0007", "p = 0.0007"),
            (0.0079, "0.0079", "p = 0.0079"),
            (0.042, "0.04", "p = 0.04"),
            (1.0, "1.00", "p = 1.00"),
        ] {
            assert_eq!(fmt_p(p), bare);
            assert_eq!(fmt_p(p), stats::format_p(p));
            assert_eq!(p_text(p), worded);
        }
    }
}

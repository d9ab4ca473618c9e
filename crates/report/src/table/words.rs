//! A row's comparison with its reference in words: "1.47x slower [1.41, 1.53] than X (p =
//! 0.008)". The comparison is the model's (a study's: A the best of a group, B this row, its p
//! Holm-corrected over the study), read from the row's side by the model's
//! [`compare::turned`]: the report words a verdict, it does not test.

use super::Comparison;
use barrage_model::compare;
use barrage_model::metric::Metric;
use barrage_model::stats::{self, Wording};

/// The model's comparison `c` of the best (A, named `best`) with a row (B) on `m`, from the
/// row's side: its p-value is the study's corrected one.
pub fn from_model(c: &stats::Comparison, m: &Metric, best: &str) -> Comparison {
    let w = m.wording();
    worded(&compare::turned(c, &w), &w, best)
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
        let same = [146.9, 148.1, 146.2, 147.6, 147.0];
        // The study's family of two comparisons, as `summary::update` makes and corrects it.
        let mut ab = stats::compare_worded(&best, &this, true, &Wording::Speed).unwrap();
        let mut same_ab = stats::compare_worded(&best, &same, true, &Wording::Speed).unwrap();
        stats::adjust(&mut [(&mut ab, Wording::Speed), (&mut same_ab, Wording::Speed)]);
        // Alone the interval is the 95% one; corrected for the family of two, the smallest p's
        // Holm level is 1 - 0.05/2 = 97.5%, and the interval widens to match it.
        let alone = stats::compare_worded(&best, &this, true, &Wording::Speed).unwrap();
        assert!(
            from_model(&alone, &RPS, "fast")
                .text
                .starts_with("1.47x slower [1.46, 1.48] than fast (p < 0.0001)"),
            "{}",
            from_model(&alone, &RPS, "fast").text
        );
        let mine = from_model(&ab, &RPS, "fast");
        assert!(
            mine.text
                .starts_with("1.47x slower [1.45, 1.49] at 97.5% than fast (p < 0.0001)"),
            "{}",
            mine.text
        );
        assert_eq!(mine.reference, "fast");
        assert!((mine.ratio - 100.2 / 147.2).abs() < 1e-12, "{}", mine.ratio);
        assert!(mine.significant);
        let quiet = from_model(&same_ab, &RPS, "fast");
        assert!(
            quiet
                .text
                .starts_with("no significant difference from fast"),
            "{}",
            quiet.text
        );
        assert!(!quiet.significant);
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
    fn a_single_trial_says_no_test() {
        let ab = stats::compare_worded(
            &[10.0],
            &[1080.0],
            false,
            &Wording::Amount {
                noun: "memory".into(),
            },
        )
        .unwrap();
        let t = from_model(&ab, &PEAK_RSS, "a");
        assert_eq!(
            t.text,
            "108x more memory than a (one trial: too few to test)"
        );
        assert_eq!((t.p, t.significant), (None, false));
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

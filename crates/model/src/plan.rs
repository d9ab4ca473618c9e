//! Trials by power from a pilot (`barrage plan`): for every comparison of contenders the pilot
//! made on a metric, the spread of its trials in the test's own scale (the standard deviation of
//! the log values, pooled over the two), and the trials a side the lab's test needs to detect a
//! given ratio at the study's corrected level ([`crate::stats::power`]). The study's count is
//! the largest of them: every comparison then has the power asked for.
//!
//! The level: the lab Holm-corrects all of a study's comparisons together, so its strictest
//! step tests at α / m for m comparisons; planning at that level (Bonferroni's) is what makes
//! every one of them reach the power, whichever p-values come out.

use crate::metric::Metric;
use crate::stats::{self, power};
use crate::study::{Between, Results};

/// What to plan for.
#[derive(Debug, Clone)]
pub struct PlanConfig {
    /// The ratio to detect (1.10: a 10% difference either way).
    pub ratio: f64,
    /// The chance of finding it (0.8).
    pub power: f64,
    /// The study-wide level (the lab's α, 0.05).
    pub alpha: f64,
    /// Comparisons in the study's family (None: as many as the pilot made).
    pub comparisons: Option<usize>,
}

impl Default for PlanConfig {
    fn default() -> Self {
        PlanConfig {
            ratio: 1.10,
            power: 0.8,
            alpha: stats::ALPHA,
            comparisons: None,
        }
    }
}

/// One comparison of the pilot.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanRow {
    pub point: String,
    /// The better by the pilot's medians, and the other.
    pub a: String,
    pub b: String,
    /// The pilot's successful trials of each.
    pub n_a: usize,
    pub n_b: usize,
    /// Pooled standard deviation of the log values (≈ the relative spread of a trial).
    pub sd_log: f64,
    /// The pilot's ratio of medians, a over b (as the lab reports it: ≥ 1 in a's favour).
    pub observed: f64,
    /// Trials a side to detect [`PlanConfig::ratio`]; None: more than the cap.
    pub trials: Option<u32>,
    /// Trials a side to detect the observed ratio (None: no difference, or more than the cap).
    pub trials_observed: Option<u32>,
    /// The power the pilot's own count has for [`PlanConfig::ratio`].
    pub power_now: f64,
}

/// The plan for one metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The level each comparison is planned at: α / m.
    pub alpha_each: f64,
    /// m.
    pub comparisons: usize,
    pub rows: Vec<PlanRow>,
    /// The largest count of `rows` (None when any is beyond the cap or there are no rows).
    pub trials: Option<u32>,
}

/// The plan of `metric` from the pilot `r`: one row per comparison of contenders at a point on
/// that metric in which both sides have at least 2 successful trials.
pub fn plan(r: &Results, metric: &Metric, cfg: &PlanConfig) -> Plan {
    let m = cfg.comparisons.unwrap_or(r.comparisons.len()).max(1);
    let alpha_each = cfg.alpha / m as f64;
    let mut rows = Vec::new();
    for c in r
        .comparisons
        .iter()
        .filter(|c| c.between == Between::Contenders && c.metric == metric.key)
    {
        let a = metric.values(r.trials_of(c.point, &c.a));
        let b = metric.values(r.trials_of(c.point, &c.b));
        let Some(sd_log) = power::pooled_log_sd(&[&a, &b]) else {
            continue;
        };
        if a.len() < 2 || b.len() < 2 {
            continue;
        }
        let (Some(ma), Some(mb)) = (stats::median(&a), stats::median(&b)) else {
            continue;
        };
        // a is the better: its ratio over b in a's favour.
        let observed = if metric.higher_is_better() {
            ma / mb
        } else {
            mb / ma
        };
        rows.push(PlanRow {
            point: c.label.clone(),
            a: c.a.clone(),
            b: c.b.clone(),
            n_a: a.len(),
            n_b: b.len(),
            sd_log,
            observed,
            trials: power::trials_for(cfg.ratio, sd_log, alpha_each, cfg.power),
            trials_observed: power::trials_for(observed, sd_log, alpha_each, cfg.power),
            power_now: power::power_of(a.len().min(b.len()) as u32, cfg.ratio, sd_log, alpha_each),
        });
    }
    let trials = if rows.iter().any(|r| r.trials.is_none()) {
        None
    } else {
        rows.iter().filter_map(|r| r.trials).max()
    };
    Plan {
        alpha_each,
        comparisons: m,
        rows,
        trials,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::{ContenderInfo, ContenderRole, Point, StudyInfo, Trial};

    fn pilot(walls: &[(&str, &[f64])]) -> Results {
        let mut trials = Vec::new();
        for (name, ws) in walls {
            for (i, w) in ws.iter().enumerate() {
                let mut t = Trial {
                    contender: name.to_string(),
                    trial: i as u32,
                    ok: true,
                    ..Trial::default()
                };
                t.metrics.wall_s = Some(*w);
                trials.push(t);
            }
        }
        let mut r = Results {
            study: StudyInfo {
                name: "pilot".into(),
                kind: ContenderRole::Client,
                trials: 3,
                ..StudyInfo::default()
            },
            points: vec![Point::default()],
            contenders: walls
                .iter()
                .map(|(n, _)| ContenderInfo {
                    name: n.to_string(),
                    status: "ready".into(),
                    ..ContenderInfo::default()
                })
                .collect(),
            trials,
            ..Results::default()
        };
        crate::summary::update(&mut r);
        r
    }

    /// A pilot whose log values have a known pooled spread gives the count the power function
    /// gives for it, at α / m.
    #[test]
    fn plans_each_comparison_at_the_corrected_level() {
        // ln values: a {0, 0.2}, b {1, 1.2}: pooled sd √0.02 ≈ 0.141; a is faster (lower wall).
        let e = f64::exp;
        let r = pilot(&[("a", &[e(0.0), e(0.2)]), ("b", &[e(1.0), e(1.2)])]);
        let wall = crate::metric::find(&r, "wall_s").unwrap();
        let cfg = PlanConfig {
            ratio: 1.10,
            comparisons: Some(4),
            ..PlanConfig::default()
        };
        let p = plan(&r, &wall, &cfg);
        assert_eq!(p.comparisons, 4);
        assert!((p.alpha_each - 0.0125).abs() < 1e-12);
        assert_eq!(p.rows.len(), 1);
        let row = &p.rows[0];
        assert_eq!(
            (row.a.as_str(), row.b.as_str(), row.n_a, row.n_b),
            ("a", "b", 2, 2)
        );
        assert!(
            (row.sd_log - 0.02f64.sqrt()).abs() < 1e-12,
            "{}",
            row.sd_log
        );
        // The medians e^0.1 and e^1.1: a is e^1 = 2.718x faster.
        assert!((row.observed - 1f64.exp()).abs() < 1e-9, "{}", row.observed);
        let want = power::trials_for(1.10, 0.02f64.sqrt(), 0.0125, 0.8);
        assert_eq!(row.trials, want);
        assert_eq!(p.trials, want);
        // d = ln 1.1 / 0.141 = 0.67 at α = 0.0125 needs far more than the pilot's 2.
        assert!(want.unwrap() > 30, "{want:?}");
        assert!(row.power_now < 0.2, "{}", row.power_now);
        // The observed 2.7x is found with few.
        assert!(
            row.trials_observed.unwrap() <= 3,
            "{:?}",
            row.trials_observed
        );
        // Without an override, m is the pilot's own count of comparisons.
        let own = plan(&r, &wall, &PlanConfig::default());
        assert_eq!(own.comparisons, r.comparisons.len());
    }

    #[test]
    fn a_side_of_one_trial_is_no_plan() {
        let r = pilot(&[("a", &[1.0]), ("b", &[2.0, 2.1])]);
        let wall = crate::metric::find(&r, "wall_s").unwrap();
        let p = plan(&r, &wall, &PlanConfig::default());
        assert!(p.rows.is_empty());
        assert_eq!(p.trials, None);
    }
}

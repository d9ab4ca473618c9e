//! The comparison's rules against known answers: the noise floor and the verdicts, load runs
//! without intervals judged on the floor alone (those with: `loads/tests.rs`), study trials tested (p-values and intervals from scipy), Holm's
//! correction over the rows, the notes, and the core [`judge_samples`] on its own.

use super::*;
use crate::load::Latency;
use crate::metric::Better::{Higher, Lower};
use crate::study::{ContenderInfo, Point, Trial};

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs()
}

#[test]
fn the_noise_floor_and_the_test_decide_the_verdict() {
    use Evidence::{NotSignificant as Ns, Significant as Sig, Untested as Un};
    use Verdict::*;
    #[rustfmt::skip]
    let cases = [
        // (change, better, noise, evidence, verdict)
        (0.0, Higher, 0.05, Un, WithinNoise),
        (0.049, Lower, 0.05, Sig, WithinNoise),
        // At the floor is still within it: "below which nothing is called a change".
        (0.05, Lower, 0.05, Sig, WithinNoise),
        (-0.05, Higher, 0.05, Un, WithinNoise),
        (0.051, Lower, 0.05, Un, Regression),
        (0.051, Higher, 0.05, Un, Improvement),
        (-0.2, Higher, 0.05, Sig, Regression),
        (-0.2, Lower, 0.05, Sig, Improvement),
        (-0.2, Higher, 0.05, Ns, NotSignificant),
        (3.0, Lower, 0.05, Ns, NotSignificant),
        // Significant but inside a wider floor: not a change.
        (0.3, Lower, 0.5, Sig, WithinNoise),
        (0.3, Lower, 0.0, Sig, Regression),
        (f64::INFINITY, Lower, 10.0, Un, Regression),
        (-1.0, Higher, 0.05, Un, Regression),
        (f64::NAN, Higher, 0.05, Sig, WithinNoise),
    ];
    for (change, better, noise, evidence, want) in cases {
        assert_eq!(
            judge(change, better, noise, evidence),
            want,
            "{change} {better:?} {noise} {evidence:?}"
        );
    }
}

#[test]
fn relative_change_is_new_over_old_less_one() {
    assert_eq!(relative(100.0, 50.0), -0.5);
    assert_eq!(relative(4.0, 5.0), 0.25);
    assert_eq!(relative(0.0, 0.0), 0.0);
    assert_eq!(relative(7.0, 7.0), 0.0);
    assert_eq!(relative(0.0, 0.3), f64::INFINITY);
    assert_eq!(relative(5.0, 0.0), -1.0);
}

fn load(rps: f64, p50: u64, errors: u64) -> LoadDoc {
    let mut d = LoadDoc {
        schema: crate::load::SCHEMA.into(),
        rps,
        requests: (rps * 2.0) as u64,
        duration_s: 2.0,
        config: serde_json::json!({"method": "GET", "url": "http://127.0.0.1:8080/sleep/5", "connections": 8}),
        latency_us: Latency {
            count: (rps * 2.0) as u64,
            mean: p50 as f64 * 1.02,
            p50,
            p90: p50 * 11 / 10,
            p99: p50 * 13 / 10,
            p999: p50 * 2,
            max: p50 * 3,
            ..Latency::default()
        },
        ..LoadDoc::default()
    };
    d.errors.count(crate::load::ErrorClass::Timeout, errors);
    d
}

fn verdicts(d: &Comparison) -> Vec<(&str, Verdict)> {
    d.rows
        .iter()
        .map(|r| (r.metric.as_str(), r.verdict))
        .collect()
}

#[test]
fn load_runs_without_intervals_are_judged_on_the_noise_floor_alone() {
    // barrage.load/1 documents: no intervals, so no test.
    let (old, new) = (load(1600.0, 5100, 0), load(320.0, 25200, 0));
    let d = loads(("old.json", &old), ("new.json", &new), &Options::default()).unwrap();
    use Verdict::*;
    assert_eq!(
        verdicts(&d),
        [
            ("rps", Regression),
            ("latency_mean_us", Regression),
            ("latency_p50_us", Regression),
            ("latency_p90_us", Regression),
            ("latency_p99_us", Regression),
            ("latency_p999_us", Regression),
            ("latency_max_us", NotJudged),
            ("errors", NotJudged),
            ("error_pct", WithinNoise),
        ]
    );
    assert_eq!((d.regressions, d.improvements), (6, 0));
    let p50 = &d.rows[2];
    assert_eq!((p50.old, p50.new), (Some(5100.0), Some(25200.0)));
    assert!(close(p50.change.unwrap(), 25200.0 / 5100.0 - 1.0, 1e-12));
    assert_eq!(
        (p50.old_text.as_str(), p50.new_text.as_str()),
        ("5.10 ms", "25.20 ms")
    );
    assert_eq!(d.rows[0].change, Some(-0.8));
    assert!(
        d.rows.iter().all(|r| r.test.is_none()),
        "single runs are not tested"
    );
    assert!(
        d.notes[0].starts_with("old.json has no intervals (a barrage.load/1 document)"),
        "{:?}",
        d.notes
    );
    assert_eq!(d.notes.len(), 2, "the same load: {:?}", d.notes);
    assert_eq!(d.regressed().count(), 6);

    // The other way round every change is an improvement.
    let d = loads(("new.json", &new), ("old.json", &old), &Options::default()).unwrap();
    assert_eq!((d.regressions, d.improvements), (0, 6));
}

#[test]
fn the_same_run_twice_has_no_change() {
    let a = load(1600.0, 5100, 3);
    let d = loads(("a", &a), ("a", &a), &Options::default()).unwrap();
    assert_eq!((d.regressions, d.improvements), (0, 0));
    assert!(d
        .rows
        .iter()
        .all(|r| matches!(r.verdict, Verdict::WithinNoise | Verdict::NotJudged)));
    assert!(d.rows.iter().all(|r| r.change == Some(0.0)));
}

#[test]
fn errors_where_there_were_none_and_a_dead_server() {
    let old = load(1000.0, 2000, 0);
    let mut new = load(1000.0, 2000, 20);
    let d = loads(("old", &old), ("new", &new), &Options { noise: 10.0 }).unwrap();
    let pct = d.rows.iter().find(|r| r.metric == "error_pct").unwrap();
    // 20 errors of 2,020 outcomes: beyond any floor when there were none before.
    assert_eq!(pct.old, Some(0.0));
    assert!(close(pct.new.unwrap(), 100.0 * 20.0 / 2020.0, 1e-12));
    assert_eq!((pct.change, pct.verdict), (None, Verdict::Regression));
    assert_eq!(d.regressions, 1);

    // Nothing answered: no latency at all (missing, not "0 ms, faster"), throughput -100%.
    new.rps = 0.0;
    new.requests = 0;
    new.latency_us = Latency::default();
    new.config["url"] = "http://127.0.0.1:9/".into();
    let d = loads(("old", &old), ("new", &new), &Options::default()).unwrap();
    let p50 = d
        .rows
        .iter()
        .find(|r| r.metric == "latency_p50_us")
        .unwrap();
    assert_eq!((p50.new, p50.verdict), (None, Verdict::Missing));
    assert_eq!(d.rows[0].change, Some(-1.0));
    assert_eq!(d.rows[0].verdict, Verdict::Regression);
    let pct = d.rows.iter().find(|r| r.metric == "error_pct").unwrap();
    assert_eq!(pct.new, Some(100.0));
    assert!(
        d.notes.iter().any(|n| n.contains("differ in their load")
            && n.contains("http://127.0.0.1:9/")
            && n.contains("/sleep/5")),
        "{:?}",
        d.notes
    );
}

/// A server study of one point (`c=64`), each contender with its trials' throughput and
/// optionally p50 (µs).
fn study(name: &str, contenders: &[(&str, &[f64], &[f64])]) -> Results {
    let mut r = Results {
        schema: crate::study::SCHEMA.into(),
        status: "complete".into(),
        points: vec![Point {
            id: 0,
            label: "c=64".into(),
            ..Point::default()
        }],
        ..Results::default()
    };
    r.study.name = name.into();
    for (c, rps, p50) in contenders {
        r.contenders.push(ContenderInfo {
            name: c.to_string(),
            status: "ready".into(),
            ..ContenderInfo::default()
        });
        for (i, v) in rps.iter().enumerate() {
            let mut t = Trial {
                point: 0,
                contender: c.to_string(),
                trial: i as u32,
                ok: true,
                ..Trial::default()
            };
            t.metrics.rps = Some(*v);
            t.metrics.latency_p50_us = p50.get(i).copied();
            r.trials.push(t);
        }
    }
    r
}

const OLD_RPS: [f64; 5] = [10000.0, 10150.0, 9900.0, 10050.0, 9950.0];
const HALF_RPS: [f64; 5] = [5020.0, 4950.0, 5080.0, 4990.0, 5010.0];

#[test]
fn a_real_2x_difference_over_5_trials_is_a_significant_regression() {
    let old = study("s", &[("srv", &OLD_RPS, &[])]);
    let new = study("s", &[("srv", &HALF_RPS, &[])]);
    let d = studies(("old", &old), ("new", &new), &Options::default()).unwrap();
    assert_eq!(d.kind, DocKind::Study);
    assert_eq!(d.rows.len(), 1, "{:?}", d.rows);
    let r = &d.rows[0];
    assert_eq!((r.point.as_str(), r.contender.as_str()), ("c=64", "srv"));
    assert_eq!((r.old, r.new), (Some(10000.0), Some(5010.0)));
    assert!(close(r.change.unwrap(), -0.499, 1e-12));
    assert_eq!(r.verdict, Verdict::Regression);
    let t = r.test.as_ref().unwrap();
    // scipy: ttest_ind(log(new), log(old), equal_var=False) and its 95% interval, exponentiated.
    assert_eq!(t.method, TestMethod::WelchLog);
    assert_eq!((t.trials_old, t.trials_new), (5, 5));
    // So small a p is 1 − cdf near 1: a percent of it is rounding, not a different answer.
    assert!(close(t.p, 3.697648874013388e-14, 1e-2), "p {}", t.p);
    assert_eq!(t.p_adjusted, Some(t.p), "one test: nothing to correct");
    let ci = t.ratio_ci95.unwrap();
    assert!(close(ci.lo, 0.4935955322365129, 1e-5), "{ci:?}");
    assert!(close(ci.hi, 0.5075011002904053, 1e-5), "{ci:?}");
    assert!(ci.hi < 1.0 && t.significant);
}

#[test]
fn overlapping_trials_are_not_called_a_change() {
    let old = study("s", &[("srv", &[100.0, 140.0, 80.0, 120.0, 95.0], &[])]);
    let new = study("s", &[("srv", &[85.0, 130.0, 70.0, 60.0, 110.0], &[])]);
    let d = studies(("old", &old), ("new", &new), &Options::default()).unwrap();
    let r = &d.rows[0];
    // Medians 100 -> 85: beyond the floor, but the test cannot tell it from the spread.
    assert!(close(r.change.unwrap(), -0.15, 1e-12));
    assert_eq!(r.verdict, Verdict::NotSignificant);
    let t = r.test.as_ref().unwrap();
    assert!(close(t.p, 0.32053805819160686, 1e-3), "p {}", t.p);
    let ci = t.ratio_ci95.unwrap();
    assert!(close(ci.lo, 0.5551808814686419, 1e-5) && close(ci.hi, 1.2482973534133772, 1e-5));
    assert!(ci.lo < 1.0 && ci.hi > 1.0);
    assert_eq!((d.regressions, d.improvements), (0, 0));
}

#[test]
fn the_tests_of_one_comparison_are_holm_corrected_together() {
    let old = study(
        "s",
        &[("srv", &OLD_RPS, &[5000.0, 5100.0, 4950.0, 5050.0, 5000.0])],
    );
    let new = study(
        "s",
        &[("srv", &HALF_RPS, &[5100.0, 5050.0, 5000.0, 5150.0, 5080.0])],
    );
    let d = studies(("old", &old), ("new", &new), &Options::default()).unwrap();
    let (rps, p50) = (&d.rows[0], &d.rows[1]);
    assert_eq!(
        (rps.metric.as_str(), p50.metric.as_str()),
        ("rps", "latency_p50_us")
    );
    let (tr, tp) = (rps.test.as_ref().unwrap(), p50.test.as_ref().unwrap());
    // scipy p-values 3.70e-14 and 0.155; Holm: the smaller times 2, the larger kept.
    assert!(close(tp.p, 0.15539690956635102, 1e-3), "{}", tp.p);
    assert!(close(tr.p_adjusted.unwrap(), 2.0 * tr.p, 1e-12));
    assert!(close(tp.p_adjusted.unwrap(), tp.p, 1e-12));
    assert!(close(p50.change.unwrap(), 0.016, 1e-9));
    assert_eq!(p50.verdict, Verdict::WithinNoise);
    assert_eq!(rps.verdict, Verdict::Regression);
    assert!(
        d.notes[0].contains("Holm-corrected over the 2 tests"),
        "{:?}",
        d.notes
    );
}

#[test]
fn rows_no_test_could_find_a_difference_in_stay_out_of_the_family() {
    let mut old = study(
        "s",
        &[("srv", &OLD_RPS, &[5000.0, 5100.0, 4950.0, 5050.0, 5000.0])],
    );
    let mut new = study(
        "s",
        &[("srv", &HALF_RPS, &[5100.0, 5050.0, 5000.0, 5150.0, 5080.0])],
    );
    for t in old.trials.iter_mut().chain(new.trials.iter_mut()) {
        t.metrics.requests = Some(1000);
        t.metrics.errors = Some(0);
    }
    let d = studies(("old", &old), ("new", &new), &Options::default()).unwrap();
    let keys: Vec<&str> = d.rows.iter().map(|r| r.metric.as_str()).collect();
    assert_eq!(keys, ["rps", "latency_p50_us", "errors", "error_pct"]);
    // No errors before or after: shown, but not one of the tests Holm corrects for.
    let (errors, pct) = (&d.rows[2], &d.rows[3]);
    assert_eq!(
        (errors.verdict, errors.test.is_none()),
        (Verdict::NotJudged, true)
    );
    assert_eq!(
        (pct.old, pct.new, pct.verdict),
        (Some(0.0), Some(0.0), Verdict::WithinNoise)
    );
    assert_eq!(pct.test.as_ref().unwrap().p_adjusted, None);
    let rps = d.rows[0].test.as_ref().unwrap();
    assert!(
        close(rps.p_adjusted.unwrap(), 2.0 * rps.p, 1e-12),
        "two tests, not three"
    );
    assert!(d.notes[0].contains("over the 2 tests"), "{:?}", d.notes);
}

#[test]
fn one_trial_a_side_is_judged_by_the_floor_alone() {
    let old = study("s", &[("srv", &[10000.0], &[])]);
    let new = study("s", &[("srv", &[8000.0], &[])]);
    let d = studies(("old", &old), ("new", &new), &Options::default()).unwrap();
    let r = &d.rows[0];
    assert_eq!(r.verdict, Verdict::Regression);
    assert!(!r.test.as_ref().unwrap().testable);
    assert!(r.untested());
    assert!(
        d.notes
            .iter()
            .any(|n| n.starts_with("1 rows have fewer than 2")),
        "{:?}",
        d.notes
    );
}

#[test]
fn a_contender_failing_every_trial_is_a_regression_not_a_gap() {
    let old = study("s", &[("srv", &OLD_RPS, &[])]);
    let mut new = study("s", &[("srv", &OLD_RPS, &[])]);
    for t in &mut new.trials {
        t.ok = false;
        t.failure = Some(crate::study::Failure {
            kind: crate::study::FailureKind::Oom,
            message: "killed at 2.0 GiB".into(),
            ..Default::default()
        });
    }
    let d = studies(("old", &old), ("new", &new), &Options::default()).unwrap();
    let r = &d.rows[0];
    assert_eq!((r.old, r.new, r.change), (Some(10000.0), None, None));
    assert_eq!((r.verdict, d.regressions), (Verdict::Regression, 1));
    assert!(
        d.notes.contains(&"Every trial of srv at c=64 failed in new (oom: killed at 2.0 GiB): its metrics count as regressions.".to_string()),
        "{:?}",
        d.notes
    );
    // Fixed: an improvement.
    let d = studies(("new", &new), ("old", &old), &Options::default()).unwrap();
    assert_eq!(
        (d.rows[0].verdict, d.improvements),
        (Verdict::Improvement, 1)
    );
}

#[test]
fn studies_pair_by_point_label_and_contender() {
    let old = study("a", &[("x", &OLD_RPS, &[]), ("gone", &OLD_RPS, &[])]);
    let new = study("b", &[("x", &OLD_RPS, &[]), ("fresh", &OLD_RPS, &[])]);
    let d = studies(("old", &old), ("new", &new), &Options::default()).unwrap();
    assert!(d.rows.iter().all(|r| r.contender == "x"));
    let notes = d.notes.join("\n");
    assert!(
        notes.contains("Only in old, not compared: gone at c=64."),
        "{notes}"
    );
    assert!(
        notes.contains("Only in new, not compared: fresh at c=64."),
        "{notes}"
    );
    assert!(notes.contains("different studies (a vs b)"), "{notes}");
    let other = study("a", &[("y", &OLD_RPS, &[])]);
    assert_eq!(
        studies(("old", &old), ("other", &other), &Options::default()).unwrap_err(),
        CompareError::Disjoint {
            base: "old".into(),
            new: "other".into()
        }
    );
}

#[test]
fn mismatched_inputs_and_bad_floors_are_errors() {
    let (ld, sd) = (load(1.0, 1, 0), study("s", &[("x", &OLD_RPS, &[])]));
    let (l, s) = (Doc::Load(&ld), Doc::Study(&sd));
    let e = compare(("a.json", l), ("b", s), &Options::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot compare a.json (a load run) with b (study results): both must be load runs or both study results"
    );
    let e = compare(("a", l), ("a", l), &Options { noise: -0.1 }).unwrap_err();
    assert_eq!(e, CompareError::Noise(-0.1));
    assert!(compare(("a", s), ("a", s), &Options { noise: f64::NAN }).is_err());
}

#[test]
fn quick_runs_other_machines_and_other_study_files_are_said() {
    let old = study("s", &[("srv", &OLD_RPS, &[])]);
    let mut new = study("s", &[("srv", &OLD_RPS, &[])]);
    let d = studies(("old", &old), ("new", &new), &Options::default()).unwrap();
    let before = d.notes.len();
    assert_eq!(d.machines, None);
    assert!(d
        .notes
        .iter()
        .all(|n| !n.contains("quick") && !n.contains("machines")));
    new.study.quick = true;
    new.study.source = "[study]\nname = \"s\"\n".into();
    new.machine.cpu_model = "Other CPU".into();
    new.machine.cpus = 64;
    let d = studies(("old", &old), ("new", &new), &Options::default()).unwrap();
    let has = |s: &str| d.notes.iter().any(|n| n.contains(s));
    assert!(has("new is a --quick run"), "{:?}", d.notes);
    assert!(has("study files differ"), "{:?}", d.notes);
    // Different machines are said apart from the notes, first, by every renderer.
    assert!(
        d.machines
            .as_deref()
            .is_some_and(|m| m.contains("different machines ( x0 vs Other CPU x64)")),
        "{:?}",
        d.machines
    );
    assert_eq!(d.notes.len(), before + 2, "{:?}", d.notes);
}

#[test]
fn samples_of_any_pairing_are_tested_and_corrected_together() {
    let m = crate::metric::RPS;
    let sample = |name: &str, old: &[f64], new: &[f64]| Sample {
        point: String::new(),
        contender: name.into(),
        metric: m.clone(),
        old: old.to_vec(),
        new: new.to_vec(),
        failed: None,
    };
    let rows = judge_samples(
        vec![
            sample("half", &OLD_RPS, &HALF_RPS),
            sample(
                "wide",
                &[100.0, 140.0, 80.0, 120.0, 95.0],
                &[85.0, 130.0, 70.0, 60.0, 110.0],
            ),
            sample("one", &[10.0], &[20.0]),
        ],
        0.0,
    );
    let t: Vec<&Test> = rows.iter().map(|r| r.test.as_ref().unwrap()).collect();
    // scipy p-values 3.70e-14 and 0.3205; Holm over the 2 testable rows: 2p and the larger kept.
    assert!(close(
        t[0].p_adjusted.unwrap(),
        2.0 * 3.697648874013388e-14,
        1e-2
    ));
    assert!(close(t[1].p_adjusted.unwrap(), 0.32053805819160686, 1e-3));
    assert_eq!((t[2].testable, t[2].p_adjusted), (false, None));
    assert_eq!(rows[0].verdict, Verdict::Regression);
    assert_eq!(rows[1].verdict, Verdict::NotSignificant);
    // No floor and no test: the medians alone call it (callers that need a test check it).
    assert_eq!(
        (rows[2].verdict, rows[2].untested()),
        (Verdict::Improvement, true)
    );
    assert_eq!(rows[2].change, Some(1.0));
}

#[test]
fn shared_cells_are_what_both_ran_at_one_point_label() {
    let old = study("a", &[("x", &OLD_RPS, &[]), ("gone", &OLD_RPS, &[])]);
    let new = study("b", &[("x", &OLD_RPS, &[]), ("fresh", &OLD_RPS, &[])]);
    assert_eq!(
        shared_cells(&old, &new),
        [("c=64".to_string(), "x".to_string())]
    );
    let mut elsewhere = new.clone();
    elsewhere.points[0].label = "c=8".into();
    assert!(shared_cells(&old, &elsewhere).is_empty());
}

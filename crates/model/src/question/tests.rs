//! Questions parsed and answered against results built by hand, with known verdicts.

use super::*;
use crate::study::{ContenderInfo, ContenderRole, Point, Results, Trial};
use serde_json::json;

#[test]
fn claims_parse_as_written() {
    let c = claim::parse("elixir-hedwig > node-botkit").unwrap();
    assert_eq!(c.left.contender, "elixir-hedwig");
    assert_eq!(c.op, Op::Greater);
    assert_eq!(c.right.len(), 1);
    let c = claim::parse("node[cpus=all] ~ node[cpus=1] within 10%").unwrap();
    assert_eq!(c.op, Op::Equivalent { margin: 0.10 });
    assert_eq!(c.left.label(), "node[cpus=all]");
    assert_eq!(c.right[0].at, vec![("cpus".to_string(), "1".to_string())]);
    let c = claim::parse("ruby < php, perl[n=10 d=1s] ,go").unwrap();
    assert_eq!(c.op, Op::Less);
    let names: Vec<_> = c.right.iter().map(|s| s.label()).collect();
    assert_eq!(names, ["php", "perl[n=10 d=1s]", "go"]);
    for (bad, says) in [
        ("a b", "a claim is"),
        ("a > b > c", "more than one operator"),
        ("a ~ b", "says its margin"),
        ("a ~ b within 5", "percentage"),
        ("a > b within 5%", "only an equivalence"),
        ("a > a", "with itself"),
        ("a[x] > b", "not a condition"),
        ("a[x=1 > b", "end with ']'"),
        (" > b", "not a side"),
    ] {
        let e = claim::parse(bad).unwrap_err();
        assert!(e.contains(says), "{bad:?}: {e}");
    }
}

fn q(id: &str, claim: &str, metric: &str, at: &str, expected: Option<f64>) -> Question {
    Question {
        id: id.into(),
        original: "the original's words".into(),
        claim: claim.into(),
        metric: vec![metric.into()],
        at: at.into(),
        expected,
        ..Question::default()
    }
}

/// A client study with points n=10 and n=100 and the given wall times per contender and point.
fn results(cells: &[(&str, usize, &[f64])], questions: Vec<Question>) -> Results {
    let mut r = Results {
        schema: crate::study::SCHEMA.into(),
        ..Results::default()
    };
    r.study.kind = ContenderRole::Client;
    r.study.questions = questions;
    for (id, n) in [(0usize, 10), (1, 100)] {
        r.points.push(Point {
            id,
            label: format!("n={n}"),
            params: [("n".to_string(), json!(n))].into_iter().collect(),
            ..Point::default()
        });
    }
    for (name, point, walls) in cells {
        if !r.contenders.iter().any(|c| c.name == *name) {
            r.contenders.push(ContenderInfo {
                name: name.to_string(),
                ..ContenderInfo::default()
            });
        }
        for (i, w) in walls.iter().enumerate() {
            let mut t = Trial {
                point: *point,
                contender: name.to_string(),
                trial: i as u32,
                ok: true,
                ..Trial::default()
            };
            t.metrics.wall_s = Some(*w);
            r.trials.push(t);
        }
    }
    r
}

const FAST: &[f64] = &[1.00, 1.01, 0.99, 1.02, 1.00];
const SLOW: &[f64] = &[1.30, 1.28, 1.33, 1.31, 1.29];
const NOISY: &[f64] = &[0.8, 1.3, 1.0, 1.5, 0.9];
const FAST_TOO: &[f64] = &[1.01, 1.00, 1.00, 1.01, 0.99];

#[test]
fn verdicts_follow_the_tests() {
    let r = results(
        &[
            ("ruby", 0, FAST),
            ("perl", 0, SLOW),
            ("php", 0, NOISY),
            ("go", 0, FAST_TOO),
            ("ruby", 1, FAST),
            ("perl", 1, SLOW),
        ],
        vec![
            q("agrees", "ruby < perl", "wall_s", "n=10", Some(0.77)),
            q("disagrees", "ruby > perl", "wall_s", "n=10", None),
            q("inconclusive", "ruby < php", "wall_s", "n=10", Some(0.95)),
            q("excluded", "ruby < go", "wall_s", "n=10", Some(0.5)),
            q("same", "ruby ~ go within 5%", "wall_s", "n=10", None),
            q("not-same", "ruby ~ perl within 5%", "wall_s", "n=10", None),
            q("each", "ruby < perl, php", "wall_s", "n=10", None),
            q("missing", "ruby < java", "wall_s", "n=10", None),
            q("no-point", "ruby < perl", "wall_s", "n=1000", None),
            q("no-axis", "ruby < perl", "wall_s", "cpus=1", None),
        ],
    );
    let a = answers(&r);
    let v: Vec<(&str, Verdict)> = a.iter().map(|a| (a.id.as_str(), a.verdict)).collect();
    assert_eq!(
        v,
        [
            ("agrees", Verdict::Agrees),
            ("disagrees", Verdict::Disagrees),
            ("inconclusive", Verdict::Inconclusive),
            ("excluded", Verdict::Disagrees),
            ("same", Verdict::Agrees),
            ("not-same", Verdict::Disagrees),
            ("each", Verdict::Inconclusive),
            ("missing", Verdict::Unanswered),
            ("no-point", Verdict::Unanswered),
            ("no-axis", Verdict::Unanswered),
        ]
    );
    // The figures of the first: ruby over perl, the ratio of geometric means of the walls.
    let gm = |xs: &[f64]| (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp();
    let first = &a[0];
    assert!((first.ratio.unwrap() - gm(FAST) / gm(SLOW)).abs() < 1e-12);
    assert_eq!(
        (first.left_median, first.right_median),
        (Some(1.00), Some(1.30))
    );
    assert_eq!(first.expected_in_ci, Some(true));
    assert_eq!(first.n, 5);
    // Holm over the 7 tested questions: the smallest p times 7 at most.
    let tested = a.iter().filter(|a| a.p.is_some()).count();
    assert_eq!(tested, 7);
    assert!(first.p_adjusted.unwrap() >= first.p.unwrap());
    assert!(first.p_adjusted.unwrap() <= 7.0 * first.p.unwrap() + 1e-15);
    // The claim against several sides shows its weakest pair (php, the noisy one).
    assert_eq!(a[6].right, "php");
    // The excluded effect says so.
    assert!(a[3].note.contains("outside the interval"), "{}", a[3].note);
    // An inconclusive one says its power at the original's effect, below 0.8, and what 0.8
    // would take.
    let inc = &a[2];
    assert!(inc.power.unwrap() < 0.8, "{:?}", inc.power);
    assert!(inc.trials_needed.unwrap() > 5, "{:?}", inc.trials_needed);
    assert!(a[7].note.contains("no contender \"java\""), "{}", a[7].note);
    assert!(
        a[8].note.contains("no point of the run is at \"n=1000\""),
        "{}",
        a[8].note
    );
    assert!(
        a[9].note
            .contains("cpus is not an axis of the study (its axes: n)"),
        "{}",
        a[9].note
    );
}

/// An interaction across the sweep's axis: ruby's wall grows 1.0 -> 1.3 from n=10 to n=100,
/// perl's stays: ruby's ratio over perl's is 1.3, significant.
#[test]
fn an_interaction_across_an_axis() {
    let mut qi = q("inter", "ruby > perl", "wall_s", "", Some(1.3));
    qi.across = Some("n=100 vs n=10".into());
    let r = results(
        &[
            ("ruby", 0, FAST),
            ("ruby", 1, SLOW),
            ("perl", 0, FAST_TOO),
            ("perl", 1, FAST),
        ],
        vec![qi],
    );
    let a = &answers(&r)[0];
    assert_eq!(a.verdict, Verdict::Agrees, "{a:?}");
    assert!((a.ratio.unwrap() - 1.3).abs() < 0.02, "{:?}", a.ratio);
    assert_eq!(a.left_median, Some(1.30 / 1.00));
}

/// A question never pools trials of two machines: a run resumed on another machine answers
/// nothing that draws on both.
#[test]
fn no_question_draws_on_two_machines() {
    let mut r = results(
        &[
            ("ruby", 0, FAST),
            ("perl", 0, SLOW),
            ("ruby", 1, FAST),
            ("perl", 1, SLOW),
        ],
        vec![
            q("n10", "ruby < perl", "wall_s", "n=10", None),
            q("n100", "ruby < perl", "wall_s", "n=100", None),
        ],
    );
    r.machine.cpu_model = "Xeon".into();
    r.other_machines.push(crate::study::Machine {
        cpu_model: "EPYC".into(),
        ..Default::default()
    });
    // The n=100 point's perl trials ran after a resume on the other machine.
    for t in r
        .trials
        .iter_mut()
        .filter(|t| t.point == 1 && t.contender == "perl")
    {
        t.machine = 1;
    }
    let a = answers(&r);
    assert_eq!(a[0].verdict, Verdict::Agrees);
    assert_eq!(a[1].verdict, Verdict::Unanswered);
    assert!(
        a[1].note.contains("2 machines (Xeon, EPYC)"),
        "{}",
        a[1].note
    );
}

/// A window of the per-second series: the first second's share and its rate.
#[test]
fn windows_read_the_per_second_series() {
    use crate::load::doc::{Phase as P, Second};
    let mut t = Trial::default();
    let mut load = crate::load::LoadDoc::default();
    for (i, (phase, n)) in [
        (P::Warmup, 50u64),
        (P::Measure, 100),
        (P::Measure, 300),
        (P::Measure, 600),
    ]
    .into_iter()
    .enumerate()
    {
        load.series.push(Second {
            second: i as u64,
            phase,
            responses: n,
            span_s: 1.0,
            ..Second::default()
        });
    }
    t.phases.push(crate::study::PhaseResult {
        load,
        ..Default::default()
    });
    let w = |a, b| Window { from_s: a, to_s: b };
    assert_eq!(answer::window_value(&t, "rps", w(0.0, 1.0)), Some(100.0));
    assert_eq!(answer::window_value(&t, "share", w(0.0, 1.0)), Some(10.0));
    assert_eq!(answer::window_value(&t, "rps", w(1.0, 3.0)), Some(450.0));
    assert_eq!(answer::window_value(&t, "rps", w(3.0, 4.0)), None);
    let mut qw = q("w", "a > b", "share", "", None);
    qw.window = Some("0s..1s".into());
    assert!(qw.check().is_ok());
    qw.metric = vec!["wall_s".into()];
    assert!(qw.check().unwrap_err().contains("not \"wall_s\""));
    qw.window = Some("2s..1s".into());
    assert!(qw.window().unwrap_err().contains("ends before"));
}

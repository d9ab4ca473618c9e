//! A figure a study declares is summarised and compared like a registry metric: known per-trial
//! values give the known median, and the comparison with the best contender its ratio, wording
//! and direction. A contender that never printed it has no statistics of it.

use barrage_model::figure::{Figure, Unit};
use barrage_model::metric::{self, Better};
use barrage_model::study::{
    ContenderInfo, ContenderRole, Metrics, Point, Results, StudyInfo, Trial,
};
use barrage_model::summary;

fn figure(key: &str, label: &str, unit: Unit, compared: bool) -> Figure {
    Figure {
        key: key.into(),
        label: label.into(),
        unit,
        better: Better::Lower,
        compared,
        required: false,
    }
}

/// One trial: wall seconds, and alloc_bytes if the contender printed it.
type TrialValues = (f64, Option<f64>);

/// Contenders with their trials.
fn results(cells: &[(&str, &[TrialValues])]) -> Results {
    let mut trials = Vec::new();
    for (name, vals) in cells {
        for (i, (wall, alloc)) in vals.iter().enumerate() {
            let mut metrics = Metrics {
                wall_s: Some(*wall),
                ..Metrics::default()
            };
            if let Some(a) = alloc {
                metrics.figures.insert("alloc_bytes".into(), *a);
                // Not compared (compared = false): summarised, never tested.
                metrics.figures.insert("alloc_objects".into(), *a / 100.0);
            }
            trials.push(Trial {
                seq: trials.len(),
                contender: name.to_string(),
                trial: i as u32,
                ok: true,
                metrics,
                ..Trial::default()
            });
        }
    }
    Results {
        schema: "barrage.study/2".into(),
        study: StudyInfo {
            name: "figures".into(),
            kind: ContenderRole::Client,
            trials: 5,
            figures: vec![
                figure("alloc_bytes", "allocated", Unit::Bytes, true),
                figure("alloc_objects", "objects", Unit::Count, false),
            ],
            ..StudyInfo::default()
        },
        points: vec![Point::default()],
        contenders: cells
            .iter()
            .map(|(n, _)| ContenderInfo {
                name: n.to_string(),
                status: "ready".into(),
                ..ContenderInfo::default()
            })
            .collect(),
        trials,
        ..Results::default()
    }
}

#[test]
fn a_declared_figure_gets_its_median_and_comparison() {
    let fast: &[TrialValues] = &[
        (1.00, Some(300.0)),
        (1.01, Some(100.0)),
        (0.99, Some(500.0)),
        (1.02, Some(200.0)),
        (1.00, Some(400.0)),
    ];
    let slow: &[TrialValues] = &[
        (2.00, Some(1200.0)),
        (2.02, Some(1000.0)),
        (1.98, Some(1400.0)),
        (2.01, Some(1100.0)),
        (2.00, Some(1300.0)),
    ];
    let silent: &[TrialValues] = &[(3.0, None), (3.1, None), (2.9, None)];
    let mut r = results(&[("fast", fast), ("slow", slow), ("silent", silent)]);
    summary::update(&mut r);

    let cell = |name: &str| r.summary.iter().find(|c| c.contender == name).unwrap();
    let s = &cell("fast").stats["alloc_bytes"];
    assert_eq!((s.n, s.median, s.min, s.max), (5, 300.0, 100.0, 500.0));
    assert_eq!(cell("slow").stats["alloc_bytes"].median, 1200.0);
    assert_eq!(cell("slow").stats["alloc_objects"].median, 12.0);
    assert!(
        !cell("silent").stats.contains_key("alloc_bytes"),
        "no value printed: no statistics, not a zero"
    );
    assert_eq!(cell("silent").stats["wall_s"].median, 3.0);

    // The best by the primary metric (wall) is the reference; the figure is compared with it.
    let row = r
        .comparisons
        .iter()
        .find(|c| c.metric == "alloc_bytes" && c.b == "slow")
        .expect("the figure is compared");
    assert_eq!(row.a, "fast");
    let c = &row.comparison;
    assert_eq!((c.median_a, c.median_b), (300.0, 1200.0));
    assert_eq!(c.ratio, 0.25);
    assert_eq!(c.factor, 4.0);
    assert!(c.a_better && c.significant, "{c:?}");
    assert!(c.phrase.starts_with("4.00x less allocated"), "{}", c.phrase);
    assert!(
        !r.comparisons
            .iter()
            .any(|c| c.metric == "alloc_bytes" && c.b == "silent"),
        "nothing to compare without values"
    );
    assert!(
        !r.comparisons.iter().any(|c| c.metric == "alloc_objects"),
        "compared = false"
    );

    // The metrics of this document: the registry's for clients, then the figures, in order.
    let keys: Vec<String> = metric::of_results(&r)
        .iter()
        .map(|m| m.key.to_string())
        .collect();
    assert_eq!(keys[keys.len() - 2..], ["alloc_bytes", "alloc_objects"]);
    assert_eq!(keys[0], "rps");
    assert!(keys.contains(&"wall_s".to_string()));
    // Those the report shows: the primary metric first, the figures that have values.
    let shown: Vec<String> = metric::of_study(&r)
        .iter()
        .map(|m| m.key.to_string())
        .collect();
    assert_eq!(shown[0], "wall_s");
    assert!(shown.contains(&"alloc_bytes".to_string()) && !shown.contains(&"rps".to_string()));
    let m = metric::find(&r, "alloc_bytes").unwrap();
    assert_eq!((m.label.as_ref(), m.unit), ("allocated", "B"));
    assert!(metric::find(&r, "nonsense").is_none());
}

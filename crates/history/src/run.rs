//! A run as the history records it: where and when it ran ([`Origin`]), the whole result
//! document (which keeps the HDR histograms, so `compare` reads back exactly what was measured),
//! and the flat figures the listing, filters and trends use ([`MetricRow`]), taken from the
//! model's documents by [`NewRun::load`] and [`NewRun::study`].

use crate::figures;
use barrage_model::load::LoadDoc;
use barrage_model::study::{Machine, Results};
pub use barrage_model::DocKind;
use serde::Serialize;
use std::collections::HashSet;

/// The git commit of the directory barrage ran in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Git {
    /// Full hash of `HEAD`.
    pub commit: String,
    /// Tracked files differed from `HEAD`: the commit alone does not say what code ran.
    pub dirty: bool,
}

/// Where and when a run ran: what the caller knows beside the document.
#[derive(Debug, Clone, Default)]
pub struct Origin {
    /// RFC 3339 UTC.
    pub time: String,
    /// The command line, as a shell would take it back.
    pub command: String,
    pub machine: Machine,
    /// None outside a git work tree (or without git).
    pub git: Option<Git>,
    pub barrage_version: String,
}

/// One figure of a run: a metric's value, for a study at one point and contender (both empty
/// for a load run). Values are in the model's stored units (req/s, µs, counts).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricRow {
    pub key: String,
    pub point: String,
    pub contender: String,
    pub value: f64,
}

/// A run to append.
#[derive(Debug, Clone)]
pub struct NewRun {
    pub kind: DocKind,
    pub origin: Origin,
    /// The study's name; empty for a load run.
    pub name: String,
    /// A load run's target URL (its origin for `--targets` runs); empty for a study.
    pub url: String,
    /// `complete`, `cancelled` (a load stopped by Ctrl-C) or `interrupted` (a study stopped by
    /// Ctrl-C), so a trend can tell a partial run from a full one.
    pub status: String,
    /// The configuration as JSON: the load's `Config`, or the study as run (with its source).
    pub config: String,
    /// The whole result document, as written to disk.
    pub document: String,
    pub metrics: Vec<MetricRow>,
}

impl NewRun {
    /// A `barrage load` run: `document` is `doc` as written (`--json`'s text).
    pub fn load(doc: &LoadDoc, document: String, origin: Origin) -> NewRun {
        let url = doc
            .config
            .get("url")
            .and_then(|u| u.as_str())
            .filter(|u| !u.is_empty())
            .or_else(|| doc.targets.first().map(|t| t.url.as_str()))
            .unwrap_or_default()
            .to_string();
        let metrics = figures::of_load(doc)
            .into_iter()
            .map(|(m, value)| MetricRow {
                key: m.key.to_string(),
                point: String::new(),
                contender: String::new(),
                value,
            })
            .collect();
        NewRun {
            kind: DocKind::Load,
            origin,
            name: String::new(),
            url,
            status: if doc.cancelled {
                "cancelled"
            } else {
                "complete"
            }
            .to_string(),
            config: doc.config.to_string(),
            document,
            metrics,
        }
    }

    /// A `barrage run` study: `document` is its `results.json` text. Each cell (point and
    /// contender) gives the median of every metric the results hold a statistic of.
    pub fn study(r: &Results, document: String, origin: Origin) -> NewRun {
        let labels = point_labels(r);
        let metrics = r
            .summary
            .iter()
            .flat_map(|cell| {
                let point = labels
                    .get(cell.point)
                    .cloned()
                    .unwrap_or_else(|| cell.label.clone());
                barrage_model::metric::of_results(r)
                    .into_iter()
                    .filter_map(move |m| {
                        let s = cell.stats.get(m.key.as_ref())?;
                        (s.n > 0 && s.median.is_finite()).then(|| MetricRow {
                            key: m.key.to_string(),
                            point: point.clone(),
                            contender: cell.contender.clone(),
                            value: s.median,
                        })
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        let status = if r.status.as_str().is_empty() {
            "complete"
        } else {
            r.status.as_str()
        };
        NewRun {
            kind: DocKind::Study,
            origin,
            name: r.study.name.clone(),
            url: String::new(),
            status: status.to_string(),
            config: serde_json::to_string(&r.study).unwrap_or_default(),
            document,
            metrics,
        }
    }
}

/// Each point's label as the listing names it, by point id: its own label, "point N" for an
/// unlabelled one among several, and a label two points share made unique with its id (the
/// metrics table keys rows by it).
fn point_labels(r: &Results) -> Vec<String> {
    let n = r.points.iter().map(|p| p.id + 1).max().unwrap_or(0);
    let mut labels = vec![String::new(); n];
    let mut seen = HashSet::new();
    for p in &r.points {
        let mut l = p.label.clone();
        if l.is_empty() && r.points.len() > 1 {
            l = format!("point {}", p.id);
        }
        if !seen.insert(l.clone()) {
            l = format!("{l} #{}", p.id);
        }
        labels[p.id] = l;
    }
    labels
}

#[cfg(test)]
mod tests {
    use super::*;
    use barrage_model::stats::Summary;
    use barrage_model::study::{Cell, Point};

    #[test]
    fn a_load_document_gives_its_url_status_and_figures() {
        let mut doc = LoadDoc {
            rps: 1500.0,
            requests: 3000,
            cancelled: true,
            config: serde_json::json!({"url": "http://127.0.0.1:8080/x", "connections": 4}),
            ..LoadDoc::default()
        };
        doc.latency_us.count = 3000;
        doc.latency_us.p99 = 420;
        let run = NewRun::load(&doc, "{}".into(), Origin::default());
        assert_eq!(run.kind, DocKind::Load);
        assert_eq!(run.url, "http://127.0.0.1:8080/x");
        assert_eq!(run.status, "cancelled");
        assert_eq!(
            run.config,
            r#"{"connections":4,"url":"http://127.0.0.1:8080/x"}"#
        );
        let get = |k: &str| run.metrics.iter().find(|m| m.key == k).map(|m| m.value);
        assert_eq!(get("rps"), Some(1500.0));
        assert_eq!(get("latency_p99_us"), Some(420.0));
        assert_eq!(get("requests"), Some(3000.0));
    }

    #[test]
    fn a_study_gives_one_median_per_cell_and_metric() {
        let stat = |median| Summary {
            n: 3,
            median,
            mean: median,
            stddev: None,
            min: median,
            max: median,
            second_best: None,
            ci95_mean: None,
            ci95_median: None,
        };
        let mut r = Results {
            status: "interrupted".into(),
            ..Results::default()
        };
        r.study.name = "pingpong".into();
        // Two points with the same label: the second is told apart by its id.
        r.points = vec![
            Point {
                id: 0,
                label: "c=16".into(),
                ..Point::default()
            },
            Point {
                id: 1,
                label: "c=16".into(),
                ..Point::default()
            },
        ];
        r.summary = vec![
            Cell {
                point: 0,
                contender: "go".into(),
                stats: [("rps".to_string(), stat(900.0))].into(),
                ..Cell::default()
            },
            Cell {
                point: 1,
                contender: "go".into(),
                stats: [
                    ("rps".to_string(), stat(1200.0)),
                    ("latency_p99_us".to_string(), stat(800.0)),
                    // Not a metric of a server study: not recorded.
                    ("wall_s".to_string(), stat(3.0)),
                ]
                .into(),
                ..Cell::default()
            },
        ];
        let run = NewRun::study(&r, "{}".into(), Origin::default());
        assert_eq!((run.kind, run.name.as_str()), (DocKind::Study, "pingpong"));
        assert_eq!(run.status, "interrupted");
        let rows: Vec<_> = run
            .metrics
            .iter()
            .map(|m| {
                (
                    m.key.as_str(),
                    m.point.as_str(),
                    m.contender.as_str(),
                    m.value,
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("rps", "c=16", "go", 900.0),
                ("rps", "c=16 #1", "go", 1200.0),
                ("latency_p99_us", "c=16 #1", "go", 800.0),
            ]
        );
    }
}

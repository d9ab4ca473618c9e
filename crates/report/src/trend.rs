//! Trends over recorded runs (`barrage history --report`): one line chart per metric, the run's
//! id along x and one line per series (a load run's URL, a study's contender at a point). The
//! caller (the CLI, reading the history) gives the values; this module only lays them out, as
//! a [`Page`] the HTML exporter renders like any report.

use crate::page::{Page, Plot, PlotGroup, Section};
use crate::svg::{Axis, Line, LineChart};
use barrage_model::metric::Metric;

/// One metric's values over the runs.
#[derive(Debug, Clone)]
pub struct Trend {
    /// Its label, unit and scale name the chart and its axis.
    pub metric: Metric,
    pub series: Vec<Series>,
}

/// One line: what the values belong to, (run id, value in the metric's stored units), and
/// where known each run's interval of it, (run id, low, high), drawn as a band around the line
/// (a load run's own interval, `barrage.load/2`'s `intervals`).
#[derive(Debug, Clone, Default)]
pub struct Series {
    pub name: String,
    pub points: Vec<(i64, f64)>,
    pub band: Vec<(i64, f64, f64)>,
}

/// At most this many run ids are written under the x axis; with more runs, every k-th.
const MAX_TICKS: usize = 12;

/// The chart of one trend: y in the metric's unit from zero (throughput, latency and counts
/// all have a meaningful zero), a dot on every run so a single run still shows.
pub fn chart(t: &Trend) -> LineChart {
    let m = &t.metric;
    let mut ids: Vec<i64> = t
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let every = ids.len().div_ceil(MAX_TICKS).max(1);
    let ticks = ids
        .iter()
        .step_by(every)
        .map(|&id| (id as f64, id.to_string()))
        .collect();
    // Half a run of room on either side, so the first and last dots sit inside the frame.
    let x = Axis {
        min: ids.first().map(|&id| id as f64 - 0.5),
        max: ids.last().map(|&id| id as f64 + 0.5),
        ticks: Some(ticks),
        ..Axis::linear("run")
    };
    let y_label = if m.unit.is_empty() {
        m.label.to_string()
    } else {
        format!("{} ({})", m.label, m.unit)
    };
    let mut c = LineChart::new(
        format!("{} [{}] by run", m.label, m.key),
        x,
        Axis::from_zero(y_label),
    );
    c.metric = Some(m.key.to_string());
    c.lines = t
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| Line {
            name: s.name.clone(),
            color: i,
            points: s
                .points
                .iter()
                .map(|&(id, v)| (id as f64, v * m.scale))
                .collect(),
            markers: true,
            band: s
                .band
                .iter()
                .map(|&(id, lo, hi)| (id as f64, lo * m.scale, hi * m.scale))
                .collect(),
            provenance: s
                .points
                .iter()
                .map(|(id, _)| (format!("run {id}"), s.name.clone()))
                .collect(),
            ..Line::default()
        })
        .collect();
    c
}

/// The page of trends: `notes` first (what was read, from where), one chart per trend, and
/// `meta` (one line per run) folded at the end.
pub fn page(
    title: &str,
    notes: Vec<String>,
    meta: Vec<(String, String)>,
    trends: &[Trend],
) -> Page {
    let plots = trends.iter().map(|t| Plot::Line(chart(t))).collect();
    Page {
        title: title.to_string(),
        sections: vec![Section {
            heading: "Trends".into(),
            notes,
            meta,
            plots: vec![PlotGroup {
                heading: "Each metric over the runs".into(),
                notes: vec![
                    "One dot per run; a study has one line per contender and point (the median of its trials). The shaded band is a load run's own 95% interval of the figure, where its document has one (barrage.load/2)."
                        .into(),
                ],
                plots,
            }],
            ..Section::default()
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use barrage_model::metric::{P99, RPS};

    #[test]
    fn a_chart_draws_each_value_at_its_run_in_the_metrics_unit() {
        let t = Trend {
            metric: P99,
            series: vec![
                Series {
                    name: "http://a/".into(),
                    points: vec![(1, 1500.0), (3, 2500.0)],
                    band: vec![(1, 1250.0, 1750.0), (3, 2250.0, 2500.0)],
                },
                Series {
                    name: "http://b/".into(),
                    points: vec![(2, 500.0)],
                    band: Vec::new(),
                },
            ],
        };
        let c = chart(&t);
        assert_eq!(c.metric.as_deref(), Some("latency_p99_us"));
        assert_eq!(c.y.label, "p99 (ms)");
        // Stored µs, drawn in ms.
        assert_eq!(c.lines[0].points, [(1.0, 1.5), (3.0, 2.5)]);
        // Each run's interval, in ms too, as the band around its line.
        assert_eq!(c.lines[0].band, [(1.0, 1.25, 1.75), (3.0, 2.25, 2.5)]);
        assert!(c.lines[1].band.is_empty());
        assert_eq!(c.lines[1].points, [(2.0, 0.5)]);
        assert_eq!(
            c.lines[1].provenance,
            [("run 2".into(), "http://b/".into())]
        );
        let ticks: Vec<String> = c.x.ticks.unwrap().into_iter().map(|t| t.1).collect();
        assert_eq!(ticks, ["1", "2", "3"]);
        assert_eq!((c.x.min, c.x.max), (Some(0.5), Some(3.5)));
    }

    #[test]
    fn many_runs_get_every_kth_tick_and_the_page_one_chart_per_trend() {
        let t = Trend {
            metric: RPS,
            series: vec![Series {
                name: "x".into(),
                points: (1..=30).map(|i| (i, 100.0 * i as f64)).collect(),
                band: Vec::new(),
            }],
        };
        let ticks = chart(&t).x.ticks.unwrap();
        assert_eq!(ticks.len(), 10);
        assert_eq!((ticks[0].0, ticks[1].0), (1.0, 4.0));
        let p = page("h", vec!["n".into()], vec![], &[t.clone(), t]);
        assert_eq!(p.sections[0].plots[0].plots.len(), 2);
        let html = crate::render(&p, crate::Format::Html, "test");
        assert!(html.contains("throughput [rps] by run"), "{html}");
    }
}

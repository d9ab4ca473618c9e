//! The study's summary plots: throughput and latency percentiles against the swept parameter
//! (one line per contender and variant, with the confidence band), bars when nothing numeric is
//! swept, the client studies' time and memory bars with failed trials marked, and the HDR
//! latency distribution per contender at the chosen points.

use super::{cells_order, point_label, trials_of, value_text};
use crate::hdr;
use crate::model::study::StudyDoc;
use crate::page::{Plot, PlotGroup};
use crate::svg::{Axis, Bar, BarChart, BarGroup, Line, LineChart};
use crate::table::{dedup, Cell, Row, Table};

/// The swept numeric parameter to use as the x axis: "connections" first, then any parameter
/// with at least two distinct numeric values.
fn sweep_axis(doc: &StudyDoc) -> Option<String> {
    let numeric = |k: &str| {
        let vals: Vec<f64> = doc
            .points
            .iter()
            .filter_map(|p| p.params.get(k)?.as_f64())
            .collect();
        vals.len() == doc.points.len() && dedup(vals.iter().map(|v| v.to_bits())).len() >= 2
    };
    let keys = dedup(doc.points.iter().flat_map(|p| p.params.keys().cloned()));
    ["connections", "c", "rate", "pipeline", "n"]
        .iter()
        .map(|s| s.to_string())
        .chain(keys.clone())
        .find(|k| keys.contains(k) && numeric(k))
}

/// The line a point belongs to (everything but the x axis): variant and other parameters.
fn series_key(doc: &StudyDoc, id: usize, x: &str) -> String {
    let Some(p) = doc.points.iter().find(|p| p.id == id) else {
        return String::new();
    };
    let mut parts: Vec<String> = p.variant.iter().cloned().collect();
    for (k, v) in &p.params {
        if k != x && k != "variant" {
            parts.push(format!("{k}={}", value_text(v)));
        }
    }
    parts.join(" ")
}

pub fn sweep_plots(doc: &StudyDoc, table: &Table) -> Option<PlotGroup> {
    let x = sweep_axis(doc)?;
    let xv = |id: usize| {
        doc.points
            .iter()
            .find(|p| p.id == id)?
            .params
            .get(&x)?
            .as_f64()
    };
    // Lines: (contender, series key) in order of first appearance.
    let order = cells_order(doc);
    let lines = dedup(
        order
            .iter()
            .map(|(p, c)| (c.clone(), series_key(doc, *p, &x))),
    );
    let log_x = {
        let v: Vec<f64> = doc.points.iter().filter_map(|p| xv(p.id)).collect();
        let (lo, hi) = v
            .iter()
            .fold((f64::INFINITY, 0f64), |a, &b| (a.0.min(b), a.1.max(b)));
        lo > 0.0 && hi / lo >= 20.0
    };
    let xlabel = if x == "connections" || x == "c" {
        "connections".to_string()
    } else {
        x.clone()
    };
    let axis = |l: &str| if log_x { Axis::log(l) } else { Axis::linear(l) };
    let mut charts = Vec::new();
    let mut single = false;
    for (mi, title, ylabel) in [
        (0usize, "Throughput vs ", "throughput (req/s)"),
        (1, "p50 latency vs ", "p50 latency (ms)"),
        (2, "p99 latency vs ", "p99 latency (ms)"),
        (3, "p99.9 latency vs ", "p99.9 latency (ms)"),
    ] {
        let y = if mi == 0 {
            Axis::from_zero(ylabel)
        } else {
            Axis::log(ylabel)
        };
        let mut c = LineChart::new(format!("{title}{xlabel}"), axis(&xlabel), y);
        for (li, (name, key)) in lines.iter().enumerate() {
            let mut line = Line {
                name: [name.as_str(), key.as_str()]
                    .iter()
                    .filter(|s| !s.is_empty())
                    .copied()
                    .collect::<Vec<_>>()
                    .join(" · "),
                color: li,
                markers: true,
                ..Line::default()
            };
            for (p, cname) in &order {
                if cname != name || &series_key(doc, *p, &x) != key {
                    continue;
                }
                let (Some(xx), Some(row)) = (
                    xv(*p),
                    table
                        .rows
                        .iter()
                        .find(|r| r.point == point_label(doc, *p) && &r.contender == cname),
                ) else {
                    continue;
                };
                let Some(cell) = row.cells.get(mi) else {
                    continue;
                };
                let (Some(s), Some(center)) = (cell.summary.as_ref(), cell.center()) else {
                    continue;
                };
                line.points.push((xx, center));
                match s.ci {
                    Some((lo, hi)) => line.band.push((xx, lo, hi)),
                    None => single = true,
                }
            }
            line.points.sort_by(|a, b| a.0.total_cmp(&b.0));
            line.band.sort_by(|a, b| a.0.total_cmp(&b.0));
            if line.band.len() < 2 {
                // A band needs two points; show the interval as error bars instead.
                line.errors = std::mem::take(&mut line.band);
            }
            c.lines.push(line);
        }
        charts.push(Plot::Line(c));
    }
    let mut notes = vec!["Lines: throughput is the median over trials, latency the percentile of all trials' merged HDR histograms (as in the summary table); shaded band: 95% confidence interval of the median of the per-trial values.".to_string()];
    if single {
        notes.push(
            "Some points have a single successful trial: no confidence interval there.".into(),
        );
    }
    Some(PlotGroup {
        heading: format!("Sweep over {xlabel}"),
        notes,
        plots: charts,
    })
}

/// Without a numeric sweep: throughput and p99 as bars, one group per point.
pub fn point_bars(table: &Table) -> PlotGroup {
    let names = dedup(table.rows.iter().map(|r| r.contender.clone()));
    let points = dedup(table.rows.iter().map(|r| r.point.clone()));
    let chart = |mi: usize, title: &str, unit: &str| {
        let groups = points
            .iter()
            .map(|p| BarGroup {
                label: if p.is_empty() {
                    "all".into()
                } else {
                    p.clone()
                },
                bars: names
                    .iter()
                    .map(|n| {
                        match table
                            .rows
                            .iter()
                            .find(|r| &r.point == p && &r.contender == n)
                        {
                            Some(r) => bar(&r.cells[mi], r.failed),
                            None => Bar::default(),
                        }
                    })
                    .collect(),
            })
            .collect();
        Plot::Bar(BarChart {
            title: title.into(),
            y: Axis::from_zero(unit),
            series: names.iter().cloned().zip(0..).collect(),
            groups,
        })
    };
    PlotGroup {
        heading: "Throughput and latency".into(),
        notes: vec![
            "Bars: median; error bars: 95% CI of the median; dots: individual trials.".into(),
        ],
        plots: vec![
            chart(0, "Throughput", "throughput (req/s)"),
            chart(2, "p99 latency", "p99 latency (ms)"),
        ],
    }
}

fn bar(c: &Cell, failed: usize) -> Bar {
    Bar {
        value: c.summary.as_ref().map(|s| s.median),
        err: c.summary.as_ref().and_then(|s| s.ci),
        dots: c.values.clone(),
        failed,
    }
}

/// Client studies: wall/user/sys and peak RSS bars per contender (and point), failures marked.
pub fn client_bars(doc: &StudyDoc, table: &Table) -> PlotGroup {
    let label = |r: &Row| {
        if r.point.is_empty() {
            r.contender.clone()
        } else {
            format!("{} {}", r.contender, r.point)
        }
    };
    let times = BarChart {
        title: "Wall, user and sys time".into(),
        y: Axis::from_zero("time (s)"),
        series: vec![("wall".into(), 0), ("user".into(), 1), ("sys".into(), 2)],
        groups: table
            .rows
            .iter()
            .map(|r| BarGroup {
                label: label(r),
                bars: (0..3)
                    .map(|i| bar(&r.cells[i], if i == 0 { r.failed } else { 0 }))
                    .collect(),
            })
            .collect(),
    };
    let rss = BarChart {
        title: "Peak RSS of the process tree".into(),
        y: Axis::from_zero("peak RSS (MiB)"),
        series: vec![("peak RSS".into(), 4)],
        groups: table
            .rows
            .iter()
            .map(|r| BarGroup {
                label: label(r),
                bars: vec![bar(&r.cells[3], r.failed)],
            })
            .collect(),
    };
    let _ = doc;
    PlotGroup {
        heading: "Client runs".into(),
        notes: vec!["Bars: median over successful trials; error bars: 95% CI of the median; dots: individual trials; crosses: failed trials (crash, OOM, timeout, bad output), counted, not hidden.".into()],
        plots: vec![Plot::Bar(times), Plot::Bar(rss)],
    }
}

/// HDR percentile distributions, one curve per contender (and variant) from the merged
/// histograms of its successful trials: at the points the user chose, else at the largest value
/// of the sweep axis (every line of the sweep plots in one plot, same colours), else per point.
pub fn distributions(doc: &StudyDoc, wanted: &[String]) -> Vec<PlotGroup> {
    let x = sweep_axis(doc);
    let order = cells_order(doc);
    let points = dedup(order.iter().map(|o| o.0));
    let xkey = x.clone().unwrap_or_default();
    let lines = dedup(
        order
            .iter()
            .map(|(p, c)| (c.clone(), series_key(doc, *p, &xkey))),
    );
    let xv = |id: usize| {
        let p = doc.points.iter().find(|p| p.id == id)?;
        p.params.get(x.as_deref()?)?.as_f64()
    };
    let picked: Vec<usize> = points
        .iter()
        .copied()
        .filter(|p| wanted.contains(&point_label(doc, *p)))
        .collect();
    // Each plot: a title and the points whose curves it holds.
    let specs: Vec<(String, Vec<usize>)> = if !picked.is_empty() {
        picked
            .iter()
            .map(|p| {
                (
                    format!("Latency distribution at {}", point_label(doc, *p)),
                    vec![*p],
                )
            })
            .collect()
    } else if let Some(xmax) = points
        .iter()
        .filter_map(|p| xv(*p))
        .reduce(f64::max)
        .filter(|_| x.is_some())
    {
        let at: Vec<usize> = points
            .iter()
            .copied()
            .filter(|p| xv(*p) == Some(xmax))
            .collect();
        vec![(
            format!(
                "Latency distribution at {}={}",
                short_axis(&xkey),
                crate::svg::fmt_num(xmax)
            ),
            at,
        )]
    } else {
        points
            .iter()
            .map(|p| {
                let pl = point_label(doc, *p);
                (
                    if pl.is_empty() {
                        "Latency distribution".to_string()
                    } else {
                        format!("Latency distribution at {pl}")
                    },
                    vec![*p],
                )
            })
            .collect()
    };
    let mut notes = Vec::new();
    let missing: Vec<&String> = wanted
        .iter()
        .filter(|w| !points.iter().any(|p| &point_label(doc, *p) == *w))
        .collect();
    if !missing.is_empty() {
        notes.push(format!(
            "No point labelled {missing:?} in this study; its points are labelled like {:?}.",
            point_label(doc, points.first().copied().unwrap_or(0))
        ));
    }
    let mut plots = Vec::new();
    for (title, pts) in specs {
        let mut c = LineChart::new(title, Axis::log("percentile"), Axis::log("latency (ms)"));
        let mut max_x: f64 = 10.0;
        for p in &pts {
            for (_, name) in order.iter().filter(|o| o.0 == *p) {
                let key = series_key(doc, *p, &xkey);
                let color = lines
                    .iter()
                    .position(|l| l.0 == *name && l.1 == key)
                    .unwrap_or(0);
                let label = if pts.len() > 1 && !key.is_empty() {
                    format!("{name} · {key}")
                } else {
                    name.clone()
                };
                let hs: Vec<_> = trials_of(doc, *p, name)
                    .into_iter()
                    .filter(|t| t.ok())
                    .flat_map(|t| t.phases.iter().filter_map(|ph| ph.load.hdr.as_deref()))
                    .filter_map(|b| match hdr::decode(b) {
                        Ok(h) => Some(h),
                        Err(e) => {
                            notes.push(format!("{label} {}: {e}", point_label(doc, *p)));
                            None
                        }
                    })
                    .collect();
                if let Some(h) = hdr::merge(&hs) {
                    let curve: Vec<_> = hdr::percentile_curve(&h)
                        .into_iter()
                        .map(|(x, v)| (x, v / 1000.0))
                        .collect();
                    max_x = curve.iter().map(|p| p.0).fold(max_x, f64::max);
                    c.lines.push(Line {
                        name: label,
                        color,
                        points: curve,
                        ..Line::default()
                    });
                }
            }
        }
        c.x.ticks = Some(hdr::percentile_ticks(max_x));
        plots.push(Plot::Line(c));
    }
    notes.insert(
        0,
        "Latency histograms of all successful trials merged exactly (HDR), then read as percentiles; x: percentile on a log scale of 1/(1-q). Other points: --point LABEL."
            .into(),
    );
    vec![PlotGroup {
        heading: "Latency distribution".into(),
        notes,
        plots,
    }]
}

/// "connections" for the study's own axis names ("c" is the sweep's short label).
fn short_axis(x: &str) -> &str {
    if x == "connections" {
        "c"
    } else {
        x
    }
}

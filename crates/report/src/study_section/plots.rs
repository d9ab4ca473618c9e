//! The study's summary plots: throughput and latency percentiles against the swept parameter
//! (one line per contender and variant, with the confidence band), bars when nothing numeric is
//! swept, the client studies' time and memory bars with failed trials marked, and the HDR
//! latency distribution per contender at the chosen points.

use super::{cells_order, point_label, trials_of, value_text};
use crate::hdr;
use crate::page::{Plot, PlotGroup};
use crate::svg::{Axis, Bar, BarChart, BarGroup, HBarChart, HBarRow, Line, LineChart};
use crate::table::{dedup, Cell, Row, Table};
use barrage_model::load::{axis_field, short_label};
use barrage_model::metric::{self as registry, Metric};
use barrage_model::study::{ContenderRole, Results};

/// The swept numeric parameter to use as the x axis: "connections" first, then any parameter
/// with at least two distinct numeric values.
fn sweep_axis(doc: &Results) -> Option<String> {
    let numeric = |k: &str| {
        let vals: Vec<f64> = doc
            .points
            .iter()
            .filter_map(|p| p.params.get(k)?.as_f64())
            .collect();
        vals.len() == doc.points.len() && dedup(vals.iter().map(|v| v.to_bits())).len() >= 2
    };
    let keys = dedup(doc.points.iter().flat_map(|p| p.params.keys().cloned()));
    // Preferred axes, each under its field's name or its short label ("c"; "n" is also a
    // client study's conventional count).
    ["connections", "rate", "pipeline", "requests"]
        .iter()
        .flat_map(|f| keys.iter().filter(move |k| axis_field(k) == *f).cloned())
        .chain(keys.clone())
        .find(|k| numeric(k))
}

/// An axis by its field's name ("connections", also for a file that says "c"); a client
/// study's parameters are its own, not the load's fields.
fn axis_name<'a>(doc: &Results, x: &'a str) -> &'a str {
    match doc.study.kind {
        ContenderRole::Server => axis_field(x),
        ContenderRole::Client => x,
    }
}

/// The line a point belongs to (everything but the x axis): variant and other parameters.
fn series_key(doc: &Results, id: usize, x: &str) -> String {
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

/// The axis label of a metric, with its unit (none for a plain count): "throughput (req/s)", "p99 latency (ms)".
pub fn axis_label(m: &Metric) -> String {
    match (m.merged_quantile.is_some(), m.unit) {
        (true, u) => format!("{} latency ({u})", m.label),
        (false, "") => m.label.to_string(),
        (false, u) => format!("{} ({u})", m.label),
    }
}

/// A chart title naming a registry metric: "Throughput", "p99 latency".
fn metric_title(m: &Metric) -> String {
    if m.merged_quantile.is_some() {
        format!("{} latency", m.label)
    } else {
        let mut c = m.label.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect())
            .unwrap_or_default()
    }
}

/// The name of the swept numeric parameter (the x axis of the sweep plots), if there is one.
pub fn sweep_axis_name(doc: &Results) -> Option<String> {
    sweep_axis(doc)
}

/// The chart of `m` against the swept parameter: one line per contender (and variant), each
/// point the table's cell of that metric, with the confidence band. The second value says whether
/// some point had a single trial (no interval). `None` without a numeric sweep or the metric.
pub fn sweep_chart(doc: &Results, table: &Table, m: &Metric) -> Option<(LineChart, bool)> {
    let x = sweep_axis(doc)?;
    table.column(m)?;
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
        lo > 0.0 && hi / lo >= 8.0
    };
    let xlabel = axis_name(doc, &x).to_string();
    let mut xaxis = if log_x {
        Axis::log(&xlabel)
    } else {
        Axis::linear(&xlabel)
    };
    if log_x {
        // The swept values themselves as ticks (1, 4, 16; 10, 100): a log axis of base 2 or 10
        // alike, labelled with what was run.
        let mut v: Vec<f64> = doc.points.iter().filter_map(|p| xv(p.id)).collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        xaxis.ticks = Some(v.iter().map(|t| (*t, crate::svg::fmt_num(*t))).collect());
    }
    let y = if m.merged_quantile.is_some() {
        Axis::log(axis_label(m))
    } else {
        Axis::from_zero(axis_label(m))
    };
    let mut c = LineChart::new(format!("{} vs {xlabel}", metric_title(m)), xaxis, y);
    c.metric = Some(m.key.to_string());
    let mut single = false;
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
        let mut pts = Vec::new();
        for (p, cname) in order
            .iter()
            .filter(|(p, c)| c == name && &series_key(doc, *p, &x) == key)
        {
            let pl = point_label(doc, *p);
            let Some(xx) = xv(*p) else { continue };
            let Some(cell) = table.row(&pl, cname).and_then(|r| table.cell(r, &m.key)) else {
                continue;
            };
            let (true, Some(center)) = (cell.summary.is_some(), cell.center()) else {
                continue;
            };
            single |= cell.ci().is_none();
            pts.push((xx, center, cell.ci(), (pl, cname.clone())));
        }
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (xx, center, ci, prov) in pts {
            line.points.push((xx, center));
            line.provenance.push(prov);
            if let Some((lo, hi)) = ci {
                line.band.push((xx, lo, hi));
            }
        }
        if line.band.len() < 2 {
            // A band needs two points; show the interval as error bars instead.
            line.errors = std::mem::take(&mut line.band);
        }
        c.lines.push(line);
    }
    Some((c, single))
}

/// The metrics charted against the swept parameter: servers' throughput and latency
/// percentiles, and errors when there were any; clients' primary metric, peak memory (PSS beside
/// RSS for multi-process trees) and the figures the study declared.
pub fn sweep_metrics(doc: &Results, table: &Table) -> Vec<Metric> {
    if super::is_client(doc) {
        let mut v = vec![registry::primary(doc).clone(), registry::PEAK_RSS];
        if crate::answer::pss_differs(doc) {
            v.push(registry::PEAK_PSS);
        }
        v.extend(
            table
                .columns
                .iter()
                .map(|c| c.metric())
                .filter(|m| m.is_figure())
                .cloned(),
        );
        return v;
    }
    let mut v = vec![registry::RPS, registry::P50, registry::P99, registry::P999];
    let any_errors = table.column(&registry::ERRORS).is_some_and(|i| {
        table
            .rows
            .iter()
            .any(|r| r.cells[i].values.iter().any(|e| *e > 0.0))
    });
    if any_errors {
        v.push(registry::ERRORS);
    }
    v
}

/// Every sweep metric but `skip` (the one the answer block already shows) against the swept
/// parameter.
pub fn sweep_plots(doc: &Results, table: &Table) -> Option<PlotGroup> {
    sweep_plots_except(doc, table, None)
}

/// [`sweep_plots`] without the chart of the metric keyed `skip`.
pub fn sweep_plots_except(doc: &Results, table: &Table, skip: Option<&str>) -> Option<PlotGroup> {
    let xlabel = sweep_axis(doc)?;
    let mut charts = Vec::new();
    let mut single = false;
    for m in sweep_metrics(doc, table) {
        if Some(m.key.as_ref()) == skip {
            continue;
        }
        if let Some((c, s)) = sweep_chart(doc, table, &m) {
            single |= s;
            charts.push(Plot::Line(c));
        }
    }
    let mut notes = vec!["Lines: throughput is the median over trials, latency the percentile of all trials' merged HDR histograms (as in the summary table); shaded band: 95% confidence interval of the median of the per-trial values.".to_string()];
    if single {
        notes.push(
            "Some points have a single successful trial: no confidence interval there.".into(),
        );
    }
    let xlabel = axis_name(doc, &xlabel);
    Some(PlotGroup {
        heading: format!("Sweep over {xlabel}"),
        notes,
        plots: charts,
    })
}

/// Without a numeric sweep: throughput and p99 as bars, one group per point, one bar per
/// contender.
pub fn point_bars(table: &Table) -> PlotGroup {
    let names = dedup(table.rows.iter().map(|r| r.contender.clone()));
    let points = dedup(table.rows.iter().map(|r| r.point.clone()));
    let chart = |m: &Metric| {
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
                        table
                            .row(p, n)
                            .and_then(|r| Some(bar(table.cell(r, &m.key)?, r)))
                            .unwrap_or_default()
                    })
                    .collect(),
            })
            .collect();
        Plot::Bar(BarChart {
            title: metric_title(m),
            y: Axis::from_zero(axis_label(m)),
            metrics: vec![Some(m.key.to_string()); names.len()],
            series: names.iter().cloned().zip(0..).collect(),
            groups,
        })
    };
    PlotGroup {
        heading: "Throughput and latency".into(),
        notes: vec![
            "Bars: median; error bars: 95% CI of the median; dots: individual trials.".into(),
        ],
        plots: vec![chart(&registry::RPS), chart(&registry::P99)],
    }
}

/// The bar of a table cell: its value as the table shows it, the interval, the trials.
pub(crate) fn bar(c: &Cell, r: &Row) -> Bar {
    Bar {
        value: c.center(),
        err: c.ci(),
        dots: c.values.clone(),
        failed: r.failed,
        provenance: Some((r.point.clone(), r.contender.clone())),
    }
}

/// A horizontal bar chart of metrics (one series each, named by the metric's label), one row
/// per table row with its full name, in the table's (ranked) order; a metric the table lacks is
/// left out. Failed trials are counted on the first series and written after the bars.
fn metric_bars(
    doc: &Results,
    table: &Table,
    title: &str,
    x: Axis,
    ms: &[&Metric],
    label: impl Fn(&Row) -> String,
) -> HBarChart {
    let ms: Vec<&Metric> = ms
        .iter()
        .copied()
        .filter(|m| table.column(m).is_some())
        .collect();
    HBarChart {
        title: title.into(),
        x,
        series: ms
            .iter()
            .zip(0..)
            .map(|(m, k)| (m.label.to_string(), k))
            .collect(),
        metrics: ms.iter().map(|m| Some(m.key.to_string())).collect(),
        rows: table
            .rows
            .iter()
            .map(|r| HBarRow {
                label: label(r),
                note: failures_of(doc, r).unwrap_or_default(),
                bars: ms
                    .iter()
                    .enumerate()
                    .map(|(k, m)| {
                        let mut b = table.cell(r, &m.key).map(|c| bar(c, r)).unwrap_or_default();
                        if k > 0 {
                            b.failed = 0;
                        }
                        b
                    })
                    .collect(),
            })
            .collect(),
        marks: Vec::new(),
    }
}

/// The failures of a table row in words ("OOM 5/5, 2.00 GiB, after 3.8 s"), if any.
pub fn failures_of(doc: &Results, r: &Row) -> Option<String> {
    let p = doc
        .points
        .iter()
        .map(|p| p.id)
        .find(|id| point_label(doc, *id) == r.point)
        .unwrap_or(0);
    crate::answer::failure_text(&trials_of(doc, p, &r.contender))
}

/// Client studies: wall/user/sys and peak memory bars per contender (and point; PSS beside RSS
/// for multi-process trees), then one chart per figure the study declared, ranked as the table,
/// full names, failures written out.
pub fn client_bars(doc: &Results, table: &Table) -> PlotGroup {
    let label = |r: &Row| {
        if r.point.is_empty() {
            r.contender.clone()
        } else {
            format!("{} {}", r.contender, r.point)
        }
    };
    let times = metric_bars(
        doc,
        table,
        "Wall, user and sys time",
        Axis::from_zero(format!("time ({})", registry::WALL.unit)),
        &[&registry::WALL, &registry::USER, &registry::SYS],
        label,
    );
    let pss = crate::answer::pss_differs(doc) && table.column(&registry::PEAK_PSS).is_some();
    let memory: &[&Metric] = if pss {
        &[&registry::PEAK_RSS, &registry::PEAK_PSS]
    } else {
        &[&registry::PEAK_RSS]
    };
    let rss = metric_bars(
        doc,
        table,
        if pss {
            "Peak RSS and PSS of the process tree"
        } else {
            "Peak RSS of the process tree"
        },
        Axis::from_zero(if pss {
            format!("memory ({})", registry::PEAK_RSS.unit)
        } else {
            axis_label(&registry::PEAK_RSS)
        }),
        memory,
        label,
    );
    let mut plots = vec![Plot::HBar(times), Plot::HBar(rss)];
    for m in table
        .columns
        .iter()
        .map(|c| c.metric())
        .filter(|m| m.is_figure())
    {
        plots.push(Plot::HBar(metric_bars(
            doc,
            table,
            &format!("{} (printed by the contender)", metric_title(m)),
            Axis::from_zero(axis_label(m)),
            &[m],
            label,
        )));
    }
    let mut notes = vec!["Bars: median over successful trials; error bars: 95% CI of the median; dots: individual trials; failed trials (crash, OOM, timeout, bad output) written after their row, counted, not hidden.".to_string()];
    if pss {
        notes.push("Peak PSS: the tree's proportional set size, pages shared between its processes (forked children) divided among them, where summed RSS counts them once per process. It is read on fewer samples than RSS (it costs more to read), so a short peak may fall between reads.".into());
    }
    if plots.len() > 2 {
        notes.push("Figures the contenders print themselves: a contender that does not print one has no bar (an empty cell in the tables, not a zero).".into());
    }
    PlotGroup {
        heading: "Client runs".into(),
        notes,
        plots,
    }
}

/// HDR percentile distributions, one curve per contender (and variant) from the merged
/// histograms of its successful trials: at the points the user chose, else at the largest value
/// of the sweep axis (every line of the sweep plots in one plot, same colours), else per point.
pub fn distributions(doc: &Results, wanted: &[String]) -> Vec<PlotGroup> {
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
                match doc.study.kind {
                    ContenderRole::Server => short_label(&xkey),
                    ContenderRole::Client => &xkey,
                },
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
                    .filter(|t| t.ok)
                    .flat_map(|t| t.phases.iter().filter_map(|ph| ph.load.hdr.as_deref()))
                    .filter_map(|b| match barrage_model::hdr::decode(b) {
                        Ok(h) => Some(h),
                        Err(e) => {
                            notes.push(format!(
                                "{label} {}: bad HDR histogram: {e}",
                                point_label(doc, *p)
                            ));
                            None
                        }
                    })
                    .collect();
                if let Some(h) = barrage_model::hdr::merge(&hs) {
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
        c.x.quantity = crate::svg::Quantity::Percentile;
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

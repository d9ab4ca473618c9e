//! Per contender and point: CPU % (user+sys as the median across trials in its min-max band, sys
//! dashed) and RSS of the process tree over time for every
//! trial, and the per-second throughput and errors, on the trial's clock (seconds since the trial
//! started), with the warmup and measured windows of the first trial shaded and phase boundaries
//! marked. This is where a server that stalls after an error shows itself.

use super::across::across;
use super::{cells_order, point_label, trials_of};
use crate::page::{Plot, PlotGroup};
use crate::svg::{Axis, Line, LineChart, Shade};
use barrage_model::study::{Pinning, Results, Trial};

const MIB: f64 = 1024.0 * 1024.0;

/// One plot group per (point, contender) that has trials.
pub fn groups(doc: &Results) -> Vec<PlotGroup> {
    cells_order(doc)
        .into_iter()
        .map(|(p, name)| {
            let trials = trials_of(doc, p, &name);
            let pl = point_label(doc, p);
            group(
                if pl.is_empty() {
                    name.clone()
                } else {
                    format!("{name} at {pl}")
                },
                &trials,
                &doc.pinning,
            )
        })
        .collect()
}

fn trial_name(t: &Trial) -> String {
    if t.ok {
        format!("trial {}", (t.trial as usize) + 1)
    } else {
        format!("trial {} (failed)", (t.trial as usize) + 1)
    }
}

fn group(heading: String, trials: &[&Trial], pinning: &Pinning) -> PlotGroup {
    // Every chart of the group: over the trial's time, from zero.
    let chart = |what: &str, y: &str| {
        LineChart::new(
            format!("{what} — {heading}"),
            Axis::time("time since trial start (s)"),
            Axis::from_zero(y),
        )
    };
    let mut cpu = chart("CPU", "CPU (% of one core)");
    let mut rss = chart("RSS", "RSS of the process tree (MiB)");
    let mut rps = chart("Throughput per second", "responses/s");
    let mut errs = chart("Errors per second", "errors/s");
    let mut notes = Vec::new();
    // CPU per trial (user+sys, and sys), drawn as one median line in a min-max band.
    let (mut cpu_total, mut cpu_sys, mut step) = (Vec::new(), Vec::new(), 0.0f64);
    for (k, t) in trials.iter().enumerate() {
        let t0 = t.windows.trial_start_s;
        let name = trial_name(t);
        if let Some(s) = &t.samples {
            // The first sample is the baseline (0 % by construction): leave it out of CPU.
            let pts = |f: &dyn Fn(&barrage_model::process::Sample) -> f64| {
                s.samples
                    .iter()
                    .skip(1)
                    .map(|x| (x.t.as_secs_f64() - t0, f(x)))
                    .collect::<Vec<_>>()
            };
            cpu_total.push(pts(&|x| x.cpu_user_pct + x.cpu_sys_pct));
            cpu_sys.push(pts(&|x| x.cpu_sys_pct));
            step = step.max(s.config.interval.as_secs_f64());
            rss.lines.push(Line {
                name: name.clone(),
                color: k,
                points: s
                    .samples
                    .iter()
                    .map(|x| (x.t.as_secs_f64() - t0, x.rss_bytes as f64 / MIB))
                    .collect(),
                ..Line::default()
            });
        }
        let mut thr = Vec::new();
        let mut err = Vec::new();
        for ph in &t.phases {
            let mut x = ph.measure_start_s - t0;
            for sec in &ph.load.series {
                let span = if sec.span_s > 0.0 { sec.span_s } else { 1.0 };
                x += span;
                if !crate::load_section::plottable(sec.span_s) {
                    continue;
                }
                thr.push((x, sec.responses as f64 / span));
                err.push((x, sec.errors as f64 / span));
            }
        }
        if !thr.is_empty() {
            let markers = thr.len() < 40;
            for (chart, points) in [(&mut rps, thr), (&mut errs, err)] {
                chart.lines.push(Line {
                    name: name.clone(),
                    color: k,
                    points,
                    markers,
                    ..Line::default()
                });
            }
        }
        if !t.ok {
            notes.push(format!("{name}: {}", t.reason_text()));
        }
    }
    cpu.lines.extend(cpu_lines(&cpu_total, &cpu_sys, step));
    // Windows of the first trial that has phases (all trials of a point run the same schedule).
    if let Some(t) = trials.iter().find(|t| !t.phases.is_empty()) {
        let mut shades = Vec::new();
        let mut marks = Vec::new();
        for (i, ph) in t.phases.iter().enumerate() {
            let (a, m, e) = (
                ph.start_s - t.windows.trial_start_s,
                ph.measure_start_s - t.windows.trial_start_s,
                ph.measure_end_s - t.windows.trial_start_s,
            );
            if m > a + 1e-6 {
                shades.push(Shade {
                    from: a,
                    to: m,
                    label: "warmup".into(),
                    class: "warmup",
                });
            }
            if e > m {
                let label = if ph.name.is_empty() || t.phases.len() == 1 {
                    "measured".to_string()
                } else {
                    format!("measured: {}", ph.name)
                };
                shades.push(Shade {
                    from: m,
                    to: e,
                    label,
                    class: "measure",
                });
            }
            if i > 0 {
                marks.push((a, format!("phase {}", ph.name)));
            }
        }
        for c in [&mut cpu, &mut rss, &mut rps, &mut errs] {
            c.shades = shades.clone();
            c.marks = marks.clone();
        }
    }
    let no_errors = errs
        .lines
        .iter()
        .all(|l| l.points.iter().all(|p| p.1 == 0.0));
    let cores = machine_cores(&heading, trials, pinning, &cpu);
    let mut plots = vec![Plot::Line(cpu), Plot::Line(rss)];
    if !rps.lines.is_empty() {
        plots.push(Plot::Line(rps));
        if no_errors {
            notes.push("No errors in any trial.".into());
        } else {
            plots.push(Plot::Line(errs));
        }
    }
    plots.extend(cores.map(Plot::Line));
    PlotGroup {
        heading: format!("Timelines: {heading}"),
        notes,
        plots,
    }
}

/// The CPU chart's lines: user+sys as the median across trials in its min-max band, and sys
/// alone as a dashed median (one trial: that trial's own values).
fn cpu_lines(total: &[Vec<(f64, f64)>], sys: &[Vec<(f64, f64)>], step: f64) -> Vec<Line> {
    let n = total.iter().filter(|s| !s.is_empty()).count();
    if n == 0 {
        return Vec::new();
    }
    let what = if n == 1 {
        String::new()
    } else {
        format!(", median of {n} trials")
    };
    let t = across(total, step);
    let s = across(sys, step);
    vec![
        Line {
            name: if n == 1 {
                "user+sys".into()
            } else {
                format!("user+sys{what} (band: min-max)")
            },
            color: 0,
            points: t.iter().map(|a| (a.t, a.median)).collect(),
            band: if n == 1 {
                Vec::new()
            } else {
                t.iter().map(|a| (a.t, a.min, a.max)).collect()
            },
            ..Line::default()
        },
        Line {
            name: format!("sys{what}"),
            color: 0,
            points: s.iter().map(|a| (a.t, a.median)).collect(),
            dashed: true,
            ..Line::default()
        },
    ]
}

/// Machine-wide busy % of every core during the first trial that has it, cores named by what was
/// pinned to them: shows whether the load generator's core (or the contender's) was saturated.
fn machine_cores(
    heading: &str,
    trials: &[&Trial],
    pinning: &Pinning,
    like: &LineChart,
) -> Option<LineChart> {
    let t = trials.iter().find(|t| {
        t.samples
            .as_ref()
            .is_some_and(|s| s.samples.iter().any(|x| !x.cores_busy_pct.is_empty()))
    })?;
    let s = t.samples.as_ref()?;
    let n = s
        .samples
        .iter()
        .map(|x| x.cores_busy_pct.len())
        .max()
        .unwrap_or(0);
    let role = |c: usize| {
        let has = |v: &Option<Vec<usize>>| v.as_ref().is_some_and(|v| v.contains(&c));
        match (
            pinning.enabled && has(&pinning.contender_cpus),
            pinning.enabled && has(&pinning.generator_cpus),
        ) {
            (true, false) => format!("CPU {c} (contender)"),
            (false, true) => format!("CPU {c} (generator)"),
            _ => format!("CPU {c}"),
        }
    };
    let mut c = LineChart::new(
        format!("Machine CPU per core, {} — {heading}", trial_name(t)),
        Axis::time("time since trial start (s)"),
        Axis {
            max: Some(100.0),
            ..Axis::from_zero("core busy (%)")
        },
    );
    for core in 0..n {
        c.lines.push(Line {
            name: role(core),
            color: core,
            points: s
                .samples
                .iter()
                .skip(1)
                .filter_map(|x| {
                    Some((
                        x.t.as_secs_f64() - t.windows.trial_start_s,
                        *x.cores_busy_pct.get(core)?,
                    ))
                })
                .collect(),
            ..Line::default()
        });
    }
    c.shades = like.shades.clone();
    c.marks = like.marks.clone();
    Some(c)
}

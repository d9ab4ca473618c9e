//! Grouped bar charts: one group per contender (or point), one bar per series, with error bars
//! (the confidence interval), every trial drawn as a dot, and failed trials marked with a cross
//! and a count rather than left out.

use super::lines::axes;
use super::scale::{Axis, Resolved};
use super::{color, esc, legend, open, PLOT_HEIGHT, PLOT_LEFT, PLOT_RIGHT, WIDTH};
use std::fmt::Write as _;

/// One bar: its height (usually the median), an interval, the individual trials, and how many
/// trials failed.
#[derive(Clone, Debug, Default)]
pub struct Bar {
    pub value: Option<f64>,
    pub err: Option<(f64, f64)>,
    pub dots: Vec<f64>,
    pub failed: usize,
    /// Where the value comes from: (point label, contender) of the summary table.
    pub provenance: Option<(String, String)>,
}

/// A group of bars, one per series, under one label.
#[derive(Clone, Debug, Default)]
pub struct BarGroup {
    pub label: String,
    pub bars: Vec<Bar>,
}

/// A grouped bar chart, rendered by [`BarChart::to_svg`].
#[derive(Clone, Debug)]
pub struct BarChart {
    pub title: String,
    pub y: Axis,
    /// Series names and palette indices; every group has one bar per series.
    pub series: Vec<(String, usize)>,
    pub groups: Vec<BarGroup>,
    /// The registry metric of each series, aligned with `series` (`None`: not a summary metric).
    pub metrics: Vec<Option<String>>,
}

impl BarChart {
    /// True when no bar has a value and no trial failed (nothing to show).
    pub fn is_empty(&self) -> bool {
        !self
            .groups
            .iter()
            .flat_map(|g| &g.bars)
            .any(|b| b.value.is_some() || b.failed > 0)
    }

    pub fn to_svg(&self) -> String {
        let ys = self.groups.iter().flat_map(|g| &g.bars).flat_map(|b| {
            b.value
                .into_iter()
                .chain(b.err.into_iter().flat_map(|e| [e.0, e.1]))
                .chain(b.dots.iter().copied())
        });
        let yr = Resolved::new(&self.y, ys);
        let items: Vec<(String, &str, &str)> = self
            .series
            .iter()
            .map(|(n, i)| (n.clone(), color(*i), ""))
            .collect();
        let (legend_svg, legend_h) = legend(&items, 34.0);
        let top = 34.0 + legend_h + 4.0;
        let top_of_plot = top;
        let bottom = top + PLOT_HEIGHT;
        let height = bottom + 58.0;
        let pw = WIDTH - PLOT_LEFT - PLOT_RIGHT;
        let py = |v: f64| {
            yr.frac(v)
                .map(|f| bottom - f.clamp(0.0, 1.05) * PLOT_HEIGHT)
        };
        let base = match yr.frac(0.0) {
            Some(f) if (0.0..=1.0).contains(&f) => bottom - f * PLOT_HEIGHT,
            _ => bottom,
        };

        let mut s = open(&self.title, height, "bar", "");
        s.push_str(&legend_svg);
        // No x ticks: the group labels play that role.
        let xr = Resolved::new(
            &Axis {
                ticks: Some(Vec::new()),
                ..Axis::linear("")
            },
            [0.0, 1.0],
        );
        s.push_str(&axes(&xr, &yr, top, bottom, "", &self.y.label));
        let n = self.groups.len().max(1) as f64;
        let gw = pw / n;
        let nb = self.series.len().max(1) as f64;
        let bw = (gw * 0.8 / nb).min(48.0);
        s.push_str(r#"<g class="data">"#);
        for (gi, g) in self.groups.iter().enumerate() {
            let gx = PLOT_LEFT + gw * gi as f64 + (gw - bw * nb) / 2.0;
            for (bi, b) in g.bars.iter().enumerate() {
                let ci = self.series.get(bi).map_or(bi, |s| s.1);
                let sname = self.series.get(bi).map_or("", |s| s.0.as_str());
                let x = gx + bw * bi as f64;
                if let Some(y) = b.value.and_then(py) {
                    let _ = write!(
                        s,
                        r#"<rect class="bar" x="{x:.1}" y="{yt:.1}" width="{w:.1}" height="{h:.1}" fill="{c}"><title>{g} {sn}: {v}</title></rect>"#,
                        yt = y.min(base),
                        w = bw - 2.0,
                        h = (base - y).abs().max(0.5),
                        c = color(ci),
                        g = esc(&g.label),
                        sn = esc(sname),
                        v = super::fmt_num(b.value.unwrap_or_default())
                    );
                }
                let cx = x + (bw - 2.0) / 2.0;
                if let Some((lo, hi)) = b.err {
                    if let (Some(a), Some(bb)) = (py(lo), py(hi)) {
                        let _ = write!(
                            s,
                            r#"<path class="errbar" d="M{cx:.1},{a:.1}V{bb:.1}M{l:.1},{a:.1}H{r:.1}M{l:.1},{bb:.1}H{r:.1}"/>"#,
                            l = cx - 4.0,
                            r = cx + 4.0
                        );
                    }
                }
                for (k, d) in b.dots.iter().enumerate() {
                    if let Some(y) = py(*d) {
                        // Spread the dots a little so equal trials stay countable.
                        let jx = cx + ((k % 5) as f64 - 2.0) * (bw / 14.0).min(3.0);
                        let _ = write!(
                            s,
                            r#"<circle class="trial" cx="{jx:.1}" cy="{y:.1}" r="2.2"/>"#
                        );
                    }
                }
                if b.failed > 0 {
                    // Above the bar and its error bar, so the mark never hides data.
                    let top = [b.value, b.err.map(|e| e.1)]
                        .into_iter()
                        .flatten()
                        .filter_map(py)
                        .fold(base, f64::min);
                    let y = (top - 12.0).max(top_of_plot + 22.0);
                    let _ = write!(
                        s,
                        r#"<g class="failed"><path d="M{a:.1},{b:.1}L{c:.1},{d:.1}M{a:.1},{d:.1}L{c:.1},{b:.1}"/><text x="{cx:.1}" y="{ty:.1}" text-anchor="middle">{n} failed</text><title>{n} failed trial(s)</title></g>"#,
                        a = cx - 5.0,
                        c = cx + 5.0,
                        b = y - 5.0,
                        d = y + 5.0,
                        ty = y - 9.0,
                        n = b.failed
                    );
                }
            }
            let _ = write!(
                s,
                r#"<text class="group" x="{x:.1}" y="{y:.1}" text-anchor="middle">{l}</text>"#,
                x = PLOT_LEFT + gw * (gi as f64 + 0.5),
                y = bottom + 16.0,
                l = esc(&truncate(&g.label, (gw / 6.2) as usize))
            );
        }
        s.push_str("</g></svg>");
        s
    }
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max.max(4) {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.max(4) - 1).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_with_errors_dots_and_failures() {
        let c = BarChart {
            metrics: Vec::new(),
            title: "wall".into(),
            y: Axis::from_zero("s"),
            series: vec![("wall".into(), 0), ("user".into(), 1)],
            groups: vec![
                BarGroup {
                    label: "curl".into(),
                    bars: vec![
                        Bar {
                            value: Some(1.0),
                            err: Some((0.9, 1.1)),
                            dots: vec![0.9, 1.0, 1.1],
                            failed: 0,
                            provenance: None,
                        },
                        Bar {
                            value: Some(0.2),
                            ..Bar::default()
                        },
                    ],
                },
                BarGroup {
                    label: "crashy".into(),
                    bars: vec![
                        Bar {
                            failed: 2,
                            ..Bar::default()
                        },
                        Bar::default(),
                    ],
                },
            ],
        };
        assert!(!c.is_empty());
        let svg = c.to_svg();
        assert_eq!(svg.matches(r#"class="bar""#).count(), 2);
        assert_eq!(svg.matches(r#"class="trial""#).count(), 3);
        assert!(svg.contains("2 failed"));
        assert!(svg.contains(r#"class="errbar""#));
    }

    #[test]
    fn empty_chart() {
        let c = BarChart {
            metrics: Vec::new(),
            title: "x".into(),
            y: Axis::from_zero("s"),
            series: vec![],
            groups: vec![],
        };
        assert!(c.is_empty());
    }
}

//! Line charts: series of (x, y) points with an optional confidence band or error bars, shaded
//! x ranges (warmup and measured windows) and vertical marks (phase boundaries).

use super::scale::{Axis, Quantity, Resolved, Scale};
use super::{color, dash, esc, legend, open, PLOT_HEIGHT, PLOT_LEFT, PLOT_RIGHT, WIDTH};
use std::fmt::Write as _;

/// One series of a line chart.
#[derive(Clone, Debug, Default)]
pub struct Line {
    pub name: String,
    /// Index into the palette; the same contender keeps the same colour across plots.
    pub color: usize,
    pub points: Vec<(f64, f64)>,
    /// Confidence band: (x, low, high), drawn as a translucent area.
    pub band: Vec<(f64, f64, f64)>,
    /// Error bars: (x, low, high).
    pub errors: Vec<(f64, f64, f64)>,
    /// Draw a dot at every point (sweeps with few points).
    pub markers: bool,
    /// Draw dashed whatever the colour index says (e.g. sys CPU beside user CPU).
    pub dashed: bool,
    /// Where each point's value comes from, aligned with `points`: (point label, contender) of
    /// the summary table (empty for lines that are not table values), so tests can check it.
    pub provenance: Vec<(String, String)>,
    /// Draw a cross at the last point: the process ended there by failing (e.g. an OOM kill).
    pub end_cross: bool,
}

impl Line {
    fn dash(&self) -> &'static str {
        if self.dashed {
            "5 3"
        } else {
            dash(self.color)
        }
    }
}

/// A shaded x range, e.g. the warmup or the measured window of a trial.
#[derive(Clone, Debug)]
pub struct Shade {
    pub from: f64,
    pub to: f64,
    pub label: String,
    /// CSS class, which also picks the fill: "warmup", "measure", "phase".
    pub class: &'static str,
}

/// A line chart, rendered by [`LineChart::to_svg`].
#[derive(Clone, Debug)]
pub struct LineChart {
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub lines: Vec<Line>,
    pub shades: Vec<Shade>,
    /// Vertical marks (x, label).
    pub marks: Vec<(f64, String)>,
    /// The registry metric every line's y value shows (`None`: not a summary metric).
    pub metric: Option<String>,
}

impl LineChart {
    pub fn new(title: impl Into<String>, x: Axis, y: Axis) -> Self {
        LineChart {
            title: title.into(),
            x,
            y,
            lines: Vec::new(),
            shades: Vec::new(),
            marks: Vec::new(),
            metric: None,
        }
    }

    /// True when no series has a single drawable point: the report says so instead of drawing
    /// an empty frame.
    pub fn is_empty(&self) -> bool {
        let xr = Resolved::new(
            &self.x,
            self.lines.iter().flat_map(|l| l.points.iter().map(|p| p.0)),
        );
        let yr = Resolved::new(
            &self.y,
            self.lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)),
        );
        !self
            .lines
            .iter()
            .flat_map(|l| &l.points)
            .any(|&(x, y)| xr.frac(x).is_some() && yr.frac(y).is_some())
    }

    pub fn to_svg(&self) -> String {
        let xs = self
            .lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.0))
            .chain(self.shades.iter().flat_map(|s| [s.from, s.to]))
            .chain(self.marks.iter().map(|m| m.0));
        let xr = Resolved::new(&self.x, xs);
        let ys = self.lines.iter().flat_map(|l| {
            l.points
                .iter()
                .map(|p| p.1)
                .chain(l.band.iter().flat_map(|b| [b.1, b.2]))
                .chain(l.errors.iter().flat_map(|b| [b.1, b.2]))
        });
        let yr = Resolved::new(&self.y, ys);

        let items: Vec<(String, &str, &str)> = self
            .lines
            .iter()
            .map(|l| (l.name.clone(), color(l.color), l.dash()))
            .collect();
        let (legend_svg, legend_h) = legend(&items, 34.0);
        let top = 34.0 + legend_h + 4.0;
        let bottom = top + PLOT_HEIGHT;
        let height = bottom + 44.0;
        let pw = WIDTH - PLOT_LEFT - PLOT_RIGHT;
        let px = |v: f64| xr.frac(v).map(|f| PLOT_LEFT + f.clamp(-0.02, 1.02) * pw);
        let py = |v: f64| {
            yr.frac(v)
                .map(|f| bottom - f.clamp(-0.02, 1.05) * PLOT_HEIGHT)
        };

        // What each line draws, for the page's script: the same points the path goes through.
        let drawn: Vec<Vec<(f64, f64)>> = self
            .lines
            .iter()
            .map(|l| {
                l.points
                    .iter()
                    .copied()
                    .filter(|&(x, y)| px(x).is_some() && py(y).is_some())
                    .collect()
            })
            .collect();
        let data = self.data(&xr, &drawn, [PLOT_LEFT, top, pw, PLOT_HEIGHT]);
        let mut s = open(
            &self.title,
            height,
            "line",
            &format!(r#" data-series="{}""#, esc(&data)),
        );
        s.push_str(&legend_svg);
        let clip = format!("clip{:x}", fnv(&self.title));
        let _ = write!(
            s,
            r#"<defs><clipPath id="{clip}"><rect x="{PLOT_LEFT}" y="{top:.1}" width="{pw:.1}" height="{PLOT_HEIGHT}"/></clipPath></defs>"#
        );
        // What follows the x axis sits in a `zx` group the script stretches to zoom, inside a
        // group that clips to the plot: the clip must not stretch with it.
        let zoomed = format!(r#"<g clip-path="url(#{clip})"><g class="zx">"#);
        // Shades first, so grid and data draw over them.
        s.push_str(&zoomed);
        for sh in &self.shades {
            if let (Some(a), Some(b)) = (px(sh.from), px(sh.to)) {
                let w = (b - a).max(0.5);
                let _ = write!(
                    s,
                    r#"<rect class="shade {c}" x="{a:.1}" y="{top:.1}" width="{w:.1}" height="{PLOT_HEIGHT}"><title>{l}</title></rect>"#,
                    c = sh.class,
                    l = esc(&sh.label),
                );
                // The label only where it fits (a short warmup keeps it in the tooltip).
                if w >= sh.label.chars().count() as f64 * 5.6 + 6.0 {
                    let _ = write!(
                        s,
                        r#"<text class="shade-label" x="{tx:.1}" y="{ty:.1}">{l}</text>"#,
                        l = esc(&sh.label),
                        tx = a + 3.0,
                        ty = top + 11.0
                    );
                }
            }
        }
        s.push_str("</g></g>");
        s.push_str(&axes(&xr, &yr, top, bottom, &self.x.label, &self.y.label));
        s.push_str(&zoomed);
        for (x, label) in &self.marks {
            if let Some(a) = px(*x) {
                let _ = write!(
                    s,
                    r#"<line class="mark" x1="{a:.1}" y1="{top:.1}" x2="{a:.1}" y2="{bottom:.1}"><title>{l}</title></line>"#,
                    l = esc(label)
                );
            }
        }
        s.push_str("</g></g>");
        let _ = write!(
            s,
            r#"<g class="data" clip-path="url(#{clip})"><g class="zx">"#
        );
        for l in &self.lines {
            let c = color(l.color);
            // Band: upper edge left to right, lower edge right to left.
            let upper: Vec<_> = l
                .band
                .iter()
                .filter_map(|b| Some((px(b.0)?, py(b.2)?)))
                .collect();
            let lower: Vec<_> = l
                .band
                .iter()
                .rev()
                .filter_map(|b| Some((px(b.0)?, py(b.1)?)))
                .collect();
            if upper.len() >= 2 {
                let mut d = String::new();
                for (i, (x, y)) in upper.iter().chain(&lower).enumerate() {
                    let _ = write!(d, "{}{x:.1},{y:.1}", if i == 0 { "M" } else { "L" });
                }
                let _ = write!(
                    s,
                    r#"<path class="band" d="{d}Z" fill="{c}" fill-opacity="0.18"/>"#
                );
            }
            for &(x, lo, hi) in &l.errors {
                if let (Some(x), Some(a), Some(b)) = (px(x), py(lo), py(hi)) {
                    let _ = write!(
                        s,
                        r#"<path class="errbar" d="M{x:.1},{a:.1}V{b:.1}M{l:.1},{a:.1}H{r:.1}M{l:.1},{b:.1}H{r:.1}" stroke="{c}"/>"#,
                        l = x - 3.0,
                        r = x + 3.0
                    );
                }
            }
            let mut d = String::new();
            let mut pen_up = true;
            for &(x, y) in &l.points {
                match (px(x), py(y)) {
                    (Some(x), Some(y)) => {
                        let _ = write!(d, "{}{x:.1},{y:.1}", if pen_up { "M" } else { "L" });
                        pen_up = false;
                    }
                    // A gap in the data (e.g. zero on a log axis) breaks the line.
                    _ => pen_up = true,
                }
            }
            if !d.is_empty() {
                let _ = write!(
                    s,
                    r#"<path class="line" d="{d}" stroke="{c}" stroke-dasharray="{da}"><title>{n}</title></path>"#,
                    da = l.dash(),
                    n = esc(&l.name)
                );
            }
            // A line with a single drawable point would be invisible: draw its dot.
            let drawable = l
                .points
                .iter()
                .filter(|&&(x, y)| px(x).is_some() && py(y).is_some())
                .count();
            if l.markers || drawable == 1 {
                for &(x, y) in &l.points {
                    if let (Some(cx), Some(cy)) = (px(x), py(y)) {
                        let _ = write!(
                            s,
                            r#"<circle class="dot" cx="{cx:.1}" cy="{cy:.1}" r="3" fill="{c}"><title>{n}: {yv} {yu} at {xv}</title></circle>"#,
                            n = esc(&l.name),
                            xv = esc(&self.x_text(x)),
                            yv = super::fmt_num(y),
                            yu = esc(self.y.unit()),
                        );
                    }
                }
            }
            if let Some((cx, cy)) = l
                .points
                .last()
                .filter(|_| l.end_cross)
                .and_then(|&(x, y)| Some((px(x)?, py(y)?)))
            {
                let _ = write!(
                    s,
                    r#"<g class="failed"><path d="M{a:.1},{b:.1}L{c2:.1},{d:.1}M{a:.1},{d:.1}L{c2:.1},{b:.1}"/><title>{n}: failed here</title></g>"#,
                    a = cx - 5.0,
                    c2 = cx + 5.0,
                    b = cy - 5.0,
                    d = cy + 5.0,
                    n = esc(&l.name)
                );
            }
        }
        s.push_str("</g></g></svg>");
        s
    }

    /// The chart's `data-series` JSON: the x range as drawn (scale space), the plot's rectangle
    /// (left, top, width, height), the units, and each line's drawn points and its band as
    /// given ([x, low, high], in the axes' units).
    fn data(&self, xr: &Resolved, drawn: &[Vec<(f64, f64)>], plot: [f64; 4]) -> String {
        let (lo, hi) = xr.range();
        serde_json::json!({
            "x": {
                "unit": self.x.unit(),
                "log": xr.scale == Scale::Log,
                "lo": lo,
                "hi": hi,
                "quantity": self.x.quantity.name(),
            },
            "y": { "unit": self.y.unit() },
            "plot": plot,
            "lines": self.lines.iter().zip(drawn).map(|(l, pts)| serde_json::json!({
                "name": l.name,
                "points": pts.iter().map(|&(x, y)| [x, y]).collect::<Vec<_>>(),
                "band": l.band.iter().map(|&(x, lo, hi)| [x, lo, hi]).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
        .to_string()
    }

    /// An x value with its unit, as a reader names it: a percentile axis holds 1 / (1 - q).
    fn x_text(&self, x: f64) -> String {
        match self.x.quantity {
            // Six significant digits: fmt_num would round 99.99 up to 100.
            Quantity::Percentile => format!(
                "{}%",
                format!("{:.5e}", 100.0 - 100.0 / x)
                    .parse::<f64>()
                    .unwrap_or(f64::NAN)
            ),
            _ => format!("{} {}", super::fmt_num(x), self.x.unit()),
        }
    }
}

/// Grid, ticks, tick labels and axis labels.
pub(crate) fn axes(
    xr: &Resolved,
    yr: &Resolved,
    top: f64,
    bottom: f64,
    xl: &str,
    yl: &str,
) -> String {
    let pw = WIDTH - PLOT_LEFT - PLOT_RIGHT;
    let mut s = String::from(r#"<g class="axes">"#);
    for (v, label) in &yr.ticks {
        if let Some(f) = yr.frac(*v).filter(|f| (-1e-9..=1.0 + 1e-9).contains(f)) {
            let y = bottom - f * PLOT_HEIGHT;
            let _ = write!(
                s,
                r#"<line class="grid" x1="{PLOT_LEFT}" y1="{y:.1}" x2="{x2:.1}" y2="{y:.1}"/><text class="tick" x="{tx:.1}" y="{ty:.1}" text-anchor="end">{l}</text>"#,
                x2 = PLOT_LEFT + pw,
                tx = PLOT_LEFT - 5.0,
                ty = y + 4.0,
                l = esc(label)
            );
        }
    }
    for (v, label) in &xr.ticks {
        if let Some(f) = xr.frac(*v).filter(|f| (-1e-9..=1.0 + 1e-9).contains(f)) {
            let x = PLOT_LEFT + f * pw;
            let _ = write!(
                s,
                r#"<line class="grid x" x1="{x:.1}" y1="{top:.1}" x2="{x:.1}" y2="{bottom:.1}"/><text class="tick x" x="{x:.1}" y="{ty:.1}" text-anchor="middle">{l}</text>"#,
                ty = bottom + 15.0,
                l = esc(label)
            );
        }
    }
    let _ = write!(
        s,
        r#"<rect class="frame" x="{PLOT_LEFT}" y="{top:.1}" width="{pw:.1}" height="{PLOT_HEIGHT}"/><text class="axis-label" x="{cx:.1}" y="{xy:.1}" text-anchor="middle">{xl}</text><text class="axis-label" transform="translate(14 {cy:.1}) rotate(-90)" text-anchor="middle">{yl}</text></g>"#,
        cx = PLOT_LEFT + pw / 2.0,
        xy = bottom + 34.0,
        cy = top + PLOT_HEIGHT / 2.0,
        xl = esc(xl),
        yl = esc(yl)
    );
    s
}

/// A stable id from a title (FNV-1a), so clip paths of different plots never collide.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_lines_bands_and_shades() {
        let mut c = LineChart::new("t <x>", Axis::log("connections"), Axis::from_zero("req/s"));
        c.lines.push(Line {
            name: "a&b".into(),
            points: vec![(1.0, 10.0), (10.0, 20.0), (100.0, 15.0)],
            band: vec![(1.0, 9.0, 11.0), (10.0, 18.0, 22.0), (100.0, 14.0, 16.0)],
            markers: true,
            ..Line::default()
        });
        c.shades.push(Shade {
            from: 1.0,
            to: 5.0,
            label: "warmup".into(),
            class: "warmup",
        });
        assert!(!c.is_empty());
        let svg = c.to_svg();
        assert!(svg.contains(r#"class="line""#));
        assert!(svg.contains(r#"class="band""#));
        assert!(svg.contains(r#"class="shade warmup""#));
        assert!(svg.contains("t &lt;x&gt;") && svg.contains("a&amp;b"));
        assert_eq!(svg.matches("<circle").count(), 3);
    }

    #[test]
    fn empty_when_nothing_drawable() {
        let mut c = LineChart::new("t", Axis::log("x"), Axis::log("y"));
        assert!(c.is_empty());
        c.lines.push(Line {
            points: vec![(0.0, 5.0), (3.0, -1.0)],
            ..Line::default()
        });
        assert!(
            c.is_empty(),
            "non-positive values cannot be drawn on log axes"
        );
    }

    #[test]
    fn a_single_point_gets_a_dot() {
        let mut c = LineChart::new("t", Axis::linear("x"), Axis::linear("y"));
        c.lines.push(Line {
            points: vec![(1.0, 2.0)],
            ..Line::default()
        });
        assert!(!c.is_empty());
        assert_eq!(c.to_svg().matches("<circle").count(), 1);
    }

    /// The chart's `data-series` JSON, unescaped from its attribute.
    fn data_of(svg: &str) -> serde_json::Value {
        let a = svg.split(r#"data-series=""#).nth(1).unwrap();
        let a = &a[..a.find('"').unwrap()];
        let a = a
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&");
        serde_json::from_str(&a).unwrap()
    }

    /// The vertices of every `class="line"` path, in order.
    fn paths_of(svg: &str) -> Vec<Vec<(f64, f64)>> {
        svg.split(r#"class="line" d=""#)
            .skip(1)
            .map(|d| {
                d[..d.find('"').unwrap()]
                    .split(['M', 'L'])
                    .filter(|v| !v.is_empty())
                    .map(|v| {
                        let (x, y) = v.split_once(',').unwrap();
                        (x.parse().unwrap(), y.parse().unwrap())
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn embedded_data_is_what_the_lines_draw() {
        let mut c = LineChart::new("t", Axis::time("time (s)"), Axis::log("latency (ms)"));
        c.lines.push(Line {
            name: "a \"quoted\" <name>".into(),
            // The zero cannot be drawn on the log y axis: it is neither drawn nor embedded.
            points: vec![(0.5, 2.0), (1.5, 0.0), (2.5, 30.0), (3.5, 7.25)],
            ..Line::default()
        });
        c.lines.push(Line {
            name: "b".into(),
            color: 1,
            points: vec![(1.0, 1.5), (2.0, 400.0), (4.0, 12.0)],
            ..Line::default()
        });
        let svg = c.to_svg();
        let data = data_of(&svg);
        assert_eq!(data["x"]["unit"], "s");
        assert_eq!(data["x"]["quantity"], "time");
        assert_eq!(data["y"]["unit"], "ms");
        let lines = data["lines"].as_array().unwrap();
        assert_eq!(lines[0]["name"], "a \"quoted\" <name>");
        let embedded: Vec<Vec<(f64, f64)>> = lines
            .iter()
            .map(|l| {
                let pts = l["points"].as_array().unwrap();
                pts.iter()
                    .map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap()))
                    .collect()
            })
            .collect();
        assert_eq!(
            embedded,
            [
                vec![(0.5, 2.0), (2.5, 30.0), (3.5, 7.25)],
                vec![(1.0, 1.5), (2.0, 400.0), (4.0, 12.0)]
            ]
        );
        // Mapped as the script maps them (x from the embedded range and plot rectangle; y from
        // the axis), the embedded points are the paths' vertices.
        let p: Vec<f64> = data["plot"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let (lo, hi) = (
            data["x"]["lo"].as_f64().unwrap(),
            data["x"]["hi"].as_f64().unwrap(),
        );
        let yr = Resolved::new(
            &c.y,
            c.lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)),
        );
        let paths = paths_of(&svg);
        assert_eq!(paths.len(), 2);
        for (line, path) in embedded.iter().zip(&paths) {
            assert_eq!(line.len(), path.len());
            for (&(x, y), &(vx, vy)) in line.iter().zip(path) {
                let want_x = p[0] + (x - lo) / (hi - lo) * p[2];
                let want_y = p[1] + p[3] - yr.frac(y).unwrap() * p[3];
                assert!((want_x - vx).abs() <= 0.051, "x {x}: {want_x} vs {vx}");
                assert!((want_y - vy).abs() <= 0.051, "y {y}: {want_y} vs {vy}");
            }
        }
    }

    #[test]
    fn percentile_axes_read_out_as_percentiles() {
        let mut c = LineChart::new("t", Axis::log("percentile"), Axis::linear("latency (ms)"));
        c.x.quantity = Quantity::Percentile;
        assert_eq!(c.x_text(1000.0), "99.9%");
        assert_eq!(c.x_text(10000.0), "99.99%");
        c.x.quantity = Quantity::Plain;
        assert_eq!(c.x_text(8.0), "8 percentile");
    }

    #[test]
    fn dots_tell_their_values_without_the_script() {
        let mut c = LineChart::new("t", Axis::time("time (s)"), Axis::linear("responses/s"));
        c.lines.push(Line {
            name: "trial 1".into(),
            points: vec![(1.0, 1500.0), (2.0, 0.25)],
            markers: true,
            ..Line::default()
        });
        let svg = c.to_svg();
        assert!(
            svg.contains("<title>trial 1: 1500 responses/s at 1 s</title>"),
            "{svg}"
        );
        assert!(
            svg.contains("<title>trial 1: 0.25 responses/s at 2 s</title>"),
            "{svg}"
        );
    }

    #[test]
    fn gap_breaks_the_line() {
        let mut c = LineChart::new("t", Axis::linear("x"), Axis::log("y"));
        c.lines.push(Line {
            points: vec![(0.0, 1.0), (1.0, 2.0), (2.0, 0.0), (3.0, 3.0), (4.0, 4.0)],
            ..Line::default()
        });
        let svg = c.to_svg();
        let d = svg.split(r#"class="line" d=""#).nth(1).unwrap();
        let d = &d[..d.find('"').unwrap()];
        assert_eq!(d.matches('M').count(), 2, "{d}");
    }
}

//! Horizontal bar charts (TechEmpower's ranked bars): one row per contender with its full name,
//! one bar per series (e.g. close and keep-alive), the interval as an error bar, every trial as a
//! dot, and a failed row written out ("OOM 5/5, 2.00 GiB") instead of left blank. Rows keep the
//! order they are given (ranked by the caller).

use super::scale::{Axis, Resolved};
use super::{color, esc, legend, open, Bar, CHAR_W, WIDTH};
use std::fmt::Write as _;

/// One row: a label and one bar per series; `note` is written after the bars (failures).
#[derive(Clone, Debug, Default)]
pub struct HBarRow {
    pub label: String,
    pub bars: Vec<Bar>,
    pub note: String,
}

/// A horizontal bar chart, rendered by [`HBarChart::to_svg`].
#[derive(Clone, Debug)]
pub struct HBarChart {
    pub title: String,
    /// The value axis (drawn along the bottom).
    pub x: Axis,
    /// Series names and palette indices; every row has one bar per series.
    pub series: Vec<(String, usize)>,
    pub rows: Vec<HBarRow>,
    /// The registry metric of each series, aligned with `series` (`None`: not a summary metric).
    pub metrics: Vec<Option<String>>,
    /// Vertical reference lines (value, label), e.g. a memory limit.
    pub marks: Vec<(f64, String)>,
}

const BAR_H: f64 = 11.0;
const ROW_GAP: f64 = 7.0;

impl HBarChart {
    /// True when no bar has a value and no row has a note.
    pub fn is_empty(&self) -> bool {
        !self
            .rows
            .iter()
            .any(|r| !r.note.is_empty() || r.bars.iter().any(|b| b.value.is_some()))
    }

    pub fn to_svg(&self) -> String {
        let xs = self
            .rows
            .iter()
            .flat_map(|r| &r.bars)
            .flat_map(|b| {
                b.value
                    .into_iter()
                    .chain(b.err.into_iter().flat_map(|e| [e.0, e.1]))
                    .chain(b.dots.iter().copied())
            })
            .chain(self.marks.iter().map(|m| m.0));
        let xr = Resolved::new(&self.x, xs);
        let items: Vec<(String, &str, &str)> = self
            .series
            .iter()
            .map(|(n, i)| (n.clone(), color(*i), ""))
            .collect();
        let (legend_svg, legend_h) = if self.series.len() > 1 {
            legend(&items, 34.0)
        } else {
            (String::new(), 0.0)
        };
        // Full names: the label column is as wide as the longest name (within reason).
        let longest = self
            .rows
            .iter()
            .map(|r| r.label.chars().count())
            .max()
            .unwrap_or(4);
        let left = (longest as f64 * CHAR_W + 14.0).clamp(60.0, 280.0);
        let right = 16.0;
        let pw = WIDTH - left - right;
        let nb = self.series.len().max(1) as f64;
        let row_h = nb * BAR_H + ROW_GAP;
        let top = 30.0 + legend_h + 4.0;
        let bottom = top + (row_h * self.rows.len() as f64).max(60.0);
        let height = bottom + 40.0;
        let px = |v: f64| xr.frac(v).map(|f| left + f.clamp(0.0, 1.02) * pw);
        let base = px(0.0)
            .filter(|_| xr.frac(0.0).is_some_and(|f| f >= -1e-9))
            .unwrap_or(left);

        let mut s = open(&self.title, height, "hbar", "");
        s.push_str(&legend_svg);
        s.push_str(r#"<g class="axes">"#);
        for (v, label) in &xr.ticks {
            if let Some(f) = xr.frac(*v).filter(|f| (-1e-9..=1.0 + 1e-9).contains(f)) {
                let x = left + f * pw;
                let _ = write!(
                    s,
                    r#"<line class="grid" x1="{x:.1}" y1="{top:.1}" x2="{x:.1}" y2="{bottom:.1}"/><text class="tick" x="{x:.1}" y="{ty:.1}" text-anchor="middle">{l}</text>"#,
                    ty = bottom + 14.0,
                    l = esc(label)
                );
            }
        }
        let _ = write!(
            s,
            r#"<text class="axis-label" x="{cx:.1}" y="{y:.1}" text-anchor="middle">{l}</text></g>"#,
            cx = left + pw / 2.0,
            y = bottom + 32.0,
            l = esc(&self.x.label)
        );
        s.push_str(r#"<g class="data">"#);
        for (ri, r) in self.rows.iter().enumerate() {
            let y0 = top + row_h * ri as f64 + ROW_GAP / 2.0;
            let _ = write!(
                s,
                r#"<text class="group" x="{x:.1}" y="{y:.1}" text-anchor="end">{l}</text>"#,
                x = left - 6.0,
                y = y0 + nb * BAR_H / 2.0 + 4.0,
                l = esc(&r.label)
            );
            let mut end = base;
            for (bi, b) in r.bars.iter().enumerate() {
                let ci = self.series.get(bi).map_or(bi, |s| s.1);
                let sname = self.series.get(bi).map_or("", |s| s.0.as_str());
                let y = y0 + BAR_H * bi as f64;
                if let Some(x) = b.value.and_then(px) {
                    let _ = write!(
                        s,
                        r#"<rect class="bar" x="{x0:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{c}"><title>{l} {sn}: {v}</title></rect>"#,
                        x0 = x.min(base),
                        w = (x - base).abs().max(0.5),
                        h = BAR_H - 1.5,
                        c = color(ci),
                        l = esc(&r.label),
                        sn = esc(sname),
                        v = super::fmt_num(b.value.unwrap_or_default())
                    );
                    end = end.max(x);
                }
                let cy = y + (BAR_H - 1.5) / 2.0;
                if let Some((lo, hi)) = b.err {
                    if let (Some(a), Some(bb)) = (px(lo), px(hi)) {
                        let _ = write!(
                            s,
                            r#"<path class="errbar" d="M{a:.1},{cy:.1}H{bb:.1}M{a:.1},{t:.1}V{u:.1}M{bb:.1},{t:.1}V{u:.1}"/>"#,
                            t = cy - 3.0,
                            u = cy + 3.0
                        );
                        end = end.max(bb);
                    }
                }
                for d in &b.dots {
                    if let Some(x) = px(*d) {
                        let _ = write!(
                            s,
                            r#"<circle class="trial" cx="{x:.1}" cy="{cy:.1}" r="1.8"/>"#
                        );
                    }
                }
            }
            if !r.note.is_empty() {
                let failed: usize = r.bars.iter().map(|b| b.failed).sum();
                let _ = write!(
                    s,
                    r#"<g class="{cls}"><text x="{x:.1}" y="{y:.1}">{n}</text></g>"#,
                    cls = if failed > 0 { "failed" } else { "note" },
                    x = end + 6.0,
                    y = y0 + nb * BAR_H / 2.0 + 4.0,
                    n = esc(&r.note)
                );
            }
        }
        for (v, label) in &self.marks {
            if let Some(x) = px(*v) {
                let _ = write!(
                    s,
                    r#"<line class="mark" x1="{x:.1}" y1="{top:.1}" x2="{x:.1}" y2="{bottom:.1}"/><text class="shade-label" x="{tx:.1}" y="{ty:.1}" text-anchor="end">{l}</text>"#,
                    tx = x - 3.0,
                    ty = top + 10.0,
                    l = esc(label)
                );
            }
        }
        s.push_str("</g></svg>");
        s
    }
}

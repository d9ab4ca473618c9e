//! Hand-written SVG plots: line charts (with confidence bands, error bars, shaded time windows
//! and vertical marks) and grouped bar charts (with error bars, per-trial dots and failure marks).
//! No fonts beyond the system's sans-serif, so the report opens offline. Line charts carry the
//! values they draw in a `data-series` attribute, which the page's optional script
//! (`crate::interact`) reads for hover read-outs and zoom; the SVG is complete without it.

mod bars;
mod hbars;
mod lines;
pub mod scale;

pub use bars::{Bar, BarChart, BarGroup};
pub use hbars::{HBarChart, HBarRow};
pub use lines::{Line, LineChart, Shade};
pub use scale::{fmt_num, Axis, Quantity, Scale};

use std::fmt::Write as _;

/// The Okabe-Ito palette (colour-blind safe), reordered so the first colours are the most
/// distinct on white; its yellow, faint on white, is replaced by Paul Tol's wine.
pub const PALETTE: [&str; 8] = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#882255",
];

/// Dash patterns that cycle after the palette, so a ninth series is still distinguishable and
/// series stay apart in a black-and-white print.
const DASHES: [&str; 3] = ["", "6 3", "2 3"];

/// The colour of series number `i`.
pub fn color(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

pub(crate) fn dash(i: usize) -> &'static str {
    DASHES[(i / PALETTE.len()) % DASHES.len()]
}

/// Escapes text for SVG/HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Plot geometry shared by both chart kinds.
pub(crate) const WIDTH: f64 = 640.0;
pub(crate) const PLOT_LEFT: f64 = 70.0;
pub(crate) const PLOT_RIGHT: f64 = 16.0;
pub(crate) const PLOT_HEIGHT: f64 = 220.0;
pub(crate) const CHAR_W: f64 = 6.6;

/// Lays the legend out in rows under the title; returns its SVG and its height.
/// Legend items are (name, colour, dash pattern).
pub(crate) fn legend(items: &[(String, &str, &str)], top: f64) -> (String, f64) {
    let mut svg = String::from(r#"<g class="legend">"#);
    let (mut x, mut y) = (PLOT_LEFT, top);
    for (name, c, d) in items {
        let w = 26.0 + name.chars().count() as f64 * CHAR_W + 14.0;
        if x + w > WIDTH - PLOT_RIGHT && x > PLOT_LEFT {
            x = PLOT_LEFT;
            y += 16.0;
        }
        let _ = write!(
            svg,
            r#"<line x1="{x:.1}" y1="{ly:.1}" x2="{x2:.1}" y2="{ly:.1}" stroke="{c}" stroke-width="3" stroke-dasharray="{d}"/><text x="{tx:.1}" y="{ty:.1}">{n}</text>"#,
            ly = y - 4.0,
            x2 = x + 20.0,
            c = c,
            d = d,
            tx = x + 26.0,
            ty = y,
            n = esc(name)
        );
        x += w;
    }
    svg.push_str("</g>");
    let h = if items.is_empty() {
        0.0
    } else {
        y - top + 16.0
    };
    (svg, h)
}

/// Opens the `<svg>` element with the class and data attributes the report's checks rely on (no
/// `xmlns`: inline SVG in HTML gets its namespace from the parser); `attrs` are further
/// attributes, written as they are.
pub(crate) fn open(title: &str, height: f64, kind: &str, attrs: &str) -> String {
    format!(
        r#"<svg class="plot" data-kind="{kind}"{attrs} viewBox="0 0 {WIDTH} {height:.0}" width="{WIDTH}" height="{height:.0}" role="img" aria-label="{t}"><title>{t}</title><text class="title" x="{PLOT_LEFT}" y="16">{t}</text>"#,
        t = esc(title)
    )
}

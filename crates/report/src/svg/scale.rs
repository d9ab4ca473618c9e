//! Axis scales and tick placement for the hand-written SVG plots: linear axes get "nice" ticks
//! (1, 2, 5 x 10^k), log axes get one tick per decade, and tick labels are short (1.5k, 20M).

/// How values map onto an axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// Base-10 logarithmic; non-positive values are not drawn.
    Log,
}

/// What an axis's values are, for the page's script: it reads a hovered value out in the
/// quantity's terms and lets the reader zoom into a time range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Quantity {
    #[default]
    Plain,
    /// Seconds on a linear axis: the chart zooms into a dragged range.
    Time,
    /// HdrHistogram's 1 / (1 - q): a hovered value reads out as the percentile 100 q.
    Percentile,
}

impl Quantity {
    pub fn name(self) -> &'static str {
        match self {
            Quantity::Plain => "plain",
            Quantity::Time => "time",
            Quantity::Percentile => "percentile",
        }
    }
}

/// One axis of a plot: its label (with the unit), its scale, optional fixed bounds and optional
/// fixed ticks (value, label) for axes whose labels are not plain numbers (percentiles).
#[derive(Clone, Debug)]
pub struct Axis {
    pub label: String,
    pub scale: Scale,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub ticks: Option<Vec<(f64, String)>>,
    pub quantity: Quantity,
}

impl Axis {
    pub fn linear(label: impl Into<String>) -> Self {
        Axis {
            label: label.into(),
            scale: Scale::Linear,
            min: None,
            max: None,
            ticks: None,
            quantity: Quantity::Plain,
        }
    }

    pub fn log(label: impl Into<String>) -> Self {
        Axis {
            label: label.into(),
            scale: Scale::Log,
            min: None,
            max: None,
            ticks: None,
            quantity: Quantity::Plain,
        }
    }

    /// Linear axis starting at zero (throughput, CPU %, RSS: zero is meaningful and honest).
    pub fn from_zero(label: impl Into<String>) -> Self {
        Axis {
            min: Some(0.0),
            ..Axis::linear(label)
        }
    }

    /// Seconds from zero: a timeline's x axis, which the page lets the reader zoom into.
    pub fn time(label: impl Into<String>) -> Self {
        Axis {
            quantity: Quantity::Time,
            ..Axis::from_zero(label)
        }
    }

    /// The unit in the label's last parentheses ("time (s)": "s"), else the whole label
    /// ("responses/s"), for read-outs that print a value with its unit.
    pub fn unit(&self) -> &str {
        let l = self.label.trim();
        match (l.strip_suffix(')'), l.rfind('(')) {
            (Some(inner), Some(open)) => &inner[open + 1..],
            _ => l,
        }
    }
}

/// A resolved axis: data range in scale space plus tick positions, ready to map values to pixels.
#[derive(Clone, Debug)]
pub struct Resolved {
    pub scale: Scale,
    lo: f64,
    hi: f64,
    pub ticks: Vec<(f64, String)>,
}

impl Resolved {
    /// Resolves `axis` for data values `values` (non-finite values, and non-positive values on a
    /// log axis, are ignored). An empty or degenerate range is widened so it can still be drawn.
    pub fn new(axis: &Axis, values: impl IntoIterator<Item = f64>) -> Self {
        let usable = |v: f64| v.is_finite() && (axis.scale == Scale::Linear || v > 0.0);
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for v in values.into_iter().filter(|v| usable(*v)) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if let Some(m) = axis.min.filter(|m| usable(*m)) {
            lo = m;
            hi = hi.max(m);
        }
        if let Some(m) = axis.max.filter(|m| usable(*m)) {
            hi = m;
            lo = lo.min(m);
        }
        if !lo.is_finite() || !hi.is_finite() {
            (lo, hi) = match axis.scale {
                Scale::Linear => (0.0, 1.0),
                Scale::Log => (1.0, 10.0),
            };
        }
        match axis.scale {
            Scale::Linear => {
                if hi - lo <= f64::EPSILON * hi.abs().max(1.0) {
                    let pad = if hi == 0.0 { 1.0 } else { hi.abs() * 0.1 };
                    // An axis pinned at its minimum (zero) only grows upwards.
                    if axis.min.is_none() {
                        lo -= pad;
                    }
                    hi += pad;
                }
                let step = nice_step((hi - lo) / 5.0);
                let lo_t = if axis.min.is_some() {
                    lo
                } else {
                    (lo / step).floor() * step
                };
                let hi_t = if axis.max.is_some() {
                    hi
                } else {
                    (hi / step).ceil() * step
                };
                let ticks = axis.ticks.clone().unwrap_or_else(|| {
                    let mut t = Vec::new();
                    let mut v = (lo_t / step).ceil() * step;
                    while v <= hi_t + step * 1e-9 {
                        t.push((v, fmt_num(v)));
                        v += step;
                    }
                    t
                });
                Resolved {
                    scale: Scale::Linear,
                    lo: lo_t,
                    hi: hi_t,
                    ticks,
                }
            }
            Scale::Log => {
                let mut llo = lo.log10().floor();
                let mut lhi = hi.log10().ceil();
                if lhi <= llo {
                    lhi = llo + 1.0;
                }
                if axis.min.is_some() {
                    llo = lo.log10();
                }
                if axis.max.is_some() {
                    lhi = hi.log10().max(llo + 1e-9);
                }
                let ticks = axis.ticks.clone().unwrap_or_else(|| {
                    (llo.ceil() as i32..=lhi.floor() as i32)
                        .map(|e| {
                            let v = 10f64.powi(e);
                            (v, fmt_num(v))
                        })
                        .collect()
                });
                Resolved {
                    scale: Scale::Log,
                    lo: llo,
                    hi: lhi,
                    ticks,
                }
            }
        }
    }

    /// The drawn range (lo, hi) in scale space (log10 of the values on a log axis): `frac` is
    /// (s - lo) / (hi - lo), which the page's script repeats from the chart's embedded data.
    pub fn range(&self) -> (f64, f64) {
        (self.lo, self.hi)
    }

    /// Position of `v` in [0, 1] along the axis (may fall outside for clipped values); `None` when
    /// the value cannot be drawn on this scale.
    pub fn frac(&self, v: f64) -> Option<f64> {
        if !v.is_finite() {
            return None;
        }
        let s = match self.scale {
            Scale::Linear => v,
            Scale::Log if v > 0.0 => v.log10(),
            Scale::Log => return None,
        };
        Some((s - self.lo) / (self.hi - self.lo))
    }
}

/// The "nice" step (1, 2, 2.5 or 5 x 10^k) at or above `raw`.
pub fn nice_step(raw: f64) -> f64 {
    if raw <= 0.0 || !raw.is_finite() {
        return 1.0;
    }
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let nice = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 2.5 {
        2.5
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// Short human label for a tick or a table cell: 0.25, 12, 1.5k, 20M, 3G.
pub fn fmt_num(v: f64) -> String {
    let a = v.abs();
    let (x, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let ax = x.abs();
    let s = if x == x.trunc() || ax >= 100.0 {
        format!("{x:.0}")
    } else if ax >= 10.0 {
        format!("{x:.1}")
    } else if ax >= 1.0 {
        format!("{x:.2}")
    } else if ax >= 0.0001 {
        // Three significant digits below 1: 0.25, 0.0211, 0.00105.
        let decimals = (2.0 - ax.log10().floor()) as usize;
        format!("{x:.decimals$}")
    } else {
        format!("{x:.1e}")
    };
    let s = if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    format!("{s}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_steps() {
        for (raw, want) in [
            (0.7, 1.0),
            (1.3, 2.0),
            (2.2, 2.5),
            (3.0, 5.0),
            (7.0, 10.0),
            (130.0, 200.0),
        ] {
            assert_eq!(nice_step(raw), want, "raw {raw}");
        }
    }

    #[test]
    fn number_labels() {
        for (v, want) in [
            (0.0, "0"),
            (0.25, "0.25"),
            (0.021143, "0.0211"),
            (0.5, "0.5"),
            (3.554, "3.55"),
            (12.0, "12"),
            (12.5, "12.5"),
            (1500.0, "1500"),
            (15000.0, "15k"),
            (2.0e7, "20M"),
            (0.001, "0.001"),
            (0.00002, "2.0e-5"),
        ] {
            assert_eq!(fmt_num(v), want, "value {v}");
        }
    }

    #[test]
    fn linear_ticks_cover_data() {
        let r = Resolved::new(&Axis::from_zero("x"), [3.0, 97.0]);
        assert_eq!(r.ticks.first().unwrap().0, 0.0);
        assert!(r.ticks.last().unwrap().0 >= 97.0);
        assert_eq!(r.frac(0.0), Some(0.0));
    }

    #[test]
    fn log_ticks_are_decades_and_skip_non_positive() {
        let r = Resolved::new(&Axis::log("x"), [0.0, -1.0, 3.0, 4500.0]);
        let labels: Vec<_> = r.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["1", "10", "100", "1000", "10k"]);
        assert_eq!(r.frac(-1.0), None);
    }

    #[test]
    fn units_come_from_the_label() {
        for (l, want) in [
            ("time since trial start (s)", "s"),
            ("CPU (% of one core)", "% of one core"),
            ("responses/s", "responses/s"),
        ] {
            assert_eq!(Axis::linear(l).unit(), want);
        }
    }

    #[test]
    fn degenerate_range_is_widened() {
        let r = Resolved::new(&Axis::linear("x"), [5.0, 5.0]);
        assert!(r.frac(5.0).unwrap() > 0.0 && r.frac(5.0).unwrap() < 1.0);
        let r = Resolved::new(&Axis::from_zero("x"), [0.0, 0.0]);
        assert_eq!(r.frac(0.0), Some(0.0));
        assert_eq!(r.ticks.first().unwrap().1, "0");
    }
}

//! Thresholds (k6's): `METRIC OP VALUE[UNIT]` expressions a run must meet, such as
//! `p99 < 10ms`, `rps >= 5k`, `errors < 1%`, `status_5xx == 0`... written with `<`, `<=`, `>`,
//! `>=`. One grammar for `barrage load --threshold` and a study's `[[threshold]]`; evaluated
//! against a load document or a study's (point, contender) statistics. Pure: no I/O.
//!
//! Quantities: latency `p50 p75 p90 p99 p99.9 p99.99 min max mean` (a duration: `us`/`µs`,
//! `ms`, `s`; bare numbers are ms), `rps` (`k` = thousand, `m` = million), `errors` (a count,
//! or with `%` a share of attempts: valid responses + errors), `status_1xx` .. `status_5xx` (a
//! count, or with `%` a share of responses). In a study, latency is the merged histogram of the
//! successful trials, `rps` the trials' median, `errors` their sum; status classes are load
//! runs' only.

use crate::load::intervals::Bound;
use crate::load::LoadDoc;
use crate::metric;
use crate::study::Cell;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Op {
    #[serde(rename = "<")]
    Lt,
    #[serde(rename = "<=")]
    Le,
    #[serde(rename = ">")]
    Gt,
    #[serde(rename = ">=")]
    Ge,
}

impl Op {
    fn holds(self, measured: f64, bound: f64) -> bool {
        match self {
            Op::Lt => measured < bound,
            Op::Le => measured <= bound,
            Op::Gt => measured > bound,
            Op::Ge => measured >= bound,
        }
    }
    fn text(self) -> &'static str {
        match self {
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
        }
    }
}

/// What a threshold measures.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Quantity {
    /// A latency statistic, µs: a quantile in (0, 1], or the minimum (0) or mean (-1).
    Latency(f64),
    Rps,
    Errors,
    ErrorPct,
    /// Responses with status `class`xx.
    Status(u16),
    StatusPct(u16),
}

/// One parsed threshold: `quantity op bound`, the bound in the quantity's base unit (µs for
/// latency, percent for shares).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Threshold {
    /// As written.
    pub expr: String,
    pub quantity: Quantity,
    pub op: Op,
    pub bound: f64,
}

/// A threshold and what was measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub expr: String,
    /// The measured value, in the bound's unit (µs, req/s, a count or a percent); None when the
    /// document lacks it (a study's status classes), which fails the threshold.
    pub measured: Option<f64>,
    /// The measured value as the expression writes it (`12.3ms`, `4.5%`).
    pub shown: String,
    pub pass: bool,
    /// Study thresholds: the point and contender it was evaluated at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contender: Option<String>,
    /// Load runs: the measured value's interval from the run's own data (an end the data
    /// cannot bound is `null`), at the document's level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Bound>,
    /// Whether that interval lies wholly on one side of the bound, so the verdict holds with
    /// confidence; `false`: the run cannot tell whether the bound holds (a verdict on the
    /// measured value alone). `None` without an interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confident: Option<bool>,
    /// How many responses a percentile rests on (the run's effective responses).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub responses: Option<u64>,
}

impl Outcome {
    /// The caveat of a verdict the run cannot make with confidence: "the 95% interval is
    /// 8.10ms to beyond the slowest response: 1,600 responses cannot judge it with confidence".
    pub fn caveat(&self, q: Quantity) -> Option<String> {
        if self.confident != Some(false) {
            return None;
        }
        let b = self.interval?;
        let end = |v: Option<f64>, open: &str| v.map_or(open.to_string(), |v| show(q, v));
        let on = match self.responses {
            Some(n) => format!("{n} responses"),
            None => "the run".into(),
        };
        Some(format!(
            "{} interval {} to {}: {on} cannot judge it with confidence",
            crate::stats::format_level(crate::load::intervals::LEVEL),
            end(b.lo, "below the fastest response"),
            end(b.hi, "beyond the slowest response"),
        ))
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mark = match (self.pass, self.confident) {
            (true, Some(false)) => "ok? ",
            (false, Some(false)) => "FAIL?",
            (true, _) => "ok  ",
            (false, _) => "FAIL",
        };
        let caveat = parse(&self.expr)
            .ok()
            .and_then(|t| self.caveat(t.quantity))
            .map_or(String::new(), |c| format!("; {c}"));
        write!(f, "{mark} {} (measured {}{caveat})", self.expr, self.shown)?;
        match (&self.point, &self.contender) {
            (Some(p), Some(c)) if !p.is_empty() => write!(f, " at {p}, {c}"),
            (_, Some(c)) => write!(f, " for {c}"),
            _ => Ok(()),
        }
    }
}

/// Reads `METRIC OP VALUE[UNIT]`; the error says what is wrong in one line.
pub fn parse(expr: &str) -> Result<Threshold, String> {
    let e = expr.trim();
    let at = e
        .find(['<', '>'])
        .ok_or_else(|| format!("threshold {expr:?}: expected METRIC < VALUE (or <=, >, >=)"))?;
    let (name, rest) = (e[..at].trim(), &e[at..]);
    let (op, value) = if let Some(v) = rest.strip_prefix("<=") {
        (Op::Le, v)
    } else if let Some(v) = rest.strip_prefix(">=") {
        (Op::Ge, v)
    } else if let Some(v) = rest.strip_prefix('<') {
        (Op::Lt, v)
    } else {
        (Op::Gt, &rest[1..])
    };
    let value = value.trim();
    let bad = |why: &str| format!("threshold {expr:?}: {why}");
    let quantity = quantity(name).ok_or_else(|| {
        bad(&format!(
            "unknown metric {name:?} (p50, p75, p90, p99, p99.9, p99.99, min, max, mean, rps, \
             errors, status_1xx .. status_5xx)"
        ))
    })?;
    let pct = value.ends_with('%');
    let quantity = match (quantity, pct) {
        (Quantity::Errors, true) => Quantity::ErrorPct,
        (Quantity::Status(c), true) => Quantity::StatusPct(c),
        (Quantity::Latency(_) | Quantity::Rps, true) => {
            return Err(bad("a percent applies to errors and status classes"))
        }
        (q, _) => q,
    };
    let bound = match quantity {
        Quantity::Latency(_) => latency_us(value).map_err(|w| bad(&w))?,
        Quantity::ErrorPct | Quantity::StatusPct(_) => {
            let n = number(value.trim_end_matches('%')).map_err(|w| bad(&w))?;
            if !(0.0..=100.0).contains(&n) {
                return Err(bad("a percent is between 0 and 100"));
            }
            n
        }
        _ => scaled(value).map_err(|w| bad(&w))?,
    };
    Ok(Threshold {
        expr: format!("{name} {} {value}", op.text()),
        quantity,
        op,
        bound,
    })
}

fn quantity(name: &str) -> Option<Quantity> {
    let q = match name {
        "min" => Quantity::Latency(0.0),
        "mean" | "avg" => Quantity::Latency(-1.0),
        "max" => Quantity::Latency(1.0),
        "rps" => Quantity::Rps,
        "errors" => Quantity::Errors,
        _ => {
            if let Some(c) = name.strip_prefix("status_") {
                let class = c.strip_suffix("xx")?.parse::<u16>().ok()?;
                return (1..=5).contains(&class).then_some(Quantity::Status(class));
            }
            let p: f64 = name.strip_prefix('p')?.parse().ok()?;
            if !(p > 0.0 && p < 100.0) {
                return None;
            }
            // Rounded so that p99.9 asks for the quantile 0.999, not 0.9990000000000001
            // (HDR reads a quantile a hair above as the next value).
            Quantity::Latency((p * 1e7).round() / 1e9)
        }
    };
    Some(q)
}

fn number(s: &str) -> Result<f64, String> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|n| n.is_finite() && *n >= 0.0)
        .ok_or_else(|| format!("{s:?} is not a number of 0 or more"))
}

/// A latency bound in µs: `us`/`µs`, `ms`, `s`, or a bare number of ms (as k6's).
fn latency_us(s: &str) -> Result<f64, String> {
    for (unit, k) in [("us", 1.0), ("µs", 1.0), ("ms", 1e3), ("s", 1e6)] {
        if let Some(n) = s.strip_suffix(unit) {
            return number(n).map(|n| n * k);
        }
    }
    number(s).map(|n| n * 1e3)
}

/// A count or rate with an optional `k` (thousand) or `m` (million).
fn scaled(s: &str) -> Result<f64, String> {
    for (unit, k) in [("k", 1e3), ("K", 1e3), ("m", 1e6), ("M", 1e6)] {
        if let Some(n) = s.strip_suffix(unit) {
            return number(n).map(|n| n * k);
        }
    }
    number(s)
}

/// The values a threshold can read: a load document's or a study cell's.
pub trait Measured {
    fn latency_us(&self, q: f64) -> Option<f64>;
    fn rps(&self) -> f64;
    fn errors(&self) -> f64;
    /// Valid responses + errors: what a share of errors is a share of.
    fn attempts(&self) -> f64;
    /// Responses of status class `c`xx, and all responses with a status.
    fn status(&self, c: u16) -> Option<(f64, f64)>;
    /// The interval of `q` from the data's own spread, and the responses a percentile rests
    /// on, where known.
    fn interval(&self, _q: Quantity) -> Option<(Bound, Option<u64>)> {
        None
    }
}

impl Measured for LoadDoc {
    fn latency_us(&self, q: f64) -> Option<f64> {
        let l = &self.latency_us;
        if let Some(h) = self.histogram().filter(|_| q > 0.0 && q < 1.0) {
            return Some(if h.is_empty() {
                0.0
            } else {
                h.value_at_quantile(q) as f64
            });
        }
        Some(match q {
            q if q < 0.0 => l.mean,
            0.0 => l.min as f64,
            q if q >= 1.0 => l.max as f64,
            q if q >= 0.999 => l.p999 as f64,
            q if q >= 0.99 => l.p99 as f64,
            q if q >= 0.9 => l.p90 as f64,
            q if q >= 0.75 => l.p75 as f64,
            _ => l.p50 as f64,
        })
    }
    fn rps(&self) -> f64 {
        crate::metric::load_value(&crate::metric::RPS, self).unwrap_or(0.0)
    }
    fn errors(&self) -> f64 {
        crate::metric::load_value(&crate::metric::ERRORS, self).unwrap_or(0.0)
    }
    fn attempts(&self) -> f64 {
        (self.requests + self.errors.total()) as f64
    }
    fn interval(&self, q: Quantity) -> Option<(Bound, Option<u64>)> {
        let i = self.intervals.as_ref()?;
        let figure = |m: &metric::Metric| i.of(m).map(|b| (b, None));
        match q {
            Quantity::Latency(q) if q > 0.0 && q < 1.0 => {
                let h = self.histogram();
                let b = crate::load::intervals::percentiles(self, h.as_ref(), &[q]);
                Some((b[0], Some(i.responses)))
            }
            Quantity::Latency(q) if q < 0.0 => figure(&metric::LATENCY_MEAN),
            Quantity::Rps => figure(&metric::RPS),
            Quantity::ErrorPct => figure(&metric::ERROR_PCT),
            _ => None,
        }
    }
    fn status(&self, c: u16) -> Option<(f64, f64)> {
        let mut of_class = 0;
        let mut all = 0;
        for (code, n) in &self.status {
            all += n;
            if code.parse::<u16>().ok().map(|s| s / 100) == Some(c) {
                of_class += n;
            }
        }
        Some((of_class as f64, all as f64))
    }
}

impl Measured for Cell {
    fn latency_us(&self, q: f64) -> Option<f64> {
        let l = self.latency.as_ref()?;
        if let Some(h) = crate::hdr::decode(&l.hdr)
            .ok()
            .filter(|_| q > 0.0 && q < 1.0)
        {
            return Some(if h.is_empty() {
                0.0
            } else {
                h.value_at_quantile(q) as f64
            });
        }
        Some(match q {
            q if q < 0.0 => l.mean_us,
            q if q >= 1.0 => l.max_us as f64,
            q if q >= 0.999 => l.p999_us as f64,
            q if q >= 0.99 => l.p99_us as f64,
            q if q >= 0.9 => l.p90_us as f64,
            q if q > 0.0 => l.p50_us as f64,
            _ => return None,
        })
    }
    fn rps(&self) -> f64 {
        // The registry's key: the statistics are recorded under it (`summary::update`).
        self.stats
            .get(crate::metric::RPS.key.as_ref())
            .map_or(0.0, |s| s.median)
    }
    fn errors(&self) -> f64 {
        self.errors as f64
    }
    fn attempts(&self) -> f64 {
        self.latency.as_ref().map_or(0, |l| l.count) as f64 + self.errors as f64
    }
    fn status(&self, _: u16) -> Option<(f64, f64)> {
        None
    }
}

/// `t` against `m`.
pub fn evaluate(t: &Threshold, m: &dyn Measured) -> Outcome {
    let share = |part: f64, all: f64| if all > 0.0 { 100.0 * part / all } else { 0.0 };
    let measured = match t.quantity {
        Quantity::Latency(q) => m.latency_us(q),
        Quantity::Rps => Some(m.rps()),
        Quantity::Errors => Some(m.errors()),
        Quantity::ErrorPct => Some(share(m.errors(), m.attempts())),
        Quantity::Status(c) => m.status(c).map(|(n, _)| n),
        Quantity::StatusPct(c) => m.status(c).map(|(n, all)| share(n, all)),
    };
    let known = measured.and(m.interval(t.quantity));
    // Confident when every value the interval allows is on the measured value's side of the
    // bound; an open end allows any value beyond it.
    let confident = known.map(|(b, _)| {
        let holds = |v: Option<f64>| v.map(|v| t.op.holds(v, t.bound));
        let (lo, hi) = (holds(b.lo), holds(b.hi));
        lo.is_some() && lo == hi
    });
    Outcome {
        expr: t.expr.clone(),
        measured,
        shown: measured.map_or_else(|| "n/a".into(), |v| show(t.quantity, v)),
        pass: measured.is_some_and(|v| t.op.holds(v, t.bound)),
        point: None,
        contender: None,
        interval: known.map(|(b, _)| b),
        confident,
        responses: known.and_then(|(_, n)| n),
    }
}

/// A value as a threshold on `q` writes it.
pub fn show(q: Quantity, v: f64) -> String {
    match q {
        Quantity::Latency(_) if v >= 1e6 => format!("{:.3}s", v / 1e6),
        Quantity::Latency(_) if v >= 1e3 => format!("{:.2}ms", v / 1e3),
        Quantity::Latency(_) => format!("{v:.0}us"),
        Quantity::Rps => format!("{v:.1}"),
        Quantity::ErrorPct | Quantity::StatusPct(_) => format!("{v:.3}%"),
        Quantity::Errors | Quantity::Status(_) => format!("{v:.0}"),
    }
}

/// Whether `t` can no longer pass, from what a run has seen so far: a count that only grows
/// (`errors`, a status class) already past an upper bound, or a latency above an upper bound on
/// `max` (a second's p99 is at most the run's maximum). Everything else may still change.
pub fn broken_early(t: &Threshold, errors_so_far: u64, worst_p99_us: u64) -> bool {
    let upper = matches!(t.op, Op::Lt | Op::Le);
    match t.quantity {
        Quantity::Errors if upper => !t.op.holds(errors_so_far as f64, t.bound),
        Quantity::Latency(q) if upper && q >= 1.0 => !t.op.holds(worst_p99_us as f64, t.bound),
        _ => false,
    }
}

/// A study's threshold: expressions, and optionally the contender and point (label) they are
/// for (every successful cell otherwise).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StudyThreshold {
    pub expr: Vec<String>,
    pub contender: Option<String>,
    pub point: Option<String>,
}

/// Every study threshold at every cell it applies to. A cell without a successful trial fails
/// its thresholds (nothing was measured that could meet them: a gate must not pass because
/// every trial failed). An expression that does not parse is a failed outcome saying so (the
/// study file was checked when read, so only a hand-edited results file gets there).
pub fn evaluate_study(ts: &[StudyThreshold], cells: &[Cell]) -> Vec<Outcome> {
    let mut out = Vec::new();
    for t in ts {
        for cell in cells {
            if t.contender.as_ref().is_some_and(|c| *c != cell.contender)
                || t.point.as_ref().is_some_and(|p| *p != cell.label)
            {
                continue;
            }
            for e in &t.expr {
                let mut o = match parse(e) {
                    Ok(_) if cell.trials_ok == 0 => Outcome {
                        expr: e.clone(),
                        measured: None,
                        shown: "no successful trial".into(),
                        pass: false,
                        ..Outcome::default()
                    },
                    Ok(th) => evaluate(&th, cell),
                    Err(why) => Outcome {
                        expr: e.clone(),
                        measured: None,
                        shown: why,
                        pass: false,
                        ..Outcome::default()
                    },
                };
                o.point = Some(cell.label.clone());
                o.contender = Some(cell.contender.clone());
                out.push(o);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;

//! The text exposition formats: Prometheus' 0.0.4 text format and OpenMetrics 1.0 (asked for
//! with `Accept: application/openmetrics-text`). They differ in a counter family's name
//! (OpenMetrics names the family without `_total`, its sample keeps it) and in the closing
//! `# EOF`.

use std::fmt::Write as _;

/// A metric family's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricType {
    Counter,
    Gauge,
    Histogram,
}

/// A page being written.
pub struct Expo {
    openmetrics: bool,
    out: String,
}

impl Expo {
    pub fn new(openmetrics: bool) -> Self {
        Expo {
            openmetrics,
            out: String::new(),
        }
    }

    /// Opens a family: `name` is its samples' base name (a counter's without `_total`).
    pub fn family(&mut self, name: &str, kind: MetricType, help: &str) {
        let (ty, family) = match kind {
            MetricType::Counter if !self.openmetrics => ("counter", format!("{name}_total")),
            MetricType::Counter => ("counter", name.to_string()),
            MetricType::Gauge => ("gauge", name.to_string()),
            MetricType::Histogram => ("histogram", name.to_string()),
        };
        let _ = writeln!(self.out, "# HELP {family} {}", escape_help(help));
        let _ = writeln!(self.out, "# TYPE {family} {ty}");
    }

    /// One sample: `name` in full (`x_total`, `x_bucket`), its labels and value.
    pub fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: f64) {
        self.out.push_str(name);
        if !labels.is_empty() {
            self.out.push('{');
            for (i, (k, v)) in labels.iter().enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                let _ = write!(self.out, "{k}=\"{}\"", escape_label(v));
            }
            self.out.push('}');
        }
        let _ = writeln!(self.out, " {}", number(value));
    }

    /// A histogram's samples from cumulative `(upper bound, count)` pairs (without +Inf),
    /// the total count and the sum.
    pub fn histogram(
        &mut self,
        name: &str,
        labels: &[(&str, &str)],
        buckets: &[(f64, u64)],
        count: u64,
        sum: f64,
    ) {
        let bucket = format!("{name}_bucket");
        for &(le, n) in buckets {
            let le = number(le);
            let mut l = labels.to_vec();
            l.push(("le", &le));
            self.sample(&bucket, &l, n as f64);
        }
        let mut l = labels.to_vec();
        l.push(("le", "+Inf"));
        self.sample(&bucket, &l, count as f64);
        self.sample(&format!("{name}_count"), labels, count as f64);
        self.sample(&format!("{name}_sum"), labels, sum);
    }

    /// The page, with OpenMetrics' `# EOF`.
    pub fn finish(mut self) -> String {
        if self.openmetrics {
            self.out.push_str("# EOF\n");
        }
        self.out
    }
}

/// The content type of a page in either format.
pub fn content_type(openmetrics: bool) -> &'static str {
    if openmetrics {
        "application/openmetrics-text; version=1.0.0; charset=utf-8"
    } else {
        "text/plain; version=0.0.4; charset=utf-8"
    }
}

/// A value as both formats read it: integers without a fraction, else Rust's shortest form.
fn number(v: f64) -> String {
    if v.is_infinite() {
        return if v > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    if v.is_nan() {
        return "NaN".into();
    }
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

fn escape_label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

fn escape_help(v: &str) -> String {
    v.replace('\\', "\\\\").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_formats() {
        for om in [false, true] {
            let mut e = Expo::new(om);
            e.family("barrage_responses", MetricType::Counter, "Valid responses.");
            e.sample("barrage_responses_total", &[("phase", "measure")], 12.0);
            e.family("barrage_latency_seconds", MetricType::Histogram, "Latency.");
            e.histogram("barrage_latency_seconds", &[], &[(0.001, 3)], 5, 0.0125);
            let page = e.finish();
            let family = if om {
                "barrage_responses"
            } else {
                "barrage_responses_total"
            };
            assert!(page.starts_with(&format!(
                "# HELP {family} Valid responses.\n# TYPE {family} counter\n\
                 barrage_responses_total{{phase=\"measure\"}} 12\n"
            )));
            assert!(page.contains("barrage_latency_seconds_bucket{le=\"0.001\"} 3\n"));
            assert!(page.contains("barrage_latency_seconds_bucket{le=\"+Inf\"} 5\n"));
            assert!(page.contains("barrage_latency_seconds_sum 0.0125\n"));
            assert_eq!(page.ends_with("# EOF\n"), om);
        }
    }

    #[test]
    fn escapes() {
        let mut e = Expo::new(false);
        e.sample("x", &[("url", "a\"b\\c\nd")], 0.5);
        assert_eq!(e.finish(), "x{url=\"a\\\"b\\\\c\\nd\"} 0.5\n");
    }
}

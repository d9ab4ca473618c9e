//! Parsing of option values: durations (`10s`, `500ms`, `1m`, `1.5s`) and headers.

use std::time::Duration;

/// A duration: a non-negative number with an optional unit `ms`, `s` (the default), `m` or `h`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let (num, unit) = if let Some(n) = t.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = t.strip_suffix("us") {
        (n, 0.000_001)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3600.0)
    } else {
        (t, 1.0)
    };
    match num.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 && v * unit < 1e9 => {
            Ok(Duration::from_secs_f64(v * unit))
        }
        _ => Err(format!(
            "`{s}` is not a duration (like 10s, 500ms, 1m, 1.5s)"
        )),
    }
}

/// `Name: value` (the value may be empty).
pub fn parse_header(s: &str) -> Result<(String, String), String> {
    let (name, value) = s
        .split_once(':')
        .ok_or_else(|| format!("`{s}` is not a header (like 'Accept: text/plain')"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("`{s}` has an empty header name"));
    }
    Ok((name.to_string(), value.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        let cases = [
            ("10s", Some(10_000)),
            ("500ms", Some(500)),
            ("1m", Some(60_000)),
            ("1.5s", Some(1_500)),
            ("2", Some(2_000)),
            ("1h", Some(3_600_000)),
            ("0", Some(0)),
            ("", None),
            ("x", None),
            ("-1s", None),
            ("1.5 parsecs", None),
            ("inf", None),
        ];
        for (s, want) in cases {
            assert_eq!(
                parse_duration(s).ok().map(|d| d.as_millis() as u64),
                want,
                "{s}"
            );
        }
    }

    #[test]
    fn headers() {
        assert_eq!(
            parse_header("Accept:  text/plain "),
            Ok(("Accept".into(), "text/plain".into()))
        );
        assert_eq!(parse_header("X-Empty:"), Ok(("X-Empty".into(), "".into())));
        assert!(parse_header("nocolon").is_err());
        assert!(parse_header(": v").is_err());
    }
}

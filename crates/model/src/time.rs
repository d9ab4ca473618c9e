//! Wall-clock times as documents carry them: RFC 3339 UTC, and compact stamps for directory
//! names (by `jiff`).

use jiff::Timestamp;

/// The current time as RFC 3339 UTC, to the second ("2026-11-21T23:59:01Z").
pub fn now_rfc3339() -> String {
    rfc3339(Timestamp::now().as_second())
}

/// Seconds since the epoch as RFC 3339 UTC.
pub fn rfc3339(secs: i64) -> String {
    Timestamp::from_second(secs)
        .unwrap_or(Timestamp::UNIX_EPOCH)
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// A wall-clock time as Unix seconds (fractions allowed, `1767225600.5`) or RFC 3339
/// (`2026-01-01T00:00:00Z`, `2026-01-01T01:00:00.250+01:00`), read as Unix seconds.
pub fn parse_instant(s: &str) -> Result<f64, String> {
    let s = s.trim();
    if let Ok(secs) = s.parse::<f64>() {
        return if secs.is_finite() && secs >= 0.0 {
            Ok(secs)
        } else {
            Err(format!(
                "{s:?} is not a time (Unix seconds of 0 or more, or RFC 3339)"
            ))
        };
    }
    let t: Timestamp = s.parse().map_err(|_| {
        format!("{s:?} is not a time (Unix seconds, or RFC 3339 such as 2026-01-01T00:00:00Z)")
    })?;
    Ok(t.as_nanosecond() as f64 / 1e9)
}

/// A compact timestamp for directory names ("20261121-235901").
pub fn stamp() -> String {
    Timestamp::now().strftime("%Y%m%d-%H%M%S").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(stamp().len(), 15);
    }

    #[test]
    fn instants() {
        assert_eq!(parse_instant("1700000000"), Ok(1_700_000_000.0));
        assert_eq!(parse_instant(" 1700000000.25 "), Ok(1_700_000_000.25));
        assert_eq!(parse_instant("2023-11-14T22:13:20Z"), Ok(1_700_000_000.0));
        assert_eq!(
            parse_instant("2023-11-14T23:13:20.5+01:00"),
            Ok(1_700_000_000.5)
        );
        for bad in ["", "-1", "tomorrow", "2023-13-01T00:00:00Z", "NaN"] {
            assert!(parse_instant(bad).is_err(), "{bad}");
        }
    }
}

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
}

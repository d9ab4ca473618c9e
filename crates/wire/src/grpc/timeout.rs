//! `grpc-timeout`: a call's deadline as 1 to 8 digits and a unit (`H` hours, `M` minutes, `S`
//! seconds, `m` milliseconds, `u` microseconds, `n` nanoseconds). Written in the finest unit
//! that fits in 8 digits, rounded up so a deadline is never sent shorter than asked.

use std::time::Duration;

use super::GrpcError;

const UNITS: [(u8, u128); 6] = [
    (b'n', 1),
    (b'u', 1_000),
    (b'm', 1_000_000),
    (b'S', 1_000_000_000),
    (b'M', 60_000_000_000),
    (b'H', 3_600_000_000_000),
];
const MAX_VALUE: u128 = 99_999_999;

/// Reads a `grpc-timeout` value.
pub fn parse(value: &[u8]) -> Result<Duration, GrpcError> {
    let bad = || GrpcError::BadTimeout(String::from_utf8_lossy(value).into_owned());
    let (&unit, digits) = value.split_last().ok_or_else(bad)?;
    if digits.is_empty() || digits.len() > 8 || !digits.iter().all(u8::is_ascii_digit) {
        return Err(bad());
    }
    let n = digits
        .iter()
        .fold(0u128, |n, d| n * 10 + u128::from(d - b'0'));
    let (_, nanos) = UNITS.iter().find(|(u, _)| *u == unit).ok_or_else(bad)?;
    let total = n * nanos;
    Ok(Duration::new(
        (total / 1_000_000_000) as u64,
        (total % 1_000_000_000) as u32,
    ))
}

/// Writes `d` as a `grpc-timeout` value (at most 99,999,999 hours).
pub fn format(d: Duration) -> String {
    let nanos = d.as_nanos();
    for (unit, per) in UNITS {
        let v = nanos.div_ceil(per);
        if v <= MAX_VALUE {
            return format!("{v}{}", char::from(unit));
        }
    }
    format!("{MAX_VALUE}H")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses() {
        for (v, want) in [
            ("1S", Some(Duration::from_secs(1))),
            ("100m", Some(Duration::from_millis(100))),
            ("250u", Some(Duration::from_micros(250))),
            ("7n", Some(Duration::from_nanos(7))),
            ("2M", Some(Duration::from_secs(120))),
            ("3H", Some(Duration::from_secs(3 * 3600))),
            ("99999999H", Some(Duration::from_secs(99_999_999 * 3600))),
            ("0m", Some(Duration::ZERO)),
            ("123456789m", None),
            ("S", None),
            ("10", None),
            ("10s", None),
            ("1.5S", None),
            ("-1S", None),
            ("", None),
        ] {
            assert_eq!(parse(v.as_bytes()).ok(), want, "{v}");
        }
    }

    #[test]
    fn formats_in_the_finest_unit_rounded_up() {
        for (d, want) in [
            (Duration::from_nanos(5), "5n"),
            (Duration::from_millis(20), "20000000n"),
            (Duration::from_millis(200), "200000u"),
            (Duration::from_secs(10), "10000000u"),
            (Duration::from_secs(100), "100000m"),
            (Duration::new(100, 1), "100001m"),
            (Duration::from_secs(1_000_000), "1000000S"),
            (Duration::from_secs(200_000_000), "3333334M"),
            (Duration::from_secs(u64::MAX), "99999999H"),
        ] {
            assert_eq!(format(d), want, "{d:?}");
            // Never shorter than asked; read back within one unit of it.
            if d < Duration::from_secs(99_999_999 * 3600) {
                let back = parse(want.as_bytes()).unwrap();
                assert!(back >= d, "{want} reads {back:?} < {d:?}");
            }
        }
    }
}

//! Link rates ("200mbit", "1gbit") and loss percentages ("1%", "0.5%") in the one grammar of the
//! study file, beside durations and sizes. No I/O.

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// What a rate looks like, in every error about one.
pub const RATE_FORMS: &str =
    "like 200mbit, 1gbit, 1.5gbit or 64kbit (bits per second); a bare number is bit/s";

/// Decimal bit units, as tc writes them (`kbit` is 1000 bit/s).
const RATE_UNITS: [(&str, f64); 5] = [
    ("bit", 1.0),
    ("kbit", 1e3),
    ("mbit", 1e6),
    ("gbit", 1e9),
    ("tbit", 1e12),
];

/// The one rate grammar of study fields: a positive number with an optional unit `bit`, `kbit`,
/// `mbit`, `gbit` or `tbit` (decimal, case-insensitive, `/s` allowed after it: `200Mbit/s`);
/// none: bit/s. tc's byte units (`mbps` is megabytes per second there) are refused with a
/// pointer to the bit form, so a link is never 8 times off. Returns bits per second.
pub fn parse_rate(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let bad = |why: &str| format!("`{s}` is not a rate{why} ({RATE_FORMS})");
    let n: f64 = num.parse().map_err(|_| bad(""))?;
    let unit = unit.strip_suffix("/s").unwrap_or(unit);
    let scale = if unit.is_empty() {
        1.0
    } else if let Some((_, m)) = RATE_UNITS
        .iter()
        .find(|(u, _)| u.eq_ignore_ascii_case(unit))
    {
        *m
    } else if unit.to_ascii_lowercase().ends_with("bps") {
        return Err(bad(&format!(
            ": `{unit}` is ambiguous (bytes in tc, bits elsewhere); write the bits, e.g. `mbit`"
        )));
    } else {
        return Err(bad(&format!(": unknown unit `{unit}`")));
    };
    let bits = n * scale;
    if !bits.is_finite() || !(1.0..=1e15).contains(&bits) {
        return Err(bad(": out of range (1 bit/s to 1000 tbit)"));
    }
    Ok(bits.round() as u64)
}

/// Formats a rate the way [`parse_rate`] reads it, in the largest unit that keeps it exact.
pub fn format_rate(bits: u64) -> String {
    for (unit, m) in RATE_UNITS.iter().rev() {
        let m = *m as u64;
        if bits >= m && bits.is_multiple_of(m) {
            return format!("{}{unit}", bits / m);
        }
    }
    format!("{bits}bit")
}

/// A link rate in TOML (`"200mbit"`, or a number of bit/s), serialized back as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_rate(self.0))
    }
}

impl Serialize for Rate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_rate(self.0))
    }
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Rate;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a rate such as \"200mbit\" or \"1gbit\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Rate, E> {
                parse_rate(v).map(Rate).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Rate, E> {
                parse_rate(&v.to_string()).map(Rate).map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Rate, E> {
                parse_rate(&v.to_string()).map(Rate).map_err(E::custom)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Rate, E> {
                parse_rate(&v.to_string()).map(Rate).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// What a loss looks like, in every error about one.
pub const LOSS_FORMS: &str = "like \"1%\", \"0.1%\" or 0.5 (a percentage, as netem writes it)";

/// A packet loss percentage, `"1%"` or a bare number of percent (netem's reading: `loss 1` is
/// 1%), from 0 to 100. Returns the probability (0.01 for "1%").
pub fn parse_loss(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let num = t.strip_suffix('%').unwrap_or(t).trim_end();
    let bad = |why: &str| format!("`{s}` is not a loss{why} ({LOSS_FORMS})");
    if num.is_empty() || !num.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return Err(bad(""));
    }
    let p: f64 = num.parse().map_err(|_| bad(""))?;
    if !(0.0..=100.0).contains(&p) {
        return Err(bad(": out of range (0% to 100%)"));
    }
    Ok(p / 100.0)
}

/// Formats a loss probability as [`parse_loss`] reads it ("1%").
pub fn format_loss(p: f64) -> String {
    let pct = p * 100.0;
    // Six significant decimals are more than any study writes; trailing zeros go.
    let s = format!("{pct:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}%")
}

/// A loss in TOML (`"1%"` or a number of percent), serialized back as text.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
pub struct Loss(pub f64);

impl fmt::Display for Loss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_loss(self.0))
    }
}

impl Serialize for Loss {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_loss(self.0))
    }
}

impl<'de> Deserialize<'de> for Loss {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Loss;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a loss percentage such as \"1%\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Loss, E> {
                parse_loss(v).map(Loss).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Loss, E> {
                parse_loss(&v.to_string()).map(Loss).map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Loss, E> {
                parse_loss(&v.to_string()).map(Loss).map_err(E::custom)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Loss, E> {
                parse_loss(&v.to_string()).map(Loss).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        for (s, bits) in [
            ("200mbit", 200_000_000),
            ("200Mbit", 200_000_000),
            ("200Mbit/s", 200_000_000),
            ("1gbit", 1_000_000_000),
            ("1.5gbit", 1_500_000_000),
            ("64kbit", 64_000),
            ("2tbit", 2_000_000_000_000),
            ("9600", 9600),
            ("9600bit", 9600),
            (" 10mbit ", 10_000_000),
        ] {
            assert_eq!(parse_rate(s), Ok(bits), "{s}");
            assert_eq!(parse_rate(&format_rate(bits)), Ok(bits), "{s} round trip");
        }
        assert_eq!(format_rate(200_000_000), "200mbit");
        assert_eq!(format_rate(1_500_000_000), "1500mbit");
        assert_eq!(format_rate(1_234), "1234bit");
        let forms = format!("({RATE_FORMS})");
        for (bad, why) in [
            ("", ""),
            ("mbit", ""),
            ("-1mbit", ""),
            ("0", ": out of range (1 bit/s to 1000 tbit)"),
            ("0.1bit", ": out of range (1 bit/s to 1000 tbit)"),
            ("2000tbit", ": out of range (1 bit/s to 1000 tbit)"),
            ("10 mbit", ": unknown unit ` mbit`"),
            ("10mb", ": unknown unit `mb`"),
            (
                "25mbps",
                ": `mbps` is ambiguous (bytes in tc, bits elsewhere); write the bits, e.g. `mbit`",
            ),
        ] {
            assert_eq!(
                parse_rate(bad),
                Err(format!("`{bad}` is not a rate{why} {forms}")),
                "{bad}"
            );
        }
    }

    #[test]
    fn losses() {
        for (s, p) in [
            ("1%", 0.01),
            ("0.5%", 0.005),
            ("0.5", 0.005),
            ("0", 0.0),
            ("100%", 1.0),
            ("12.5 %", 0.125),
        ] {
            assert!((parse_loss(s).unwrap() - p).abs() < 1e-12, "{s}");
            let back = parse_loss(&format_loss(p)).unwrap();
            assert!((back - p).abs() < 1e-12, "{s} round trip");
        }
        assert_eq!(format_loss(0.01), "1%");
        assert_eq!(format_loss(0.001), "0.1%");
        let forms = format!("({LOSS_FORMS})");
        for (bad, why) in [
            ("", ""),
            ("%", ""),
            ("-1%", ""),
            ("1e-3", ""),
            ("101%", ": out of range (0% to 100%)"),
        ] {
            assert_eq!(
                parse_loss(bad),
                Err(format!("`{bad}` is not a loss{why} {forms}")),
                "{bad}"
            );
        }
    }

    #[test]
    fn serde_forms() {
        #[derive(Deserialize, Serialize)]
        struct T {
            r: Rate,
            l: Loss,
        }
        let v: T = serde_json::from_str(r#"{"r": "200mbit", "l": "1%"}"#).unwrap();
        assert_eq!((v.r, v.l), (Rate(200_000_000), Loss(0.01)));
        let v: T = serde_json::from_str(r#"{"r": 1000000, "l": 2}"#).unwrap();
        assert_eq!((v.r, v.l), (Rate(1_000_000), Loss(0.02)));
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"r":"1mbit","l":"2%"}"#
        );
        assert!(serde_json::from_str::<T>(r#"{"r": "1mbps", "l": 1}"#).is_err());
    }
}

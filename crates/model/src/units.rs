//! The one grammar for durations and sizes, used by every flag and study field, and the serde
//! forms of durations in documents (seconds as numbers); link rates and losses beside them
//! ([`rate`]). No I/O.

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::time::Duration;

mod rate;
pub use rate::{
    format_loss, format_rate, parse_loss, parse_rate, Loss, Rate, LOSS_FORMS, RATE_FORMS,
};

/// A duration written the human way in TOML ("250ms", "1s", "1.5s", "2m", "1h", "500us") and
/// serialized back the same way, so results show what the study said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Dur(pub Duration);

impl Dur {
    pub fn get(self) -> Duration {
        self.0
    }
}

/// What a duration looks like, in every error about one.
pub const DURATION_FORMS: &str = "like 10s, 500ms, 1.5m, 2h or 100us; a bare number is seconds";

/// The longest duration accepted anywhere (a week).
pub const MAX_DURATION: Duration = Duration::from_secs(7 * 86400);

/// The one duration grammar of every flag and study field: a non-negative number with an
/// optional unit `us`/`µs`, `ms`, `s`, `m`/`min` or `h` (none: seconds), at most a week.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let bad = |why: &str| format!("`{s}` is not a duration{why} ({DURATION_FORMS})");
    let n: f64 = num.parse().map_err(|_| bad(""))?;
    let scale = match unit {
        "" | "s" => 1.0,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(bad(&format!(": unknown unit `{unit}`"))),
    };
    let secs = n * scale;
    if !secs.is_finite() || secs > MAX_DURATION.as_secs_f64() {
        return Err(bad(": out of range (at most a week)"));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Formats a duration the way [`parse_duration`] reads it, choosing the largest exact unit.
pub fn format_duration(d: Duration) -> String {
    let ns = d.as_nanos();
    if ns == 0 {
        return "0s".into();
    }
    if ns.is_multiple_of(1_000_000_000) {
        format!("{}s", ns / 1_000_000_000)
    } else if ns.is_multiple_of(1_000_000) {
        format!("{}ms", ns / 1_000_000)
    } else if ns.is_multiple_of(1_000) {
        format!("{}us", ns / 1_000)
    } else {
        format!("{}s", d.as_secs_f64())
    }
}

impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_duration(self.0))
    }
}

impl Serialize for Dur {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_duration(self.0))
    }
}

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Dur;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a duration such as \"250ms\", \"1s\" or \"2m\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Dur, E> {
                parse_duration(v).map(Dur).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Dur, E> {
                parse_duration(&v.to_string()).map(Dur).map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Dur, E> {
                parse_duration(&v.to_string()).map(Dur).map_err(E::custom)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Dur, E> {
                parse_duration(&v.to_string()).map(Dur).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// A scalar sweep parameter of a client study (`[client.params]`), substituted into commands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Param {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Param::Bool(b) => write!(f, "{b}"),
            Param::Int(i) => write!(f, "{i}"),
            Param::Float(x) => write!(f, "{x}"),
            Param::Str(s) => f.write_str(s),
        }
    }
}

/// What a size looks like, in every error about one.
pub const SIZE_FORMS: &str = "like 1000, 64KiB, 5MB or 2GiB";

/// The one size grammar of every flag, study field and `/bytes/{n}` path: a whole number of
/// bytes with an optional unit, case-insensitive and without a space: `B`, decimal `KB MB GB TB`,
/// binary `KiB MiB GiB TiB` (or `k m g t`). Allocation-free: the server parses it per request.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let bad = |why: &str| format!("`{s}` is not a size{why} ({SIZE_FORMS})");
    if digits == 0 || digits > 20 {
        return Err(bad(""));
    }
    let n: u64 = t[..digits].parse().map_err(|_| bad(": too large"))?;
    let unit = &t[digits..];
    const UNITS: [(&str, u64); 13] = [
        ("", 1),
        ("b", 1),
        ("kb", 1_000),
        ("mb", 1_000_000),
        ("gb", 1_000_000_000),
        ("tb", 1_000_000_000_000),
        ("kib", 1 << 10),
        ("mib", 1 << 20),
        ("gib", 1 << 30),
        ("tib", 1 << 40),
        ("k", 1 << 10),
        ("m", 1 << 20),
        ("g", 1 << 30),
    ];
    let mult = UNITS
        .iter()
        .find(|(u, _)| u.eq_ignore_ascii_case(unit))
        .map(|(_, m)| *m)
        .ok_or_else(|| bad(&format!(": unknown unit `{unit}`")))?;
    n.checked_mul(mult).ok_or_else(|| bad(": too large"))
}

/// [`parse_size`] under its older name.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    parse_size(s)
}

/// A byte size in TOML: `1048576` or `"1MiB"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Bytes(pub u64);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Bytes;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a size in bytes such as 1048576 or \"512MiB\"")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Bytes, E> {
                u64::try_from(v)
                    .map(Bytes)
                    .map_err(|_| E::custom("a size cannot be negative"))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Bytes, E> {
                parse_bytes(v).map(Bytes).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// Serde helpers: a `Duration` as a number of seconds (`f64`) in JSON, so documents carry plain
/// numbers (`"wall_s": 1.25`) while Rust code keeps `Duration`s until printing. Use as
/// `#[serde(with = "barrage_model::units::secs")]` (or `secs::option` for `Option<Duration>`).
pub mod secs {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    /// Serialize a `Duration` as seconds.
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }

    /// Deserialize seconds into a `Duration` (negative or non-finite values are rejected).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let v = f64::deserialize(d)?;
        Duration::try_from_secs_f64(v).map_err(serde::de::Error::custom)
    }

    /// The same for `Option<Duration>` (`null` when absent).
    pub mod option {
        use super::*;

        pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
            match d {
                Some(d) => s.serialize_some(&d.as_secs_f64()),
                None => s.serialize_none(),
            }
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
            match Option::<f64>::deserialize(d)? {
                Some(v) => Duration::try_from_secs_f64(v)
                    .map(Some)
                    .map_err(serde::de::Error::custom),
                None => Ok(None),
            }
        }
    }
}

/// Reads a value, or its default when it does not have the expected shape (serde_json writes a
/// non-finite number as `null`). Use as `#[serde(deserialize_with = "lenient")]`.
pub fn lenient<'de, D: Deserializer<'de>, T: Default + serde::de::DeserializeOwned>(
    d: D,
) -> Result<T, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    Ok(serde_json::from_value(v).unwrap_or_default())
}

/// A duration read as seconds (a number) or in the one duration grammar (a string): documents
/// write numbers, study files write "15s". Use with `deserialize_with`.
pub mod secs_or_text {
    use super::parse_duration;
    use serde::{de, Deserialize, Deserializer};
    use std::time::Duration;

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Secs(f64),
        Text(String),
    }

    fn read<E: de::Error>(r: Raw) -> Result<Duration, E> {
        match r {
            Raw::Secs(v) => Duration::try_from_secs_f64(v).map_err(E::custom),
            Raw::Text(t) => parse_duration(&t).map_err(E::custom),
        }
    }

    /// `#[serde(with = "...::required")]`: written as seconds, read as seconds or text.
    pub mod required {
        use super::*;
        pub use crate::units::secs::serialize;

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
            read(Raw::deserialize(d)?)
        }
    }

    /// The same for `Option<Duration>`.
    pub mod option {
        use super::*;
        pub use crate::units::secs::option::serialize;

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
            Option::<Raw>::deserialize(d)?.map(read).transpose()
        }
    }
}

/// A rate schedule in the one grammar: comma-separated `DURATION:RATE` stages (k6's stages),
/// `"30s:1000,1m:1000,30s:0"`: each stage ramps linearly from the previous stage's rate (0
/// before the first) to its own over its duration.
pub fn parse_stages(s: &str) -> Result<Vec<crate::load::Stage>, String> {
    let mut v = Vec::new();
    for part in s.split(',').map(str::trim) {
        let (d, r) = part
            .split_once(':')
            .ok_or_else(|| format!("stage {part:?}: expected DURATION:RATE, e.g. 30s:1000"))?;
        let duration = parse_duration(d.trim()).map_err(|e| format!("stage {part:?}: {e}"))?;
        if duration.is_zero() {
            return Err(format!("stage {part:?}: its duration must be above 0"));
        }
        let target: f64 = r
            .trim()
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite() && *t >= 0.0)
            .ok_or_else(|| {
                format!("stage {part:?}: the rate must be a number of requests/s, 0 or more")
            })?;
        v.push(crate::load::Stage { duration, target });
    }
    if v.iter().all(|s| s.target == 0.0) {
        return Err("stages: at least one stage must have a rate above 0".into());
    }
    Ok(v)
}

/// A rate schedule as a study writes it: text in [`parse_stages`]' grammar
/// (`"30s:1000,1m:1000,30s:0"`), checked when read; a list of them is a sweep axis like any
/// other list.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct StagesText(pub String);

impl<'de> Deserialize<'de> for StagesText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        parse_stages(&s).map_err(de::Error::custom)?;
        Ok(StagesText(s))
    }
}

/// Stages written back in [`parse_stages`]' grammar: `30s:1000,1m:1000,30s:0`.
pub fn format_stages(stages: &[crate::load::Stage]) -> String {
    stages
        .iter()
        .map(|s| format!("{}:{}", format_duration(s.duration), s.target))
        .collect::<Vec<_>>()
        .join(",")
}

/// Stages read as a list (documents) or as text in [`parse_stages`]' grammar (study files, the
/// command line). Use with `deserialize_with`.
pub fn stages_or_text<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Vec<crate::load::Stage>, D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Raw {
        List(Vec<crate::load::Stage>),
        Text(String),
    }
    match <Raw as serde::Deserialize>::deserialize(d)? {
        Raw::List(v) => Ok(v),
        Raw::Text(t) => parse_stages(&t).map_err(serde::de::Error::custom),
    }
}

/// Bytes read as a JSON array of numbers (documents) or as text (study files). Use with
/// `deserialize_with`.
pub mod bytes_or_text {
    use serde::{Deserialize, Deserializer};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Bytes(Vec<u8>),
        Text(String),
    }

    fn read(r: Raw) -> Vec<u8> {
        match r {
            Raw::Bytes(b) => b,
            Raw::Text(t) => t.into_bytes(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        Ok(read(Raw::deserialize(d)?))
    }

    pub fn option<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        Ok(Option::<Raw>::deserialize(d)?.map(read))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages() {
        let st = |d: u64, t: f64| crate::load::Stage {
            duration: Duration::from_millis(d),
            target: t,
        };
        assert_eq!(
            parse_stages("30s:1000, 1m:1000,500ms:0").unwrap(),
            vec![st(30_000, 1000.0), st(60_000, 1000.0), st(500, 0.0)]
        );
        assert_eq!(parse_stages("2s:12.5").unwrap(), vec![st(2000, 12.5)]);
        for text in ["30s:1000,60s:1000,500ms:0", "2s:12.5"] {
            assert_eq!(format_stages(&parse_stages(text).unwrap()), text);
        }
        for (bad, says) in [
            ("30s", "expected DURATION:RATE"),
            ("30s:x", "the rate must be"),
            ("30s:-1", "the rate must be"),
            ("0s:10", "duration must be above 0"),
            ("x:10", "stage \"x:10\""),
            ("1s:0,2s:0", "at least one stage"),
            ("", "expected DURATION:RATE"),
        ] {
            let e = parse_stages(bad).unwrap_err();
            assert!(e.contains(says), "{bad:?}: {e}");
        }
        // Documents write a list; study files and flags the text.
        #[derive(serde::Deserialize)]
        struct W {
            #[serde(deserialize_with = "stages_or_text")]
            s: Vec<crate::load::Stage>,
        }
        let a: W = serde_json::from_str(r#"{"s":"1s:10,1s:0"}"#).unwrap();
        let b: W = serde_json::from_str(
            r#"{"s":[{"duration":1,"target":10},{"duration":"1s","target":0}]}"#,
        )
        .unwrap();
        assert_eq!(a.s, b.s);
    }

    #[test]
    fn durations() {
        let ok = [
            ("250ms", Duration::from_millis(250)),
            ("1s", Duration::from_secs(1)),
            ("1.5s", Duration::from_millis(1500)),
            ("2m", Duration::from_secs(120)),
            ("2min", Duration::from_secs(120)),
            ("1h", Duration::from_secs(3600)),
            ("100us", Duration::from_micros(100)),
            ("100µs", Duration::from_micros(100)),
            ("0", Duration::ZERO),
            ("10", Duration::from_secs(10)),
            ("1.5", Duration::from_millis(1500)),
            (" 5s ", Duration::from_secs(5)),
        ];
        for (s, d) in ok {
            assert_eq!(parse_duration(s), Ok(d), "{s}");
            assert_eq!(parse_duration(&format_duration(d)), Ok(d), "{s} round trip");
        }
        let forms = "(like 10s, 500ms, 1.5m, 2h or 100us; a bare number is seconds)";
        for (bad, why) in [
            ("", ""),
            ("s", ""),
            ("-1s", ""),
            ("1.2.3s", ""),
            ("inf", ""),
            ("1x", ": unknown unit `x`"),
            ("1.5 parsecs", ": unknown unit ` parsecs`"),
            ("10 s", ": unknown unit ` s`"),
            ("99999999h", ": out of range (at most a week)"),
        ] {
            assert_eq!(
                parse_duration(bad),
                Err(format!("`{bad}` is not a duration{why} {forms}")),
                "{bad}"
            );
        }
        assert_eq!(format_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(format_duration(Duration::from_secs(3)), "3s");
    }

    #[test]
    fn sizes() {
        for (s, n) in [
            ("0", 0),
            ("12b", 12),
            ("10", 10),
            ("64KiB", 65_536),
            ("64kib", 65_536),
            ("64k", 65_536),
            ("5MB", 5_000_000),
            ("512MiB", 512 << 20),
            ("1GiB", 1 << 30),
            ("2TiB", 2 << 40),
        ] {
            assert_eq!(parse_size(s), Ok(n), "{s}");
        }
        let forms = "(like 1000, 64KiB, 5MB or 2GiB)";
        for (bad, why) in [
            ("", ""),
            ("KiB", ""),
            ("-1", ""),
            ("1 KiB", ": unknown unit ` KiB`"),
            ("1 parsec", ": unknown unit ` parsec`"),
            ("99999999999TiB", ": too large"),
            ("184467440737095516150", ""),
        ] {
            assert_eq!(
                parse_size(bad),
                Err(format!("`{bad}` is not a size{why} {forms}")),
                "{bad}"
            );
        }
    }

    #[test]
    fn toml_numbers_are_seconds() {
        #[derive(Deserialize)]
        struct T {
            d: Dur,
        }
        let v: T = serde_json::from_str(r#"{"d": 10}"#).unwrap();
        assert_eq!(v.d.get(), Duration::from_secs(10));
        let v: T = serde_json::from_str(r#"{"d": "250ms"}"#).unwrap();
        assert_eq!(v.d.get(), Duration::from_millis(250));
        assert!(serde_json::from_str::<T>(r#"{"d": "10 parsecs"}"#).is_err());
    }
}

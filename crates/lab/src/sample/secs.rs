//! Serde helpers: a `Duration` as a number of seconds (`f64`) in JSON, so results files carry
//! plain numbers (`"wall_s": 1.25`) while Rust code keeps `Duration`s until printing.
//! Use as `#[serde(with = "crate::sample::secs")]`.

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

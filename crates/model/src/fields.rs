//! The field names a serde struct reads, asked of its derived `Deserialize`: how a test holds two
//! declarations of one thing to each other (the load `Config`, the study's load fields, the
//! flags) without a third list that could drift.

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use std::fmt;

/// The fields `T` reads (serde's names, aliases among them when serde lists them); empty for a
/// type that is no struct.
pub fn field_names<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut seen = None;
    let _ = T::deserialize(Catch(&mut seen));
    seen.unwrap_or(&[])
}

/// A deserializer that only records the fields a struct asks for, then stops.
struct Catch<'a>(&'a mut Option<&'static [&'static str]>);

#[derive(Debug)]
struct Stop;

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field names only")
    }
}

impl std::error::Error for Stop {}

impl de::Error for Stop {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Stop
    }
}

impl<'de> Deserializer<'de> for Catch<'_> {
    type Error = Stop;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        Err(Stop)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Stop> {
        *self.0 = Some(fields);
        Err(Stop)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fields_of_a_struct_and_none_of_a_number() {
        let f = field_names::<crate::load::Shard>();
        assert_eq!(f, ["index", "count"]);
        assert!(field_names::<u64>().is_empty());
        let c = crate::load::field_names();
        for f in [
            "url",
            "start_at",
            "pipeline",
            "http2",
            "ws",
            "h2_window",
            "targets_order",
        ] {
            assert!(c.iter().any(|n| n == f), "{f} in {c:?}");
        }
        assert!(!c.iter().any(|n| n == "protocol" || n == "path"), "{c:?}");
    }
}

//! A protocol's own figures, as one type: [`ProtocolFigures`] is the load document's protocol
//! section (`http2`, `ws`, `http3` or `grpc`, beside the figures every protocol has), and each section
//! is a [`Section`]: it stores sums, so shards merge by adding them ([`ProtocolFigures::merged`],
//! never averaging means), derives its ratios and means from them ([`Section::settle`]), and
//! says itself in words ([`Section::lines`]), which the terminal prints and the HTML report
//! shows. The engine builds one, the merge adds them, and nothing else names a protocol's
//! figures: a protocol with figures of its own adds its section's file here and a line to
//! `sections!`.
//!
//! Documents written before the sums were stored (`handshake_total_us`) still read: their
//! means are kept, and merging them weights each mean by its count, as it did then.

mod grpc;
mod http2;
mod http3;
mod ws;

pub use grpc::{grpc_code, Grpc, GRPC_CODES};
pub use http2::Http2;
pub use http3::Http3;
pub use ws::Ws;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Serialize;
use std::fmt;

/// What a protocol's section does beside being read and written.
pub trait Section {
    /// Adds another run's figures of the same load (a shard's): counts and sums add, extremes
    /// keep the extreme, what the load asked for stays this one's.
    fn add(&mut self, o: &Self)
    where
        Self: Sized;
    /// Sets what the section derives from its sums (means, ratios); `requests_written` is the
    /// document's.
    fn settle(&mut self, requests_written: u64);
    /// The section in words, one line per topic (no indent, no final stop): what the terminal
    /// prints and the HTML report shows.
    fn lines(&self) -> Vec<String>;
}

/// Declares the sections: each one's variant, type and key in the document.
macro_rules! sections {
    ($($variant:ident($ty:ident) = $key:literal,)*) => {
        /// A run's protocol figures: the document's one protocol section, by protocol. HTTP/1.1
        /// has none.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        pub enum ProtocolFigures {
            $(#[serde(rename = $key)] $variant($ty),)*
        }

        impl ProtocolFigures {
            /// The section's key in the document.
            pub fn key(&self) -> &'static str {
                match self {
                    $(ProtocolFigures::$variant(_) => $key,)*
                }
            }

            fn section(&self) -> &dyn Section {
                match self {
                    $(ProtocolFigures::$variant(s) => s,)*
                }
            }

            fn section_mut(&mut self) -> &mut dyn Section {
                match self {
                    $(ProtocolFigures::$variant(s) => s,)*
                }
            }

            /// Adds `o`'s figures if it is the same protocol's (false if not).
            fn add(&mut self, o: &ProtocolFigures) -> bool {
                match (self, o) {
                    $((ProtocolFigures::$variant(a), ProtocolFigures::$variant(b)) => {
                        a.add(b);
                        true
                    })*
                    _ => false,
                }
            }

            /// The section under `key`, read from `map` (None, the value skipped, for a key
            /// that names none).
            fn read_entry<'de, A: MapAccess<'de>>(
                key: &str,
                map: &mut A,
            ) -> Result<Option<ProtocolFigures>, A::Error> {
                Ok(match key {
                    $($key => Some(ProtocolFigures::$variant(map.next_value()?)),)*
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                        None
                    }
                })
            }
        }

        $(impl $ty {
            /// The document's section if it is this protocol's.
            pub fn of(f: &Option<ProtocolFigures>) -> Option<&$ty> {
                match f {
                    Some(ProtocolFigures::$variant(s)) => Some(s),
                    _ => None,
                }
            }
        })*
    };
}

sections! {
    Http2(Http2) = "http2",
    Ws(Ws) = "ws",
    Http3(Http3) = "http3",
    Grpc(Grpc) = "grpc",
}

impl ProtocolFigures {
    /// Sets what the section derives from its sums; `requests_written` is the document's.
    pub fn settle(&mut self, requests_written: u64) {
        self.section_mut().settle(requests_written);
    }

    /// The section in words, one line per topic (see [`Section::lines`]).
    pub fn lines(&self) -> Vec<String> {
        self.section().lines()
    }

    /// The figures of several runs of one load, added, and derived again from the sums over
    /// the whole (`requests_written`, the merged document's): None unless every run has the
    /// same protocol's section.
    pub fn merged<'a>(
        all: impl IntoIterator<Item = Option<&'a ProtocolFigures>>,
        requests_written: u64,
    ) -> Option<ProtocolFigures> {
        let mut all = all.into_iter();
        let mut out = all.next()??.clone();
        for f in all {
            if !out.add(f?) {
                return None;
            }
        }
        out.settle(requests_written);
        Some(out)
    }
}

/// Reads the document's protocol section from the keys the document's other fields left (its
/// `#[serde(flatten)]` field): none, or one; a section that does not read is an error, as is a
/// second section.
pub(crate) fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ProtocolFigures>, D::Error> {
    d.deserialize_map(Sections)
}

struct Sections;

impl<'de> Visitor<'de> for Sections {
    type Value = Option<ProtocolFigures>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a load document's protocol section")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found: Option<ProtocolFigures> = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let Some(s) = ProtocolFigures::read_entry(&key, &mut map)? else {
                continue;
            };
            if let Some(first) = &found {
                return Err(serde::de::Error::custom(format!(
                    "a load document has one protocol section, not both {} and {}",
                    first.key(),
                    s.key()
                )));
            }
            found = Some(s);
        }
        Ok(found)
    }
}

/// `n / d`, 0 when `d` is.
fn per(n: f64, d: u64) -> f64 {
    if d > 0 {
        n / d as f64
    } else {
        0.0
    }
}

/// A mean of handshakes, from their sum where the documents stored it, else (documents written
/// before the sums were) weighted by their counts: (handshakes, mean µs, sum µs).
fn add_handshakes(a: (&mut u64, &mut f64, &mut Option<u64>), b: (u64, f64, Option<u64>)) {
    let (n, mean, sum) = a;
    let all = *n + b.0;
    *sum = match (*sum, b.2) {
        (Some(x), Some(y)) => Some(x + y),
        _ => None,
    };
    if sum.is_none() {
        *mean = per(*mean * *n as f64 + b.1 * b.0 as f64, all);
    }
    *n = all;
}

#[cfg(test)]
mod tests;

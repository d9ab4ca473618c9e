//! HDR histograms as documents carry them (V2, deflate-compressed, base64): encoding, decoding
//! and exact merging (counts add; percentiles are never averaged).

use base64::Engine as _;
use hdrhistogram::serialization::{Serializer as _, V2DeflateSerializer};
use hdrhistogram::Histogram;

/// Encodes a histogram as base64 V2-deflate.
pub fn encode(h: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    // Serializing into a Vec cannot fail for histograms of this size.
    let _ = V2DeflateSerializer::new().serialize(h, &mut bytes);
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Encodes a histogram at 2 significant figures (values within 1% share a bucket): the
/// per-second histograms of a run, which are many.
pub fn encode_coarse(h: &Histogram<u64>) -> String {
    let mut c = Histogram::<u64>::new_with_bounds(1, h.high().max(2), 2).expect("valid bounds");
    c.auto(true);
    for v in h.iter_recorded() {
        let _ = c.record_n(v.value_iterated_to().max(1), v.count_at_value());
    }
    encode(&c)
}

/// Decodes a base64 V2 (plain or deflate-compressed) histogram.
pub fn decode(b64: &str) -> Result<Histogram<u64>, String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64.trim())
        .map_err(|e| format!("base64: {e}"))?;
    hdrhistogram::serialization::Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .map_err(|e| format!("{e:?}"))
}

/// Merges histograms exactly (counts add); `None` for an empty list.
pub fn merge<'a>(hs: impl IntoIterator<Item = &'a Histogram<u64>>) -> Option<Histogram<u64>> {
    let mut out: Option<Histogram<u64>> = None;
    for h in hs {
        match &mut out {
            None => out = Some(h.clone()),
            // Auto-resize makes add infallible for histograms of differing ranges.
            Some(o) => {
                o.auto(true);
                let _ = o.add(h);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_merge_add_counts() {
        let mut a = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).unwrap();
        let mut b = a.clone();
        for v in [100, 200, 300] {
            a.record(v).unwrap();
        }
        b.record(1_000_000).unwrap();
        let a2 = decode(&encode(&a)).unwrap();
        assert_eq!((a2.len(), a2.max()), (3, a.max()));
        let m = merge([&a2, &b]).unwrap();
        assert_eq!(m.len(), 4);
        assert_eq!(m.value_at_quantile(0.5), a.value_at_quantile(0.5));
        assert!(decode("not base64!").is_err());
    }
}

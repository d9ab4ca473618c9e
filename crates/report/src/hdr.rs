//! HDR histograms in the report: decoding and exact merging (the model's codec), and the
//! percentile-distribution curve the report plots.

use hdrhistogram::Histogram;

/// Exact merging: the model's.
pub use barrage_model::hdr::merge;

/// Decodes a base64 V2 (plain or deflate-compressed) histogram (the model's codec).
pub fn decode(b64: &str) -> Result<Histogram<u64>, crate::ReportError> {
    barrage_model::hdr::decode(b64).map_err(crate::ReportError::Hdr)
}

/// The percentile distribution as HdrHistogram's plots draw it: points (1 / (1 - q), value)
/// where q is the quantile, so 90 %, 99 %, 99.9 % ... fall one decade apart on a log x axis.
/// The maximum itself (q = 1) has no finite position and is drawn at the last decade reached.
pub fn percentile_curve(h: &Histogram<u64>) -> Vec<(f64, f64)> {
    if h.is_empty() {
        return Vec::new();
    }
    let mut pts = Vec::new();
    // Five points per halving of the remaining tail, as HdrHistogram's percentile output does.
    for it in h.iter_quantiles(5) {
        let q = it.quantile_iterated_to();
        if q >= 1.0 {
            break;
        }
        pts.push((
            1.0 / (1.0 - q),
            h.highest_equivalent(it.value_iterated_to()) as f64,
        ));
    }
    let n = h.len() as f64;
    // The maximum sits at quantile 1 - 1/n: the resolution the sample count allows.
    let last_x = pts.last().map_or(1.0, |p| p.0).max(n);
    pts.push((last_x, h.max() as f64));
    pts
}

/// Tick positions and labels for the percentile axis: 0 %, 90 %, 99 %, ... up to `max_x`.
pub fn percentile_ticks(max_x: f64) -> Vec<(f64, String)> {
    let labels = ["0%", "90%", "99%", "99.9%", "99.99%", "99.999%", "99.9999%"];
    labels
        .iter()
        .enumerate()
        .map(|(i, l)| (10f64.powi(i as i32), l.to_string()))
        .take_while(|(x, _)| *x <= max_x.max(10.0) * 1.0001)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdrhistogram::serialization::{Serializer, V2DeflateSerializer, V2Serializer};

    fn sample() -> Histogram<u64> {
        let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
        for v in 1..=10_000u64 {
            h.record(v).unwrap();
        }
        h
    }

    #[test]
    fn decodes_both_v2_forms() {
        let h = sample();
        for compressed in [false, true] {
            let mut bytes = Vec::new();
            if compressed {
                V2DeflateSerializer::new()
                    .serialize(&h, &mut bytes)
                    .unwrap();
            } else {
                V2Serializer::new().serialize(&h, &mut bytes).unwrap();
            }
            let b64 = {
                use base64::Engine as _;
                base64::engine::general_purpose::STANDARD.encode(&bytes)
            };
            assert_eq!(decode(&b64).unwrap(), h);
        }
        assert!(matches!(
            decode("not base64!"),
            Err(crate::ReportError::Hdr(_))
        ));
        assert!(decode("AAAA").is_err());
    }

    #[test]
    fn merge_adds_counts() {
        let a = sample();
        let m = merge([&a, &a]).unwrap();
        assert_eq!(m.len(), 20_000);
        assert_eq!(m.value_at_quantile(0.5), a.value_at_quantile(0.5));
        assert!(merge(std::iter::empty()).is_none());
    }

    #[test]
    fn curve_is_monotonic_and_reaches_max() {
        let h = sample();
        let c = percentile_curve(&h);
        assert!(c.len() > 10);
        assert!(c.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1));
        assert_eq!(c.last().unwrap().1, h.max() as f64);
        // The median (q = 0.5) sits at x = 2.
        let med = c.iter().find(|p| (p.0 - 2.0).abs() < 1e-9).unwrap();
        assert!((med.1 - 5000.0).abs() <= 5.0, "{med:?}");
        assert!(percentile_curve(&Histogram::<u64>::new(3).unwrap()).is_empty());
    }

    #[test]
    fn ticks_stop_at_the_tail() {
        let t = percentile_ticks(2500.0);
        let l: Vec<_> = t.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(l, ["0%", "90%", "99%", "99.9%"]);
    }
}

//! The percentile-distribution curve the report plots from an HDR histogram, and its axis ticks
//! (decoding and merging histograms are the model's: `barrage_model::hdr`).

use hdrhistogram::Histogram;

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

    fn sample() -> Histogram<u64> {
        let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
        for v in 1..=10_000u64 {
            h.record(v).unwrap();
        }
        h
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

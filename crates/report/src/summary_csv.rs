//! `summary.csv`, a format of the report for a study's results: one row per point and contender,
//! every statistic of every metric of the study (the registry's of its kind, then the figures it
//! declared) as raw numbers.

use barrage_model::study::Results;

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `summary.csv`: one row per point and contender; every statistic of every metric as raw numbers
/// (seconds, bytes, requests per second, microseconds). `latency_p50_us_median` and the like are
/// statistics of the per-trial percentiles (what the significance tests compare); the latency
/// percentiles to quote are the `merged_latency_*` columns, from the merged HDR histograms.
pub fn render(r: &Results) -> String {
    let ms: Vec<String> = barrage_model::summary::metrics(r)
        .into_iter()
        .map(|m| m.key.into_owned())
        .collect();
    let mut head = vec![
        "point".to_string(),
        "label".into(),
        "contender".into(),
        "trials_ok".into(),
        "trials_failed".into(),
    ];
    for m in &ms {
        for s in [
            "median",
            "mean",
            "stddev",
            "min",
            "max",
            "second_best",
            "ci95_lo",
            "ci95_hi",
        ] {
            head.push(format!("{m}_{s}"));
        }
    }
    for h in [
        "merged_latency_count",
        "merged_latency_mean_us",
        "merged_latency_p50_us",
        "merged_latency_p90_us",
        "merged_latency_p99_us",
        "merged_latency_p999_us",
        "merged_latency_max_us",
        "errors",
        "generator_bottleneck",
    ] {
        head.push(h.into());
    }
    let mut out = head.join(",");
    out.push('\n');
    let num = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v}"));
    for c in &r.summary {
        let mut row = vec![
            c.point.to_string(),
            csv_field(&c.label),
            csv_field(&c.contender),
            c.trials_ok.to_string(),
            c.trials_failed.to_string(),
        ];
        for m in &ms {
            match c.stats.get(m) {
                Some(s) => {
                    row.extend([
                        num(Some(s.median)),
                        num(Some(s.mean)),
                        num(s.stddev),
                        num(Some(s.min)),
                        num(Some(s.max)),
                        num(s.second_best),
                        num(s.ci95_median.map(|i| i.lo)),
                        num(s.ci95_median.map(|i| i.hi)),
                    ]);
                }
                None => row.extend(std::iter::repeat_n(String::new(), 8)),
            }
        }
        match &c.latency {
            Some(l) => row.extend([
                l.count.to_string(),
                format!("{}", l.mean_us),
                l.p50_us.to_string(),
                l.p90_us.to_string(),
                l.p99_us.to_string(),
                l.p999_us.to_string(),
                l.max_us.to_string(),
            ]),
            None => row.extend(std::iter::repeat_n(String::new(), 7)),
        }
        row.push(c.errors.to_string());
        row.push(c.generator_bottleneck.to_string());
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

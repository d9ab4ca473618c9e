//! Several `barrage load` documents in one report are one family of comparisons: each run
//! after the first is compared with it by the model (`compare::load_family`), every test of
//! every pair Holm-corrected together, and the page says what the model said. Runs with
//! hand-set figures and intervals make every p-value a known number.

use barrage_model::load::intervals::{judged, Bound, Intervals};
use barrage_model::load::{Latency, LoadDoc};
use barrage_report::{build, render, Format, Input};

/// A run of `rps` responses a second for 10 s, latencies p50 5 ms ... p99.9 12 ms, no errors,
/// and each judged figure's 95% interval `value · e^(±a)`.
fn run(rps: f64, a: f64) -> LoadDoc {
    let mut d = LoadDoc {
        schema: barrage_model::load::SCHEMA.into(),
        requests: 10 * rps as u64,
        duration_s: 10.0,
        rps,
        latency_us: Latency {
            count: 10 * rps as u64,
            mean: 5200.0,
            p50: 5000,
            p90: 6000,
            p99: 8000,
            p999: 12000,
            max: 15000,
            ..Latency::default()
        },
        config: serde_json::json!({"method": "GET", "url": "http://127.0.0.1:8080/", "connections": 4}),
        ..LoadDoc::default()
    };
    let figures = judged()
        .filter_map(|m| {
            let v = barrage_model::metric::load_value(m, &d)?;
            Some((
                m.key.to_string(),
                Bound {
                    lo: Some(v * (-a).exp()),
                    hi: Some(v * a.exp()),
                },
            ))
        })
        .collect();
    d.intervals = Some(Intervals {
        level: 0.95,
        seconds: 10,
        responses: d.requests,
        figures,
        ..Intervals::default()
    });
    d
}

/// The Markdown of a report of `docs`, named a.json, b.json, ...
fn markdown(docs: &[LoadDoc]) -> String {
    let inputs: Vec<(String, Input)> = docs
        .iter()
        .zip(["a.json", "b.json", "c.json"])
        .map(|(d, l)| (l.to_string(), Input::Load(Box::new(d.clone()))))
        .collect();
    render(&build(&inputs).unwrap(), Format::Markdown, "barrage test")
}

/// The throughput row of the comparison of `new` with a.json, as the Markdown table shows it.
fn throughput_row<'a>(md: &'a str, new: &str) -> &'a str {
    let at = md
        .find(&format!("## Comparison: {new} vs baseline a.json"))
        .unwrap_or_else(|| panic!("no comparison of {new}:\n{md}"));
    md[at..]
        .lines()
        .find(|l| l.starts_with("| throughput |"))
        .unwrap()
}

#[test]
fn a_pair_significant_alone_is_not_significant_among_three_runs() {
    // b's throughput is e^-d of a's, both intervals ±2% on the log scale: z = 2.747781, p =
    // 0.0060. A pair tests six figures, so alone b's corrected p is 6 · 0.006 = 0.036, a
    // regression; c is a again, and with its six tests in the family b's p is 12 · 0.006 =
    // 0.072: not significant (the uncorrected test, or one corrected per pair, would call it).
    let a = 0.02;
    let d = 2.747781 * 2.0 * a / 1.959964;
    let (ra, rb, rc) = (run(1000.0, a), run(1000.0 * (-d).exp(), a), run(1000.0, a));

    let two = markdown(&[ra.clone(), rb.clone()]);
    let row = throughput_row(&two, "b.json");
    assert!(row.contains("| -5.5% |"), "{row}");
    // Its interval at the level of the smallest of six p's, 1 - 0.05/6.
    assert!(
        row.ends_with("at 99.17% | 0.04 | **regression** |"),
        "{row}"
    );

    let three = markdown(&[ra, rb, rc]);
    let row = throughput_row(&three, "b.json");
    assert!(row.contains("| -5.5% |"), "{row}");
    // 1 - 0.05/12: the interval widens with the family, and contains 1.
    assert!(
        row.ends_with("at 99.58% | 0.07 | not significant |"),
        "{row}"
    );
    let row = throughput_row(&three, "c.json");
    assert!(
        row.contains("| 0.0% |") && row.ends_with("| within noise |"),
        "{row}"
    );
    assert!(
        three
            .contains("Holm-corrected over the 12 figures tested in all 2 comparisons with a.json"),
        "{three}"
    );
    assert!(!three.contains("regression"), "{three}");
}

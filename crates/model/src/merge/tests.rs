//! Merging: histograms add exactly, counts and series add, and documents of different loads,
//! the same shard twice, missing shards and far-apart starts are refused or noted.

use super::*;
use crate::load::{ErrorClass, Errors, Http2, Http3, Phase, ProtocolFigures, Shard, Ws};
use hdrhistogram::Histogram;

fn hist(values: &[u64]) -> Histogram<u64> {
    let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
    for v in values {
        h.record(*v).unwrap();
    }
    h
}

fn config(shard: Option<(u32, u32)>) -> serde_json::Value {
    let c = crate::load::Config {
        url: "http://127.0.0.1:1/".into(),
        connections: 8,
        shard: shard.map(|(index, count)| Shard { index, count }),
        ..crate::load::Config::default()
    };
    serde_json::to_value(c).unwrap()
}

fn shard(i: u32, n: u32, values: &[u64], started: f64) -> (String, LoadDoc) {
    let h = hist(values);
    let doc = LoadDoc {
        schema: crate::load::SCHEMA.into(),
        requests: values.len() as u64,
        requests_written: values.len() as u64 + 1,
        in_flight: 1,
        errors: {
            let mut e = Errors::default();
            e.count(ErrorClass::Timeout, u64::from(i));
            e
        },
        duration_s: 2.0,
        status: [("200".to_string(), values.len() as u64)].into(),
        hdr: Some(hdr::encode(&h)),
        hdr_connect: Some(hdr::encode(&hist(&[100 * u64::from(i)]))),
        latency_us: Latency::of(&h),
        series: (0..2)
            .map(|s| Second {
                second: s,
                phase: Phase::Measure,
                responses: 10 * u64::from(i),
                p99_us: 1000 * u64::from(i),
                span_s: 1.0,
                ..Second::default()
            })
            .collect(),
        threads: 1,
        target: serde_json::json!({"host": "127.0.0.1", "port": 1}),
        config: config(Some((i, n))),
        started_unix: started,
        ..LoadDoc::default()
    };
    (format!("shard{i}.json"), doc)
}

#[test]
fn shards_add_up_exactly() {
    let a: Vec<u64> = (1..=500).map(|v| v * 7).collect();
    let b: Vec<u64> = (1..=300).map(|v| v * 131).collect();
    let c: Vec<u64> = vec![5; 50];
    let docs = vec![
        shard(1, 3, &a, 100.0),
        shard(2, 3, &b, 100.2),
        shard(3, 3, &c, 100.1),
    ];
    let m = merge(&docs, 1.0).unwrap();
    // The merged histogram is the histogram of every sample recorded in one.
    let all: Vec<u64> = a.iter().chain(&b).chain(&c).copied().collect();
    let one = hist(&all);
    assert_eq!(hdr::decode(m.hdr.as_deref().unwrap()).unwrap(), one);
    assert_eq!(m.latency_us, Latency::of(&one));
    assert_eq!(m.requests, 850);
    assert_eq!((m.requests_written, m.in_flight), (853, 3));
    assert_eq!((m.errors[ErrorClass::Timeout], m.errors.total()), (6, 6));
    assert_eq!(m.status["200"], 850);
    assert!((m.rps - 425.0).abs() < 1e-9);
    assert_eq!((m.connect_us.count, m.connect_us.min), (3, 100));
    let secs: Vec<(u64, u64, u64)> = m
        .series
        .iter()
        .map(|s| (s.second, s.responses, s.p99_us))
        .collect();
    assert_eq!(secs, vec![(0, 60, 3000), (1, 60, 3000)]);
    let merged = m.merged.as_ref().unwrap();
    assert_eq!((merged.shards, merged.of), (3, 3));
    assert!((merged.start_spread_s - 0.2).abs() < 1e-9);
    assert!(
        merged.notes.iter().all(|n| !n.contains("missing")),
        "{:?}",
        merged.notes
    );
    assert!(
        m.config.get("shard").is_none(),
        "the merged load is the whole load"
    );
    assert_eq!(m.started_unix, 100.0);
}

#[test]
fn different_loads_and_repeated_shards_are_refused() {
    let (a, mut b) = (shard(1, 2, &[1], 0.0), shard(2, 2, &[2], 0.0));
    b.1.config["connections"] = 9.into();
    let e = merge(&[a.clone(), b], 1.0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "shard1.json and shard2.json are not runs of the same load: their configurations differ"
    );
    let mut c = shard(2, 2, &[2], 0.0);
    c.1.target = serde_json::json!({"host": "10.0.0.1", "port": 1});
    let e = merge(&[a.clone(), c], 1.0).unwrap_err().to_string();
    assert!(e.contains("their targets differ"), "{e}");
    let twice = merge(&[a.clone(), (String::from("again.json"), a.1.clone())], 1.0).unwrap_err();
    assert_eq!(
        twice.to_string(),
        "shard1.json and again.json are both shard 1/2"
    );
    let mut old = shard(2, 2, &[2], 0.0);
    old.1.schema = "something/9".into();
    assert!(matches!(merge(&[a, old], 1.0), Err(MergeError::Schema(..))));
    assert_eq!(merge(&[], 1.0).unwrap_err(), MergeError::Empty);
}

#[test]
fn missing_shards_and_far_starts_are_noted() {
    let docs = vec![shard(1, 4, &[1, 2], 10.0), shard(3, 4, &[3], 15.5)];
    let m = merge(&docs, 1.0).unwrap();
    let notes = &m.merged.as_ref().unwrap().notes;
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("shards 2/4, 4/4 are missing")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("the runs started 5.500 s apart")),
        "{notes:?}"
    );
}

/// HTTP/3's figures as a run of these handshakes (µs) and datagrams over `written` requests
/// counts them: sums, then what derives from them.
fn h3_run(handshakes: &[u64], sent: u64, written: u64) -> ProtocolFigures {
    let mut f = ProtocolFigures::Http3(Http3 {
        streams_asked: 8,
        connections: handshakes.len() as u64,
        handshakes: handshakes.len() as u64,
        handshake_total_us: Some(handshakes.iter().sum()),
        streams: 10,
        datagrams_sent: sent,
        datagrams_received: sent * 2,
        packets_lost: 1,
        qpack_inserts: 3,
        ..Http3::default()
    });
    f.settle(written);
    f
}

/// Two shards' protocol figures merged are the figures one run of both shards' events would
/// have: the sums add, and the means and ratios are derived from them, never averaged.
#[test]
fn protocol_figures_merge_exactly_to_one_runs() {
    let (mut a, mut b) = (shard(1, 2, &[10, 20], 100.0), shard(2, 2, &[30], 100.1));
    // HTTP/3: handshakes of 101, 250 and 333 µs; 270 datagrams over 5 requests written (3 + 2).
    a.1.protocol = Some(h3_run(&[101, 250], 30, 3));
    b.1.protocol = Some(h3_run(&[333], 60, 2));
    let m = merge(&[a.clone(), b.clone()], 1.0).unwrap();
    let mut one = h3_run(&[101, 250, 333], 90, 5);
    let ProtocolFigures::Http3(h) = &mut one else {
        unreachable!()
    };
    (h.streams, h.packets_lost, h.qpack_inserts) = (20, 2, 6);
    assert_eq!(m.protocol, Some(one.clone()));
    let ProtocolFigures::Http3(h) = &one else {
        unreachable!()
    };
    assert_eq!(h.handshake_total_us, Some(684));
    assert_eq!(h.handshake_mean_us, 228.0);
    assert_eq!(h.datagrams_per_request, 54.0);

    // WebSocket: handshakes of 7 and 1000 µs, then 10 µs; closes by code add.
    let ws = |total: u64, n: u64, closes: &[(&str, u64)]| {
        let mut f = ProtocolFigures::Ws(Ws {
            handshakes: n,
            handshake_total_us: Some(total),
            closes: closes.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            ..Ws::default()
        });
        f.settle(0);
        f
    };
    a.1.protocol = Some(ws(1007, 2, &[("1000", 1)]));
    b.1.protocol = Some(ws(10, 1, &[("1000", 2), ("1011", 1)]));
    let m = merge(&[a.clone(), b.clone()], 1.0).unwrap();
    let one = ws(1017, 3, &[("1000", 3), ("1011", 1)]);
    assert_eq!(m.protocol, Some(one));
    let Some(ProtocolFigures::Ws(w)) = &m.protocol else {
        unreachable!()
    };
    assert_eq!(w.handshake_mean_us, 339.0);

    // HTTP/2: header bytes add, and HPACK's saving is theirs; the lowest stream limit holds.
    let h2 = |recv: u64, dec: u64, limit: u32| {
        let mut f = ProtocolFigures::Http2(Http2 {
            protocol: "h2c".into(),
            streams_asked: 100,
            server_stream_limit: Some(limit),
            streams: 40,
            connections: 2,
            header_bytes_received: recv,
            header_bytes_decoded: dec,
            rst_stream: [("CANCEL".to_string(), 1)].into(),
            ..Http2::default()
        });
        f.settle(0);
        f
    };
    a.1.protocol = Some(h2(100, 1000, 128));
    b.1.protocol = Some(h2(300, 1000, 64));
    let m = merge(&[a.clone(), b.clone()], 1.0).unwrap();
    let mut one = h2(400, 2000, 64);
    let ProtocolFigures::Http2(h) = &mut one else {
        unreachable!()
    };
    (h.streams, h.connections) = (80, 4);
    h.rst_stream.insert("CANCEL".into(), 2);
    assert_eq!(m.protocol, Some(one));
    let Some(ProtocolFigures::Http2(h)) = &m.protocol else {
        unreachable!()
    };
    assert_eq!(h.hpack_saving, 0.8);

    // A shard without the section, or with another protocol's: none in the merge.
    b.1.protocol = None;
    assert_eq!(merge(&[a.clone(), b.clone()], 1.0).unwrap().protocol, None);
    b.1.protocol = Some(ws(10, 1, &[]));
    assert_eq!(merge(&[a, b], 1.0).unwrap().protocol, None);
}

/// Documents written before the sums were stored still merge: each mean weighted by its count,
/// as before, and the merge claims no sum it does not have.
#[test]
fn protocol_figures_without_sums_merge_their_means_weighted() {
    let h3 = |handshakes: u64, mean: f64, sent: u64| Http3 {
        streams_asked: 8,
        connections: handshakes,
        handshakes,
        handshake_mean_us: mean,
        streams: 10,
        datagrams_sent: sent,
        datagrams_received: sent * 2,
        ..Http3::default()
    };
    let (mut a, mut b) = (shard(1, 2, &[10, 20], 100.0), shard(2, 2, &[30], 100.1));
    a.1.protocol = Some(ProtocolFigures::Http3(h3(1, 100.0, 30)));
    b.1.protocol = Some(ProtocolFigures::Http3(h3(3, 500.0, 60)));
    let m = merge(&[a, b], 1.0).unwrap();
    let Some(ProtocolFigures::Http3(h)) = m.protocol else {
        panic!("both shards have one")
    };
    assert_eq!((h.handshakes, h.streams), (4, 20));
    assert_eq!(h.handshake_mean_us, 400.0);
    assert_eq!(h.handshake_total_us, None);
    assert_eq!(h.datagrams_per_request, 54.0);
}

/// A shard of 4 seconds whose second `s` answered `values` shifted by `s` (µs), each second
/// with its own histogram and mean, as `barrage.load/2` writes them.
fn timed_shard(i: u32, values: &[u64]) -> (String, LoadDoc) {
    let (name, mut d) = shard(i, 2, values, 100.0);
    let mut all = hist(&[]);
    d.series = (0..4)
        .map(|s| {
            let h = hist(&values.iter().map(|v| v + s).collect::<Vec<_>>());
            all.add(&h).unwrap();
            Second {
                second: s,
                phase: Phase::Measure,
                responses: h.len(),
                mean_us: h.mean(),
                hdr: Some(hdr::encode_coarse(&h)),
                span_s: 1.0,
                ..Second::default()
            }
        })
        .collect();
    d.requests = all.len();
    d.hdr = Some(hdr::encode(&all));
    d.latency_us = Latency::of(&all);
    (name, d.with_intervals())
}

#[test]
fn merged_shards_get_intervals_from_their_seconds_together() {
    let a: Vec<u64> = (1..=400).map(|v| 1000 + v).collect();
    let b: Vec<u64> = (1..=200).map(|v| 3000 + 5 * v).collect();
    let docs = vec![timed_shard(1, &a), timed_shard(2, &b)];
    let m = merge(&docs, 1.0).unwrap();
    // Each second's histogram is both shards' (exact at 2 digits), its mean weighted by count.
    for s in &m.series {
        let h = hdr::decode(s.hdr.as_deref().unwrap()).unwrap();
        assert_eq!(h.len(), 600);
        let want = (a
            .iter()
            .chain(&b)
            .map(|v| (v + s.second) as f64)
            .sum::<f64>())
            / 600.0;
        assert!((s.mean_us - want).abs() < 1.0, "{} vs {want}", s.mean_us);
    }
    // The merged document's intervals are those of its own seconds and histogram, and the
    // percentile ranks are of all 2,400 responses.
    let i = m.intervals.as_ref().unwrap();
    assert_eq!((i.responses, i.seconds), (2400, 4));
    let again = crate::load::intervals::Intervals::compute(&m, m.histogram().as_ref()).unwrap();
    assert_eq!(*i, again);
    let p50 = i.of(&crate::metric::P50).unwrap();
    let v = m.latency_us.p50 as f64;
    assert!(p50.lo.unwrap() <= v && v <= p50.hi.unwrap(), "{p50:?} {v}");
    // A shard without per-second histograms (barrage.load/1) leaves the seconds without one.
    let (n, mut old) = timed_shard(2, &b);
    old.series.iter_mut().for_each(|s| s.hdr = None);
    let m = merge(&[timed_shard(1, &a), (n, old)], 1.0).unwrap();
    assert!(m.series.iter().all(|s| s.hdr.is_none()));
    assert_eq!(
        m.intervals.unwrap().of(&crate::metric::P50).unwrap().hi,
        None
    );
}

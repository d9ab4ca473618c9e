//! Sharded load (`--shard I/N`) against `barrage serve` in process: the shares add up exactly
//! (connections, `-n`, the open loop's schedule), shards started together with `start_at` line
//! up, and the merge of real shard runs has exactly the histogram of all their samples.

use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, ConfigError, LoadError, NullSink, RunResult};
use barrage_model::load::Shard;
use barrage_server::{start, ServerConfig};
use hdrhistogram::Histogram;
use std::time::Duration;

fn shard_of(cfg: &Config, index: u32, count: u32) -> Config {
    Config {
        shard: Some(Shard { index, count }),
        ..cfg.clone()
    }
}

fn run_all(cfgs: Vec<Config>) -> Vec<RunResult> {
    // Concurrently, as shards on several machines would.
    std::thread::scope(|s| {
        let hs: Vec<_> = cfgs
            .iter()
            .map(|c| {
                s.spawn(move || run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap())
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

#[test]
fn request_counts_split_exactly_and_merge_exactly() {
    let s = start(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    })
    .unwrap();
    let base = Config {
        url: format!("http://{}/", s.local_addr()),
        connections: 7,
        threads: 2,
        duration: None,
        requests: Some(1000),
        expect_status: Some(200),
        ..Config::default()
    };
    let rs = run_all((1..=3).map(|i| shard_of(&base, i, 3)).collect());
    let got: Vec<(u64, u64)> = rs.iter().map(|r| (r.requests, r.connects)).collect();
    // 1000 over 3: 334, 333, 333; 7 connections: 3, 2, 2.
    assert_eq!(got, vec![(334, 3), (333, 2), (333, 2)]);
    let docs: Vec<(String, barrage_model::load::LoadDoc)> = rs
        .iter()
        .enumerate()
        .map(|(i, r)| (format!("shard{}", i + 1), r.doc.clone()))
        .collect();
    let m = barrage_model::merge::merge(&docs, 5.0).unwrap();
    assert_eq!(m.requests, 1000);
    assert_eq!(m.errors.total(), 0);
    // Every sample of every shard, recorded into one histogram: the merge is exactly it.
    let mut one = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
    for r in &rs {
        for v in r.histogram.iter_recorded() {
            one.record_n(v.value_iterated_to(), v.count_at_value())
                .unwrap();
        }
    }
    let merged = barrage_model::hdr::decode(m.hdr.as_deref().unwrap()).unwrap();
    assert_eq!(merged, one);
    assert_eq!(merged.len(), 1000);
    assert_eq!(m.latency_us, barrage_model::load::Latency::of(&one));
}

#[test]
fn open_loop_shards_keep_one_schedule_together() {
    let s = start(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    })
    .unwrap();
    let at = (unix_now() + 1.0).ceil();
    let base = Config {
        url: format!("http://{}/", s.local_addr()),
        // 20 connections a shard: a server stalled for 100 ms (a busy CI machine) still finds a
        // free connection for each request due; with 2 a shard, a stall of 80 ms left 16
        // requests unsent at the deadline.
        connections: 60,
        threads: 1,
        duration: Some(Duration::from_secs(2)),
        rate: Some(600.0),
        start_at: Some(at),
        expect_status: Some(200),
        ..Config::default()
    };
    let rs = run_all((1..=3).map(|i| shard_of(&base, i, 3)).collect());
    for r in &rs {
        // Each keeps a third of the schedule, from the agreed second.
        let rate = r.rate.as_ref().unwrap();
        assert!((rate.target_rps - 200.0).abs() < 1e-9, "{rate:?}");
        assert!(
            r.started_unix >= at && r.started_unix - at < 0.5,
            "{}",
            r.started_unix
        );
        // Never ahead of its third of the schedule (exact: the pacer's), and not far behind it
        // (how far depends on the machine: requests still waiting for a connection at the
        // deadline are not sent).
        assert!(
            (360..=401).contains(&r.requests_written),
            "{}",
            r.requests_written
        );
    }
    let docs: Vec<_> = rs
        .iter()
        .enumerate()
        .map(|(i, r)| (format!("shard{}", i + 1), r.doc.clone()))
        .collect();
    let m = barrage_model::merge::merge(&docs, 0.5).unwrap();
    let written = m.requests_written as f64;
    assert!(
        (1080.0..=1203.0).contains(&written),
        "{written} (at most 1,200 and the shards' slack)"
    );
    assert!((m.rate.as_ref().unwrap().target_rps - 600.0).abs() < 1e-9);
    assert!(m.merged.as_ref().unwrap().start_spread_s < 0.5);
}

#[test]
fn bad_shards_are_refused() {
    let c = Config {
        url: "http://127.0.0.1:1/".into(),
        duration: Some(Duration::from_secs(1)),
        connections: 2,
        ..Config::default()
    };
    assert_eq!(
        shard_of(&c, 0, 2).validate().unwrap_err(),
        ConfigError::Load(LoadError::Shard)
    );
    assert_eq!(
        shard_of(&c, 3, 2).validate().unwrap_err(),
        ConfigError::Load(LoadError::Shard)
    );
    assert_eq!(
        shard_of(&c, 1, 3).validate().unwrap_err().to_string(),
        "2 connections cannot be split over 3 shards: give each at least one"
    );
}

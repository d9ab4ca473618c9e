//! Samples merged, bounded and read back: table tests with known values.

use super::*;

fn samples(points: &[(u64, f64)]) -> Samples {
    Samples {
        config: SamplerConfig::default(),
        samples: points
            .iter()
            .map(|&(ms, pct)| Sample {
                t: Duration::from_millis(ms),
                cpu_user_pct: pct * 0.75,
                cpu_sys_pct: pct * 0.25,
                ..Sample::default()
            })
            .collect(),
        ..Samples::default()
    }
}

fn cpu_seconds(s: &Samples) -> f64 {
    s.samples
        .windows(2)
        .map(|w| (w[1].cpu_user_pct + w[1].cpu_sys_pct) / 100.0 * (w[1].t - w[0].t).as_secs_f64())
        .sum()
}

fn pcts(s: &Samples) -> Vec<f64> {
    s.samples
        .iter()
        .map(|x| ((x.cpu_user_pct + x.cpu_sys_pct) * 1e6).round() / 1e6)
        .collect()
}

#[test]
fn bound_cpu_table() {
    // (timeline in ms and % of a core, CPUs, timeline after, CPU seconds dropped)
    type Case = (&'static [(u64, f64)], usize, &'static [f64], f64);
    let cases: &[Case] = &[
        // Within the bound: unchanged.
        (
            &[(0, 0.0), (100, 50.0), (200, 90.0)],
            1,
            &[0.0, 50.0, 90.0],
            0.0,
        ),
        // A reaped child's 0.25 s lands at once (250% on one CPU): moved back where there
        // is room, latest first.
        (
            &[(0, 0.0), (100, 0.0), (200, 0.0), (300, 250.0), (400, 10.0)],
            1,
            &[0.0, 50.0, 100.0, 100.0, 10.0],
            0.0,
        ),
        // No room before: the next interval with room takes the rest.
        (
            &[
                (0, 0.0),
                (100, 100.0),
                (200, 100.0),
                (300, 150.0),
                (400, 0.0),
            ],
            1,
            &[0.0, 100.0, 100.0, 100.0, 50.0],
            0.0,
        ),
        // Two CPUs allow 200%.
        (
            &[(0, 0.0), (100, 50.0), (200, 250.0)],
            2,
            &[0.0, 100.0, 200.0],
            0.0,
        ),
        // A 5 ms sliver at the stop with one tick (10 ms) in it reads as 200%: merged.
        (
            &[(0, 0.0), (100, 80.0), (200, 80.0), (205, 200.0)],
            1,
            &[0.0, 80.0, 85.714286],
            0.0,
        ),
        // No room anywhere: more CPU than the CPUs given could do in the whole timeline is
        // a sampling skew, not work; it is dropped rather than shown over the bound, and
        // counted: 200% too much for 0.1 s.
        (
            &[(0, 0.0), (100, 100.0), (200, 300.0)],
            1,
            &[0.0, 100.0, 100.0],
            0.2,
        ),
        // Some room later, not enough: 0.25 s too much at 200 ms, 0.05 s of room after it.
        (
            &[(0, 0.0), (100, 100.0), (200, 350.0), (300, 50.0)],
            1,
            &[0.0, 100.0, 100.0, 100.0],
            0.2,
        ),
    ];
    for (points, cpus, want, dropped) in cases {
        let mut s = samples(points);
        let before = cpu_seconds(&s);
        s.bound_cpu(*cpus);
        assert_eq!(pcts(&s), want.to_vec(), "{points:?}");
        assert_eq!(s.cpus, *cpus);
        let got = s.cpu_dropped.as_secs_f64();
        assert!((got - dropped).abs() < 1e-9, "{points:?}: dropped {got}");
        // What left the timeline is what was dropped.
        assert!((before - cpu_seconds(&s) - got).abs() < 1e-9, "{points:?}");
        // Nothing is lost unless the timeline held more than its CPUs could do.
        let span = points.last().unwrap().0 as f64 / 1000.0;
        let fits = before <= *cpus as f64 * span + 1e-9;
        let after = cpu_seconds(&s);
        if fits {
            assert!((after - before).abs() < 1e-9, "{points:?}: CPU lost");
        } else {
            assert!((after - *cpus as f64 * span).abs() < 1e-9, "{points:?}");
        }
        // The user/sys split of a moved amount follows the interval it came from.
        for x in &s.samples {
            assert!((x.cpu_sys_pct * 3.0 - x.cpu_user_pct).abs() < 1e-6, "{x:?}");
        }
    }
}

#[test]
fn dropped_cpu_is_weighed_against_a_tick_per_interval_and_the_exact_total() {
    let exit = |cpu_ms: u64, wall_ms: u64| Exit {
        outcome: Outcome::Ok,
        termination: None,
        wall: Duration::from_millis(wall_ms),
        rusage: Rusage {
            user: Duration::from_millis(cpu_ms),
            ..Rusage::default()
        },
        stdout: Vec::new(),
        stdout_bytes: 0,
        stdout_truncated: false,
        stderr_tail: String::new(),
        stop: StopInfo::default(),
        memory_limit: MemoryLimitApplied::None,
        cgroup_peak_bytes: None,
        cgroup_cpu: None,
        spawned_at: None,
        exited_at: None,
    };
    // 0.2 s dropped over 2 intervals of 100 ms with a 10 ms tick: 0.02 s is rounding, the
    // rest is not.
    let mut s = samples(&[(0, 0.0), (100, 100.0), (200, 300.0)]);
    s.clock_tick = Duration::from_millis(10);
    s.bound_cpu(1);
    let d = s.dropped_cpu(Some(&exit(200, 250))).unwrap();
    assert!((d.dropped_s - 0.2).abs() < 1e-9 && (d.allowance_s - 0.02).abs() < 1e-12);
    assert_eq!((d.intervals, d.cpus), (2, 1));
    // rusage 0.2 s in 0.25 s on 1 CPU fits (capacity 0.25 s): the readings over-counted.
    assert_eq!((d.rusage_s, d.capacity_s), (Some(0.2), Some(0.25)));
    assert_eq!(d.beyond_capacity(), Some(false));
    // rusage 0.4 s in 0.25 s on 1 CPU: the tree ran on more than the CPU it was given.
    let d = s.dropped_cpu(Some(&exit(400, 250))).unwrap();
    assert_eq!(d.beyond_capacity(), Some(true));
    assert_eq!(s.dropped_cpu(None).unwrap().beyond_capacity(), None);
    // Within a tick per interval (15 ms over 2 intervals, 20 ms allowed): rounding, no warning.
    let mut s = samples(&[(0, 0.0), (100, 100.0), (200, 115.0)]);
    s.clock_tick = Duration::from_millis(10);
    s.bound_cpu(1);
    assert!((s.cpu_dropped.as_secs_f64() - 0.015).abs() < 1e-9);
    assert_eq!(s.dropped_cpu(None), None);
    // A file from before the count: no tick recorded, nothing to weigh.
    let mut s = samples(&[(0, 0.0), (100, 100.0), (200, 300.0)]);
    s.bound_cpu(1);
    assert_eq!(s.dropped_cpu(None), None);
    // Read back from such a file: the new fields default to 0.
    let old: Samples = serde_json::from_str(r#"{"samples": [], "cpu_user_s": 1.5}"#).unwrap();
    assert_eq!(
        (old.cpu_dropped, old.clock_tick, old.cpus),
        (Duration::ZERO, Duration::ZERO, 0)
    );
}

/// Samples of (ms, tree %, barrage %, per-core busy %).
fn machine(points: &[(u64, f64, Option<f64>, &[f64])]) -> Samples {
    Samples {
        samples: points
            .iter()
            .map(|&(ms, tree, barrage, cores)| Sample {
                t: Duration::from_millis(ms),
                cpu_user_pct: tree,
                cores_busy_pct: cores.to_vec(),
                barrage_cpu_pct: barrage,
                ..Sample::default()
            })
            .collect(),
        ..Samples::default()
    }
}

#[test]
fn outside_cpu_is_the_machine_less_the_tree_and_barrage() {
    let ms = Duration::from_millis;
    // A quiet machine: the cores' busy time is the tree's and barrage's.
    let quiet = machine(&[
        (0, 0.0, Some(0.0), &[0.0, 0.0]),
        (100, 90.0, Some(40.0), &[90.0, 40.0]),
        (200, 100.0, Some(30.0), &[100.0, 30.0]),
    ]);
    assert_eq!(quiet.outside_cpu_pct(ms(0), ms(200)), Some(0.0));
    // Another program takes 60% of a core in the first interval, 20% in the second: 40% on
    // average, the first interval alone 60%.
    let busy = machine(&[
        (0, 0.0, Some(0.0), &[0.0, 0.0]),
        (100, 90.0, Some(40.0), &[100.0, 90.0]),
        (200, 100.0, Some(30.0), &[100.0, 50.0]),
    ]);
    let got = busy.outside_cpu_pct(ms(0), ms(200)).unwrap();
    assert!((got - 40.0).abs() < 1e-9, "{got}");
    let got = busy.outside_cpu_pct(ms(0), ms(100)).unwrap();
    assert!((got - 60.0).abs() < 1e-9, "{got}");
    // A window over the last quarter of the first interval and three quarters of the
    // second: (60 x 25 + 20 x 75) / 100 = 30.
    let got = busy.outside_cpu_pct(ms(75), ms(175)).unwrap();
    assert!((got - 30.0).abs() < 1e-9, "{got}");
    // Rounding of the two clocks that leaves the total below zero reads as 0.
    let under = machine(&[
        (0, 0.0, Some(0.0), &[0.0]),
        (100, 100.0, Some(5.0), &[100.0]),
    ]);
    assert_eq!(under.outside_cpu_pct(ms(0), ms(100)), Some(0.0));
    // No barrage figure (an older file) or no per-core figures: nothing to say.
    let old = machine(&[(0, 0.0, None, &[0.0]), (100, 10.0, None, &[50.0])]);
    assert_eq!(old.outside_cpu_pct(ms(0), ms(100)), None);
    let none = machine(&[(0, 0.0, Some(0.0), &[]), (100, 10.0, Some(1.0), &[])]);
    assert_eq!(none.outside_cpu_pct(ms(0), ms(100)), None);
    // A window outside the samples: none either.
    assert_eq!(busy.outside_cpu_pct(ms(300), ms(400)), None);
}

#[test]
fn a_merged_last_sliver_stays_within_its_values() {
    // The last interval (7 ms) is shorter than half of one: merged into the one before by a
    // weighted mean, which rounding would put at 100.00000000000001% for two busy cores.
    for (prev, last) in [(100, 7), (130, 3), (97, 11), (250, 1)] {
        let mut s = machine(&[
            (0, 0.0, Some(0.0), &[0.0, 0.0]),
            (prev, 100.0, Some(100.0), &[100.0, 100.0]),
            (prev + last, 100.0, Some(100.0), &[100.0, 100.0]),
        ]);
        s.config.interval = Duration::from_millis(100);
        s.bound_cpu(2);
        assert_eq!(s.samples.len(), 2);
        let m = &s.samples[1];
        assert_eq!(m.cores_busy_pct, vec![100.0, 100.0], "{prev} + {last} ms");
        assert_eq!(m.barrage_cpu_pct, Some(100.0));
        assert_eq!(m.cpu_user_pct, 100.0);
    }
}

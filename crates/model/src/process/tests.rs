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
    // (timeline in ms and % of a core, CPUs, timeline after)
    type Case = (&'static [(u64, f64)], usize, &'static [f64]);
    let cases: &[Case] = &[
        // Within the bound: unchanged.
        (&[(0, 0.0), (100, 50.0), (200, 90.0)], 1, &[0.0, 50.0, 90.0]),
        // A reaped child's 0.25 s lands at once (250% on one CPU): moved back where there
        // is room, latest first.
        (
            &[(0, 0.0), (100, 0.0), (200, 0.0), (300, 250.0), (400, 10.0)],
            1,
            &[0.0, 50.0, 100.0, 100.0, 10.0],
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
        ),
        // Two CPUs allow 200%.
        (
            &[(0, 0.0), (100, 50.0), (200, 250.0)],
            2,
            &[0.0, 100.0, 200.0],
        ),
        // A 5 ms sliver at the stop with one tick (10 ms) in it reads as 200%: merged.
        (
            &[(0, 0.0), (100, 80.0), (200, 80.0), (205, 200.0)],
            1,
            &[0.0, 80.0, 85.714286],
        ),
        // No room anywhere: more CPU than the CPUs given could do in the whole timeline is
        // a sampling skew, not work; it is dropped rather than shown over the bound.
        (
            &[(0, 0.0), (100, 100.0), (200, 300.0)],
            1,
            &[0.0, 100.0, 100.0],
        ),
    ];
    for (points, cpus, want) in cases {
        let mut s = samples(points);
        let before = cpu_seconds(&s);
        s.bound_cpu(*cpus);
        assert_eq!(pcts(&s), want.to_vec(), "{points:?}");
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

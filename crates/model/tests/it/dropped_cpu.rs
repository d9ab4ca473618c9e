//! CPU the sampler dropped from a trial's timeline is a study warning when it is more than a
//! clock tick per interval, with the check of the trial's exact total (rusage) against what
//! its CPUs could give; within the allowance (the readings' rounding) there is none.

use barrage_model::process::{
    Exit, MemoryLimitApplied, Outcome, Rusage, Sample, Samples, StopInfo,
};
use barrage_model::study::{
    ContenderInfo, ContenderRole, Point, Results, StudyInfo, Trial, WarningKind,
};
use barrage_model::summary;
use std::time::Duration;

/// A trial whose tree read (ms, % of a core) on one CPU with a 10 ms tick, bounded as the
/// sampler bounds it, and an exit of `rusage_ms` CPU in `wall_ms`.
fn trial(n: u32, points: &[(u64, f64)], rusage_ms: u64, wall_ms: u64) -> Trial {
    let mut s = Samples {
        samples: points
            .iter()
            .map(|&(ms, pct)| Sample {
                t: Duration::from_millis(ms),
                cpu_user_pct: pct,
                ..Sample::default()
            })
            .collect(),
        clock_tick: Duration::from_millis(10),
        ..Samples::default()
    };
    s.bound_cpu(1);
    Trial {
        seq: n as usize,
        contender: "srv".into(),
        trial: n,
        ok: true,
        samples: Some(s),
        exit: Some(Exit {
            outcome: Outcome::Ok,
            termination: None,
            wall: Duration::from_millis(wall_ms),
            rusage: Rusage {
                user: Duration::from_millis(rusage_ms),
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
        }),
        ..Trial::default()
    }
}

fn results(trials: Vec<Trial>) -> Results {
    Results {
        schema: "barrage.study/2".into(),
        study: StudyInfo {
            name: "cpu".into(),
            kind: ContenderRole::Server,
            trials: trials.len() as u32,
            ..StudyInfo::default()
        },
        points: vec![Point::default()],
        contenders: vec![ContenderInfo {
            name: "srv".into(),
            status: "ready".into(),
            ..ContenderInfo::default()
        }],
        trials,
        ..Results::default()
    }
}

fn dropped_warnings(r: &Results) -> Vec<&str> {
    r.warnings
        .iter()
        .filter(|w| w.kind == WarningKind::CpuDropped)
        .map(|w| w.message.as_str())
        .collect()
}

#[test]
fn dropped_cpu_beyond_a_tick_per_interval_is_a_warning_with_the_exact_check() {
    // Trial 1 reads 15 ms too much (within 2 ticks for 2 intervals); trial 2 reads 0.2 s too
    // much on one CPU (300% for 100 ms, no room anywhere), its rusage 0.2 s in 0.25 s: within
    // what the CPU could give, so the readings over-counted.
    let quiet = trial(0, &[(0, 0.0), (100, 100.0), (200, 115.0)], 200, 250);
    let skewed = trial(1, &[(0, 0.0), (100, 100.0), (200, 300.0)], 200, 250);
    let mut r = results(vec![quiet.clone(), skewed]);
    summary::update(&mut r);
    assert_eq!(
        dropped_warnings(&r),
        ["srv: the sampler dropped CPU that fit no interval under the tree's 1 CPU in 1 of 2 trials, more than a clock tick per interval (trial 2: 0.200 s, 0.020 s allowed over 2 intervals): that trial's CPU plot shows less than the tree used; its exact CPU (rusage, 0.200 s) is within what 1 CPU could give in its wall time (0.250 s): the samples counted more CPU than was spent (an accounting error)"]
    );
    // The exact total beyond what the CPU could give: the tree was not held to it.
    let escaped = trial(1, &[(0, 0.0), (100, 100.0), (200, 300.0)], 400, 250);
    let mut r = results(vec![quiet.clone(), escaped]);
    summary::update(&mut r);
    let w = dropped_warnings(&r);
    assert_eq!(w.len(), 1);
    assert!(
        w[0].ends_with("its exact CPU (rusage, 0.400 s) is more than 1 CPU could give in its wall time (0.250 s): the tree was not held to them"),
        "{}",
        w[0]
    );
    // Only rounding: no warning.
    let mut r = results(vec![quiet]);
    summary::update(&mut r);
    assert!(dropped_warnings(&r).is_empty(), "{:?}", r.warnings);
}

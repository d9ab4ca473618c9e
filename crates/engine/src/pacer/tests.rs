//! The pacer against known schedules: constant rates, k6 stages ramping up, holding and down
//! (counts per second and send times computed by hand), workers' shares adding up to the run's
//! schedule, and a property: sending whenever told sends exactly what is due, never early.

use super::*;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn constant(rate: f64, workers: usize, index: usize) -> Pacer {
    Pacer::split(Rate::Constant(rate), workers, index)
}

fn stages(s: &[(u64, f64)]) -> Arc<Stages> {
    let v: Vec<(Duration, f64)> = s.iter().map(|&(m, r)| (ms(m), r)).collect();
    Arc::new(Stages::new(&v))
}

#[test]
fn table() {
    let p = constant(100.0, 1, 0);
    let cases = [
        (ms(0), 0, Pace::SendNow { intended: ms(0) }),
        (ms(0), 1, Pace::WaitUntil(ms(10))),
        (ms(9), 1, Pace::WaitUntil(ms(10))),
        (ms(10), 1, Pace::SendNow { intended: ms(10) }),
        (ms(55), 1, Pace::SendNow { intended: ms(10) }),
        (ms(55), 5, Pace::SendNow { intended: ms(50) }),
        (ms(55), 6, Pace::WaitUntil(ms(60))),
        (ms(1000), 100, Pace::SendNow { intended: ms(1000) }),
    ];
    for (elapsed, sent, want) in cases {
        assert_eq!(p.next(elapsed, sent), want, "{elapsed:?} {sent}");
    }
}

#[test]
fn a_worker_share_with_its_phase() {
    // 1 request/s over 2 workers: worker 1 sends the run's requests 1, 3, 5, ... at 1 s, 3 s, ...
    let p = constant(1.0, 2, 1);
    assert_eq!(p.next(ms(0), 0), Pace::WaitUntil(ms(1000)));
    assert_eq!(p.next(ms(1000), 0), Pace::SendNow { intended: ms(1000) });
    assert_eq!(p.next(ms(1000), 1), Pace::WaitUntil(ms(3000)));
    assert_eq!(p.due(ms(999)), 0);
    assert_eq!(p.due(ms(1000)), 1);
    assert_eq!(p.due(ms(3000)), 2);
}

#[test]
fn split_interleaves_and_sums() {
    let ps: Vec<Pacer> = (0..4).map(|i| constant(1000.0, 4, i)).collect();
    let mut times: Vec<Duration> = ps
        .iter()
        .flat_map(|p| (0..250).map(|k| p.intended(k).unwrap()))
        .collect();
    times.sort();
    // All 1000 sends of one second, one per millisecond.
    assert_eq!(times.len(), 1000);
    for (i, t) in times.iter().enumerate() {
        let want = i as f64 / 1000.0;
        assert!((t.as_secs_f64() - want).abs() < 1e-9, "{i}: {t:?}");
    }
    let due: u64 = ps.iter().map(|p| p.due(Duration::from_secs(10))).sum();
    assert_eq!(due, 10_001);
}

#[test]
fn stages_ramp_hold_and_end() {
    // The example: 2 s from 0 to 1000 req/s, then 2 s at 1000: 3,000 requests, 250,
    // 750, 1000 and 1000 in the four seconds.
    let s = stages(&[(2000, 1000.0), (2000, 1000.0)]);
    assert_eq!(s.duration(), ms(4000));
    assert!((s.total() - 3000.0).abs() < 1e-9);
    let per_second: Vec<f64> = (0..4)
        .map(|i| s.count(f64::from(i + 1)) - s.count(f64::from(i)))
        .collect();
    for (got, want) in per_second.iter().zip([250.0, 750.0, 1000.0, 1000.0]) {
        assert!((got - want).abs() < 1e-9, "{per_second:?}");
    }
    // On the ramp N(t) = 250 t^2, so request n is due at sqrt(n / 250).
    for (n, t) in [
        (0.0, 0.0),
        (250.0, 1.0),
        (1000.0, 2.0),
        (2000.0, 3.0),
        (2999.0, 3.999),
    ] {
        let got = s.time_of(n).unwrap();
        assert!((got - t).abs() < 1e-9, "n {n}: {got} != {t}");
    }
    assert_eq!(s.time_of(3000.0), None, "nothing after the last stage");
    assert!((s.rate_at(0.5) - 250.0).abs() < 1e-9);
    assert!((s.rate_at(3.0) - 1000.0).abs() < 1e-9);
    assert_eq!(s.rate_at(4.0), 0.0);
    let p = Pacer::split(Rate::Stages(s), 1, 0);
    assert_eq!(p.due(ms(60_000)), 3000);
    assert_eq!(p.next(ms(60_000), 3000), Pace::Done);
    assert_eq!(p.due(ms(1000)), 251, "requests 0..=250");
}

#[test]
fn a_ramp_down_solves_the_falling_quadratic() {
    // 1 s up to 100 req/s, 1 s down to 0: 50 + 50 requests. Request 75 is due when
    // 50 + 100 x - 50 x^2 = 75, x = 1 - sqrt(1/2).
    let s = stages(&[(1000, 100.0), (1000, 0.0)]);
    assert!((s.total() - 100.0).abs() < 1e-9);
    let t = s.time_of(75.0).unwrap();
    assert!((t - (2.0 - 0.5f64.sqrt())).abs() < 1e-9, "{t}");
    // A stage at 0 after one at 0 makes nothing due.
    let s = stages(&[(1000, 0.0), (1000, 10.0)]);
    assert!((s.time_of(0.0).unwrap() - 1.0).abs() < 1e-9);
    assert!((s.total() - 5.0).abs() < 1e-9);
}

#[test]
fn stage_shares_add_up_to_the_schedule() {
    let s = stages(&[(1500, 400.0), (1000, 400.0), (500, 0.0)]);
    let total = s.total().ceil() as usize;
    let mut times: Vec<f64> = (0..3)
        .flat_map(|i| {
            let p = Pacer::split(Rate::Stages(s.clone()), 3, i);
            (0..)
                .map_while(move |k| p.intended(k))
                .map(|d| d.as_secs_f64())
        })
        .collect();
    times.sort_by(f64::total_cmp);
    assert_eq!(times.len(), total);
    for (n, t) in times.iter().enumerate() {
        assert!((t - s.time_of(n as f64).unwrap()).abs() < 1e-9);
    }
}

proptest::proptest! {
    /// Sending whenever the pacer says so sends exactly the schedule's count, never early.
    #[test]
    fn sends_match_the_schedule(
        rate in 0.1f64..100_000.0,
        workers in 1usize..4,
        ms_ in 0u64..5_000,
        staged in proptest::bool::ANY,
    ) {
        let r = if staged {
            Rate::Stages(stages(&[(700, rate), (900, rate / 3.0), (400, rate)]))
        } else {
            Rate::Constant(rate)
        };
        let elapsed = Duration::from_millis(ms_);
        for index in 0..workers {
            let p = Pacer::split(r.clone(), workers, index);
            let mut sent = 0u64;
            while let Pace::SendNow { intended } = p.next(elapsed, sent) {
                proptest::prop_assert!(intended <= elapsed);
                sent += 1;
                proptest::prop_assert!(sent <= 1_000_000);
            }
            let due = p.due(elapsed);
            // Float rounding may put one send on either side of an exact boundary.
            proptest::prop_assert!(sent.abs_diff(due) <= 1, "sent {} due {}", sent, due);
        }
    }
}

//! Open-loop pacing: a pure schedule of intended send times.
//!
//! Request `k` of a worker is due at `(k + phase) / rate` seconds after the schedule's start. The
//! pacer never looks at how the target is doing: when the worker falls behind (all connections
//! busy, or the generator too slow), the due requests go out as soon as possible with their
//! original intended times, so the lateness shows in the corrected latencies instead of the rate
//! quietly dropping (the coordinated-omission correction of wrk2).

use std::time::Duration;

/// One worker's share of the schedule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pacer {
    /// Requests per second for this worker.
    pub rate: f64,
    /// Offset of this worker's schedule in units of its own interval, in [0, 1), so that several
    /// workers interleave their sends instead of firing together.
    pub phase: f64,
}

/// What the pacer says to do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// Request number `sent` is due (or overdue); it was intended to go out at `intended`.
    SendNow { intended: Duration },
    /// Nothing is due before this time.
    WaitUntil(Duration),
}

impl Pacer {
    /// Splits a total rate over `workers` workers; worker `index` gets an equal share with its
    /// own phase.
    pub fn split(total_rate: f64, workers: usize, index: usize) -> Pacer {
        let workers = workers.max(1);
        Pacer {
            rate: total_rate / workers as f64,
            phase: index as f64 / workers as f64,
        }
    }

    /// When request number `k` (counting from 0) is due, measured from the schedule's start.
    pub fn intended(&self, k: u64) -> Duration {
        Duration::from_secs_f64((k as f64 + self.phase) / self.rate)
    }

    /// Given the time since the start and how many requests went out, what to do now.
    pub fn next(&self, elapsed: Duration, sent: u64) -> Pace {
        let intended = self.intended(sent);
        if intended <= elapsed {
            Pace::SendNow { intended }
        } else {
            Pace::WaitUntil(intended)
        }
    }

    /// How many requests are due by `elapsed` (the schedule's count, not what was sent).
    pub fn due(&self, elapsed: Duration) -> u64 {
        let x = elapsed.as_secs_f64() * self.rate - self.phase;
        if x < 0.0 {
            0
        } else {
            x.floor() as u64 + 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn table() {
        let p = Pacer {
            rate: 100.0,
            phase: 0.0,
        };
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
    fn fractional_rate_and_phase() {
        let p = Pacer {
            rate: 0.5,
            phase: 0.5,
        };
        assert_eq!(p.next(ms(0), 0), Pace::WaitUntil(ms(1000)));
        assert_eq!(p.next(ms(1000), 0), Pace::SendNow { intended: ms(1000) });
        assert_eq!(p.next(ms(1000), 1), Pace::WaitUntil(ms(3000)));
        assert_eq!(p.due(ms(999)), 0);
        assert_eq!(p.due(ms(1000)), 1);
        assert_eq!(p.due(ms(3000)), 2);
    }

    #[test]
    fn split_interleaves_and_sums() {
        let total = 1000.0;
        let ps: Vec<Pacer> = (0..4).map(|i| Pacer::split(total, 4, i)).collect();
        let mut times: Vec<Duration> = ps
            .iter()
            .flat_map(|p| (0..250).map(|k| p.intended(k)))
            .collect();
        times.sort();
        // All 1000 sends of one second, one per millisecond.
        assert_eq!(times.len(), 1000);
        for (i, t) in times.iter().enumerate() {
            let want = i as f64 / total;
            assert!((t.as_secs_f64() - want).abs() < 1e-9, "{i}: {t:?}");
        }
        let due: u64 = ps.iter().map(|p| p.due(Duration::from_secs(10))).sum();
        assert_eq!(due, 10_001);
    }

    proptest::proptest! {
        /// Sending whenever the pacer says so sends exactly the schedule's count, never early.
        #[test]
        fn sends_match_the_schedule(rate in 0.1f64..100_000.0, phase in 0.0f64..1.0, ms in 0u64..5_000) {
            let p = Pacer { rate, phase };
            let elapsed = Duration::from_millis(ms);
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

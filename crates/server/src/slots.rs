//! Service slots: `--concurrency N` makes the server behave like an application server with N
//! request threads. A `/sleep/MS` holds one slot for MS milliseconds; when every slot is held, a
//! new sleep waits its turn (first come, first served) and its answer comes MS after a slot
//! frees, as a request queued in front of N busy threads would. Answers that take no time
//! (everything but `/sleep`) never wait.
//!
//! Pure: the caller passes the time and gets back when the answer is due, so the schedule is
//! table-tested without a clock. A queued request keeps its slot even if its client goes away,
//! as a thread already running a handler would.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

/// When each of N slots frees (a min-heap of N instants).
#[derive(Debug)]
pub(crate) struct Slots {
    free_at: BinaryHeap<Reverse<Instant>>,
}

impl Slots {
    /// `n` slots, all free. `n` is at least 1 (checked by the config).
    pub(crate) fn new(n: usize, now: Instant) -> Self {
        Slots {
            free_at: (0..n.max(1)).map(|_| Reverse(now)).collect(),
        }
    }

    /// A request arriving at `now` that holds a slot for `hold`: when its answer is due.
    pub(crate) fn admit(&mut self, now: Instant, hold: Duration) -> Instant {
        let Some(mut first) = self.free_at.peek_mut() else {
            return now + hold;
        };
        let start = first.0.max(now);
        first.0 = start + hold;
        start + hold
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Slots; requests as (arrival ms, hold ms); when each answer is due (ms).
    type Case = (usize, &'static [(u64, u64)], &'static [u64]);

    /// (arrival ms, hold ms) -> answer due (ms), for 1 and 2 slots.
    #[test]
    fn requests_wait_for_the_first_free_slot_in_arrival_order() {
        let cases: &[Case] = &[
            // One slot: three 100 ms sleeps arriving together are answered at 100, 200, 300.
            (1, &[(0, 100), (0, 100), (0, 100)], &[100, 200, 300]),
            // One slot, idle in between: a late arrival does not wait.
            (1, &[(0, 100), (250, 100)], &[100, 350]),
            // One slot, arrival while busy: waits for the first to finish.
            (1, &[(0, 100), (30, 10)], &[100, 110]),
            // Two slots: two run at once, the third takes the first slot to free.
            (2, &[(0, 100), (0, 50), (0, 100)], &[100, 50, 150]),
            // Zero-length holds never wait on an idle server.
            (1, &[(0, 0), (0, 0)], &[0, 0]),
        ];
        for (n, reqs, due) in cases {
            let t0 = Instant::now();
            let mut s = Slots::new(*n, t0);
            let got: Vec<u64> = reqs
                .iter()
                .map(|&(at, hold)| {
                    let d = s.admit(t0 + Duration::from_millis(at), Duration::from_millis(hold));
                    (d - t0).as_millis() as u64
                })
                .collect();
            assert_eq!(&got, due, "{n} slots, requests {reqs:?}");
        }
    }
}

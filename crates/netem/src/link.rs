//! The link itself, without I/O: a packet of `len` bytes offered at time `now` (nanoseconds on
//! the emulator's clock) is either dropped or released at a time the link decides. One [`Link`]
//! per direction.
//!
//! The model, in the order a packet meets it:
//! 1. **Queue** (rate only): the packet waits for the serialiser behind what is already queued;
//!    if the bytes waiting plus its own exceed the queue, it is dropped (tail drop, like a
//!    router's buffer or tbf's `limit`).
//! 2. **Serialisation** (rate only): it takes `len * 8 / rate` seconds on the wire, after the
//!    packet before it.
//! 3. **Loss**: dropped with probability `loss` (after using its slot on the wire, as a packet
//!    corrupted on the path does).
//! 4. **Propagation**: released `delay` plus a uniform jitter in `[-jitter, +jitter]` later, but
//!    never before the packet in front of it: jitter varies the delay without reordering (a
//!    path is one queue).
//!
//! Random draws come from a seeded SplitMix64, two per packet whatever the outcome, so a seed
//! gives the same drops and delays for the same packets.

use barrage_model::rng::SplitMix64;

/// One direction's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkConfig {
    /// One-way delay, ns.
    pub delay_ns: u64,
    /// Uniform jitter around the delay, +- ns.
    pub jitter_ns: u64,
    /// Bits per second; None: unlimited (no serialisation, no queue).
    pub rate_bps: Option<u64>,
    /// Drop probability, 0 to 1.
    pub loss: f64,
    /// Bytes that may wait for the serialiser (rate only).
    pub queue_bytes: u64,
    pub seed: u64,
}

impl Default for LinkConfig {
    fn default() -> LinkConfig {
        LinkConfig {
            delay_ns: 0,
            jitter_ns: 0,
            rate_bps: None,
            loss: 0.0,
            queue_bytes: DEFAULT_QUEUE_PACKETS * 1500,
            seed: 0,
        }
    }
}

/// The default queue, in packets of the MTU (netem's default `limit`).
pub const DEFAULT_QUEUE_PACKETS: u64 = 1000;

/// What becomes of one packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Released at this time (ns), never earlier than the previous packet's release.
    Deliver(u64),
    /// Dropped by `loss`.
    Lost,
    /// Dropped because the queue was full.
    QueueFull,
}

/// One direction of the link.
#[derive(Debug, Clone)]
pub struct Link {
    cfg: LinkConfig,
    rng: SplitMix64,
    /// When the serialiser is free again.
    busy_until: u64,
    /// The last release time given (releases never go back).
    last_release: u64,
}

impl Link {
    pub fn new(cfg: LinkConfig) -> Link {
        Link {
            rng: SplitMix64(cfg.seed),
            cfg,
            busy_until: 0,
            last_release: 0,
        }
    }

    pub fn config(&self) -> &LinkConfig {
        &self.cfg
    }

    /// Offers a packet of `len` bytes at `now`; times are ns on one monotonic clock.
    pub fn send(&mut self, now: u64, len: usize) -> Verdict {
        let len = len as u64;
        let (lose, spread) = (self.rng.unit(), self.rng.unit());
        let depart = match self.cfg.rate_bps {
            None => now,
            Some(rate) => {
                let waiting_ns = self.busy_until.saturating_sub(now);
                let waiting = (u128::from(waiting_ns) * u128::from(rate) / 8_000_000_000) as u64;
                if waiting + len > self.cfg.queue_bytes {
                    return Verdict::QueueFull;
                }
                let wire = (u128::from(len) * 8_000_000_000).div_ceil(u128::from(rate)) as u64;
                self.busy_until = self.busy_until.max(now) + wire;
                self.busy_until
            }
        };
        if self.cfg.loss > 0.0 && lose < self.cfg.loss {
            return Verdict::Lost;
        }
        let j = self.cfg.jitter_ns as f64;
        let offset = ((spread * 2.0 - 1.0) * j).round() as i64;
        let delay = (self.cfg.delay_ns as i64 + offset).max(0) as u64;
        let at = (depart + delay).max(self.last_release);
        self.last_release = at;
        Verdict::Deliver(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn link(cfg: LinkConfig) -> Link {
        Link::new(cfg)
    }

    #[test]
    fn delay_only() {
        let mut l = link(LinkConfig {
            delay_ns: 50 * MS,
            ..LinkConfig::default()
        });
        // (offered at, len) -> verdict
        let cases = [
            (0, 100, Verdict::Deliver(50 * MS)),
            (10, 1500, Verdict::Deliver(50 * MS + 10)),
            (5 * MS, 64, Verdict::Deliver(55 * MS)),
            (5 * MS, 64, Verdict::Deliver(55 * MS)),
        ];
        for (i, (now, len, want)) in cases.into_iter().enumerate() {
            assert_eq!(l.send(now, len), want, "packet {i}");
        }
    }

    #[test]
    fn rate_serialises_and_queues() {
        // 1500 B at 12 Mbit/s = 1 ms on the wire; a queue of three packets.
        let mut l = link(LinkConfig {
            delay_ns: 10 * MS,
            rate_bps: Some(12_000_000),
            queue_bytes: 4500,
            ..LinkConfig::default()
        });
        let cases = [
            // A burst at t=0: each waits for the one before.
            (0, 1500, Verdict::Deliver(11 * MS)),
            (0, 1500, Verdict::Deliver(12 * MS)),
            (0, 1500, Verdict::Deliver(13 * MS)),
            // 4500 B are waiting now: the queue is full.
            (0, 1500, Verdict::QueueFull),
            // Half a millisecond later 3750 B wait: a 750 B packet fits, a second does not.
            (MS / 2, 750, Verdict::Deliver(13 * MS + MS / 2)),
            (MS / 2, 750, Verdict::QueueFull),
            // After the burst has left, the link is idle: only its own 1 ms.
            (20 * MS, 1500, Verdict::Deliver(31 * MS)),
        ];
        for (i, (now, len, want)) in cases.into_iter().enumerate() {
            assert_eq!(l.send(now, len), want, "packet {i}");
        }
    }

    #[test]
    fn loss_is_seeded_and_near_its_rate() {
        let cfg = LinkConfig {
            loss: 0.1,
            seed: 7,
            ..LinkConfig::default()
        };
        let run = |cfg| {
            let mut l = link(cfg);
            (0..100_000u64)
                .map(|i| l.send(i, 100) == Verdict::Lost)
                .collect::<Vec<_>>()
        };
        let a = run(cfg);
        assert_eq!(a, run(cfg), "same seed, same drops");
        let lost = a.iter().filter(|x| **x).count();
        assert!((9_500..10_500).contains(&lost), "{lost}");
        assert_ne!(a, run(LinkConfig { seed: 8, ..cfg }));
        let mut all = link(LinkConfig {
            loss: 1.0,
            ..LinkConfig::default()
        });
        assert_eq!(all.send(0, 1), Verdict::Lost);
    }

    #[test]
    fn jitter_spreads_the_delay_without_reordering() {
        let mut l = link(LinkConfig {
            delay_ns: 20 * MS,
            jitter_ns: 5 * MS,
            seed: 1,
            ..LinkConfig::default()
        });
        let mut last = 0;
        let (mut lo, mut hi) = (u64::MAX, 0);
        for i in 0..10_000u64 {
            let now = i * 10 * MS;
            let Verdict::Deliver(at) = l.send(now, 100) else {
                panic!("no loss configured")
            };
            assert!(at >= last, "reordered at packet {i}");
            last = at;
            lo = lo.min(at - now);
            hi = hi.max(at - now);
        }
        assert!((15 * MS..15 * MS + MS / 10).contains(&lo), "{lo}");
        assert!((25 * MS - MS / 10 + 1..=25 * MS).contains(&hi), "{hi}");
        // Back to back, a packet drawn short waits for the one in front.
        let mut l = link(LinkConfig {
            delay_ns: 20 * MS,
            jitter_ns: 20 * MS,
            seed: 3,
            ..LinkConfig::default()
        });
        let ats: Vec<u64> = (0..1000u64)
            .map(|i| match l.send(i, 100) {
                Verdict::Deliver(at) => at,
                v => panic!("{v:?}"),
            })
            .collect();
        assert!(ats.windows(2).all(|w| w[0] <= w[1]));
        assert!(ats.iter().all(|&a| a <= 40 * MS + 1000));
    }
}

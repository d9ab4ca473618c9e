//! A point's emulated network (a study's `[network]`, resolved) and what the link emulator did
//! in one trial, with the judgement of whether it kept up. No I/O: the lab's emulator
//! (`barrage-netem`) measures, this module declares and judges.

use crate::units::{format_duration, Loss, Rate};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;

/// The link between the contender and the load side, the same each way.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Network {
    /// One-way delay (half the study's `rtt`), seconds.
    #[serde(rename = "delay_s", with = "crate::units::secs")]
    pub delay: Duration,
    /// Each packet's delay varies uniformly within +-jitter (order kept), seconds.
    #[serde(rename = "jitter_s", with = "crate::units::secs")]
    pub jitter: Duration,
    /// Link rate each way (packets are paced by their size); none: unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Probability that a packet is dropped, each way.
    pub loss: Loss,
    /// MTU of both ends (none: the TUN default, 1500).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mtu: Option<u32>,
    /// Bytes that may wait for the rate's serialiser each way before tail drop (rate only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue: Option<u64>,
}

impl Network {
    /// The round trip the link adds (twice the one-way delay).
    pub fn rtt(&self) -> Duration {
        self.delay * 2
    }
}

/// Short and complete: "rtt 100ms +-5ms, 200mbit, loss 1%, mtu 1400".
impl fmt::Display for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rtt {}", format_duration(self.rtt()))?;
        if !self.jitter.is_zero() {
            write!(f, " ±{}", format_duration(self.jitter))?;
        }
        if let Some(r) = self.rate {
            write!(f, ", {r}")?;
        }
        if self.loss.0 > 0.0 {
            write!(f, ", loss {}", self.loss)?;
        }
        if let Some(m) = self.mtu {
            write!(f, ", mtu {m}")?;
        }
        if let Some(q) = self.queue {
            write!(f, ", queue {q} B")?;
        }
        Ok(())
    }
}

/// What a point ran on, for tables and the report's first screen: its link and the path that
/// emulated it ("rtt 50ms, 200mbit (tun)"), or "loopback". None when no point of the study has
/// a network (the study ran on loopback throughout and nothing needs saying).
pub fn point_text(r: &crate::study::Results, point: usize) -> Option<String> {
    if r.points.iter().all(|p| p.network.is_none()) {
        return None;
    }
    let p = r.points.iter().find(|p| p.id == point)?;
    let Some(n) = &p.network else {
        return Some("loopback".into());
    };
    let mut paths: Vec<&str> = r
        .trials
        .iter()
        .filter(|t| t.point == point)
        .filter_map(|t| t.network.as_ref().map(|n| n.path.as_str()))
        .collect();
    paths.sort_unstable();
    paths.dedup();
    Some(if paths.is_empty() {
        n.to_string()
    } else {
        format!("{n} ({})", paths.join(", "))
    })
}

/// The lines the report's first screen opens with: one when every point ran on the same
/// network, else one per point; none for a study on loopback throughout.
pub fn summary_lines(r: &crate::study::Results) -> Vec<String> {
    let texts: Vec<(String, String)> = r
        .points
        .iter()
        .filter_map(|p| point_text(r, p.id).map(|t| (p.label.clone(), t)))
        .collect();
    match texts.first() {
        None => Vec::new(),
        Some((_, first)) if texts.iter().all(|(_, t)| t == first) => {
            vec![format!("Network: {first}, every point.")]
        }
        Some(_) => texts
            .into_iter()
            .map(|(label, t)| {
                let at = if label.is_empty() {
                    "the point".into()
                } else {
                    label
                };
                format!("Network at {at}: {t}.")
            })
            .collect(),
    }
}

/// The only path barrage has today: its own emulator between two TUN devices.
pub const PATH_TUN: &str = "tun";

/// What the link emulator did during one trial.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct NetworkRun {
    /// How the link was emulated: "tun" (barrage's emulator) or "netem" (the kernel's qdisc).
    pub path: String,
    /// CPUs the emulator thread was pinned to (none: not pinned).
    pub cpus: Option<Vec<usize>>,
    /// The emulator thread's CPU over the link's life, seconds, and that as % of one CPU.
    pub cpu_s: f64,
    pub cpu_pct: f64,
    /// Its busiest second, % of one CPU.
    pub peak_cpu_pct: f64,
    /// Packets offered to the link (both ways) and their bytes (IP packets).
    pub packets: u64,
    pub bytes: u64,
    /// Dropped by `loss`, and by a full queue (rate only).
    pub dropped_loss: u64,
    pub dropped_queue: u64,
    /// How late packets left compared with the time the link meant them to (the emulator's own
    /// accuracy), microseconds.
    pub late_p50_us: f64,
    pub late_p99_us: f64,
    pub late_max_us: f64,
    /// The emulator could not keep up: its figures are the link's, not the contender's.
    pub saturated: bool,
    pub reasons: Vec<String>,
}

/// Busiest-second CPU at which the emulator counts as saturated (% of its one CPU).
pub const SATURATED_CPU_PCT: f64 = 90.0;
/// Lateness p99 that counts as not keeping up: this, or [`LATE_SHARE`] of the one-way delay if
/// that is more. (An idle emulator wakes ~50 µs late; a busy shared machine stalls it for a
/// millisecond now and then, which a short trial's few hundred packets put into its p99.)
pub const LATE_P99_US: f64 = 1000.0;
pub const LATE_SHARE: f64 = 0.05;

impl NetworkRun {
    /// Decides `saturated` and its `reasons` from the figures, for the link `net`.
    pub fn judge(&mut self, net: &Network) {
        self.reasons.clear();
        if self.peak_cpu_pct >= SATURATED_CPU_PCT {
            self.reasons.push(format!(
                "the link emulator used {:.0}% of its CPU in its busiest second",
                self.peak_cpu_pct
            ));
        }
        let late_limit = LATE_P99_US.max(LATE_SHARE * net.delay.as_secs_f64() * 1e6);
        if self.late_p99_us > late_limit {
            self.reasons.push(format!(
                "packets left the emulated link late (p99 {:.0} µs, max {:.0} µs, limit {:.0} µs)",
                self.late_p99_us, self.late_max_us, late_limit
            ));
        }
        self.saturated = !self.reasons.is_empty();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_the_link() {
        let mut n = Network {
            delay: Duration::from_millis(50),
            ..Network::default()
        };
        assert_eq!(n.to_string(), "rtt 100ms");
        n.jitter = Duration::from_millis(5);
        n.rate = Some(Rate(200_000_000));
        n.loss = Loss(0.01);
        n.mtu = Some(1400);
        assert_eq!(n.to_string(), "rtt 100ms ±5ms, 200mbit, loss 1%, mtu 1400");
        let json = serde_json::to_string(&n).unwrap();
        assert_eq!(
            json,
            r#"{"delay_s":0.05,"jitter_s":0.005,"rate":"200mbit","loss":"1%","mtu":1400}"#
        );
        assert_eq!(serde_json::from_str::<Network>(&json).unwrap(), n);
    }

    #[test]
    fn says_which_network_each_point_ran_on() {
        use crate::study::{Point, Results, Trial};
        let net = Network {
            delay: Duration::from_millis(25),
            ..Network::default()
        };
        let point = |id: usize, label: &str, network: Option<Network>| Point {
            id,
            label: label.into(),
            network,
            ..Point::default()
        };
        let mut r = Results {
            points: vec![point(0, "lo", None), point(1, "wan", Some(net.clone()))],
            ..Results::default()
        };
        assert_eq!(point_text(&r, 0).as_deref(), Some("loopback"));
        assert_eq!(point_text(&r, 1).as_deref(), Some("rtt 50ms"));
        r.trials.push(Trial {
            point: 1,
            network: Some(NetworkRun {
                path: PATH_TUN.into(),
                ..NetworkRun::default()
            }),
            ..Trial::default()
        });
        assert_eq!(
            summary_lines(&r),
            [
                "Network at lo: loopback.",
                "Network at wan: rtt 50ms (tun)."
            ]
        );
        r.points[0].network = Some(net);
        r.points.truncate(1);
        r.points[0].label.clear();
        assert_eq!(summary_lines(&r), ["Network: rtt 50ms, every point."]);
        r.points[0].network = None;
        assert!(summary_lines(&r).is_empty());
        assert_eq!(point_text(&r, 0), None);
    }

    #[test]
    fn judges_saturation() {
        let net = Network {
            delay: Duration::from_millis(50),
            ..Network::default()
        };
        let cases = [
            // (peak cpu %, late p99 µs, saturated, reasons)
            (20.0, 100.0, false, 0),
            (95.0, 100.0, true, 1),
            // 5% of 50 ms is 2.5 ms.
            (20.0, 2000.0, false, 0),
            (20.0, 3000.0, true, 1),
            (99.0, 3000.0, true, 2),
        ];
        for (cpu, late, sat, n) in cases {
            let mut r = NetworkRun {
                peak_cpu_pct: cpu,
                late_p99_us: late,
                ..NetworkRun::default()
            };
            r.judge(&net);
            assert_eq!((r.saturated, r.reasons.len()), (sat, n), "{cpu} {late}");
        }
        // Without delay the floor is 1 ms.
        let mut r = NetworkRun {
            late_p99_us: 1100.0,
            ..NetworkRun::default()
        };
        r.judge(&Network::default());
        assert!(r.saturated);
    }
}

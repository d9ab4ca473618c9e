//! A busy machine: CPU that other programs took while a trial was measured, judged against the
//! study's bound. The sampler records the machine's cores and barrage's own CPU beside the
//! contender's tree ([`crate::process::Samples::outside_cpu_pct`]); this module holds what a
//! trial records of it, the study's policy and the words the warnings use.

use serde::{Deserialize, Serialize};

/// The default bound: 10% of one core outside the contender and barrage, on average over the
/// measured window. An idle Linux machine uses well under 1% (timers, the sampler's neighbours);
/// a compiler or a browser tab beside a study takes tens of percent.
pub const DEFAULT_LIMIT_PCT: f64 = 10.0;

/// How many times [`OnBusy::Retry`] runs a trial again before it fails it as busy.
pub const RETRIES: u32 = 3;

/// What a study does with a trial measured on a busy machine.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnBusy {
    /// Keep it, flagged, and warn (the default).
    #[default]
    Warn,
    /// Discard it and run it again (after waiting for a quiet second), at most [`RETRIES`]
    /// times; still busy after that, it fails as `machine_busy`.
    Retry,
    /// Fail it as `machine_busy` (not credited) at once.
    Fail,
}

impl OnBusy {
    pub fn as_str(self) -> &'static str {
        match self {
            OnBusy::Warn => "warn",
            OnBusy::Retry => "retry",
            OnBusy::Fail => "fail",
        }
    }

    /// The policy named `s` (`warn`, `retry`, `fail`).
    pub fn parse(s: &str) -> Option<OnBusy> {
        [OnBusy::Warn, OnBusy::Retry, OnBusy::Fail]
            .into_iter()
            .find(|o| o.as_str() == s)
    }
}

/// What a trial records of the machine outside the contender and barrage.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OutsideCpu {
    /// Machine-wide CPU outside the contender's tree and barrage's process over the measured
    /// window, average % of one core.
    pub cpu_pct: f64,
    /// The bound it was judged against, % of one core.
    pub limit_pct: f64,
    /// `cpu_pct` above `limit_pct`.
    pub busy: bool,
    /// Attempts of this trial discarded as busy before it (`on_busy = "retry"`): the outside
    /// CPU of each, % of one core.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub discarded_pct: Vec<f64>,
}

impl OutsideCpu {
    /// The record of one measurement against `limit_pct`.
    pub fn judge(cpu_pct: f64, limit_pct: f64) -> OutsideCpu {
        OutsideCpu {
            cpu_pct,
            limit_pct,
            busy: cpu_pct > limit_pct,
            discarded_pct: Vec::new(),
        }
    }

    /// The finding in words: "other programs used 34% of a core (bound 10%)".
    pub fn describe(&self) -> String {
        format!(
            "other programs used {:.0}% of a core on average while it was measured (bound {:.0}%)",
            self.cpu_pct, self.limit_pct
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judged_strictly_above_the_bound() {
        assert!(!OutsideCpu::judge(10.0, 10.0).busy);
        assert!(OutsideCpu::judge(10.5, 10.0).busy);
        assert!(!OutsideCpu::judge(0.0, 0.5).busy);
        assert_eq!(
            OutsideCpu::judge(34.4, 10.0).describe(),
            "other programs used 34% of a core on average while it was measured (bound 10%)"
        );
        for o in [OnBusy::Warn, OnBusy::Retry, OnBusy::Fail] {
            assert_eq!(OnBusy::parse(o.as_str()), Some(o));
            let json = serde_json::to_string(&o).unwrap();
            assert_eq!(json, format!("\"{}\"", o.as_str()));
        }
        assert_eq!(OnBusy::parse("refuse"), None);
    }
}

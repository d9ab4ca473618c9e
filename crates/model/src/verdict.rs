//! Which side limited a server trial: barrage's load generator, the contender, both or neither,
//! decided from evidence on both sides rather than from the generator alone.
//!
//! The rule (a side is *saturated* when it used at least [`SATURATED`] of the CPUs it was given
//! over the load):
//!
//! | generator saturated or late | contender saturated | verdict |
//! |---|---|---|
//! | yes | no  | the generator was the bottleneck: the figures measure barrage |
//! | yes | yes | both saturated: the contender ran at its CPU budget, so its figures stand, but barrage could not have pushed harder |
//! | no  | yes | the contender was the bottleneck (what a study wants) |
//! | no  | no  | neither CPU-bound (latency-, I/O- or connection-bound) |
//!
//! "Late" is the open-loop engine's own finding: more than 1% of sends went out late although a
//! connection was free. Without a CPU figure for the contender (no samples), the generator's side
//! decides alone.

use serde::{Deserialize, Serialize};

/// Fraction of its CPUs at which a side counts as saturated.
pub const SATURATED: f64 = 0.90;

/// The verdict of one trial.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    Generator,
    Both,
    Contender,
    #[default]
    Neither,
}

/// What each side used.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evidence {
    /// barrage's CPU over the load as a fraction of its generator capacity (1.0 = all of it).
    pub generator_cpu: f64,
    /// Open-loop sends late by the generator's own fault.
    pub generator_late: bool,
    /// The contender's tree CPU over the measured window as a fraction of the CPUs it was given.
    pub contender_cpu: Option<f64>,
}

/// Decides the verdict (see the module's table).
pub fn decide(e: &Evidence) -> Limit {
    let generator = e.generator_cpu >= SATURATED || e.generator_late;
    let contender = e.contender_cpu.is_some_and(|c| c >= SATURATED);
    match (generator, contender) {
        (true, false) => Limit::Generator,
        (true, true) => Limit::Both,
        (false, true) => Limit::Contender,
        (false, false) => Limit::Neither,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_table() {
        let e = |g: f64, late: bool, c: Option<f64>| Evidence {
            generator_cpu: g,
            generator_late: late,
            contender_cpu: c,
        };
        let cases = [
            // barrage serve at keep-alive c=8: both at their one core.
            (e(0.97, false, Some(0.97)), Limit::Both),
            // A slow server: generator idle, server at its core.
            (e(0.30, false, Some(0.99)), Limit::Contender),
            // A fast server at 60% of its core while barrage is at 95%: barrage limits.
            (e(0.95, false, Some(0.60)), Limit::Generator),
            // Latency-bound: neither side busy.
            (e(0.20, false, Some(0.15)), Limit::Neither),
            // Open loop, sends late by the generator's fault, server idle.
            (e(0.50, true, Some(0.40)), Limit::Generator),
            // No samples: the generator decides alone.
            (e(0.92, false, None), Limit::Generator),
            (e(0.50, false, None), Limit::Neither),
            // The threshold is inclusive.
            (e(0.90, false, Some(0.89)), Limit::Generator),
            (e(0.89, false, Some(0.90)), Limit::Contender),
        ];
        for (ev, want) in cases {
            assert_eq!(decide(&ev), want, "{ev:?}");
        }
    }
}

//! The closed lists of names a results document writes as strings (a failure's kind, a warning's
//! kind, what a comparison row is between, the study's and a contender's status): typed enums,
//! serialised as the same snake_case strings as always, so documents do not change. A name this
//! barrage does not know (another version's) reads as `Other` and writes back as it was.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Declares an enum of names with its strings, `Other(String)` for any other name, and
/// `as_str`, `From<&str>`, comparison with a `&str`, serde as a string and `Display`. The default is the empty name
/// (`Other("")`): a field a file written before it did not have.
macro_rules! names {
    ($(#[$m:meta])* pub enum $name:ident { $($(#[$vm:meta])* $v:ident = $s:literal,)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$vm])* $v,)*
            /// A name this barrage does not know, kept as written.
            Other(String),
        }

        impl $name {
            /// Every name this barrage writes.
            pub const ALL: &'static [$name] = &[$($name::$v,)*];

            /// The name as documents write it.
            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$v => $s,)*
                    $name::Other(s) => s,
                }
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                match s {
                    $($s => $name::$v,)*
                    other => $name::Other(other.to_string()),
                }
            }
        }

        /// A name against its string (a test's expectation, a name a user typed).
        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }

        impl Default for $name {
            fn default() -> Self {
                $name::Other(String::new())
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                Ok($name::from(String::deserialize(d)?.as_str()))
            }
        }
    };
}

names! {
    /// Why a trial failed.
    pub enum FailureKind {
        /// A client exited with another code than expected, or a server exited by itself.
        Exited = "exited",
        /// Killed by a signal (not an out-of-memory kill).
        Crashed = "crashed",
        Oom = "oom",
        /// The trial ran past its time budget.
        TimeBudgetExceeded = "time_budget_exceeded",
        /// The server never answered the readiness probe.
        NeverReady = "never_ready",
        /// Ctrl-C.
        Interrupted = "interrupted",
        /// The command returned while its work went on in the background.
        Daemonized = "daemonized",
        /// A client's output or file was wrong.
        Validation = "validation",
        /// The load could not run.
        LoadError = "load_error",
        /// The command could not be started.
        Spawn = "spawn",
        /// No valid response in the measured window.
        NoResponses = "no_responses",
        /// More load errors than the study's `max_errors`.
        Errors = "errors",
        /// The emulated network could not be set up.
        Network = "network",
        /// Other programs took more CPU than the study's bound while it was measured
        /// (`on_busy = "fail"`, or `"retry"` and every attempt busy).
        MachineBusy = "machine_busy",
    }
}

impl FailureKind {
    /// The kind in a few words, for tables and notes.
    pub fn label(&self) -> &str {
        match self {
            FailureKind::Exited => "exit code",
            FailureKind::Crashed => "crashed",
            FailureKind::Oom => "OOM",
            FailureKind::TimeBudgetExceeded => "timeout",
            FailureKind::NeverReady => "never ready",
            FailureKind::Interrupted => "interrupted",
            FailureKind::Daemonized => "daemonized",
            FailureKind::Validation => "wrong output",
            FailureKind::LoadError => "load error",
            FailureKind::Spawn => "did not start",
            FailureKind::NoResponses => "no responses",
            FailureKind::Errors => "too many errors",
            FailureKind::Network => "network setup",
            FailureKind::MachineBusy => "busy machine",
            FailureKind::Other(s) => s,
        }
    }
}

names! {
    /// What a warning is about.
    pub enum WarningKind {
        Outlier = "outlier",
        FirstTrialSlow = "first_trial_slow",
        GeneratorBottleneck = "generator_bottleneck",
        /// The generator and the contender both near their CPU.
        BothSaturated = "both_saturated",
        NetworkSaturated = "network_saturated",
        /// Other programs took CPU beyond the study's bound while trials were measured.
        MachineBusy = "machine_busy",
        FailedTrials = "failed_trials",
        FewTrials = "few_trials",
        Skipped = "skipped",
        /// Many comparisons: some differences are chance.
        Comparisons = "comparisons",
        /// The sampler dropped more CPU than its readings' rounding explains from a trial's
        /// timeline (`process::Samples::dropped_cpu`).
        CpuDropped = "cpu_dropped",
    }
}

names! {
    /// What a comparison row sets against each other.
    pub enum Between {
        /// Two contenders at one point.
        Contenders = "contenders",
        /// Two variants of one contender, the other parameters equal.
        Variants = "variants",
    }
}

names! {
    /// How far a study got. Older files have none (the empty name).
    pub enum RunStatus {
        /// Being written, or killed hard.
        Running = "running",
        /// Stopped by Ctrl-C.
        Interrupted = "interrupted",
        Complete = "complete",
    }
}

names! {
    /// Whether a contender ran. Older files have none (the empty name): it ran.
    pub enum ContenderStatus {
        Ready = "ready",
        /// A requirement is missing.
        Skipped = "skipped",
        BuildFailed = "build_failed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_and_write_as_their_strings() {
        for k in FailureKind::ALL {
            let json = serde_json::to_string(k).unwrap();
            assert_eq!(json, format!("\"{}\"", k.as_str()));
            assert_eq!(&serde_json::from_str::<FailureKind>(&json).unwrap(), k);
            assert!(!k.label().is_empty());
        }
        for k in WarningKind::ALL {
            assert_eq!(&WarningKind::from(k.as_str()), k);
        }
        assert_eq!(FailureKind::NoResponses.as_str(), "no_responses");
        assert_eq!(Between::from("variants"), Between::Variants);
        let other: RunStatus = serde_json::from_str("\"paused\"").unwrap();
        assert_eq!(other, RunStatus::Other("paused".into()));
        assert_eq!(serde_json::to_string(&other).unwrap(), "\"paused\"");
        assert_eq!(
            serde_json::to_string(&RunStatus::default()).unwrap(),
            "\"\""
        );
    }
}

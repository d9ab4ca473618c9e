//! The study file as TOML says it (serde structs with spans), before validation turns it into a
//! [`super::Study`]. Unknown keys are errors: a typo must not silently become a default.

use super::value::{Bytes, Dur, Loss, OneOrMany, Param, Rate};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use toml::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct File {
    pub study: Spanned<StudyTable>,
    pub load: Option<Spanned<Load>>,
    pub client: Option<Spanned<Client>>,
    pub target: Option<Target>,
    #[serde(default, rename = "contender")]
    pub contenders: Vec<Spanned<Contender>>,
    #[serde(default, rename = "threshold")]
    pub thresholds: Vec<Spanned<Threshold>>,
    pub network: Option<Spanned<NetworkFields>>,
    #[serde(default, rename = "question")]
    pub questions: Vec<Spanned<Question>>,
    #[serde(default, rename = "subset")]
    pub subsets: Vec<Spanned<Subset>>,
}

/// `[[subset]]`: a named part of the study for a partial run (`barrage run --subset NAME`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Subset {
    pub name: String,
    #[serde(default)]
    pub at: String,
    #[serde(default)]
    pub contenders: Vec<String>,
}

/// `[[question]]`: a claim of the study's original, tested as declared (barrage_model::question).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    pub id: String,
    #[serde(default)]
    pub original: String,
    pub claim: String,
    pub metric: OneOrMany<String>,
    #[serde(default)]
    pub at: String,
    pub across: Option<String>,
    pub window: Option<String>,
    pub expected: Option<f64>,
}

/// `[network]` (top level, or a variant's `network` table): the emulated link between the
/// contender and the load side. A list value makes the field a sweep axis.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkFields {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt: Option<OneOrMany<Dur>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay: Option<OneOrMany<Dur>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jitter: Option<OneOrMany<Dur>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<OneOrMany<Rate>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss: Option<OneOrMany<Loss>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mtu: Option<OneOrMany<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue: Option<OneOrMany<Bytes>>,
}

/// `[[threshold]]`: one expression or a list, optionally only for a contender or a point.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Threshold {
    pub expr: OneOrMany<String>,
    pub contender: Option<String>,
    pub point: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StudyTable {
    pub name: Spanned<String>,
    #[serde(default)]
    pub description: String,
    pub kind: Option<Spanned<String>>,
    pub trials: Option<Spanned<i64>>,
    pub warmup: Option<Dur>,
    pub cooldown: Option<Dur>,
    pub interleave: Option<bool>,
    pub pin: Option<Spanned<toml::Value>>,
    pub cpus: Option<Spanned<toml::Value>>,
    pub sample_interval: Option<Spanned<Dur>>,
    pub trial_timeout: Option<Spanned<Dur>>,
    pub stop_grace: Option<Dur>,
    pub max_errors: Option<Spanned<i64>>,
    pub busy_limit: Option<Spanned<toml::Value>>,
    pub on_busy: Option<Spanned<String>>,
}

/// Calls `$then! { HEAD ; name: type, ... }` with the study's load fields, each read as one
/// value or a list: the load options the model's declaration lets a study sweep
/// (`barrage_model::load_options!`), each under its study name (`path` for `url`) and in its
/// study form (`InStudy`: durations as "15s", bodies as text). [`LoadFields`] and the tables
/// that add keys to them (`[load]`, variants, phases) are generated from it; `flatten` cannot be
/// combined with `deny_unknown_fields`, which keeps typos from becoming defaults.
macro_rules! load_fields {
    ($then:ident! { $($head:tt)* }) => {
        barrage_model::load_options!(study_fields [{ $then { $($head)* } } []]);
    };
}

/// The callback of `load_options!`: walks the declaration (its blocks spliced), keeps the
/// options a study sweeps, then calls `$then!`.
macro_rules! study_fields {
    ([{ $then:ident { $($head:tt)* } } [$($acc:tt)*]]) => {
        $then! { $($head)* ; $($acc)* }
    };
    ([$pass:tt [$($acc:tt)*]] $block:ident { $($inner:tt)* } $($rest:tt)*) => {
        study_fields! { [$pass [$($acc)*]] $($inner)* $($rest)* }
    };
    ([$pass:tt [$($acc:tt)*]] $(#[$m:meta])* $name:ident : $ty:ty = $d:expr, $g:expr, $f:expr,
     sweep(as $alias:ident, $($x:tt)*) ; $($rest:tt)*) => {
        study_fields! { [$pass [$($acc)* $alias: <$ty as barrage_model::load::InStudy>::Form,]]
            $($rest)* }
    };
    ([$pass:tt [$($acc:tt)*]] $(#[$m:meta])* $name:ident : $ty:ty = $d:expr, $g:expr, $f:expr,
     sweep $x:tt ; $($rest:tt)*) => {
        study_fields! { [$pass [$($acc)* $name: <$ty as barrage_model::load::InStudy>::Form,]]
            $($rest)* }
    };
    ([$pass:tt [$($acc:tt)*]] $(#[$m:meta])* $name:ident : $ty:ty = $d:expr, $g:expr, $f:expr,
     $other:ident $x:tt ; $($rest:tt)*) => {
        study_fields! { [$pass [$($acc)*]] $($rest)* }
    };
}

macro_rules! define_load_fields {
    ( ; $($lf:ident : $lt:ty,)*) => {
        /// The engine fields a `[load]` table, a `[[load.variant]]` or a `[[load.phase]]` may
        /// set; a list value makes the field a sweep axis (not allowed in phases).
        #[derive(Debug, Clone, Default, Deserialize, Serialize)]
        #[serde(deny_unknown_fields)]
        pub struct LoadFields {
            $(
                #[serde(skip_serializing_if = "Option::is_none")]
                pub $lf: Option<OneOrMany<$lt>>,
            )*
        }

        impl LoadFields {
            /// Every list cut to its first `n` values.
            pub fn shorten(&mut self, n: usize) {
                $(
                    if let Some(OneOrMany::Many(v)) = &mut self.$lf {
                        v.truncate(n);
                    }
                )*
            }
        }
    };
}

load_fields!(define_load_fields! {});

macro_rules! with_load_fields {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* pub $f:ident : $t:ty,)* } ;
     $($lf:ident : $lt:ty,)*) => {
        $(#[$m])*
        pub struct $name {
            $($(#[$fm])* pub $f: $t,)*
            $(pub $lf: Option<OneOrMany<$lt>>,)*
        }
        impl $name {
            pub fn fields(&self) -> LoadFields {
                LoadFields {
                    $($lf: self.$lf.clone(),)*
                }
            }
        }
    };
}

load_fields!(with_load_fields! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Load {
        #[serde(default)]
        pub headers: BTreeMap<String, String>,
        #[serde(default, rename = "variant")]
        pub variants: Vec<Spanned<Variant>>,
        #[serde(default, rename = "phase")]
        pub phases: Vec<Spanned<Phase>>,
    }
});

load_fields!(with_load_fields! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Variant {
        pub name: Spanned<String>,
        pub network: Option<Spanned<NetworkFields>>,
    }
});

load_fields!(with_load_fields! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Phase {
        pub name: Option<String>,
    }
});

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Client {
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub params: BTreeMap<String, OneOrMany<Param>>,
    #[serde(default)]
    pub expect: Expect,
    pub rate: Option<String>,
    pub requests: Option<String>,
    #[serde(default, rename = "figure")]
    pub figures: Vec<Spanned<Figure>>,
}

/// `[[client.figure]]`: a number the contender prints as `key=value` on stdout.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Figure {
    pub key: Spanned<String>,
    pub label: Option<String>,
    pub unit: Spanned<String>,
    pub better: Spanned<String>,
    pub compared: Option<bool>,
    pub required: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    pub exit_code: Option<i32>,
    #[serde(default)]
    pub stdout_contains: Vec<String>,
    pub file: Option<String>,
    pub file_size: Option<toml::Value>,
    #[serde(default)]
    pub file_pattern: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    pub threads: Option<u32>,
    pub fault_rate: Option<f64>,
    pub concurrency: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contender {
    pub name: Spanned<String>,
    pub dir: Option<String>,
    pub build: Option<CommandValue>,
    pub start: Spanned<CommandValue>,
    pub ready: Option<Spanned<Ready>>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    pub stop_signal: Option<Spanned<String>>,
    #[serde(default)]
    pub requires: Vec<String>,
    pub memory_limit: Option<Bytes>,
}

/// A command: a string (split on spaces, or run by `sh -c` when it uses shell syntax) or an
/// explicit argument list.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum CommandValue {
    Line(String),
    Argv(Vec<String>),
}

/// `ready = "tcp"`, or a table `{ kind = "http", path = "/", timeout = "10s", status = 200 }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Ready {
    Kind(String),
    Table(ReadyTable),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadyTable {
    pub kind: String,
    pub path: Option<String>,
    pub timeout: Option<Dur>,
    pub status: Option<u16>,
}

#[cfg(test)]
mod tests {
    use super::LoadFields;

    /// The study's load fields are the declaration's sweep axes, no more and no fewer, each
    /// read in its study form.
    #[test]
    fn the_load_fields_are_the_declared_axes() {
        let mut fields = barrage_model::fields::field_names::<LoadFields>().to_vec();
        let mut axes: Vec<&str> = barrage_model::load::AXES.iter().map(|(f, _)| *f).collect();
        fields.sort_unstable();
        axes.sort_unstable();
        assert_eq!(fields, axes);
        let f: LoadFields = toml::from_str(
            "path = \"/a\"\nduration = \"1.5s\"\nconnections = [1, 10]\nbody = \"x\"\n\
             targets_order = \"random\"\nstages = \"1s:5\"",
        )
        .unwrap();
        let v = serde_json::to_value(&f).unwrap();
        assert_eq!(v["duration"], "1500ms");
        assert_eq!(v["connections"], serde_json::json!([1, 10]));
        assert_eq!(v["targets_order"], "random");
        let bad = toml::from_str::<LoadFields>("targets_order = \"sideways\"").unwrap_err();
        assert!(bad.to_string().contains("round-robin"), "{bad}");
        let bad = toml::from_str::<LoadFields>("h2_window = 65535").unwrap_err();
        assert!(
            bad.to_string().contains("unknown field `h2_window`"),
            "{bad}"
        );
    }
}

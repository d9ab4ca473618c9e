//! The study file as TOML says it (serde structs with spans), before validation turns it into a
//! [`super::Study`]. Unknown keys are errors: a typo must not silently become a default.

use super::value::{Bytes, Dur, OneOrMany, Param};
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
    pub sample_interval: Option<Spanned<Dur>>,
    pub trial_timeout: Option<Spanned<Dur>>,
    pub stop_grace: Option<Dur>,
    pub max_errors: Option<Spanned<i64>>,
}

/// The engine fields a `[load]` table, a `[[load.variant]]` or a `[[load.phase]]` may set; a list
/// value makes the field a sweep axis (not allowed in phases).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LoadFields {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<OneOrMany<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<OneOrMany<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<OneOrMany<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expect_status: Option<OneOrMany<u16>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expect_body: Option<OneOrMany<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connections: Option<OneOrMany<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<OneOrMany<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<OneOrMany<Dur>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requests: Option<OneOrMany<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<OneOrMany<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<OneOrMany<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keepalive: Option<OneOrMany<bool>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http2: Option<OneOrMany<bool>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub streams: Option<OneOrMany<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout: Option<OneOrMany<Dur>>,
}

// `flatten` cannot be combined with `deny_unknown_fields`, so the tables that add keys to the
// load fields list them again; `split` takes the common part back out.
macro_rules! with_load_fields {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* pub $f:ident : $t:ty,)* }) => {
        $(#[$m])*
        pub struct $name {
            $($(#[$fm])* pub $f: $t,)*
            pub method: Option<OneOrMany<String>>,
            pub path: Option<OneOrMany<String>>,
            pub body: Option<OneOrMany<String>>,
            pub expect_status: Option<OneOrMany<u16>>,
            pub expect_body: Option<OneOrMany<String>>,
            pub connections: Option<OneOrMany<u32>>,
            pub threads: Option<OneOrMany<u32>>,
            pub duration: Option<OneOrMany<Dur>>,
            pub requests: Option<OneOrMany<u64>>,
            pub rate: Option<OneOrMany<f64>>,
            pub pipeline: Option<OneOrMany<u32>>,
            pub keepalive: Option<OneOrMany<bool>>,
            pub http2: Option<OneOrMany<bool>>,
            pub streams: Option<OneOrMany<u32>>,
            pub timeout: Option<OneOrMany<Dur>>,
        }
        impl $name {
            pub fn fields(&self) -> LoadFields {
                LoadFields {
                    method: self.method.clone(),
                    path: self.path.clone(),
                    body: self.body.clone(),
                    expect_status: self.expect_status.clone(),
                    expect_body: self.expect_body.clone(),
                    connections: self.connections.clone(),
                    threads: self.threads.clone(),
                    duration: self.duration.clone(),
                    requests: self.requests.clone(),
                    rate: self.rate.clone(),
                    pipeline: self.pipeline.clone(),
                    keepalive: self.keepalive.clone(),
                    http2: self.http2.clone(),
                    streams: self.streams.clone(),
                    timeout: self.timeout.clone(),
                }
            }
        }
    };
}

with_load_fields! {
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
}

with_load_fields! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Variant {
        pub name: Spanned<String>,
    }
}

with_load_fields! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Phase {
        pub name: Option<String>,
    }
}

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

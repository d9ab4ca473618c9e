//! Every load option, declared once: its name and type, its default, its help (the doc
//! comment), its value grammar, its flag, and whether a study may sweep it (with its place in
//! the sweep and its short label). From this one list come the load [`Config`] with its
//! defaults and the protocol's flat options ([`Options`]), the table of [`OPTIONS`] (plain data,
//! no clap) that `barrage load`'s flags, help, man page and completions are built from, the
//! sweep's [`AXES`](super::AXES), the JSON Schema's `config` (`schema.rs`), and, through
//! [`load_options!`](crate::load_options), the lab's study grammar.
//!
//! An entry: doc comment (the help), then serde attributes, then
//! `name: Type = default, grammar, flag, study;` where the study is `sweep(rank, "label")`
//! (`sweep(as name, ...)` when a study file calls it otherwise), `elsewhere("where")` or
//! `no("why")`. Types are written in full (`$crate::...`) since the lab expands them too.

use super::spec::{Flag, Grammar, Group, Spec, Study};
use super::Protocol;
use serde::{Deserialize, Serialize};

/// Calls `$then! { [PASS] config { .. } protocol { .. } config { .. } phase { .. } }` with every
/// load option: the `Config`'s fields before the protocol's, the protocol's flat options (declared
/// beside the protocol's variants, `protocol.rs`'s [`load_protocol_options!`](crate::load_protocol_options),
/// which splices them in), the `Config`'s fields after them, and the options a study's phase
/// holds outside its `Config`. The model builds its types from it (`load/options.rs`), the lab
/// its study grammar.
#[macro_export]
macro_rules! load_options {
    ($then:ident [$($pass:tt)*]) => {
        $crate::load_protocol_options! { $then [$($pass)*]
        config {
            /// Target URL (http://, https://, ws://, wss://). With --targets, the origin of
            /// targets written as paths (optional when the file has absolute URLs).
            // A study (and study results written before `url` existed) says `path`.
            #[serde(alias = "path")]
            url: String = String::new(), Grammar::Url,
                Flag::positional("URL", Some("targets")), sweep(as path, 2, "path");
            /// Request method.
            method: String = "GET".into(), Grammar::Token,
                Flag::named("METHOD").short('X'), sweep(1, "method");
            /// Extra request header, `Name: value` (repeatable); with --ws, on the upgrade
            /// request.
            headers: Vec<(String, String)> = Vec::new(), Grammar::Header,
                Flag::named("HEADER").short('H').long("header"),
                elsewhere("[load] headers, a table for every point");
            /// Request body.
            // Bytes (a JSON array) in documents; text on the command line and in studies.
            #[serde(deserialize_with = "crate::units::bytes_or_text::deserialize")]
            body: Vec<u8> = Vec::new(), Grammar::Bytes, Flag::named("STRING"), sweep(3, "body");
            /// Connections to keep open.
            connections: usize = 10, Grammar::Int { min: 1, max: u64::MAX },
                Flag::named("N").short('c'), sweep(15, "c");
            /// Worker threads [default: one per core, at most one per connection].
            // 0 means one per core.
            threads: usize = 0, Grammar::Int { min: 0, max: u64::MAX },
                Flag::named("N").short('t'), sweep(14, "threads");
            /// How long to measure (e.g. 10s, 500ms, 1m, 1.5s) [default: 10s unless -n or
            /// --stages is given].
            // Seconds (a number) in documents, like every duration here; "15s" in studies.
            #[serde(with = "crate::units::secs_or_text::option")]
            duration: Option<::std::time::Duration> = None, Grammar::Duration,
                Flag::named("DURATION").short('d'), sweep(24, "d");
            /// Stop after this many requests (total over all connections).
            requests: Option<u64> = None, Grammar::Int { min: 0, max: u64::MAX },
                Flag::named("N").short('n'), sweep(25, "n");
            /// Open loop: send R requests per second over all connections (fractions
            /// allowed); latency is measured from each request's intended send time.
            rate: Option<f64> = None, Grammar::Rate, Flag::named("R"), sweep(16, "rate");
            /// Open loop on a rate schedule, k6's stages: `30s:1000,1m:1000,30s:0` ramps from 0
            /// to 1000 req/s over 30 s, holds 1000 for a minute, ramps down to 0 over 30 s.
            /// Each stage goes linearly from the previous stage's rate (0 before the first) to
            /// its own; the run lasts their sum (the warmup is its first seconds). Latency
            /// counts from each request's scheduled time; the per-second series shows the
            /// target beside the achieved rate.
            #[serde(
                deserialize_with = "crate::units::stages_or_text",
                skip_serializing_if = "Vec::is_empty"
            )]
            stages: Vec<$crate::load::Stage> = Vec::new(), Grammar::Stages,
                Flag::named("STAGES"), sweep(17, "stages");
        }
        then {
        config {
            /// Per-request timeout; a late request is an error and its connection is reopened.
            #[serde(with = "crate::units::secs_or_text::required")]
            timeout: ::std::time::Duration = ::std::time::Duration::from_secs(10),
                Grammar::Duration, Flag::named("DURATION"), sweep(26, "timeout");
            /// Run load for this long first and discard its measurements.
            #[serde(with = "crate::units::secs_or_text::required")]
            warmup: ::std::time::Duration = ::std::time::Duration::ZERO, Grammar::Duration,
                Flag::named("DURATION"), elsewhere("[study] warmup, the same for every trial");
            /// Count responses with another status as errors (class `status`). With --grpc, a
            /// gRPC code (0-16, or its name: NOT_FOUND, not_found): calls that end with it are
            /// responses, any other code (OK included) an error of class `grpc_status`.
            // A number in documents: an HTTP status is 100-999, a gRPC code 0-16 (a name given
            // is written as its number).
            expect_status: Option<u16> = None, Grammar::Status,
                Flag::named("CODE"), sweep(4, "status");
            /// Count responses with another body as errors (class `body`); with --ws, the reply
            /// every message must get, instead of its echo.
            #[serde(deserialize_with = "crate::units::bytes_or_text::option")]
            expect_body: Option<Vec<u8>> = None, Grammar::Bytes, Flag::named("STRING"),
                sweep(5, "expect_body");
            /// Accept any TLS certificate.
            insecure: bool = false, Grammar::Switch, Flag::switch().short('k'),
                sweep(11, "insecure");
            /// Send the requests of a targets file instead of one: vegeta's http format
            /// (`METHOD URL`, header lines, an optional `@body-file` relative to the file, a
            /// blank line between targets; URLs may be paths on URL's origin) or JSON lines
            /// (`{"method", "url", "header": {name: [values]}, "body": base64}`). One origin per
            /// run. Each target gets its own figures in the summary and the JSON.
            // A relative path is the caller's to resolve (a study resolves it against its
            // directory).
            #[serde(skip_serializing_if = "Option::is_none")]
            targets: Option<String> = None, Grammar::File,
                Flag::named("FILE").conflicts(&["body"]), sweep(18, "targets");
            /// The targets file's format [default: json for .json, .jsonl and .ndjson, else
            /// http].
            #[serde(skip_serializing_if = "Option::is_none")]
            targets_format: Option<String> = None, Grammar::Choice(&["http", "json"]),
                Flag::named("FORMAT").requires("targets"), sweep(19, "targets_format");
            /// Order of requests over the targets: each in turn (round-robin, the default), or a
            /// shuffled order (random) drawn from --seed, repeated, so every target still gets
            /// an equal share.
            #[serde(skip_serializing_if = "crate::load::Order::is_round_robin")]
            targets_order: $crate::load::Order = $crate::load::Order::RoundRobin,
                Grammar::Choice(&["round-robin", "random"]),
                Flag::named("ORDER").requires("targets"), sweep(20, "order");
            /// Seed of --targets-order random (the same seed gives the same order) [default:
            /// drawn, and recorded in the JSON's config].
            #[serde(skip_serializing_if = "Option::is_none")]
            seed: Option<u64> = None, Grammar::Int { min: 0, max: u64::MAX },
                Flag::named("N"), sweep(21, "seed");
            /// Request bodies from a file, one per line, sent in turn (oha's -Z).
            #[serde(skip_serializing_if = "Option::is_none")]
            body_lines: Option<String> = None, Grammar::File,
                Flag::named("FILE").short('Z').conflicts(&["body"]), sweep(22, "body_lines");
            /// Closed loop: open the connections evenly over this time (e.g. 10s) instead of
            /// all at once.
            #[serde(
                with = "crate::units::secs_or_text::option",
                skip_serializing_if = "Option::is_none"
            )]
            ramp_up: Option<::std::time::Duration> = None, Grammar::Duration,
                Flag::named("DURATION"), sweep(23, "ramp_up");
            /// Scale-out: run shard I of N (1-based) of this load: its share of the
            /// connections, of the rate and of -n (remainders spread so the shares add up), its
            /// open-loop sends interleaved with the other shards' into one schedule. Merge the
            /// shards' JSON with `barrage merge`.
            #[serde(skip_serializing_if = "Option::is_none")]
            shard: Option<$crate::load::Shard> = None, Grammar::Shard, Flag::named("I/N"),
                no("a study runs each trial's load in one process; shards are for scale-out runs");
            /// Wait until this wall-clock time and start then (Unix seconds, fractions allowed,
            /// or RFC 3339), so that shards start together.
            #[serde(skip_serializing_if = "Option::is_none")]
            start_at: Option<f64> = None, Grammar::Time, Flag::named("TIME"),
                no("the lab starts each trial's load itself once the contender is ready");
            /// Connect to HOST:PORT instead of the URL's host and port, still naming the URL's
            /// host in requests and in TLS (SNI, the certificate's name), as curl's and oha's
            /// --connect-to: a virtual host or a certificate tested without DNS.
            #[serde(skip_serializing_if = "Option::is_none")]
            connect_to: Option<String> = None, Grammar::Text, Flag::named("HOST:PORT"),
                no("the runner connects to the contender's own address");
            /// gRPC: the method to call, `package.Service/Method` (ghz's --call).
            #[serde(skip_serializing_if = "Option::is_none")]
            call: Option<String> = None, Grammar::Text,
                Flag::named("METHOD").requires("grpc"), sweep(29, "call");
            /// gRPC: the .proto file that declares --call's service, compiled at run time (no
            /// protoc); its imports are looked up beside it [default: the server's reflection].
            #[serde(skip_serializing_if = "Option::is_none")]
            proto: Option<String> = None, Grammar::File,
                Flag::named("FILE").requires("grpc").conflicts(&["protoset"]), sweep(30, "proto");
            /// gRPC: a compiled descriptor set (`protoc -o FILE --include_imports`) instead of
            /// --proto.
            #[serde(skip_serializing_if = "Option::is_none")]
            protoset: Option<String> = None, Grammar::File,
                Flag::named("FILE").requires("grpc"), sweep(31, "protoset");
            /// gRPC: each call's request as JSON: an object is one message, an array one
            /// message per element in one call (client and bidirectional streaming)
            /// [default: {}, the empty message].
            #[serde(skip_serializing_if = "Option::is_none")]
            data: Option<String> = None, Grammar::Text,
                Flag::named("JSON").requires("grpc").conflicts(&["data_file"]), sweep(32, "data");
            /// gRPC: --data's JSON from a file.
            #[serde(skip_serializing_if = "Option::is_none")]
            data_file: Option<String> = None, Grammar::File,
                Flag::named("FILE").requires("grpc"), sweep(33, "data_file");
            /// gRPC: metadata sent with each call, a JSON object of strings
            /// (`{"authorization": "Bearer x"}`).
            #[serde(skip_serializing_if = "Option::is_none")]
            metadata: Option<String> = None, Grammar::Text,
                Flag::named("JSON").requires("grpc"), sweep(34, "metadata");
            /// gRPC: the compression of each call's request messages, `gzip` or `identity`
            /// (none). With gzip they are compressed once for the run and the call says so in
            /// grpc-encoding, offering gzip for the replies in grpc-accept-encoding [default:
            /// identity].
            #[serde(skip_serializing_if = "Option::is_none")]
            grpc_compression: Option<String> = None, Grammar::Choice(&["identity", "gzip"]),
                Flag::named("ENCODING").requires("grpc"), sweep(36, "compression");
            /// A wrk Lua script (wrk's API: the `wrk` table, setup, init, delay, request,
            /// response, done; docs/load.md "Scripts"). Its static request (wrk.method, path,
            /// headers, body) and its hooks run on HTTP/1.1, HTTP/2, HTTP/3 and WebSocket (a
            /// request's body is a message). What it prints is printed after the run.
            #[serde(skip_serializing_if = "Option::is_none")]
            script: Option<String> = None, Grammar::File,
                Flag::named("FILE").short('s').conflicts(&["grpc"]),
                sweep(35, "script");
            /// Arguments handed to the script's init(args), after `--` (as wrk's).
            #[serde(skip_serializing_if = "Vec::is_empty")]
            script_args: Vec<String> = Vec::new(), Grammar::Text,
                Flag::trailing("ARGS").requires("script"),
                no("a study's script reads its values from the study's own parameters");
        }
        phase {
            /// Whether the runner writes https:// (wss:// for ws) in front of a point's path;
            /// always with http3.
            tls: bool = false, Grammar::Switch,
                Flag::none("the URL's scheme says it: https://, wss://"), sweep(10, "tls");
        }
        }
        }
    };
}

/// A study's `{ field = value }` form of an option's value: what the lab's study grammar reads
/// for one value of the option (a list of them is a sweep axis). Durations in the one grammar,
/// bodies as text, a rate schedule as text.
pub trait InStudy {
    type Form: Serialize + serde::de::DeserializeOwned + Clone + std::fmt::Debug;
}

macro_rules! in_study {
    ($($t:ty => $f:ty),* $(,)?) => {
        $(impl InStudy for $t { type Form = $f; })*
    };
}

in_study! {
    String => String, usize => usize, u16 => u16, u32 => u32, u64 => u64, f64 => f64,
    bool => bool, std::time::Duration => crate::units::Dur, Vec<u8> => String,
    Vec<super::Stage> => crate::units::StagesText, super::Order => super::Order,
}

impl<T: InStudy> InStudy for Option<T> {
    type Form = T::Form;
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A study entry's `Study`.
macro_rules! study {
    (sweep(as $n:ident, $rank:literal, $label:literal)) => {
        Study::Sweep {
            rank: $rank,
            label: $label,
            name: Some(stringify!($n)),
        }
    };
    (sweep($rank:literal, $label:literal)) => {
        Study::Sweep {
            rank: $rank,
            label: $label,
            name: None,
        }
    };
    (elsewhere($w:literal)) => {
        Study::Elsewhere($w)
    };
    (no($w:literal)) => {
        Study::No($w)
    };
}

/// The model's part of the declaration: the `Config`, the protocol's `Options`, the table.
macro_rules! declare {
    ([]
     config { $( $(#[doc = $d1:literal])* $(#[serde $s1:tt])*
        $n1:ident : $t1:ty = $v1:expr, $g1:expr, $f1:expr, $sk1:ident $sa1:tt ; )* }
     protocol { $( $(#[doc = $d2:literal])* $(#[serde $s2:tt])*
        $n2:ident : $t2:ty = $v2:expr, $g2:expr, $f2:expr, $sk2:ident $sa2:tt ; )* }
     config { $( $(#[doc = $d3:literal])* $(#[serde $s3:tt])*
        $n3:ident : $t3:ty = $v3:expr, $g3:expr, $f3:expr, $sk3:ident $sa3:tt ; )* }
     phase { $( $(#[doc = $d4:literal])* $(#[serde $s4:tt])*
        $n4:ident : $t4:ty = $v4:expr, $g4:expr, $f4:expr, $sk4:ident $sa4:tt ; )* }
    ) => {
        /// What to load and how: the one description of a load. Plain data, every field public;
        /// `Default` gives wrk-like settings; [`check`](super::check) holds its rules (the
        /// engine, the lab and the CLI call it; the engine's `Validate` then reads the files and
        /// the URL). In a study's points `url` holds only the path: the runner puts the
        /// contender's address in front. An unknown field is an error (a renamed field must not
        /// be dropped silently); every results document written so far uses only these names
        /// (and `path`). Each field's doc is its option's help (`barrage load --help`).
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct Config {
            $( $(#[doc = $d1])* $(#[serde $s1])* pub $n1: $t1, )*
            /// The protocol with its own options (pipelining, keep-alive, HTTP/2's streams and
            /// window, WebSocket, HTTP/3): in documents and study files the flat fields of
            /// [`Options`].
            #[serde(flatten)]
            pub protocol: Protocol,
            $( $(#[doc = $d3])* $(#[serde $s3])* pub $n3: $t3, )*
        }

        impl Default for Config {
            fn default() -> Self {
                Config {
                    $( $n1: $v1, )*
                    protocol: Protocol::default(),
                    $( $n3: $v3, )*
                }
            }
        }

        /// A protocol said as flat options, as documents, study files and flags say it;
        /// [`Protocol::from_options`] is their one reading.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(default)]
        pub struct Options {
            $( $(#[doc = $d2])* $(#[serde $s2])* pub $n2: $t2, )*
        }

        impl Default for Options {
            fn default() -> Self {
                Options { $( $n2: $v2, )* }
            }
        }

        /// Every load option as declared, in the `Config`'s order (a document's), the phase's
        /// last.
        pub const OPTIONS: &[Spec] = &[
            $( Spec { name: stringify!($n1), group: Group::Config, doc: concat!($($d1, "\n",)*),
                grammar: $g1, flag: $f1, study: study!($sk1 $sa1) }, )*
            $( Spec { name: stringify!($n2), group: Group::Protocol, doc: concat!($($d2, "\n",)*),
                grammar: $g2, flag: $f2, study: study!($sk2 $sa2) }, )*
            $( Spec { name: stringify!($n3), group: Group::Config, doc: concat!($($d3, "\n",)*),
                grammar: $g3, flag: $f3, study: study!($sk3 $sa3) }, )*
            $( Spec { name: stringify!($n4), group: Group::Phase, doc: concat!($($d4, "\n",)*),
                grammar: $g4, flag: $f4, study: study!($sk4 $sa4) }, )*
        ];
    };
}

load_options!(declare []);

const fn sweeps() -> usize {
    let (mut i, mut n) = (0, 0);
    while i < OPTIONS.len() {
        if let Study::Sweep { .. } = OPTIONS[i].study {
            n += 1;
        }
        i += 1;
    }
    n
}

/// The sweepable options as (study name, short label), in the sweep's order (by rank).
pub(super) const AXES: [(&str, &str); sweeps()] = {
    let mut out = [("", ""); sweeps()];
    let mut ranks = [0u16; sweeps()];
    let (mut i, mut n) = (0, 0);
    while i < OPTIONS.len() {
        if let Study::Sweep { rank, label, name } = OPTIONS[i].study {
            out[n] = (
                match name {
                    Some(s) => s,
                    None => OPTIONS[i].name,
                },
                label,
            );
            ranks[n] = rank;
            n += 1;
        }
        i += 1;
    }
    // Insertion sort by rank; two options of one rank do not compile.
    let mut j = 1;
    while j < n {
        let mut k = j;
        while k > 0 && ranks[k - 1] >= ranks[k] {
            assert!(
                ranks[k - 1] != ranks[k],
                "two sweepable load options share a rank"
            );
            (ranks[k - 1], ranks[k]) = (ranks[k], ranks[k - 1]);
            (out[k - 1], out[k]) = (out[k], out[k - 1]);
            k -= 1;
        }
        j += 1;
    }
    out
};

/// The option `name` (a document's name for it), if there is one.
pub fn option(name: &str) -> Option<&'static Spec> {
    OPTIONS.iter().find(|s| s.name == name)
}

//! The one description of a load: the `Config`, declared option by option in `options.rs` with
//! each option's default, help, value grammar, flag and study axis ([`OPTIONS`], plain data the
//! CLI builds its flags from, the lab its study grammar, [`schema`] the JSON Schema), its rules
//! ([`check`]: one pure check the engine, the lab and the CLI call), and the fields a study may
//! sweep with their short labels ([`AXES`], from the declaration). A new load option is its
//! entry in `options.rs`, its rule here if it has one, and its use in the engine.
//!
//! The `barrage.load/2` document is [`doc`]'s (re-exported), its figures' intervals [`intervals`]'.

pub mod doc;
pub mod intervals;
mod names;
mod options;
mod protocol;
pub mod schema;
pub mod spec;

pub use doc::*;
pub use names::Names;
pub use options::{option, Config, InStudy, Options as ProtocolOptions, OPTIONS};
pub use protocol::{Protocol, DEFAULT_H2_WINDOW, DEFAULT_WS_MAX_MESSAGE};
pub use spec::{Flag, Form, Grammar, Group, Spec, Study};

use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;

/// The names of a load's fields in documents and study files, the protocol's flat options
/// among them (`url` as `url`, not its alias `path`), in a document's order: the declaration's.
pub fn field_names() -> Vec<String> {
    OPTIONS
        .iter()
        .filter(|o| o.group != Group::Phase)
        .map(|o| o.name.to_string())
        .collect()
}

/// One shard of a load split over several processes (`--shard I/N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// 1-based.
    pub index: u32,
    pub count: u32,
}

/// The order requests take over the targets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    /// Each target in turn, in the file's order.
    #[default]
    RoundRobin,
    /// The targets in a shuffled order (drawn from the seed), that order repeated: every
    /// target still gets an equal share.
    Random,
}

impl Order {
    fn is_round_robin(&self) -> bool {
        *self == Order::RoundRobin
    }
}

/// One stage of a rate schedule: over `duration`, the rate goes linearly to `target`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stage {
    #[serde(with = "crate::units::secs_or_text::required")]
    pub duration: Duration,
    /// Requests per second at the stage's end.
    pub target: f64,
}

// ---- The rules of a load ----

/// A load that cannot run: which rule it breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    NoConnections,
    Pipeline,
    PipelineWithoutKeepalive,
    Rate,
    NoStop,
    ZeroDuration,
    Timeout,
    /// The method as given.
    Method(String),
    /// The header as `name: value`.
    Header(String),
    ExpectStatus,
    /// `grpc` with an `expect_status` that is no gRPC code (0-16).
    ExpectGrpcStatus,
    Streams,
    StreamsWithoutHttp2,
    PipelineWithHttp2,
    Http2WithoutKeepalive,
    Window,
    StagesWithRate,
    StagesWithStop,
    Stage,
    StagesWarmup,
    TargetsWithBodyLines,
    RampUpOpenLoop,
    Shard,
    /// `ws` with an option that is HTTP's alone (its field name).
    WsWith(&'static str),
    /// An option that is WebSocket's alone without `ws` (its field name).
    WsOnly(&'static str),
    /// `ws_max_message` of 0.
    WsMaxMessage,
    /// `ws` with a header the opening handshake writes itself (its name as given).
    WsHeader(String),
    /// `ws` with a URL that is not `ws://` or `wss://`.
    WsUrl,
    /// A `ws://` or `wss://` URL without `ws`.
    WsUrlWithoutWs,
    /// A protocol's switch (its field name) with an option that does not go with it (the
    /// option's field name, said as it is set: `--http2`, `--no-keepalive`, `--pipeline`),
    /// for a protocol whose conflicts need no words of their own.
    Conflict(&'static str, &'static str),
    /// `http3` with an option of another protocol's (its field name).
    Http3With(&'static str),
    /// `http3` with a URL that is not `https://`.
    Http3Url,
    /// `grpc` with an option of another protocol's or of a plain request's (its field name).
    GrpcWith(&'static str),
    /// An option that is gRPC's alone without `grpc` (its field name).
    GrpcOnly(&'static str),
    /// `grpc` without `call`.
    GrpcCall,
    ShardConnections {
        connections: usize,
        shards: u32,
    },
    StartAt,
}

impl LoadError {
    /// The message in the given words.
    pub fn message(&self, n: Names) -> String {
        use LoadError::*;
        let o = |f: &str| n.opt(f);
        match self {
            NoConnections => format!("{} must be at least 1", o("connections")),
            Pipeline => format!("{} must be between 1 and 1024", o("pipeline")),
            PipelineWithoutKeepalive => format!(
                "{} > 1 needs keep-alive (with {} every request has its own connection)",
                o("pipeline"),
                n.off("keepalive")
            ),
            Rate => format!(
                "{} must be a positive, finite number of requests per second",
                o("rate")
            ),
            NoStop => format!(
                "the load needs a duration, a number of requests or stages ({}, {} or {})",
                o("duration"),
                o("requests"),
                o("stages")
            ),
            ZeroDuration => format!("{} must be longer than zero", o("duration")),
            Timeout => format!("{} must be between 1 ms and 1 hour", o("timeout")),
            Method(m) => format!("invalid method {m:?}"),
            Header(h) => format!("invalid header {h:?}"),
            ExpectStatus => format!(
                "{} must be between 100 and 999 (a gRPC code, 0-16, needs {})",
                o("expect_status"),
                n.on("grpc")
            ),
            ExpectGrpcStatus => format!(
                "with {}, {} must be a gRPC code: 0-16 or its name (NOT_FOUND)",
                n.on("grpc"),
                o("expect_status")
            ),
            Streams => format!(
                "{} (streams per connection) must be between 1 and 2^31-1",
                o("streams")
            ),
            StreamsWithoutHttp2 => format!(
                "{} > 1 needs {} or {} (HTTP/1.1 has one request per connection at a time; see {})",
                o("streams"),
                n.on("http2"),
                n.on("http3"),
                o("pipeline")
            ),
            PipelineWithHttp2 => format!(
                "{} is HTTP/1.1's; HTTP/2 runs concurrent streams instead ({})",
                o("pipeline"),
                o("streams")
            ),
            Http2WithoutKeepalive => format!(
                "{} does not apply to HTTP/2, whose connections carry every stream",
                n.off("keepalive")
            ),
            Window => format!(
                "the HTTP/2 window ({}) must be between 65,535 and 2^31-1 bytes",
                o("h2_window")
            ),
            StagesWithRate => format!(
                "{} is a rate schedule of its own: give it without {}",
                o("stages"),
                o("rate")
            ),
            StagesWithStop => format!(
                "{} sets the run's length (the sum of its stages): give it without {} or {}",
                o("stages"),
                o("duration"),
                o("requests")
            ),
            Stage => format!(
                "each of {} needs a duration above 0 and a rate of 0 or more, and one rate above 0",
                o("stages")
            ),
            StagesWarmup => format!(
                "{} must be shorter than {} (the schedule starts with the warmup)",
                o("warmup"),
                o("stages")
            ),
            TargetsWithBodyLines => format!(
                "{} and {} are two ways to vary the request: give one",
                o("targets"),
                o("body_lines")
            ),
            RampUpOpenLoop => format!(
                "{} opens the closed loop's connections gradually; an open loop ({}, {}) paces requests instead",
                o("ramp_up"),
                o("rate"),
                o("stages")
            ),
            Shard => format!("{} I/N needs 1 <= I <= N", o("shard")),
            ShardConnections { connections, shards } => format!(
                "{connections} connections cannot be split over {shards} shards: give each at least one"
            ),
            WsWith(f) => format!(
                "{} is HTTP's; a WebSocket load ({}) sends messages on upgraded connections",
                match (*f, n) {
                    ("keepalive", _) => n.off(f),
                    _ => o(f),
                },
                n.on("ws")
            ),
            WsHeader(h) => format!(
                "header {h:?} is the WebSocket handshake's own: barrage writes it ({})",
                n.on("ws")
            ),
            WsOnly(f) => format!(
                "{} is WebSocket's: it needs {}",
                match (*f, n) {
                    // The flag turns it off: `--no-echo-check`.
                    ("echo_check", Names::Flags) => n.off(f),
                    _ => o(f),
                },
                n.on("ws")
            ),
            WsMaxMessage => format!(
                "{} (the longest reply) must be at least 1 byte",
                o("ws_max_message")
            ),
            WsUrl => format!("{} needs a ws:// or wss:// URL", n.on("ws")),
            WsUrlWithoutWs => format!("a ws:// or wss:// URL needs {}", n.on("ws")),
            Conflict(p, f) => {
                // A switch is said as set against its default (`--no-keepalive`), another
                // option by its name.
                let set = |f: &str| match option(f) {
                    Some(spec) if spec.grammar == Grammar::Switch && f == "keepalive" => n.off(f),
                    Some(spec) if spec.grammar == Grammar::Switch => n.on(f),
                    _ => o(f),
                };
                format!("{} does not go with {}", set(f), n.on(p))
            }
            Http3With(f) => format!(
                "{} does not go with {}: HTTP/3 multiplexes with {}",
                match *f {
                    "keepalive" => n.off(f),
                    "pipeline" => o(f),
                    _ => n.on(f),
                },
                n.on("http3"),
                o("streams")
            ),
            Http3Url => format!("{} needs an https:// URL (QUIC is always TLS)", n.on("http3")),
            GrpcWith(f) => format!(
                "{} does not go with {}: a gRPC call's request is {}'s with {}",
                match *f {
                    "keepalive" => n.off(f),
                    "http3" | "ws" => n.on(f),
                    _ => o(f),
                },
                n.on("grpc"),
                o("call"),
                o("data")
            ),
            GrpcOnly(f) => format!("{} is gRPC's: it needs {}", o(f), n.on("grpc")),
            GrpcCall => format!(
                "{} needs {} (package.Service/Method)",
                n.on("grpc"),
                o("call")
            ),
            StartAt => format!(
                "{} must be a time (Unix seconds of 0 or more)",
                o("start_at")
            ),
        }
    }

    /// The message in `barrage load`'s flags.
    pub fn flags(&self) -> String {
        self.message(Names::Flags)
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(Names::Fields))
    }
}

impl std::error::Error for LoadError {}

/// Headers a WebSocket load may not set: the opening handshake's own (RFC 6455 §4.1), and
/// extensions, which barrage does not speak. `Host` and `Sec-WebSocket-Protocol` may be set.
pub const WS_HANDSHAKE_HEADERS: [&str; 7] = [
    "upgrade",
    "connection",
    "sec-websocket-key",
    "sec-websocket-version",
    "sec-websocket-extensions",
    "content-length",
    "transfer-encoding",
];

/// Whether `b` may be in a token (RFC 9110 `tchar`): methods and header names.
pub fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// A header line as the wire allows it: a token name, a value without CR, LF or NUL; the
/// error is `name: value`.
pub fn check_header(n: &str, v: &str) -> Result<(), String> {
    let bad_value = v.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0);
    if n.is_empty() || !n.bytes().all(is_tchar) || bad_value {
        return Err(format!("{n}: {v}"));
    }
    Ok(())
}

/// Every rule of a load, the first broken one as the error. The URL and the files it names
/// (`targets`, `body_lines`) are the engine's to read; a study's `url` is a path here.
pub fn check(c: &Config) -> Result<(), LoadError> {
    use LoadError::*;
    let fail = |bad: bool, e: LoadError| if bad { Err(e) } else { Ok(()) };
    fail(
        c.targets.is_some() && c.body_lines.is_some(),
        TargetsWithBodyLines,
    )?;
    fail(c.connections == 0, NoConnections)?;
    fail(c.rate.is_some_and(|r| !(r.is_finite() && r > 0.0)), Rate)?;
    if !c.stages.is_empty() {
        fail(c.rate.is_some(), StagesWithRate)?;
        fail(c.duration.is_some() || c.requests.is_some(), StagesWithStop)?;
        let bad = |s: &crate::load::Stage| {
            s.duration.is_zero() || !(s.target.is_finite() && s.target >= 0.0)
        };
        fail(
            c.stages.iter().any(bad) || c.stages.iter().all(|s| s.target == 0.0),
            Stage,
        )?;
        fail(
            c.warmup >= c.stages.iter().map(|s| s.duration).sum(),
            StagesWarmup,
        )?;
    }
    match (c.duration, c.requests) {
        (None, None) if c.stages.is_empty() => return Err(NoStop),
        (Some(d), _) if d.is_zero() => return Err(ZeroDuration),
        _ => {}
    }
    fail(
        c.timeout < Duration::from_millis(1) || c.timeout > Duration::from_secs(3600),
        Timeout,
    )?;
    if c.method.is_empty() || !c.method.bytes().all(is_tchar) {
        return Err(Method(c.method.clone()));
    }
    for (name, value) in &c.headers {
        check_header(name, value).map_err(Header)?;
    }
    fail(
        c.ramp_up.is_some() && (c.rate.is_some() || !c.stages.is_empty()),
        RampUpOpenLoop,
    )?;
    let grpc = matches!(c.protocol, Protocol::Grpc { .. });
    match c.expect_status {
        Some(s) if grpc && usize::from(s) >= GRPC_CODES.len() => return Err(ExpectGrpcStatus),
        Some(s) if !grpc && !(100..=999).contains(&s) => return Err(ExpectStatus),
        _ => {}
    }
    // The protocol's own options were checked when it was made (`Protocol::from_options`);
    // what is left are its rules against the rest of the load.
    let grpc_only = [
        ("call", c.call.is_some()),
        ("proto", c.proto.is_some()),
        ("protoset", c.protoset.is_some()),
        ("data", c.data.is_some()),
        ("data_file", c.data_file.is_some()),
        ("metadata", c.metadata.is_some()),
        ("grpc_compression", c.grpc_compression.is_some()),
    ];
    if grpc {
        fail(c.call.is_none(), GrpcCall)?;
        fail(!c.body.is_empty(), GrpcWith("body"))?;
        fail(c.body_lines.is_some(), GrpcWith("body_lines"))?;
        fail(c.targets.is_some(), GrpcWith("targets"))?;
        fail(c.expect_body.is_some(), GrpcWith("expect_body"))?;
        // A script writes HTTP/1.1 requests; a gRPC call is a method and a message.
        fail(c.script.is_some(), GrpcWith("script"))?;
        fail(c.method != "GET" && c.method != "POST", GrpcWith("method"))?;
    } else if let Some((f, _)) = grpc_only.iter().find(|(_, set)| *set) {
        return Err(GrpcOnly(f));
    }
    let ws = c.protocol.is_ws();
    if matches!(c.protocol, Protocol::Http3 { .. }) {
        fail(!c.url.starts_with("https://"), Http3Url)?;
    }
    let ws_url = c.url.starts_with("ws://") || c.url.starts_with("wss://");
    fail(ws_url && !ws, WsUrlWithoutWs)?;
    if ws {
        fail(!ws_url, WsUrl)?;
        fail(c.method != "GET", WsWith("method"))?;
        // Other headers go on the upgrade request; these the handshake writes and checks.
        if let Some((name, _)) = c.headers.iter().find(|(n, _)| {
            WS_HANDSHAKE_HEADERS
                .iter()
                .any(|h| h.eq_ignore_ascii_case(n))
        }) {
            return Err(WsHeader(name.clone()));
        }
        fail(c.targets.is_some(), WsWith("targets"))?;
        fail(c.expect_status.is_some(), WsWith("expect_status"))?;
    }
    if let Some(s) = c.shard {
        fail(s.index == 0 || s.index > s.count, Shard)?;
        if c.connections < s.count as usize {
            return Err(ShardConnections {
                connections: c.connections,
                shards: s.count,
            });
        }
    }
    fail(
        c.start_at.is_some_and(|t| !(t.is_finite() && t >= 0.0)),
        StartAt,
    )?;
    Ok(())
}

// ---- The sweep's axes ----

/// A sweepable load field (a study's name for it, which is the load `Config`'s except `path`,
/// the `url` of a point, and `tls`, the scheme of that URL, which a point's phase holds:
/// `study::Phase::tls`) and its short label, in the sweep's order (the ranks the declaration
/// gives them, `options.rs`).
pub const AXES: &[(&str, &str)] = &options::AXES;

/// The short label of an axis ("connections" -> "c"); a name that is no load axis (a client
/// study's parameter, `network.rtt`) as it is.
pub fn short_label(name: &str) -> &str {
    AXES.iter()
        .find(|(f, _)| *f == name)
        .map_or(name, |(_, s)| s)
}

/// The field an axis name means, given as the field or its short label ("c" -> "connections");
/// other names as they are.
pub fn axis_field(name: &str) -> &str {
    AXES.iter()
        .find(|(f, s)| *f == name || *s == name)
        .map_or(name, |(f, _)| f)
}

#[cfg(test)]
mod tests;

//! The one description of a load, in one place: the `Config` (every field with its default),
//! its rules ([`check`]: one pure check the engine, the lab and the CLI call), and the fields a
//! study may sweep with their short labels ([`AXES`]). A new load option is a field here, its
//! rule and axis here, its flag in `barrage load`, its line in the study grammar and its use in
//! the engine; `cli/src/load/declared.rs` fails when the flag or the study field is missing.
//!
//! The `barrage.load/2` document is [`doc`]'s (re-exported), its figures' intervals [`intervals`]'.

pub mod doc;
pub mod intervals;
mod names;
mod protocol;

pub use doc::*;
pub use names::Names;
pub use protocol::{
    Options as ProtocolOptions, Protocol, DEFAULT_H2_WINDOW, DEFAULT_WS_MAX_MESSAGE,
};

use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;

/// What to load and how: the one description of a load. Plain data, every field public;
/// `Default` gives wrk-like settings; [`check`] holds its rules (the engine, the lab and the CLI
/// call it; the engine's `Validate` then reads the files and the URL). In a
/// study's points `url` holds only the path: the runner puts the contender's address in front.
/// An unknown field is an error (a renamed field must not be dropped silently); every results
/// document written so far uses only these names (and `path`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// A study file (and study results written before this field existed) says `path`.
    #[serde(alias = "path")]
    pub url: String,
    pub method: String,
    pub headers: Vec<(String, String)>,
    /// Bytes (a JSON array); a study says it as text.
    #[serde(deserialize_with = "crate::units::bytes_or_text::deserialize")]
    pub body: Vec<u8>,
    pub connections: usize,
    /// Worker threads; 0 means one per core. Never more than `connections`.
    pub threads: usize,
    /// Serialized as seconds (a number), like every duration here; read also in the one
    /// duration grammar ("15s"), as a study writes it.
    #[serde(with = "crate::units::secs_or_text::option")]
    pub duration: Option<Duration>,
    pub requests: Option<u64>,
    /// Open loop: requests per second over all connections.
    pub rate: Option<f64>,
    /// Open loop with a rate schedule (k6's stages): each stage ramps the rate linearly from
    /// the previous stage's target (0 before the first) to its own; the run lasts their sum.
    /// Read as a list of stages or as text, `"30s:1000,1m:1000,30s:0"`.
    #[serde(
        deserialize_with = "crate::units::stages_or_text",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub stages: Vec<Stage>,
    /// The protocol with its own options (pipelining, keep-alive, HTTP/2's streams and
    /// window, WebSocket): in documents and study files the flat fields of [`ProtocolOptions`].
    #[serde(flatten)]
    pub protocol: Protocol,
    #[serde(with = "crate::units::secs_or_text::required")]
    pub timeout: Duration,
    #[serde(with = "crate::units::secs_or_text::required")]
    pub warmup: Duration,
    pub expect_status: Option<u16>,
    #[serde(deserialize_with = "crate::units::bytes_or_text::option")]
    pub expect_body: Option<Vec<u8>>,
    pub insecure: bool,
    /// A file of requests to send instead of one (`--targets`): vegeta's `http` format, or JSON
    /// lines. A relative path is the caller's to resolve (a study resolves it against its
    /// directory).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub targets: Option<String>,
    /// `http` or `json`; None: by the file's extension (`.json`, `.jsonl`, `.ndjson` are JSON).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub targets_format: Option<String>,
    /// How requests go over the targets.
    #[serde(skip_serializing_if = "Order::is_round_robin")]
    pub targets_order: Order,
    /// The seed of `targets_order = random`; None: one is drawn, and the result records it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// A file of request bodies, one per line, sent in turn (oha's `-Z`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body_lines: Option<String>,
    /// Closed loop: open the connections evenly over this time instead of all at once.
    #[serde(
        with = "crate::units::secs_or_text::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub ramp_up: Option<Duration>,
    /// Scale-out: this process runs shard `index` of `count` (1-based) of the load.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// Wait until this wall-clock time (Unix seconds) and start then, so that shards start
    /// together.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_at: Option<f64>,
}

/// The names of a load's fields in documents and study files, the protocol's flat options
/// among them (`url` as `url`, not its alias `path`). Read from a `Config` with every field set,
/// because serde lists no fields of a struct with a flattened one; the literal below names every
/// field, so a field added to `Config` does not compile until it is set here, and the
/// declared-once test (cli/src/load/declared.rs) then asks for its flag and study field.
pub fn field_names() -> Vec<String> {
    let every = Config {
        url: "/".into(),
        method: "GET".into(),
        headers: vec![("a".into(), "b".into())],
        body: b"x".to_vec(),
        connections: 1,
        threads: 1,
        duration: Some(Duration::from_secs(1)),
        requests: Some(1),
        rate: Some(1.0),
        stages: vec![Stage {
            duration: Duration::from_secs(1),
            target: 1.0,
        }],
        protocol: Protocol::ws(1),
        timeout: Duration::from_secs(1),
        warmup: Duration::ZERO,
        expect_status: Some(200),
        expect_body: Some(b"x".to_vec()),
        insecure: true,
        targets: Some("t".into()),
        targets_format: Some("http".into()),
        targets_order: Order::Random,
        seed: Some(1),
        body_lines: Some("b".into()),
        ramp_up: Some(Duration::from_secs(1)),
        shard: Some(Shard { index: 1, count: 1 }),
        start_at: Some(0.0),
    };
    // Each protocol writes the flat options, and its own flag (`ws`, `http3`) only when set:
    // the names are those of every protocol's document together.
    let mut names: Vec<String> = Vec::new();
    for protocol in [Protocol::ws(1), Protocol::Http3 { streams: 1 }] {
        let doc = serde_json::to_value(Config {
            protocol,
            ..every.clone()
        });
        let Ok(serde_json::Value::Object(m)) = doc else {
            unreachable!("a Config serializes as an object")
        };
        names.extend(
            m.keys()
                .filter(|k| !names.contains(k))
                .cloned()
                .collect::<Vec<_>>(),
        );
    }
    names
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

impl Default for Config {
    fn default() -> Self {
        Config {
            url: String::new(),
            method: "GET".into(),
            headers: Vec::new(),
            body: Vec::new(),
            connections: 10,
            threads: 0,
            duration: None,
            requests: None,
            rate: None,
            stages: Vec::new(),
            protocol: Protocol::default(),
            timeout: Duration::from_secs(10),
            warmup: Duration::ZERO,
            expect_status: None,
            expect_body: None,
            insecure: false,
            targets: None,
            targets_format: None,
            targets_order: Order::RoundRobin,
            seed: None,
            body_lines: None,
            ramp_up: None,
            shard: None,
            start_at: None,
        }
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
    /// `http3` with an option of another protocol's (its field name).
    Http3With(&'static str),
    /// `http3` with a URL that is not `https://`.
    Http3Url,
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
            ExpectStatus => format!("{} must be between 100 and 999", o("expect_status")),
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
    fail(
        c.expect_status.is_some_and(|s| !(100..=999).contains(&s)),
        ExpectStatus,
    )?;
    // The protocol's own options were checked when it was made (`Protocol::from_options`);
    // what is left are its rules against the rest of the load.
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
/// `study::Phase::tls`) and its short label.
pub const AXES: &[(&str, &str)] = &[
    ("method", "method"),
    ("path", "path"),
    ("body", "body"),
    ("expect_status", "status"),
    ("expect_body", "expect_body"),
    ("keepalive", "keepalive"),
    ("http2", "http2"),
    ("ws", "ws"),
    ("http3", "http3"),
    ("tls", "tls"),
    ("insecure", "insecure"),
    ("pipeline", "pipeline"),
    ("streams", "streams"),
    ("threads", "threads"),
    ("connections", "c"),
    ("rate", "rate"),
    ("stages", "stages"),
    ("targets", "targets"),
    ("targets_format", "targets_format"),
    ("targets_order", "order"),
    ("seed", "seed"),
    ("body_lines", "body_lines"),
    ("ramp_up", "ramp_up"),
    ("duration", "d"),
    ("requests", "n"),
    ("timeout", "timeout"),
];

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

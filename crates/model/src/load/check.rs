//! The one check of a load [`Config`]: the rules a load must meet whoever describes it (`barrage
//! load`'s flags, a study's points, a library caller). Pure: no files, no URL, no clock, so the
//! engine (`Validate`, before it reads targets files and resolves the URL), the lab (every point
//! of a sweep, before any contender starts) and the CLI (before it opens anything) all call it.
//!
//! An error names the options it is about in the caller's words: [`LoadError`]'s `Display` uses
//! the `Config`'s field names, which a study file and a results document use too (`pipeline > 1
//! needs keep-alive ... keepalive = false`); [`LoadError::flags`] uses `barrage load`'s flags
//! (`--pipeline`, `--no-keepalive`). One message per rule either way, one line.

use super::{Config, Stage};
use std::fmt;
use std::time::Duration;

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
    ShardConnections {
        connections: usize,
        shards: u32,
    },
    StartAt,
}

/// The words an error uses for the options: the `Config`'s field names or the CLI's flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    /// `pipeline`, `keepalive = false`: a study file's and a document's words.
    Fields,
    /// `--pipeline`, `--no-keepalive`: `barrage load`'s.
    Flags,
}

impl Names {
    /// The option `field` (a `Config` field name).
    fn opt(self, field: &str) -> String {
        match self {
            Names::Fields => field.to_string(),
            Names::Flags => format!("--{}", field.replace('_', "-")),
        }
    }
    /// The boolean option `field` switched off.
    fn off(self, field: &str) -> String {
        match self {
            Names::Fields => format!("{field} = false"),
            Names::Flags => format!("--no-{}", field.replace('_', "-")),
        }
    }
    /// The boolean option `field` switched on.
    fn on(self, field: &str) -> String {
        match self {
            Names::Fields => format!("{field} = true"),
            Names::Flags => self.opt(field),
        }
    }
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
                "{} > 1 needs {} (HTTP/1.1 has one request per connection at a time; see {})",
                o("streams"),
                n.on("http2"),
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
    fail(c.pipeline == 0 || c.pipeline > 1024, Pipeline)?;
    fail(c.pipeline > 1 && !c.keepalive, PipelineWithoutKeepalive)?;
    fail(c.rate.is_some_and(|r| !(r.is_finite() && r > 0.0)), Rate)?;
    if !c.stages.is_empty() {
        fail(c.rate.is_some(), StagesWithRate)?;
        fail(c.duration.is_some() || c.requests.is_some(), StagesWithStop)?;
        let bad = |s: &Stage| s.duration.is_zero() || !(s.target.is_finite() && s.target >= 0.0);
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
    fail(c.streams == 0 || c.streams > (1 << 31) - 1, Streams)?;
    fail(c.streams > 1 && !c.http2, StreamsWithoutHttp2)?;
    fail(c.http2 && c.pipeline > 1, PipelineWithHttp2)?;
    fail(c.http2 && !c.keepalive, Http2WithoutKeepalive)?;
    fail(
        c.http2 && !(65_535..=(1 << 31) - 1).contains(&c.h2_window),
        Window,
    )?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::Shard;

    fn ok() -> Config {
        Config {
            url: "/".into(),
            duration: Some(Duration::from_secs(1)),
            ..Config::default()
        }
    }

    /// Each rule, broken alone, gives its error; the messages in both words.
    #[test]
    fn every_rule_has_its_error_and_one_line_in_both_words() {
        assert_eq!(check(&ok()), Ok(()));
        let stage = |secs, target| Stage {
            duration: Duration::from_secs(secs),
            target,
        };
        #[rustfmt::skip]
        let cases: Vec<(Config, LoadError, &str, &str)> = vec![
            (Config { connections: 0, ..ok() }, LoadError::NoConnections, "connections must be at least 1", "--connections must"),
            (Config { pipeline: 0, ..ok() }, LoadError::Pipeline, "pipeline must be between 1 and 1024", "--pipeline must"),
            (Config { pipeline: 2, keepalive: false, ..ok() }, LoadError::PipelineWithoutKeepalive, "pipeline > 1 needs keep-alive (with keepalive = false", "--pipeline > 1 needs keep-alive (with --no-keepalive"),
            (Config { rate: Some(0.0), ..ok() }, LoadError::Rate, "rate must be a positive", "--rate must"),
            (Config { rate: Some(f64::NAN), ..ok() }, LoadError::Rate, "rate must", "--rate must"),
            (Config { duration: None, ..ok() }, LoadError::NoStop, "needs a duration, a number of requests or stages (duration, requests or stages)", "(--duration, --requests or --stages)"),
            (Config { duration: Some(Duration::ZERO), ..ok() }, LoadError::ZeroDuration, "duration must be longer than zero", "--duration must"),
            (Config { timeout: Duration::ZERO, ..ok() }, LoadError::Timeout, "timeout must be between 1 ms", "--timeout must"),
            (Config { method: "GE T".into(), ..ok() }, LoadError::Method("GE T".into()), "invalid method \"GE T\"", "invalid method"),
            (Config { headers: vec![("X".into(), "a\r\nb".into())], ..ok() }, LoadError::Header("X: a\r\nb".into()), "invalid header \"X: a\\r\\nb\"", "invalid header"),
            (Config { headers: vec![("X Y".into(), "a".into())], ..ok() }, LoadError::Header("X Y: a".into()), "invalid header", "invalid header"),
            (Config { expect_status: Some(99), ..ok() }, LoadError::ExpectStatus, "expect_status must be between 100 and 999", "--expect-status must"),
            (Config { streams: 0, ..ok() }, LoadError::Streams, "streams (streams per connection) must", "--streams (streams per connection) must"),
            (Config { streams: 2, ..ok() }, LoadError::StreamsWithoutHttp2, "streams > 1 needs http2 = true", "--streams > 1 needs --http2"),
            (Config { http2: true, pipeline: 2, ..ok() }, LoadError::PipelineWithHttp2, "pipeline is HTTP/1.1's", "--pipeline is HTTP/1.1's; HTTP/2 runs concurrent streams instead (--streams)"),
            (Config { http2: true, keepalive: false, ..ok() }, LoadError::Http2WithoutKeepalive, "keepalive = false does not apply to HTTP/2", "--no-keepalive does not apply"),
            (Config { http2: true, h2_window: 100, ..ok() }, LoadError::Window, "window (h2_window) must be between", "(--h2-window)"),
            (Config { stages: vec![stage(1, 5.0)], rate: Some(1.0), duration: None, ..ok() }, LoadError::StagesWithRate, "stages is a rate schedule", "--stages is a rate schedule of its own: give it without --rate"),
            (Config { stages: vec![stage(1, 5.0)], ..ok() }, LoadError::StagesWithStop, "without duration or requests", "without --duration or --requests"),
            (Config { stages: vec![stage(1, 0.0)], duration: None, ..ok() }, LoadError::Stage, "each of stages needs", "each of --stages needs"),
            (Config { stages: vec![stage(0, 5.0)], duration: None, ..ok() }, LoadError::Stage, "each of stages", "each of --stages"),
            (Config { stages: vec![stage(1, 5.0)], duration: None, warmup: Duration::from_secs(1), ..ok() }, LoadError::StagesWarmup, "warmup must be shorter than stages", "--warmup must be shorter than --stages"),
            (Config { targets: Some("t".into()), body_lines: Some("b".into()), ..ok() }, LoadError::TargetsWithBodyLines, "targets and body_lines are", "--targets and --body-lines are"),
            (Config { ramp_up: Some(Duration::from_secs(1)), rate: Some(5.0), ..ok() }, LoadError::RampUpOpenLoop, "ramp_up opens", "--ramp-up opens the closed loop's connections gradually; an open loop (--rate, --stages)"),
            (Config { shard: Some(Shard { index: 3, count: 2 }), ..ok() }, LoadError::Shard, "shard I/N needs", "--shard I/N needs"),
            (Config { shard: Some(Shard { index: 1, count: 20 }), ..ok() }, LoadError::ShardConnections { connections: 10, shards: 20 }, "10 connections cannot be split over 20 shards", "10 connections"),
            (Config { start_at: Some(-1.0), ..ok() }, LoadError::StartAt, "start_at must be a time", "--start-at must"),
        ];
        for (cfg, want, fields, flags) in cases {
            let e = check(&cfg).unwrap_err();
            assert_eq!(e, want);
            let (f, g) = (e.to_string(), e.flags());
            assert!(f.contains(fields), "{f:?} lacks {fields:?}");
            assert!(g.contains(flags), "{g:?} lacks {flags:?}");
            assert!(!f.contains('\n') && !g.contains('\n'), "{f:?} / {g:?}");
            assert!(!f.contains("--"), "field words name no flag: {f:?}");
        }
    }

    /// What a rule allows stays allowed: the edges of each range.
    #[test]
    fn the_edges_of_each_range_pass() {
        #[rustfmt::skip]
        let allowed = [
            Config { pipeline: 1024, ..ok() },
            Config { timeout: Duration::from_millis(1), ..ok() },
            Config { timeout: Duration::from_secs(3600), ..ok() },
            Config { expect_status: Some(100), ..ok() },
            Config { http2: true, streams: 100, h2_window: 65_535, ..ok() },
            Config { requests: Some(5), duration: None, ..ok() },
            Config { shard: Some(Shard { index: 10, count: 10 }), ..ok() },
            Config { start_at: Some(0.0), ..ok() },
            Config { ramp_up: Some(Duration::from_secs(1)), ..ok() },
        ];
        for cfg in allowed {
            assert_eq!(check(&cfg), Ok(()), "{cfg:?}");
        }
    }
}

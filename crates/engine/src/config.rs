//! The run's configuration: plain data from the CLI or a study file, and its validated form.
//!
//! Validation is the only place that interprets the URL and checks option combinations, so the
//! workers can take every field at face value.

use serde::Serialize;
use std::time::Duration;
use thiserror::Error;

/// What to load and how: the one description of a load, declared in the model (plain data;
/// `barrage load`'s flags and a study's points both produce it).
pub use barrage_model::load::Config;

/// A configuration option that cannot be run.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConfigError {
    #[error("bad URL {url:?}: {why}")]
    Url { url: String, why: &'static str },
    #[error("connections must be at least 1")]
    NoConnections,
    #[error("pipeline depth must be between 1 and 1024")]
    Pipeline,
    #[error(
        "--pipeline needs keep-alive (with --no-keepalive every request has its own connection)"
    )]
    PipelineWithoutKeepalive,
    #[error("rate must be a positive, finite number of requests per second")]
    Rate,
    #[error("no stop condition: give a duration or a number of requests")]
    NoStop,
    #[error("duration must be longer than zero")]
    ZeroDuration,
    #[error("timeout must be between 1 ms and 1 hour")]
    Timeout,
    #[error("invalid method {0:?}")]
    Method(String),
    #[error("invalid header {0:?}")]
    Header(String),
    #[error("expected status must be between 100 and 999")]
    ExpectStatus,
    #[error("streams per connection must be between 1 and 2^31-1")]
    Streams,
    #[error("--streams needs --http2 (HTTP/1.1 has one request per connection at a time; see --pipeline)")]
    StreamsWithoutHttp2,
    #[error("--pipeline is HTTP/1.1's; HTTP/2 runs concurrent streams instead (--streams)")]
    PipelineWithHttp2,
    #[error("--no-keepalive does not apply to HTTP/2, whose connections carry every stream")]
    Http2WithoutKeepalive,
    #[error("the HTTP/2 window must be between 65,535 and 2^31-1 bytes")]
    Window,
    #[error("--stages is a rate schedule of its own: give it without --rate")]
    StagesWithRate,
    #[error("--stages sets the run's length (the sum of its stages): give it without --duration or --requests")]
    StagesWithStop,
    #[error("each stage needs a duration above 0 and a rate of 0 or more, and one rate above 0")]
    Stage,
    #[error("the warmup must be shorter than the stages (the schedule starts with the warmup)")]
    StagesWarmup,
    /// A targets or body-lines file that cannot be used: `FILE:LINE: why`.
    #[error("{0}")]
    Targets(String),
    #[error("--targets and --body-lines are two ways to vary the request: give one")]
    TargetsWithBodyLines,
    #[error("--ramp-up opens the closed loop's connections gradually; an open loop (--rate, --stages) paces requests instead")]
    RampUpOpenLoop,
    #[error("--shard I/N needs 1 <= I <= N")]
    Shard,
    #[error(
        "{connections} connections cannot be split over {shards} shards: give each at least one"
    )]
    ShardConnections { connections: usize, shards: u32 },
    #[error("--start-at must be a time (Unix seconds of 0 or more)")]
    StartAt,
}

/// Where requests go, taken apart from the URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Target {
    pub tls: bool,
    /// Host as written (without brackets for IPv6), used for DNS and TLS server name.
    pub host: String,
    pub port: u16,
    /// Path and query, starting with `/`.
    pub path: String,
    /// Value for the Host header.
    pub authority: String,
}

/// One request the run sends, resolved against the run's origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    pub method: String,
    /// Path and query, starting with `/`.
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// A configuration that passed [`Config::validate`]; the engine runs only these.
#[derive(Debug, Clone)]
pub struct ValidConfig {
    pub(crate) cfg: Config,
    pub(crate) target: Target,
    pub(crate) threads: usize,
    /// The requests, in the targets file's or body file's order (one without either).
    pub(crate) requests: Vec<Planned>,
    /// `--targets` runs: each request is a target with figures of its own, written as (method,
    /// URL, line).
    pub(crate) targets: Vec<(String, String, usize)>,
    /// The order requests go in, repeated: indices into `requests`.
    pub(crate) order: Vec<u32>,
}

impl ValidConfig {
    pub fn config(&self) -> &Config {
        &self.cfg
    }
    pub fn target(&self) -> &Target {
        &self.target
    }
    /// Worker threads the run will use (after defaulting and capping at the connections).
    pub fn threads(&self) -> usize {
        self.threads
    }
    /// The requests the run sends, in their file's order.
    pub fn requests(&self) -> &[Planned] {
        &self.requests
    }
    /// The order requests go in (indices into [`ValidConfig::requests`]), repeated.
    pub fn order(&self) -> &[u32] {
        &self.order
    }
}

/// Validation of a [`Config`] (the engine's part of the plain-data description).
pub trait Validate {
    fn validate(&self) -> Result<ValidConfig, ConfigError>;
}

impl Validate for Config {
    fn validate(&self) -> Result<ValidConfig, ConfigError> {
        let mut cfg = self.clone();
        let (target, requests, targets) = crate::plan::requests(&mut cfg)?;
        if self.connections == 0 {
            return Err(ConfigError::NoConnections);
        }
        if self.pipeline == 0 || self.pipeline > 1024 {
            return Err(ConfigError::Pipeline);
        }
        if self.pipeline > 1 && !self.keepalive {
            return Err(ConfigError::PipelineWithoutKeepalive);
        }
        if let Some(r) = self.rate {
            if !(r.is_finite() && r > 0.0) {
                return Err(ConfigError::Rate);
            }
        }
        if !self.stages.is_empty() {
            if self.rate.is_some() {
                return Err(ConfigError::StagesWithRate);
            }
            if self.duration.is_some() || self.requests.is_some() {
                return Err(ConfigError::StagesWithStop);
            }
            let bad = |s: &barrage_model::load::Stage| {
                s.duration.is_zero() || !(s.target.is_finite() && s.target >= 0.0)
            };
            if self.stages.iter().any(bad) || self.stages.iter().all(|s| s.target == 0.0) {
                return Err(ConfigError::Stage);
            }
            if self.warmup >= self.stages.iter().map(|s| s.duration).sum() {
                return Err(ConfigError::StagesWarmup);
            }
        }
        match (self.duration, self.requests) {
            (None, None) if self.stages.is_empty() => return Err(ConfigError::NoStop),
            (Some(d), _) if d.is_zero() => return Err(ConfigError::ZeroDuration),
            _ => {}
        }
        if self.timeout < Duration::from_millis(1) || self.timeout > Duration::from_secs(3600) {
            return Err(ConfigError::Timeout);
        }
        if self.method.is_empty() || !self.method.bytes().all(is_tchar) {
            return Err(ConfigError::Method(self.method.clone()));
        }
        for (n, v) in &self.headers {
            check_header(n, v).map_err(ConfigError::Header)?;
        }
        if self.ramp_up.is_some() && (self.rate.is_some() || !self.stages.is_empty()) {
            return Err(ConfigError::RampUpOpenLoop);
        }
        if let Some(s) = self.expect_status {
            if !(100..=999).contains(&s) {
                return Err(ConfigError::ExpectStatus);
            }
        }
        if self.streams == 0 || self.streams > (1 << 31) - 1 {
            return Err(ConfigError::Streams);
        }
        if self.streams > 1 && !self.http2 {
            return Err(ConfigError::StreamsWithoutHttp2);
        }
        if self.http2 && self.pipeline > 1 {
            return Err(ConfigError::PipelineWithHttp2);
        }
        if self.http2 && !self.keepalive {
            return Err(ConfigError::Http2WithoutKeepalive);
        }
        if self.http2 && !(65_535..=(1 << 31) - 1).contains(&self.h2_window) {
            return Err(ConfigError::Window);
        }
        let mut connections = self.connections;
        if let Some(s) = self.shard {
            if s.index == 0 || s.index > s.count {
                return Err(ConfigError::Shard);
            }
            if self.connections < s.count as usize {
                return Err(ConfigError::ShardConnections {
                    connections: self.connections,
                    shards: s.count,
                });
            }
            // This shard's share (the first ones take the remainder, as the run splits them).
            connections = self.connections / s.count as usize
                + usize::from(((s.index - 1) as usize) < self.connections % s.count as usize);
        }
        if self.start_at.is_some_and(|t| !(t.is_finite() && t >= 0.0)) {
            return Err(ConfigError::StartAt);
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = if self.threads == 0 {
            cores
        } else {
            self.threads
        };
        let order = match self.targets_order {
            barrage_model::load::Order::RoundRobin => (0..requests.len() as u32).collect(),
            barrage_model::load::Order::Random => {
                // Drawn when not given, and recorded in the result's config.
                let seed = *cfg.seed.get_or_insert_with(draw_seed);
                crate::targets::shuffled(requests.len(), seed)
            }
        };
        Ok(ValidConfig {
            cfg,
            target,
            threads: threads.min(connections).max(1),
            requests,
            targets,
            order,
        })
    }
}

/// A seed for a shuffle nobody seeded: the clock's nanoseconds.
fn draw_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// A header line as the wire allows it: a token name, a value without CR, LF or NUL; the
/// error is `name: value`.
pub(crate) fn check_header(n: &str, v: &str) -> Result<(), String> {
    let bad_value = v.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0);
    if n.is_empty() || !n.bytes().all(is_tchar) || bad_value {
        return Err(format!("{n}: {v}"));
    }
    Ok(())
}

pub(crate) use crate::targets::is_tchar;

/// Parses `http://host[:port][/path]` and `https://...`; IPv6 literals in brackets.
pub fn parse_url(url: &str) -> Result<Target, ConfigError> {
    let bad = |why| ConfigError::Url {
        url: url.to_string(),
        why,
    };
    let (tls, rest) = if let Some(r) = url.strip_prefix("http://") {
        (false, r)
    } else if let Some(r) = url.strip_prefix("https://") {
        (true, r)
    } else if url.contains("://") {
        return Err(bad("only http:// and https:// are supported"));
    } else {
        return Err(bad("missing scheme (http:// or https://)"));
    };
    if url.bytes().any(|b| b <= b' ' || b == 0x7f) {
        return Err(bad("contains spaces or control characters"));
    }
    let (authority, path) = match rest.find(['/', '?']) {
        Some(i) if rest.as_bytes()[i] == b'/' => (&rest[..i], rest[i..].to_string()),
        Some(i) => (&rest[..i], format!("/{}", &rest[i..])),
        None => (rest, "/".to_string()),
    };
    let path = match path.find('#') {
        Some(i) => path[..i].to_string(),
        None => path,
    };
    if authority.contains('@') {
        return Err(bad("user information in URLs is not supported"));
    }
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let end = v6.find(']').ok_or_else(|| bad("unclosed '[' in host"))?;
        let host = &v6[..end];
        let after = &v6[end + 1..];
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p),
            None if after.is_empty() => None,
            None => return Err(bad("junk after IPv6 address")),
        };
        (host, port)
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    if host.is_empty() {
        return Err(bad("missing host"));
    }
    let port = match port {
        Some(p) => p
            .parse::<u16>()
            .ok()
            .filter(|&p| p != 0)
            .ok_or_else(|| bad("bad port"))?,
        None if tls => 443,
        None => 80,
    };
    Ok(Target {
        tls,
        host: host.to_string(),
        port,
        path,
        authority: authority.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let t = parse_url("http://127.0.0.1:8080/a?b").unwrap();
        assert_eq!(
            (t.tls, t.host.as_str(), t.port, t.path.as_str()),
            (false, "127.0.0.1", 8080, "/a?b")
        );
        assert_eq!(t.authority, "127.0.0.1:8080");
        let t = parse_url("https://example.com").unwrap();
        assert_eq!((t.tls, t.port, t.path.as_str()), (true, 443, "/"));
        let t = parse_url("http://[::1]:9/x#frag").unwrap();
        assert_eq!((t.host.as_str(), t.port, t.path.as_str()), ("::1", 9, "/x"));
        let t = parse_url("http://h?q=1").unwrap();
        assert_eq!(t.path, "/?q=1");
        for bad in [
            "",
            "example.com",
            "ftp://x",
            "http://",
            "http://:80/",
            "http://h:0/",
            "http://h:99999/",
            "http://h:x/",
            "http://u@h/",
            "http://h/a b",
            "http://[::1/",
        ] {
            assert!(parse_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn validation() {
        let ok = Config {
            url: "http://127.0.0.1:1/".into(),
            duration: Some(Duration::from_secs(1)),
            ..Config::default()
        };
        assert!(ok.validate().is_ok());
        let cases: Vec<(Config, ConfigError)> = vec![
            (
                Config {
                    connections: 0,
                    ..ok.clone()
                },
                ConfigError::NoConnections,
            ),
            (
                Config {
                    pipeline: 0,
                    ..ok.clone()
                },
                ConfigError::Pipeline,
            ),
            (
                Config {
                    pipeline: 2,
                    keepalive: false,
                    ..ok.clone()
                },
                ConfigError::PipelineWithoutKeepalive,
            ),
            (
                Config {
                    rate: Some(0.0),
                    ..ok.clone()
                },
                ConfigError::Rate,
            ),
            (
                Config {
                    rate: Some(f64::NAN),
                    ..ok.clone()
                },
                ConfigError::Rate,
            ),
            (
                Config {
                    duration: None,
                    ..ok.clone()
                },
                ConfigError::NoStop,
            ),
            (
                Config {
                    method: "GE T".into(),
                    ..ok.clone()
                },
                ConfigError::Method("GE T".into()),
            ),
            (
                Config {
                    headers: vec![("X".into(), "a\r\nb".into())],
                    ..ok.clone()
                },
                ConfigError::Header("X: a\r\nb".into()),
            ),
            (
                Config {
                    timeout: Duration::ZERO,
                    ..ok.clone()
                },
                ConfigError::Timeout,
            ),
        ];
        for (cfg, want) in cases {
            assert_eq!(cfg.validate().unwrap_err(), want);
        }
        let json = serde_json::to_string(&ok).unwrap();
        assert!(json.contains("\"duration\":1.0"), "{json}");
        let back: Config = serde_json::from_str(&json).unwrap();
        assert_eq!(back, ok);
        let partial: Config = serde_json::from_str(r#"{"url":"http://h/","timeout":0.5}"#).unwrap();
        assert_eq!(partial.timeout, Duration::from_millis(500));
        assert_eq!(partial.connections, Config::default().connections);
        let v = Config {
            connections: 3,
            threads: 8,
            ..ok
        }
        .validate()
        .unwrap();
        assert_eq!(v.threads(), 3);
    }
}

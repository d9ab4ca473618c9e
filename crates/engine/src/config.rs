//! The run's configuration: plain data from the CLI or a study file, and its validated form.
//!
//! Validation is the only place that interprets the URL and checks option combinations, so the
//! workers can take every field at face value.

use barrage_model::load::LoadError;
use serde::Serialize;
use thiserror::Error;

/// What to load and how: the one description of a load, declared in the model (plain data;
/// `barrage load`'s flags and a study's points both produce it).
pub use barrage_model::load::Config;

/// A configuration option that cannot be run.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConfigError {
    /// A rule of the load itself, the model's one check (`barrage_model::load::check`).
    #[error("{0}")]
    Load(#[from] LoadError),
    #[error("bad URL {url:?}: {why}")]
    Url { url: String, why: &'static str },
    /// A targets or body-lines file that cannot be used: `FILE:LINE: why`.
    #[error("{0}")]
    Targets(String),
    /// A gRPC call that cannot be made: its schema, its method or its data.
    #[error("{0}")]
    Grpc(String),
    /// A script that cannot run: it does not compile, a hook failed or was stopped in the
    /// probe, or it asks for what the run cannot do (`file:line: message (in hook)`); or it
    /// called `os.exit(status)` in the probe, before any load (`exit`: what wrk's process
    /// would end with). `printed`: what it printed before, for the caller to show.
    #[error("{message}")]
    Script {
        message: String,
        printed: String,
        exit: Option<u8>,
    },
}

impl ConfigError {
    /// A script the run cannot take, which printed nothing.
    pub(crate) fn script(message: String) -> ConfigError {
        ConfigError::Script {
            message,
            printed: String::new(),
            exit: None,
        }
    }
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

/// One request the run sends, resolved against the run's origin (wire's, which every
/// protocol's setup reads).
pub use barrage_wire::client::Request as ResolvedRequest;

/// A configuration that passed [`Config::validate`]; the engine runs only these.
#[derive(Debug, Clone)]
pub struct ValidConfig {
    pub(crate) cfg: Config,
    pub(crate) target: Target,
    pub(crate) threads: usize,
    /// The requests, in the targets file's or body file's order (one without either).
    pub(crate) requests: Vec<ResolvedRequest>,
    /// `--targets` runs: each request is a target with figures of its own, written as (method,
    /// URL, line).
    pub(crate) targets: Vec<(String, String, usize)>,
    /// The order requests go in, repeated: indices into `requests`.
    pub(crate) order: Vec<u32>,
    /// A gRPC load whose method answers with exactly one message (unary, client-streaming).
    pub(crate) grpc_one_reply: bool,
    /// `--script`: what the probe learned of it.
    pub(crate) script: Option<std::sync::Arc<crate::script::ScriptPlan>>,
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
    pub fn requests(&self) -> &[ResolvedRequest] {
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
        barrage_model::load::check(self)?;
        let mut cfg = self.clone();
        // WebSocket: its upgrade is an HTTP/1.1 request to the same origin, so the URL is read
        // as its HTTP form (the document keeps it as given).
        if cfg.protocol.is_ws() {
            cfg.url = http_form(&self.url);
        }
        let crate::plan::Resolved {
            target,
            mut requests,
            targets,
            grpc_one_reply,
        } = crate::plan::requests(&mut cfg)?;
        let script = match &self.script {
            Some(path) => Some(std::sync::Arc::new(crate::script::plan(
                self,
                path,
                &target,
                &mut requests,
            )?)),
            None => None,
        };
        cfg.url.clone_from(&self.url);
        let mut connections = self.connections;
        if let Some(s) = self.shard {
            // This shard's share (the first ones take the remainder, as the run splits them).
            connections = self.connections / s.count as usize
                + usize::from(((s.index - 1) as usize) < self.connections % s.count as usize);
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
            grpc_one_reply,
            script,
        })
    }
}

/// `ws://` as `http://` and `wss://` as `https://`; any other URL as it is.
fn http_form(url: &str) -> String {
    if let Some(r) = url.strip_prefix("ws://") {
        format!("http://{r}")
    } else if let Some(r) = url.strip_prefix("wss://") {
        format!("https://{r}")
    } else {
        url.to_string()
    }
}

/// A seed for a shuffle nobody seeded: the clock's nanoseconds.
fn draw_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

pub(crate) use barrage_model::load::check_header;

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
    use std::time::Duration;

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
        // The load's rules are the model's (table-tested there); validation applies them first.
        let cases: Vec<(Config, ConfigError)> = vec![
            (
                Config {
                    url: "ws://h/".into(),
                    ..ok.clone()
                },
                LoadError::WsUrlWithoutWs.into(),
            ),
            (
                Config {
                    url: "ftp://h/".into(),
                    ..ok.clone()
                },
                ConfigError::Url {
                    url: "ftp://h/".into(),
                    why: "only http:// and https:// are supported",
                },
            ),
            (
                Config {
                    url: "ftp://h/".into(),
                    connections: 0,
                    ..ok.clone()
                },
                LoadError::NoConnections.into(),
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

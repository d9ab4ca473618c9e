//! The run's requests: the one the config describes, or one per target of a `--targets` file,
//! or one per line of a `--body-lines` file, resolved against one origin.
//!
//! One origin per run: every connection of a run goes to one address, so targets that name
//! another scheme, host or port are refused with their line rather than sent to the wrong
//! server. A target may be a path only; it takes the run's origin (a study's targets file is
//! written that way, since the contender's port is known only at run time).

use crate::config::{check_header, parse_url, ConfigError, ResolvedRequest, Target};
use crate::targets::{self, Format};
use barrage_model::load::Config;

/// `(method, URL, line)` of each target, for its figures.
pub(crate) type TargetInfo = (String, String, usize);

/// A config's requests, resolved.
pub(crate) struct Resolved {
    /// The origin.
    pub target: Target,
    pub requests: Vec<ResolvedRequest>,
    /// The targets that get figures of their own (`--targets` runs).
    pub targets: Vec<TargetInfo>,
    /// A gRPC load whose method answers with exactly one message (unary, client-streaming).
    pub grpc_one_reply: bool,
}

/// The origin and the requests of `cfg`, and the targets that get figures of their own.
pub(crate) fn requests(cfg: &mut Config) -> Result<Resolved, ConfigError> {
    let one = |c: &Config, body: Vec<u8>, path: &str| ResolvedRequest {
        method: c.method.clone(),
        path: path.to_string(),
        headers: c.headers.clone(),
        body,
    };
    if let Some(path) = cfg.targets.clone() {
        let (target, requests, targets) = from_targets(cfg, &path)?;
        return Ok(Resolved {
            target,
            requests,
            targets,
            grpc_one_reply: false,
        });
    }
    let target = parse_url(&cfg.url)?;
    if matches!(cfg.protocol, barrage_model::load::Protocol::Grpc { .. }) {
        let call = crate::call::request(cfg, &target)?;
        return Ok(Resolved {
            target,
            requests: vec![call.request],
            targets: Vec::new(),
            grpc_one_reply: call.one_reply,
        });
    }
    let requests = match cfg.body_lines.clone() {
        Some(file) => targets::load_body_lines(&file)
            .map_err(ConfigError::Targets)?
            .into_iter()
            .map(|b| one(cfg, b, &target.path))
            .collect(),
        None => vec![one(cfg, cfg.body.clone(), &target.path)],
    };
    Ok(Resolved {
        target,
        requests,
        targets: Vec::new(),
        grpc_one_reply: false,
    })
}

fn from_targets(
    cfg: &Config,
    file: &str,
) -> Result<(Target, Vec<ResolvedRequest>, Vec<TargetInfo>), ConfigError> {
    let err = |line: usize, why: String| ConfigError::Targets(format!("{file}:{line}: {why}"));
    let format = Format::choose(cfg.targets_format.as_deref(), file)
        .map_err(|e| ConfigError::Targets(format!("{file}: {e}")))?;
    let specs = targets::load(file, format).map_err(ConfigError::Targets)?;
    // The run's origin: its URL's, else the first target's.
    let origin = if cfg.url.is_empty() {
        let first = &specs[0];
        if first.url.starts_with('/') {
            return Err(err(
                first.line,
                format!(
                    "{:?} is a path: give the run a URL for its origin, or write absolute URLs",
                    first.url
                ),
            ));
        }
        parse_url(&first.url).map_err(|e| err(first.line, e.to_string()))?
    } else {
        parse_url(&cfg.url)?
    };
    let scheme = if origin.tls { "https" } else { "http" };
    let mut requests = Vec::with_capacity(specs.len());
    let mut infos = Vec::with_capacity(specs.len());
    for t in specs {
        let path = if t.url.starts_with('/') {
            parse_url(&format!("{scheme}://{}{}", origin.authority, t.url))
                .map_err(|e| err(t.line, e.to_string()))?
                .path
        } else {
            let u = parse_url(&t.url).map_err(|e| err(t.line, e.to_string()))?;
            if (u.tls, &u.host, u.port) != (origin.tls, &origin.host, origin.port) {
                return Err(err(
                    t.line,
                    format!(
                        "{} is not on the run's origin {scheme}://{}: a run loads one origin \
                         (split the file, one run per origin)",
                        t.url, origin.authority
                    ),
                ));
            }
            u.path
        };
        let mut headers = t.headers;
        for (n, v) in &headers {
            check_header(n, v).map_err(|h| err(t.line, format!("bad header {h:?}")))?;
        }
        // The run's own headers (`-H`) go with every target that does not set them itself.
        for (n, v) in &cfg.headers {
            if !headers.iter().any(|(m, _)| m.eq_ignore_ascii_case(n)) {
                headers.push((n.clone(), v.clone()));
            }
        }
        infos.push((
            t.method.clone(),
            format!("{scheme}://{}{path}", origin.authority),
            t.line,
        ));
        requests.push(ResolvedRequest {
            method: t.method,
            path,
            headers,
            body: t.body,
        });
    }
    let target = Target {
        path: requests[0].path.clone(),
        ..origin
    };
    Ok((target, requests, infos))
}

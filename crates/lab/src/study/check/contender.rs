//! A `[[contender]]` table checked into a [`ContenderSpec`]: its name, its start command (a
//! server's must say where to listen), its directory, readiness probe and stop signal.

use super::*;

fn command_line(c: &CommandValue) -> String {
    match c {
        CommandValue::Line(s) => s.trim().to_string(),
        CommandValue::Argv(v) => v
            .iter()
            .map(|a| shell_quote(a))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// Quotes one argument for `sh -c` (placeholders inside stay intact: braces are not special).
pub fn shell_quote(a: &str) -> String {
    if !a.is_empty()
        && a.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,{}".contains(c))
    {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

pub(super) fn contender(
    c: &Spanned<raw::Contender>,
    kind: ContenderRole,
    base_dir: &Path,
    err: Err,
) -> Result<ContenderSpec, StudyError> {
    let r = c.get_ref();
    let name = r.name.get_ref().trim().to_string();
    if name.is_empty()
        || !name
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '-' | '_' | '.' | '+'))
    {
        return Err(err(
            Some(r.name.span()),
            format!("contender name {name:?} must be letters, digits, '-', '_', '.' or '+'"),
        ));
    }
    let start = command_line(r.start.get_ref());
    if start.is_empty() {
        return Err(err(
            Some(r.start.span()),
            format!("contender {name:?}: start is empty"),
        ));
    }
    // A server must be told where to listen: barrage picks the port.
    let tells_port = |t: &str| {
        ["{port}", "{addr}", "{url}", "{base}"]
            .iter()
            .any(|p| t.contains(p))
    };
    if kind == ContenderRole::Server
        && !tells_port(&start)
        && !r.env.values().any(|v| tells_port(v))
    {
        return Err(err(
            Some(r.start.span()),
            format!("contender {name:?}: start (or env) must pass {{port}} (or {{addr}}, {{url}}): barrage picks a free port for each trial and probes it"),
        ));
    }
    let dir = match &r.dir {
        Some(d) => base_dir.join(d),
        None => base_dir.to_path_buf(),
    };
    if !dir.is_dir() {
        return Err(err(
            Some(r.name.span()),
            format!(
                "contender {name:?}: directory {} does not exist",
                dir.display()
            ),
        ));
    }
    let ready = match (&r.ready, kind) {
        (None, ContenderRole::Server) => ReadySpec::Tcp {
            timeout: Duration::from_secs(10),
        },
        (None, ContenderRole::Client) => ReadySpec::None,
        (Some(s), _) => {
            let (k, path, timeout, status) = match s.get_ref() {
                raw::Ready::Kind(k) => (k.clone(), None, None, None),
                raw::Ready::Table(t) => (t.kind.clone(), t.path.clone(), t.timeout, t.status),
            };
            let timeout = timeout.map_or(Duration::from_secs(10), Dur::get);
            match (k.as_str(), kind) {
                ("none", _) => ReadySpec::None,
                ("tcp", ContenderRole::Server) => ReadySpec::Tcp { timeout },
                ("http", ContenderRole::Server) => ReadySpec::Http {
                    path: path.unwrap_or_else(|| "/".into()),
                    status,
                    timeout,
                },
                ("tcp" | "http", ContenderRole::Client) => {
                    return Err(err(
                        Some(s.span()),
                        format!("contender {name:?}: client contenders have no readiness probe"),
                    ))
                }
                (other, _) => {
                    return Err(err(
                        Some(s.span()),
                        format!("contender {name:?}: ready must be \"tcp\", \"http\" or \"none\", not {other:?}"),
                    ))
                }
            }
        }
    };
    let (stop_signal, stop_signal_number) = match &r.stop_signal {
        None => ("TERM".to_string(), libc::SIGTERM),
        Some(s) => match crate::supervise::parse_signal(s.get_ref()) {
            Some(n) => (s.get_ref().clone(), n),
            None => {
                return Err(err(
                    Some(s.span()),
                    format!("contender {name:?}: unknown signal {:?}", s.get_ref()),
                ))
            }
        },
    };
    Ok(ContenderSpec {
        name,
        dir,
        build: r.build.as_ref().map(command_line).filter(|b| !b.is_empty()),
        start,
        ready,
        env: r.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        stop_signal,
        stop_signal_number,
        requires: r.requires.clone(),
        memory_limit: r.memory_limit.map(|b| b.0),
    })
}

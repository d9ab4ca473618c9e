//! Validation of the raw study file into a [`Study`]: defaults, ranges, cross-field rules, and
//! the sweep expanded once so a bad point is reported before any contender starts.

use super::raw::{self, CommandValue};
use super::*;
use barrage_engine::Validate as _;
use std::ops::Range;
use toml::Spanned;

mod contender;
mod figures;
mod limits;
use contender::contender;
pub use contender::shell_quote;
use limits::{busy_limit, max_errors, on_busy};

type Err<'a> = &'a dyn Fn(Option<Range<usize>>, String) -> StudyError;

/// Whether `n` can name a `name=value` token of a client's stdout.
fn token_name(n: &str) -> bool {
    !n.is_empty()
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}

/// Placeholders barrage fills in commands; client parameters may not shadow them.
pub const RESERVED: &[&str] = &[
    "url",
    "base",
    "host",
    "port",
    "addr",
    "out",
    "tmp",
    "dir",
    "barrage",
    "checksum",
    "trial",
    "contender",
];

pub(super) fn validate(
    f: raw::File,
    src: &str,
    base_dir: &Path,
    err: Err,
) -> Result<Study, StudyError> {
    let _ = src;
    let st = f.study.get_ref();
    let name = st.name.get_ref().trim().to_string();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(err(
            Some(st.name.span()),
            format!("study name {name:?} must be letters, digits, '-', '_' or '.' (it names the results directory)"),
        ));
    }
    let kind = match (&st.kind, &f.load, &f.client) {
        (Some(k), _, _) => match k.get_ref().as_str() {
            "server" => ContenderRole::Server,
            "client" => ContenderRole::Client,
            other => {
                return Err(err(
                    Some(k.span()),
                    format!("kind {other:?} is not \"server\" or \"client\""),
                ))
            }
        },
        (None, Some(_), None) => ContenderRole::Server,
        (None, None, Some(_)) => ContenderRole::Client,
        (None, Some(l), Some(_)) => {
            return Err(err(
                Some(l.span()),
                "a study has either [load] (a server study) or [client] (a client study), not both".into(),
            ))
        }
        (None, None, None) => {
            return Err(err(
                Some(f.study.span()),
                "the study needs [load] (a server study: contenders are servers under load) or [client] (a client study: contenders are programs run against barrage's server)".into(),
            ))
        }
    };
    match (kind, &f.load, &f.client) {
        (ContenderRole::Server, None, _) => {
            return Err(err(
                Some(f.study.span()),
                "a server study needs a [load] table".into(),
            ))
        }
        (ContenderRole::Client, _, None) => {
            return Err(err(
                Some(f.study.span()),
                "a client study needs a [client] table".into(),
            ))
        }
        (ContenderRole::Server, _, Some(c)) => {
            return Err(err(
                Some(c.span()),
                "[client] belongs to client studies (kind = \"client\")".into(),
            ))
        }
        (ContenderRole::Client, Some(l), _) => {
            return Err(err(
                Some(l.span()),
                "[load] belongs to server studies (kind = \"server\")".into(),
            ))
        }
        _ => {}
    }
    let trials = match &st.trials {
        None => 5,
        Some(t) => {
            let v = *t.get_ref();
            if !(1..=10_000).contains(&v) {
                return Err(err(
                    Some(t.span()),
                    format!("trials must be between 1 and 10000, not {v}"),
                ));
            }
            v as u32
        }
    };
    let pin = match &st.pin {
        None => PinMode::Auto,
        Some(p) => match p.get_ref() {
            toml::Value::Boolean(true) => PinMode::On,
            toml::Value::Boolean(false) => PinMode::Off,
            toml::Value::String(s) if s == "auto" => PinMode::Auto,
            toml::Value::Integer(n) if (1..=4096).contains(n) => PinMode::Cpus(*n as usize),
            other => {
                let want = "true, false, \"auto\" or a number of contender CPUs";
                return Err(err(
                    Some(p.span()),
                    format!("pin must be {want}, not {other}"),
                ));
            }
        },
    };
    let cpus = match &st.cpus {
        None => Vec::new(),
        Some(c) => {
            let one = |v: &toml::Value| match v {
                toml::Value::String(s) if s == "all" => Some(CpuCount::All),
                toml::Value::Integer(n) if (1..=4096).contains(n) => {
                    Some(CpuCount::First(*n as usize))
                }
                _ => None,
            };
            let vals: Option<Vec<CpuCount>> = match c.get_ref() {
                toml::Value::Array(vs) if !vs.is_empty() => vs.iter().map(one).collect(),
                v => one(v).map(|x| vec![x]),
            };
            vals.ok_or_else(|| {
                err(
                    Some(c.span()),
                    format!(
                        "cpus must be a number of CPUs, \"all\", or a list of them ([1, \"all\"]), not {}",
                        c.get_ref()
                    ),
                )
            })?
        }
    };
    let sample_interval = spanned_dur(&st.sample_interval, Duration::from_millis(100));
    if sample_interval < Duration::from_millis(10) || sample_interval > Duration::from_secs(60) {
        return Err(err(
            st.sample_interval.as_ref().map(|s| s.span()),
            "sample_interval must be between 10ms and 60s".into(),
        ));
    }
    let trial_timeout = spanned_dur(&st.trial_timeout, Duration::from_secs(300));
    if trial_timeout.is_zero() {
        return Err(err(
            st.trial_timeout.as_ref().map(|s| s.span()),
            "trial_timeout must be longer than zero".into(),
        ));
    }
    let load = match &f.load {
        Some(l) => Some(load_spec(l, base_dir, err)?),
        None => None,
    };
    let client = match &f.client {
        Some(c) => Some(client_spec(c, err)?),
        None => None,
    };
    let target = f.target.as_ref().map_or(
        TargetSpec {
            threads: 0,
            fault_rate: 0.0,
            concurrency: None,
        },
        |t| TargetSpec {
            threads: t.threads.unwrap_or(0) as usize,
            fault_rate: t.fault_rate.unwrap_or(0.0),
            concurrency: t.concurrency.map(|n| n as usize),
        },
    );
    if target.concurrency == Some(0) {
        return Err(err(None, "[target] concurrency must be at least 1".into()));
    }
    if !(0.0..=1.0).contains(&target.fault_rate) {
        return Err(err(
            None,
            "[target] fault_rate must be between 0 and 1".into(),
        ));
    }
    let network = network_spec(&f, err)?;
    if f.contenders.is_empty() {
        return Err(err(
            Some(f.study.span()),
            "the study has no [[contender]]".into(),
        ));
    }
    let mut contenders: Vec<ContenderSpec> = Vec::new();
    for c in &f.contenders {
        let spec = contender(c, kind, base_dir, err)?;
        if contenders.iter().any(|o| o.name == spec.name) {
            return Err(err(
                Some(c.get_ref().name.span()),
                format!("two contenders are named {:?}", spec.name),
            ));
        }
        contenders.push(spec);
    }
    let study = Study {
        name,
        description: st.description.clone(),
        kind,
        trials,
        warmup: st.warmup.map_or(Duration::ZERO, Dur::get),
        cooldown: st.cooldown.map_or(Duration::ZERO, Dur::get),
        interleave: st.interleave.unwrap_or(true),
        pin,
        cpus,
        sample_interval,
        trial_timeout,
        stop_grace: st.stop_grace.map_or(Duration::from_secs(5), Dur::get),
        max_errors: max_errors(st, err)?,
        busy_limit_pct: busy_limit(st, err)?,
        on_busy: on_busy(st, err)?,
        thresholds: thresholds(&f, err)?,
        questions: questions(&f, err)?,
        subsets: Vec::new(),
        subset: None,
        load,
        client,
        target,
        network,
        contenders,
        base_dir: base_dir.to_path_buf(),
        source: src.to_string(),
        quick: false,
    };
    // Expand the sweep now: a point the engine would refuse is an error of the study file.
    let span = f
        .load
        .as_ref()
        .map(|l| l.span())
        .or(f.client.as_ref().map(|c| c.span()));
    // A link the sweep refuses points at the [network] table.
    let net_span = f.network.as_ref().map(|n| n.span()).or(span.clone());
    let points = crate::sweep::points(&study).map_err(|e| {
        let at = if e.starts_with("[network]") {
            net_span.clone()
        } else {
            span.clone()
        };
        err(at, e)
    })?;
    for t in &study.thresholds {
        if let Some(p) = &t.point {
            if !points.iter().any(|q| q.label == *p) {
                let labels: Vec<&str> = points.iter().map(|q| q.label.as_str()).collect();
                let have = if labels.iter().all(|l| l.is_empty()) {
                    "the study has one point, which needs no point = ...".to_string()
                } else {
                    format!("points: {}", labels.join(", "))
                };
                return Err(err(
                    span.clone(),
                    format!("threshold for point {p:?}, which the sweep does not have ({have})"),
                ));
            }
        }
    }
    questions_at_points(&f, &study, &points, err)?;
    let study = Study {
        subsets: subsets(&f, &points, err)?,
        ..study
    };
    // And ask the engine itself, so nothing it would refuse gets as far as a started contender.
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], 1));
    let headers = study
        .load
        .as_ref()
        .map(|l| l.headers.clone())
        .unwrap_or_default();
    for p in &points {
        for ph in &p.phases {
            let cfg = ph.load_at(addr, &headers, study.warmup, 1);
            if let Err(e) = cfg.validate() {
                let at = if p.label.is_empty() {
                    String::new()
                } else {
                    format!(" (point {})", p.label)
                };
                return Err(err(span.clone(), format!("{e}{at}")));
            }
        }
    }
    Ok(study)
}

/// `[network]` and the variants' `network` tables; one table may give `rtt` or `delay`, not both.
fn network_spec(f: &raw::File, err: Err) -> Result<NetworkSpec, StudyError> {
    let check = |n: &Spanned<raw::NetworkFields>| {
        let t = n.get_ref();
        if t.rtt.is_some() && t.delay.is_some() {
            return Err(err(
                Some(n.span()),
                "[network] takes rtt (the round trip) or delay (one way), not both".into(),
            ));
        }
        Ok(t.clone())
    };
    let base = f.network.as_ref().map(check).transpose()?;
    let mut variants = Vec::new();
    if let Some(l) = &f.load {
        for v in &l.get_ref().variants {
            if let Some(n) = &v.get_ref().network {
                variants.push((v.get_ref().name.get_ref().trim().to_string(), check(n)?));
            }
        }
    }
    Ok(NetworkSpec { base, variants })
}

/// `[[question]]`s: each in the model's grammar (claim, conditions, window), with a unique id,
/// contenders of the study and metrics it has (the registry's, its declared figures, or a
/// window's).
fn questions(
    f: &raw::File,
    err: Err,
) -> Result<Vec<barrage_model::question::Question>, StudyError> {
    let mut out: Vec<barrage_model::question::Question> = Vec::new();
    let figures: Vec<&str> = f
        .client
        .as_ref()
        .map(|c| {
            c.get_ref()
                .figures
                .iter()
                .map(|x| x.get_ref().key.get_ref().as_str())
                .collect()
        })
        .unwrap_or_default();
    for sq in &f.questions {
        let r = sq.get_ref();
        let q = barrage_model::question::Question {
            id: r.id.trim().to_string(),
            original: r.original.trim().to_string(),
            claim: r.claim.clone(),
            metric: r.metric.values().into_iter().cloned().collect(),
            at: r.at.clone(),
            across: r.across.clone(),
            window: r.window.clone(),
            expected: r.expected,
        };
        let at = |why: String| err(Some(sq.span()), format!("question {:?}: {why}", q.id));
        let claim = q.check().map_err(at)?;
        if out.iter().any(|o| o.id == q.id) {
            return Err(at("another question has this id".into()));
        }
        for side in std::iter::once(&claim.left).chain(&claim.right) {
            if !f
                .contenders
                .iter()
                .any(|c| c.get_ref().name.get_ref().trim() == side.contender)
            {
                return Err(at(format!(
                    "the study has no contender {:?}",
                    side.contender
                )));
            }
        }
        for m in &q.metric {
            let known = barrage_model::metric::get(m).is_some()
                || figures.contains(&m.as_str())
                || (q.window.is_some() && m == "share");
            if !known {
                let keys: Vec<&str> = barrage_model::metric::ALL
                    .iter()
                    .map(|m| m.key.as_ref())
                    .chain(figures.iter().copied())
                    .collect();
                return Err(at(format!(
                    "no metric {m:?} (metrics: {})",
                    keys.join(", ")
                )));
            }
        }
        out.push(q);
    }
    Ok(out)
}

/// `[[subset]]`s: unique names, contenders of the study, conditions that some point meets.
fn subsets(
    f: &raw::File,
    points: &[barrage_model::study::Point],
    err: Err,
) -> Result<Vec<Subset>, StudyError> {
    let mut out: Vec<Subset> = Vec::new();
    for ss in &f.subsets {
        let r = ss.get_ref();
        let name = r.name.trim().to_string();
        let at = |why: String| err(Some(ss.span()), format!("subset {name:?}: {why}"));
        if name.is_empty() || out.iter().any(|o| o.name == name) {
            return Err(at("a subset needs a name of its own".into()));
        }
        let conds = barrage_model::question::conditions(&r.at).map_err(at)?;
        if barrage_model::question::points_meeting(
            points,
            &barrage_model::question::by_field(points, &conds),
        )
        .is_empty()
        {
            return Err(at(format!("no point of the sweep is at {:?}", r.at.trim())));
        }
        for c in &r.contenders {
            if !f
                .contenders
                .iter()
                .any(|k| k.get_ref().name.get_ref().trim() == c)
            {
                return Err(at(format!("the study has no contender {c:?}")));
            }
        }
        out.push(Subset {
            name,
            at: conds,
            contenders: r.contenders.clone(),
        });
    }
    Ok(out)
}

/// Every side of every question, at every condition it names, is one point of the sweep.
fn questions_at_points(
    f: &raw::File,
    study: &Study,
    points: &[barrage_model::study::Point],
    err: Err,
) -> Result<(), StudyError> {
    let r = barrage_model::study::Results {
        points: points.to_vec(),
        ..Default::default()
    };

    for (q, sq) in study.questions.iter().zip(&f.questions) {
        let at = |why: String| err(Some(sq.span()), format!("question {:?}: {why}", q.id));
        let claim = q.parsed().map_err(at)?;
        let base = q.at_conditions().map_err(at)?;
        let across = q.across_conditions().map_err(at)?;
        let extras: Vec<Option<&Vec<(String, String)>>> = match &across {
            None => vec![None],
            Some([x, y]) => vec![Some(x), Some(y)],
        };
        for side in std::iter::once(&claim.left).chain(&claim.right) {
            for extra in &extras {
                let conds = barrage_model::question::side_conditions(&base, side, *extra);
                barrage_model::question::point_at(&r, &conds).map_err(at)?;
            }
        }
    }
    Ok(())
}

/// `[[threshold]]`s: every expression in the one grammar, every contender named one of the
/// study's.
fn thresholds(
    f: &raw::File,
    err: Err,
) -> Result<Vec<barrage_model::threshold::StudyThreshold>, StudyError> {
    let mut out = Vec::new();
    for t in &f.thresholds {
        let r = t.get_ref();
        let expr: Vec<String> = r.expr.values().into_iter().cloned().collect();
        for e in &expr {
            barrage_model::threshold::parse(e).map_err(|why| err(Some(t.span()), why))?;
        }
        if let Some(c) = &r.contender {
            if !f.contenders.iter().any(|k| k.get_ref().name.get_ref() == c) {
                return Err(err(
                    Some(t.span()),
                    format!("threshold for contender {c:?}, which the study does not have"),
                ));
            }
        }
        out.push(barrage_model::threshold::StudyThreshold {
            expr,
            contender: r.contender.clone(),
            point: r.point.clone(),
        });
    }
    Ok(out)
}

fn spanned_dur(d: &Option<Spanned<Dur>>, default: Duration) -> Duration {
    d.as_ref().map_or(default, |s| s.get_ref().get())
}

/// A study's files (`targets`, `body_lines`, gRPC's `proto`, `protoset` and `data_file`, a wrk
/// `script`) are relative to the study's directory.
fn resolve_files(mut f: LoadFields, base_dir: &Path) -> LoadFields {
    let abs = |v: &mut String| {
        if Path::new(v.as_str()).is_relative() {
            *v = base_dir.join(v.as_str()).display().to_string();
        }
    };
    let files = [
        &mut f.targets,
        &mut f.body_lines,
        &mut f.proto,
        &mut f.protoset,
        &mut f.data_file,
        &mut f.script,
    ];
    for file in files.into_iter().flatten() {
        match file {
            OneOrMany::One(v) => abs(v),
            OneOrMany::Many(vs) => vs.iter_mut().for_each(abs),
        }
    }
    f
}

fn load_spec(l: &Spanned<raw::Load>, base_dir: &Path, err: Err) -> Result<LoadSpec, StudyError> {
    let r = l.get_ref();
    let mut variants = Vec::new();
    for v in &r.variants {
        let name = v.get_ref().name.get_ref().trim().to_string();
        if name.is_empty() || variants.iter().any(|(n, _)| *n == name) {
            return Err(err(
                Some(v.get_ref().name.span()),
                format!("variant names must be unique and not empty ({name:?})"),
            ));
        }
        variants.push((name, resolve_files(v.get_ref().fields(), base_dir)));
    }
    let mut phases = Vec::new();
    for p in &r.phases {
        let fields = resolve_files(p.get_ref().fields(), base_dir);
        let json = serde_json::to_value(&fields).unwrap_or_default();
        if let Some((k, _)) = json
            .as_object()
            .and_then(|o| o.iter().find(|(_, v)| v.is_array()))
        {
            return Err(err(
                Some(p.span()),
                format!("a phase cannot sweep: {k} must be one value (sweep in [load] instead)"),
            ));
        }
        phases.push((p.get_ref().name.clone(), fields));
    }
    Ok(LoadSpec {
        headers: r
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        base: resolve_files(r.fields(), base_dir),
        variants,
        phases,
    })
}

fn client_spec(c: &Spanned<raw::Client>, err: Err) -> Result<ClientSpec, StudyError> {
    let r = c.get_ref();
    for k in r.params.keys() {
        if RESERVED.contains(&k.as_str()) {
            return Err(err(
                Some(c.span()),
                format!("parameter {k:?} would shadow barrage's own placeholder {{{k}}}"),
            ));
        }
        if k.is_empty() || !k.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_') {
            return Err(err(
                Some(c.span()),
                format!("parameter name {k:?} must be letters, digits or '_'"),
            ));
        }
    }
    let file_size = match &r.expect.file_size {
        None => None,
        Some(toml::Value::Integer(i)) if *i >= 0 => Some(i.to_string()),
        Some(toml::Value::String(s)) => Some(s.clone()),
        Some(other) => {
            return Err(err(
                Some(c.span()),
                format!("expect.file_size must be a size in bytes or a placeholder such as \"{{size}}\", not {other}"),
            ))
        }
    };
    // expect.file_size alone is allowed: it is then the body size the client must report, and it
    // gives {checksum} (a client writing to /dev/null still proves what it received on stdout).
    if r.expect.file_pattern && r.expect.file.is_none() {
        return Err(err(
            Some(c.span()),
            "expect.file_pattern needs expect.file (the path the client writes)".into(),
        ));
    }
    for (key, name) in [("rate", &r.rate), ("requests", &r.requests)] {
        if let Some(n) = name {
            if !token_name(n) {
                return Err(err(
                    Some(c.span()),
                    format!("client.{key} must name a `name=value` token of stdout (letters, digits, _ . -), not {n:?}"),
                ));
            }
        }
    }
    Ok(ClientSpec {
        rate: r.rate.clone(),
        requests: r.requests.clone(),
        figures: figures::validate(&r.figures, err)?,
        path: r.path.clone().unwrap_or_else(|| "/".into()),
        params: r
            .params
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        expect: ClientExpect {
            exit_code: r.expect.exit_code.unwrap_or(0),
            stdout_contains: r.expect.stdout_contains.clone(),
            file: r.expect.file.clone(),
            file_size,
            file_pattern: r.expect.file_pattern,
        },
    })
}

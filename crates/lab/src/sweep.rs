//! The sweep: a study's list-valued fields expanded into the cartesian product of points, each a
//! complete scalar load (server studies, with its phases) or parameter set (client studies).
//!
//! Expansion goes through JSON maps (field -> value or list) so variants and phases overlay the
//! base by key, and every point deserializes into the same typed [`LoadPoint`].

mod network;

use crate::study::{ContenderRole, OneOrMany, Param, Study};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The load fields a point may sweep, in sweep order, with their short labels: the model's.
use barrage_model::load::AXES as FIELDS;

use barrage_model::load::Config;
pub use barrage_model::study::{Phase, Point};

/// Expands the study into its points. Errors describe the offending point.
pub fn points(study: &Study) -> Result<Vec<Point>, String> {
    let points = match study.kind {
        ContenderRole::Server => server_points(study),
        ContenderRole::Client => client_points(study),
    }?;
    Ok(with_cpus(study, points))
}

/// The `cpus` axis, slowest of all (a condition of the machine, like the network): every point
/// once per value, its label and parameters saying it ("cpus=1 c=50"). One value is a
/// condition of every point, not an axis: it is in the parameters, not the labels.
fn with_cpus(study: &Study, points: Vec<Point>) -> Vec<Point> {
    if study.cpus.is_empty() {
        return points;
    }
    let swept = study.cpus.len() > 1;
    let mut out = Vec::new();
    for c in &study.cpus {
        for p in &points {
            let mut q = p.clone();
            q.id = out.len();
            q.params.insert("cpus".into(), c.value());
            if swept {
                let v = match c.value() {
                    Value::String(s) => s,
                    v => v.to_string(),
                };
                q.label = if p.label.is_empty() {
                    format!("cpus={v}")
                } else {
                    format!("cpus={v} {}", p.label)
                };
            }
            out.push(q);
        }
    }
    out
}

fn to_map<T: Serialize>(v: &T) -> Map<String, Value> {
    match serde_json::to_value(v) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

fn server_points(study: &Study) -> Result<Vec<Point>, String> {
    let Some(load) = &study.load else {
        return Err("a server study needs [load]".into());
    };
    let base = to_map(&load.base);
    let mut groups: Vec<(Option<String>, Map<String, Value>)> = Vec::new();
    if load.variants.is_empty() {
        groups.push((None, base.clone()));
    } else {
        for (name, fields) in &load.variants {
            let mut m = base.clone();
            overlay(&mut m, to_map(fields));
            groups.push((Some(name.clone()), m));
        }
    }
    let mut out = Vec::new();
    for (variant, fields) in groups {
        let net = network::fields(study, variant.as_deref());
        // The network's axes first (its conditions vary slowest), then the load's.
        let mut axes = net_axes(net.as_ref());
        axes.extend(axes_of(&fields, FIELDS, false));
        for combo in cartesian(&axes.iter().map(|a| a.3.len()).collect::<Vec<_>>()) {
            let mut m = fields.clone();
            let mut nm = net.clone();
            let mut params = BTreeMap::new();
            let mut label = variant.clone().map(|v| vec![v]).unwrap_or_default();
            for (i, (is_net, f, short, vs)) in axes.iter().enumerate() {
                let v = vs[combo[i]].clone();
                label.push(format!("{short}={}", show(&v)));
                if *is_net {
                    params.insert(format!("network.{f}"), v.clone());
                    if let Some(nm) = &mut nm {
                        nm.insert(f.to_string(), v);
                    }
                } else {
                    params.insert(f.to_string(), v.clone());
                    m.insert(f.to_string(), v);
                }
            }
            let network = nm.as_ref().map(network::resolve).transpose()?;
            let label = label.join(" ");
            // An error names the point it is at (none when the study has one point).
            let at = |e: String| {
                if label.is_empty() {
                    e
                } else {
                    format!("{e} (point {label})")
                }
            };
            let phases = if load.phases.is_empty() {
                vec![phase("main".into(), m.clone()).map_err(at)?]
            } else {
                let mut ps = Vec::new();
                for (i, (name, pf)) in load.phases.iter().enumerate() {
                    let mut pm = m.clone();
                    overlay(&mut pm, to_map(pf));
                    let name = name.clone().unwrap_or_else(|| format!("phase{}", i + 1));
                    ps.push(phase(name, pm).map_err(at)?);
                }
                ps
            };
            for ph in &phases {
                check_load(ph).map_err(at)?;
            }
            if let Some(v) = &variant {
                params.insert("variant".into(), Value::String(v.clone()));
            }
            out.push(Point {
                id: out.len(),
                label,
                variant: variant.clone(),
                params,
                phases,
                client_params: BTreeMap::new(),
                network,
            });
        }
    }
    Ok(out)
}

/// A sweep axis: whether it is the network's, the field, its short label, its values.
type Axis = (bool, &'static str, &'static str, Vec<Value>);

/// The list-valued fields of `fields` among `known`, in `known`'s order.
fn axes_of(
    fields: &Map<String, Value>,
    known: &[(&'static str, &'static str)],
    net: bool,
) -> Vec<Axis> {
    known
        .iter()
        .filter_map(|(f, short)| match fields.get(*f) {
            Some(Value::Array(vs)) => Some((net, *f, *short, vs.clone())),
            _ => None,
        })
        .collect()
}

fn net_axes(net: Option<&Map<String, Value>>) -> Vec<Axis> {
    net.map(|m| axes_of(m, network::FIELDS, true))
        .unwrap_or_default()
}

/// `over` (a variant's or a phase's fields) laid over `base`, with the stop conditions as a
/// whole: one that sets requests but not a duration does not inherit the duration, one with
/// stages inherits neither (stages set the length), and one with a duration or requests does
/// not inherit stages.
fn overlay(base: &mut Map<String, Value>, over: Map<String, Value>) {
    let sets = |k: &str| over.contains_key(k);
    if sets("requests") && !sets("duration") {
        base.remove("duration");
    }
    if sets("stages") {
        base.remove("duration");
        base.remove("requests");
        base.remove("rate");
    }
    if sets("duration") || sets("requests") || sets("rate") {
        base.remove("stages");
    }
    base.extend(over);
}

/// A phase of a point from its scalar fields: `tls`, the scheme of its URL, taken out, the rest
/// its load. HTTP/3 is always over TLS; `tls = false` beside it is refused, not ignored.
fn phase(name: String, mut m: Map<String, Value>) -> Result<Phase, String> {
    let tls = match m.remove("tls") {
        None => None,
        Some(Value::Bool(b)) => Some(b),
        Some(v) => return Err(format!("tls must be true or false, not {v}")),
    };
    let load = scalar_load(&m)?;
    let h3 = load.protocol.is_datagram();
    if h3 && tls == Some(false) {
        return Err("tls = false does not go with http3 = true: QUIC is always TLS".into());
    }
    Ok(Phase {
        name,
        load,
        tls: tls.unwrap_or(false) || h3,
    })
}

/// The load of a point: the study's scalar fields read straight into the engine's `Config`
/// (it reads a study's `path`, text bodies and "15s" durations), with the study's defaults.
fn scalar_load(m: &Map<String, Value>) -> Result<Config, String> {
    let mut cfg: Config =
        serde_json::from_value(Value::Object(m.clone())).map_err(|e| format!("bad load: {e}"))?;
    if cfg.url.is_empty() {
        cfg.url = "/".into();
    }
    Ok(cfg)
}

/// The model's one check of a load, in the study's words, and the study's own rule: a point's
/// `url` is its path (the engine's validation runs on every phase as well, in `study::check`,
/// with the contender's address, the headers and the warmup filled in).
fn check_load(ph: &Phase) -> Result<(), String> {
    let l = &ph.load;
    // Checked with the scheme in front of the path, as the runner runs it (`Phase::load_at`):
    // the model refuses `ws` without ws:// and `http3` without https://.
    let url = if l.url.starts_with('/') {
        format!("{}://contender{}", ph.scheme(), l.url)
    } else {
        l.url.clone()
    };
    barrage_model::load::check(&Config { url, ..l.clone() }).map_err(|e| e.to_string())?;
    if !l.url.starts_with('/') {
        return Err(format!("path {:?} must start with '/'", l.url));
    }
    Ok(())
}

fn client_points(study: &Study) -> Result<Vec<Point>, String> {
    let params: Vec<(String, Vec<Param>)> = study
        .client
        .as_ref()
        .map(|c| {
            c.params
                .iter()
                .map(|(k, v)| match v {
                    OneOrMany::One(p) => (k.clone(), vec![p.clone()]),
                    OneOrMany::Many(ps) => (k.clone(), ps.clone()),
                })
                .collect()
        })
        .unwrap_or_default();
    let net = network::fields(study, None);
    let axes = net_axes(net.as_ref());
    let mut lens: Vec<usize> = axes.iter().map(|a| a.3.len()).collect();
    lens.extend(params.iter().map(|p| p.1.len()));
    let mut out = Vec::new();
    for combo in cartesian(&lens) {
        let mut all = BTreeMap::new();
        let mut swept = BTreeMap::new();
        let mut label = Vec::new();
        let mut nm = net.clone();
        for (i, (_, f, short, vs)) in axes.iter().enumerate() {
            let v = vs[combo[i]].clone();
            label.push(format!("{short}={}", show(&v)));
            swept.insert(format!("network.{f}"), v.clone());
            if let Some(nm) = &mut nm {
                nm.insert(f.to_string(), v);
            }
        }
        let combo = &combo[axes.len()..];
        for (i, (k, vs)) in params.iter().enumerate() {
            let v = vs[combo[i]].clone();
            if vs.len() > 1 {
                label.push(format!("{k}={v}"));
                swept.insert(k.clone(), serde_json::to_value(&v).unwrap_or(Value::Null));
            }
            all.insert(k.clone(), v);
        }
        out.push(Point {
            id: out.len(),
            label: label.join(" "),
            variant: None,
            params: swept,
            phases: Vec::new(),
            client_params: all,
            network: nm.as_ref().map(network::resolve).transpose()?,
        });
    }
    Ok(out)
}

/// All index combinations for axes of the given lengths, first axis slowest. No axes: one empty
/// combination.
pub fn cartesian(lens: &[usize]) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new()];
    for &n in lens {
        let mut next = Vec::with_capacity(out.len() * n);
        for prefix in &out {
            for i in 0..n {
                let mut c = prefix.clone();
                c.push(i);
                next.push(c);
            }
        }
        out = next;
    }
    out
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cartesian_order() {
        assert_eq!(cartesian(&[]), vec![Vec::<usize>::new()]);
        assert_eq!(
            cartesian(&[2, 3]),
            vec![
                vec![0, 0],
                vec![0, 1],
                vec![0, 2],
                vec![1, 0],
                vec![1, 1],
                vec![1, 2]
            ]
        );
        assert!(cartesian(&[2, 0]).is_empty());
    }
}

//! `barrage merge`: several `barrage.load/1` documents of one load (shards of it, or runs on
//! several machines) into one. Counts, errors (by class) and status codes add; the latency,
//! connect and lateness histograms add exactly (HDR histograms merge losslessly); a protocol's
//! figures add their sums and derive their means again (`ProtocolFigures::merged`); the
//! per-second series add second by second. Pure: documents in, a document out.
//!
//! What cannot be exact is said in the result's `merged.notes`: a second's p50/p99 in the merged
//! series is the highest of its shards' (a bound; the per-second histograms are not kept), and
//! documents that lack a histogram (older engines) leave that summary out.

use crate::hdr;
use crate::load::{Latency, LoadDoc, Merged, ProtocolFigures, Rate, Second, TargetFigures};
use std::collections::BTreeMap;
use thiserror::Error;

/// Why documents cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MergeError {
    #[error("nothing to merge: give two or more barrage load --json documents")]
    Empty,
    #[error("{0}: not a barrage.load/2 or /1 document (schema {1:?})")]
    Schema(String, String),
    #[error("{a} and {b} are not runs of the same load: their {what} differ")]
    Different { a: String, b: String, what: String },
    #[error("{a} and {b} are both shard {index}/{count}")]
    SameShard {
        a: String,
        b: String,
        index: u32,
        count: u32,
    },
    #[error("{0}: its latency histogram cannot be read ({1})")]
    Histogram(String, String),
}

/// The config without what differs between shards of one load.
fn load_of(doc: &LoadDoc) -> serde_json::Value {
    let mut c = doc.config.clone();
    if let Some(m) = c.as_object_mut() {
        m.remove("shard");
        // Each shard draws its own seed when none was given; the order is still the same shape.
        m.remove("seed");
    }
    c
}

/// Merges `docs` (name, document); starts further apart than `tolerance_s` are noted.
pub fn merge(docs: &[(String, LoadDoc)], tolerance_s: f64) -> Result<LoadDoc, MergeError> {
    let Some((first_name, first)) = docs.first() else {
        return Err(MergeError::Empty);
    };
    for (name, d) in docs {
        if !crate::load::SCHEMAS.contains(&d.schema.as_str()) {
            return Err(MergeError::Schema(name.clone(), d.schema.clone()));
        }
        for (what, differ) in [
            ("targets", d.target != first.target),
            ("configurations", load_of(d) != load_of(first)),
        ] {
            if differ {
                return Err(MergeError::Different {
                    a: first_name.clone(),
                    b: name.clone(),
                    what: what.into(),
                });
            }
        }
    }
    let mut notes = Vec::new();
    let shards = shard_notes(docs, &mut notes)?;

    let mut out = LoadDoc {
        schema: crate::load::SCHEMA.into(),
        target: first.target.clone(),
        config: load_of(first),
        ..LoadDoc::default()
    };
    for (_, d) in docs {
        out.requests += d.requests;
        out.requests_written += d.requests_written;
        out.in_flight += d.in_flight;
        out.connects += d.connects;
        out.bytes_read += d.bytes_read;
        out.bytes_written += d.bytes_written;
        out.threads += d.threads;
        out.cancelled |= d.cancelled;
        out.duration_s = out.duration_s.max(d.duration_s);
        out.errors.add(&d.errors);
        for (k, v) in &d.error_examples {
            out.error_examples.entry(k.clone()).or_insert(v.clone());
        }
        for (k, n) in &d.status {
            *out.status.entry(k.clone()).or_default() += n;
        }
    }
    out.rps = if out.duration_s > 0.0 {
        out.requests as f64 / out.duration_s
    } else {
        0.0
    };
    let starts: Vec<f64> = docs.iter().map(|(_, d)| d.started_unix).collect();
    out.started_unix = starts.iter().copied().fold(f64::INFINITY, f64::min);
    let spread = starts.iter().copied().fold(f64::NEG_INFINITY, f64::max) - out.started_unix;
    if spread > tolerance_s {
        notes.push(format!(
            "the runs started {spread:.3} s apart (more than {tolerance_s} s): their seconds do not line up, so the merged series and rates mix different moments"
        ));
    }

    let (h, latency) = merged_hdr(docs, |d| d.hdr.as_deref())?;
    out.hdr = h;
    out.latency_us = latency.unwrap_or_default();
    let (h, unc) = merged_hdr(docs, |d| d.hdr_uncorrected.as_deref())?;
    out.hdr_uncorrected = h;
    out.latency_uncorrected_us = unc;
    let (h, connect) = merged_hdr(docs, |d| d.hdr_connect.as_deref())?;
    out.hdr_connect = h;
    out.connect_us = connect.unwrap_or_else(|| {
        notes.push("a document lacks its connect histogram: connect times are left out".into());
        Latency::default()
    });
    out.rate = merged_rate(docs, &mut notes)?;
    out.series = merged_series(docs)?;
    if docs
        .iter()
        .any(|(_, d)| d.series.iter().any(|s| s.responses > 0 && s.mean_us == 0.0))
    {
        // A barrage.load/1 shard: its seconds have no mean, so the merged ones cannot either.
        out.series.iter_mut().for_each(|s| s.mean_us = 0.0);
    }
    out.protocol = ProtocolFigures::merged(
        docs.iter().map(|(_, d)| d.protocol.as_ref()),
        out.requests_written,
    );
    out.targets = merged_targets(docs, &mut notes)?;
    out = out.with_intervals();
    // The thresholds the runs were given, judged again on the whole.
    let thresholds = first
        .thresholds
        .iter()
        .filter_map(|t| crate::threshold::parse(&t.expr).ok())
        .map(|t| crate::threshold::evaluate(&t, &out))
        .collect();
    out.thresholds = thresholds;
    if !out.series.is_empty() && docs.len() > 1 {
        notes.push(
            "each second's p50/p99 in the series is the highest of the runs' (a bound); the whole run's percentiles are exact".into(),
        );
    }
    out.merged = Some(Merged {
        shards: docs.len(),
        of: shards,
        start_spread_s: spread.max(0.0),
        notes,
    });
    Ok(out)
}

/// Checks the shards: none twice, and says which are missing. Returns the shard count (0 for
/// runs that were not shards).
fn shard_notes(docs: &[(String, LoadDoc)], notes: &mut Vec<String>) -> Result<u32, MergeError> {
    let shard = |d: &LoadDoc| -> Option<(u32, u32)> {
        let s = d.config.get("shard")?;
        Some((
            s.get("index")?.as_u64()? as u32,
            s.get("count")?.as_u64()? as u32,
        ))
    };
    let mut seen: BTreeMap<u32, &str> = BTreeMap::new();
    let mut count = 0;
    for (name, d) in docs {
        let Some((index, n)) = shard(d) else { continue };
        count = n;
        if let Some(other) = seen.insert(index, name) {
            return Err(MergeError::SameShard {
                a: other.to_string(),
                b: name.clone(),
                index,
                count: n,
            });
        }
    }
    let missing: Vec<String> = (1..=count)
        .filter(|i| !seen.contains_key(i))
        .map(|i| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        notes.push(format!(
            "shards {} are missing: this is part of the load, not all of it",
            missing.join(", ")
        ));
    }
    Ok(count)
}

/// The sum of the histograms `pick` reads (None when any document lacks one) and its summary.
fn merged_hdr(
    docs: &[(String, LoadDoc)],
    pick: impl Fn(&LoadDoc) -> Option<&str>,
) -> Result<(Option<String>, Option<Latency>), MergeError> {
    let mut hs = Vec::new();
    for (name, d) in docs {
        let Some(s) = pick(d) else {
            return Ok((None, None));
        };
        hs.push(hdr::decode(s).map_err(|e| MergeError::Histogram(name.clone(), e))?);
    }
    Ok(match hdr::merge(&hs) {
        Some(h) => (Some(hdr::encode(&h)), Some(Latency::of(&h))),
        None => (None, None),
    })
}

fn merged_rate(
    docs: &[(String, LoadDoc)],
    notes: &mut Vec<String>,
) -> Result<Option<Rate>, MergeError> {
    let rates: Vec<&Rate> = docs.iter().filter_map(|(_, d)| d.rate.as_ref()).collect();
    if rates.len() != docs.len() {
        return Ok(None);
    }
    let (h, lateness) = merged_hdr(docs, |d| d.rate.as_ref()?.hdr_lateness.as_deref())?;
    if h.is_none() {
        notes.push("a document lacks its lateness histogram: send lateness is left out".into());
    }
    Ok(Some(Rate {
        target_rps: rates.iter().map(|r| r.target_rps).sum(),
        achieved_rps: rates.iter().map(|r| r.achieved_rps).sum(),
        lateness_us: lateness.unwrap_or_default(),
        hdr_lateness: h,
        late_by_generator: rates.iter().map(|r| r.late_by_generator).sum(),
        generator_bottleneck: rates.iter().any(|r| r.generator_bottleneck),
    }))
}

/// The series added second by second (warmup seconds first, as each document orders them); a
/// second's histograms merge exactly, and a second any run has no histogram for has none.
fn merged_series(docs: &[(String, LoadDoc)]) -> Result<Vec<Second>, MergeError> {
    let mut by: BTreeMap<(u8, u64), Second> = BTreeMap::new();
    let mut hists: BTreeMap<(u8, u64), Option<hdrhistogram::Histogram<u64>>> = BTreeMap::new();
    for (name, d) in docs {
        for s in &d.series {
            let key = (u8::from(s.phase != crate::load::Phase::Warmup), s.second);
            let h = match &s.hdr {
                Some(b) => Some(
                    crate::hdr::decode(b).map_err(|e| MergeError::Histogram(name.clone(), e))?,
                ),
                None => None,
            };
            let slot = hists.entry(key).or_insert_with(|| {
                let mut e = hdrhistogram::Histogram::<u64>::new(2).ok()?;
                e.auto(true);
                Some(e)
            });
            match (slot.as_mut(), h) {
                (Some(m), Some(h)) => {
                    let _ = m.add(&h);
                }
                (Some(_), None) if s.responses > 0 => *slot = None,
                _ => {}
            }
            let m = by.entry(key).or_insert_with(|| Second {
                second: s.second,
                phase: s.phase,
                ..Second::default()
            });
            // The mean of the second over every run's responses, weighted by their count.
            let all = m.responses + s.responses;
            if all > 0 {
                m.mean_us =
                    (m.mean_us * m.responses as f64 + s.mean_us * s.responses as f64) / all as f64;
            }
            m.responses += s.responses;
            m.errors += s.errors;
            m.requests_written += s.requests_written;
            m.bytes_read += s.bytes_read;
            m.p50_us = m.p50_us.max(s.p50_us);
            m.p99_us = m.p99_us.max(s.p99_us);
            m.span_s = m.span_s.max(s.span_s);
            if let Some(t) = s.target_rps {
                m.target_rps = Some(m.target_rps.unwrap_or(0.0) + t);
            }
        }
    }
    Ok(by
        .into_iter()
        .map(|(key, mut s)| {
            s.hdr = hists
                .get(&key)
                .and_then(|h| h.as_ref())
                .filter(|h| !h.is_empty())
                .map(crate::hdr::encode_coarse);
            s
        })
        .collect())
}

fn merged_targets(
    docs: &[(String, LoadDoc)],
    notes: &mut Vec<String>,
) -> Result<Vec<TargetFigures>, MergeError> {
    let first = &docs[0].1.targets;
    let same = |t: &[TargetFigures]| {
        t.len() == first.len()
            && t.iter()
                .zip(first)
                .all(|(a, b)| (&a.method, &a.url, a.line) == (&b.method, &b.url, b.line))
    };
    if first.is_empty() || !docs.iter().all(|(_, d)| same(&d.targets)) {
        if !first.is_empty() {
            notes.push("the runs' targets differ: per-target figures are left out".into());
        }
        return Ok(Vec::new());
    }
    let mut out = Vec::with_capacity(first.len());
    for (i, t0) in first.iter().enumerate() {
        let mut t = TargetFigures {
            method: t0.method.clone(),
            url: t0.url.clone(),
            line: t0.line,
            ..TargetFigures::default()
        };
        let mut hs = Vec::new();
        for (name, d) in docs {
            let x = &d.targets[i];
            t.requests += x.requests;
            t.errors.add(&x.errors);
            for (k, n) in &x.status {
                *t.status.entry(k.clone()).or_default() += n;
            }
            if let Some(s) = &x.hdr {
                hs.push(hdr::decode(s).map_err(|e| MergeError::Histogram(name.clone(), e))?);
            }
        }
        if let Some(h) = hdr::merge(&hs) {
            t.latency_us = Latency::of(&h);
            t.hdr = Some(hdr::encode(&h));
        }
        out.push(t);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;

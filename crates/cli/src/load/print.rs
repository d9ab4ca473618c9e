//! The human summary, in the spirit of wrk's, and the compact line
//! `r:<responses> w:<written> e:<errors> t:<mean ms>ms`.

use barrage_engine::{Config, LatencySummary, RunResult};
use barrage_model::load::intervals::Intervals;
use barrage_model::load::{ErrorClass, LoadDoc, Protocol};
use barrage_model::metric::{fmt_bytes, fmt_secs};
use std::fmt::Write;

pub fn summary(r: &RunResult) -> String {
    of_doc(&r.doc, &r.config)
}

/// The summary of a document (a run's, or `barrage merge`'s) and the load it ran.
pub fn of_doc(r: &LoadDoc, c: &Config) -> String {
    let mut o = String::new();
    let mode = match &r.rate {
        Some(rate) if !c.stages.is_empty() => format!(
            "open loop on stages {} ({} req/s on average over the measured window)",
            barrage_model::units::format_stages(&c.stages),
            num(rate.target_rps)
        ),
        Some(rate) => format!("open loop at {} req/s", num(rate.target_rps)),
        None => "closed loop".to_string(),
    };
    let what = match (&c.targets, &c.body_lines) {
        (Some(file), _) => {
            let order = match (c.targets_order, c.seed) {
                (barrage_model::load::Order::Random, Some(seed)) => {
                    format!("in a shuffled order, seed {seed}")
                }
                _ => "round-robin".to_string(),
            };
            format!("targets {file} ({} targets, {order})", r.targets.len())
        }
        (None, Some(file)) => format!("{} {} with bodies from {file}", c.method, c.url),
        (None, None) if c.call.is_some() => {
            format!("gRPC {} at {}", c.call.as_deref().unwrap_or(""), c.url)
        }
        (None, None) => format!("{} {}", c.method, c.url),
    };
    let _ = writeln!(o, "barrage load {what} for {:.2}s", r.duration_s);
    if let Some(m) = &r.merged {
        let of = if m.of > 0 {
            format!(" of {} shards", m.of)
        } else {
            String::new()
        };
        let _ = writeln!(
            o,
            "  merged: {} runs{of}, started {:.3} s apart",
            m.shards, m.start_spread_s
        );
    } else if let Some(s) = c.shard {
        let _ = writeln!(o, "  shard {}/{} of the load", s.index, s.count);
    }
    let _ = writeln!(
        o,
        "  {} connections, {} threads, {mode}{}{}{}{}",
        c.connections,
        r.threads,
        c.protocol.summary(),
        if c.protocol.keepalive() {
            ""
        } else {
            ", no keep-alive"
        },
        match c.ramp_up {
            Some(d) => format!(
                ", connections opened over {}",
                barrage_model::units::format_duration(d)
            ),
            None => String::new(),
        },
        if r.cancelled { " (cancelled)" } else { "" },
    );
    for line in r.protocol.iter().flat_map(|f| f.lines()) {
        let _ = writeln!(o, "  {line}");
    }
    if let Protocol::Ws { .. } = c.protocol {
        ws_checks(&mut o, c);
    }
    let lat = &r.latency_us;
    let label = if r.rate.is_some() {
        "Latency (corrected, from intended send time)"
    } else {
        "Latency"
    };
    let _ = writeln!(o, "  {label}");
    distribution(&mut o, lat);
    if let Some(i) = &r.intervals {
        intervals(&mut o, i);
    }
    if let Some(u) = &r.latency_uncorrected_us {
        let _ = writeln!(o, "  Latency (uncorrected, from actual send time)");
        distribution(&mut o, u);
    }
    let failed = r.errors[ErrorClass::Connect];
    if !c.protocol.keepalive() || r.connects > c.connections as u64 || failed > 0 {
        let k = &r.connect_us;
        let _ = writeln!(
            o,
            "  Connect      {} connects ({} failed), mean {}, p50 {}, p99 {}, max {}",
            r.connects,
            failed,
            ms(k.mean),
            ms(k.p50 as f64),
            ms(k.p99 as f64),
            ms(k.max as f64)
        );
    }
    let _ = writeln!(
        o,
        "  {} requests in {:.2}s, {} read, {} written",
        r.requests,
        r.duration_s,
        bytes(r.bytes_read as f64),
        bytes(r.bytes_written as f64)
    );
    let _ = writeln!(o, "Requests/sec: {:>12.2}", r.rps);
    let per_s = if r.duration_s > 0.0 {
        r.bytes_read as f64 / r.duration_s
    } else {
        0.0
    };
    let _ = writeln!(o, "Transfer/sec: {:>12}", bytes(per_s));
    if let Some(rate) = &r.rate {
        let l = &rate.lateness_us;
        let _ = writeln!(
            o,
            "Rate: target {} req/s, achieved {} req/s; send lateness p50 {}, p99 {}, max {}",
            num(rate.target_rps),
            num(rate.achieved_rps),
            ms(l.p50 as f64),
            ms(l.p99 as f64),
            ms(l.max as f64)
        );
        if rate.generator_bottleneck {
            let _ = writeln!(
                o,
                "WARNING: the load generator could not keep the schedule ({} sends late with a \
                 free connection); add threads or lower the rate",
                rate.late_by_generator
            );
        }
    }
    let codes: Vec<String> = r.status.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    if !codes.is_empty() {
        let _ = writeln!(o, "Status codes: {}", codes.join(", "));
    }
    let e = &r.errors;
    if e.total() > 0 {
        let classes: Vec<String> = e
            .iter()
            .filter(|(k, n)| k.always_listed() || *n > 0)
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        let _ = writeln!(o, "Errors: {} ({})", e.total(), classes.join(", "));
        for (class, msg) in &r.error_examples {
            let _ = writeln!(o, "  {class}: {msg}");
        }
    }
    if r.in_flight > 0 {
        let _ = writeln!(o, "In flight at the stop: {}", r.in_flight);
    }
    if r.targets.len() > 1 {
        targets(&mut o, &r.targets);
    }
    let _ = writeln!(
        o,
        "r:{} w:{} e:{} t:{:.2}ms",
        r.requests,
        r.requests_written,
        e.total(),
        lat.mean / 1000.0
    );
    o
}

/// Rows of the per-target table shown; the JSON has every target.
const TARGET_ROWS: usize = 20;

/// One row per target: its responses, errors, status codes and latency.
fn targets(o: &mut String, ts: &[barrage_model::load::TargetFigures]) {
    let _ = writeln!(o, "Targets:");
    let _ = writeln!(
        o,
        "  {:>5}  {:<7} {:<40} {:>9} {:>7} {:>9} {:>9} {:>9}  status",
        "line", "method", "url", "requests", "errors", "p50", "p99", "max"
    );
    for t in ts.iter().take(TARGET_ROWS) {
        let l = &t.latency_us;
        let codes: Vec<String> = t.status.iter().map(|(k, v)| format!("{k}:{v}")).collect();
        let _ = writeln!(
            o,
            "  {:>5}  {:<7} {:<40} {:>9} {:>7} {:>9} {:>9} {:>9}  {}",
            t.line,
            t.method,
            t.url,
            t.requests,
            t.errors.total(),
            ms(l.p50 as f64),
            ms(l.p99 as f64),
            ms(l.max as f64),
            codes.join(" ")
        );
    }
    if ts.len() > TARGET_ROWS {
        let _ = writeln!(
            o,
            "  ... {} more targets (every target is in the --json document)",
            ts.len() - TARGET_ROWS
        );
    }
}

/// What a WebSocket run checked its replies against, and how long they may be: the load's
/// settings (its figures are the protocol section's lines).
fn ws_checks(o: &mut String, c: &Config) {
    let checked = match c.protocol {
        _ if c.expect_body.is_some() => "each reply checked against --expect-body",
        Protocol::Ws { echo: false, .. } => "replies not checked (--no-echo-check)",
        _ => "each reply checked to echo its message",
    };
    let limit = match c.protocol {
        Protocol::Ws { max_message, .. } => fmt_bytes(max_message as f64),
        _ => String::new(),
    };
    let _ = writeln!(o, "  WebSocket: {checked}; replies up to {limit}");
}

/// The intervals of the run's figures, and what they rest on: the responses a percentile's ranks
/// count (fewer than the responses when they moved together) and the seconds the bootstrap drew.
fn intervals(o: &mut String, i: &Intervals) {
    use barrage_model::metric::{self, Format};
    let seconds = if i.seconds >= barrage_model::stats::blocks::MIN_SECONDS {
        format!("{} seconds in blocks of {} s", i.seconds, i.block_s)
    } else {
        format!("{} seconds: too few to bound any figure", i.seconds)
    };
    // The responses beyond a percentile: what its value is read among.
    let tail = |n: u64, p: f64| ((n as f64) * (1.0 - p)).floor() as u64;
    let _ = writeln!(
        o,
        "  Intervals ({}, from this run's own data): percentiles of {} responses (p99 rests on the slowest {}, p99.9 on {}) and how they moved over {seconds}",
        barrage_model::stats::format_level(i.level),
        i.responses,
        tail(i.responses, 0.99),
        tail(i.responses, 0.999),
    );
    let mut cells = Vec::new();
    for m in barrage_model::load::intervals::judged() {
        let Some(b) = i.of(m) else { continue };
        let show = |v: f64| match m.format {
            Format::Micros => ms(v),
            Format::Percent => format!("{v:.3}%"),
            _ => format!("{} req/s", num(v)),
        };
        let lo = b.lo.map_or("below the fastest".into(), show);
        let hi = b.hi.map_or("beyond the slowest".into(), show);
        let text = if b.lo.is_none() && b.hi.is_none() {
            "not enough data".to_string()
        } else {
            format!("[{lo}, {hi}]")
        };
        let label = if m.key == metric::ERROR_PCT.key {
            "error rate".to_string()
        } else {
            m.label.to_string()
        };
        cells.push(format!("{label} {text}"));
    }
    for chunk in cells.chunks(3) {
        let _ = writeln!(o, "    {}", chunk.join("  "));
    }
}

pub(crate) fn distribution(o: &mut String, l: &LatencySummary) {
    let _ = writeln!(
        o,
        "    mean {}  stdev {}  min {}  max {}",
        ms(l.mean),
        ms(l.stdev),
        ms(l.min as f64),
        ms(l.max as f64)
    );
    let _ = writeln!(
        o,
        "    50% {}  75% {}  90% {}  99% {}  99.9% {}  99.99% {}",
        ms(l.p50 as f64),
        ms(l.p75 as f64),
        ms(l.p90 as f64),
        ms(l.p99 as f64),
        ms(l.p999 as f64),
        ms(l.p9999 as f64)
    );
}

/// Microseconds (the recorder's unit) in the model's one duration format ("512.0 µs", "1.50 ms").
pub(crate) fn ms(us: f64) -> String {
    fmt_secs(us / 1e6)
}

/// Bytes in the model's one size format.
pub(crate) fn bytes(b: f64) -> String {
    fmt_bytes(b)
}

fn num(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(ms(512.0), "512.0 µs");
        assert_eq!(ms(1500.0), "1.50 ms");
        assert_eq!(ms(2_500_000.0), "2.50 s");
        assert_eq!(bytes(100.0), "100 B");
        assert_eq!(bytes(3.0 * 1024.0 * 1024.0), "3.0 MiB");
        assert_eq!(num(10.0), "10");
        assert_eq!(num(0.5), "0.50");
    }

    /// The summary prints the protocol section's lines, with the figures derived from its sums,
    /// and lists HTTP/1.1's error classes always, the others when they occurred.
    #[test]
    fn the_summary_prints_the_protocol_figures_and_the_error_classes() {
        use barrage_model::load::{ErrorClass, Http3, ProtocolFigures};
        let mut f = ProtocolFigures::Http3(Http3 {
            streams_asked: 8,
            connections: 2,
            handshakes: 2,
            handshake_total_us: Some(3_000),
            streams: 250,
            datagrams_sent: 300,
            datagrams_received: 450,
            packets_sent: 310,
            packets_lost: 9,
            congestion_events: 2,
            ..Http3::default()
        });
        f.settle(250);
        let mut d = LoadDoc {
            requests: 247,
            requests_written: 250,
            protocol: Some(f),
            ..LoadDoc::default()
        };
        d.errors.count(ErrorClass::StreamReset, 3);
        let c = Config {
            url: "https://127.0.0.1:8443/".into(),
            protocol: Protocol::Http3 { streams: 8 },
            ..Config::default()
        };
        let out = of_doc(&d, &c);
        for want in [
            "\n  HTTP/3: 250 streams (-m 8) on 2 connections; 2 QUIC handshakes (mean 1.50 ms)\n",
            "\n  QUIC: datagrams 300 sent, 450 received (3.00 per request); packets lost 9 of 310 sent, 2 congestion events\n",
            "\nErrors: 3 (connect 0, timeout 0, reset 0, parse 0, status 0, body 0, rst_stream 3)\n",
        ] {
            assert!(out.contains(want), "{want:?} not in:\n{out}");
        }
    }

    /// HTTP/1.0 has no section of figures: the summary's connections line names it.
    #[test]
    fn the_summary_names_http10() {
        let d = LoadDoc {
            requests: 5,
            requests_written: 5,
            ..LoadDoc::default()
        };
        let mut c = Config {
            url: "http://127.0.0.1:8080/".into(),
            connections: 2,
            protocol: Protocol::Http10 { keepalive: false },
            ..Config::default()
        };
        let out = of_doc(&d, &c);
        assert!(
            out.contains(" closed loop, HTTP/1.0, no keep-alive\n"),
            "{out}"
        );
        c.protocol = Protocol::default();
        assert!(!of_doc(&d, &c).contains("HTTP/1.0"));
    }
}

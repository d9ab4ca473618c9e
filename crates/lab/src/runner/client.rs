//! One trial of a client study: run the contender's command against barrage's own server (with
//! `{url}`, `{port}`, the study's parameters ... filled in) within the trial's time budget, sample
//! its process tree, and validate what it did: exit code, stdout, and the file it wrote (size and
//! the exact `/bytes` pattern, which implies the checksum).

use super::command::expand;
use super::trial::{blank, failure_of, placeholders, secs, spawn_sampled, spec_for, STDERR_TAIL};
use super::Ctx;
use crate::results::{Failure, FailureKind, Validation};
use crate::sample::Sampler;
use crate::study::ContenderSpec;
use crate::supervise::{Outcome, Role, StdoutMode};
use crate::sweep::Point;
use barrage_model::figure::Figure;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Stdout kept for validation.
const STDOUT_LIMIT: usize = 1 << 20;

pub(crate) fn trial(
    ctx: &Ctx,
    point: &Point,
    c: &ContenderSpec,
    trial: u32,
    seq: usize,
) -> crate::results::Trial {
    let origin = Instant::now();
    // On a network: this trial's own target server in the load side's namespace.
    let net = super::net::up(ctx, point.network.as_ref(), point.id, trial).and_then(|net| {
        let target = net
            .as_ref()
            .map(|n| super::net::target(ctx, n))
            .transpose()?;
        Ok((net, target))
    });
    let (net, target) = match net {
        Ok(x) => x,
        Err(failure) => {
            let mut t = blank(point, c, trial, seq, c.start.clone());
            t.failure = Some(failure);
            return t;
        }
    };
    let addr = match &target {
        Some((_, a)) => *a,
        None => ctx.target.expect("client studies start the target server"),
    };
    let mut vars = placeholders(ctx, c, addr, trial, None);
    for (k, v) in &point.client_params {
        vars.insert(k.clone(), v.to_string());
    }
    let client = ctx.study.client.as_ref().expect("client study");
    let path = expand(&client.path, &vars);
    vars.insert("url".into(), format!("http://{addr}{path}"));
    // Absolute: the contender runs in its own directory, so a relative `--out` would point
    // elsewhere from there.
    let tmp = ctx.opts.out_dir.join(".tmp").join(format!("trial-{seq}"));
    let tmp = std::path::absolute(&tmp).unwrap_or(tmp);
    let _ = std::fs::create_dir_all(&tmp);
    vars.insert("tmp".into(), tmp.display().to_string());
    vars.insert("out".into(), tmp.join("out").display().to_string());
    let expect = &client.expect;
    let size: Option<u64> = expect
        .file_size
        .as_ref()
        .map(|s| expand(s, &vars))
        .and_then(|s| crate::study::value::parse_bytes(&s).ok());
    if let Some(n) = size {
        vars.insert("checksum".into(), barrage_wire::pattern::checksum(n));
    }
    let mut spec = spec_for(ctx, c, &vars, Role::Client);
    let mut t = blank(point, c, trial, seq, spec.command.clone());
    spec.stdout = StdoutMode::Capture {
        limit: STDOUT_LIMIT,
    };
    spec.stderr_tail = STDERR_TAIL;
    let started = super::net::in_contender(net.as_ref(), || spawn_sampled(ctx, &spec, origin));
    let (proc, sampler) = match started.and_then(|r| r) {
        Ok(started) => started,
        Err(failure) => {
            drop(target);
            t.network = super::net::down(net);
            t.failure = Some(failure);
            return t;
        }
    };
    t.windows.measure_start_s = Some(secs(origin, proc.spawned_at()));
    let exit = proc.wait(ctx.study.trial_timeout);
    let samples = sampler.map(Sampler::stop);
    drop(target);
    t.network = super::net::down(net);
    t.windows.measure_end_s = Some(secs(origin, exit.exited_at.unwrap_or_else(Instant::now)));
    t.windows.trial_end_s = secs(origin, Instant::now());
    // The exit code is the study's to judge: a client expected to exit 3 passes with 3.
    let expected_exit =
        matches!(exit.outcome, Outcome::Exited { code } if code == expect.exit_code);
    t.failure = if expected_exit || (expect.exit_code == 0 && exit.outcome == Outcome::Ok) {
        None
    } else if expect.exit_code != 0 && exit.outcome == Outcome::Ok {
        Some(Failure {
            kind: FailureKind::Exited,
            message: format!("exited with 0, expected {}", expect.exit_code),
            stderr_tail: exit.stderr_tail.clone(),
        })
    } else {
        failure_of(&exit)
    };
    let mut v = Validation::default();
    v.checks.push(format!("exit code {}", expect.exit_code));
    if t.failure.is_none() {
        let stdout = String::from_utf8_lossy(&exit.stdout);
        for s in &expect.stdout_contains {
            let s = expand(s, &vars);
            v.checks.push(format!("stdout contains {s:?}"));
            if !stdout.contains(&s) {
                v.problems.push(format!("stdout does not contain {s:?}"));
            }
        }
        if let Some(name) = &client.rate {
            v.checks.push(format!("stdout reports {name}=<req/s>"));
            match stdout_figure(&stdout, name) {
                Some(x) if x.is_finite() && x >= 0.0 => t.metrics.rps = Some(x),
                _ => v
                    .problems
                    .push(format!("stdout has no number {name}=<req/s>")),
            }
        }
        if let Some(name) = &client.requests {
            v.checks.push(format!("stdout reports {name}=<requests>"));
            match stdout_figure(&stdout, name) {
                Some(x) if x.is_finite() && x >= 0.0 && x.fract() == 0.0 => {
                    t.metrics.requests = Some(x as u64)
                }
                _ => v
                    .problems
                    .push(format!("stdout has no count {name}=<requests>")),
            }
        }
        read_figures(&stdout, &client.figures, &mut t.metrics.figures, &mut v);
        if let Some(f) = &expect.file {
            let p = PathBuf::from(expand(f, &vars));
            let p = if p.is_relative() { c.dir.join(p) } else { p };
            check_file(&p, size, expect.file_pattern, &mut v);
        }
        if !v.problems.is_empty() {
            t.failure = Some(Failure {
                kind: FailureKind::Validation,
                message: v.problems.join("; "),
                stderr_tail: exit.stderr_tail.clone(),
            });
        }
    }
    v.passed = t.failure.is_none();
    // Downloads can be large: the scratch directory goes as soon as the trial is judged.
    let _ = std::fs::remove_dir_all(&tmp);
    t.ok = t.failure.is_none();
    let m = &mut t.metrics;
    m.wall_s = Some(exit.wall.as_secs_f64());
    m.user_s = Some(exit.rusage.user.as_secs_f64());
    m.sys_s = Some(exit.rusage.sys.as_secs_f64());
    // The cgroup's counter covers every process that ran (also those reparented away from the
    // client, whose rusage never reaches it); rusage where no cgroup could be made.
    m.cpu_s = Some(
        exit.cgroup_cpu
            .unwrap_or(exit.rusage.user + exit.rusage.sys)
            .as_secs_f64(),
    );
    // Throughput only where the size was checked and the trial passed: a failed download has no
    // honest byte count.
    if let (true, Some(n)) = (t.ok, size) {
        m.body_bytes = Some(n);
        let wall = exit.wall.as_secs_f64();
        m.mb_per_s = (wall > 0.0).then(|| n as f64 / wall / 1e6);
    }
    // CPU of the whole run (start-up included) over the requests the client says it made.
    m.cpu_s_per_request = match (m.cpu_s, m.requests) {
        (Some(cpu), Some(n)) if n > 0 => Some(cpu / n as f64),
        _ => None,
    };
    m.peak_rss_bytes = samples
        .as_ref()
        .map(|s| s.peak_rss_bytes.max(exit.rusage.maxrss_bytes));
    t.validation = Some(v);
    t.samples = samples;
    t.exit = Some(exit);
    t
}

/// The value of the last whitespace-separated `name=value` token on stdout (a client reporting
/// its own figures, e.g. `iterations=12 requests=600 requests_per_s=1183.2`).
fn stdout_figure(stdout: &str, name: &str) -> Option<f64> {
    stdout
        .split_whitespace()
        .rev()
        .filter_map(|tok| tok.split_once('='))
        .find(|(k, _)| *k == name)
        .and_then(|(_, v)| v.parse().ok())
}

/// The study's declared figures from stdout into `figures` (key -> the number printed). A figure
/// the contender does not print gets no value and a note, or fails the trial when it is
/// `required`.
fn read_figures(
    stdout: &str,
    declared: &[Figure],
    figures: &mut BTreeMap<String, f64>,
    v: &mut Validation,
) {
    for f in declared {
        if f.required {
            v.checks
                .push(format!("stdout reports {}=<{}>", f.key, f.label));
        }
        match stdout_figure(stdout, &f.key) {
            Some(x) if x.is_finite() => {
                figures.insert(f.key.clone(), x);
            }
            _ => {
                let why = format!("stdout has no number {}=<{}>", f.key, f.label);
                if f.required {
                    v.problems.push(why);
                } else {
                    v.notes.push(format!("{why} (figure left empty)"));
                }
            }
        }
    }
}

/// Size, and optionally the exact `/bytes` pattern (equal bytes imply an equal checksum).
fn check_file(p: &Path, size: Option<u64>, pattern: bool, v: &mut Validation) {
    v.checks.push(format!("file {}", p.display()));
    let mut f = match std::fs::File::open(p) {
        Ok(f) => f,
        Err(e) => {
            v.problems.push(format!("cannot open {}: {e}", p.display()));
            return;
        }
    };
    let len = f.metadata().map_or(0, |m| m.len());
    if let Some(want) = size {
        v.checks.push(format!("file size {want}"));
        if len != want {
            v.problems
                .push(format!("{} has {len} bytes, expected {want}", p.display()));
            return;
        }
    }
    if pattern {
        v.checks.push(format!(
            "file content = /bytes pattern ({})",
            barrage_wire::pattern::checksum(len)
        ));
        let mut buf = vec![0u8; 1 << 16];
        let mut want = vec![0u8; 1 << 16];
        let mut off = 0u64;
        loop {
            let n = match f.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) => {
                    v.problems.push(format!("reading {}: {e}", p.display()));
                    return;
                }
            };
            barrage_wire::pattern::fill(off, &mut want[..n]);
            if let Some(i) = (0..n).find(|&i| buf[i] != want[i]) {
                v.problems.push(format!(
                    "{} differs from the pattern at byte {}",
                    p.display(),
                    off + i as u64
                ));
                return;
            }
            off += n as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{read_figures, stdout_figure, Validation};
    use barrage_model::figure::{Figure, Unit};
    use barrage_model::metric::Better;
    use std::collections::BTreeMap;

    #[test]
    fn stdout_figures_are_name_value_tokens() {
        let out = "warming up\niterations=12 requests=600 requests_per_s=1183.5\nrequests=650\n";
        assert_eq!(stdout_figure(out, "requests_per_s"), Some(1183.5));
        assert_eq!(stdout_figure(out, "requests"), Some(650.0));
        assert_eq!(stdout_figure(out, "iterations_per_s"), None);
        assert_eq!(stdout_figure("rate=fast", "rate"), None);
    }

    fn figure(key: &str, required: bool) -> Figure {
        Figure {
            key: key.into(),
            label: key.replace('_', " "),
            unit: Unit::Count,
            better: Better::Lower,
            compared: true,
            required,
        }
    }

    #[test]
    fn declared_figures_are_read_from_stdout() {
        let out = "warming up alloc_objects=1\niterations=12 requests=600 bad=0 alloc_objects=5827 alloc_bytes=9084994 gc=nan\n";
        let declared = [
            figure("alloc_objects", false),
            figure("alloc_bytes", false),
            figure("retained_bytes", false),
            figure("gc", false),
        ];
        let (mut figs, mut v) = (BTreeMap::new(), Validation::default());
        read_figures(out, &declared, &mut figs, &mut v);
        // The last token wins; a missing or non-finite figure is absent, not zero.
        assert_eq!(
            figs,
            BTreeMap::from([
                ("alloc_bytes".to_string(), 9_084_994.0),
                ("alloc_objects".to_string(), 5827.0),
            ])
        );
        assert_eq!(
            v.notes,
            [
                "stdout has no number retained_bytes=<retained bytes> (figure left empty)",
                "stdout has no number gc=<gc> (figure left empty)"
            ]
        );
        assert!(
            v.problems.is_empty(),
            "a missing figure is a note, not a failure"
        );

        // A required figure that is missing fails validation.
        let (mut figs, mut v) = (BTreeMap::new(), Validation::default());
        read_figures(
            "fanout_s=1.0123\n",
            &[figure("fanout_s", true), figure("ok", true)],
            &mut figs,
            &mut v,
        );
        assert_eq!(figs.get("fanout_s"), Some(&1.0123));
        assert_eq!(v.problems, ["stdout has no number ok=<ok>"]);
        assert_eq!(
            v.checks,
            [
                "stdout reports fanout_s=<fanout s>",
                "stdout reports ok=<ok>"
            ]
        );
        assert!(v.notes.is_empty());
    }
}

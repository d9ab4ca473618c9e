//! One trial of a client study: run the contender's command against barrage's own server (with
//! `{url}`, `{port}`, the study's parameters ... filled in) within the trial's time budget, sample
//! its process tree, and validate what it did: exit code, stdout, and the file it wrote (size and
//! the exact `/bytes` pattern, which implies the checksum).

use super::command::expand;
use super::trial::{failure_of, placeholders, secs, spec_for, Ended, Part, Running, STDERR_TAIL};
use super::Ctx;
use crate::results::{Failure, FailureKind, Trial, Validation};
use crate::sample::Sampler;
use crate::study::ContenderSpec;
use crate::supervise::{Outcome, Role, Spec, StdoutMode};
use crate::sweep::Point;
use barrage_model::figure::Figure;
use barrage_netem::Net;
use std::collections::BTreeMap;
use std::io::Read;
use std::net::SocketAddr;
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
    let mut part = ClientPart {
        seq,
        ..ClientPart::default()
    };
    super::trial::run(ctx, point, c, trial, seq, &mut part)
}

/// What a client trial holds: on a network its own target server, and the placeholders, the
/// scratch directory and the expected file size it validates against.
#[derive(Default)]
struct ClientPart {
    /// The trial's place in the run: its scratch directory's name.
    seq: usize,
    target: Option<barrage_server::ServerHandle>,
    vars: BTreeMap<String, String>,
    tmp: PathBuf,
    size: Option<u64>,
}

impl Part for ClientPart {
    /// On a network: this trial's own target server in the load side's namespace.
    fn address(&mut self, ctx: &Ctx, net: Option<&Net>) -> Result<SocketAddr, Failure> {
        match net {
            Some(n) => {
                let (handle, addr) = super::net::target(ctx, n)?;
                self.target = Some(handle);
                Ok(addr)
            }
            None => Ok(ctx.target.expect("client studies start the target server")),
        }
    }

    fn spec(
        &mut self,
        ctx: &Ctx,
        point: &Point,
        c: &ContenderSpec,
        trial: u32,
        addr: SocketAddr,
    ) -> Spec {
        let mut vars = placeholders(ctx, c, addr, trial, None);
        for (k, v) in &point.client_params {
            vars.insert(k.clone(), v.to_string());
        }
        let client = ctx.study.client.as_ref().expect("client study");
        let path = expand(&client.path, &vars);
        vars.insert("url".into(), format!("http://{addr}{path}"));
        // Absolute: the contender runs in its own directory, so a relative `--out` would point
        // elsewhere from there.
        let tmp = ctx
            .opts
            .out_dir
            .join(".tmp")
            .join(format!("trial-{}", self.seq));
        let tmp = std::path::absolute(&tmp).unwrap_or(tmp);
        let _ = std::fs::create_dir_all(&tmp);
        vars.insert("tmp".into(), tmp.display().to_string());
        vars.insert("out".into(), tmp.join("out").display().to_string());
        self.size = client
            .expect
            .file_size
            .as_ref()
            .map(|s| expand(s, &vars))
            .and_then(|s| crate::study::value::parse_bytes(&s).ok());
        if let Some(n) = self.size {
            vars.insert("checksum".into(), barrage_wire::pattern::checksum(n));
        }
        let mut spec = spec_for(ctx, c, &vars, Role::Client);
        spec.stdout = StdoutMode::Capture {
            limit: STDOUT_LIMIT,
        };
        spec.stderr_tail = STDERR_TAIL;
        self.vars = vars;
        self.tmp = tmp;
        spec
    }

    /// The client runs to its end within the trial's budget.
    fn run(
        &mut self,
        ctx: &Ctx,
        _: &Point,
        _: &ContenderSpec,
        t: &mut Trial,
        r: Running<'_>,
    ) -> Ended {
        t.windows.measure_start_s = Some(secs(r.origin, r.proc.spawned_at()));
        let exit = r.proc.wait(ctx.study.trial_timeout);
        let samples = r.sampler.map(Sampler::stop);
        t.windows.measure_end_s = Some(secs(r.origin, exit.exited_at.unwrap_or_else(Instant::now)));
        Ended { exit, samples }
    }

    fn release(&mut self) {
        self.target = None;
    }

    /// The exit code is the study's to judge (a client expected to exit 3 passes with 3), then
    /// what it printed and the file it wrote.
    fn judge(&mut self, ctx: &Ctx, c: &ContenderSpec, t: &mut Trial, ended: &Ended) {
        let exit = &ended.exit;
        let client = ctx.study.client.as_ref().expect("client study");
        let expect = &client.expect;
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
            failure_of(exit)
        };
        let mut v = Validation::default();
        v.checks.push(format!("exit code {}", expect.exit_code));
        if t.failure.is_none() {
            let vars = &self.vars;
            let stdout = String::from_utf8_lossy(&exit.stdout);
            for s in &expect.stdout_contains {
                let s = expand(s, vars);
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
                let p = PathBuf::from(expand(f, vars));
                let p = if p.is_relative() { c.dir.join(p) } else { p };
                check_file(&p, self.size, expect.file_pattern, &mut v);
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
        t.validation = Some(v);
        // Downloads can be large: the scratch directory goes as soon as the trial is judged.
        let _ = std::fs::remove_dir_all(&self.tmp);
    }

    fn measure(&mut self, _: &Ctx, t: &mut Trial, ended: &Ended) {
        let exit = &ended.exit;
        let m = &mut t.metrics;
        m.wall_s = Some(exit.wall.as_secs_f64());
        // The cgroup's counter covers every process that ran (also those reparented away from
        // the client, whose rusage never reaches it); rusage where no cgroup could be made.
        m.cpu_s = Some(
            exit.cgroup_cpu
                .unwrap_or(exit.rusage.user + exit.rusage.sys)
                .as_secs_f64(),
        );
        // Throughput only where the size was checked and the trial passed: a failed download
        // has no honest byte count.
        if let (true, Some(n)) = (t.ok, self.size) {
            m.body_bytes = Some(n);
            let wall = exit.wall.as_secs_f64();
            m.mb_per_s = (wall > 0.0).then(|| n as f64 / wall / 1e6);
        }
        // CPU of the whole run (start-up included) over the requests the client says it made.
        m.cpu_s_per_request = match (m.cpu_s, m.requests) {
            (Some(cpu), Some(n)) if n > 0 => Some(cpu / n as f64),
            _ => None,
        };
        m.peak_rss_bytes = ended
            .samples
            .as_ref()
            .map(|s| s.peak_rss_bytes.max(exit.rusage.maxrss_bytes));
    }
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

//! A busy machine (`busy_limit`, `on_busy`; docs/study.md, "A busy machine"): each trial records
//! the CPU other programs took while it was measured (the machine's cores less the contender's
//! tree and barrage's own process, from the sampler's figures), and the study's policy keeps it
//! flagged (`warn`), runs it again once the machine is quiet (`retry`), or fails it (`fail`).
//!
//! Why retry, bounded: what makes a shared machine busy (a build, an editor's indexer) comes and
//! goes, so a trial run again a little later is usually quiet, and a study planned for a number
//! of trials by power keeps them; a machine that stays busy fails the trial after
//! [`RETRIES`] attempts, so a study never waits without end and the failures say why.

use super::Ctx;
use crate::results::{Failure, FailureKind, Trial};
use crate::sample::procfs;
use barrage_model::busy::{OnBusy, OutsideCpu, RETRIES};
use std::time::{Duration, Instant};

/// The longest wait for a quiet second before a retry.
const QUIET_WAIT: Duration = Duration::from_secs(60);

/// Records on `t` the CPU outside its contender and barrage over its measured window.
pub(crate) fn record(ctx: &Ctx, t: &mut Trial) {
    let (Some(a), Some(b), Some(s)) = (
        t.windows.measure_start_s,
        t.windows.measure_end_s,
        t.samples.as_ref(),
    ) else {
        return;
    };
    let (from, to) = (Duration::from_secs_f64(a), Duration::from_secs_f64(b));
    if let Some(pct) = s.outside_cpu_pct(from, to) {
        t.outside_cpu = Some(OutsideCpu::judge(pct, ctx.study.busy_limit_pct));
    }
}

fn is_busy(t: &Trial) -> bool {
    t.ok && t.outside_cpu.as_ref().is_some_and(|o| o.busy)
}

/// Runs one planned trial under the study's policy: `run` again while it was busy and retries
/// are left (`retry`), then a busy trial fails as `machine_busy` unless the policy is `warn`.
pub(crate) fn run_policed(ctx: &Ctx, mut run: impl FnMut() -> Trial) -> Trial {
    let mut discarded = Vec::new();
    let mut t = run();
    while ctx.study.on_busy == OnBusy::Retry
        && is_busy(&t)
        && discarded.len() < RETRIES as usize
        && !ctx.cancel.is_cancelled()
    {
        let pct = t.outside_cpu.as_ref().map_or(0.0, |o| o.cpu_pct);
        ctx.progress.note(&format!(
            "{} #{}: the machine was busy ({pct:.0}% of a core outside the contender and barrage, bound {:.0}%); running it again",
            t.contender,
            t.trial + 1,
            ctx.study.busy_limit_pct
        ));
        discarded.push(pct);
        wait_quiet(ctx);
        t = run();
    }
    if let Some(o) = &mut t.outside_cpu {
        o.discarded_pct = discarded;
    }
    if ctx.study.on_busy != OnBusy::Warn && is_busy(&t) {
        refuse(&mut t, ctx.study.on_busy);
    }
    t
}

/// Fails a busy trial: it is recorded, not credited.
fn refuse(t: &mut Trial, policy: OnBusy) {
    let Some(o) = &t.outside_cpu else { return };
    let attempts = match policy {
        OnBusy::Retry => format!(" in each of {} attempts", o.discarded_pct.len() + 1),
        _ => String::new(),
    };
    t.failure = Some(Failure {
        kind: FailureKind::MachineBusy,
        message: format!(
            "{}{attempts} (on_busy = \"{}\")",
            o.describe(),
            policy.as_str()
        ),
        stderr_tail: String::new(),
    });
    t.ok = false;
}

/// Waits (at most [`QUIET_WAIT`]) for one second in which the whole machine, barrage idle
/// between trials, was busy for no more than the study's bound.
fn wait_quiet(ctx: &Ctx) {
    let start = Instant::now();
    let mut prev = machine_busy_ticks();
    while start.elapsed() < QUIET_WAIT && !ctx.cancel.is_cancelled() {
        std::thread::sleep(Duration::from_secs(1));
        let now = machine_busy_ticks();
        if let (Some((b0, t0, _)), Some((b1, t1, cores))) = (prev, now) {
            // Ticks of one core over the second.
            let total = t1.saturating_sub(t0) as f64 / cores as f64;
            if total > 0.0 {
                // Busy ticks over the second, in % of one core.
                let pct = b1.saturating_sub(b0) as f64 / total * 100.0;
                if pct <= ctx.study.busy_limit_pct {
                    return;
                }
            }
        } else {
            return; // no /proc/stat: nothing to wait for
        }
        prev = now;
    }
}

/// (busy ticks, all ticks) summed over the machine's cores, and how many cores.
fn machine_busy_ticks() -> Option<(u64, u64, usize)> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    let mut cores = Vec::new();
    procfs::parse_proc_stat(&text, &mut cores);
    let (busy, total) = cores.iter().fold((0, 0), |(b, t), c| {
        (b + c.total.saturating_sub(c.idle), t + c.total)
    });
    (!cores.is_empty()).then_some((busy, total, cores.len()))
}

//! Ctrl-C for the CLI's commands, one way: SIGINT and SIGTERM are blocked in the main thread
//! before any worker starts (so workers inherit the mask and only barrage's own thread sees
//! them), then either waited for (`barrage serve`) or watched by one thread for the rest of the
//! command (`barrage load`: a signal while the run goes on stops it and keeps what was measured;
//! once the run is over, the first signal there ends what follows it, the `--metrics` linger;
//! a second signal in either stage exits).
//!
//! One signal has one effect, whenever it comes: which one is decided by [`Hand`], under the
//! same lock that moves it from the run to what follows. The move is made when the run enters
//! its last phase (`Phase::Done`, what `/metrics` shows; the engine no longer acts on its
//! cancel flag by then) or returns. Before, a watcher per stage left a gap: a signal taken by
//! the run's watcher just after the run had ended cancelled nothing, and the linger then
//! waited its whole time with a fresh watcher (2 of 6 tries at the boundary, issue 57).

use barrage_engine::{Cancel, Phase, Sink};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

/// SIGINT and SIGTERM blocked in this thread (so the engine's workers inherit the mask) and
/// received by a watcher thread with `sigtimedwait`.
pub struct CtrlC {
    set: libc::sigset_t,
}

/// What one signal does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// The run goes on: stop it (it reports what it measured).
    StopRun,
    /// A second signal: exit at once (130).
    Exit,
    /// The first signal once the run is over: end what follows it (the `--metrics` linger).
    EndAfter,
}

/// Where the command is, and what signals have done: the hand-off of a signal between the run
/// and what follows it, without I/O.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Hand {
    run_over: bool,
    run_stopped: bool,
    after_ended: bool,
}

impl Hand {
    /// The effect of a signal arriving now.
    pub fn signal(&mut self) -> Effect {
        match (self.run_over, self.run_stopped, self.after_ended) {
            (false, false, _) => {
                self.run_stopped = true;
                Effect::StopRun
            }
            // The run over, the first signal there is for what follows it, even when one
            // already stopped the run: each signal has its one effect.
            (true, _, false) => {
                self.after_ended = true;
                Effect::EndAfter
            }
            // A second signal in either stage: the way out, as before.
            (false, true, _) | (true, _, true) => Effect::Exit,
        }
    }

    /// The run is over: later signals are for what follows it.
    pub fn run_over(&mut self) {
        self.run_over = true;
    }
}

/// The signals' effects on one command: the run's cancel flag and what follows the run's.
pub struct Interrupts {
    hand: Mutex<Hand>,
    run: Cancel,
    after: Cancel,
}

impl Interrupts {
    pub fn new(run: Cancel) -> Interrupts {
        Interrupts {
            hand: Mutex::new(Hand::default()),
            run,
            after: Cancel::new(),
        }
    }

    /// A signal arrived: decides its effect and carries out the flags' part under the lock,
    /// so that [`Interrupts::run_over`] falls wholly before or wholly after it. The caller
    /// exits on [`Effect::Exit`].
    pub fn signal(&self) -> Effect {
        let mut hand = self.hand.lock().unwrap_or_else(|e| e.into_inner());
        let effect = hand.signal();
        match effect {
            Effect::StopRun => self.run.cancel(),
            Effect::EndAfter => self.after.cancel(),
            Effect::Exit => {}
        }
        effect
    }

    /// The run is over (its last phase began, or it returned).
    pub fn run_over(&self) {
        self.hand
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .run_over();
    }

    /// Whether a signal came after the run: what follows it should end.
    pub fn after_ended(&self) -> bool {
        self.after.is_cancelled()
    }
}

/// The run's last phase hands the signals over: put it before the sinks a reader watches
/// (`/metrics`), so that whoever sees the run over and signals is answered by what follows.
impl Sink for Interrupts {
    fn phase(&self, phase: Phase, _at: Instant) {
        if phase == Phase::Done {
            self.run_over();
        }
    }
}

/// The watcher thread, stopped when dropped.
pub struct Watch {
    pub interrupts: Arc<Interrupts>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl CtrlC {
    pub fn install() -> anyhow::Result<CtrlC> {
        // SAFETY: sigset functions initialise and fill the set we own; pthread_sigmask changes
        // only this thread's mask.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGINT);
            libc::sigaddset(&mut set, libc::SIGTERM);
            let rc = libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
            if rc != 0 {
                anyhow::bail!("cannot block signals: error {rc}");
            }
            Ok(CtrlC { set })
        }
    }

    /// Waits for one of the signals (for a server that runs until told to stop).
    pub fn wait(&self) -> anyhow::Result<i32> {
        let mut sig: libc::c_int = 0;
        // SAFETY: `set` was initialised by `install` and `sig` is a valid out pointer.
        let rc = unsafe { libc::sigwait(&self.set, &mut sig) };
        if rc != 0 {
            anyhow::bail!("sigwait failed (error {rc})");
        }
        Ok(sig)
    }

    /// Watches for the signals until the returned guard is dropped: one watcher for the run
    /// (`run` is its cancel flag) and what follows it.
    pub fn watch(&self, run: Cancel) -> Watch {
        let interrupts = Arc::new(Interrupts::new(run));
        let stop = Arc::new(AtomicBool::new(false));
        let (st, set, hand) = (stop.clone(), self.set, interrupts.clone());
        let thread = std::thread::spawn(move || {
            let ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: 50_000_000,
            };
            while !st.load(Ordering::Relaxed) {
                // SAFETY: `set` is a valid signal set; a null info pointer is allowed.
                let sig = unsafe { libc::sigtimedwait(&set, std::ptr::null_mut(), &ts) };
                if (sig == libc::SIGINT || sig == libc::SIGTERM) && hand.signal() == Effect::Exit {
                    std::process::exit(crate::exit::INTERRUPTED.into());
                }
            }
        });
        Watch {
            interrupts,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for CtrlC {
    fn drop(&mut self) {
        // SAFETY: unblocks the set this value blocked, in the same thread.
        unsafe {
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &self.set, std::ptr::null_mut());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_signal_has_one_effect_by_when_it_comes() {
        // (signals before the run is over, signals after) -> their effects in order.
        let cases: &[(usize, usize, &[Effect])] = &[
            (0, 0, &[]),
            (1, 0, &[Effect::StopRun]),
            (2, 0, &[Effect::StopRun, Effect::Exit]),
            (0, 1, &[Effect::EndAfter]),
            (0, 3, &[Effect::EndAfter, Effect::Exit, Effect::Exit]),
            // The run stopped by the first signal; the next, after it, ends the linger.
            (1, 1, &[Effect::StopRun, Effect::EndAfter]),
            (1, 2, &[Effect::StopRun, Effect::EndAfter, Effect::Exit]),
        ];
        for &(before, after, want) in cases {
            let mut h = Hand::default();
            let mut got: Vec<Effect> = (0..before).map(|_| h.signal()).collect();
            h.run_over();
            got.extend((0..after).map(|_| h.signal()));
            assert_eq!(got, want, "{before} before, {after} after");
        }
    }

    #[test]
    fn a_signal_at_the_boundary_ends_the_linger_and_leaves_the_run_alone() {
        // The run's last phase, as the engine reports it through the sinks, then a signal:
        // the run is not cancelled after it ended, and the linger ends.
        let run = Cancel::new();
        let i = Interrupts::new(run.clone());
        i.phase(Phase::Measure, Instant::now());
        assert!(!i.after_ended());
        i.phase(Phase::Done, Instant::now());
        assert_eq!(i.signal(), Effect::EndAfter);
        assert!(!run.is_cancelled(), "a signal after the run cancelled it");
        assert!(i.after_ended());
        // Just before the boundary: the signal stops the run, and the linger still serves.
        let run = Cancel::new();
        let i = Interrupts::new(run.clone());
        assert_eq!(i.signal(), Effect::StopRun);
        i.phase(Phase::Done, Instant::now());
        assert!(run.is_cancelled() && !i.after_ended());
        assert_eq!(i.signal(), Effect::EndAfter);
        assert!(i.after_ended());
    }

    #[test]
    fn signals_racing_the_boundary_have_one_effect_each() {
        // Three threads signal while another ends the run: at most one stops the run and at
        // most one ends what follows, the others exit; the run's flag is set only by a signal
        // that came before the run was over, what follows is ended only by one after.
        for _ in 0..200 {
            let run = Cancel::new();
            let i = Interrupts::new(run.clone());
            let effects: Vec<Effect> = std::thread::scope(|s| {
                let senders: Vec<_> = (0..3).map(|_| s.spawn(|| i.signal())).collect();
                s.spawn(|| i.run_over());
                senders.into_iter().map(|t| t.join().unwrap()).collect()
            });
            let stopped = effects.iter().filter(|e| **e == Effect::StopRun).count();
            let after = effects.iter().filter(|e| **e == Effect::EndAfter).count();
            assert!(stopped <= 1 && after <= 1, "{effects:?}");
            let exits = effects.iter().filter(|e| **e == Effect::Exit).count();
            assert_eq!(stopped + after + exits, 3, "{effects:?}");
            assert_eq!(run.is_cancelled(), stopped == 1, "{effects:?}");
            assert_eq!(i.after_ended(), after > 0, "{effects:?}");
        }
    }
}

//! Ctrl-C for the CLI's commands, one way: SIGINT and SIGTERM are blocked in the main thread
//! before any worker starts (so workers inherit the mask and only barrage's own thread sees
//! them), then either waited for (`barrage serve`) or watched by a thread that cancels a run
//! (`barrage load`: the first signal stops the load and keeps what was measured, a second exits).

use barrage_engine::Cancel;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// SIGINT and SIGTERM blocked in this thread (so the engine's workers inherit the mask) and
/// received by a watcher thread with `sigtimedwait`; the first cancels the run, a second one
/// exits at once.
pub struct CtrlC {
    set: libc::sigset_t,
}

pub struct Watch {
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

    /// Watches for the signals until the returned guard is dropped.
    pub fn watch(&self, cancel: Cancel) -> Watch {
        let stop = Arc::new(AtomicBool::new(false));
        let (st, set) = (stop.clone(), self.set);
        let thread = std::thread::spawn(move || {
            let ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: 50_000_000,
            };
            while !st.load(Ordering::Relaxed) {
                // SAFETY: `set` is a valid signal set; a null info pointer is allowed.
                let sig = unsafe { libc::sigtimedwait(&set, std::ptr::null_mut(), &ts) };
                if sig == libc::SIGINT || sig == libc::SIGTERM {
                    if cancel.is_cancelled() {
                        std::process::exit(crate::exit::INTERRUPTED.into());
                    }
                    cancel.cancel();
                }
            }
        });
        Watch {
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

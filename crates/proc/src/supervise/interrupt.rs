//! Ctrl-C cleanup: a registry of live contender process groups and a SIGINT/SIGTERM/SIGHUP
//! handler.
//!
//! The handler only does async-signal-safe work: it sets the [`interrupted`] flag and writes a
//! byte to a self-pipe. A cleanup thread reads the pipe, runs the [`on_interrupt`] callbacks (the
//! runner cancels its load there), sends SIGTERM to every registered group, waits up to
//! [`CLEANUP_GRACE`] for them to exit, then SIGKILLs what is left. The owners of the
//! [`super::Contender`]s reap them (their `stop`/drop sees the exit and records
//! [`super::Outcome::Interrupted`]); descendants that left their group are killed too (with a
//! PID namespace, the group's SIGKILL reaches its init and ends the whole namespace). The
//! runner learns of the interrupt through [`interrupted`] and returns, writing what it measured.
//! A second signal SIGKILLs every registered group directly from the handler
//! (no grace), so the runner finds its contenders dead and still writes its results; a third
//! signal gets the signal's default action and ends barrage at once (what it started dies with
//! it all the same: see `contain`).
//!
//! The registries are fixed arrays of atomics, so the handler can read them without locks.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use super::signals::{descendants, group_members, kill_pid_if_alive};
use super::SuperviseError;

/// Time between SIGTERM and SIGKILL in the interrupt cleanup.
pub const CLEANUP_GRACE: Duration = Duration::from_secs(2);

const SLOTS: usize = 1024;
static GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];
static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static SIGNALS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
static CALLBACKS_RAN: AtomicBool = AtomicBool::new(false);
static PIPE_W: AtomicI32 = AtomicI32::new(-1);
static SPAWN: Mutex<()> = Mutex::new(());
type Callback = Box<dyn Fn() + Send + Sync>;
static CALLBACKS: Mutex<Vec<Callback>> = Mutex::new(Vec::new());
static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();

/// Held while spawning so the cleanup thread never misses a group that is being created.
pub(super) fn spawn_guard() -> MutexGuard<'static, ()> {
    SPAWN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Record a live group. Returns false if the registry is full (the contender still gets stopped
/// by its owner, but not by the interrupt cleanup).
pub(super) fn register(_guard: &MutexGuard<'static, ()>, pgid: i32) -> bool {
    put(&GROUPS, pgid)
}

pub(super) fn unregister(pgid: i32) {
    take(&GROUPS, pgid);
}

fn put(slots: &[AtomicI32], v: i32) -> bool {
    slots.iter().any(|slot| {
        slot.compare_exchange(0, v, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })
}

fn take(slots: &[AtomicI32], v: i32) {
    slots.iter().any(|slot| {
        slot.compare_exchange(v, 0, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    });
}

/// SIGKILLs every registered group (async-signal-safe: atomics and kill). A contender's group
/// leader is the init of its PID namespace, when it has one: its SIGKILL ends the namespace.
fn kill_everything() {
    for slot in &GROUPS {
        let p = slot.load(Ordering::SeqCst);
        if p > 0 {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe { libc::kill(-p, libc::SIGKILL) };
        }
    }
}

/// Process groups of contenders that are started and not yet reaped.
pub fn live_groups() -> Vec<i32> {
    GROUPS
        .iter()
        .map(|s| s.load(Ordering::SeqCst))
        .filter(|&p| p != 0)
        .collect()
}

/// Whether SIGINT, SIGTERM or SIGHUP arrived since [`install_interrupt_cleanup`].
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Run `f` on the cleanup thread when an interrupt arrives (before the groups are signalled), or
/// right away if the callbacks already ran.
pub fn on_interrupt(f: impl Fn() + Send + Sync + 'static) {
    let mut cbs = CALLBACKS.lock().unwrap_or_else(|e| e.into_inner());
    if CALLBACKS_RAN.load(Ordering::SeqCst) {
        drop(cbs);
        f();
    } else {
        cbs.push(Box::new(f));
    }
}

extern "C" fn handler(sig: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
    match SIGNALS.fetch_add(1, Ordering::SeqCst) {
        0 => {}
        1 => {
            // Second signal: no more patience with the contenders, but the runner still writes
            // what it measured (it finds them dead).
            kill_everything();
            return;
        }
        _ => {
            // Third: no more patience with barrage either.
            kill_everything();
            // SAFETY: signal and raise are async-signal-safe.
            unsafe {
                libc::signal(sig, libc::SIG_DFL);
                libc::raise(sig);
            }
            return;
        }
    }
    let fd = PIPE_W.load(Ordering::SeqCst);
    if fd >= 0 {
        let b = [sig as u8];
        // SAFETY: write(2) is async-signal-safe; b is a live 1-byte buffer and fd the pipe's non-blocking write end.
        unsafe { libc::write(fd, b.as_ptr().cast(), 1) };
    }
}

fn cleanup_thread(read_fd: i32) {
    let mut b = [0u8; 1];
    loop {
        // SAFETY: read(2) into a live 1-byte buffer from the pipe's read end this thread owns.
        let n = unsafe { libc::read(read_fd, b.as_mut_ptr().cast(), 1) };
        if n == 1 {
            break;
        }
        if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        return;
    }
    {
        let cbs = CALLBACKS.lock().unwrap_or_else(|e| e.into_inner());
        CALLBACKS_RAN.store(true, Ordering::SeqCst);
        for cb in cbs.iter() {
            cb();
        }
    }
    let _g = spawn_guard();
    let groups = live_groups();
    // Descendants that left their group (setsid, daemons) are found through the tree now, before
    // any signal: once their parent dies they are reparented and no longer findable.
    let escaped: Vec<(i32, u64)> = groups.iter().flat_map(|&g| descendants(g)).collect();
    for &g in &groups {
        // SAFETY: kill(2) takes integers only; -g names a contender's process group this supervisor created.
        unsafe { libc::kill(-g, libc::SIGTERM) };
    }
    let end = Instant::now() + CLEANUP_GRACE;
    while Instant::now() < end && groups.iter().any(|&g| !group_members(g).is_empty()) {
        std::thread::sleep(Duration::from_millis(20));
    }
    for &g in &groups {
        // SAFETY: kill(2) takes integers only; -g names a contender's process group this supervisor created.
        unsafe { libc::kill(-g, libc::SIGKILL) };
    }
    for p in escaped {
        kill_pid_if_alive(p);
    }
}

/// Install the handler and the cleanup thread (idempotent). Call once, early, from the binary.
pub fn install_interrupt_cleanup() -> Result<(), SuperviseError> {
    let r = INSTALLED.get_or_init(|| {
        let mut fds = [0i32; 2];
        // SAFETY: pipe2 writes two fds into fds, a live array of two.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(std::io::Error::last_os_error().to_string());
        }
        // The handler must never block on the pipe.
        // SAFETY: fcntl with integer arguments on the write end pipe2 just returned.
        unsafe { libc::fcntl(fds[1], libc::F_SETFL, libc::O_NONBLOCK) };
        PIPE_W.store(fds[1], Ordering::SeqCst);
        let read_fd = fds[0];
        std::thread::Builder::new()
            .name("barrage-interrupt".into())
            .spawn(move || cleanup_thread(read_fd))
            .map_err(|e| e.to_string())?;
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: sigaction is plain old data; all-zero is a valid (empty) value, filled in below.
            let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
            sa.sa_sigaction = handler as extern "C" fn(libc::c_int) as usize;
            sa.sa_flags = libc::SA_RESTART;
            // SAFETY: sigemptyset initialises the mask inside sa, a live local.
            unsafe { libc::sigemptyset(&mut sa.sa_mask) };
            // SAFETY: sa is fully initialised and its handler only does async-signal-safe work (a write to the pipe).
            if unsafe { libc::sigaction(sig, &sa, std::ptr::null_mut()) } != 0 {
                return Err(std::io::Error::last_os_error().to_string());
            }
        }
        Ok(())
    });
    r.clone()
        .map_err(|e| SuperviseError::Signal(std::io::Error::other(e)))
}

//! Errors of setting up an emulated link: each says in one line what is missing.

use std::io;

#[derive(Debug, thiserror::Error)]
pub enum NetError {
    #[error("an emulated network needs root (CAP_SYS_ADMIN) to make network namespaces: unshare(CLONE_NEWNET): {0}")]
    Namespace(io::Error),
    #[error("an emulated network needs the TUN device /dev/net/tun (modprobe tun): {0}")]
    NoTun(io::Error),
    #[error("cannot make the TUN device {name}: {source}")]
    Tun { name: String, source: io::Error },
    #[error("cannot configure {what}: {source}")]
    Configure { what: String, source: io::Error },
    #[error("cannot enter a network namespace: setns: {0}")]
    Enter(io::Error),
    #[error("cannot return to barrage's own network namespace: setns: {0}")]
    Restore(io::Error),
    #[error("cannot start the link emulator: {0}")]
    Emulator(io::Error),
    #[error("a network-namespace thread panicked")]
    Panicked,
}

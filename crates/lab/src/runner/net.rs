//! A trial's emulated network (points with `[network]`): barrage-netem's two namespaces and the
//! link between them, set up before the contender starts and removed after it is reaped. The
//! contender is spawned from the runner's own thread inside the contender's namespace (so the
//! death signal that ties it to barrage stays tied to a long-lived thread); the load engine's
//! threads, the readiness probe and, for client studies, barrage's target server live in the
//! load side's namespace. Every packet between them crosses the emulated link.

use super::{Ctx, RunError};
use crate::results::{Failure, FailureKind};
use crate::study::Study;
use barrage_model::network::{Network, NetworkRun};
use barrage_netem::{Net, NetOptions};
use std::net::{IpAddr, SocketAddr};

/// The contender's address for a trial on `net`, or loopback.
pub(crate) fn contender_ip(net: Option<&Net>) -> IpAddr {
    match net {
        Some(_) => barrage_netem::CONTENDER_ADDR.into(),
        None => [127, 0, 0, 1].into(),
    }
}

/// Checks once, before any trial, that an emulated network can be made (root, TUN): a study
/// whose network cannot run stops with one line naming what is missing.
pub(crate) fn preflight(study: &Study) -> Result<(), RunError> {
    if !study.network.is_set() {
        return Ok(());
    }
    let net = Net::up(&NetOptions::default())?;
    net.down();
    Ok(())
}

/// The network of one trial, up; a failure is the trial's (kind `network`).
pub(crate) fn up(
    ctx: &Ctx,
    network: Option<&Network>,
    point: usize,
    trial: u32,
) -> Result<Option<Net>, Failure> {
    let Some(n) = network else { return Ok(None) };
    let opts = NetOptions {
        network: n.clone(),
        // The same draws for every contender at one point and trial.
        seed: ((point as u64) << 32) | u64::from(trial),
        // The emulator is barrage's side of the trial: on the generator's CPUs.
        cpus: ctx.generator_cpus.clone(),
    };
    Net::up(&opts).map(Some).map_err(|e| failure(e.to_string()))
}

pub(crate) fn failure(message: String) -> Failure {
    Failure {
        kind: FailureKind::Network,
        message,
        stderr_tail: String::new(),
    }
}

/// Runs `f` on the calling thread inside the contender's namespace (or as it is, without one).
pub(crate) fn in_contender<T>(net: Option<&Net>, f: impl FnOnce() -> T) -> Result<T, Failure> {
    match net {
        Some(n) => n.contender().with(f).map_err(|e| failure(e.to_string())),
        None => Ok(f()),
    }
}

/// Runs `f` on the calling thread inside the load side's namespace (or as it is).
pub(crate) fn in_load<T>(net: Option<&Net>, f: impl FnOnce() -> T) -> Result<T, Failure> {
    match net {
        Some(n) => n.load().with(f).map_err(|e| failure(e.to_string())),
        None => Ok(f()),
    }
}

/// Client studies on a network: barrage's target server for this trial, in the load side's
/// namespace, on the generator's CPUs.
pub(crate) fn target(
    ctx: &Ctx,
    net: &Net,
) -> Result<(barrage_server::ServerHandle, SocketAddr), Failure> {
    let mut cfg = super::target_config(ctx.study, ctx.generator_cpus.as_deref());
    cfg.addr = SocketAddr::from((barrage_netem::LOAD_ADDR, 0));
    let cpus = ctx.generator_cpus.clone();
    let handle = net
        .load()
        .run(move || {
            if let Some(c) = &cpus {
                let _ = crate::supervise::pin_current_thread(c);
            }
            barrage_server::start(cfg)
        })
        .map_err(|e| failure(e.to_string()))?
        .map_err(|e| failure(format!("barrage's target server: {e}")))?;
    let addr = handle.local_addr();
    Ok((handle, addr))
}

/// Takes the network down and records what the link did.
pub(crate) fn down(net: Option<Net>) -> Option<NetworkRun> {
    net.map(Net::down)
}

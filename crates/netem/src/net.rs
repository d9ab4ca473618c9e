//! An emulated network, set up: two new namespaces (the contender's and the load side's), a TUN
//! device in each (`barrage0`, 10.77.0.1/24 and 10.77.0.2/24), and the emulator thread between
//! them. Every packet from one namespace to the other crosses the emulated link; the kernels'
//! TCP on both ends is real. Dropping a [`Net`] (or barrage's exit, however it happens) removes
//! it all: the devices close with the emulator thread, the namespaces with their last holder.

use crate::emulator::{Emulator, Stats};
use crate::link::{LinkConfig, DEFAULT_QUEUE_PACKETS};
use crate::ns::Netns;
use crate::tun::Tun;
use crate::NetError;
use barrage_model::network::{Network, NetworkRun, PATH_TUN};
use std::net::Ipv4Addr;
use std::time::Duration;

/// The contender's address in its namespace.
pub const CONTENDER_ADDR: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 1);
/// The load side's address in its namespace.
pub const LOAD_ADDR: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 2);
/// The TUN device's name in both namespaces.
pub const DEVICE: &str = "barrage0";
/// The devices' transmit queues (packets): long, so the emulator's own queue is the link's.
const TXQLEN: u32 = 10_000;
/// The MTU when the network gives none (the TUN default).
pub const DEFAULT_MTU: u32 = 1500;

/// How to set a network up.
#[derive(Debug, Clone, Default)]
pub struct NetOptions {
    pub network: Network,
    /// Seeds the loss and jitter draws (each direction its own stream).
    pub seed: u64,
    /// Pin the emulator thread to these CPUs.
    pub cpus: Option<Vec<usize>>,
}

/// A network that is up.
pub struct Net {
    contender: Netns,
    load: Netns,
    emulator: Emulator,
    opts: NetOptions,
}

impl Net {
    /// Makes the namespaces and devices and starts the emulator.
    pub fn up(opts: &NetOptions) -> Result<Net, NetError> {
        let mtu = opts.network.mtu.unwrap_or(DEFAULT_MTU);
        let contender = Netns::new()?;
        let load = Netns::new()?;
        let tc = contender.run(|| Tun::open(DEVICE, CONTENDER_ADDR, 24, mtu, TXQLEN))??;
        let tl = load.run(|| Tun::open(DEVICE, LOAD_ADDR, 24, mtu, TXQLEN))??;
        let cfg = link_config(&opts.network, opts.seed);
        let back = LinkConfig {
            seed: opts.seed ^ 0x5DEE_CE66_D1CE_5EED,
            ..cfg
        };
        let emulator = Emulator::start(tc, tl, cfg, back, mtu, opts.cpus.clone())
            .map_err(NetError::Emulator)?;
        Ok(Net {
            contender,
            load,
            emulator,
            opts: opts.clone(),
        })
    }

    /// The contender's namespace (address [`CONTENDER_ADDR`]).
    pub fn contender(&self) -> &Netns {
        &self.contender
    }

    /// The load side's namespace (address [`LOAD_ADDR`]).
    pub fn load(&self) -> &Netns {
        &self.load
    }

    /// The emulator thread's CPU so far.
    pub fn emulator_cpu(&self) -> Duration {
        self.emulator.cpu()
    }

    /// Stops the emulator, removes the network, and says what the link did (judged for
    /// saturation).
    pub fn down(self) -> NetworkRun {
        let Net {
            contender,
            load,
            emulator,
            opts,
        } = self;
        let stats = emulator.stop();
        drop((contender, load));
        run_of(stats, &opts)
    }
}

/// One direction's link for a network (both directions are alike).
pub fn link_config(n: &Network, seed: u64) -> LinkConfig {
    let mtu = u64::from(n.mtu.unwrap_or(DEFAULT_MTU));
    LinkConfig {
        delay_ns: n.delay.as_nanos() as u64,
        jitter_ns: n.jitter.as_nanos() as u64,
        rate_bps: n.rate.map(|r| r.0),
        loss: n.loss.0,
        queue_bytes: n.queue.unwrap_or(DEFAULT_QUEUE_PACKETS * mtu),
        seed,
    }
}

fn run_of(stats: Option<Stats>, opts: &NetOptions) -> NetworkRun {
    let mut r = NetworkRun {
        path: PATH_TUN.into(),
        cpus: opts.cpus.clone(),
        ..NetworkRun::default()
    };
    match stats {
        Some(s) => {
            r.cpu_s = s.cpu.as_secs_f64();
            r.cpu_pct = 100.0 * r.cpu_s / s.wall.as_secs_f64().max(1e-9);
            r.peak_cpu_pct = s.peak_cpu_pct;
            r.packets = s.packets;
            r.bytes = s.bytes;
            r.dropped_loss = s.dropped_loss;
            r.dropped_queue = s.dropped_queue;
            if !s.late_us.is_empty() {
                r.late_p50_us = s.late_us.value_at_quantile(0.5) as f64;
                r.late_p99_us = s.late_us.value_at_quantile(0.99) as f64;
                r.late_max_us = s.late_us.max() as f64;
            }
            r.judge(&opts.network);
            if s.write_errors > 0 {
                r.reasons.push(format!(
                    "{} packets could not be handed to the kernel",
                    s.write_errors
                ));
            }
        }
        None => {
            r.saturated = true;
            r.reasons.push("the link emulator thread failed".into());
        }
    }
    r
}

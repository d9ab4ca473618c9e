//! The run's protocol for its connections: the engine's part of a [`Run`] (the requests, the
//! target, what the probe learned, the TLS configuration, the kernel's offload, a seed from its
//! clock), from which wire's [`Protocol::speak`] builds the protocol's `Setup`, every request
//! encoded once (HTTP/1.1 laid out in sending order, HTTP/2 and HTTP/3 a header block per
//! request, WebSocket a frame per message), so that the connections' sessions copy bytes and
//! never encode anything per request. No protocol is named here: each builds its own setup in
//! its wire module.

use crate::config::ValidConfig;
use crate::EngineError;
use barrage_wire::client::{Order, Protocol, Run};
use rustls::ClientConfig;
use std::net::SocketAddr;
use std::sync::Arc;

/// The session a run's connections speak. `h2`: HTTP/2 is spoken (h2c, or h2 chosen by ALPN).
pub(crate) fn speaks(
    cfg: &ValidConfig,
    addr: SocketAddr,
    h2: bool,
    order: &Order,
    depth: usize,
    tls: Option<&Arc<ClientConfig>>,
) -> Result<Protocol, EngineError> {
    let (c, target) = (&cfg.cfg, &cfg.target);
    let run = Run {
        load: c,
        requests: &cfg.requests,
        tls: target.tls,
        host: &target.host,
        authority: &target.authority,
        path: &target.path,
        addr,
        h2,
        order,
        depth,
        tls_config: tls,
        // Several datagrams a send where the kernel has GSO (the transport sends them one by one
        // on a socket that turns out not to); a stream protocol sends no datagrams.
        segments: match c.protocol.is_datagram() {
            true => barrage_udp::probe().segments(),
            false => 1,
        },
        keep_responses: cfg.script.as_ref().is_some_and(|s| s.responses),
        grpc_one_reply: cfg.grpc_one_reply,
        seed: wall_seed(),
    };
    Protocol::speak(&run).map_err(|e| EngineError::Tls {
        host: target.host.clone(),
        cause: e.to_string(),
    })
}

/// The wall clock's nanoseconds and the process id: a seed that differs between runs (the
/// engine reads the clock; wire's sessions never do).
fn wall_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    t ^ u64::from(std::process::id()).rotate_left(32)
}

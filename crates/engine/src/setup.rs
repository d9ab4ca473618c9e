//! Each protocol's `Setup` for a run, built once before any connection opens: every request
//! encoded once for the protocol (HTTP/1.1 laid out in sending order, HTTP/2 and HTTP/3 a
//! header block per request, WebSocket a frame per message) with the protocol's settings, so
//! that the connections' sessions copy bytes and never encode anything per request.

use crate::config::ValidConfig;
use crate::{tls, EngineError};
use barrage_model::load::{Protocol as LoadProtocol, DEFAULT_H2_WINDOW, DEFAULT_WS_MAX_MESSAGE};
use barrage_wire::client::{Order, Protocol};
use barrage_wire::grpc::Code;
use barrage_wire::h1::{client as h1client, encoded::Encoded};
use barrage_wire::h2::client as h2client;
use barrage_wire::h3::client as h3client;
use barrage_wire::ws::client as wsclient;
use barrage_wire::RequestSpec;
use std::net::SocketAddr;

/// The longest gRPC reply message read (gRPC's usual default for what a side receives); a
/// longer one is an error of class `grpc`, refused before it is read.
const GRPC_MAX_MESSAGE: u32 = 4 << 20;

/// The session a run's connections speak, with its `Setup`: the one place a protocol of the
/// load's (`LoadProtocol`, the model's) becomes wire's, so a new protocol is one arm here (the
/// match is exhaustive: the compiler points at it). `h2`: HTTP/2 is spoken (h2c, or h2 chosen
/// by ALPN; an HTTP/2 or gRPC load that ALPN turned into HTTP/1.1 speaks HTTP/1.1, and gRPC then
/// never gets here: `run` refuses it).
pub(crate) fn speaks(
    cfg: &ValidConfig,
    addr: SocketAddr,
    h2: bool,
    order: &Order,
    depth: usize,
) -> Result<Protocol, EngineError> {
    Ok(match cfg.cfg.protocol {
        LoadProtocol::Ws { .. } => Protocol::Ws(ws_setup(cfg, depth)),
        LoadProtocol::Http3 { .. } => Protocol::H3(h3_setup(cfg, addr)?),
        LoadProtocol::Http2 { .. } | LoadProtocol::Grpc { .. } if h2 => Protocol::H2(h2_setup(cfg)),
        LoadProtocol::Http1 { .. }
        | LoadProtocol::Http10 { .. }
        | LoadProtocol::Http2 { .. }
        | LoadProtocol::Grpc { .. } => Protocol::H1(h1_setup(cfg, order, depth)),
    })
}

/// HTTP/1.1 (and HTTP/1.0, the same session with its own request line and keep-alive): every
/// request encoded once, laid out at the positions of the run's order, so a pipelined batch is
/// one slice of one buffer.
/// `depth` is the pipeline's (a script's request() batch may raise it).
fn h1_setup(cfg: &ValidConfig, order: &Order, depth: usize) -> h1client::Setup {
    let (c, target) = (&cfg.cfg, &cfg.target);
    let encoded: Vec<Vec<u8>> = cfg
        .requests
        .iter()
        .map(|r| {
            RequestSpec {
                method: r.method.clone(),
                host: target.authority.clone(),
                path: r.path.clone(),
                headers: r.headers.clone(),
                body: r.body.clone(),
                keep_alive: c.protocol.keepalive(),
                version_minor: match c.protocol {
                    LoadProtocol::Http10 { .. } => 0,
                    _ => 1,
                },
            }
            .encode()
        })
        .collect();
    h1client::Setup {
        encoded: Encoded::new(&encoded, order),
        is_head: cfg
            .requests
            .iter()
            .map(|r| r.method.eq_ignore_ascii_case("HEAD"))
            .collect(),
        // HTTP/1.1's depth (an HTTP/2 load whose server chose http/1.1 by ALPN pipelines none).
        depth,
        keep_alive: c.protocol.keepalive(),
        // The closed loop sends whole batches; the open loop one request per slot.
        batch: c.rate.is_none() && c.stages.is_empty(),
        timeout: c.timeout,
        expect_body: c.expect_body.clone(),
        keep_responses: cfg.script.as_ref().is_some_and(|s| s.responses),
    }
}

/// HTTP/2: every request encoded once for a stream, and the connections' settings.
fn h2_setup(cfg: &ValidConfig) -> h2client::Setup {
    let (c, target) = (&cfg.cfg, &cfg.target);
    let scheme = if target.tls { "https" } else { "http" };
    let several = cfg.requests.len() > 1;
    let window = match c.protocol {
        LoadProtocol::Http2 { window, .. } | LoadProtocol::Grpc { window, .. } => window,
        _ => DEFAULT_H2_WINDOW,
    };
    let grpc = matches!(c.protocol, LoadProtocol::Grpc { .. });
    h2client::Setup {
        requests: cfg
            .requests
            .iter()
            .map(|r| {
                let req = h2client::Request::new(
                    &r.method,
                    scheme,
                    &target.authority,
                    &r.path,
                    &r.headers,
                    &r.body,
                );
                // Different requests on one connection cannot share HPACK table entries.
                let req = if several { req.without_indexing() } else { req };
                match grpc {
                    true => req.grpc(GRPC_MAX_MESSAGE),
                    false => req,
                }
            })
            .collect(),
        scheme: scheme.to_string(),
        authority: target.authority.clone(),
        keep_responses: cfg.script.as_ref().is_some_and(|s| s.responses),
        config: h2client::Config {
            max_streams: c.protocol.streams() as u32,
            stream_window: window,
            conn_window: window,
            max_header_list: h2client::MAX_HEADER_LIST,
        },
        timeout: c.timeout,
        expect_body: c.expect_body.clone(),
        // `check` made sure a gRPC load's expected status is a code (0-16).
        grpc: grpc.then(|| {
            c.expect_status
                .and_then(|n| Code::from_u32(n.into()))
                .unwrap_or(Code::Ok)
        }),
    }
}

/// HTTP/3: every request encoded once for a request stream, and QUIC's client configuration
/// (rustls verifying the certificate as for TCP, or accepting any with `-k`).
fn h3_setup(cfg: &ValidConfig, addr: SocketAddr) -> Result<h3client::Setup, EngineError> {
    let (c, target) = (&cfg.cfg, &cfg.target);
    let requests = cfg.requests.iter().map(|r| {
        h3client::Request::new(
            &r.method,
            "https",
            &target.authority,
            &r.path,
            &r.headers,
            &r.body,
        )
    });
    let tls = tls::client_config(c.insecure, &[h3client::ALPN]);
    let (streams, expect) = (c.protocol.streams() as u32, c.expect_body.clone());
    let mut setup = h3client::Setup::new(
        &tls,
        addr,
        &target.host,
        requests.collect(),
        streams,
        c.timeout,
        expect,
    )
    .map_err(|e| EngineError::Tls {
        host: target.host.clone(),
        cause: e.to_string(),
    })?;
    // Several datagrams a send where the kernel has GSO (the transport sends them one by one
    // on a socket that turns out not to).
    setup.segments = barrage_udp::probe().segments();
    setup.authority.clone_from(&target.authority);
    setup.keep_responses = cfg.script.as_ref().is_some_and(|s| s.responses);
    Ok(setup)
}

/// WebSocket: the upgrade's target, and every request's body as a message.
fn ws_setup(cfg: &ValidConfig, depth: usize) -> wsclient::Setup {
    let (c, target) = (&cfg.cfg, &cfg.target);
    let bodies: Vec<Vec<u8>> = cfg.requests.iter().map(|r| r.body.clone()).collect();
    let (max_message, echo) = match c.protocol {
        LoadProtocol::Ws {
            max_message, echo, ..
        } => (max_message, echo),
        _ => (DEFAULT_WS_MAX_MESSAGE, true),
    };
    wsclient::Setup {
        host: target.authority.clone(),
        path: target.path.clone(),
        messages: wsclient::Setup::messages(&bodies),
        depth,
        timeout: c.timeout,
        expect_body: c.expect_body.clone(),
        echo,
        // A frame may be as long as the whole reply: replies stream, so neither costs memory.
        limits: barrage_wire::ws::Limits {
            max_frame: max_message,
            max_message,
        },
        headers: c.headers.clone(),
        keep_responses: cfg.script.as_ref().is_some_and(|s| s.responses),
        // Only if the system's random source fails: keys that differ from run to run.
        seed: wall_seed().into(),
    }
}

/// The wall clock's nanoseconds and the process id: a seed that differs between runs (the
/// engine reads the clock; wire's sessions never do).
fn wall_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    t ^ u64::from(std::process::id()).rotate_left(32)
}

//! What a run hands its protocol's setup: the load as asked (the model's `load::Config`), its
//! requests resolved, the target, and what only the caller can learn (the address, what ALPN
//! chose, the TLS configuration, the kernel's offload, a seed from its clock). Each protocol
//! builds its own `Setup` from a [`Run`] in its own module, so choosing a protocol
//! ([`super::Protocol::speak`]) is one match and the engine names no protocol's setup.

use super::Order;
use barrage_model::load::Config;
use std::net::SocketAddr;
use std::sync::Arc;
use thiserror::Error;

/// One request the run sends, resolved against the run's origin; a script's requests too
/// (`barrage_script::Request`), as its `request()` wrote them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    /// The request target: path and query starting with `/` when resolved from the target, as
    /// written when a script wrote it.
    pub path: String,
    /// Header fields in order, names as written (wrk.format writes them in lower case).
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// The run, as every protocol's setup reads it.
#[derive(Debug, Clone, Copy)]
pub struct Run<'a> {
    /// The load as asked: its protocol with its options, timeout, expected status and body,
    /// headers.
    pub load: &'a Config,
    /// The distinct requests, in their file's order ([`Order`] says which goes when).
    pub requests: &'a [Request],
    /// `https://` or `wss://`.
    pub tls: bool,
    /// The URL's host (TLS's server name) and the `Host`/`:authority` sent.
    pub host: &'a str,
    pub authority: &'a str,
    /// The URL's path and query (a WebSocket upgrade's target).
    pub path: &'a str,
    /// Where the connections go.
    pub addr: SocketAddr,
    /// HTTP/2 is spoken: h2c, or h2 chosen by ALPN (an HTTP/2 load that ALPN turned into
    /// HTTP/1.1 speaks HTTP/1.1).
    pub h2: bool,
    pub order: &'a Order,
    /// Requests in flight per connection (the protocol's depth, or a script's batch).
    pub depth: usize,
    /// The client's TLS configuration (certificates verified unless `--insecure`), for a
    /// protocol whose session does its own handshake (QUIC's); None in cleartext.
    pub tls_config: Option<&'a Arc<rustls::ClientConfig>>,
    /// Datagrams one send may carry (the kernel's segmentation offload; 1 without it).
    pub segments: usize,
    /// Keep whole responses for a script's `response()` hook.
    pub keep_responses: bool,
    /// A gRPC load whose method answers with exactly one message (unary, client-streaming):
    /// a call answered with another number of them is an error (`grpc_cardinality`).
    pub grpc_one_reply: bool,
    /// A value that differs from run to run (the caller's clock), for what the system's random
    /// source cannot give.
    pub seed: u64,
}

/// Why a protocol's setup could not be made.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SetupError {
    /// The TLS configuration or the server name will not do (the cause in words).
    #[error("{0}")]
    Tls(String),
}

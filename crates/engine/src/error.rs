//! The errors that stop a run before it starts. (What the engine counts of a run's failures is
//! by the model's `ErrorClass`.)

use thiserror::Error;

/// Why a run could not be carried out at all.
#[derive(Debug, Error)]
pub enum EngineError {
    #[error("cannot resolve {host}")]
    Resolve {
        host: String,
        source: std::io::Error,
    },
    #[error("cannot connect to {addr}")]
    Connect {
        addr: std::net::SocketAddr,
        source: std::io::Error,
    },
    #[error("TLS handshake with {host} failed: {cause}")]
    Tls { host: String, cause: String },
    #[error("invalid TLS server name {0:?}")]
    ServerName(String),
    #[error("cannot start a worker: {0}")]
    Io(#[from] std::io::Error),
    #[error("a worker thread panicked")]
    WorkerPanic,
    /// gRPC over TLS to a server that did not choose h2 by ALPN.
    #[error("{host} chose {alpn} by ALPN: gRPC needs HTTP/2 (h2)")]
    GrpcWithoutH2 { host: String, alpn: String },
    /// The script's setup phase failed, was stopped or called `os.exit` (with what it printed
    /// before).
    #[error("{0}")]
    Script(#[from] barrage_script::Failed),
}

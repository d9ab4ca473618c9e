//! Error kinds the engine counts, and the errors that stop a run before it starts.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The class of a failed request or connection attempt. Counted by kind, never by message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// A connection (or TLS handshake) could not be established.
    Connect,
    /// No complete response within the timeout.
    Timeout,
    /// The peer reset or closed the connection with requests outstanding.
    Reset,
    /// The response was malformed.
    Parse,
    /// The status differed from `expect_status`.
    Status,
    /// The body differed from `expect_body`.
    Body,
    /// HTTP/2: the server reset the stream (RST_STREAM; counted by code in the run's `http2`).
    StreamReset,
    /// HTTP/2: the server broke the protocol, on a stream or the whole connection.
    Protocol,
    /// HTTP/2: a response header list larger than the SETTINGS_MAX_HEADER_LIST_SIZE the client
    /// announced (the stream), or a header block far larger (the connection's streams).
    HeaderTooLarge,
    /// WebSocket: a reply longer than the load's limit (the connection is closed with 1009).
    MessageTooLarge,
    /// A message (WebSocket) or response (HTTP/1.1) the server sent with nothing in flight: it
    /// answers no request, and is counted once, by itself.
    Unasked,
}

impl ErrorKind {
    pub const COUNT: usize = 11;
    pub const ALL: [ErrorKind; Self::COUNT] = [
        ErrorKind::Connect,
        ErrorKind::Timeout,
        ErrorKind::Reset,
        ErrorKind::Parse,
        ErrorKind::Status,
        ErrorKind::Body,
        ErrorKind::StreamReset,
        ErrorKind::Protocol,
        ErrorKind::HeaderTooLarge,
        ErrorKind::MessageTooLarge,
        ErrorKind::Unasked,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Connect => "connect",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Reset => "reset",
            ErrorKind::Parse => "parse",
            ErrorKind::Status => "status",
            ErrorKind::Body => "body",
            ErrorKind::StreamReset => "rst_stream",
            ErrorKind::Protocol => "protocol",
            ErrorKind::HeaderTooLarge => "header_too_large",
            ErrorKind::MessageTooLarge => "message_too_large",
            ErrorKind::Unasked => "unasked",
        }
    }

    /// Whether an error of this kind ends a request: all but a failed connect and an unasked
    /// message, which are counted once each, by themselves (no request was in flight).
    pub fn of_request(self) -> bool {
        !matches!(self, ErrorKind::Connect | ErrorKind::Unasked)
    }
}

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
}

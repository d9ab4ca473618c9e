//! The client half of an HTTP/3 connection, sans I/O, as the load engine drives it: QUIC is
//! quinn-proto's state machine (no runtime: the caller owns the UDP socket), HTTP/3 framing and
//! QPACK are this crate's ([`super::frame`], [`super::qpack`]).
//!
//! One request is encoded once ([`Request`]: its HEADERS frame, with the static-only QPACK
//! encoder, and its body's DATA frame) and sent on many bidirectional QUIC streams, at most
//! `max_streams` at a time and never more than the server's stream limit allows. Each stream's
//! response is decoded as it arrives ([`response`]): status, `content-length` and the body
//! compared with the expected one chunk by chunk, never buffered. The server's control and QPACK
//! streams are read by [`uni`]; QPACK's dynamic table is used when the server's encoder uses it
//! (this side announces a table), and its section acknowledgments go back on the decoder stream.
//!
//! [`Conn`] puts it behind the client-session interface the engine's worker loop talks to, with
//! datagrams as the unit of I/O: [`crate::client::ClientSession::feed`] takes one received
//! datagram and [`crate::client::ClientSession::out`] is the next datagram to send.

use super::frame;
use super::qpack::Encoder;
use quinn_proto::crypto::rustls::QuicClientConfig;
use quinn_proto::{ClientConfig, EndpointConfig, IdleTimeout, TransportConfig, VarInt};
use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;

mod conn;
pub mod response;
pub(crate) mod uni;
pub use conn::{Conn, Counts};

/// The ALPN protocol id of HTTP/3 (RFC 9114 §3.1).
pub const ALPN: &[u8] = b"h3";

/// SETTINGS_QPACK_MAX_TABLE_CAPACITY announced: the dynamic table the server's encoder may
/// use (4 KiB, as HTTP/2's default table; aioquic and ls-qpack use what they are given).
pub const TABLE_CAPACITY: u64 = 4096;
/// SETTINGS_QPACK_BLOCKED_STREAMS announced: streams whose headers may wait for inserts.
pub const BLOCKED_STREAMS: u64 = 16;
/// SETTINGS_MAX_FIELD_SECTION_SIZE announced and enforced by default (as HTTP/2's
/// `MAX_HEADER_LIST`): a larger response header section fails its request, not the connection.
pub const MAX_FIELD_SECTION: u64 = 64 * 1024;

/// One request, encoded once for every stream of every connection: its HEADERS frame (with a
/// static-only QPACK encoding, which never depends on a connection's state) and, for a body,
/// one DATA frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    bytes: Vec<u8>,
    /// A HEAD request: its response has no content whatever its `content-length` says.
    head: bool,
}

impl Request {
    /// Encodes `method scheme://authority path` with `headers` (names are lower-cased; the
    /// connection-specific ones HTTP/1.1 uses are left out) and `body` (a `content-length` is
    /// added for a non-empty body unless given).
    pub fn new(
        method: &str,
        scheme: &str,
        authority: &str,
        path: &str,
        headers: &[(String, String)],
        body: &[u8],
    ) -> Request {
        let fields = crate::fields::request_fields(method, scheme, authority, path, headers, body);
        let mut block = Vec::new();
        Encoder::new().encode(
            fields.iter().map(|(n, v)| (n.as_slice(), v.as_slice())),
            &mut block,
        );
        let mut bytes = Vec::with_capacity(block.len() + body.len() + 16);
        frame::write_headers(&block, &mut bytes);
        if !body.is_empty() {
            frame::write_data(body, &mut bytes);
        }
        Request {
            bytes,
            head: method.eq_ignore_ascii_case("HEAD"),
        }
    }

    /// The request stream's bytes: HEADERS, then DATA for a body (the stream's FIN follows).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// Why a [`Setup`] could not be made.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SetupError {
    #[error("the TLS configuration offers no TLS 1.3 cipher suite QUIC can start with")]
    NoTls13,
    #[error("{0:?} is not a server name TLS can verify")]
    ServerName(String),
}

/// What every HTTP/3 connection of a run shares.
pub struct Setup {
    /// Request i encoded for a stream.
    pub requests: Vec<Request>,
    /// Where the connections go (the caller's UDP socket is connected to it).
    pub remote: SocketAddr,
    /// The name TLS presents (SNI) and verifies the certificate against.
    pub server_name: String,
    /// The requests' authority: a request given as text
    /// ([`crate::client::ClientSession::open_text`]) is sent to it (its Host header, if any,
    /// names the authority instead). The server name unless set (the engine sets the URL's
    /// host and port).
    pub authority: String,
    /// Keep every whole response for a script's `response()` hook
    /// ([`crate::client::ClientSession::take_response`]).
    pub keep_responses: bool,
    /// Concurrent streams wanted (`-m`), capped by the server's limit.
    pub max_streams: u32,
    /// A request older than this is cancelled; QUIC's idle timeout is the same.
    pub timeout: Duration,
    pub expect_body: Option<Vec<u8>>,
    /// SETTINGS_MAX_FIELD_SECTION_SIZE announced and enforced.
    pub max_field_section: u64,
    /// The most datagrams [`ClientSession::out`](crate::client::ClientSession::out) holds at
    /// once, for a GSO send (1, the default from [`Setup::new`], without).
    pub segments: usize,
    quic: ClientConfig,
    endpoint: Arc<EndpointConfig>,
}

impl fmt::Debug for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Setup")
            .field("requests", &self.requests.len())
            .field("remote", &self.remote)
            .field("server_name", &self.server_name)
            .field("max_streams", &self.max_streams)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Setup {
    /// HTTP/3: every request encoded once for a request stream, and QUIC's configuration from
    /// the run's TLS (certificates verified as over TCP, or any accepted with `-k`).
    pub fn for_run(run: &crate::client::Run<'_>) -> Result<Setup, crate::client::SetupError> {
        let c = run.load;
        let tls = run.tls_config.ok_or_else(|| {
            crate::client::SetupError::Tls("HTTP/3 needs a TLS configuration".to_string())
        })?;
        let requests = run.requests.iter().map(|r| {
            Request::new(
                &r.method,
                "https",
                run.authority,
                &r.path,
                &r.headers,
                &r.body,
            )
        });
        let mut setup = Setup::new(
            tls,
            run.addr,
            run.host,
            requests.collect(),
            c.protocol.streams() as u32,
            c.timeout,
            c.expect_body.clone(),
        )
        .map_err(|e| crate::client::SetupError::Tls(e.to_string()))?;
        // Several datagrams a send where the kernel has GSO (the transport sends them one by
        // one on a socket that turns out not to).
        setup.segments = run.segments;
        setup.authority = run.authority.to_string();
        setup.keep_responses = run.keep_responses;
        Ok(setup)
    }

    /// `tls` verifies the server as the caller wants (its roots, or any certificate for `-k`);
    /// its ALPN is replaced with `h3` and its early data turned off: 0-RTT is never used, so a
    /// request is never replayable by the network.
    pub fn new(
        tls: &rustls::ClientConfig,
        remote: SocketAddr,
        server_name: &str,
        requests: Vec<Request>,
        max_streams: u32,
        timeout: Duration,
        expect_body: Option<Vec<u8>>,
    ) -> Result<Setup, SetupError> {
        rustls::pki_types::ServerName::try_from(server_name)
            .map_err(|_| SetupError::ServerName(server_name.to_string()))?;
        let mut tls = tls.clone();
        tls.alpn_protocols = vec![ALPN.to_vec()];
        tls.enable_early_data = false;
        let crypto = QuicClientConfig::try_from(Arc::new(tls)).map_err(|_| SetupError::NoTls13)?;
        let mut quic = ClientConfig::new(Arc::new(crypto));
        quic.transport_config(Arc::new(transport(timeout)));
        Ok(Setup {
            requests,
            remote,
            server_name: server_name.to_string(),
            authority: server_name.to_string(),
            keep_responses: false,
            max_streams: max_streams.max(1),
            timeout,
            expect_body,
            max_field_section: MAX_FIELD_SECTION,
            segments: 1,
            quic,
            endpoint: Arc::new(EndpointConfig::default()),
        })
    }
}

/// QUIC's transport parameters for a client connection: the server opens no bidirectional
/// stream (HTTP/3 forbids it without an extension) and a few unidirectional ones (control,
/// QPACK encoder and decoder, and room for the reserved types a server may grease with); the
/// idle timeout is the request timeout, kept from firing between requests by keep-alives.
fn transport(timeout: Duration) -> TransportConfig {
    let idle = timeout.clamp(Duration::from_millis(100), Duration::from_secs(600));
    let mut t = TransportConfig::default();
    t.max_concurrent_bidi_streams(VarInt::from_u32(0))
        .max_concurrent_uni_streams(VarInt::from_u32(16))
        .max_idle_timeout(IdleTimeout::try_from(idle).ok())
        .keep_alive_interval(Some(idle / 2));
    t
}

//! barrage's target server: a fast HTTP/1.1 and HTTP/2 (h2c) server with test endpoints and
//! fault injection. A connection that opens with HTTP/2's preface is served as HTTP/2
//! (`conn::session`), any other as HTTP/1.1, on the same port; an HTTP/1.1 request to `/ws/echo`
//! upgrades its connection to WebSocket (`conn::ws`).
//!
//! [`start`] binds, spawns one worker per thread (each with its own `SO_REUSEPORT` listener and
//! mio event loop, see `worker`), and returns once the server is listening; the returned
//! [`ServerHandle`] gives the bound address and shuts the server down (also on drop). The
//! endpoints are listed in `docs/serve.md`; the `/bytes` body pattern is in [`pattern`]. Request
//! heads are read by the [`Parser`] the config names (httparse by default). With
//! [`ServerConfig::tls`] every connection is HTTPS (rustls; ALPN offers h2 and http/1.1), see
//! `transport` for how TLS meets the edge-triggered loop. With [`ServerConfig::http3`] (TLS
//! required) HTTP/3 is served on UDP at the same port number by one more thread (`h3`), and
//! every HTTP/1.1 and HTTP/2 response advertises it with `Alt-Svc`.

mod answer;
mod conn;
mod date;
mod grpc;
mod h3;
/// The `/bytes/{n}` body pattern and its checksum (in the wire crate, so the lab reaches it
/// without depending on the server).
pub use barrage_wire::pattern;
mod respond;
mod route;
mod slots;
mod stats;
mod stream;
mod tls;
mod transport;
mod worker;

pub use barrage_wire::{Parser, ParserUnavailable};
pub use route::parse_size;
pub use stats::{H3Stats, ServerStats};
pub use tls::Tls;

use socket2::{Domain, Protocol, Socket, Type};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use thiserror::Error;

/// How to run the server. Plain data; [`start`] validates it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    /// Address to bind; port 0 picks a free port ([`ServerHandle::local_addr`] tells which).
    pub addr: SocketAddr,
    /// Worker threads; 0 means one per CPU core.
    pub threads: usize,
    /// Connections beyond this many are accepted and closed at once.
    pub max_connections: usize,
    /// A connection on which no byte moves for this long is closed (not while a `/sleep` or a
    /// drip is pending).
    pub idle_timeout: Duration,
    /// Access log (one line per response) on stderr.
    pub log: bool,
    /// Fraction of requests (0 to 1) answered with a random fault instead.
    pub fault_rate: f64,
    /// Seed of the fault decisions.
    pub fault_seed: u64,
    /// Largest request body accepted (413 beyond it); `/echo` echoes up to this much.
    pub echo_limit: u64,
    /// Largest request head in bytes (431 beyond it).
    pub header_limit: usize,
    /// On shutdown, how long in-flight responses may take to finish.
    pub grace: Duration,
    /// Which parser reads request heads (httparse, or a C parser compiled in by a cargo
    /// feature); every parser gives the same requests and the same errors.
    pub parser: Parser,
    /// HTTP/2: SETTINGS_MAX_CONCURRENT_STREAMS announced on each connection (streams beyond it
    /// are refused with REFUSED_STREAM).
    pub h2_max_streams: u32,
    /// Serve HTTPS with this certificate (None: plain HTTP).
    pub tls: Option<Tls>,
    /// Most `/sleep` requests in service at once, server-wide, like an application server with
    /// this many request threads; later ones wait their turn (`slots`). None: no limit.
    pub concurrency: Option<usize>,
    /// WebSocket (`/ws/echo`): the largest message, all its fragments together, and the largest
    /// frame; past it the connection is closed with 1009.
    pub ws_max_message: u64,
    /// HTTP/3 on UDP at the same port number as TCP (needs `tls`), advertised with `Alt-Svc`
    /// on HTTP/1.1 and HTTP/2 responses.
    pub http3: bool,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            threads: 0,
            max_connections: 100_000,
            idle_timeout: Duration::from_secs(60),
            log: false,
            fault_rate: 0.0,
            fault_seed: 0,
            echo_limit: 64 << 20,
            header_limit: 16 * 1024,
            grace: Duration::from_secs(5),
            parser: Parser::Httparse,
            h2_max_streams: 256,
            tls: None,
            concurrency: None,
            ws_max_message: 16 << 20,
            http3: false,
        }
    }
}

/// Why the server could not start.
#[derive(Debug, Error)]
pub enum ServerError {
    #[error("invalid server config: {0}")]
    Config(&'static str),
    #[error(transparent)]
    Parser(#[from] ParserUnavailable),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot start a worker: {0}")]
    Worker(std::io::Error),
    /// A certificate or key file that cannot be read or used; the message names the file.
    #[error("TLS: {}: {reason}", path.display())]
    TlsFile { path: PathBuf, reason: String },
    #[error("TLS: cannot make a self-signed certificate: {0}")]
    SelfSigned(String),
}

/// State shared by all workers.
pub(crate) struct Shared {
    pub cfg: ServerConfig,
    pub stop: AtomicBool,
    pub active: AtomicUsize,
    pub fault_seq: AtomicU64,
    /// Each worker's counters (indexed as the workers).
    pub counters: Vec<stats::Counters>,
    /// The HTTP/3 thread's bookkeeping ([`stats::H3Stats`]).
    pub h3: stats::H3Counters,
    /// The TLS configuration every connection shares, when serving HTTPS.
    pub tls: Option<Arc<rustls::ServerConfig>>,
    /// With `concurrency`, the service slots every worker's sleeps share (a lock taken once per
    /// `/sleep`, never on other answers).
    pub slots: Option<std::sync::Mutex<slots::Slots>>,
    /// With HTTP/3, the `Alt-Svc` value (`h3=":PORT"`) every TCP response carries.
    pub alt_svc: Option<String>,
    /// Where the access log goes (with `log`): stderr, or the writer [`start_with_log`] took.
    pub log_to: Option<std::sync::Mutex<Box<dyn std::io::Write + Send>>>,
}

impl Shared {
    /// The access log line of a finished response: `METHOD TARGET STATUS`, whatever the
    /// protocol.
    pub(crate) fn log(&self, line: &str, status: u16) {
        use std::io::Write;
        // The access log is the one thing this library prints, and only when asked to.
        match &self.log_to {
            None => {
                let _ = writeln!(std::io::stderr().lock(), "{line} {status}");
            }
            Some(w) => {
                let mut w = w.lock().unwrap_or_else(|e| e.into_inner());
                let _ = writeln!(w, "{line} {status}");
            }
        }
    }

    /// When a sleep of `hold` arriving at `now` is due: `now + hold`, or later when every
    /// service slot is held.
    pub(crate) fn sleep_until(
        &self,
        now: std::time::Instant,
        hold: Duration,
    ) -> std::time::Instant {
        match &self.slots {
            None => now + hold,
            Some(s) => s.lock().unwrap_or_else(|e| e.into_inner()).admit(now, hold),
        }
    }
}

/// Reads a server's figures from any thread, for as long as it is kept (after the server's
/// shutdown it reads the final ones).
#[derive(Clone)]
pub struct StatsReader(Arc<Shared>);

impl StatsReader {
    pub fn read(&self) -> ServerStats {
        let active = self.0.active.load(Ordering::Relaxed) as u64;
        ServerStats::of(&self.0.counters, active, &self.0.h3)
    }
}

/// A running server. Dropping it shuts the server down like [`ServerHandle::shutdown`].
pub struct ServerHandle {
    addr: SocketAddr,
    tls_fingerprint: Option<String>,
    shared: Arc<Shared>,
    wakers: Vec<Arc<mio::Waker>>,
    threads: Vec<JoinHandle<()>>,
}

impl ServerHandle {
    /// The address the server listens on (with the chosen port when port 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// With TLS, the SHA-256 fingerprint of the certificate served (the leaf's DER), as
    /// uppercase hex pairs joined by ':'; a client of a self-signed server can pin it.
    pub fn tls_fingerprint(&self) -> Option<String> {
        self.tls_fingerprint.clone()
    }

    /// What the server did so far (connections, responses by status), added up over its
    /// workers: for `barrage serve --metrics`.
    pub fn stats(&self) -> ServerStats {
        self.stats_reader().read()
    }

    /// A reader of [`ServerHandle::stats`] that another thread may keep (a metrics endpoint).
    pub fn stats_reader(&self) -> StatsReader {
        StatsReader(self.shared.clone())
    }

    /// Stops accepting, lets in-flight responses finish (up to the grace period), and returns
    /// when every worker has ended.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        for w in &self.wakers {
            let _ = w.wake();
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Binds and starts the server; returns once it is listening. With `log`, the access log goes
/// to stderr.
pub fn start(cfg: ServerConfig) -> Result<ServerHandle, ServerError> {
    start_logging(cfg, None)
}

/// [`start`], with the access log (when `cfg.log`) written to `log` instead of stderr, one line
/// per response (a test reads it back).
pub fn start_with_log(
    cfg: ServerConfig,
    log: Box<dyn std::io::Write + Send>,
) -> Result<ServerHandle, ServerError> {
    start_logging(cfg, Some(log))
}

fn start_logging(
    cfg: ServerConfig,
    log: Option<Box<dyn std::io::Write + Send>>,
) -> Result<ServerHandle, ServerError> {
    if !(0.0..=1.0).contains(&cfg.fault_rate) {
        return Err(ServerError::Config("fault rate must be between 0 and 1"));
    }
    if cfg.h2_max_streams == 0 {
        return Err(ServerError::Config("HTTP/2 max streams must be at least 1"));
    }
    if cfg.max_connections == 0 {
        return Err(ServerError::Config("max connections must be at least 1"));
    }
    if cfg.header_limit < 64 || cfg.header_limit > 1 << 20 {
        return Err(ServerError::Config(
            "header limit must be between 64 B and 1 MiB",
        ));
    }
    if cfg.ws_max_message == 0 || cfg.ws_max_message > 1 << 30 {
        return Err(ServerError::Config(
            "WebSocket max message must be between 1 B and 1 GiB",
        ));
    }
    if cfg.concurrency == Some(0) {
        return Err(ServerError::Config("concurrency must be at least 1"));
    }
    if cfg.http3 && cfg.tls.is_none() {
        return Err(ServerError::Config(
            "HTTP/3 needs TLS (QUIC is always encrypted)",
        ));
    }
    cfg.parser.ensure_compiled()?;
    let tls = cfg.tls.as_ref().map(tls::setup).transpose()?;
    let threads = if cfg.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        cfg.threads
    };
    // The first listener picks the port; the others join it with SO_REUSEPORT, so the kernel
    // spreads connections over the workers without a shared accept lock. They listen only once
    // everything else is bound (HTTP/3's UDP socket included): a client that can connect over
    // TCP, a readiness probe among them, then finds every protocol there.
    // With HTTP/3 the UDP socket takes the same port number: when the port was left to the
    // kernel (0) and that number is taken over UDP (by any client socket of the machine), another
    // one is picked rather than failing to start.
    let mut tries = 0;
    let (first, addr, udp) = loop {
        tries += 1;
        let first = bind_tcp(cfg.addr)?;
        let addr = first
            .local_addr()
            .ok()
            .and_then(|a| a.as_socket())
            .ok_or_else(|| ServerError::Bind {
                addr: cfg.addr,
                source: std::io::Error::other("no local address"),
            })?;
        if !cfg.http3 {
            break (first, addr, None);
        }
        match std::net::UdpSocket::bind(addr) {
            Ok(u) => break (first, addr, Some(u)),
            Err(e)
                if e.kind() == std::io::ErrorKind::AddrInUse
                    && cfg.addr.port() == 0
                    && tries < 16 => {}
            Err(source) => return Err(ServerError::Bind { addr, source }),
        }
    };
    let mut sockets = vec![first];
    for _ in 1..threads {
        sockets.push(bind_tcp(addr)?);
    }
    let slots = cfg
        .concurrency
        .map(|n| std::sync::Mutex::new(slots::Slots::new(n, std::time::Instant::now())));
    // One more counters slot for the HTTP/3 thread (each slot has a single writer).
    let h3 = cfg.http3;
    let counter_slots = threads + usize::from(h3);
    let shared = Arc::new(Shared {
        alt_svc: h3.then(|| format!("h3=\":{}\"; ma=86400", addr.port())),
        log_to: log.map(std::sync::Mutex::new),
        slots,
        cfg,
        stop: AtomicBool::new(false),
        active: AtomicUsize::new(0),
        fault_seq: AtomicU64::new(0),
        h3: Default::default(),
        counters: (0..counter_slots)
            .map(|_| stats::Counters::default())
            .collect(),
        tls: tls.as_ref().map(|t| t.config.clone()),
    });
    let mut handle = ServerHandle {
        addr,
        tls_fingerprint: tls.map(|t| tls::fingerprint(&t.leaf)),
        shared: shared.clone(),
        wakers: Vec::new(),
        threads: Vec::new(),
    };
    let h3_worker = match udp {
        Some(udp) => {
            let config = shared.tls.clone().expect("HTTP/3 is checked to have TLS");
            Some(h3::H3Worker::new(
                udp,
                addr,
                shared.clone(),
                &config,
                threads,
            )?)
        }
        None => None,
    };
    for (i, socket) in sockets.into_iter().enumerate() {
        socket
            .listen(4096)
            .map_err(|source| ServerError::Bind { addr, source })?;
        let (worker, waker) =
            worker::Worker::new(socket.into(), shared.clone(), i).map_err(ServerError::Worker)?;
        handle.wakers.push(waker);
        let t = std::thread::Builder::new()
            .name(format!("barrage-serve-{i}"))
            .spawn(move || worker.run())
            .map_err(ServerError::Worker)?;
        handle.threads.push(t);
    }
    if let Some((worker, waker)) = h3_worker {
        handle.wakers.push(waker);
        let t = std::thread::Builder::new()
            .name("barrage-serve-h3".to_string())
            .spawn(move || worker.run())
            .map_err(ServerError::Worker)?;
        handle.threads.push(t);
    }
    Ok(handle)
}

/// A TCP socket bound to `addr` (SO_REUSEPORT), not listening yet.
fn bind_tcp(addr: SocketAddr) -> Result<Socket, ServerError> {
    let bind = |source| ServerError::Bind { addr, source };
    let socket =
        Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP)).map_err(bind)?;
    socket.set_reuse_address(true).map_err(bind)?;
    socket.set_reuse_port(true).map_err(bind)?;
    socket.set_nonblocking(true).map_err(bind)?;
    socket.bind(&addr.into()).map_err(bind)?;
    Ok(socket)
}

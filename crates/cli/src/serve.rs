//! `barrage serve`: runs the target server until SIGINT or SIGTERM. HTTP/1.1 and HTTP/2 (h2c with
//! prior knowledge) on the same port.
//!
//! Prints `listening on ADDR` as the first line of stdout (flushed at once) so scripts and the lab
//! can read the port when `--addr` asks for port 0. On SIGINT/SIGTERM it stops accepting and
//! lets in-flight responses finish for up to `--grace`. `--parser` picks the request parser; one
//! that this build lacks is refused in one line naming the cargo feature to build with.
//! `--tls` serves HTTPS; the second line then gives the certificate's SHA-256 fingerprint, so a
//! client of the self-signed certificate can pin it. `--http3` (with `--tls`) also serves HTTP/3
//! on UDP at the same port number, advertised by `Alt-Svc` on the TCP responses.

use anyhow::Context;
use barrage_model::units::{parse_duration, parse_size};
use barrage_server::{Parser, ServerConfig, Tls};
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Run the target server (HTTP/1.1, and HTTP/2 with prior knowledge on the same port): test endpoints (/, /ping, /echo, /sleep/MS, /bytes/N, /status/CODE,
/// /json, /headers, WebSocket /ws/echo) and faults (/fault/reset, close, stall, drip, garbage; --fault-rate).
#[derive(clap::Args, Default, Debug)]
pub struct Args {
    /// Address to listen on (port 0 picks a free port, printed on the first line).
    #[arg(long, value_name = "ADDR")]
    pub addr: Option<SocketAddr>,
    /// Worker threads, each with its own listener and event loop [default: one per core].
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Most simultaneous connections; further ones are closed at once [default: 100000].
    #[arg(long, value_name = "N")]
    pub max_connections: Option<usize>,
    /// Close connections on which no byte moved for this long (e.g. 60s, 500ms) [default: 60s].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub idle_timeout: Option<Duration>,
    /// Access log: one line per response on stderr.
    #[arg(long)]
    pub log: bool,
    /// Fraction of requests (0 to 1) answered with a random fault (reset, close, stall, garbage).
    #[arg(long, value_name = "P")]
    pub fault_rate: Option<f64>,
    /// Seed of the fault decisions (the same seed gives the same sequence of decisions).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Largest request body (413 beyond it), also the /echo cap (e.g. 64MiB) [default: 64MiB].
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub body_limit: Option<u64>,
    /// Largest request head (431 beyond it) [default: 16KiB].
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub header_limit: Option<u64>,
    /// On SIGINT/SIGTERM, how long in-flight responses may take to finish [default: 5s].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub grace: Option<Duration>,
    /// Request parser: httparse, picohttpparser, http-parser (one-shot over each read's head)
    /// or http-parser-stream (one http-parser per connection fed each read's new bytes, as
    /// servers built on it do); the C ones need the cargo features parser-pico and
    /// parser-http-parser, on by default [default: httparse].
    #[arg(long, value_name = "PARSER")]
    pub parser: Option<Parser>,
    /// HTTP/2 (a connection opening with the h2 preface, h2c with prior knowledge): concurrent
    /// streams allowed per connection (SETTINGS_MAX_CONCURRENT_STREAMS) [default: 256].
    #[arg(long, value_name = "N")]
    pub h2_max_streams: Option<u32>,
    /// Most /sleep requests in service at once, server-wide, like an application server with
    /// N request threads: later ones wait their turn, first come first served, and are answered
    /// their sleep after a slot frees (other answers take no time and never wait) [default: no
    /// limit].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub concurrency: Option<u32>,
    /// Serve HTTPS (TLS 1.2 and 1.3; HTTP/2 or HTTP/1.1 as ALPN chooses) with a self-signed certificate for localhost, 127.0.0.1 and ::1 made at start,
    /// or with --cert and --key. The second line of stdout is then `tls: ..., sha256
    /// fingerprint XX:XX:...`, the certificate's fingerprint (clients of the self-signed one
    /// pin it, or skip verification: `barrage load -k`, `curl -k`).
    #[arg(long)]
    pub tls: bool,
    /// With --tls: the certificate chain to serve, PEM, the server's own certificate first.
    #[arg(long, value_name = "FILE", requires_all = ["tls", "key"])]
    pub cert: Option<PathBuf>,
    /// With --tls: the private key of --cert, PEM (PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "FILE", requires_all = ["tls", "cert"])]
    pub key: Option<PathBuf>,
    /// With --tls: also serve HTTP/3 (QUIC) on UDP at the same port number, every endpoint and
    /// fault (a reset is a stream reset, close closes the QUIC connection), and advertise it on
    /// HTTP/1.1 and HTTP/2 responses with `Alt-Svc: h3=":PORT"`. One thread serves all HTTP/3
    /// connections.
    #[arg(long, requires = "tls")]
    pub http3: bool,
    /// Serve the server's figures for Prometheus at http://ADDR/metrics (connections accepted
    /// and open, responses by protocol and status code). Port 0 picks one; the address is
    /// printed on stderr.
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<SocketAddr>,
    /// WebSocket (/ws/echo): the largest message, its fragments together, and the largest
    /// frame; a peer that sends more is closed with 1009 (e.g. 1MiB) [default: 16MiB].
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub ws_max_message: Option<u64>,
}

impl Args {
    /// The server config these arguments ask for.
    pub fn config(&self) -> anyhow::Result<ServerConfig> {
        let d = ServerConfig::default();
        let header_limit = self
            .header_limit
            .map_or(Ok(d.header_limit), usize::try_from)?;
        let parser = self.parser.unwrap_or(d.parser);
        // Said here, in one line, rather than when the server starts.
        parser.ensure_compiled()?;
        Ok(ServerConfig {
            addr: self
                .addr
                .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 8080))),
            threads: self.threads.unwrap_or(d.threads),
            max_connections: self.max_connections.unwrap_or(d.max_connections),
            idle_timeout: self.idle_timeout.unwrap_or(d.idle_timeout),
            log: self.log,
            fault_rate: self.fault_rate.unwrap_or(d.fault_rate),
            fault_seed: self.seed.unwrap_or(d.fault_seed),
            echo_limit: self.body_limit.unwrap_or(d.echo_limit),
            header_limit,
            grace: self.grace.unwrap_or(d.grace),
            parser,
            h2_max_streams: self.h2_max_streams.unwrap_or(d.h2_max_streams),
            concurrency: self.concurrency.map(|n| n as usize),
            ws_max_message: self.ws_max_message.unwrap_or(d.ws_max_message),
            http3: self.http3,
            tls: match (self.tls, &self.cert, &self.key) {
                (false, ..) => None,
                (true, Some(cert), Some(key)) => Some(Tls::Files {
                    cert: cert.clone(),
                    key: key.clone(),
                }),
                // clap requires --cert and --key together.
                (true, ..) => Some(Tls::SelfSigned),
            },
        })
    }
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    let cfg = args.config()?;
    raise_fd_limit();
    // Block the signals before the workers start so they inherit the mask and only this thread
    // receives them, through sigwait.
    let signals = crate::signals::CtrlC::install()?;
    let cfg_tls = cfg.tls.clone();
    let server = barrage_server::start(cfg).context("starting the server")?;
    let mut stdout = std::io::stdout().lock();
    // Scripts read the first line for the address: it stays exactly this.
    writeln!(stdout, "listening on {}", server.local_addr())?;
    let http3 = args.http3;
    if let (Some(tls), Some(fp)) = (&cfg_tls, server.tls_fingerprint()) {
        match tls {
            Tls::SelfSigned => writeln!(
                stdout,
                "tls: self-signed certificate, sha256 fingerprint {fp}"
            )?,
            Tls::Files { cert, .. } => writeln!(
                stdout,
                "tls: certificate {}, sha256 fingerprint {fp}",
                cert.display()
            )?,
        }
    }
    if http3 {
        writeln!(stdout, "http3: udp {}", server.local_addr())?;
    }
    stdout.flush()?;
    drop(stdout);
    let endpoint = match args.metrics {
        Some(addr) => {
            let stats = server.stats_reader();
            let e = crate::metrics::Endpoint::start(
                addr,
                Box::new(move |om| {
                    let mut e = crate::metrics::expo::Expo::new(om);
                    crate::metrics::serve::write(&mut e, &stats.read());
                    e.finish()
                }),
            )?;
            eprintln!("{}", e.announce());
            Some(e)
        }
        None => None,
    };
    let sig = signals.wait()?;
    drop(endpoint);
    eprintln!("barrage serve: signal {sig}, finishing in-flight responses");
    server.shutdown();
    Ok(ExitCode::SUCCESS)
}

/// Many idle connections need many descriptors: raise the soft limit to the hard one.
fn raise_fd_limit() {
    // SAFETY: getrlimit/setrlimit with a valid rlimit struct.
    unsafe {
        let mut lim: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && lim.rlim_cur < lim.rlim_max {
            lim.rlim_cur = lim.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults() {
        let cfg = Args::default().config().unwrap();
        assert_eq!(cfg.addr.port(), 8080);
        assert_eq!(cfg.header_limit, ServerConfig::default().header_limit);
        assert_eq!(cfg.parser, Parser::Httparse);
        assert_eq!(cfg.tls, None);
    }

    #[test]
    fn http3_is_passed_on_and_needs_tls() {
        let args = Args {
            tls: true,
            http3: true,
            ..Args::default()
        };
        assert!(args.config().unwrap().http3);
        assert!(!Args::default().config().unwrap().http3);
        use clap::Parser as _;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            serve: Args,
        }
        assert!(Cli::try_parse_from(["serve", "--http3"]).is_err());
        let cli = Cli::try_parse_from(["serve", "--tls", "--http3"]).unwrap();
        assert!(cli.serve.http3 && cli.serve.tls);
    }

    #[test]
    fn tls_self_signed_or_files() {
        let args = Args {
            tls: true,
            ..Args::default()
        };
        assert_eq!(args.config().unwrap().tls, Some(Tls::SelfSigned));
        let args = Args {
            tls: true,
            cert: Some("c.pem".into()),
            key: Some("k.pem".into()),
            ..Args::default()
        };
        let want = Tls::Files {
            cert: "c.pem".into(),
            key: "k.pem".into(),
        };
        assert_eq!(args.config().unwrap().tls, Some(want));
    }

    #[test]
    fn parsers() {
        for (name, parser) in [
            ("httparse", Parser::Httparse),
            ("picohttpparser", Parser::Picohttpparser),
            ("http-parser", Parser::HttpParser),
            ("http-parser-stream", Parser::HttpParserStream),
        ] {
            let args = Args {
                parser: Some(name.parse().unwrap()),
                ..Args::default()
            };
            match args.config() {
                Ok(cfg) => assert_eq!(cfg.parser, parser),
                Err(e) => {
                    assert!(!parser.is_compiled());
                    let feature = parser.feature().unwrap();
                    assert!(e.to_string().contains(feature), "{e}");
                }
            }
        }
    }
}

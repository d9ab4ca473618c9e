//! A TLS test client: rustls over a non-blocking socket, full duplex, so that a test can write a
//! large request body while the server echoes it back (a blocking writer that never reads would
//! deadlock against the server's backpressure). Writes and reads block (up to a deadline) like a
//! plain `TcpStream`'s.

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    ClientConfig, ClientConnection, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long one read or write may wait.
const PATIENCE: Duration = Duration::from_secs(20);

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A client that accepts any certificate (handshake signatures are still checked), offering
/// `alpn`.
pub fn any_cert(alpn: &[&[u8]]) -> Arc<ClientConfig> {
    let mut cfg = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AcceptAny(provider())))
        .with_no_client_auth();
    cfg.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    Arc::new(cfg)
}

/// A client that trusts exactly `cert` (a self-signed certificate as its own root), offering
/// http/1.1: the certificate is verified for real, names and dates included.
pub fn trusting(cert: CertificateDer<'static>) -> Arc<ClientConfig> {
    let mut roots = RootCertStore::empty();
    roots.add(cert).expect("a usable root");
    let mut cfg = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    cfg.alpn_protocols = vec![b"http/1.1".to_vec()];
    Arc::new(cfg)
}

/// The fingerprint format of `ServerHandle::tls_fingerprint`, computed here independently.
pub fn sha256_fingerprint(der: &[u8]) -> String {
    let d = ring::digest::digest(&ring::digest::SHA256, der);
    let hex: Vec<String> = d.as_ref().iter().map(|b| format!("{b:02X}")).collect();
    hex.join(":")
}

pub struct TlsClient {
    sock: TcpStream,
    pub tls: ClientConnection,
    inbox: Vec<u8>,
    eof: bool,
    /// The server ended the stream with close_notify (rather than a bare TCP FIN).
    pub clean_close: bool,
    /// Read at most this much per millisecond (a slow reader), if set.
    slow: Option<u64>,
}

impl TlsClient {
    pub fn connect(addr: SocketAddr, cfg: Arc<ClientConfig>, name: &str) -> TlsClient {
        TlsClient::with(TcpStream::connect(addr).expect("connect"), cfg, name)
    }

    /// A client with a small receive buffer that reads `per_ms` bytes a millisecond, so that
    /// the server's socket stays full and its ciphertext waits in rustls.
    pub fn slow(addr: SocketAddr, cfg: Arc<ClientConfig>, name: &str, per_ms: u64) -> TlsClient {
        use socket2::{Domain, Socket, Type};
        let s = Socket::new(Domain::for_address(addr), Type::STREAM, None).unwrap();
        s.set_recv_buffer_size(32 * 1024).unwrap();
        s.connect(&addr.into()).expect("connect");
        let mut c = TlsClient::with(s.into(), cfg, name);
        c.slow = Some(per_ms);
        c
    }

    fn with(sock: TcpStream, cfg: Arc<ClientConfig>, name: &str) -> TlsClient {
        sock.set_nodelay(true).unwrap();
        sock.set_nonblocking(true).unwrap();
        let name = ServerName::try_from(name.to_string()).unwrap();
        TlsClient {
            sock,
            tls: ClientConnection::new(cfg, name).unwrap(),
            inbox: Vec::new(),
            eof: false,
            clean_close: false,
            slow: None,
        }
    }

    /// Completes the handshake.
    pub fn handshake(&mut self) -> io::Result<()> {
        let start = Instant::now();
        while self.tls.is_handshaking() {
            if !self.step()? {
                wait(start)?;
            }
        }
        Ok(())
    }

    /// The server's certificate as this client received it.
    pub fn peer_leaf(&self) -> CertificateDer<'static> {
        self.tls.peer_certificates().expect("handshake done")[0].clone()
    }

    /// Sends what the socket takes and reads what has arrived; true when anything moved.
    fn step(&mut self) -> io::Result<bool> {
        let mut moved = false;
        while self.tls.wants_write() {
            match self.tls.write_tls(&mut self.sock) {
                Ok(_) => moved = true,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(e),
            }
        }
        if self.eof {
            return Ok(moved);
        }
        let got = match self.slow {
            Some(n) => {
                std::thread::sleep(Duration::from_millis(1));
                self.tls.read_tls(&mut Read::by_ref(&mut self.sock).take(n))
            }
            None => self.tls.read_tls(&mut self.sock),
        };
        match got {
            Ok(0) => {
                self.eof = true;
                moved = true;
            }
            Ok(_) => moved = true,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
        self.tls
            .process_new_packets()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        let mut tmp = [0u8; 16 * 1024];
        loop {
            match self.tls.reader().read(&mut tmp) {
                Ok(0) => {
                    self.clean_close = true;
                    self.eof = true;
                    break;
                }
                Ok(n) => {
                    self.inbox.extend_from_slice(&tmp[..n]);
                    moved = true;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                    self.eof = true;
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(moved)
    }
}

fn wait(start: Instant) -> io::Result<()> {
    if start.elapsed() > PATIENCE {
        return Err(io::ErrorKind::TimedOut.into());
    }
    std::thread::sleep(Duration::from_millis(1));
    Ok(())
}

impl Read for TlsClient {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let start = Instant::now();
        loop {
            if !self.inbox.is_empty() {
                let n = buf.len().min(self.inbox.len());
                buf[..n].copy_from_slice(&self.inbox[..n]);
                self.inbox.drain(..n);
                return Ok(n);
            }
            if self.eof {
                return Ok(0);
            }
            if !self.step()? {
                wait(start)?;
            }
        }
    }
}

impl Write for TlsClient {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let start = Instant::now();
        loop {
            let n = self.tls.writer().write(buf)?;
            // Keep reading while writing: the server may be answering already.
            let moved = self.step()?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            if !moved {
                wait(start)?;
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        let start = Instant::now();
        while self.tls.wants_write() {
            if !self.step()? {
                wait(start)?;
            }
        }
        Ok(())
    }
}

/// Accepts every certificate, but still checks handshake signatures so the handshake is real.
#[derive(Debug)]
struct AcceptAny(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for AcceptAny {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        let algs = &self.0.signature_verification_algorithms;
        rustls::crypto::verify_tls12_signature(message, cert, dss, algs)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        let algs = &self.0.signature_verification_algorithms;
        rustls::crypto::verify_tls13_signature(message, cert, dss, algs)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

//! A connection's byte stream: plain TCP, or TLS through rustls' sans-IO server connection
//! driven by the same non-blocking socket and edge-triggered event loop.
//!
//! The connection code reads and writes plaintext through `Read` and `Write` with the socket's
//! own meanings, so it does not know which it has: `read` returns `Ok(0)` at end of stream and
//! `WouldBlock` when nothing is there; `write` takes what it can and returns `WouldBlock` only
//! when it can take nothing. The handshake happens inside them.
//!
//! Two things edge-triggered readiness demands of TLS, and plain TCP gets for free:
//! - A short `read` must mean the socket is drained (the connection then skips the read that
//!   would return `WouldBlock`, and a new edge only comes with new bytes). rustls reads 4 KiB
//!   from the socket at a time, so a TLS read keeps reading until the buffer is full or the
//!   socket says `WouldBlock`.
//! - Ciphertext the socket did not take (the tail of a response, a handshake flight written
//!   while reading) stays in rustls. [`Transport::has_pending`] tells the connection not to
//!   count itself finished, and [`Transport::send_pending`] (also `flush`) sends it on the next
//!   writable event.

use mio::net::TcpStream;
use rustls::ServerConnection;
use std::io::{self, IoSlice, Read, Write};
use std::sync::Arc;

pub(crate) enum Transport {
    Plain(TcpStream),
    Tls(Box<TlsConn>),
}

/// A TLS connection: the socket and rustls' state for it.
pub(crate) struct TlsConn {
    sock: TcpStream,
    tls: ServerConnection,
}

impl Transport {
    /// A transport for an accepted socket: TLS when the server has a TLS configuration.
    pub(crate) fn new(
        sock: TcpStream,
        tls: Option<&Arc<rustls::ServerConfig>>,
    ) -> Result<Transport, rustls::Error> {
        Ok(match tls {
            None => Transport::Plain(sock),
            Some(config) => Transport::Tls(Box::new(TlsConn {
                sock,
                tls: ServerConnection::new(config.clone())?,
            })),
        })
    }

    /// The socket, for registering with the poll and for socket options.
    pub(crate) fn tcp(&self) -> &TcpStream {
        match self {
            Transport::Plain(s) => s,
            Transport::Tls(t) => &t.sock,
        }
    }

    pub(crate) fn tcp_mut(&mut self) -> &mut TcpStream {
        match self {
            Transport::Plain(s) => s,
            Transport::Tls(t) => &mut t.sock,
        }
    }

    /// The protocol ALPN chose, once the TLS handshake completed (what it asks of the
    /// connection is `conn.rs`'s: h2 must open with HTTP/2's preface, `Conn::process`).
    pub(crate) fn alpn(&self) -> Option<&[u8]> {
        match self {
            Transport::Plain(_) => None,
            Transport::Tls(t) if t.tls.is_handshaking() => None,
            Transport::Tls(t) => t.tls.alpn_protocol(),
        }
    }

    /// True while ciphertext waits for the socket (never for plain TCP).
    pub(crate) fn has_pending(&self) -> bool {
        match self {
            Transport::Plain(_) => false,
            Transport::Tls(t) => t.tls.wants_write(),
        }
    }

    /// Sends what pending ciphertext the socket takes now; the rest waits for the next
    /// writable event ([`Transport::has_pending`] says whether some is left).
    pub(crate) fn send_pending(&mut self) -> io::Result<()> {
        match self {
            Transport::Plain(_) => Ok(()),
            Transport::Tls(t) => t.send_pending(),
        }
    }

    /// Starts a clean TLS close: queues close_notify and sends it if the socket takes it (the
    /// caller shuts the socket down next; a peer that misses it sees a plain EOF).
    pub(crate) fn close_notify(&mut self) {
        if let Transport::Tls(t) = self {
            t.tls.send_close_notify();
            let _ = t.send_pending();
        }
    }
}

impl TlsConn {
    fn send_pending(&mut self) -> io::Result<()> {
        while self.tls.wants_write() {
            match self.tls.write_tls(&mut self.sock) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        loop {
            match self.tls.reader().read(&mut buf[n..]) {
                // `buf[n..]` is never empty here: 0 is close_notify, the end of the stream.
                Ok(0) => return Ok(n),
                Ok(m) => n += m,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                // Closed without close_notify: an ordinary EOF for HTTP's purposes (HTTP/1.1
                // framing says whether a message was cut).
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(n),
                Err(e) => return Err(e),
            }
            if n == buf.len() {
                return Ok(n);
            }
            match self.tls.read_tls(&mut self.sock) {
                Ok(0) => return Ok(n),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock && n > 0 => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            if let Err(e) = self.tls.process_new_packets() {
                // rustls has queued an alert saying why; send it if the socket takes it.
                let _ = self.send_pending();
                return Err(io::Error::new(io::ErrorKind::InvalidData, e));
            }
            if self.tls.wants_write() {
                // Handshake flights, and KeyUpdate or alert replies.
                self.send_pending()?;
            }
        }
    }

    /// Encrypts what rustls' buffer takes and sends what the socket takes; `WouldBlock` when
    /// the buffer is full and the socket full too (a writable edge follows).
    fn write_with(
        &mut self,
        put: impl FnOnce(&mut ServerConnection) -> io::Result<usize>,
    ) -> io::Result<usize> {
        self.send_pending()?;
        let n = put(&mut self.tls)?;
        self.send_pending()?;
        if n == 0 {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        Ok(n)
    }
}

impl Read for Transport {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Transport::Plain(s) => s.read(buf),
            Transport::Tls(_) if buf.is_empty() => Ok(0),
            Transport::Tls(t) => t.read(buf),
        }
    }
}

impl Write for Transport {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Transport::Plain(s) => s.write(buf),
            Transport::Tls(_) if buf.is_empty() => Ok(0),
            Transport::Tls(t) => t.write_with(|c| c.writer().write(buf)),
        }
    }

    fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        match self {
            Transport::Plain(s) => s.write_vectored(bufs),
            Transport::Tls(_) if bufs.iter().all(|b| b.is_empty()) => Ok(0),
            Transport::Tls(t) => t.write_with(|c| c.writer().write_vectored(bufs)),
        }
    }

    /// Sends pending ciphertext as far as the socket takes it, without waiting: see
    /// [`Transport::send_pending`].
    fn flush(&mut self) -> io::Result<()> {
        self.send_pending()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tls::{setup, Tls};
    use rustls::pki_types::{CertificateDer, ServerName};
    use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};
    use std::time::{Duration, Instant};

    /// Handshakes a client offering `offer` with a server-side `Transport`, exchanging one
    /// byte each way, and returns whether `alpn` said h2 once the server had read the byte.
    fn server_alpn_h2(offer: &[&[u8]]) -> bool {
        let s = setup(&Tls::SelfSigned).unwrap();
        let conn = client_conn(s.leaf.clone(), offer);
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let client = std::thread::spawn(move || {
            let sock = std::net::TcpStream::connect(addr).unwrap();
            sock.set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let mut tls = StreamOwned::new(conn, sock);
            tls.write_all(b"?").unwrap();
            let mut one = [0u8; 1];
            tls.read_exact(&mut one).unwrap();
            one[0]
        });
        let (sock, _) = listener.accept().unwrap();
        sock.set_nonblocking(true).unwrap();
        let mut t = Transport::new(TcpStream::from_std(sock), Some(&s.config)).unwrap();
        assert_eq!(t.alpn(), None, "not before the handshake");
        let mut buf = [0u8; 16];
        assert_eq!(read_some(&mut t, &mut buf), 1);
        let h2 = t.alpn() == Some(b"h2".as_slice());
        assert_eq!(t.write(if h2 { b"2" } else { b"1" }).unwrap(), 1);
        while t.has_pending() {
            t.send_pending().unwrap();
        }
        assert_eq!(client.join().unwrap(), if h2 { b'2' } else { b'1' });
        h2
    }

    /// Ciphertext the socket cannot take waits in rustls after `write` has accepted the
    /// plaintext; `has_pending` says so, and `send_pending` delivers it once the peer reads.
    #[test]
    fn written_bytes_are_never_stranded() {
        const N: usize = 60 * 1024;
        let s = setup(&Tls::SelfSigned).unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let (go, wait_go) = std::sync::mpsc::channel::<()>();
        let leaf = s.leaf.clone();
        let client = std::thread::spawn(move || {
            // A small receive buffer, so that the bytes in flight are far fewer than N.
            let sock =
                socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
            sock.set_recv_buffer_size(4096).unwrap();
            sock.connect(&addr.into()).unwrap();
            let sock: std::net::TcpStream = sock.into();
            sock.set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let mut tls = StreamOwned::new(client_conn(leaf, &[b"http/1.1"]), sock);
            tls.write_all(b"go").unwrap();
            tls.flush().unwrap();
            wait_go.recv().unwrap();
            let mut got = Vec::new();
            // read_to_end fails on a close without close_notify: the end must be clean.
            tls.read_to_end(&mut got).unwrap();
            got
        });
        let (sock, _) = listener.accept().unwrap();
        socket2::SockRef::from(&sock)
            .set_send_buffer_size(4096)
            .unwrap();
        sock.set_nonblocking(true).unwrap();
        let mut t = Transport::new(TcpStream::from_std(sock), Some(&s.config)).unwrap();
        let mut buf = [0u8; 2];
        read_some(&mut t, &mut buf);
        let data: Vec<u8> = (0..N).map(|i| (i % 251) as u8).collect();
        assert_eq!(
            t.write(&data).unwrap(),
            N,
            "rustls takes up to 64 KiB at once"
        );
        assert!(t.has_pending(), "the socket cannot have taken {N} bytes");
        go.send(()).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while t.has_pending() {
            t.send_pending().unwrap();
            assert!(Instant::now() < deadline, "pending ciphertext never left");
            std::thread::sleep(Duration::from_millis(1));
        }
        t.close_notify();
        while t.has_pending() {
            t.send_pending().unwrap();
        }
        t.tcp().shutdown(std::net::Shutdown::Write).unwrap();
        assert!(client.join().unwrap() == data);
    }

    /// Reads until at least one byte came (through the handshake).
    fn read_some(t: &mut Transport, buf: &mut [u8]) -> usize {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match t.read(buf) {
                Ok(0) => panic!("eof"),
                Ok(n) => return n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    assert!(Instant::now() < deadline, "nothing came");
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(e) => panic!("{e}"),
            }
        }
    }

    fn client_conn(leaf: CertificateDer<'static>, offer: &[&[u8]]) -> ClientConnection {
        let mut roots = RootCertStore::empty();
        roots.add(leaf).unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut cfg = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        cfg.alpn_protocols = offer.iter().map(|p| p.to_vec()).collect();
        let name = ServerName::try_from("localhost").unwrap();
        ClientConnection::new(Arc::new(cfg), name).unwrap()
    }

    #[test]
    fn alpn_h2_follows_the_negotiation() {
        assert!(server_alpn_h2(&[b"h2", b"http/1.1"]));
        assert!(!server_alpn_h2(&[b"http/1.1"]));
        assert!(!server_alpn_h2(&[]));
    }
}

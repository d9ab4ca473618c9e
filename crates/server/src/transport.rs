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

    /// True once the TLS handshake completed with ALPN choosing h2.
    // The HTTP/2 mode will ask this where a connection switches protocol (see `Conn::run_inner`);
    // until it does, only the tests ask.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn alpn_h2(&self) -> bool {
        match self {
            Transport::Plain(_) => false,
            Transport::Tls(t) => {
                !t.tls.is_handshaking() && t.tls.alpn_protocol() == Some(b"h2".as_slice())
            }
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

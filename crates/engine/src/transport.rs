//! A connection's byte stream: plain TCP, or TLS through rustls' sans-IO client driven by the
//! same non-blocking socket and event loop; or a connected UDP socket whose reads and writes
//! are whole datagrams (QUIC, for HTTP/3: its TLS is inside the session).

use mio::net::{TcpStream, UdpSocket};
use rustls::ClientConnection;
use std::io::{self, Read, Write};

pub enum Transport {
    Plain(TcpStream),
    Tls(Box<TlsStream>),
    Udp(UdpSocket),
}

pub struct TlsStream {
    pub sock: TcpStream,
    pub tls: ClientConnection,
}

fn tls_err(e: rustls::Error) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e)
}

impl Transport {
    /// The TCP socket (None for UDP, which has no connect to wait for).
    pub fn tcp(&mut self) -> Option<&mut TcpStream> {
        match self {
            Transport::Plain(s) => Some(s),
            Transport::Tls(t) => Some(&mut t.sock),
            Transport::Udp(_) => None,
        }
    }

    /// Advances a TLS handshake as far as the socket allows. `Ok(true)` when done (always for
    /// plain TCP).
    pub fn handshake(&mut self) -> io::Result<bool> {
        let Transport::Tls(t) = self else {
            return Ok(true);
        };
        while t.tls.is_handshaking() {
            match t.tls.complete_io(&mut t.sock) {
                Ok((0, 0)) => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "connection closed during the TLS handshake",
                    ))
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) => return Err(e),
            }
        }
        self.flush()?;
        Ok(true)
    }

    /// Reads plaintext (UDP: one datagram). `Ok(0)` is end of stream; `WouldBlock` means
    /// drained.
    pub fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Transport::Plain(s) => s.read(buf),
            Transport::Udp(s) => loop {
                // An empty datagram is no end of anything (QUIC never sends one): skipped.
                match s.recv(buf) {
                    Ok(0) => {}
                    r => return r,
                }
            },
            Transport::Tls(t) => loop {
                match t.tls.reader().read(buf) {
                    Ok(n) => return Ok(n),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    // Closed without close_notify: an ordinary EOF for HTTP's purposes.
                    Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(0),
                    Err(e) => return Err(e),
                }
                match t.tls.read_tls(&mut t.sock) {
                    Ok(0) => return Ok(0),
                    Ok(_) => {
                        t.tls.process_new_packets().map_err(tls_err)?;
                        if t.tls.wants_write() {
                            flush_tls(t)?;
                        }
                    }
                    Err(e) => return Err(e),
                }
            },
        }
    }

    /// Writes bytes; for TLS they are encrypted into rustls' buffer (as many as fit) and as much
    /// as possible is sent, the rest on [`Transport::flush`].
    pub fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Transport::Plain(s) => s.write(buf),
            // One datagram, whole.
            Transport::Udp(s) => s.send(buf),
            Transport::Tls(t) => {
                // rustls buffers a bounded amount of plaintext: take what fits, send what the
                // socket takes, and report `WouldBlock` when nothing fits until it drains.
                flush_tls(t)?;
                let n = t.tls.writer().write(buf)?;
                flush_tls(t)?;
                if n == 0 && !buf.is_empty() {
                    return Err(io::ErrorKind::WouldBlock.into());
                }
                Ok(n)
            }
        }
    }

    /// Sends buffered TLS records; a no-op for plain TCP.
    pub fn flush(&mut self) -> io::Result<()> {
        match self {
            Transport::Plain(_) | Transport::Udp(_) => Ok(()),
            Transport::Tls(t) => flush_tls(t),
        }
    }
}

fn flush_tls(t: &mut TlsStream) -> io::Result<()> {
    while t.tls.wants_write() {
        match t.tls.write_tls(&mut t.sock) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

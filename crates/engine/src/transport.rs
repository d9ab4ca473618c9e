//! A connection's byte stream: plain TCP, or TLS through rustls' sans-IO client driven by the
//! same non-blocking socket and event loop; or a connected UDP socket whose reads and writes
//! are whole datagrams (QUIC, for HTTP/3: its TLS is inside the session), several at a time
//! where the kernel has GSO and GRO (barrage_udp).

use barrage_udp::Offload;
use mio::net::{TcpStream, UdpSocket};
use rustls::ClientConnection;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;

pub enum Transport {
    Plain(TcpStream),
    Tls(Box<TlsStream>),
    Udp(Box<Datagrams>),
}

/// A connected UDP socket and its offload: a GSO send takes several datagrams of one size, a GRO
/// read gives several, which [`Transport::read`] hands out one at a time.
pub struct Datagrams {
    pub sock: UdpSocket,
    offload: Offload,
    /// The datagrams of a GRO read after its first, not handed out yet: `held[at..]`, each
    /// `seg` bytes but the last. Empty unless a read coalesced several (a bulk transfer), so a
    /// connection costs no buffer of its own otherwise.
    held: Vec<u8>,
    at: usize,
    seg: usize,
}

impl Datagrams {
    /// Turns on the offload the kernel has for `sock` (barrage_udp::enable).
    pub fn new(sock: UdpSocket) -> Datagrams {
        let offload = barrage_udp::enable(sock.as_raw_fd());
        Datagrams {
            sock,
            offload,
            held: Vec::new(),
            at: 0,
            seg: 0,
        }
    }

    /// One datagram into `buf`, which must hold the largest GRO read (64 KiB: the worker's read
    /// buffer does) when GRO is on.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.at < self.held.len() {
                let end = (self.at + self.seg).min(self.held.len());
                let n = end - self.at;
                buf[..n].copy_from_slice(&self.held[self.at..end]);
                self.at = end;
                return Ok(n);
            }
            let (n, seg) = if self.offload.gro {
                let (n, _, seg) = barrage_udp::recv(self.sock.as_raw_fd(), buf)?;
                (n, seg)
            } else {
                let n = self.sock.recv(buf)?;
                (n, n)
            };
            // An empty datagram is no end of anything (QUIC never sends one): skipped.
            if n == 0 {
                continue;
            }
            if seg < n {
                // The first datagram goes now, the rest wait here.
                self.held.clear();
                self.held.extend_from_slice(&buf[seg..n]);
                (self.at, self.seg) = (0, seg);
                return Ok(seg);
            }
            return Ok(n);
        }
    }

    /// Sends `buf`, datagrams of `seg` bytes (0: one datagram): in one call with GSO, else one
    /// by one. A short count means the rest was not sent (lost, for QUIC to recover).
    fn send(&mut self, buf: &[u8], seg: usize) -> io::Result<usize> {
        if seg == 0 || seg >= buf.len() {
            return self.sock.send(buf);
        }
        if self.offload.gso {
            match barrage_udp::send(self.sock.as_raw_fd(), buf, seg, None) {
                // No GSO on this path after all (EIO: no checksum offload): one by one from now.
                Err(e) if e.raw_os_error() == Some(libc::EIO) => self.offload.gso = false,
                r => return r,
            }
        }
        let mut sent = 0;
        for d in buf.chunks(seg) {
            match self.sock.send(d) {
                Ok(_) => sent += d.len(),
                Err(e) if sent == 0 => return Err(e),
                Err(_) => break,
            }
        }
        Ok(sent)
    }
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
            Transport::Udp(u) => u.read(buf),
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

    /// Writes a session's output: bytes for TCP (for TLS encrypted into rustls' buffer, as many
    /// as fit, and as much as possible sent, the rest on [`Transport::flush`]); for UDP,
    /// datagrams of `seg` bytes each but the last (0: one datagram;
    /// [`Transmit::segment`](barrage_wire::client::Transmit::segment)).
    pub fn write(&mut self, buf: &[u8], seg: usize) -> io::Result<usize> {
        match self {
            Transport::Plain(s) => s.write(buf),
            Transport::Udp(u) => u.send(buf, seg),
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

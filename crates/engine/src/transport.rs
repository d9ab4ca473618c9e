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
    /// A GRO read's datagrams not handed out yet: `held[at..len]`, each `seg` bytes but the last.
    held: Vec<u8>,
    at: usize,
    len: usize,
    seg: usize,
}

impl Datagrams {
    /// Turns on the offload the kernel has for `sock` (barrage_udp::enable).
    pub fn new(sock: UdpSocket) -> Datagrams {
        let offload = barrage_udp::enable(sock.as_raw_fd());
        // A GRO read holds up to 64 datagrams of up to 1,452 bytes (QUIC's largest over a
        // 1,500-byte MTU): the kernel's 64 KiB bound covers it.
        let held = if offload.gro {
            vec![0; 65_536]
        } else {
            Vec::new()
        };
        Datagrams {
            sock,
            offload,
            held,
            at: 0,
            len: 0,
            seg: 0,
        }
    }

    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.at < self.len {
                let end = (self.at + self.seg).min(self.len);
                let n = (end - self.at).min(buf.len());
                buf[..n].copy_from_slice(&self.held[self.at..self.at + n]);
                self.at = end;
                return Ok(n);
            }
            if !self.offload.gro {
                // An empty datagram is no end of anything (QUIC never sends one): skipped.
                match self.sock.recv(buf) {
                    Ok(0) => continue,
                    r => return r,
                }
            }
            let (n, _, seg) = barrage_udp::recv(self.sock.as_raw_fd(), &mut self.held)?;
            (self.at, self.len, self.seg) = (0, n, seg);
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

    /// Writes bytes; for TLS they are encrypted into rustls' buffer (as many as fit) and as much
    /// as possible is sent, the rest on [`Transport::flush`].
    pub fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Transport::Plain(s) => s.write(buf),
            // One datagram, whole.
            Transport::Udp(u) => u.sock.send(buf),
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

    /// Writes a session's output: for UDP, datagrams of `seg` bytes each but the last (0: one
    /// datagram; [`ClientSession::segment`](barrage_wire::client::ClientSession::segment)),
    /// for the others, bytes as [`Transport::write`] does.
    pub fn write_out(&mut self, buf: &[u8], seg: usize) -> io::Result<usize> {
        match self {
            Transport::Udp(u) => u.send(buf, seg),
            _ => self.write(buf),
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

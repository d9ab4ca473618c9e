//! UDP with the kernel's segmentation offload, for HTTP/3's client (the engine) and server: a
//! GSO send hands the kernel several datagrams of one size to one peer in one `sendmsg`
//! (`UDP_SEGMENT`), a GRO receive takes several datagrams of one flow in one `recvmsg`
//! (`UDP_GRO`, the segment size in a control message). QUIC sends a flight of full-size packets
//! to one peer at a time, and per-datagram system calls are most of what moving them costs
//! (bench/h3.sh's floor), so this is where the syscalls go down.
//!
//! Linux only (4.18 for GSO, 5.0 for GRO); [`enable`] finds what the kernel has, and a socket
//! without either works as before, one datagram per call. `BARRAGE_UDP_OFFLOAD=off` turns both
//! off (`gso` or `gro`: that one only), so that a run can be measured with and without
//! (bench/h3.sh).

use std::io;
use std::mem::{size_of, zeroed};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::os::fd::RawFd;

/// The most datagrams a GSO send carries: QUIC's flights are smaller than this at the
/// congestion windows of a loopback or LAN run, and the kernel's limit is 64.
pub const MAX_SEGMENTS: usize = 32;

/// Which offloads a socket has on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Offload {
    /// Sends of several datagrams at once (`UDP_SEGMENT`).
    pub gso: bool,
    /// Receives of several datagrams at once (`UDP_GRO`).
    pub gro: bool,
}

impl Offload {
    /// The most datagrams one send may carry on this socket.
    pub fn segments(self) -> usize {
        if self.gso {
            MAX_SEGMENTS
        } else {
            1
        }
    }
}

/// What offload may be used: `BARRAGE_UDP_OFFLOAD` is `off` (or `0`) for none, `gso` or `gro`
/// for that one alone, anything else (or unset) for both.
pub fn allowed() -> Offload {
    match std::env::var("BARRAGE_UDP_OFFLOAD").as_deref() {
        Ok("off" | "0") => Offload::default(),
        Ok("gso") => Offload {
            gso: true,
            gro: false,
        },
        Ok("gro") => Offload {
            gso: false,
            gro: true,
        },
        _ => Offload {
            gso: true,
            gro: true,
        },
    }
}

/// Turns on what the kernel has of GSO and GRO for the socket `fd` (of what [`allowed`]
/// allows), and says what is on.
pub fn enable(fd: RawFd) -> Offload {
    let allowed = allowed();
    let mut v: libc::c_int = 0;
    let mut len = size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: getsockopt/setsockopt on a socket the caller owns, with an int and its length.
    let gso = allowed.gso
        && unsafe {
            libc::getsockopt(
                fd,
                libc::SOL_UDP,
                libc::UDP_SEGMENT,
                (&mut v as *mut libc::c_int).cast(),
                &mut len,
            ) == 0
        };
    let one: libc::c_int = 1;
    let gro = allowed.gro
        // SAFETY: setsockopt reads one c_int from &one, a live local of the length passed, on fd, the socket this function was given.
        && unsafe {
            libc::setsockopt(
                fd,
                libc::SOL_UDP,
                libc::UDP_GRO,
                (&one as *const libc::c_int).cast(),
                size_of::<libc::c_int>() as libc::socklen_t,
            ) == 0
        };
    Offload { gso, gro }
}

/// What [`enable`] would turn on for a UDP socket of this machine (found on a socket made and
/// dropped here), for a caller that must know before its sockets exist.
pub fn probe() -> Offload {
    std::net::UdpSocket::bind((std::net::Ipv4Addr::LOCALHOST, 0))
        .map(|s| enable(std::os::fd::AsRawFd::as_raw_fd(&s)))
        .unwrap_or_default()
}

/// Room for one control message of one int (UDP_SEGMENT's u16 or UDP_GRO's int), aligned.
#[repr(C, align(8))]
struct Cmsg([u8; 32]);

/// Sends `buf` to `to` (None: the connected peer) as datagrams of `segment` bytes each, the last
/// one shorter or whole; one datagram when `segment` is 0 or covers `buf`. Returns the bytes
/// sent (all of them: a datagram send is whole or an error).
pub fn send(fd: RawFd, buf: &[u8], segment: usize, to: Option<SocketAddr>) -> io::Result<usize> {
    // SAFETY: every pointer in the msghdr points into locals that outlive the call.
    unsafe {
        let mut iov = libc::iovec {
            iov_base: buf.as_ptr() as *mut _,
            iov_len: buf.len(),
        };
        let mut msg: libc::msghdr = zeroed();
        let mut addr: libc::sockaddr_storage = zeroed();
        if let Some(to) = to {
            msg.msg_name = (&mut addr as *mut libc::sockaddr_storage).cast();
            msg.msg_namelen = write_addr(to, &mut addr);
        }
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        let mut control = Cmsg([0; 32]);
        if segment > 0 && segment < buf.len() {
            msg.msg_control = control.0.as_mut_ptr().cast();
            msg.msg_controllen = libc::CMSG_SPACE(size_of::<u16>() as u32) as _;
            let c = libc::CMSG_FIRSTHDR(&msg);
            (*c).cmsg_level = libc::SOL_UDP;
            (*c).cmsg_type = libc::UDP_SEGMENT;
            (*c).cmsg_len = libc::CMSG_LEN(size_of::<u16>() as u32) as _;
            std::ptr::write_unaligned(libc::CMSG_DATA(c).cast::<u16>(), segment as u16);
        }
        let n = libc::sendmsg(fd, &msg, 0);
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(n as usize)
    }
}

/// One receive into `buf`: the bytes, the sender, and the size of each datagram in them (with
/// GRO the kernel may hand over several of one size, the last one shorter; without, the one
/// datagram's length).
pub fn recv(fd: RawFd, buf: &mut [u8]) -> io::Result<(usize, SocketAddr, usize)> {
    // SAFETY: as in `send`; the kernel writes at most the lengths given.
    unsafe {
        let mut iov = libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: buf.len(),
        };
        let mut addr: libc::sockaddr_storage = zeroed();
        let mut msg: libc::msghdr = zeroed();
        msg.msg_name = (&mut addr as *mut libc::sockaddr_storage).cast();
        msg.msg_namelen = size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        let mut control = Cmsg([0; 32]);
        msg.msg_control = control.0.as_mut_ptr().cast();
        msg.msg_controllen = control.0.len() as _;
        let n = libc::recvmsg(fd, &mut msg, 0);
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        let n = n as usize;
        let mut segment = n;
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_UDP && (*c).cmsg_type == libc::UDP_GRO {
                let s = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast::<libc::c_int>());
                if s > 0 {
                    segment = s as usize;
                }
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
        let from = read_addr(&addr).ok_or_else(|| io::Error::other("no sender address"))?;
        Ok((n, from, segment.max(1)))
    }
}

fn write_addr(a: SocketAddr, out: &mut libc::sockaddr_storage) -> libc::socklen_t {
    // SAFETY: sockaddr_storage is large and aligned enough for either family.
    unsafe {
        match a {
            SocketAddr::V4(a) => {
                let s = &mut *(out as *mut libc::sockaddr_storage).cast::<libc::sockaddr_in>();
                s.sin_family = libc::AF_INET as libc::sa_family_t;
                s.sin_port = a.port().to_be();
                s.sin_addr.s_addr = u32::from(*a.ip()).to_be();
                size_of::<libc::sockaddr_in>() as libc::socklen_t
            }
            SocketAddr::V6(a) => {
                let s = &mut *(out as *mut libc::sockaddr_storage).cast::<libc::sockaddr_in6>();
                s.sin6_family = libc::AF_INET6 as libc::sa_family_t;
                s.sin6_port = a.port().to_be();
                s.sin6_addr.s6_addr = a.ip().octets();
                s.sin6_flowinfo = a.flowinfo();
                s.sin6_scope_id = a.scope_id();
                size_of::<libc::sockaddr_in6>() as libc::socklen_t
            }
        }
    }
}

fn read_addr(s: &libc::sockaddr_storage) -> Option<SocketAddr> {
    // SAFETY: the family says which of the two the kernel wrote.
    unsafe {
        match s.ss_family as libc::c_int {
            libc::AF_INET => {
                let a = &*(s as *const libc::sockaddr_storage).cast::<libc::sockaddr_in>();
                let ip = Ipv4Addr::from(u32::from_be(a.sin_addr.s_addr));
                Some(SocketAddrV4::new(ip, u16::from_be(a.sin_port)).into())
            }
            libc::AF_INET6 => {
                let a = &*(s as *const libc::sockaddr_storage).cast::<libc::sockaddr_in6>();
                let ip = Ipv6Addr::from(a.sin6_addr.s6_addr);
                let port = u16::from_be(a.sin6_port);
                Some(SocketAddrV6::new(ip, port, a.sin6_flowinfo, a.sin6_scope_id).into())
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::UdpSocket;
    use std::os::fd::AsRawFd;
    use std::time::Duration;

    fn pair() -> (UdpSocket, UdpSocket) {
        let a = UdpSocket::bind("127.0.0.1:0").unwrap();
        let b = UdpSocket::bind("127.0.0.1:0").unwrap();
        b.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        (a, b)
    }

    /// Receives every datagram in `b` until `want` bytes came, split at the segment sizes.
    fn datagrams(b: &UdpSocket, want: usize) -> Vec<Vec<u8>> {
        let mut got = Vec::new();
        let mut total = 0;
        let mut buf = vec![0; 65536];
        while total < want {
            let (n, _, seg) = recv(b.as_raw_fd(), &mut buf).unwrap();
            total += n;
            got.extend(buf[..n].chunks(seg).map(<[u8]>::to_vec));
        }
        got
    }

    #[test]
    fn a_gso_send_arrives_as_its_datagrams_with_and_without_gro() {
        for gro in [false, true] {
            let (a, b) = pair();
            let on = enable(a.as_raw_fd());
            if gro {
                enable(b.as_raw_fd());
            }
            // 5 datagrams of 1200 bytes and a last one of 700, each byte saying its datagram.
            let buf: Vec<u8> = (0..5 * 1200 + 700).map(|i| (i / 1200) as u8).collect();
            let seg = if on.gso { 1200 } else { 0 };
            let to = b.local_addr().unwrap();
            if on.gso {
                assert_eq!(send(a.as_raw_fd(), &buf, seg, Some(to)).unwrap(), buf.len());
            } else {
                for d in buf.chunks(1200) {
                    send(a.as_raw_fd(), d, 0, Some(to)).unwrap();
                }
            }
            let got = datagrams(&b, buf.len());
            let lens: Vec<usize> = got.iter().map(Vec::len).collect();
            assert_eq!(lens, [1200, 1200, 1200, 1200, 1200, 700], "gro {gro}");
            for (k, d) in got.iter().enumerate() {
                assert!(d.iter().all(|&x| x == k as u8), "datagram {k}");
            }
        }
    }

    #[test]
    fn the_sender_address_is_read_back() {
        let (a, b) = pair();
        send(a.as_raw_fd(), b"hi", 0, Some(b.local_addr().unwrap())).unwrap();
        let mut buf = [0; 16];
        let (n, from, seg) = recv(b.as_raw_fd(), &mut buf).unwrap();
        assert_eq!(
            (&buf[..n], from, seg),
            (&b"hi"[..], a.local_addr().unwrap(), 2)
        );
    }

    #[test]
    fn a_connected_socket_sends_without_an_address() {
        let (a, b) = pair();
        a.connect(b.local_addr().unwrap()).unwrap();
        assert_eq!(send(a.as_raw_fd(), b"abc", 0, None).unwrap(), 3);
        let mut buf = [0; 16];
        assert_eq!(b.recv(&mut buf).unwrap(), 3);
    }

    #[test]
    fn v6_addresses_round_trip() {
        let a: SocketAddr = "[::1]:4433".parse().unwrap();
        // SAFETY: sockaddr_storage is plain old data; all-zero is a valid (unspecified) address.
        let mut s = unsafe { zeroed() };
        write_addr(a, &mut s);
        assert_eq!(read_addr(&s), Some(a));
        let a: SocketAddr = "10.1.2.3:9".parse().unwrap();
        write_addr(a, &mut s);
        assert_eq!(read_addr(&s), Some(a));
    }
}

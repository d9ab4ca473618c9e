//! TUN devices and interface settings by ioctl (no iproute2): open a layer-3 TUN device in the
//! calling thread's namespace, give it an IPv4 address, an MTU and a queue length, bring it up.

use crate::NetError;
use std::ffi::CStr;
use std::io;
use std::net::Ipv4Addr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// `_IOW('T', 202, int)`.
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

/// `struct ifreq`: a name and a 24-byte union, filled by hand.
#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    data: [u8; 24],
}

impl IfReq {
    fn new(name: &str) -> IfReq {
        let mut r = IfReq {
            name: [0; libc::IFNAMSIZ],
            data: [0; 24],
        };
        let n = name.len().min(libc::IFNAMSIZ - 1);
        r.name[..n].copy_from_slice(&name.as_bytes()[..n]);
        r
    }
    fn set_i32(&mut self, v: i32) {
        self.data[..4].copy_from_slice(&v.to_ne_bytes());
    }
    fn set_short(&mut self, v: libc::c_short) {
        self.data[..2].copy_from_slice(&v.to_ne_bytes());
    }
    fn short(&self) -> libc::c_short {
        libc::c_short::from_ne_bytes([self.data[0], self.data[1]])
    }
    fn set_addr(&mut self, a: Ipv4Addr) {
        self.data = [0; 24];
        self.data[..2].copy_from_slice(&(libc::AF_INET as u16).to_ne_bytes());
        self.data[4..8].copy_from_slice(&a.octets());
    }
}

/// An open TUN device (layer 3, no packet information header, non-blocking). Closing it
/// removes the device.
#[derive(Debug)]
pub struct Tun {
    fd: OwnedFd,
    name: String,
}

impl Tun {
    /// Makes `name` in the calling thread's namespace with `addr/prefix`, `mtu` and a transmit
    /// queue of `txqlen` packets, and brings it up.
    pub fn open(
        name: &str,
        addr: Ipv4Addr,
        prefix: u8,
        mtu: u32,
        txqlen: u32,
    ) -> Result<Tun, NetError> {
        let path = c"/dev/net/tun";
        // SAFETY: a plain open of a NUL-terminated path.
        let fd = unsafe {
            libc::open(
                path.as_ptr(),
                libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(NetError::NoTun(io::Error::last_os_error()));
        }
        // SAFETY: fd was just opened and is owned by nothing else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let mut req = IfReq::new(name);
        req.set_short(IFF_TUN | IFF_NO_PI);
        // SAFETY: TUNSETIFF reads and writes an ifreq.
        if unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF as _, &mut req) } < 0 {
            return Err(NetError::Tun {
                name: name.into(),
                source: io::Error::last_os_error(),
            });
        }
        let name = CStr::from_bytes_until_nul(&req.name)
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_else(|_| name.to_string());
        let what = |w: &str| format!("{w} of {name}");
        let s = Ctl::new().map_err(|e| NetError::Configure {
            what: what("a socket for the settings"),
            source: e,
        })?;
        let conf = |w: &str, e: io::Error| NetError::Configure {
            what: what(w),
            source: e,
        };
        let mut r = IfReq::new(&name);
        r.set_addr(addr);
        s.ioctl(libc::SIOCSIFADDR, &mut r)
            .map_err(|e| conf("the address", e))?;
        let mask = if prefix == 0 {
            0
        } else {
            u32::MAX << (32 - u32::from(prefix.min(32)))
        };
        r.set_addr(Ipv4Addr::from(mask));
        s.ioctl(libc::SIOCSIFNETMASK, &mut r)
            .map_err(|e| conf("the netmask", e))?;
        let mut r = IfReq::new(&name);
        r.set_i32(mtu as i32);
        s.ioctl(libc::SIOCSIFMTU, &mut r)
            .map_err(|e| conf("the MTU", e))?;
        let mut r = IfReq::new(&name);
        r.set_i32(txqlen as i32);
        s.ioctl(libc::SIOCSIFTXQLEN, &mut r)
            .map_err(|e| conf("the queue length", e))?;
        // Best effort: no IPv6 chatter (router solicitations) on the emulated link.
        let _ = std::fs::write(format!("/proc/sys/net/ipv6/conf/{name}/disable_ipv6"), "1");
        up(&s, &name)?;
        Ok(Tun { fd, name })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn fd(&self) -> &OwnedFd {
        &self.fd
    }
}

/// A socket to send interface ioctls through (in the calling thread's namespace).
struct Ctl(OwnedFd);

impl Ctl {
    fn new() -> io::Result<Ctl> {
        // SAFETY: a plain socket call.
        let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fd was just made.
        Ok(Ctl(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    fn ioctl(&self, req: libc::c_ulong, r: &mut IfReq) -> io::Result<()> {
        // SAFETY: every request used here reads or writes one ifreq.
        if unsafe { libc::ioctl(self.0.as_raw_fd(), req as _, r as *mut IfReq) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

fn up(s: &Ctl, name: &str) -> Result<(), NetError> {
    let conf = |e| NetError::Configure {
        what: format!("the state of {name}"),
        source: e,
    };
    let mut r = IfReq::new(name);
    s.ioctl(libc::SIOCGIFFLAGS, &mut r).map_err(conf)?;
    let flags = r.short() | (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
    r.set_short(flags);
    s.ioctl(libc::SIOCSIFFLAGS, &mut r).map_err(conf)
}

/// Brings an existing interface (`lo`) up in the calling thread's namespace.
pub fn link_up(name: &str) -> Result<(), NetError> {
    let s = Ctl::new().map_err(|e| NetError::Configure {
        what: format!("a socket for {name}"),
        source: e,
    })?;
    up(&s, name)
}

//! Readiness probes: a TCP connect, an HTTP GET expecting a status, or a UDP port bound (read
//! from /proc). Probing stops early when the contender exits or barrage is interrupted.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use super::{interrupted, Contender, NotReady, Probe};

/// Probe until ready; see [`Contender::wait_ready`].
pub(super) fn wait(
    c: &mut Contender,
    probe: &Probe,
    timeout: Duration,
) -> Result<Duration, NotReady> {
    let start = Instant::now();
    let deadline = start + timeout;
    let mut pause = Duration::from_millis(10);
    let mut last_error = String::from("no attempt");
    loop {
        if interrupted() {
            return Err(NotReady::Interrupted);
        }
        if c.has_exited() {
            return Err(NotReady::Exited);
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(NotReady::Timeout {
                waited_ms: (now - start).as_millis() as u64,
                last_error,
            });
        }
        let attempt = (deadline - now).min(Duration::from_secs(1));
        match probe_once(probe, attempt) {
            Ok(()) => return Ok(c.spawned_at().elapsed()),
            Err(e) => last_error = e,
        }
        let now = Instant::now();
        if now >= deadline {
            continue;
        }
        std::thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(100));
    }
}

/// One probe attempt; the error text is kept for the report.
pub fn probe_once(probe: &Probe, timeout: Duration) -> Result<(), String> {
    match probe {
        Probe::Tcp { addr } => connect(addr, timeout).map(|_| ()),
        Probe::Http {
            addr,
            path,
            expect_status,
        } => {
            let mut s = connect(addr, timeout)?;
            s.set_read_timeout(Some(timeout))
                .map_err(|e| e.to_string())?;
            s.set_write_timeout(Some(timeout))
                .map_err(|e| e.to_string())?;
            let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nUser-Agent: barrage-probe\r\n\r\n");
            s.write_all(req.as_bytes())
                .map_err(|e| format!("write: {e}"))?;
            let status = read_status(&mut s)?;
            match expect_status {
                Some(want) if *want != status => Err(format!("status {status}, expected {want}")),
                _ => Ok(()),
            }
        }
        Probe::UdpBound { pid, port } => {
            for table in ["udp", "udp6"] {
                let path = format!("/proc/{pid}/net/{table}");
                let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
                if udp_bound(&text, *port) {
                    return Ok(());
                }
            }
            Err(format!("no UDP socket bound at port {port}"))
        }
    }
}

/// Whether a `/proc/net/udp` (or `udp6`) table has an unconnected socket (state 07) whose local
/// port is `port` (any address). A connected socket (a client's, state 01) does not count.
fn udp_bound(table: &str, port: u16) -> bool {
    table.lines().skip(1).any(|line| {
        let mut cols = line.split_ascii_whitespace().skip(1);
        let (Some(local), Some(_remote), Some(state)) = (cols.next(), cols.next(), cols.next())
        else {
            return false;
        };
        let local_port = local
            .rsplit_once(':')
            .and_then(|(_, p)| u16::from_str_radix(p, 16).ok());
        local_port == Some(port) && state == "07"
    })
}

fn connect(addr: &SocketAddr, timeout: Duration) -> Result<TcpStream, String> {
    TcpStream::connect_timeout(addr, timeout.max(Duration::from_millis(1)))
        .map_err(|e| format!("connect {addr}: {e}"))
}

/// Read up to the end of the status line and parse `HTTP/1.x NNN`.
fn read_status(s: &mut TcpStream) -> Result<u16, String> {
    let mut buf = Vec::with_capacity(128);
    let mut chunk = [0u8; 128];
    while !buf.contains(&b'\n') {
        let n = s.read(&mut chunk).map_err(|e| format!("read: {e}"))?;
        if n == 0 {
            return Err("connection closed before a status line".into());
        }
        buf.extend_from_slice(&chunk[..n]);
        if buf.len() > 8192 {
            return Err("status line too long".into());
        }
    }
    parse_status_line(&buf).ok_or_else(|| {
        let end = buf.iter().position(|&b| b == b'\n').unwrap_or(buf.len());
        format!(
            "not an HTTP status line: {:?}",
            String::from_utf8_lossy(&buf[..end]).trim_end()
        )
    })
}

fn parse_status_line(buf: &[u8]) -> Option<u16> {
    let line = std::str::from_utf8(&buf[..buf.iter().position(|&b| b == b'\n')?]).ok()?;
    let mut it = line.split_ascii_whitespace();
    if !it.next()?.starts_with("HTTP/1.") {
        return None;
    }
    let code = it.next()?;
    (code.len() == 3).then(|| code.parse().ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines() {
        assert_eq!(parse_status_line(b"HTTP/1.1 200 OK\r\n"), Some(200));
        assert_eq!(parse_status_line(b"HTTP/1.0 404\r\n"), Some(404));
        assert_eq!(parse_status_line(b"SSH-2.0-x\r\n"), None);
        assert_eq!(parse_status_line(b"HTTP/1.1 20 OK\r\n"), None);
    }

    #[test]
    fn udp_tables() {
        let v4 = "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n\
  1: 0100007F:1F90 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1 2 0 0\n\
  2: 0100007F:D431 0100007F:1F91 01 00000000:00000000 00:00000000 00000000     0        0 3 2 0 0\n";
        assert!(udp_bound(v4, 8080));
        // Only a client's connected socket has 54321 (state 01); 8081 is its peer's port.
        assert!(!udp_bound(v4, 54321));
        assert!(!udp_bound(v4, 8081));
        assert!(
            !udp_bound(v4.lines().next().unwrap(), 8080),
            "the header alone"
        );
        let v6 = "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n\
 9: 00000000000000000000000000000000:01BB 00000000000000000000000000000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 4 2 0 0\n";
        assert!(udp_bound(v6, 443));
        assert!(!udp_bound("", 443) && !udp_bound("x\n1: garbage", 443));
    }

    #[test]
    fn udp_bound_reads_this_process_table() {
        let me = std::process::id() as i32;
        let s = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let port = s.local_addr().unwrap().port();
        let probe = Probe::UdpBound { pid: me, port };
        probe_once(&probe, Duration::from_secs(1)).unwrap();
        drop(s);
        let e = probe_once(&probe, Duration::from_secs(1)).unwrap_err();
        assert!(e.contains("no UDP socket bound"), "{e}");
    }

    #[test]
    fn probes_against_a_listener() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let t = std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            let mut b = [0u8; 512];
            let _ = s.read(&mut b);
            s.write_all(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n")
                .unwrap();
        });
        let probe = Probe::Http {
            addr,
            path: "/".into(),
            expect_status: Some(200),
        };
        let e = probe_once(&probe, Duration::from_secs(5)).unwrap_err();
        assert!(e.contains("503"), "{e}");
        t.join().unwrap();
        // Nothing listens on the port any more.
        assert!(probe_once(&Probe::Tcp { addr }, Duration::from_secs(1)).is_err());
    }
}

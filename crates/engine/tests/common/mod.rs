//! Small real socket servers for the engine's tests: a thread per connection, blocking I/O,
//! with peer shapes the in-process barrage server does not have (close after every response,
//! delays, stalls, malformed responses, huge bodies). Every server stops and joins its threads
//! when dropped.

#![allow(dead_code)]

pub mod nginx;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

#[derive(Clone, Debug)]
pub enum Mode {
    /// `200 OK` with this body and Content-Length, after an optional delay.
    Ok {
        body: &'static [u8],
        delay: Duration,
    },
    /// Like `Ok`, but every response says `Connection: close` and the socket is closed after it.
    CloseEach {
        body: &'static [u8],
        close_delimited: bool,
    },
    /// Reads requests, never answers.
    Stall,
    /// Answers every request with bytes that are not HTTP.
    Garbage,
    /// A body of `len` bytes with Content-Length (chunked if `chunked`).
    Big { len: u64, chunked: bool },
    /// Answers with this status and body.
    Status { status: u16, body: &'static [u8] },
    /// Answers every request twice (`200 OK`, this body), both in one write.
    Twice { body: &'static [u8] },
}

pub struct Server {
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
    pub accepted: Arc<AtomicU64>,
    pub requests: Arc<AtomicU64>,
}

impl Server {
    pub fn start(mode: Mode) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        listener.set_nonblocking(true).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let accepted = Arc::new(AtomicU64::new(0));
        let requests = Arc::new(AtomicU64::new(0));
        let (s, a, r) = (stop.clone(), accepted.clone(), requests.clone());
        let accept = std::thread::spawn(move || {
            let conns: Mutex<Vec<JoinHandle<()>>> = Mutex::new(Vec::new());
            while !s.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((sock, _)) => {
                        a.fetch_add(1, Ordering::Relaxed);
                        let (mode, s, r) = (mode.clone(), s.clone(), r.clone());
                        let h = std::thread::spawn(move || serve(sock, mode, s, r));
                        let mut c = conns.lock().unwrap();
                        c.retain(|h| !h.is_finished());
                        c.push(h);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(2)),
                }
            }
            for h in conns.into_inner().unwrap() {
                let _ = h.join();
            }
        });
        Server {
            addr,
            stop,
            accept: Some(accept),
            accepted,
            requests,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

/// Reads one request head (requests in these tests have no body); false on EOF or stop.
fn read_head(sock: &mut TcpStream, buf: &mut Vec<u8>, stop: &AtomicBool) -> bool {
    loop {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            buf.drain(..i + 4);
            return true;
        }
        let mut tmp = [0u8; 4096];
        match sock.read(&mut tmp) {
            Ok(0) => return false,
            Ok(n) => buf.extend_from_slice(&tmp[..n]),
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut =>
            {
                if stop.load(Ordering::Relaxed) {
                    return false;
                }
            }
            Err(_) => return false,
        }
    }
}

fn serve(mut sock: TcpStream, mode: Mode, stop: Arc<AtomicBool>, reqs: Arc<AtomicU64>) {
    sock.set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    sock.set_write_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let _ = sock.set_nodelay(true);
    let mut buf = Vec::new();
    while read_head(&mut sock, &mut buf, &stop) {
        reqs.fetch_add(1, Ordering::Relaxed);
        let ok = match &mode {
            Mode::Ok { body, delay } => {
                if !delay.is_zero() {
                    std::thread::sleep(*delay);
                }
                let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len());
                sock.write_all(&[head.as_bytes(), body].concat()).is_ok()
            }
            Mode::Status { status, body } => {
                let head = format!(
                    "HTTP/1.1 {status} X\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                );
                sock.write_all(&[head.as_bytes(), body].concat()).is_ok()
            }
            Mode::CloseEach {
                body,
                close_delimited,
            } => {
                let head = if *close_delimited {
                    "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".to_string()
                } else {
                    format!(
                        "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
                        body.len()
                    )
                };
                let _ = sock.write_all(&[head.as_bytes(), body].concat());
                return;
            }
            Mode::Twice { body } => {
                let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len());
                let one = [head.as_bytes(), body].concat();
                sock.write_all(&[&one[..], &one[..]].concat()).is_ok()
            }
            Mode::Stall => true,
            Mode::Garbage => sock.write_all(b"SPDY/9 what\r\n\r\n").is_ok(),
            Mode::Big { len, chunked } => write_big(&mut sock, *len, *chunked, &stop),
        };
        if !ok {
            return;
        }
    }
}

fn write_big(sock: &mut TcpStream, len: u64, chunked: bool, stop: &AtomicBool) -> bool {
    let head = if chunked {
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_string()
    } else {
        format!("HTTP/1.1 200 OK\r\nContent-Length: {len}\r\n\r\n")
    };
    if sock.write_all(head.as_bytes()).is_err() {
        return false;
    }
    let block = vec![b'x'; 1 << 20];
    let mut left = len;
    while left > 0 {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let n = left.min(block.len() as u64) as usize;
        let ok = if chunked {
            sock.write_all(format!("{n:x}\r\n").as_bytes()).is_ok()
                && sock.write_all(&block[..n]).is_ok()
                && sock.write_all(b"\r\n").is_ok()
        } else {
            sock.write_all(&block[..n]).is_ok()
        };
        if !ok {
            return false;
        }
        left -= n as u64;
    }
    !chunked || sock.write_all(b"0\r\n\r\n").is_ok()
}

/// A port with nothing listening on it (bound, then released).
pub fn dead_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// This process's resident set size and its high-water mark, in KiB, from /proc.
pub fn rss_kib() -> (u64, u64) {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    let field = |name: &str| {
        s.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap()
    };
    (field("VmRSS:"), field("VmHWM:"))
}

//! `--metrics ADDR` (on `load`, `run` and `serve`): a small HTTP endpoint on its own thread
//! (std sockets, one request per connection) serving the figures so far in Prometheus' text
//! format, or OpenMetrics when the scraper asks for it (`Accept:
//! application/openmetrics-text`), at `/metrics` (and `/`). What it serves is rendered on each
//! scrape by the command's own function from the state the command keeps anyway (`figures.rs`
//! for loads, the server's counters for `serve`), so nothing is counted twice and the load's
//! workers never wait for a scrape.

pub mod expo;
pub mod load;
pub mod serve;

use anyhow::Context as _;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Renders the page: OpenMetrics when true, else Prometheus' text format.
pub type Render = Box<dyn Fn(bool) -> String + Send + Sync>;

/// The endpoint; dropping it stops its thread.
pub struct Endpoint {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Endpoint {
    /// Binds `addr` (port 0 picks one) and serves `render`'s pages until dropped.
    pub fn start(addr: SocketAddr, render: Render) -> anyhow::Result<Endpoint> {
        let listener = TcpListener::bind(addr)
            .with_context(|| format!("--metrics: cannot listen on {addr}"))?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("barrage-metrics".into())
            .spawn(move || {
                for conn in listener.incoming() {
                    if flag.load(Ordering::Acquire) {
                        break;
                    }
                    if let Ok(c) = conn {
                        serve(c, &render);
                    }
                }
            })?;
        Ok(Endpoint {
            addr,
            stop,
            thread: Some(thread),
        })
    }

    #[cfg(test)]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The line a command prints on stderr when it starts the endpoint.
    pub fn announce(&self) -> String {
        format!("barrage: metrics on http://{}/metrics", self.addr)
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        // Wake the blocking accept: a connection to the endpoint itself.
        let mut wake = self.addr;
        if wake.ip().is_unspecified() {
            wake.set_ip(match wake {
                SocketAddr::V4(_) => [127, 0, 0, 1].into(),
                SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            });
        }
        let _ = TcpStream::connect_timeout(&wake, Duration::from_secs(1));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Answers one request on `c` and closes it. A client that sends nothing for a second is
/// dropped, so a stuck scraper cannot hold the endpoint.
fn serve(mut c: TcpStream, render: &Render) {
    let _ = c.set_read_timeout(Some(Duration::from_secs(1)));
    let _ = c.set_write_timeout(Some(Duration::from_secs(5)));
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        match c.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
        if buf.len() > 16 * 1024 {
            return;
        }
    }
    let head = String::from_utf8_lossy(&buf);
    let (status, ctype, body) = answer(&head, render);
    let _ = write!(
        c,
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    if !head.starts_with("HEAD ") {
        let _ = c.write_all(body.as_bytes());
    }
}

/// The status, content type and body that answer a request head.
fn answer(head: &str, render: &Render) -> (&'static str, &'static str, String) {
    let mut line = head.lines().next().unwrap_or("").split(' ');
    let (method, path) = (line.next().unwrap_or(""), line.next().unwrap_or(""));
    let path = path.split('?').next().unwrap_or("");
    if method != "GET" && method != "HEAD" {
        return (
            "405 Method Not Allowed",
            "text/plain",
            "GET /metrics\n".into(),
        );
    }
    if path != "/metrics" && path != "/" {
        return ("404 Not Found", "text/plain", "GET /metrics\n".into());
    }
    let om = head.lines().any(|l| {
        let l = l.to_ascii_lowercase();
        l.starts_with("accept:") && l.contains("application/openmetrics-text")
    });
    ("200 OK", expo::content_type(om), render(om))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(addr: SocketAddr, req: &str) -> String {
        let mut c = TcpStream::connect(addr).unwrap();
        c.write_all(req.as_bytes()).unwrap();
        let mut s = String::new();
        c.read_to_string(&mut s).unwrap();
        s
    }

    #[test]
    fn serves_pages_and_stops() {
        let render: Render = Box::new(|om| if om { "om\n# EOF\n" } else { "text\n" }.into());
        let e = Endpoint::start("127.0.0.1:0".parse().unwrap(), render).unwrap();
        let a = e.addr();
        let r = get(a, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(r.starts_with("HTTP/1.1 200 OK\r\n"), "{r}");
        assert!(r.contains("text/plain; version=0.0.4"), "{r}");
        assert!(r.ends_with("\r\n\r\ntext\n"), "{r}");
        let r = get(
            a,
            "GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text; version=1.0.0\r\n\r\n",
        );
        assert!(r.contains("application/openmetrics-text") && r.ends_with("# EOF\n"));
        assert!(get(a, "GET /nope HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404"));
        assert!(get(a, "POST / HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405"));
        // A silent client is dropped; the endpoint still answers the next one.
        let _idle = TcpStream::connect(a).unwrap();
        assert!(get(a, "GET / HTTP/1.1\r\n\r\n").contains("200 OK"));
        drop(e);
        assert!(TcpStream::connect(a).is_err());
    }
}

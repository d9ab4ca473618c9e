//! nginx as a real, independent server for the engine's tests: started on a free loopback
//! port with a configuration of the test's, stopped (and its directory removed) when dropped.
//! nginx must be installed in CI (`scripts/test` installs it); elsewhere a test skips with a
//! message when it is missing.

#![allow(dead_code)]

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The location every test serves.
pub const HELLO: &str = "location / { return 200 \"Hello, World!\"; }";

pub struct Nginx {
    child: Child,
    dir: PathBuf,
    pub port: u16,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // A failing test shows what nginx saw (a reset from nginx is its answer to something).
        if std::thread::panicking() {
            let log = std::fs::read_to_string(self.dir.join("error.log")).unwrap_or_default();
            eprintln!("nginx error.log ({} bytes):\n{log}", log.len());
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub fn nginx_binary() -> Option<PathBuf> {
    let p = Path::new("/usr/sbin/nginx");
    if p.exists() {
        return Some(p.into());
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("nginx"))
            .find(|p| p.exists())
    })
}

/// Starts nginx on a free loopback port with `server` inside its `server {}` block (after
/// the `listen` line, which `listen` completes, e.g. `""` or `" http2"`).
pub fn start_nginx(listen: &str, server: &str) -> Option<Nginx> {
    start_nginx_with("", listen, server)
}

/// A free loopback port (for a second `server` block of the test's).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// [`start_nginx`] with `http` added inside the `http {}` block (a `log_format`, another
/// `server`).
pub fn start_nginx_with(http: &str, listen: &str, server: &str) -> Option<Nginx> {
    let Some(bin) = nginx_binary() else {
        if std::env::var_os("CI").is_some() {
            panic!("nginx is not installed (scripts/test installs nginx-light)");
        }
        eprintln!("SKIPPED: nginx is not installed; install nginx-light to run this test");
        return None;
    };
    // A port picked by binding 0 and releasing it can be picked again by another test before
    // nginx binds it: then this nginx cannot bind, and a connect probe would reach the other
    // test's nginx, which resets every stream of this test when its own test stops it (seen
    // once: 40 streams reset). So nginx is ready only when it is *this* nginx that listens,
    // and a port lost to another process is given up for a new one.
    for _ in 0..5 {
        match try_start(&bin, http, listen, server) {
            Ok(ng) => return Some(ng),
            Err(log) if log.contains("Address already in use") => continue,
            Err(log) => panic!("nginx did not start:\n{log}"),
        }
    }
    panic!("nginx lost its port to another process five times");
}

/// Whether process `pid` holds a TCP socket listening on `port` (its fds against its
/// namespace's /proc/net/tcp).
fn listens(pid: u32, port: u16) -> bool {
    let inodes: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read_link(e.path()).ok())
        .filter_map(|l| {
            let l = l.to_string_lossy().into_owned();
            Some(l.strip_prefix("socket:[")?.strip_suffix(']')?.to_string())
        })
        .collect();
    let table = std::fs::read_to_string(format!("/proc/{pid}/net/tcp")).unwrap_or_default();
    table.lines().skip(1).any(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        f.len() > 9
            && f[3] == "0A"
            && f[1].rsplit(':').next() == Some(&format!("{port:04X}"))
            && inodes.iter().any(|i| i == f[9])
    })
}

fn try_start(bin: &Path, http: &str, listen: &str, server: &str) -> Result<Nginx, String> {
    let port = free_port();
    let dir = std::env::temp_dir().join(format!("barrage-nginx-{}-{port}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.display();
    let conf = format!(
        "daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\n\
         error_log {d}/error.log info;\nevents {{ worker_connections 1024; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n\
           fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n\
           keepalive_requests 1000000;\n  {http}\n\
           server {{\n    listen 127.0.0.1:{port}{listen};\n    {server}\n  }}\n}}\n"
    );
    let conf_path = dir.join("nginx.conf");
    std::fs::write(&conf_path, conf).unwrap();
    let child = Command::new(bin)
        .arg("-p")
        .arg(&dir)
        .arg("-c")
        .arg(&conf_path)
        .arg("-e")
        .arg(dir.join("error.log"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("nginx starts");
    let mut ng = Nginx { child, dir, port };
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let log = || std::fs::read_to_string(ng.dir.join("error.log")).unwrap_or_default();
        if matches!(ng.child.try_wait(), Ok(Some(_))) || log().contains("Address already in use") {
            return Err(log());
        }
        if listens(ng.child.id(), port) && TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(ng);
        }
        if Instant::now() >= deadline {
            return Err(format!("not listening after 10 s\n{}", log()));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A directory of a test's (its nginx log, its files), removed when dropped.
pub struct Dir(pub PathBuf);

impl Dir {
    pub fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("barrage-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }
    pub fn file(&self, name: &str, text: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An access log's lines, once nginx has written `want` of them (it writes after each response).
pub fn log_lines(log: &Path, want: usize) -> Vec<String> {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        if lines.len() >= want || std::time::Instant::now() > deadline {
            return lines;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

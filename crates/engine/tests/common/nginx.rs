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
    let ng = Nginx { child, dir, port };
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "nginx did not start listening");
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(ng)
}

//! The same load against nginx (a real, independent HTTP/1.1 server) gives status 200 and no
//! errors: keep-alive, pipelined, no keep-alive, open loop. nginx must be installed in CI
//! (`scripts/test` installs it); elsewhere the test skips with a message when it is missing.

use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, NullSink};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Nginx {
    child: Child,
    dir: PathBuf,
    port: u16,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn nginx_binary() -> Option<PathBuf> {
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

fn start_nginx() -> Option<Nginx> {
    let Some(bin) = nginx_binary() else {
        if std::env::var_os("CI").is_some() {
            panic!("nginx is not installed (scripts/test installs nginx-light)");
        }
        eprintln!("SKIPPED: nginx is not installed; install nginx-light to run this test");
        return None;
    };
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = std::env::temp_dir().join(format!("barrage-nginx-{}-{port}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.display();
    let conf = format!(
        "daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\n\
         error_log {d}/error.log;\nevents {{ worker_connections 1024; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n\
           fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n\
           keepalive_requests 1000000;\n\
           server {{\n    listen 127.0.0.1:{port};\n    location / {{ return 200 \"Hello, World!\"; }}\n  }}\n}}\n"
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

#[test]
fn nginx_gives_200_and_no_errors() {
    let Some(ng) = start_nginx() else { return };
    let base = Config {
        url: format!("http://127.0.0.1:{}/", ng.port),
        connections: 16,
        threads: 2,
        duration: Some(Duration::from_millis(700)),
        expect_status: Some(200),
        expect_body: Some(b"Hello, World!".to_vec()),
        ..Config::default()
    };
    let variants = [
        ("keep-alive", base.clone()),
        (
            "pipeline 16",
            Config {
                pipeline: 16,
                ..base.clone()
            },
        ),
        (
            "no keep-alive",
            Config {
                keepalive: false,
                ..base.clone()
            },
        ),
        (
            "open loop",
            Config {
                rate: Some(500.0),
                ..base.clone()
            },
        ),
    ];
    for (name, c) in variants {
        let r = run(&c.validate().unwrap(), &NullSink, &Cancel::new()).unwrap();
        assert!(r.requests > 50, "{name}: {} requests", r.requests);
        assert_eq!(
            r.errors.total, 0,
            "{name}: {:?} {:?}",
            r.errors, r.error_examples
        );
        assert_eq!(r.status.len(), 1, "{name}: {:?}", r.status);
        assert_eq!(r.status["200"], r.requests, "{name}");
        assert_eq!(
            r.requests_written,
            r.requests + r.in_flight,
            "{name}: counts add up"
        );
    }
}

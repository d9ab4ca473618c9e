//! HTTPS through rustls against `openssl s_server` with a self-signed certificate: `insecure`
//! loads it; verification against the webpki roots fails with an error naming the cause.
//! openssl must be installed in CI; elsewhere the test skips with a message when it is missing.

use barrage_engine::Validate as _;
use barrage_engine::{run, Cancel, Config, EngineError, NullSink};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Guard(Child, std::path::PathBuf);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
        let _ = std::fs::remove_dir_all(&self.1);
    }
}

fn start() -> Option<(Guard, u16)> {
    if !Path::new("/usr/bin/openssl").exists() {
        if std::env::var_os("CI").is_some() {
            panic!("openssl is not installed");
        }
        eprintln!("SKIPPED: openssl is not installed");
        return None;
    }
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = std::env::temp_dir().join(format!("barrage-tls-{}-{port}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (key, cert) = (dir.join("key.pem"), dir.join("cert.pem"));
    let ok = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
        ])
        .args(["-nodes", "-days", "1", "-subj", "/CN=localhost"])
        .args(["-addext", "subjectAltName=DNS:localhost"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(ok, "openssl req failed");
    let child = Command::new("openssl")
        .args(["s_server", "-quiet", "-www", "-accept"])
        .arg(format!("127.0.0.1:{port}"))
        .arg("-cert")
        .arg(&cert)
        .arg("-key")
        .arg(&key)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let g = Guard(child, dir);
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "s_server did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    Some((g, port))
}

#[test]
fn https_insecure_loads_and_verification_names_the_cause() {
    let Some((_g, port)) = start() else { return };
    let c = Config {
        url: format!("https://localhost:{port}/"),
        connections: 1,
        threads: 1,
        duration: Some(Duration::from_millis(800)),
        ..Config::default()
    };
    match run(&c.validate().unwrap(), &NullSink, &Cancel::new()) {
        Err(EngineError::Tls { cause, .. }) => {
            assert!(cause.contains("certificate"), "cause: {cause}");
        }
        other => panic!("expected a TLS error, got {:?}", other.map(|r| r.requests)),
    }
    let r = run(
        &Config {
            insecure: true,
            ..c
        }
        .validate()
        .unwrap(),
        &NullSink,
        &Cancel::new(),
    )
    .unwrap();
    assert!(r.requests > 3, "{} {:?}", r.requests, r.error_examples);
    assert_eq!(r.status.get("200"), Some(&r.requests));
    assert_eq!(r.errors.total(), 0, "{:?}", r.error_examples);
}

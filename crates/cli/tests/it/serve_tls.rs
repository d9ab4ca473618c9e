//! `barrage serve --tls` as a process: the two first lines, `barrage load https://... -k`
//! against it, and the flags' errors.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

fn barrage() -> Command {
    Command::new(env!("CARGO_BIN_EXE_barrage"))
}

/// Starts `barrage serve --tls` on port 0; returns the child, its address and its second line.
fn serve_tls() -> (Child, String, String) {
    let mut child = barrage()
        .args(["serve", "--addr", "127.0.0.1:0", "--threads", "1", "--tls"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("barrage starts");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let (mut first, mut second) = (String::new(), String::new());
    out.read_line(&mut first).unwrap();
    out.read_line(&mut second).unwrap();
    let addr = first
        .strip_suffix('\n')
        .and_then(|l| l.strip_prefix("listening on "))
        .unwrap_or_else(|| panic!("first line: {first:?}"));
    (child, addr.to_string(), second.trim_end().to_string())
}

fn stop(child: &mut Child) {
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    assert!(child.wait().unwrap().success());
}

#[test]
fn serve_tls_prints_the_fingerprint_and_barrage_load_insecure_works() {
    let (mut child, addr, second) = serve_tls();
    let fp = second
        .strip_prefix("tls: self-signed certificate, sha256 fingerprint ")
        .unwrap_or_else(|| panic!("second line: {second:?}"));
    assert_eq!(fp.len(), 32 * 3 - 1, "{fp}");
    assert!(
        fp.split(':').all(|h| h.len() == 2
            && h.chars()
                .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase())),
        "{fp}"
    );

    let url = format!("https://{addr}/");
    let out = barrage()
        .args([
            "load", &url, "-k", "-n", "200", "-c", "2", "-t", "1", "--json", "-",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["requests"], 200, "{stderr}");
    assert_eq!(doc["errors"]["total"], 0, "{stderr}");

    // Without -k the self-signed certificate is refused: the handshake verifies for real.
    let out = barrage()
        .args(["load", &url, "-n", "1", "-c", "1", "-t", "1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("certificate"), "{stderr}");
    stop(&mut child);
}

#[test]
fn serve_tls_flag_errors() {
    // --cert and --key go together, and only with --tls.
    for args in [
        &["serve", "--cert", "c.pem", "--key", "k.pem"][..],
        &["serve", "--tls", "--cert", "c.pem"],
        &["serve", "--tls", "--key", "k.pem"],
    ] {
        let out = barrage().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with("error: the following required arguments were not provided"),
            "{args:?}: {stderr}"
        );
    }
    // A file that cannot be read is named in one line.
    let missing = std::env::temp_dir().join("barrage-no-such-dir/cert.pem");
    let missing = missing.to_str().unwrap();
    let out = barrage()
        .args(["serve", "--addr", "127.0.0.1:0", "--tls", "--cert", missing])
        .args(["--key", missing])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(missing), "{stderr}");
    assert!(out.stdout.is_empty());
}

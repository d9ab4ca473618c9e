//! What the integration tests of several crates share, as a dev-dependency: finding a Python
//! that can import the independent peer a test talks to (Python's `websockets`, aioquic,
//! prometheus-client), or a Go toolchain that builds one (quic-go's HTTP/3 server, grpc-go's
//! peer: [`go_build`]), or any other program ([`tool`]: ghz, node), so that the lookup and its
//! rule for CI are written once; [`Proc`], a peer's process that a failing test does not
//! leave behind; and [`AccessLog`], an in-process server's access log read by its lines.

mod log;
pub use log::AccessLog;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A child process (a test's peer) killed and reaped when dropped, also when the test fails.
pub struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The Python that can run `import {modules}`: `$BARRAGE_TEST_PYTHON`, else the venv scripts/test
/// makes (`~/.cache/barrage-test-tools`), else `python3`. Without one, the test is skipped with
/// a `SKIPPED:` line naming `package` (`None`), except under CI (`$CI` set), where a missing
/// peer is a failure: scripts/test installs every one.
pub fn python(modules: &str, package: &str) -> Option<PathBuf> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let found = [
        std::env::var_os("BARRAGE_TEST_PYTHON").map(PathBuf::from),
        Some(home.join(".cache/barrage-test-tools/bin/python")),
        Some(PathBuf::from("python3")),
    ]
    .into_iter()
    .flatten()
    .find(|p| {
        Command::new(p)
            .args(["-c", &format!("import {modules}")])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    if found.is_none() {
        missing(&format!(
            "Python cannot import {modules} (pip install {package}; scripts/test installs it in \
             ~/.cache/barrage-test-tools)"
        ));
    }
    found
}

/// The rule for a peer a test cannot find: a `SKIPPED:` line saying `why`, except under CI
/// (`$CI` set), where it is a failure: scripts/test installs every peer.
pub fn missing(why: &str) {
    assert!(std::env::var_os("CI").is_none(), "{why}");
    eprintln!("SKIPPED: {why}");
}

/// The program `name` on PATH, else in Go's install directory (`~/go/bin`), else the first of
/// `also` that exists; without one, [`missing`], `install` saying how to get it.
pub fn tool(name: &str, also: &[PathBuf], install: &str) -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(name))
            .find(|f| f.is_file())
    });
    let go_bin = std::env::var_os("HOME").map(|h| PathBuf::from(h).join("go/bin").join(name));
    let found = on_path
        .into_iter()
        .chain(go_bin.filter(|f| f.is_file()))
        .chain(also.iter().filter(|f| f.is_file()).cloned())
        .next();
    if found.is_none() {
        missing(&format!("no {name} ({install}; scripts/test installs it)"));
    }
    found
}

/// [`python`] for a test that cannot be skipped: it fails without the peer.
pub fn python_required(modules: &str, package: &str) -> PathBuf {
    python(modules, package).unwrap_or_else(|| {
        panic!("Python cannot import {modules}: run scripts/test, which installs {package}")
    })
}

/// A Go toolchain of at least `major.minor` (`go` on PATH, else `/usr/local/go/bin/go`, where
/// the official tarball puts it). Without one, the test is skipped with a `SKIPPED:` line,
/// except under CI (`$CI` set), where it is a failure, as for [`python`].
pub fn go(min: (u32, u32)) -> Option<PathBuf> {
    let version = |go: &PathBuf| -> Option<(u32, u32)> {
        let out = Command::new(go).args(["env", "GOVERSION"]).output().ok()?;
        let v = String::from_utf8(out.stdout).ok()?;
        let mut parts = v.trim().strip_prefix("go")?.split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts
            .next()?
            .split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()?;
        Some((major, minor))
    };
    let found = [PathBuf::from("go"), PathBuf::from("/usr/local/go/bin/go")]
        .into_iter()
        .find(|g| version(g).is_some_and(|v| v >= min));
    if found.is_none() {
        missing(&format!(
            "no Go {}.{} or later (go on PATH or /usr/local/go/bin/go; https://go.dev/dl)",
            min.0, min.1
        ));
    }
    found
}

/// The Go program in the directory `src` built into `out` with a [`go`] of at least `min`
/// (`go build -trimpath`: Go's build cache makes every build after the first cost a fraction of
/// a second); `None` when the test is skipped for want of Go.
pub fn go_build(min: (u32, u32), src: &Path, out: &Path) -> Option<PathBuf> {
    let go = go(min)?;
    let built = Command::new(go)
        .current_dir(src)
        .args(["build", "-trimpath", "-o"])
        .arg(out)
        .arg(".")
        .status()
        .expect("go runs");
    assert!(built.success(), "go build of {} failed", src.display());
    Some(out.to_path_buf())
}

/// Live (not zombie) processes whose environment holds `token`: how a test finds what a process
/// it started went on to start, whatever those named themselves, whichever group or session or
/// PID namespace they moved to.
pub fn processes_with_env(token: &str) -> Vec<i32> {
    let needle = token.as_bytes();
    let alive = |pid: i32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
            let state = s
                .rsplit_once(')')
                .and_then(|(_, r)| r.trim_start().bytes().next());
            !matches!(state, Some(b'Z') | Some(b'X'))
        })
    };
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<i32>().ok())
        .filter(|&pid| alive(pid))
        .filter(|&pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.windows(needle.len()).any(|w| w == needle))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_module_no_python_has_is_not_found_and_sys_is() {
        // Outside CI only: under CI the first call fails by design.
        if std::env::var_os("CI").is_none() {
            assert!(super::python("barrage_no_such_module_x", "nothing").is_none());
        }
        if std::process::Command::new("python3")
            .arg("-V")
            .status()
            .is_ok()
        {
            assert!(super::python("sys", "python3").is_some());
        }
    }
}

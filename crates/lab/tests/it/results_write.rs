//! `results::write_atomic` on a disk that fills up while it writes: it fails with the path in its
//! error, the previous file is untouched, and no temporary file is left on the full disk.

use barrage_lab::results::write_atomic;
use std::ffi::CString;
use std::path::{Path, PathBuf};

/// A 64 KiB tmpfs mounted on a fresh directory (root only); unmounted and removed on drop.
struct TinyDisk(PathBuf);

impl TinyDisk {
    fn mount() -> Option<TinyDisk> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return None;
        }
        let dir = std::env::temp_dir().join(format!("barrage-full-disk-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok()?;
        let c = |s: &str| CString::new(s).unwrap();
        let target = c(dir.to_str()?);
        // SAFETY: every pointer is a valid NUL-terminated string that outlives the call.
        let r = unsafe {
            libc::mount(
                c("tmpfs").as_ptr(),
                target.as_ptr(),
                c("tmpfs").as_ptr(),
                0,
                c("size=64k").as_ptr().cast(),
            )
        };
        if r != 0 {
            let _ = std::fs::remove_dir(&dir);
            return None;
        }
        Some(TinyDisk(dir))
    }
}

impl Drop for TinyDisk {
    fn drop(&mut self) {
        let target = CString::new(self.0.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        unsafe { libc::umount2(target.as_ptr(), libc::MNT_DETACH) };
        let _ = std::fs::remove_dir(&self.0);
    }
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_write_that_fills_the_disk_leaves_no_temporary_file() {
    let Some(disk) = TinyDisk::mount() else {
        eprintln!("SKIPPED: mounting a tmpfs needs root");
        return;
    };
    let path = disk.0.join("results.json");
    write_atomic(&path, b"{\"trial\": 1}").unwrap();
    // 256 KiB into a 64 KiB disk: the write fails part way.
    let big = vec![b' '; 256 * 1024];
    let err = write_atomic(&path, &big).unwrap_err().to_string();
    assert!(err.contains("results.json"), "{err}");
    assert_eq!(names(&disk.0), vec!["results.json".to_string()]);
    assert_eq!(std::fs::read(&path).unwrap(), b"{\"trial\": 1}");
    // The disk has room again: the next write succeeds.
    write_atomic(&path, b"{\"trial\": 2}").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"{\"trial\": 2}");
}

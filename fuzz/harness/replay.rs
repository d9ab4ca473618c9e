//! Replays a fuzz target's kept inputs through its harness, for `cargo test`: the crash inputs
//! in fuzz/regressions/<target>/ and the seed corpus in fuzz/corpus/<target>/. A failing input
//! is named with its path and its bytes (escaped) before the harness's panic is passed on.

use std::path::{Path, PathBuf};

/// The repository's fuzz/ directory (the tests that include this run from crates/<crate>).
fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// Every file of fuzz/<kind>/<target>/, sorted (none if the directory is missing).
pub fn inputs(kind: &str, target: &str) -> Vec<PathBuf> {
    let dir = fuzz_dir().join(kind).join(target);
    let mut v: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect(),
        Err(_) => Vec::new(),
    };
    v.sort();
    v
}

/// Runs `run` on every regression and corpus input of `target`.
pub fn all(target: &str, run: fn(&[u8])) {
    let corpus = inputs("corpus", target);
    assert!(
        !corpus.is_empty(),
        "fuzz/corpus/{target} is empty or missing"
    );
    for path in inputs("regressions", target).into_iter().chain(corpus) {
        let data = std::fs::read(&path).unwrap();
        let shown: String = data.escape_ascii().to_string();
        if let Err(e) = std::panic::catch_unwind(|| run(&data)) {
            eprintln!(
                "{}: {} bytes: b\"{}\"",
                path.display(),
                data.len(),
                shown.chars().take(2000).collect::<String>()
            );
            std::panic::resume_unwind(e);
        }
    }
}

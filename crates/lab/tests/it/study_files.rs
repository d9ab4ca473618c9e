//! Every ready study under `studies/` parses, validates and expands into a non-empty sweep, so a
//! study file broken by a lab change fails here rather than in someone's long run.

use barrage_lab::{study, sweep};
use std::path::{Path, PathBuf};

/// `studies/*/*.toml` and `studies/*/*/*.toml` (pingpong's overload/) of the repository (two
/// levels up from this crate); contenders' own directories hold no study files but may hold
/// other TOML (Cargo.toml), so they are skipped.
fn study_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../studies");
    let mut files = Vec::new();
    for dir in std::fs::read_dir(&root).expect("studies/ exists") {
        let dir = dir.unwrap().path();
        if dir.is_dir() {
            collect(&dir, 1, &mut files);
        }
    }
    files.sort();
    files
}

fn collect(dir: &Path, depth: usize, files: &mut Vec<PathBuf>) {
    for f in std::fs::read_dir(dir).unwrap() {
        let f = f.unwrap().path();
        if f.is_dir() && depth == 1 && f.file_name().is_some_and(|n| n != "contenders") {
            collect(&f, depth + 1, files);
        } else if f.extension().is_some_and(|e| e == "toml") {
            files.push(f);
        }
    }
}

#[test]
fn study_files_parse_and_expand() {
    let files = study_files();
    assert!(!files.is_empty(), "no study files found under studies/");
    for f in &files {
        let s = study::load(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let points = sweep::points(&s).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert!(!points.is_empty(), "{}: no sweep points", f.display());
        assert!(!s.contenders.is_empty(), "{}: no contenders", f.display());
    }
}

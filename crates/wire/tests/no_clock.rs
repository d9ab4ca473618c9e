//! A guard beside the behavioural test (tests/h3_clock.rs): this crate is sans I/O on bytes and
//! time, so its code never reads a clock. Every source file under src/ is read, test code left
//! out (an item under `#[cfg(test)]`, a file its `mod name;` brings in, and every module inside
//! such a file), and a clock read in what is left fails the test with its place. A session that needs the time
//! takes the caller's `now`.

use std::path::{Path, PathBuf};

/// What reads a clock (`elapsed` is `Instant::now() - self`).
const READS: &[&str] = &["Instant::now", "SystemTime::now", ".elapsed()"];

/// The files a `mod name;` line declares (`name.rs` or `name/mod.rs` in `dir`), if it is one.
fn module_files(dir: &Path, line: &str) -> Option<[PathBuf; 2]> {
    let item = line.trim();
    let name = ["mod ", "pub mod ", "pub(crate) mod ", "pub(super) mod "]
        .iter()
        .find_map(|p| item.strip_prefix(p))?
        .strip_suffix(';')?;
    Some([
        dir.join(format!("{name}.rs")),
        dir.join(name).join("mod.rs"),
    ])
}

/// What one file holds: its code, without test items and comments, each line with its number;
/// the files of its `#[cfg(test)] mod name;` declarations; the files of its other ones.
struct Parsed {
    code: Vec<(usize, String)>,
    test_modules: Vec<PathBuf>,
    modules: Vec<PathBuf>,
}

fn code_of(path: &Path, text: &str) -> Parsed {
    // A module's children live in the directory named after it (or its own, for mod.rs and
    // lib.rs).
    let stem = path.file_stem().unwrap().to_str().unwrap();
    let dir = match stem {
        "mod" | "lib" => path.parent().unwrap().to_path_buf(),
        _ => path.with_extension(""),
    };
    let mut p = Parsed {
        code: Vec::new(),
        test_modules: Vec::new(),
        modules: Vec::new(),
    };
    let mut lines = text.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let line = line.split("//").next().unwrap_or("");
        if line.trim() != "#[cfg(test)]" {
            p.modules
                .extend(module_files(&dir, line).into_iter().flatten());
            p.code.push((n + 1, line.to_string()));
            continue;
        }
        // The item under it: a module in a file of its own, or braces to skip.
        let Some((_, item)) = lines.next() else { break };
        let item = item.trim();
        if let Some(files) = module_files(&dir, item) {
            p.test_modules.extend(files);
            continue;
        }
        let mut depth = 0i64;
        let mut opened = false;
        let mut count = |l: &str| {
            for c in l.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            opened && depth == 0 || !opened && l.trim_end().ends_with(';')
        };
        if count(item) {
            continue;
        }
        for (_, l) in lines.by_ref() {
            if count(l) {
                break;
            }
        }
    }
    p
}

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, into);
        } else if p.extension().is_some_and(|x| x == "rs") {
            into.push(p);
        }
    }
}

/// Clock reads in the crate's code (not its tests): `file:line: text` for each.
fn clock_reads(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let parsed: Vec<(PathBuf, Parsed)> = files
        .iter()
        .map(|f| (f.clone(), code_of(f, &std::fs::read_to_string(f).unwrap())))
        .collect();
    // Test files, and every module file inside one.
    let mut tests: Vec<PathBuf> = parsed
        .iter()
        .flat_map(|(_, p)| p.test_modules.clone())
        .collect();
    let mut k = 0;
    while k < tests.len() {
        if let Some((_, p)) = parsed.iter().find(|(f, _)| *f == tests[k]) {
            tests.extend(p.modules.iter().cloned());
        }
        k += 1;
    }
    let mut found = Vec::new();
    for (f, p) in parsed {
        if tests.contains(&f) {
            continue;
        }
        for (n, l) in p.code {
            if READS.iter().any(|r| l.contains(r)) {
                found.push(format!("{}:{n}: {}", f.display(), l.trim()));
            }
        }
    }
    found
}

#[test]
fn the_crate_reads_no_clock() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = clock_reads(&src);
    assert!(found.is_empty(), "clock reads:\n{}", found.join("\n"));
}

/// The guard itself: it finds a read in code, and none in test items, test files or comments.
#[test]
fn the_guard_sees_reads_in_code_only() {
    let dir = std::env::temp_dir().join(format!("barrage-no-clock-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(
        dir.join("lib.rs"),
        "mod a;\n// Instant::now() in a comment\n#[cfg(test)]\nmod tests;\n",
    )
    .unwrap();
    std::fs::write(dir.join("tests.rs"), "fn t() { let _ = Instant::now(); }\n").unwrap();
    let a = [
        "fn f() {",
        "    let t = x.elapsed();",
        "}",
        "#[cfg(test)]",
        "mod tests {",
        "    fn g() {",
        "        SystemTime::now();",
        "    }",
        "}",
        "fn h() { SystemTime::now(); }",
        "#[cfg(test)]",
        "mod b;",
        "mod c;",
    ];
    std::fs::write(dir.join("a.rs"), a.join("\n")).unwrap();
    // A test module, and a module inside it: test code too.
    std::fs::create_dir_all(dir.join("a/b")).unwrap();
    std::fs::write(dir.join("a/b.rs"), "mod d;\nfn u() { Instant::now(); }\n").unwrap();
    std::fs::write(dir.join("a/b/d.rs"), "fn v() { Instant::now(); }\n").unwrap();
    // A module of the code: code.
    std::fs::write(dir.join("a/c.rs"), "fn w() { Instant::now(); }\n").unwrap();
    let found = clock_reads(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let mut places: Vec<String> = found
        .iter()
        .map(|f| {
            f.rsplit('/')
                .next()
                .unwrap()
                .split(": ")
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    places.sort();
    assert_eq!(places, ["a.rs:10", "a.rs:2", "c.rs:1"], "{found:?}");
}

//! A guard beside the behavioural test (tests/h3_clock.rs): this crate is sans I/O on bytes and
//! time, so its code never reads a clock. Every source file under src/ is read, test code left
//! out (a file or an item under `#[cfg(test)]`, and the files its `mod name;` brings in), and
//! a clock read in what is left fails the test with its place. A session that needs the time
//! takes the caller's `now`.

use std::path::{Path, PathBuf};

/// What reads a clock (`elapsed` is `Instant::now() - self`).
const READS: &[&str] = &["Instant::now", "SystemTime::now", ".elapsed()"];

/// The code of `text`, without its test items and comments, each line with its number; and the
/// files of its `#[cfg(test)] mod name;` declarations.
fn code_of(path: &Path, text: &str) -> (Vec<(usize, String)>, Vec<PathBuf>) {
    // A module's children live in the directory named after it (or its own, for mod.rs and
    // lib.rs).
    let stem = path.file_stem().unwrap().to_str().unwrap();
    let dir = match stem {
        "mod" | "lib" => path.parent().unwrap().to_path_buf(),
        _ => path.with_extension(""),
    };
    let mut code = Vec::new();
    let mut test_files = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let line = line.split("//").next().unwrap_or("");
        if line.trim() != "#[cfg(test)]" {
            code.push((n + 1, line.to_string()));
            continue;
        }
        // The item under it: a module in a file of its own, or braces to skip.
        let Some((_, item)) = lines.next() else { break };
        let item = item.trim();
        if let Some(name) = item
            .strip_prefix("mod ")
            .or_else(|| item.strip_prefix("pub mod "))
            .and_then(|m| m.strip_suffix(';'))
        {
            test_files.push(dir.join(format!("{name}.rs")));
            test_files.push(dir.join(name).join("mod.rs"));
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
    (code, test_files)
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
    let mut tests = Vec::new();
    let mut found = Vec::new();
    let mut code = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let (c, t) = code_of(f, &text);
        code.push((f.clone(), c));
        tests.extend(t);
    }
    for (f, lines) in code {
        if tests.contains(&f) {
            continue;
        }
        for (n, l) in lines {
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
    ];
    std::fs::write(dir.join("a.rs"), a.join("\n")).unwrap();
    std::fs::write(dir.join("a/b.rs"), "fn u() { Instant::now(); }\n").unwrap();
    let found = clock_reads(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let places: Vec<String> = found
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
    assert_eq!(places, ["a.rs:2", "a.rs:10"], "{found:?}");
}

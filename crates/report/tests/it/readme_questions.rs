//! Every study README's "original vs here" table is the questions table its committed results
//! give (`barrage report --questions -f md`), between the markers
//! `<!-- questions: RESULTS -->` and `<!-- /questions -->` (RESULTS relative to the README):
//! a README cannot say what its results do not. `BARRAGE_BLESS=1` rewrites the tables from the
//! results.

use std::path::PathBuf;

const OPEN: &str = "<!-- questions: ";
const CLOSE: &str = "<!-- /questions -->";

/// Every README of `studies/` with its marked tables.
fn readmes() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../studies");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path().join("README.md"))
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

/// The README's text with each marked table replaced by the one its results give.
fn regenerated(readme: &std::path::Path, text: &str) -> (String, usize) {
    let dir = readme.parent().unwrap();
    let mut out = String::new();
    let mut rest = text;
    let mut n = 0;
    while let Some(i) = rest.find(OPEN) {
        let line_end = i + rest[i..].find("-->").expect("the opening marker closes") + 3;
        let file = rest[i + OPEN.len()..line_end - 3].trim();
        let close = rest[line_end..]
            .find(CLOSE)
            .unwrap_or_else(|| panic!("{}: {OPEN}{file} --> has no {CLOSE}", readme.display()))
            + line_end;
        let path = dir.join(file);
        let json = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {}: {e}", readme.display(), path.display()));
        let Ok(barrage_report::Input::Study(r)) = barrage_report::parse(&json) else {
            panic!(
                "{}: {} is not a study's results",
                readme.display(),
                path.display()
            );
        };
        assert!(
            !r.study.questions.is_empty(),
            "{}: {} declares no question",
            readme.display(),
            path.display()
        );
        out.push_str(&rest[..line_end]);
        out.push('\n');
        out.push_str(&barrage_report::questions::markdown(&r));
        out.push_str(CLOSE);
        rest = &rest[close + CLOSE.len()..];
        n += 1;
    }
    out.push_str(rest);
    (out, n)
}

#[test]
fn readme_tables_are_the_results_questions() {
    let bless = std::env::var_os("BARRAGE_BLESS").is_some();
    let mut tables = 0;
    for readme in readmes() {
        let text = std::fs::read_to_string(&readme).unwrap();
        let (want, n) = regenerated(&readme, &text);
        tables += n;
        if bless {
            if want != text {
                std::fs::write(&readme, &want).unwrap();
            }
            continue;
        }
        if want != text {
            let (a, b): (Vec<&str>, Vec<&str>) = (text.lines().collect(), want.lines().collect());
            let first = a
                .iter()
                .zip(&b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            panic!(
                "{}: its questions table differs from its results' at line {} (BARRAGE_BLESS=1 \
                 rewrites it):\n  README: {}\n results: {}",
                readme.display(),
                first + 1,
                a.get(first).unwrap_or(&"(end)"),
                b.get(first).unwrap_or(&"(end)")
            );
        }
    }
    // The fanout study at least answers its original by questions.
    assert!(tables >= 1, "no README holds a questions table");
}

/// The check itself can fail: a README whose table differs by one verdict is caught.
#[test]
fn a_changed_table_is_caught() {
    let readme = readmes()
        .into_iter()
        .find(|r| std::fs::read_to_string(r).unwrap().contains(OPEN))
        .expect("a README with a questions table");
    let text = std::fs::read_to_string(&readme).unwrap();
    let (want, _) = regenerated(&readme, &text);
    let tampered = want.replacen("| agrees", "| disagrees", 1);
    assert_ne!(tampered, want, "the table has an agreeing row to change");
    let (again, _) = regenerated(&readme, &tampered);
    assert_eq!(again, want, "regenerating restores the results' table");
    assert_ne!(again, tampered);
}

//! The targets-file parsers (`barrage_engine::targets`: vegeta's `http` and `json` formats, and
//! body-lines files) and the URL parser the run resolves each target with.
//!
//! Input: a control byte (the format: `http`, `json` or body lines), then the file's text.
//!
//! Checked: no panic; an error names a line of the file; every target parsed has a token method,
//! a URL without spaces, token header names and trimmed values, and rising lines; what was
//! parsed, written back in the same format, parses to the same targets; body lines are the
//! file's lines; a URL that parses has a host, a port and a path starting with `/`.

use barrage_engine::parse_url;
use barrage_engine::targets::{body_lines, parse_http, parse_json, TargetSpec};
use base64::Engine as _;

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// A body file's contents are its name (so a written-back `@name` reads the same), except one
/// that is missing.
fn read_body(p: &str) -> Result<Vec<u8>, String> {
    if p == "missing" {
        return Err(format!("cannot read body file {p}"));
    }
    Ok(p.as_bytes().to_vec())
}

fn check_specs(specs: &[TargetSpec], lines: usize) {
    let mut last = 0;
    for t in specs {
        assert!(
            t.line > last && t.line <= lines,
            "line {} of {lines}",
            t.line
        );
        last = t.line;
        assert!(
            !t.method.is_empty() && t.method.bytes().all(is_tchar),
            "{:?}",
            t.method
        );
        assert!(
            !t.url.is_empty() && !t.url.contains(char::is_whitespace),
            "{:?}",
            t.url
        );
        for (n, v) in &t.headers {
            assert!(!n.is_empty() && n.bytes().all(is_tchar), "{n:?}");
            let _ = v;
        }
        url(&t.url);
    }
}

/// A URL as the run resolves it: absolute, or a path on the run's origin.
fn url(u: &str) {
    let full = if u.starts_with('/') {
        format!("http://127.0.0.1:8080{u}")
    } else {
        u.to_string()
    };
    if let Ok(t) = parse_url(&full) {
        assert!(t.path.starts_with('/'), "{full:?}: path {:?}", t.path);
        assert!(!t.path.contains('#'), "{full:?}: path {:?}", t.path);
        assert!(!t.host.is_empty() && t.port != 0, "{full:?}");
        assert!(!t.authority.contains('@'), "{full:?}");
    }
}

fn without_lines(specs: &[TargetSpec]) -> Vec<TargetSpec> {
    specs
        .iter()
        .map(|t| TargetSpec {
            line: 0,
            ..t.clone()
        })
        .collect()
}

/// The targets written back in the `http` format.
fn write_http(specs: &[TargetSpec]) -> String {
    let mut s = String::new();
    for t in specs {
        s.push_str(&format!("{} {}\n", t.method, t.url));
        for (n, v) in &t.headers {
            s.push_str(&format!("{n}: {v}\n"));
        }
        if !t.body.is_empty() {
            s.push('@');
            s.push_str(std::str::from_utf8(&t.body).expect("bodies are their file names"));
            s.push('\n');
        }
        s.push('\n');
    }
    s
}

/// The targets written back as JSON lines.
fn write_json(specs: &[TargetSpec]) -> String {
    let mut s = String::new();
    for t in specs {
        let mut header = serde_json::Map::new();
        for (n, v) in &t.headers {
            header
                .entry(n.clone())
                .or_insert_with(|| serde_json::Value::Array(Vec::new()))
                .as_array_mut()
                .expect("an array")
                .push(serde_json::Value::String(v.clone()));
        }
        let mut o = serde_json::json!({"method": t.method, "url": t.url, "header": header});
        if !t.body.is_empty() {
            o["body"] = base64::engine::general_purpose::STANDARD
                .encode(&t.body)
                .into();
        }
        s.push_str(&o.to_string());
        s.push('\n');
    }
    s
}

pub fn run(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let lines = text.lines().count();
    match mode % 3 {
        0 => match parse_http(&text, read_body) {
            Ok(specs) => {
                check_specs(&specs, lines);
                let again =
                    parse_http(&write_http(&specs), read_body).expect("targets written back parse");
                assert_eq!(without_lines(&again), without_lines(&specs));
            }
            Err((line, why)) => assert!(line >= 1 && line <= lines, "{line}: {why}"),
        },
        1 => match parse_json(&text) {
            Ok(specs) => {
                check_specs(&specs, lines);
                let again = parse_json(&write_json(&specs)).expect("targets written back parse");
                assert_eq!(without_lines(&again), without_lines(&specs));
            }
            Err((line, why)) => assert!(line >= 1 && line <= lines, "{line}: {why}"),
        },
        _ => {
            let got = body_lines(rest);
            let newlines = rest.iter().filter(|&&b| b == b'\n').count();
            let want = newlines + usize::from(!rest.is_empty() && !rest.ends_with(b"\n"));
            assert_eq!(got.len(), want);
            assert!(got.iter().all(|l| !l.contains(&b'\n')));
            let mut joined = got.join(&b"\n"[..]);
            if rest.ends_with(b"\n") {
                joined.push(b'\n');
            }
            let bare: Vec<u8> = rest
                .split(|&b| b == b'\n')
                .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
                .collect::<Vec<_>>()
                .join(&b"\n"[..]);
            assert_eq!(joined, bare);
        }
    }
}

//! Targets files (`--targets`) and body files (`--body-lines`): read once before the run and
//! turned into the requests the run encodes once. Two formats, as vegeta reads them:
//!
//! - `http`: a `METHOD URL` line, then header lines (`Name: value`), then an optional `@path`
//!   body file (relative to the targets file's directory), with blank lines between targets and
//!   `#` comments;
//! - `json`: one object per line, `{"method", "url", "header": {name: [values]}, "body": base64}`.
//!
//! A bad file is an error naming `FILE:LINE`. The parsers are pure (the body files come through
//! a reader function) so tables test them.

use base64::Engine as _;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// One request of a targets file, as written (the URL may be a path only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetSpec {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Where the target starts in its file (1-based).
    pub line: usize,
}

/// A file format of targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Http,
    Json,
}

impl Format {
    /// `http` or `json` as given, else by the file's extension (`.json`, `.jsonl`, `.ndjson`).
    pub fn choose(given: Option<&str>, path: &str) -> Result<Format, String> {
        match given {
            Some("http") => Ok(Format::Http),
            Some("json") => Ok(Format::Json),
            Some(other) => Err(format!(
                "unknown targets format {other:?} (expected http or json)"
            )),
            None => {
                let ext = Path::new(path).extension().and_then(|e| e.to_str());
                Ok(match ext {
                    Some("json" | "jsonl" | "ndjson") => Format::Json,
                    _ => Format::Http,
                })
            }
        }
    }
}

/// Reads and parses a targets file; errors are one line, `FILE:LINE: why` (or `FILE: why`).
pub fn load(path: &str, format: Format) -> Result<Vec<TargetSpec>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let dir = Path::new(path).parent().unwrap_or(Path::new("."));
    let parsed = match format {
        Format::Http => parse_http(&text, |p| {
            let p = dir.join(p);
            std::fs::read(&p).map_err(|e| format!("cannot read body file {}: {e}", p.display()))
        }),
        Format::Json => parse_json(&text),
    };
    let targets = parsed.map_err(|(line, why)| format!("{path}:{line}: {why}"))?;
    if targets.is_empty() {
        return Err(format!("{path}: no targets in the file"));
    }
    Ok(targets)
}

/// Reads a body-lines file: one body per line (without its line end); empty lines are bodies
/// too, except a last empty one after the final newline.
pub fn load_body_lines(path: &str) -> Result<Vec<Vec<u8>>, String> {
    let data = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let lines = body_lines(&data);
    if lines.is_empty() {
        return Err(format!("{path}: no lines in the file"));
    }
    Ok(lines)
}

/// The lines of `data` as bodies (`\n` or `\r\n` ends).
pub fn body_lines(data: &[u8]) -> Vec<Vec<u8>> {
    let mut lines: Vec<Vec<u8>> = data
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec())
        .collect();
    if data.ends_with(b"\n") || data.is_empty() {
        lines.pop();
    }
    lines
}

/// vegeta's `http` format. `read_body` reads an `@path` body file.
pub fn parse_http(
    text: &str,
    mut read_body: impl FnMut(&str) -> Result<Vec<u8>, String>,
) -> Result<Vec<TargetSpec>, (usize, String)> {
    let mut out: Vec<TargetSpec> = Vec::new();
    // The target being read: after its request line, whether its body was given.
    let mut cur: Option<(TargetSpec, bool)> = None;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if line.starts_with('#') {
            continue;
        }
        if line.is_empty() {
            if let Some((t, _)) = cur.take() {
                out.push(t);
            }
            continue;
        }
        // A request line ends the target before it even without a blank line (a list of
        // `GET URL` lines is a targets file); a header's name has no space before its colon.
        if cur.is_some() && looks_like_request_line(line) {
            if let Some((t, _)) = cur.take() {
                out.push(t);
            }
        }
        match cur.as_mut() {
            None => cur = Some((request_line(line, n)?, false)),
            Some((_, true)) => {
                return Err((
                    n,
                    "only a new target may follow a target's @body line".into(),
                ));
            }
            Some((t, has_body)) => {
                if let Some(p) = line.strip_prefix('@') {
                    t.body = read_body(p.trim()).map_err(|e| (n, e))?;
                    *has_body = true;
                } else {
                    let Some((name, value)) = line.split_once(':') else {
                        return Err((n, format!("header {line:?} has no colon")));
                    };
                    let name = name.trim();
                    let value = value.trim();
                    if name.is_empty() || !name.bytes().all(is_tchar) {
                        return Err((n, format!("bad header name {name:?}")));
                    }
                    t.headers.push((name.to_string(), value.to_string()));
                }
            }
        }
    }
    if let Some((t, _)) = cur.take() {
        out.push(t);
    }
    Ok(out)
}

/// `METHOD URL`, the start of a target.
fn request_line(line: &str, n: usize) -> Result<TargetSpec, (usize, String)> {
    let (method, url) = match line.split_once(char::is_whitespace) {
        Some((m, u)) => (m, u.trim()),
        None => (line, ""),
    };
    if !method.bytes().all(is_tchar) {
        return Err((n, format!("bad method {method:?}")));
    }
    if url.is_empty() {
        return Err((n, format!("{method:?} has no URL (expected METHOD URL)")));
    }
    if url.contains(char::is_whitespace) {
        return Err((n, format!("bad URL {url:?} (contains spaces)")));
    }
    Ok(TargetSpec {
        method: method.to_string(),
        url: url.to_string(),
        headers: Vec::new(),
        body: Vec::new(),
        line: n,
    })
}

/// `TOKEN URL` where the URL is absolute (`http://`, `https://`) or a path.
fn looks_like_request_line(line: &str) -> bool {
    let Some((m, u)) = line.split_once(char::is_whitespace) else {
        return false;
    };
    let u = u.trim_start();
    !m.is_empty()
        && m.bytes().all(is_tchar)
        && (u.starts_with("http://") || u.starts_with("https://") || u.starts_with('/'))
}

/// One JSON line, as vegeta writes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonTarget {
    #[serde(default)]
    method: Option<String>,
    url: String,
    #[serde(default)]
    header: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    body: Option<String>,
}

/// JSON lines: one target per non-blank line.
pub fn parse_json(text: &str) -> Result<Vec<TargetSpec>, (usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let t: JsonTarget = serde_json::from_str(line).map_err(|e| {
            // serde says "at line 1 column C"; the file's line is ours.
            let msg = e.to_string();
            let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
            (n, msg)
        })?;
        let method = t.method.unwrap_or_else(|| "GET".into());
        if method.is_empty() || !method.bytes().all(is_tchar) {
            return Err((n, format!("bad method {method:?}")));
        }
        if t.url.is_empty() || t.url.contains(char::is_whitespace) {
            return Err((n, format!("bad URL {:?}", t.url)));
        }
        let mut headers = Vec::new();
        for (name, values) in t.header {
            if name.is_empty() || !name.bytes().all(is_tchar) {
                return Err((n, format!("bad header name {name:?}")));
            }
            for v in values {
                headers.push((name.clone(), v));
            }
        }
        let body = match t.body {
            None => Vec::new(),
            Some(b) => base64::engine::general_purpose::STANDARD
                .decode(b.as_bytes())
                .map_err(|e| (n, format!("body is not base64: {e}")))?,
        };
        out.push(TargetSpec {
            method,
            url: t.url,
            headers,
            body,
            line: n,
        });
    }
    Ok(out)
}

pub(crate) use barrage_model::load::is_tchar;

/// A reproducible shuffle of `0..n` from `seed`: Fisher-Yates over splitmix64. Written here
/// rather than taken from `rand` so that a seed names the same order in every barrage version
/// (rand's generators are free to change between releases).
pub fn shuffled(n: usize, seed: u64) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n as u32).collect();
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in (1..n).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}

#[cfg(test)]
mod tests;

//! The text a script's `request()` returns, as requests: HTTP/1.1 heads (httparse) each with
//! the body its `content-length` gives; several back to back are a pipelined batch (wrk's
//! pipeline.lua), answered as several responses.

/// One request a script asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    /// The request target as written (`/path?query`).
    pub path: String,
    /// Header fields in order, names as written (wrk.format writes them in lower case).
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// Parses `text` into its requests (at least one).
pub fn parse_requests(mut text: &[u8]) -> Result<Vec<Request>, String> {
    let mut out = Vec::new();
    while !text.is_empty() || out.is_empty() {
        let mut fields = [httparse::EMPTY_HEADER; 64];
        let mut req = httparse::Request::new(&mut fields);
        let n = match req.parse(text) {
            Ok(httparse::Status::Complete(n)) => n,
            Ok(httparse::Status::Partial) => {
                return Err(format!("request {} is cut short", out.len() + 1))
            }
            Err(e) => return Err(format!("request {}: {e}", out.len() + 1)),
        };
        let mut len = 0usize;
        let mut headers = Vec::with_capacity(req.headers.len());
        for h in req.headers.iter() {
            let value = String::from_utf8_lossy(h.value).into_owned();
            if h.name.eq_ignore_ascii_case("content-length") {
                len = value
                    .trim()
                    .parse()
                    .map_err(|_| format!("request {}: content-length {value:?}", out.len() + 1))?;
            }
            headers.push((h.name.to_owned(), value));
        }
        let rest = &text[n..];
        if rest.len() < len {
            return Err(format!(
                "request {}: a body of {} bytes where content-length says {len}",
                out.len() + 1,
                rest.len()
            ));
        }
        out.push(Request {
            method: req.method.unwrap_or("GET").to_owned(),
            path: req.path.unwrap_or("/").to_owned(),
            headers,
            body: rest[..len].to_vec(),
        });
        text = &rest[len..];
    }
    Ok(out)
}

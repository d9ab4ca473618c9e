//! The text a script's `request()` returns, as requests: HTTP/1.1 heads (the server's parser)
//! each with the body its `content-length` gives; several back to back are a pipelined batch (wrk's
//! pipeline.lua), answered as several responses.

/// One request a script asked for: the type every protocol's session sends (its target as
/// written, header fields in order with names as written, the body its `content-length` gave).
pub use barrage_wire::client::Request;

/// The largest head a script's request may have (as barrage serve's own limit).
const MAX_HEAD: usize = 64 * 1024;

/// Parses `text` into its requests (at least one), with the server's own request parser
/// (`barrage_wire::parse_request_head`: the same checks and framing as `barrage serve`).
pub fn parse_requests(text: &[u8]) -> Result<Vec<Request>, String> {
    Ok(split_requests(text)?.into_iter().map(|(r, _)| r).collect())
}

/// Where each request of `all` lies (its head and body) and whether it is a HEAD, into `out`
/// (cleared first), with the checks of [`parse_requests`] but nothing copied: what an HTTP/1.1
/// connection needs to send the text as it is, as wrk does, for every `request()` call.
pub fn request_spans(
    all: &[u8],
    out: &mut Vec<(std::ops::Range<usize>, bool)>,
) -> Result<(), String> {
    out.clear();
    walk(all, |head, span| {
        out.push((span, head.method.eq_ignore_ascii_case("HEAD")));
    })
}

/// As [`parse_requests`], with where each request lies in `text` (its head and body).
pub fn split_requests(all: &[u8]) -> Result<Vec<(Request, std::ops::Range<usize>)>, String> {
    let mut out = Vec::new();
    walk(all, |head, span| {
        let body = all[span.start + head.head_len..span.end].to_vec();
        out.push((
            Request {
                method: head.method.to_owned(),
                path: head.target.to_owned(),
                headers: head
                    .headers
                    .iter()
                    .map(|h| {
                        (
                            h.name.to_owned(),
                            String::from_utf8_lossy(h.value).into_owned(),
                        )
                    })
                    .collect(),
                body,
            },
            span,
        ));
    })?;
    Ok(out)
}

/// Parses each request of `all` in turn, handing its head and span to `each`.
fn walk(
    all: &[u8],
    mut each: impl FnMut(&barrage_wire::RequestHead<'_, '_>, std::ops::Range<usize>),
) -> Result<(), String> {
    let mut text = all;
    let mut n = 0;
    while !text.is_empty() || n == 0 {
        n += 1;
        let mut slots = barrage_wire::header_slots();
        let head = match barrage_wire::parse_request_head(text, &mut slots, MAX_HEAD) {
            Ok(Some(h)) => h,
            Ok(None) => return Err(format!("request {n} is cut short")),
            Err(e) => return Err(format!("request {n}: {e}")),
        };
        let len = match head.framing {
            barrage_wire::Framing::Length(len) => usize::try_from(len).unwrap_or(usize::MAX),
            barrage_wire::Framing::Chunked => {
                return Err(format!(
                    "request {n}: a chunked body (give a content-length)"
                ))
            }
            _ => 0,
        };
        let rest = &text[head.head_len..];
        if rest.len() < len {
            return Err(format!(
                "request {n}: a body of {} bytes where content-length says {len}",
                rest.len()
            ));
        }
        let at = all.len() - text.len();
        each(&head, at..at + head.head_len + len);
        text = &rest[len..];
    }
    Ok(())
}

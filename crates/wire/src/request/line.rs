//! What the C parsers let through and httparse does not, checked on their tokens so that every
//! parser accepts exactly the same heads: a request line that is exactly `METHOD SP target SP
//! HTTP/1.0|1.1 CRLF` (httparse's byte classes for method and target, a UTF-8 target), header
//! names that are RFC 9110 tokens, header values with trailing whitespace trimmed, and leading
//! empty lines only as CRLF pairs. Each check looks at a few bytes of a token the parser already
//! found, so it costs little next to the parse.

use crate::WireError;

/// tchar (RFC 9110): methods and header names. The same set as httparse's.
static TOKEN: [bool; 256] = {
    let mut map = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        map[b] = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'!' | b'#'
                    | b'$'
                    | b'%'
                    | b'&'
                    | b'\''
                    | b'*'
                    | b'+'
                    | b'-'
                    | b'.'
                    | b'^'
                    | b'_'
                    | b'`'
                    | b'|'
                    | b'~'
            );
        b += 1;
    }
    map
};

/// The bytes httparse accepts in a request target: visible ASCII and 0x80-0xFF.
fn is_target_byte(b: u8) -> bool {
    (b'!'..=0x7e).contains(&b) || b >= 0x80
}

/// How many bytes of CRLF pairs open `buf` (empty lines before a request, which httparse
/// skips; the C parsers are handed what follows them).
pub(super) fn leading_crlfs(buf: &[u8]) -> usize {
    let mut n = 0;
    while buf.get(n..n + 2) == Some(b"\r\n") {
        n += 2;
    }
    n
}

/// Checks the request line of `head` (which starts with the method): the method is
/// `head[..method_end]`, the target `head[target.0..target.0 + target.1]`. Returns the method,
/// the target and the minor version.
pub(super) fn request_line(
    head: &[u8],
    method_end: usize,
    target: (usize, usize),
) -> Result<(&str, &str, u8), WireError> {
    let bad = WireError::Head("invalid request line");
    let method = &head[..method_end];
    if method.is_empty() || !method.iter().all(|&b| TOKEN[b as usize]) {
        return Err(WireError::Head("invalid token"));
    }
    let (start, len) = target;
    if head.get(method_end) != Some(&b' ') || start != method_end + 1 {
        return Err(bad);
    }
    let target = head.get(start..start + len).ok_or(bad.clone())?;
    if target.is_empty() || !target.iter().all(|&b| is_target_byte(b)) {
        return Err(WireError::Head("invalid token"));
    }
    let target = std::str::from_utf8(target).map_err(|_| WireError::Head("invalid token"))?;
    let version = head.get(start + len..start + len + 10).ok_or(bad.clone())?;
    let minor = match version {
        [b' ', b'H', b'T', b'T', b'P', b'/', b'1', b'.', d @ (b'0' | b'1'), b'\r' | b'\n'] => {
            d - b'0'
        }
        _ => return Err(WireError::Head("invalid HTTP version")),
    };
    // tchar only, hence ASCII: this cannot fail.
    let method = std::str::from_utf8(method).map_err(|_| bad)?;
    Ok((method, target, minor))
}

/// True when some CR in `head` is not followed by LF (httparse refuses it anywhere in a head;
/// non-strict http-parser takes any byte after the CR that ends a line).
#[cfg(feature = "parser-http-parser")]
pub(super) fn has_lone_cr(head: &[u8]) -> bool {
    let Some((&last, _)) = head.split_last() else {
        return false;
    };
    // Branch-free, like the bare-LF check, so it vectorises.
    let lone = head.iter().zip(&head[1..]).fold(false, |acc, (&b, &next)| {
        acc | ((b == b'\r') & (next != b'\n'))
    });
    lone || last == b'\r'
}

/// A header name: one or more tchar.
pub(super) fn header_name(name: &[u8]) -> Result<&str, WireError> {
    if name.is_empty() || !name.iter().all(|&b| TOKEN[b as usize]) {
        return Err(WireError::Head("invalid header name"));
    }
    std::str::from_utf8(name).map_err(|_| WireError::Head("invalid header name"))
}

/// A header value's bytes as httparse allows them: HTAB, SP, visible ASCII and 0x80-0xFF (not
/// checked by http-parser on a value's first byte).
#[cfg(feature = "parser-http-parser")]
pub(super) fn header_value(value: &[u8]) -> Result<&[u8], WireError> {
    if value
        .iter()
        .all(|&b| b == b'\t' || (b' '..=0x7e).contains(&b) || b >= 0x80)
    {
        Ok(value)
    } else {
        Err(WireError::Head("invalid header value"))
    }
}

/// A header value without trailing spaces and tabs (as httparse gives it).
pub(super) fn trim_value(value: &[u8]) -> &[u8] {
    let end = value
        .iter()
        .rposition(|&b| b != b' ' && b != b'\t')
        .map_or(0, |i| i + 1);
    &value[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_lines() {
        assert_eq!(
            request_line(b"GET /a?b HTTP/1.1\r\n", 3, (4, 4)),
            Ok(("GET", "/a?b", 1))
        );
        assert_eq!(
            request_line(b"M * HTTP/1.0\n", 1, (2, 1)),
            Ok(("M", "*", 0))
        );
        let err = |line: &[u8], m: usize, t: (usize, usize)| request_line(line, m, t).is_err();
        assert!(err(b"GET  / HTTP/1.1\r\n", 3, (5, 1)));
        assert!(err(b"GET\t/ HTTP/1.1\r\n", 3, (4, 1)));
        assert!(err(b"GET / HTTP/1.2\r\n", 3, (4, 1)));
        assert!(err(b"GET / HTTP/1.10\r\n", 3, (4, 1)));
        assert!(err(b"GET / HTTP/2.0\r\n", 3, (4, 1)));
        assert!(err(b"GET / HTTP/1.1 \r\n", 3, (4, 1)));
        assert!(err(b"G@T / HTTP/1.1\r\n", 3, (4, 1)));
        assert!(err(b" / HTTP/1.1\r\n", 0, (1, 1)));
        assert!(err(b"GET /\x7f HTTP/1.1\r\n", 3, (4, 2)));
        assert!(err(b"GET /\xff HTTP/1.1\r\n", 3, (4, 2)));
        assert!(err(b"GET / HTTP/1.1", 3, (4, 1)));
    }

    #[test]
    fn names_values_and_empty_lines() {
        assert_eq!(header_name(b"X-Y"), Ok("X-Y"));
        assert!(header_name(b"Host ").is_err());
        assert!(header_name(b"").is_err());
        assert!(header_name(b"a\xc3\xa9").is_err());
        assert!(has_lone_cr(b"GET / HTTP/1.1\r\n\r "));
        assert!(has_lone_cr(b"a\r"));
        assert!(!has_lone_cr(b"a\r\nb\n\r\n"));
        assert!(!has_lone_cr(b""));
        assert_eq!(header_value(b"a\tb \xff"), Ok(&b"a\tb \xff"[..]));
        assert!(header_value(b"\0a").is_err());
        assert!(header_value(b"a\x7f").is_err());
        assert_eq!(trim_value(b"a b \t "), b"a b");
        assert_eq!(trim_value(b" \t"), b"");
        assert_eq!(leading_crlfs(b"\r\n\r\nGET"), 4);
        assert_eq!(leading_crlfs(b"\r\n\nGET"), 2);
        assert_eq!(leading_crlfs(b"\rGET"), 0);
    }
}

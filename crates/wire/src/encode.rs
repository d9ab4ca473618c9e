//! Client side: encoding a request once, so the engine can write the same bytes over and over.

/// What to send. [`RequestSpec::encode`] turns it into the exact bytes on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestSpec {
    pub method: String,
    /// Value of the Host header (`host` or `host:port`), used unless `headers` has its own Host.
    pub host: String,
    /// Request target: path and query, starting with `/`.
    pub path: String,
    /// Extra header lines, in order, as given by the user.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// false adds `Connection: close`.
    pub keep_alive: bool,
}

impl RequestSpec {
    /// The request's bytes. Host comes first unless the user gave one; Content-Length is always
    /// right for the body (a user-given one is replaced), and is sent for an empty body only with
    /// methods that normally carry one.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128 + self.body.len());
        out.extend_from_slice(self.method.as_bytes());
        out.push(b' ');
        out.extend_from_slice(self.path.as_bytes());
        out.extend_from_slice(b" HTTP/1.1\r\n");
        let has = |name: &str| {
            self.headers
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case(name))
        };
        if !has("host") {
            push_header(&mut out, "Host", &self.host);
        }
        for (name, value) in &self.headers {
            if name.eq_ignore_ascii_case("content-length") {
                continue;
            }
            if !self.keep_alive && name.eq_ignore_ascii_case("connection") {
                continue;
            }
            push_header(&mut out, name, value);
        }
        let bodied_method = matches!(self.method.as_str(), "POST" | "PUT" | "PATCH");
        if !self.body.is_empty() || bodied_method {
            push_header(&mut out, "Content-Length", &self.body.len().to_string());
        }
        if !self.keep_alive {
            push_header(&mut out, "Connection", "close");
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&self.body);
        out
    }
}

fn push_header(out: &mut Vec<u8>, name: &str, value: &str) {
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b": ");
    out.extend_from_slice(value.as_bytes());
    out.extend_from_slice(b"\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> RequestSpec {
        RequestSpec {
            method: "GET".into(),
            host: "127.0.0.1:8080".into(),
            path: "/a?b=c".into(),
            headers: vec![],
            body: vec![],
            keep_alive: true,
        }
    }

    #[test]
    fn get() {
        assert_eq!(
            spec().encode(),
            b"GET /a?b=c HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n".to_vec()
        );
    }

    #[test]
    fn post_with_headers_and_close() {
        let s = RequestSpec {
            method: "POST".into(),
            headers: vec![
                ("X-A".into(), "1".into()),
                ("content-length".into(), "999".into()),
                ("Host".into(), "example".into()),
            ],
            body: b"ping".to_vec(),
            keep_alive: false,
            ..spec()
        };
        assert_eq!(
            String::from_utf8(s.encode()).unwrap(),
            "POST /a?b=c HTTP/1.1\r\nX-A: 1\r\nHost: example\r\nContent-Length: 4\r\nConnection: close\r\n\r\nping"
        );
    }

    #[test]
    fn empty_post_has_zero_length() {
        let s = RequestSpec {
            method: "POST".into(),
            ..spec()
        };
        assert!(String::from_utf8(s.encode())
            .unwrap()
            .contains("Content-Length: 0\r\n"));
    }
}

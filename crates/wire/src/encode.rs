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
    /// HTTP/1.1: false adds `Connection: close`. HTTP/1.0: true adds `Connection: keep-alive`.
    pub keep_alive: bool,
    /// 1 for HTTP/1.1, 0 for HTTP/1.0 (whose connections close unless asked to stay open).
    pub version_minor: u8,
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
        out.extend_from_slice(match self.version_minor {
            0 => b" HTTP/1.0\r\n",
            _ => b" HTTP/1.1\r\n",
        });
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
            // The connection's fate is the protocol's to say (below), once.
            let says = !self.keep_alive || self.version_minor == 0;
            if says && name.eq_ignore_ascii_case("connection") {
                continue;
            }
            push_header(&mut out, name, value);
        }
        let bodied_method = matches!(self.method.as_str(), "POST" | "PUT" | "PATCH");
        if !self.body.is_empty() || bodied_method {
            push_header(&mut out, "Content-Length", &self.body.len().to_string());
        }
        match (self.version_minor, self.keep_alive) {
            (0, true) => push_header(&mut out, "Connection", "keep-alive"),
            (0, false) => {}
            (_, false) => push_header(&mut out, "Connection", "close"),
            (_, true) => {}
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
            version_minor: 1,
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

    /// HTTP/1.0 asks for keep-alive, or says nothing (its default is to close); a Connection
    /// header given is replaced by what the protocol says, never doubled.
    #[test]
    fn http10() {
        let given = vec![("Connection".to_string(), "close".to_string())];
        let cases = [
            (
                true,
                vec![],
                "GET /a?b=c HTTP/1.0\r\nHost: 127.0.0.1:8080\r\nConnection: keep-alive\r\n\r\n",
            ),
            (
                false,
                vec![],
                "GET /a?b=c HTTP/1.0\r\nHost: 127.0.0.1:8080\r\n\r\n",
            ),
            (
                true,
                given.clone(),
                "GET /a?b=c HTTP/1.0\r\nHost: 127.0.0.1:8080\r\nConnection: keep-alive\r\n\r\n",
            ),
            (
                false,
                given,
                "GET /a?b=c HTTP/1.0\r\nHost: 127.0.0.1:8080\r\n\r\n",
            ),
        ];
        for (keep_alive, headers, want) in cases {
            let s = RequestSpec {
                keep_alive,
                headers,
                version_minor: 0,
                ..spec()
            };
            assert_eq!(
                String::from_utf8(s.encode()).unwrap(),
                want,
                "keep-alive {keep_alive}"
            );
        }
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

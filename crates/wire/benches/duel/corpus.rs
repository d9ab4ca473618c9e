//! The duel's corpus: real-world request shapes, written out header by header.
//!
//! Three classes: what browsers send for pages and assets (many headers, long values), small API
//! calls with bodies (JSON, a form, barrage's own ping), and pipelined batches (the wrk pipeline
//! of the original experiment, a browser asset burst, an API mix). Every request is
//! HTTP/1.1 with CRLF line endings; a request with a body gets a Content-Length computed here, so
//! the framing is always right.

/// What a case stands for; the benchmark has one group per class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Browser,
    Api,
    Pipelined,
}

impl Class {
    pub const ALL: [Class; 3] = [Class::Browser, Class::Api, Class::Pipelined];

    pub fn name(self) -> &'static str {
        match self {
            Class::Browser => "browser-get",
            Class::Api => "api-post",
            Class::Pipelined => "pipelined",
        }
    }
}

/// One buffer as a server would read it: one request, or several back to back (pipelined).
pub struct Case {
    pub name: &'static str,
    pub class: Class,
    pub bytes: Vec<u8>,
    /// How many requests `bytes` holds.
    pub requests: usize,
}

/// A request from its request line and header lines; a non-empty body gets its Content-Length.
fn request(lines: &[&str], body: &str) -> Vec<u8> {
    let mut out = String::new();
    for line in lines {
        out.push_str(line);
        out.push_str("\r\n");
    }
    if !body.is_empty() {
        out.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    out.push_str("\r\n");
    out.push_str(body);
    out.into_bytes()
}

const COOKIE: &str = "Cookie: session=9f86d081884c7d659a2feaa0c55ad015; _ga=GA1.1.1849302712.1731400000; \
_ga_Q7X2LKJ3C1=GS1.1.1731400000.3.1.1731400841.0.0.0; cart=3; consent=analytics%3Dfalse%26ads%3Dfalse";

fn chrome_page() -> Vec<u8> {
    request(
        &[
            "GET /products/shoes?color=black&size=42&sort=price-asc HTTP/1.1",
            "Host: shop.example.com",
            "Connection: keep-alive",
            r#"sec-ch-ua: "Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24""#,
            "sec-ch-ua-mobile: ?0",
            r#"sec-ch-ua-platform: "Linux""#,
            "Upgrade-Insecure-Requests: 1",
            "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
            "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
            "Sec-Fetch-Site: same-origin",
            "Sec-Fetch-Mode: navigate",
            "Sec-Fetch-User: ?1",
            "Sec-Fetch-Dest: document",
            "Referer: https://shop.example.com/",
            "Accept-Encoding: gzip, deflate, br, zstd",
            "Accept-Language: en-US,en;q=0.9,de;q=0.8",
            COOKIE,
        ],
        "",
    )
}

fn firefox_asset(path: &str) -> Vec<u8> {
    let line = format!("GET {path} HTTP/1.1");
    request(
        &[
            &line,
            "Host: shop.example.com",
            "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
            "Accept: */*",
            "Accept-Language: en-US,en;q=0.5",
            "Accept-Encoding: gzip, deflate, br, zstd",
            "Referer: https://shop.example.com/products/shoes?color=black&size=42&sort=price-asc",
            "Connection: keep-alive",
            COOKIE,
            "Sec-Fetch-Dest: script",
            "Sec-Fetch-Mode: no-cors",
            "Sec-Fetch-Site: same-origin",
            r#"If-None-Match: "5f1d-18c7a3b9e40""#,
            "If-Modified-Since: Tue, 12 Nov 2024 09:14:02 GMT",
            "Priority: u=2",
        ],
        "",
    )
}

fn safari_image() -> Vec<u8> {
    request(
        &[
            "GET /img/products/shoe-42-black@2x.webp HTTP/1.1",
            "Host: cdn.example.com",
            "Accept: image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5",
            "Sec-Fetch-Site: same-site",
            "Accept-Encoding: gzip, deflate, br",
            "Sec-Fetch-Mode: no-cors",
            "Accept-Language: en-GB,en;q=0.9",
            "User-Agent: Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
            "Referer: https://shop.example.com/",
            "Sec-Fetch-Dest: image",
            "Connection: keep-alive",
        ],
        "",
    )
}

fn curl_get() -> Vec<u8> {
    request(
        &[
            "GET /healthz HTTP/1.1",
            "Host: 127.0.0.1:8080",
            "User-Agent: curl/8.11.1",
            "Accept: */*",
        ],
        "",
    )
}

/// What wrk sends by default (the original experiment's load), and barrage load's GET.
fn wrk_get() -> Vec<u8> {
    request(&["GET / HTTP/1.1", "Host: 127.0.0.1:8080"], "")
}

fn api_order() -> Vec<u8> {
    request(
        &[
            "POST /api/v1/orders HTTP/1.1",
            "Host: api.example.com",
            "User-Agent: okhttp/4.12.0",
            "Content-Type: application/json; charset=utf-8",
            "Accept: application/json",
            "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwiaWF0IjoxNzMxNDAwMDAwfQ.c2lnbmF0dXJlLW5vdC1yZWFsLWp1c3Qtc2l6ZWQtbGlrZS1vbmU",
            "X-Request-Id: 7f3c9a2e-1b4d-4c8e-9f6a-2d5e8b1c0a37",
            "Accept-Encoding: gzip",
        ],
        r#"{"sku":"SHOE-42-BLK","quantity":1,"currency":"EUR","coupon":null,"shipping":{"method":"standard","country":"DE"}}"#,
    )
}

fn api_patch() -> Vec<u8> {
    request(
        &[
            "PATCH /api/v1/users/18342/preferences HTTP/1.1",
            "Host: api.example.com",
            "User-Agent: python-requests/2.32.3",
            "Accept-Encoding: gzip, deflate",
            "Accept: */*",
            "Connection: keep-alive",
            "Content-Type: application/json",
            "Authorization: Basic YXBpLWNsaWVudDpzM2NyM3QtdG9rZW4=",
        ],
        r#"{"newsletter":false,"language":"de"}"#,
    )
}

fn form_login() -> Vec<u8> {
    request(
        &[
            "POST /login HTTP/1.1",
            "Host: shop.example.com",
            "Connection: keep-alive",
            "Cache-Control: max-age=0",
            "Origin: https://shop.example.com",
            "Content-Type: application/x-www-form-urlencoded",
            "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
            "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            "Referer: https://shop.example.com/login?next=%2Fcart",
            "Accept-Encoding: gzip, deflate, br, zstd",
            "Accept-Language: en-US,en;q=0.9",
            COOKIE,
        ],
        "email=jane.doe%40example.com&password=correct+horse+battery+staple&remember=on&csrf=4f2a9c1e7b",
    )
}

/// barrage load's ping (the pingpong study's request).
fn ping() -> Vec<u8> {
    request(
        &[
            "POST / HTTP/1.1",
            "Host: 127.0.0.1:8080",
            "Content-Type: text/plain",
        ],
        "ping",
    )
}

fn repeat(parts: &[Vec<u8>], times: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..times {
        for p in parts {
            out.extend_from_slice(p);
        }
    }
    out
}

/// The whole corpus, built afresh (cheap: a few kilobytes).
pub fn corpus() -> Vec<Case> {
    let assets: Vec<Vec<u8>> = [
        "/static/js/app.3f2a1c9e.js",
        "/static/js/vendor.88b01d2f.js",
        "/static/css/main.1c4e7a90.css",
        "/static/fonts/inter-var.woff2",
        "/static/img/logo.svg",
        "/api/v1/cart?fields=items,total",
        "/static/js/chunk-checkout.0d9e3b71.js",
        "/favicon.ico",
    ]
    .iter()
    .map(|p| firefox_asset(p))
    .collect();
    vec![
        Case {
            name: "chrome-page",
            class: Class::Browser,
            bytes: chrome_page(),
            requests: 1,
        },
        Case {
            name: "firefox-asset",
            class: Class::Browser,
            bytes: assets[0].clone(),
            requests: 1,
        },
        Case {
            name: "safari-image",
            class: Class::Browser,
            bytes: safari_image(),
            requests: 1,
        },
        Case {
            name: "curl-get",
            class: Class::Browser,
            bytes: curl_get(),
            requests: 1,
        },
        Case {
            name: "api-order-json",
            class: Class::Api,
            bytes: api_order(),
            requests: 1,
        },
        Case {
            name: "api-patch-json",
            class: Class::Api,
            bytes: api_patch(),
            requests: 1,
        },
        Case {
            name: "form-login",
            class: Class::Api,
            bytes: form_login(),
            requests: 1,
        },
        Case {
            name: "ping",
            class: Class::Api,
            bytes: ping(),
            requests: 1,
        },
        Case {
            name: "wrk-pipeline-16",
            class: Class::Pipelined,
            bytes: repeat(&[wrk_get()], 16),
            requests: 16,
        },
        Case {
            name: "asset-burst-8",
            class: Class::Pipelined,
            bytes: repeat(&assets, 1),
            requests: 8,
        },
        Case {
            name: "api-mix-8",
            class: Class::Pipelined,
            bytes: repeat(&[curl_get(), api_order(), ping(), api_patch()], 2),
            requests: 8,
        },
    ]
}

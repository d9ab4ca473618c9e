//! Studies over TLS and HTTP/3: `tls = true` puts https:// (wss:// for WebSocket) in front of a
//! point's path, `http3 = true` always does, `insecure` reaches the load; both are sweep axes;
//! the combinations that mean nothing are refused with the line of the table.

use barrage_lab::study;
use barrage_lab::sweep;
use barrage_model::load::Protocol;
use std::net::SocketAddr;
use std::path::Path;

fn parse(src: &str) -> Result<study::Study, study::StudyError> {
    study::parse(src, "t.toml", Path::new("."))
}

const H2_H3: &str = r#"
[study]
name = "h3"
[load]
path = "/"
connections = 4
duration = "1s"
insecure = true
[[load.variant]]
name = "h2"
http2 = true
tls = true
streams = [1, 10]
[[load.variant]]
name = "h3"
http3 = true
streams = [1, 10]
[[load.variant]]
name = "h2c"
http2 = true
[[load.variant]]
name = "wss"
ws = true
tls = true
[[contender]]
name = "a"
start = "x {addr}"
"#;

#[test]
fn study_tls_and_http3_points_run_against_https_urls() {
    let s = parse(H2_H3).unwrap();
    let points = sweep::points(&s).unwrap();
    let addr: SocketAddr = "10.77.0.1:8443".parse().unwrap();
    let got: Vec<(String, String, &str, usize, bool, bool)> = points
        .iter()
        .map(|p| {
            let ph = &p.phases[0];
            let c = ph.load_at(addr, &[], Default::default(), 1);
            barrage_model::load::check(&c).unwrap();
            let name = c.protocol.name();
            (
                p.label.clone(),
                c.url,
                name,
                c.protocol.streams(),
                ph.tls,
                c.insecure,
            )
        })
        .collect();
    let row = |l: &str, u: &str, n, s, t| (l.to_string(), u.to_string(), n, s, t, true);
    assert_eq!(
        got,
        [
            row("h2 streams=1", "https://10.77.0.1:8443/", "h2", 1, true),
            row("h2 streams=10", "https://10.77.0.1:8443/", "h2", 10, true),
            // HTTP/3 is always TLS: the phase says so without `tls = true`.
            row("h3 streams=1", "https://10.77.0.1:8443/", "h3", 1, true),
            row("h3 streams=10", "https://10.77.0.1:8443/", "h3", 10, true),
            row("h2c", "http://10.77.0.1:8443/", "h2", 1, false),
            row("wss", "wss://10.77.0.1:8443/", "ws", 1, true),
        ]
    );
    assert_eq!(
        points[3].phases[0].load.protocol,
        Protocol::Http3 { streams: 10 }
    );
    // The point's params name the swept values only; tls is the variant's here.
    assert!(
        !points[0].params.contains_key("tls"),
        "{:?}",
        points[0].params
    );
}

#[test]
fn study_tls_is_a_sweep_axis() {
    let src = "[study]\nname = \"x\"\n[load]\nduration = \"1s\"\ntls = [false, true]\nhttp2 = [false, true]\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n";
    let points = sweep::points(&parse(src).unwrap()).unwrap();
    let addr: SocketAddr = "127.0.0.1:1".parse().unwrap();
    let got: Vec<(&str, String)> = points
        .iter()
        .map(|p| {
            let c = p.phases[0].load_at(addr, &[], Default::default(), 1);
            (p.label.as_str(), format!("{} {}", c.url, c.protocol.name()))
        })
        .collect();
    assert_eq!(
        got,
        [
            ("http2=false tls=false", "http://127.0.0.1:1/ http1".into()),
            ("http2=false tls=true", "https://127.0.0.1:1/ http1".into()),
            ("http2=true tls=false", "http://127.0.0.1:1/ h2".into()),
            ("http2=true tls=true", "https://127.0.0.1:1/ h2".into()),
        ]
    );
    assert_eq!(points[1].params["tls"], serde_json::Value::Bool(true));
}

#[test]
fn study_http3_refuses_what_it_does_not_go_with() {
    let study = |fields: &str| {
        format!("[study]\nname = \"x\"\n[load]\nduration = \"1s\"\n{fields}\n[[contender]]\nname = \"a\"\nstart = \"x {{port}}\"\n")
    };
    // (load fields, line of the error, text it must contain)
    let cases: &[(&str, usize, &str)] = &[
        (
            "http3 = true\ntls = false",
            3,
            "tls = false does not go with http3 = true: QUIC is always TLS",
        ),
        (
            "http3 = true\npipeline = 4",
            3,
            "pipeline does not go with http3 = true",
        ),
        (
            "http3 = true\nhttp2 = true",
            3,
            "http2 = true does not go with http3 = true",
        ),
        (
            "http3 = true\nws = true",
            3,
            "ws = true does not go with http3 = true",
        ),
        (
            "http3 = true\nkeepalive = false",
            3,
            "keepalive = false does not go with http3 = true",
        ),
        ("tls = \"yes\"", 5, "expected a boolean"),
    ];
    for (fields, line, text) in cases {
        let src = study(fields);
        let e = parse(&src).expect_err(&src);
        let msg = e.to_string();
        assert_eq!(e.line(), Some(*line), "{msg}\n--- for ---\n{src}");
        assert!(msg.contains(text), "{msg:?} lacks {text:?}");
    }
    // A variant's refusal names its point.
    let src = study("[[load.variant]]\nname = \"v\"\nhttp3 = true\ntls = false");
    let msg = parse(&src).unwrap_err().to_string();
    assert!(msg.contains("QUIC is always TLS (point v)"), "{msg}");
    assert!(parse(&study("http3 = true\ntls = true\nstreams = 100")).is_ok());
}

//! A phase's URL as the runner writes it: its scheme from the protocol and `tls`.

use super::Phase;
use crate::load::{Config, Protocol};
use std::time::Duration;

#[test]
fn a_phase_url_has_its_scheme_from_the_protocol_and_tls() {
    let h1 = Protocol::default();
    let h2 = Protocol::Http2 {
        streams: 10,
        window: crate::load::DEFAULT_H2_WINDOW,
    };
    let ws = Protocol::ws(1);
    let h3 = Protocol::Http3 { streams: 10 };
    #[rustfmt::skip]
    let table = [
        (h1, false, "http://127.0.0.1:8080/a"),
        (h1, true, "https://127.0.0.1:8080/a"),
        (h2, false, "http://127.0.0.1:8080/a"),
        (h2, true, "https://127.0.0.1:8080/a"),
        (ws, false, "ws://127.0.0.1:8080/a"),
        (ws, true, "wss://127.0.0.1:8080/a"),
        // QUIC is always TLS: http3 is https whatever tls says.
        (h3, false, "https://127.0.0.1:8080/a"),
        (h3, true, "https://127.0.0.1:8080/a"),
    ];
    for (protocol, tls, want) in table {
        let ph = Phase {
            name: "main".into(),
            load: Config {
                url: "/a".into(),
                protocol,
                ..Config::default()
            },
            tls,
        };
        let addr = "127.0.0.1:8080".parse().unwrap();
        let c = ph.load_at(addr, &[], Duration::ZERO, 1);
        assert_eq!(c.url, want, "{protocol:?} tls={tls}");
        assert_eq!(c.protocol, protocol);
    }
}

#[test]
fn tls_is_written_only_when_set_and_read_back() {
    let plain = Phase {
        name: "main".into(),
        ..Phase::default()
    };
    let v = serde_json::to_value(&plain).unwrap();
    assert!(v.get("tls").is_none(), "{v}");
    let tls = Phase { tls: true, ..plain };
    let v = serde_json::to_value(&tls).unwrap();
    assert_eq!(v["tls"], true);
    assert_eq!(serde_json::from_value::<Phase>(v).unwrap(), tls);
}

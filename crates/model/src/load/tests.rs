//! The load's rules, each broken alone, in both vocabularies; the edges that pass; the axes'
//! names both ways; a `Config` refusing a field it does not know.

use super::*;

fn ok() -> Config {
    Config {
        url: "/".into(),
        duration: Some(Duration::from_secs(1)),
        ..Config::default()
    }
}

fn h3() -> Config {
    Config {
        url: "https://h/".into(),
        protocol: Protocol::Http3 { streams: 1 },
        ..ok()
    }
}

fn ws() -> Config {
    Config {
        url: "wss://h/ws/echo".into(),
        protocol: Protocol::ws(1),
        ..ok()
    }
}

fn grpc() -> Config {
    Config {
        url: "http://h/".into(),
        protocol: Protocol::Grpc {
            streams: 1,
            window: DEFAULT_H2_WINDOW,
        },
        call: Some("p.S/M".into()),
        ..ok()
    }
}

/// Each rule, broken alone, gives its error; the messages in both words.
#[test]
fn every_rule_has_its_error_and_one_line_in_both_words() {
    assert_eq!(check(&ok()), Ok(()));
    let stage = |secs, target| Stage {
        duration: Duration::from_secs(secs),
        target,
    };
    #[rustfmt::skip]
        let cases: Vec<(Config, LoadError, &str, &str)> = vec![
            (Config { connections: 0, ..ok() }, LoadError::NoConnections, "connections must be at least 1", "--connections must"),
            (Config { rate: Some(0.0), ..ok() }, LoadError::Rate, "rate must be a positive", "--rate must"),
            (Config { rate: Some(f64::NAN), ..ok() }, LoadError::Rate, "rate must", "--rate must"),
            (Config { duration: None, ..ok() }, LoadError::NoStop, "needs a duration, a number of requests or stages (duration, requests or stages)", "(--duration, --requests or --stages)"),
            (Config { duration: Some(Duration::ZERO), ..ok() }, LoadError::ZeroDuration, "duration must be longer than zero", "--duration must"),
            (Config { timeout: Duration::ZERO, ..ok() }, LoadError::Timeout, "timeout must be between 1 ms", "--timeout must"),
            (Config { method: "GE T".into(), ..ok() }, LoadError::Method("GE T".into()), "invalid method \"GE T\"", "invalid method"),
            (Config { headers: vec![("X".into(), "a\r\nb".into())], ..ok() }, LoadError::Header("X: a\r\nb".into()), "invalid header \"X: a\\r\\nb\"", "invalid header"),
            (Config { headers: vec![("X Y".into(), "a".into())], ..ok() }, LoadError::Header("X Y: a".into()), "invalid header", "invalid header"),
            (Config { expect_status: Some(99), ..ok() }, LoadError::ExpectStatus, "expect_status must be between 100 and 999", "--expect-status must"),
            (Config { stages: vec![stage(1, 5.0)], rate: Some(1.0), duration: None, ..ok() }, LoadError::StagesWithRate, "stages is a rate schedule", "--stages is a rate schedule of its own: give it without --rate"),
            (Config { stages: vec![stage(1, 5.0)], ..ok() }, LoadError::StagesWithStop, "without duration or requests", "without --duration or --requests"),
            (Config { stages: vec![stage(1, 0.0)], duration: None, ..ok() }, LoadError::Stage, "each of stages needs", "each of --stages needs"),
            (Config { stages: vec![stage(0, 5.0)], duration: None, ..ok() }, LoadError::Stage, "each of stages", "each of --stages"),
            (Config { stages: vec![stage(1, 5.0)], duration: None, warmup: Duration::from_secs(1), ..ok() }, LoadError::StagesWarmup, "warmup must be shorter than stages", "--warmup must be shorter than --stages"),
            (Config { targets: Some("t".into()), body_lines: Some("b".into()), ..ok() }, LoadError::TargetsWithBodyLines, "targets and body_lines are", "--targets and --body-lines are"),
            (Config { ramp_up: Some(Duration::from_secs(1)), rate: Some(5.0), ..ok() }, LoadError::RampUpOpenLoop, "ramp_up opens", "--ramp-up opens the closed loop's connections gradually; an open loop (--rate, --stages)"),
            (Config { shard: Some(Shard { index: 3, count: 2 }), ..ok() }, LoadError::Shard, "shard I/N needs", "--shard I/N needs"),
            (Config { shard: Some(Shard { index: 1, count: 20 }), ..ok() }, LoadError::ShardConnections { connections: 10, shards: 20 }, "10 connections cannot be split over 20 shards", "10 connections"),
            (Config { url: "ws://h/".into(), ..ok() }, LoadError::WsUrlWithoutWs, "a ws:// or wss:// URL needs ws = true", "URL needs --ws"),
            (Config { url: "/".into(), ..ws() }, LoadError::WsUrl, "ws = true needs a ws:// or wss:// URL", "--ws needs a ws://"),
            (Config { method: "POST".into(), ..ws() }, LoadError::WsWith("method"), "method is HTTP's", "--method is HTTP's"),
            (Config { headers: vec![("X".into(), "1".into()), ("sec-websocket-KEY".into(), "k".into())], ..ws() }, LoadError::WsHeader("sec-websocket-KEY".into()), "header \"sec-websocket-KEY\" is the WebSocket handshake's own: barrage writes it (ws = true)", "(--ws)"),
            (Config { headers: vec![("Connection".into(), "close".into())], ..ws() }, LoadError::WsHeader("Connection".into()), "handshake's own", "handshake's own"),
            (Config { targets: Some("t".into()), ..ws() }, LoadError::WsWith("targets"), "targets is HTTP's", "--targets is HTTP's"),
            (Config { expect_status: Some(200), ..ws() }, LoadError::WsWith("expect_status"), "expect_status is HTTP's", "--expect-status is HTTP's"),
            (Config { url: "/".into(), ..h3() }, LoadError::Http3Url, "http3 = true needs an https:// URL", "--http3 needs an https:// URL"),
            (Config { start_at: Some(-1.0), ..ok() }, LoadError::StartAt, "start_at must be a time", "--start-at must"),
            (Config { script: Some("s.lua".into()), ..grpc() }, LoadError::GrpcWith("script"), "script does not go with grpc = true", "--script does not go with --grpc"),
        ];
    for (cfg, want, fields, flags) in cases {
        let e = check(&cfg).unwrap_err();
        assert_eq!(e, want);
        let (f, g) = (e.to_string(), e.flags());
        assert!(f.contains(fields), "{f:?} lacks {fields:?}");
        assert!(g.contains(flags), "{g:?} lacks {flags:?}");
        assert!(!f.contains('\n') && !g.contains('\n'), "{f:?} / {g:?}");
        assert!(!f.contains("--"), "field words name no flag: {f:?}");
    }
}

/// The protocol's own rules, each broken alone, as `Protocol::from_options` gives them (the
/// flags' reading and serde's), in both words.
#[test]
fn every_protocol_rule_has_its_error_in_both_words() {
    let h1 = ProtocolOptions::default();
    let h2 = ProtocolOptions { http2: true, ..h1 };
    let ws = ProtocolOptions { ws: true, ..h1 };
    let h3 = ProtocolOptions { http3: true, ..h1 };
    let h10 = ProtocolOptions {
        http1_0: true,
        ..h1
    };
    #[rustfmt::skip]
    let cases: Vec<(ProtocolOptions, LoadError, &str, &str)> = vec![
        (ProtocolOptions { pipeline: 0, ..h1 }, LoadError::Pipeline, "pipeline must be between 1 and 1024", "--pipeline must"),
        (ProtocolOptions { pipeline: 1025, ..ws }, LoadError::Pipeline, "pipeline must", "--pipeline must"),
        (ProtocolOptions { pipeline: 2, keepalive: false, ..h1 }, LoadError::PipelineWithoutKeepalive, "pipeline > 1 needs keep-alive (with keepalive = false", "--pipeline > 1 needs keep-alive (with --no-keepalive"),
        (ProtocolOptions { streams: 0, ..h2 }, LoadError::Streams, "streams (streams per connection) must", "--streams (streams per connection) must"),
        (ProtocolOptions { streams: 2, ..h1 }, LoadError::StreamsWithoutHttp2, "streams > 1 needs http2 = true", "--streams > 1 needs --http2"),
        (ProtocolOptions { streams: 2, ..ws }, LoadError::StreamsWithoutHttp2, "streams > 1 needs http2 = true", "--streams > 1 needs --http2"),
        (ProtocolOptions { pipeline: 2, ..h2 }, LoadError::PipelineWithHttp2, "pipeline is HTTP/1.1's", "--pipeline is HTTP/1.1's; HTTP/2 runs concurrent streams instead (--streams)"),
        (ProtocolOptions { keepalive: false, ..h2 }, LoadError::Http2WithoutKeepalive, "keepalive = false does not apply to HTTP/2", "--no-keepalive does not apply"),
        (ProtocolOptions { h2_window: 100, ..h2 }, LoadError::Window, "window (h2_window) must be between", "(--h2-window)"),
        (ProtocolOptions { http2: true, ..ws }, LoadError::WsWith("http2"), "http2 is HTTP's; a WebSocket load (ws = true)", "--http2 is HTTP's; a WebSocket load (--ws)"),
        (ProtocolOptions { keepalive: false, ..ws }, LoadError::WsWith("keepalive"), "keepalive = false is HTTP's", "--no-keepalive is HTTP's"),
        (ProtocolOptions { http2: true, ..h3 }, LoadError::Http3With("http2"), "http2 = true does not go with http3 = true", "--http2 does not go with --http3"),
        (ProtocolOptions { ws: true, ..h3 }, LoadError::Http3With("ws"), "ws = true does not go with http3 = true", "--ws does not"),
        (ProtocolOptions { pipeline: 2, ..h3 }, LoadError::Http3With("pipeline"), "pipeline does not go with http3 = true: HTTP/3 multiplexes with streams", "--pipeline does not go with --http3: HTTP/3 multiplexes with --streams"),
        (ProtocolOptions { keepalive: false, ..h3 }, LoadError::Http3With("keepalive"), "keepalive = false does not go", "--no-keepalive does not go"),
        (ProtocolOptions { ws_max_message: Some(0), ..ws }, LoadError::WsMaxMessage, "ws_max_message (the longest reply) must be at least 1 byte", "--ws-max-message (the longest reply) must"),
        (ProtocolOptions { ws_max_message: Some(1 << 20), ..h1 }, LoadError::WsOnly("ws_max_message"), "ws_max_message is WebSocket's: it needs ws = true", "--ws-max-message is WebSocket's: it needs --ws"),
        (ProtocolOptions { echo_check: Some(false), ..h2 }, LoadError::WsOnly("echo_check"), "echo_check is WebSocket's: it needs ws = true", "--no-echo-check is WebSocket's: it needs --ws"),
        (ProtocolOptions { http2: true, ..h10 }, LoadError::Conflict("http1_0", "http2"), "http2 = true does not go with http1_0 = true", "--http2 does not go with --http1.0"),
        (ProtocolOptions { http3: true, ..h10 }, LoadError::Conflict("http1_0", "http3"), "http3 = true does not go with http1_0 = true", "--http3 does not go with --http1.0"),
        (ProtocolOptions { ws: true, ..h10 }, LoadError::Conflict("http1_0", "ws"), "ws = true does not go with http1_0 = true", "--ws does not go with --http1.0"),
        (ProtocolOptions { grpc: true, ..h10 }, LoadError::Conflict("http1_0", "grpc"), "grpc = true does not go with http1_0 = true", "--grpc does not go with --http1.0"),
        (ProtocolOptions { pipeline: 2, ..h10 }, LoadError::Conflict("http1_0", "pipeline"), "pipeline does not go with http1_0 = true", "--pipeline does not go with --http1.0"),
        (ProtocolOptions { streams: 2, ..h10 }, LoadError::Conflict("http1_0", "streams"), "streams does not go with http1_0 = true", "--streams does not go with --http1.0"),
        (ProtocolOptions { fastcgi: true, ..h10 }, LoadError::Conflict("fastcgi", "http1_0"), "http1_0 = true does not go with fastcgi = true", "--http1.0 does not go with --fastcgi"),
        (ProtocolOptions { fastcgi: true, http1_0: false, grpc: true, ..h10 }, LoadError::Conflict("fastcgi", "grpc"), "grpc = true does not go with fastcgi = true", "--grpc does not go with --fastcgi"),
        (ProtocolOptions { fastcgi: true, http1_0: false, streams: 4, ..h10 }, LoadError::Conflict("fastcgi", "streams"), "streams does not go with fastcgi = true", "--streams does not go with --fastcgi"),
    ];
    for (o, want, fields, flags) in cases {
        let e = Protocol::from_options(o).unwrap_err();
        assert_eq!(e, want, "{o:?}");
        let (f, g) = (e.to_string(), e.flags());
        assert!(f.contains(fields), "{f:?} lacks {fields:?}");
        assert!(g.contains(flags), "{g:?} lacks {flags:?}");
        assert!(!f.contains("--"), "field words name no flag: {f:?}");
    }
    #[rustfmt::skip]
    let allowed = [
        (ProtocolOptions { pipeline: 1024, ..h1 }, Protocol::Http1 { pipeline: 1024, keepalive: true }),
        (ProtocolOptions { keepalive: false, ..h1 }, Protocol::Http1 { pipeline: 1, keepalive: false }),
        (ProtocolOptions { streams: 100, h2_window: 65_535, ..h2 }, Protocol::Http2 { streams: 100, window: 65_535 }),
        (ProtocolOptions { pipeline: 8, ws_max_message: Some(DEFAULT_WS_MAX_MESSAGE), echo_check: Some(true), ..ws }, Protocol::ws(8)),
        (ProtocolOptions { ws_max_message: Some(1), echo_check: Some(false), ..ws }, Protocol::Ws { pipeline: 1, max_message: 1, echo: false }),
        (ProtocolOptions { streams: 100, ..h3 }, Protocol::Http3 { streams: 100 }),
        (h10, Protocol::Http10 { keepalive: true }),
        (ProtocolOptions { keepalive: false, ..h10 }, Protocol::Http10 { keepalive: false }),
    ];
    for (o, want) in allowed {
        let p = Protocol::from_options(o).unwrap();
        assert_eq!(p, want);
        assert_eq!(ProtocolOptions::from(p), o, "the options round-trip");
    }
}

/// Documents and study files keep the flat fields: a protocol reads from them, writes them back
/// as before (no `ws` key for HTTP), and a combination that means nothing is refused when read.
#[test]
fn the_protocol_reads_and_writes_the_flat_fields() {
    let c: Config =
        serde_json::from_str(r#"{"url":"/","http2":true,"streams":10,"h2_window":70000}"#).unwrap();
    assert_eq!(
        c.protocol,
        Protocol::Http2 {
            streams: 10,
            window: 70_000
        }
    );
    let v = serde_json::to_value(&c).unwrap();
    assert_eq!(
        (
            &v["http2"],
            &v["streams"],
            &v["h2_window"],
            &v["pipeline"],
            &v["keepalive"]
        ),
        (
            &true.into(),
            &10.into(),
            &70_000.into(),
            &1.into(),
            &true.into()
        )
    );
    assert!(v.get("ws").is_none() && v.get("protocol").is_none(), "{v}");
    assert!(v.get("ws_max_message").is_none() && v.get("echo_check").is_none());
    let back: Config = serde_json::from_value(v).unwrap();
    assert_eq!(back, c);
    // WebSocket's own options default when absent (documents from before them), and are
    // written for a WebSocket load.
    let w: Config = serde_json::from_str(r#"{"url":"ws://h/","ws":true,"pipeline":4}"#).unwrap();
    assert_eq!(w.protocol, Protocol::ws(4));
    let v = serde_json::to_value(&w).unwrap();
    assert_eq!(
        (&v["ws"], &v["ws_max_message"], &v["echo_check"]),
        (&true.into(), &(16u64 << 20).into(), &true.into())
    );
    let w: Config = serde_json::from_str(
        r#"{"url":"ws://h/","ws":true,"ws_max_message":65536,"echo_check":false}"#,
    )
    .unwrap();
    assert_eq!(
        w.protocol,
        Protocol::Ws {
            pipeline: 1,
            max_message: 65536,
            echo: false
        }
    );
    let e = serde_json::from_str::<Config>(r#"{"url":"/","http2":true,"pipeline":2}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("pipeline is HTTP/1.1's"), "{e}");
    assert_eq!(Config::default().protocol.depth(), 1);
}

/// What a rule allows stays allowed: the edges of each range.
#[test]
fn the_edges_of_each_range_pass() {
    #[rustfmt::skip]
        let allowed = [
            Config { timeout: Duration::from_millis(1), ..ok() },
            Config { timeout: Duration::from_secs(3600), ..ok() },
            Config { expect_status: Some(100), ..ok() },
            Config { protocol: Protocol::Http2 { streams: 100, window: 65_535 }, ..ok() },
            Config { protocol: Protocol::Http3 { streams: 100 }, ..h3() },
            Config { requests: Some(5), duration: None, ..ok() },
            Config { shard: Some(Shard { index: 10, count: 10 }), ..ok() },
            Config { start_at: Some(0.0), ..ok() },
            Config { ramp_up: Some(Duration::from_secs(1)), ..ok() },
            Config { protocol: Protocol::ws(8), rate: Some(5.0), body_lines: Some("b".into()), ..ws() },
            Config { headers: vec![("Authorization".into(), "Bearer t".into()), ("Host".into(), "h".into()), ("Sec-WebSocket-Protocol".into(), "chat".into())], ..ws() },
        ];
    for cfg in allowed {
        assert_eq!(check(&cfg), Ok(()), "{cfg:?}");
    }
}

#[test]
fn names_and_labels_go_both_ways_and_are_unique() {
    assert_eq!(short_label("connections"), "c");
    assert_eq!(short_label("network.rtt"), "network.rtt");
    assert_eq!(axis_field("c"), "connections");
    assert_eq!(axis_field("connections"), "connections");
    assert_eq!(axis_field("size"), "size");
    for (f, s) in AXES {
        assert_eq!(axis_field(short_label(f)), *f);
        let clashes = AXES
            .iter()
            .filter(|(g, t)| g == s || t == s || t == f)
            .count();
        assert_eq!(clashes, 1, "{f}/{s} names one axis only");
    }
}

#[test]
fn a_config_reads_its_names_and_refuses_others() {
    let c: Config = serde_json::from_str(r#"{"path":"/a","connections":3}"#).unwrap();
    assert_eq!((c.url.as_str(), c.connections), ("/a", 3));
    let e = serde_json::from_str::<Config>(r#"{"url":"/","conections":3}"#).unwrap_err();
    assert!(e.to_string().contains("unknown field `conections`"), "{e}");
}

/// The sweep's order is the one studies have been labelled with (a point's label and id
/// depend on it): the declaration's ranks keep it; an axis added later comes after these.
#[test]
fn the_sweep_keeps_its_order() {
    let names: Vec<&str> = AXES.iter().map(|(f, _)| *f).collect();
    assert_eq!(
        names[..26],
        [
            "method",
            "path",
            "body",
            "expect_status",
            "expect_body",
            "keepalive",
            "http2",
            "ws",
            "http3",
            "tls",
            "insecure",
            "pipeline",
            "streams",
            "threads",
            "connections",
            "rate",
            "stages",
            "targets",
            "targets_format",
            "targets_order",
            "seed",
            "body_lines",
            "ramp_up",
            "duration",
            "requests",
            "timeout"
        ]
    );
    assert_eq!(short_label("targets_order"), "order");
    assert_eq!(short_label("duration"), "d");
}

/// Each option declared once has one name, one flag and one short letter; the protocol's
/// declared defaults are the default protocol; a `Config` writes only declared names.
#[test]
fn the_declaration_names_each_thing_once() {
    let mut seen = [(); 3].map(|_| std::collections::BTreeSet::new());
    for o in OPTIONS {
        let names = [
            o.name.to_string(),
            o.long().unwrap_or_default(),
            o.flag.short.map(String::from).unwrap_or_default(),
        ];
        for (set, n) in seen.iter_mut().zip(names) {
            assert!(n.is_empty() || set.insert(n.clone()), "{n} twice");
        }
        assert!(
            !o.help().is_empty() && !o.help().contains('\n'),
            "{}: {:?}",
            o.name,
            o.help()
        );
    }
    assert_eq!(
        Protocol::from_options(ProtocolOptions::default()),
        Ok(Protocol::default())
    );
    // What a `Config` writes is declared (whatever protocol and options it holds).
    let names = field_names();
    for c in [
        Config::default(),
        Config {
            protocol: Protocol::ws(1),
            targets: Some("t".into()),
            shard: Some(Shard { index: 1, count: 1 }),
            ..Config::default()
        },
        Config {
            protocol: Protocol::Http3 { streams: 2 },
            ..Config::default()
        },
    ] {
        let doc = serde_json::to_value(c).unwrap();
        for k in doc.as_object().unwrap().keys() {
            assert!(names.contains(k), "{k} is written but not declared");
        }
    }
    assert_eq!(
        option("headers").and_then(|o| o.long()).as_deref(),
        Some("header")
    );
    assert_eq!(
        option("keepalive").and_then(|o| o.long()).as_deref(),
        Some("no-keepalive")
    );
    assert_eq!(option("url").map(|o| o.study_name()), Some("path"));
}

/// gRPC's rules: `expect_status` is a gRPC code (0-16) with `grpc` and an HTTP status without
/// it; gRPC's own options need `grpc`; each error one line in both words.
#[test]
fn grpc_rules_and_its_expected_status() {
    let grpc = || Config {
        url: "http://h/".into(),
        protocol: Protocol::Grpc {
            streams: 1,
            window: DEFAULT_H2_WINDOW,
        },
        call: Some("p.S/M".into()),
        ..ok()
    };
    for code in [0, 5, 16] {
        let c = Config {
            expect_status: Some(code),
            ..grpc()
        };
        assert_eq!(check(&c), Ok(()), "{code}");
    }
    let gz = Config {
        grpc_compression: Some("gzip".into()),
        ..grpc()
    };
    assert_eq!(check(&gz), Ok(()));
    #[rustfmt::skip]
    let cases: Vec<(Config, LoadError, &str, &str)> = vec![
        (Config { expect_status: Some(17), ..grpc() }, LoadError::ExpectGrpcStatus, "with grpc = true, expect_status must be a gRPC code: 0-16 or its name", "with --grpc, --expect-status must be a gRPC code"),
        (Config { expect_status: Some(200), ..grpc() }, LoadError::ExpectGrpcStatus, "expect_status must be a gRPC code", "--expect-status must be a gRPC code"),
        (Config { expect_status: Some(5), ..ok() }, LoadError::ExpectStatus, "expect_status must be between 100 and 999 (a gRPC code, 0-16, needs grpc = true)", "(a gRPC code, 0-16, needs --grpc)"),
        (Config { grpc_compression: Some("gzip".into()), ..ok() }, LoadError::GrpcOnly("grpc_compression"), "grpc_compression is gRPC's", "--grpc-compression is gRPC's: it needs --grpc"),
        (Config { call: None, ..grpc() }, LoadError::GrpcCall, "needs call", "--grpc needs --call"),
    ];
    for (cfg, want, fields, flags) in cases {
        let e = check(&cfg).unwrap_err();
        assert_eq!(e, want);
        let (f, g) = (e.to_string(), e.flags());
        assert!(f.contains(fields), "{f:?} lacks {fields:?}");
        assert!(g.contains(flags), "{g:?} lacks {flags:?}");
        assert!(!f.contains('\n') && !g.contains('\n'), "{f:?} / {g:?}");
    }
    // The names gRPC's tools print, by number.
    assert_eq!(GRPC_CODES[5], "NOT_FOUND");
    assert_eq!(
        (grpc_code("not_found"), grpc_code("16"), grpc_code("17")),
        (Some(5), Some(16), None)
    );
}

/// What a live title and a summary line say of each protocol, the one place they are written.
#[test]
fn each_protocol_says_itself_in_a_title_and_a_summary() {
    use Protocol as P;
    let h1 = |pipeline, keepalive| P::Http1 {
        pipeline,
        keepalive,
    };
    let table: [(P, &str, &str); 10] = [
        (h1(1, true), "", ""),
        (h1(4, false), " pipeline=4", ", pipeline 4"),
        (P::ws(1), " ws", ""),
        (P::ws(8), " ws pipeline=8", ", pipeline 8"),
        (
            P::Http2 {
                streams: 10,
                window: 65_535,
            },
            " http2 m=10",
            "",
        ),
        (P::Http3 { streams: 3 }, " http3 m=3", ""),
        (
            P::Grpc {
                streams: 5,
                window: 65_535,
            },
            " m=5",
            "",
        ),
        (P::Http10 { keepalive: true }, " http1.0", ", HTTP/1.0"),
        (P::Http10 { keepalive: false }, " http1.0", ", HTTP/1.0"),
        (P::Fastcgi { keepalive: true }, " fastcgi", ", FastCGI"),
    ];
    for (p, title, summary) in table {
        assert_eq!(p.title(), title, "{p:?}");
        assert_eq!(p.summary(), summary, "{p:?}");
    }
}

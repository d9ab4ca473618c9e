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
        http3: true,
        ..ok()
    }
}

fn ws() -> Config {
    Config {
        url: "wss://h/ws/echo".into(),
        ws: true,
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
            (Config { pipeline: 0, ..ok() }, LoadError::Pipeline, "pipeline must be between 1 and 1024", "--pipeline must"),
            (Config { pipeline: 2, keepalive: false, ..ok() }, LoadError::PipelineWithoutKeepalive, "pipeline > 1 needs keep-alive (with keepalive = false", "--pipeline > 1 needs keep-alive (with --no-keepalive"),
            (Config { rate: Some(0.0), ..ok() }, LoadError::Rate, "rate must be a positive", "--rate must"),
            (Config { rate: Some(f64::NAN), ..ok() }, LoadError::Rate, "rate must", "--rate must"),
            (Config { duration: None, ..ok() }, LoadError::NoStop, "needs a duration, a number of requests or stages (duration, requests or stages)", "(--duration, --requests or --stages)"),
            (Config { duration: Some(Duration::ZERO), ..ok() }, LoadError::ZeroDuration, "duration must be longer than zero", "--duration must"),
            (Config { timeout: Duration::ZERO, ..ok() }, LoadError::Timeout, "timeout must be between 1 ms", "--timeout must"),
            (Config { method: "GE T".into(), ..ok() }, LoadError::Method("GE T".into()), "invalid method \"GE T\"", "invalid method"),
            (Config { headers: vec![("X".into(), "a\r\nb".into())], ..ok() }, LoadError::Header("X: a\r\nb".into()), "invalid header \"X: a\\r\\nb\"", "invalid header"),
            (Config { headers: vec![("X Y".into(), "a".into())], ..ok() }, LoadError::Header("X Y: a".into()), "invalid header", "invalid header"),
            (Config { expect_status: Some(99), ..ok() }, LoadError::ExpectStatus, "expect_status must be between 100 and 999", "--expect-status must"),
            (Config { streams: 0, ..ok() }, LoadError::Streams, "streams (streams per connection) must", "--streams (streams per connection) must"),
            (Config { streams: 2, ..ok() }, LoadError::StreamsWithoutHttp2, "streams > 1 needs http2 = true or http3 = true", "--streams > 1 needs --http2 or --http3"),
            (Config { http2: true, pipeline: 2, ..ok() }, LoadError::PipelineWithHttp2, "pipeline is HTTP/1.1's", "--pipeline is HTTP/1.1's; HTTP/2 runs concurrent streams instead (--streams)"),
            (Config { http2: true, keepalive: false, ..ok() }, LoadError::Http2WithoutKeepalive, "keepalive = false does not apply to HTTP/2", "--no-keepalive does not apply"),
            (Config { http2: true, h2_window: 100, ..ok() }, LoadError::Window, "window (h2_window) must be between", "(--h2-window)"),
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
            (Config { ws: true, ..ok() }, LoadError::WsUrl, "ws = true needs a ws:// or wss:// URL", "--ws needs a ws://"),
            (Config { ws: true, http2: true, ..ws() }, LoadError::WsWith("http2"), "http2 is HTTP's; a WebSocket load (ws = true)", "--http2 is HTTP's; a WebSocket load (--ws)"),
            (Config { method: "POST".into(), ..ws() }, LoadError::WsWith("method"), "method is HTTP's", "--method is HTTP's"),
            (Config { keepalive: false, ..ws() }, LoadError::WsWith("keepalive"), "keepalive = false is HTTP's", "--no-keepalive is HTTP's"),
            (Config { headers: vec![("X".into(), "1".into()), ("sec-websocket-KEY".into(), "k".into())], ..ws() }, LoadError::WsHeader("sec-websocket-KEY".into()), "header \"sec-websocket-KEY\" is the WebSocket handshake's own: barrage writes it (ws = true)", "(--ws)"),
            (Config { headers: vec![("Connection".into(), "close".into())], ..ws() }, LoadError::WsHeader("Connection".into()), "handshake's own", "handshake's own"),
            (Config { targets: Some("t".into()), ..ws() }, LoadError::WsWith("targets"), "targets is HTTP's", "--targets is HTTP's"),
            (Config { expect_status: Some(200), ..ws() }, LoadError::WsWith("expect_status"), "expect_status is HTTP's", "--expect-status is HTTP's"),
            (Config { http3: true, ..ok() }, LoadError::Http3Url, "http3 = true needs an https:// URL", "--http3 needs an https:// URL"),
            (Config { http2: true, ..h3() }, LoadError::Http3With("http2"), "http2 = true does not go with http3 = true", "--http2 does not go with --http3"),
            (Config { ws: true, ..h3() }, LoadError::Http3With("ws"), "ws = true does not go with http3 = true", "--ws does not"),
            (Config { pipeline: 2, ..h3() }, LoadError::Http3With("pipeline"), "pipeline does not go with http3 = true: HTTP/3 multiplexes with streams", "--pipeline does not go with --http3: HTTP/3 multiplexes with --streams"),
            (Config { keepalive: false, ..h3() }, LoadError::Http3With("keepalive"), "keepalive = false does not go", "--no-keepalive does not go"),
            (Config { start_at: Some(-1.0), ..ok() }, LoadError::StartAt, "start_at must be a time", "--start-at must"),
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

/// What a rule allows stays allowed: the edges of each range.
#[test]
fn the_edges_of_each_range_pass() {
    #[rustfmt::skip]
        let allowed = [
            Config { pipeline: 1024, ..ok() },
            Config { timeout: Duration::from_millis(1), ..ok() },
            Config { timeout: Duration::from_secs(3600), ..ok() },
            Config { expect_status: Some(100), ..ok() },
            Config { http2: true, streams: 100, h2_window: 65_535, ..ok() },
            Config { streams: 100, ..h3() },
            Config { requests: Some(5), duration: None, ..ok() },
            Config { shard: Some(Shard { index: 10, count: 10 }), ..ok() },
            Config { start_at: Some(0.0), ..ok() },
            Config { ramp_up: Some(Duration::from_secs(1)), ..ok() },
            Config { pipeline: 8, rate: Some(5.0), body_lines: Some("b".into()), ..ws() },
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

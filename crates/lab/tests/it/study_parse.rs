//! Study files: the embedded default parses and fits its time budget; invalid files give clear
//! messages with the right line.

use barrage_lab::study::{self, ContenderRole};
use barrage_lab::sweep;
use std::path::Path;

const SERVER: &str = r#"
[study]
name = "t"

[load]
duration = "1s"

[[contender]]
name = "a"
start = "true {port}"
"#;

fn parse(src: &str) -> Result<study::Study, study::StudyError> {
    study::parse(src, "t.toml", Path::new("."))
}

#[test]
fn study_default_parses_and_fits_two_minutes() {
    let s = parse(study::DEFAULT_STUDY).expect("default study");
    assert_eq!(s.kind, ContenderRole::Server);
    let points = sweep::points(&s).unwrap();
    // keep-alive, no keep-alive, pipelined x 4 connection counts.
    assert_eq!(points.len(), 12);
    assert!(points.iter().any(|p| p.label == "pipelined c=256"));
    let conns: Vec<usize> = points
        .iter()
        .map(|p| p.phases[0].load.connections)
        .collect();
    assert_eq!(*conns.iter().min().unwrap(), 1);
    assert_eq!(*conns.iter().max().unwrap(), 256);
    // Load time plus warmup, cooldown and ~0.3 s of start/stop per trial must stay under 2 min.
    let per_trial: f64 = points
        .iter()
        .map(|p| {
            p.planned_duration().as_secs_f64()
                + s.warmup.as_secs_f64()
                + s.cooldown.as_secs_f64()
                + 0.3
        })
        .sum();
    let total = per_trial * f64::from(s.trials) * s.contenders.len() as f64;
    assert!(total < 100.0, "default study would take ~{total:.0} s");
}

#[test]
fn study_sweep_is_cartesian_with_variants_and_phases() {
    let src = r#"
[study]
name = "sweep"
trials = 3
[load]
connections = [1, 10, 50]
duration = ["1s", "2s"]
[[load.variant]]
name = "ka"
[[load.variant]]
name = "close"
keepalive = false
[[load.phase]]
name = "overload"
rate = 2000
[[load.phase]]
name = "half"
rate = 1000
duration = "500ms"
[[contender]]
name = "a"
start = ["server", "--port", "{port}"]
"#;
    let s = parse(src).unwrap();
    assert_eq!(s.trials, 3);
    assert_eq!(s.contenders[0].start, "server --port {port}");
    let pts = sweep::points(&s).unwrap();
    assert_eq!(pts.len(), 2 * 3 * 2);
    assert_eq!(pts[0].label, "ka c=1 d=1s");
    assert_eq!(pts[11].label, "close c=50 d=2s");
    assert!(!pts[11].phases[0].load.protocol.keepalive());
    // Phases inherit the point and override: the first keeps the point's duration.
    assert_eq!(pts[1].phases.len(), 2);
    assert_eq!(
        pts[1].phases[0].load.duration,
        Some(std::time::Duration::from_secs(2))
    );
    assert_eq!(pts[1].phases[0].load.rate, Some(2000.0));
    assert_eq!(
        pts[1].phases[1].load.duration,
        Some(std::time::Duration::from_millis(500))
    );
}

#[test]
fn study_client_params_sweep() {
    let src = r#"
[study]
name = "dl"
[client]
path = "/bytes/{size}"
params = { size = [1000, 2000], mode = "stream" }
[client.expect]
file = "{out}"
file_size = "{size}"
file_pattern = true
[[contender]]
name = "curl"
start = "curl -s {url} -o {out}"
requires = ["curl"]
"#;
    let s = parse(src).unwrap();
    assert_eq!(s.kind, ContenderRole::Client);
    let pts = sweep::points(&s).unwrap();
    assert_eq!(pts.len(), 2);
    assert_eq!(pts[1].label, "size=2000");
    assert_eq!(pts[1].client_params["mode"].to_string(), "stream");
}

#[test]
fn study_errors_name_the_line() {
    // (file text, line the error must point at, text the message must contain)
    let cases: &[(&str, usize, &str)] = &[
        ("[study]\nname = \"x\"\ntrials = 0\n[load]\nduration = \"1s\"\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n", 3, "trials must be between 1"),
        ("[study]\nname = \"x\"\n[load]\nduration = \"1 fortnight\"\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n", 4, "unknown unit"),
        ("[study]\nname = \"x\"\n[load]\nduraton = \"1s\"\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n", 4, "unknown field `duraton`"),
        ("[study]\nname = \"x\"\n[load]\nconnections = []\nduration = \"1s\"\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n", 4, "empty list"),
        ("[study]\nname = \"x\"\n[load]\nduration = \"1s\"\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n[[contender]]\nname = \"a\"\nstart = \"y {port}\"\n", 9, "two contenders are named \"a\""),
        ("[study]\nname = \"x\"\n[load]\nduration = \"1s\"\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\nstop_signal = \"SIGWHAT\"\n", 8, "unknown signal"),
        ("[study]\nname = \"x\"\n[load]\nduration = \"1s\"\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\nready = \"smoke\"\n", 8, "ready must be"),
        ("[study]\nname = \"x\"\n[load]\nduration = \"1s\"\npipeline = 8\nkeepalive = false\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n", 3, "pipeline > 1 needs keep-alive (with keepalive = false"),
        ("[study]\nname = \"x\"\n[load]\nconnections = 4\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n", 3, "needs a duration"),
        ("[study]\nname = \"bad name\"\n[load]\nduration = \"1s\"\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n", 2, "study name"),
        ("[study]\nname = \"x\"\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n", 1, "needs [load]"),
        ("[study]\nname = \"x\"\n[load]\nduration = \"1s\"\n", 1, "no [[contender]]"),
        ("[study]\nname = \"x\"\nsample_interval = \"1ms\"\n[load]\nduration = \"1s\"\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n", 3, "sample_interval"),
        ("[study]\nname = \"x\"\n[load]\nduration = \"1s\"\n[[load.phase]]\nrate = [1, 2]\nduration = \"1s\"\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n", 5, "a phase cannot sweep"),
        ("[study]\nname = \"x\"\n[client]\nparams = { url = 1 }\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n", 3, "shadow"),
        ("[study]\nname = \"x\"\n[load]\nduration = \"1s\"\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\ndir = \"no/such/dir\"\n", 6, "does not exist"),
        ("[study]\nname = \"x\"\npin = \"sometimes\"\n[load]\nduration = \"1s\"\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n", 3, "pin must be"),
        ("[study]\nname = \"x\"\npin = 0\n[load]\nduration = \"1s\"\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n", 3, "a number of contender CPUs"),
        ("[study\nname = \"x\"\n", 1, ""),
        ("[study]\nname = \"x\"\n[load]\nduration = \"1s\"\n[[contender]]\nname = \"a\"\nstart = \"server --port 8080\"\n", 7, "must pass {port}"),
        ("[study]\nname = \"x\"\n[load]\nduration = \"1s\"\nmethod = \"GE T\"\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n", 3, "invalid method"),
        ("[study]\nname = \"x\"\n[load]\nduration = \"1s\"\nheaders = { \"X\" = \"a\\r\\nb\" }\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n", 3, "invalid header"),
        ("[study]\nname = \"x\"\n[load]\nduration = \"1s\"\nws = true\nmethod = \"POST\"\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n", 3, "method is HTTP's; a WebSocket load (ws = true)"),
        ("[study]\nname = \"x\"\n[load]\nduration = \"1s\"\nws = true\nexpect_status = 200\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n", 3, "expect_status is HTTP's"),
        ("[study]\nname = \"x\"\n[load]\nduration = \"1s\"\necho_check = false\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n", 3, "echo_check is WebSocket's: it needs ws = true"),
    ];
    for (src, line, text) in cases {
        let e = parse(src).expect_err(src);
        let msg = e.to_string();
        assert_eq!(e.line(), Some(*line), "{msg}\n--- for ---\n{src}");
        assert!(msg.contains(text), "{msg:?} lacks {text:?}");
        assert!(msg.starts_with(&format!("t.toml:{line}: ")), "{msg}");
    }
    assert!(parse(SERVER).is_ok());
}

#[test]
fn study_pin_takes_a_number_of_contender_cpus() {
    let src = "[study]\nname = \"x\"\npin = 1\n[load]\nduration = \"1s\"\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n";
    assert_eq!(parse(src).unwrap().pin, study::PinMode::Cpus(1));
}

#[test]
fn study_client_rate_names_a_stdout_token() {
    let src = "[study]\nname = \"x\"\n[client]\nrate = \"requests_per_s\"\nrequests = \"requests\"\n[[contender]]\nname = \"a\"\nstart = \"true\"\n";
    let s = parse(src).expect("client study with rate");
    let c = s.client.as_ref().unwrap();
    assert_eq!(c.rate.as_deref(), Some("requests_per_s"));
    assert_eq!(c.requests.as_deref(), Some("requests"));
    let bad = src.replace("\"requests_per_s\"", "\"req/s\"");
    let e = parse(&bad).unwrap_err().to_string();
    assert!(e.contains("client.rate"), "{e}");
}

#[test]
fn study_client_file_size_alone_sets_the_checksum() {
    // A client writing to /dev/null: no file to check, but {checksum} still needs the size.
    let src = "[study]\nname = \"x\"\n[client]\npath = \"/bytes/{n}\"\nparams = { n = 3 }\n[client.expect]\nstdout_contains = [\"{checksum}\"]\nfile_size = \"{n}\"\n[[contender]]\nname = \"a\"\nstart = \"x {url}\"\n";
    assert!(parse(src).is_ok());
    let bad = "[study]\nname = \"x\"\n[client]\n[client.expect]\nfile_pattern = true\n[[contender]]\nname = \"a\"\nstart = \"x {url}\"\n";
    assert!(parse(bad)
        .unwrap_err()
        .to_string()
        .contains("file_pattern needs expect.file"));
}

#[test]
fn study_client_figures_are_declared_and_checked() {
    let head = "[study]\nname = \"x\"\n[client]\nrate = \"requests_per_s\"\n";
    let tail = "[[contender]]\nname = \"a\"\nstart = \"true\"\n";
    let fig = |body: &str| format!("{head}[[client.figure]]\n{body}{tail}");
    let ok = format!(
        "{head}[[client.figure]]\nkey = \"alloc_bytes\"\nlabel = \"allocated\"\nunit = \"bytes\"\nbetter = \"lower\"\n[[client.figure]]\nkey = \"alloc_objects\"\nunit = \"count\"\nbetter = \"lower\"\ncompared = false\nrequired = true\n{tail}"
    );
    let s = parse(&ok).expect("figures");
    let f = &s.client.as_ref().unwrap().figures;
    assert_eq!(f.len(), 2);
    assert_eq!(
        (
            f[0].key.as_str(),
            f[0].label.as_str(),
            f[0].compared,
            f[0].required
        ),
        ("alloc_bytes", "allocated", true, false)
    );
    assert_eq!(f[0].unit, barrage_model::figure::Unit::Bytes);
    assert_eq!(f[0].better, barrage_model::metric::Better::Lower);
    // The label defaults to the key.
    assert_eq!(
        (f[1].label.as_str(), f[1].compared, f[1].required),
        ("alloc_objects", false, true)
    );
    // (figure table body, line of the error, text of the message); the figure starts on line 5.
    let cases: &[(&str, usize, &str)] = &[
        ("key = \"a\"\nunit = \"kB\"\nbetter = \"lower\"\n", 7, "unknown unit \"kB\" for client.figure \"a\" (one of: bytes, s, ms, us, count, req/s, number)"),
        ("key = \"a\"\nunit = \"s\"\nbetter = \"less\"\n", 8, "better must be \"lower\" or \"higher\", not \"less\""),
        ("key = \"wall_s\"\nunit = \"s\"\nbetter = \"lower\"\n", 6, "client.figure key \"wall_s\" is the key of a built-in metric"),
        ("key = \"a b\"\nunit = \"s\"\nbetter = \"lower\"\n", 6, "must name a `key=value` token"),
        ("key = \"a\"\nunit = \"s\"\nbetter = \"lower\"\nlabel = \"\"\n", 5, "label must not be empty"),
        ("key = \"a\"\nunit = \"s\"\nbetter = \"lower\"\nscale = 2\n", 9, "unknown field `scale`"),
        ("key = \"a\"\nbetter = \"lower\"\n", 5, "missing field `unit`"),
    ];
    for (body, line, text) in cases {
        let src = fig(body);
        let e = parse(&src).expect_err(&src);
        let msg = e.to_string();
        assert!(msg.contains(text), "{msg:?} lacks {text:?}");
        assert_eq!(e.line(), Some(*line), "{msg}\n--- for ---\n{src}");
        assert!(!msg.contains('\n'), "one line: {msg:?}");
    }
    let twice = format!(
        "{head}[[client.figure]]\nkey = \"a\"\nunit = \"s\"\nbetter = \"lower\"\n[[client.figure]]\nkey = \"a\"\nunit = \"ms\"\nbetter = \"lower\"\n{tail}"
    );
    let e = parse(&twice).unwrap_err();
    assert_eq!(e.line(), Some(10));
    assert!(
        e.to_string()
            .ends_with("client.figure key \"a\" is declared twice"),
        "{e}"
    );
}

#[test]
fn study_targets_and_stages_in_variants_and_phases() {
    // Files are relative to the study's directory; a bad one is refused at parse time with
    // its own FILE:LINE.
    let dir = std::env::temp_dir().join(format!("barrage-study-targets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("api.txt"), "GET /a\n\nPOST /b\n").unwrap();
    std::fs::write(dir.join("bad.txt"), "GET /a\nX-Token abc\n").unwrap();
    let src = r#"
[study]
name = "t"
[load]
duration = "5s"
targets = "api.txt"
[[load.variant]]
name = "ramp"
stages = ["2s:100,2s:100", "4s:300"]
[[load.variant]]
name = "closed"
[[load.phase]]
name = "first"
[[load.phase]]
name = "second"
stages = "1s:50"
[[contender]]
name = "a"
start = "true {port}"
"#;
    let s = study::parse(src, "t.toml", &dir).unwrap();
    let points = sweep::points(&s).unwrap();
    // Each point's label and, per phase, (duration in s, stages).
    type Shape = Vec<(String, Vec<(Option<u64>, String)>)>;
    let shape: Shape = points
        .iter()
        .map(|p| {
            let phases = p
                .phases
                .iter()
                .map(|ph| {
                    let l = &ph.load;
                    let stages = barrage_model::units::format_stages(&l.stages);
                    (l.duration.map(|d| d.as_secs()), stages)
                })
                .collect();
            (p.label.clone(), phases)
        })
        .collect();
    let st = |s: &str| s.to_string();
    assert_eq!(
        shape,
        vec![
            (
                st("ramp stages=2s:100,2s:100"),
                vec![(None, st("2s:100,2s:100")), (None, st("1s:50"))]
            ),
            (
                st("ramp stages=4s:300"),
                vec![(None, st("4s:300")), (None, st("1s:50"))]
            ),
            (st("closed"), vec![(Some(5), st("")), (None, st("1s:50"))]),
        ]
    );
    let targets = points[0].phases[0].load.targets.clone().unwrap();
    assert_eq!(Path::new(&targets), dir.join("api.txt"));
    assert_eq!(points[0].planned_duration().as_secs(), 5);

    let bad = src.replace("api.txt", "bad.txt");
    let e = study::parse(&bad, "t.toml", &dir).unwrap_err().to_string();
    assert!(
        e.contains("bad.txt:2: header \"X-Token abc\" has no colon"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A WebSocket study may sweep the echo check like any declared option: one point checks that
/// each reply echoes its message, the other takes any reply.
#[test]
fn study_sweeps_the_echo_check() {
    let src = "[study]\nname = \"x\"\n[load]\nws = true\npath = \"/ws\"\nduration = \"1s\"\necho_check = [true, false]\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n";
    let points = sweep::points(&parse(src).unwrap()).unwrap();
    let got: Vec<(&str, bool)> = points
        .iter()
        .map(|p| match p.phases[0].load.protocol {
            barrage_model::load::Protocol::Ws { echo, .. } => (p.label.as_str(), echo),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        got,
        [("echo_check=true", true), ("echo_check=false", false)]
    );
}

#[test]
fn study_ws_variant_runs_against_a_ws_url() {
    let src = r#"
[study]
name = "ws"
[load]
body = "ping"
expect_body = "pong"
connections = [1, 10]
duration = "1s"
[[load.variant]]
name = "http"
method = "POST"
path = "/"
expect_status = 200
[[load.variant]]
name = "ws"
ws = true
path = "/ws"
[[contender]]
name = "a"
start = "x {port}"
"#;
    let s = parse(src).unwrap();
    let points = sweep::points(&s).unwrap();
    let labels: Vec<&str> = points.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(labels, ["http c=1", "http c=10", "ws c=1", "ws c=10"]);
    let addr: std::net::SocketAddr = "127.0.0.1:8080".parse().unwrap();
    let at = |p: &sweep::Point| p.phases[0].load_at(addr, &[], Default::default(), 1);
    let http = at(&points[1]);
    assert_eq!(http.url, "http://127.0.0.1:8080/");
    assert!(!http.protocol.is_ws());
    assert_eq!(http.method, "POST");
    let ws = at(&points[3]);
    assert_eq!(ws.url, "ws://127.0.0.1:8080/ws");
    assert!(ws.protocol.is_ws());
    assert_eq!((ws.method.as_str(), ws.connections), ("GET", 10));
    assert_eq!(ws.expect_body.as_deref(), Some(&b"pong"[..]));
    barrage_model::load::check(&ws).unwrap();
}

/// A gRPC study's schema and data files are relative to the study's directory too (each point
/// checked at parse time: the .proto compiled, the data encoded), and `call` sweeps like any
/// declared option.
#[test]
fn study_grpc_files_are_relative_to_the_study() {
    let dir = std::env::temp_dir().join(format!("barrage-study-grpc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("api.proto"),
        "syntax = \"proto3\";\npackage p;\nmessage M { string s = 1; }\n\
         service S { rpc A(M) returns (M); rpc B(M) returns (M); }\n",
    )
    .unwrap();
    std::fs::write(dir.join("data.json"), r#"{"s": "x"}"#).unwrap();
    let src = "[study]\nname = \"g\"\n[load]\ngrpc = true\nduration = \"1s\"\nproto = \"api.proto\"\ndata_file = \"data.json\"\ncall = [\"p.S/A\", \"p.S/B\"]\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n";
    let s = study::parse(src, "g.toml", &dir).unwrap();
    let points = sweep::points(&s).unwrap();
    let calls: Vec<_> = points
        .iter()
        .map(|p| p.phases[0].load.call.clone().unwrap())
        .collect();
    assert_eq!(calls, ["p.S/A", "p.S/B"]);
    let load = &points[0].phases[0].load;
    assert_eq!(
        load.proto.as_deref().map(Path::new),
        Some(dir.join("api.proto").as_path())
    );
    assert_eq!(
        load.data_file.as_deref().map(Path::new),
        Some(dir.join("data.json").as_path())
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A phase may run a wrk script (`script = "file.lua"`), found beside the study file like its
/// other files, and swept like any option; a script that does not compile is the study's error
/// when its points are validated, before any contender starts.
#[test]
fn a_phase_runs_a_wrk_script_beside_the_study() {
    let dir = std::env::temp_dir().join(format!("barrage-study-script-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("a.lua"),
        "wrk.method = \"POST\"\nwrk.body = \"x\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("b.lua"),
        "request = function() return wrk.format() end\n",
    )
    .unwrap();
    let src = "[study]\nname = \"s\"\n[load]\nduration = \"1s\"\nscript = [\"a.lua\", \"b.lua\"]\n[[contender]]\nname = \"a\"\nstart = \"x {port}\"\n";
    let s = study::parse(src, "s.toml", &dir).unwrap();
    let points = sweep::points(&s).unwrap();
    let scripts: Vec<_> = points
        .iter()
        .map(|p| {
            p.phases[0]
                .load
                .script
                .clone()
                .map(std::path::PathBuf::from)
        })
        .collect();
    assert_eq!(scripts, [Some(dir.join("a.lua")), Some(dir.join("b.lua"))]);
    std::fs::write(dir.join("c.lua"), "request = function(\n").unwrap();
    let broken = src.replace("\"b.lua\"]", "\"c.lua\"]");
    let e = study::parse(&broken, "s.toml", &dir)
        .unwrap_err()
        .to_string();
    assert!(e.contains("c.lua:2:"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `[[question]]`s are read as declared and refused, with their line, when a claim, a side, a
/// metric or a point is not the study's.
#[test]
fn study_questions_are_checked_against_the_study() {
    let base = r#"
[study]
name = "q"

[load]
duration = "1s"
connections = [1, 10]

[[load.variant]]
name = "ka"

[[contender]]
name = "a"
start = "true {port}"

[[contender]]
name = "b"
start = "true {port}"
"#;
    let ok = format!(
        "{base}\n[[question]]\nid = \"x\"\noriginal = \"A beats B\"\nclaim = \"a > b\"\n\
         metric = [\"rps\", \"latency_p50_us\"]\nat = \"c=10\"\nexpected = 1.2\n\n\
         [[question]]\nid = \"y\"\nclaim = \"a ~ b within 5%\"\nmetric = \"rps\"\n\
         across = \"c=10 vs c=1\"\n"
    );
    let s = parse(&ok).expect("questions parse");
    assert_eq!(s.questions.len(), 2);
    assert_eq!(s.questions[0].metric, ["rps", "latency_p50_us"]);
    assert_eq!(s.questions[0].expected, Some(1.2));
    assert_eq!(s.questions[1].across.as_deref(), Some("c=10 vs c=1"));
    for (q, says) in [
        (
            "claim = \"a > c\"\nmetric = \"rps\"\nat = \"c=1\"",
            "no contender \"c\"",
        ),
        (
            "claim = \"a > b\"\nmetric = \"speed\"\nat = \"c=1\"",
            "no metric \"speed\"",
        ),
        (
            "claim = \"a > b\"\nmetric = \"rps\"\nat = \"c=5\"",
            "no point of the run is at \"c=5\"",
        ),
        (
            "claim = \"a > b\"\nmetric = \"rps\"\nat = \"cpus=1\"",
            "cpus is not an axis",
        ),
        (
            "claim = \"a > b\"\nmetric = \"rps\"",
            "2 points are at \"\"",
        ),
        (
            "claim = \"a ~ b\"\nmetric = \"rps\"\nat = \"c=1\"",
            "says its margin",
        ),
        (
            "claim = \"a > b\"\nmetric = \"rps\"\nat = \"c=1\"\nexpected = -1",
            "a ratio above 0",
        ),
    ] {
        let src = format!("{base}\n[[question]]\nid = \"z\"\n{q}\n");
        let e = parse(&src).unwrap_err().to_string();
        assert!(e.contains(says), "{q:?}: {e}");
        // The line is the question's table.
        assert!(e.starts_with("t.toml:2"), "{e}");
    }
    let twice = format!(
        "{ok}\n[[question]]\nid = \"x\"\nclaim = \"b > a\"\nmetric = \"rps\"\nat = \"c=1\"\n"
    );
    assert!(parse(&twice)
        .unwrap_err()
        .to_string()
        .contains("another question has this id"));
}

/// `[[subset]]`s name parts of one study file: `select` chooses one, and the run includes only
/// its points and contenders; names, contenders and conditions are checked.
#[test]
fn study_subsets_select_points_and_contenders() {
    let base = r#"
[study]
name = "s"
cpus = [1, "all"]

[load]
duration = "1s"
connections = [1, 10]

[[contender]]
name = "a"
start = "true {port}"

[[contender]]
name = "b"
start = "true {port}"

[[subset]]
name = "one-cpu-c10"
at = "cpus=1 c=10"

[[subset]]
name = "a-only"
contenders = ["a"]
"#;
    let mut s = parse(base).expect("subsets parse");
    let points = sweep::points(&s).unwrap();
    let labels: Vec<&str> = points.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(
        labels,
        ["cpus=1 c=1", "cpus=1 c=10", "cpus=all c=1", "cpus=all c=10"]
    );
    // The whole study without a subset.
    assert!(points
        .iter()
        .all(|p| s.includes(p, "a") && s.includes(p, "b")));
    s.select("one-cpu-c10").unwrap();
    let cells: Vec<(&str, &str)> = points
        .iter()
        .flat_map(|p| ["a", "b"].map(|c| (p.label.as_str(), c)))
        .filter(|(l, c)| s.includes(points.iter().find(|p| p.label == *l).unwrap(), c))
        .collect();
    assert_eq!(cells, [("cpus=1 c=10", "a"), ("cpus=1 c=10", "b")]);
    s.select("a-only").unwrap();
    assert!(points
        .iter()
        .all(|p| s.includes(p, "a") && !s.includes(p, "b")));
    let e = s.select("nope").unwrap_err();
    assert!(
        e.contains("no subset \"nope\" (its subsets: one-cpu-c10, a-only)"),
        "{e}"
    );
    for (bad, says) in [
        (
            "name = \"x\"\nat = \"c=5\"",
            "no point of the sweep is at \"c=5\"",
        ),
        ("name = \"x\"\ncontenders = [\"z\"]", "no contender \"z\""),
        ("name = \"a-only\"", "a name of its own"),
    ] {
        let e = parse(&format!("{base}\n[[subset]]\n{bad}\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains(says), "{bad:?}: {e}");
    }
}

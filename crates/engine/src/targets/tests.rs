//! Tables for the targets parsers: what each format reads, and the `LINE: why` of each bad
//! file.

use super::*;

fn no_body(p: &str) -> Result<Vec<u8>, String> {
    match p {
        "ping.json" => Ok(b"{\"ping\":1}".to_vec()),
        _ => Err(format!(
            "cannot read body file {p}: No such file or directory"
        )),
    }
}

fn t(method: &str, url: &str, headers: &[(&str, &str)], body: &[u8], line: usize) -> TargetSpec {
    TargetSpec {
        method: method.into(),
        url: url.into(),
        headers: headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect(),
        body: body.to_vec(),
        line,
    }
}

#[test]
fn http_format_reads_targets() {
    let text = "# a comment\n\
                GET http://127.0.0.1:8080/a?x=1\n\
                X-Account-ID: 8675309\n\
                Accept:  text/plain \n\
                \n\
                \n\
                POST /things\n\
                Content-Type: application/json\n\
                @ping.json\n\
                DELETE /b\n\
                GET /c\n\
                HEAD /d\r\n";
    let got = parse_http(text, no_body).unwrap();
    assert_eq!(
        got,
        vec![
            t(
                "GET",
                "http://127.0.0.1:8080/a?x=1",
                &[("X-Account-ID", "8675309"), ("Accept", "text/plain")],
                b"",
                2
            ),
            t(
                "POST",
                "/things",
                &[("Content-Type", "application/json")],
                b"{\"ping\":1}",
                7
            ),
            t("DELETE", "/b", &[], b"", 10),
            t("GET", "/c", &[], b"", 11),
            t("HEAD", "/d", &[], b"", 12),
        ]
    );
}

#[test]
fn http_format_errors_name_the_line() {
    let cases: &[(&str, usize, &str)] = &[
        ("GET\n", 1, "has no URL"),
        ("\n\nG(T /a\n", 3, "bad method"),
        ("GET /a\nAuthorization Bearer x\n", 2, "has no colon"),
        ("GET /a\nBad Name: x\n", 2, "bad header name"),
        (
            "GET /a\n@missing.json\n",
            2,
            "cannot read body file missing.json",
        ),
        ("POST /a\n@ping.json\nX-After: 1\n", 3, "only a new target"),
        ("GET /a b\n", 1, "contains spaces"),
    ];
    for (text, line, want) in cases {
        let (n, why) = parse_http(text, no_body).unwrap_err();
        assert_eq!(n, *line, "{text:?}: {why}");
        assert!(why.contains(want), "{text:?}: {why:?} lacks {want:?}");
    }
}

#[test]
fn json_lines_read_targets() {
    let text = concat!(
        r#"{"method":"POST","url":"http://h:1/p","header":{"X-A":["1","2"]},"body":"cGluZw=="}"#,
        "\n\n",
        r#"{"url":"/q"}"#,
        "\n"
    );
    let got = parse_json(text).unwrap();
    assert_eq!(
        got,
        vec![
            t(
                "POST",
                "http://h:1/p",
                &[("X-A", "1"), ("X-A", "2")],
                b"ping",
                1
            ),
            t("GET", "/q", &[], b"", 3),
        ]
    );
}

#[test]
fn json_lines_errors_name_the_line() {
    let cases: &[(&str, usize, &str)] = &[
        (
            "{\"url\":\"/a\"}\n{\"method\":\"GET\"}\n",
            2,
            "missing field `url`",
        ),
        ("{\"url\":\"/a\",\"body\":\"%%%\"}\n", 1, "not base64"),
        ("{\"url\":\"/a\",\"method\":\"G T\"}\n", 1, "bad method"),
        ("not json\n", 1, "expected"),
        (
            "{\"url\":\"/a\",\"headers\":{}}\n",
            1,
            "unknown field `headers`",
        ),
        ("{\"url\":\"\"}\n", 1, "bad URL"),
    ];
    for (text, line, want) in cases {
        let (n, why) = parse_json(text).unwrap_err();
        assert_eq!(n, *line, "{text:?}: {why}");
        assert!(why.contains(want), "{text:?}: {why:?} lacks {want:?}");
    }
}

#[test]
fn body_lines_split_on_line_ends() {
    let cases: &[(&[u8], &[&[u8]])] = &[
        (b"", &[]),
        (b"a", &[b"a"]),
        (b"a\n", &[b"a"]),
        (b"a\r\nb\n", &[b"a", b"b"]),
        (b"a\n\nb", &[b"a", b"", b"b"]),
        (b"{\"x\":1}\n{\"x\":2}\n", &[b"{\"x\":1}", b"{\"x\":2}"]),
    ];
    for (data, want) in cases {
        let want: Vec<Vec<u8>> = want.iter().map(|l| l.to_vec()).collect();
        assert_eq!(
            body_lines(data),
            want,
            "{:?}",
            String::from_utf8_lossy(data)
        );
    }
}

#[test]
fn formats_by_name_or_extension() {
    assert_eq!(Format::choose(None, "t.txt"), Ok(Format::Http));
    assert_eq!(Format::choose(None, "dir.json/targets"), Ok(Format::Http));
    assert_eq!(Format::choose(None, "t.jsonl"), Ok(Format::Json));
    assert_eq!(Format::choose(Some("http"), "t.json"), Ok(Format::Http));
    assert!(Format::choose(Some("yaml"), "t").is_err());
}

#[test]
fn shuffles_are_permutations_fixed_by_the_seed() {
    // The order a seed names is part of the interface: this one must never change.
    assert_eq!(shuffled(8, 42), shuffled(8, 42));
    assert_eq!(shuffled(8, 42), vec![3, 1, 6, 2, 4, 0, 7, 5]);
    assert_ne!(shuffled(8, 42), shuffled(8, 43));
    for n in [0, 1, 2, 10, 1000] {
        let mut s = shuffled(n, 7);
        s.sort_unstable();
        assert_eq!(s, (0..n as u32).collect::<Vec<_>>());
    }
    // Every position is about equally likely to hold target 0 (a biased shuffle would not be).
    let mut first = [0u32; 4];
    for seed in 0..4000 {
        first[shuffled(4, seed)[0] as usize] += 1;
    }
    assert!(first.iter().all(|&c| (850..1150).contains(&c)), "{first:?}");
}

mod properties {
    use super::super::*;
    use proptest::prelude::*;

    fn target() -> impl Strategy<Value = TargetSpec> {
        (
            prop::sample::select(vec!["GET", "POST", "PUT", "DELETE", "HEAD", "PATCH"]),
            "/[a-z0-9/?=&._-]{0,20}",
            prop::collection::vec(("X-[A-Za-z0-9-]{1,10}", "[ -~]{0,20}"), 0..4),
        )
            .prop_map(|(m, url, headers)| TargetSpec {
                method: m.to_string(),
                url,
                // Values are read trimmed, as vegeta does.
                headers: headers
                    .into_iter()
                    .map(|(n, v)| (n, v.trim().to_string()))
                    .collect(),
                body: Vec::new(),
                line: 0,
            })
    }

    proptest! {
        #[test]
        fn any_text_is_targets_or_an_error_never_a_panic(text in "[ -~\n\r\t@#:]{0,300}") {
            let _ = parse_http(&text, |_| Ok(Vec::new()));
            let _ = parse_json(&text);
        }

        #[test]
        fn written_targets_read_back_the_same(ts in prop::collection::vec(target(), 1..8)) {
            let mut text = String::new();
            for t in &ts {
                text.push_str(&format!("{} {}\n", t.method, t.url));
                for (n, v) in &t.headers {
                    text.push_str(&format!("{n}: {v}\n"));
                }
                text.push('\n');
            }
            let got = parse_http(&text, |_| Ok(Vec::new())).unwrap();
            let strip = |v: &[TargetSpec]| -> Vec<TargetSpec> {
                v.iter().cloned().map(|t| TargetSpec { line: 0, ..t }).collect()
            };
            prop_assert_eq!(strip(&got), strip(&ts));
        }
    }
}

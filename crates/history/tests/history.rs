//! The history database as its users meet it: concurrent writers keep every run, files that are
//! not barrage histories are refused with the path named and left byte for byte as they were,
//! and what is appended reads back exactly (documents, listings, filters, trends).

use barrage_history::{DocKind, Filter, History, HistoryError, NewRun, Origin, Which};
use barrage_model::load::LoadDoc;
use std::path::{Path, PathBuf};

/// A directory of its own under the system's temp directory, removed on drop (and cleared
/// first, so a run killed halfway does not disturb the next).
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("barrage-history-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    fn join(&self, f: &str) -> PathBuf {
        self.0.join(f)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A load run on `url` at `rps` with a p99 of `p99` µs; its document is the pretty JSON of it
/// (as `--json` writes), carrying `tag` so documents differ.
fn load_run(url: &str, rps: f64, p99: u64, tag: &str) -> NewRun {
    let mut doc = LoadDoc {
        schema: "barrage.load/1".into(),
        rps,
        requests: 100,
        config: serde_json::json!({ "url": url, "method": "GET" }),
        error_examples: [("tag".to_string(), tag.to_string())].into(),
        hdr: Some("HISTFAAAACR4nJNpmSzMwMDAwQABzFCaEUzKf7D/AJEBALgSB8I=".into()),
        ..LoadDoc::default()
    };
    doc.latency_us.count = 100;
    doc.latency_us.p99 = p99;
    let text = serde_json::to_string_pretty(&doc).unwrap();
    let mut origin = Origin {
        time: "2026-01-02T03:04:05Z".into(),
        command: format!("barrage load {url} -n 100"),
        barrage_version: "0.1.0".into(),
        ..Origin::default()
    };
    origin.machine.hostname = "ci-runner".into();
    NewRun::load(&doc, text, origin)
}

/// The file's bytes, or None when there is none.
fn bytes(p: &Path) -> Option<Vec<u8>> {
    std::fs::read(p).ok()
}

/// The directory's entries, to check that refusing a file created nothing beside it.
fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn two_concurrent_writers_keep_every_run() {
    let dir = TempDir::new("concurrent");
    let db = dir.join("history.db");
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
    // Both open the same new file at once (so they also race to create it), then append.
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let (db, barrier) = (db.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                let mut h = History::open(&db).unwrap();
                (0..50)
                    .map(|i| {
                        let run = load_run(
                            "http://127.0.0.1/",
                            1000.0 + i as f64,
                            5,
                            &format!("{w}-{i}"),
                        );
                        let id = h.append(&run).unwrap();
                        (id, run.document)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let written: Vec<(i64, String)> = writers
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    let h = History::open(&db).unwrap();
    let runs = h.list(&Filter::default()).unwrap();
    assert_eq!(runs.len(), 100);
    let mut ids: Vec<i64> = runs.iter().map(|r| r.id).collect();
    ids.dedup();
    assert_eq!(ids.len(), 100, "ids are distinct (and listed in order)");
    for (id, doc) in &written {
        let stored = h.document(Which::Id(*id)).unwrap();
        assert_eq!(&stored.document, doc, "run {id}");
        assert_eq!(stored.kind, DocKind::Load);
        let parsed: LoadDoc = serde_json::from_str(&stored.document).unwrap();
        assert_eq!(parsed.schema, "barrage.load/1");
    }
}

/// Opens `path` expecting an error, and checks the message names the path and the file (and
/// the directory around it) did not change.
fn refused(path: &Path) -> HistoryError {
    let dir = path.parent().unwrap();
    let (before, around) = (bytes(path), entries(dir));
    let e = match History::open(path) {
        Ok(_) => panic!("{} opened", path.display()),
        Err(e) => e,
    };
    assert!(
        e.to_string().contains(&path.display().to_string()),
        "the error names the path: {e}"
    );
    assert_eq!(bytes(path), before, "{} changed", path.display());
    assert_eq!(
        entries(dir),
        around,
        "files appeared beside {}",
        path.display()
    );
    e
}

#[test]
fn a_file_of_random_bytes_is_refused_and_left_untouched() {
    let dir = TempDir::new("random");
    let path = dir.join("notes.db");
    // Deterministic "random" bytes (an LCG), 4 KiB.
    let mut x: u32 = 12345;
    let junk: Vec<u8> = (0..4096)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (x >> 16) as u8
        })
        .collect();
    std::fs::write(&path, &junk).unwrap();
    let e = refused(&path);
    assert!(matches!(e, HistoryError::NotSqlite { .. }), "{e}");
    assert!(e.to_string().contains("not an SQLite database"), "{e}");

    // SQLite's header followed by garbage: SQLite itself finds it is no database.
    let mut fake = b"SQLite format 3\0".to_vec();
    fake.extend_from_slice(&junk);
    std::fs::write(&path, &fake).unwrap();
    let e = refused(&path);
    assert!(matches!(e, HistoryError::NotSqlite { .. }), "{e}");
    assert_eq!(std::fs::read(&path).unwrap(), fake);
}

#[test]
fn another_applications_database_is_refused_and_left_untouched() {
    let dir = TempDir::new("foreign");
    let path = dir.join("app.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(
            "CREATE TABLE accounts (id INTEGER PRIMARY KEY, owner TEXT);
             INSERT INTO accounts (owner) VALUES ('alice'), ('bob');",
        )
        .unwrap();
    }
    let e = refused(&path);
    assert!(matches!(e, HistoryError::Foreign { .. }), "{e}");
    assert!(e.to_string().contains("tables accounts"), "{e}");
    // Its data is still there.
    let c = rusqlite::Connection::open(&path).unwrap();
    let n: i64 = c
        .query_row("SELECT count(*) FROM accounts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 2);
    drop(c);

    // One that says whose it is, in its header.
    let other = dir.join("other.db");
    {
        let c = rusqlite::Connection::open(&other).unwrap();
        c.execute_batch("PRAGMA application_id = 7; CREATE TABLE t (x);")
            .unwrap();
    }
    let e = refused(&other);
    assert!(e.to_string().contains("application_id 0x7"), "{e}");
}

#[test]
fn a_history_of_a_newer_schema_is_refused_and_left_untouched() {
    let dir = TempDir::new("newer");
    let path = dir.join("history.db");
    History::open(&path)
        .unwrap()
        .append(&load_run("http://a/", 1.0, 1, "x"))
        .unwrap();
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute(
            "UPDATE meta SET value = '99' WHERE key = 'schema_version'",
            [],
        )
        .unwrap();
    }
    // Found inside the write transaction (the header still says 1), before anything is written.
    let e = refused(&path);
    assert!(
        matches!(
            e,
            HistoryError::NewerSchema {
                found: 99,
                supported: 2,
                ..
            }
        ),
        "{e}"
    );
    // Found in the header, before SQLite opens the file.
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("PRAGMA user_version = 98").unwrap();
    }
    let e = refused(&path);
    assert!(
        matches!(
            e,
            HistoryError::NewerSchema {
                found: 98,
                supported: 2,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn a_directory_or_a_missing_directory_is_a_clear_error() {
    let dir = TempDir::new("unreadable");
    let sub = dir.join("a-directory");
    std::fs::create_dir(&sub).unwrap();
    let e = refused(&sub);
    assert!(matches!(e, HistoryError::NotAFile { .. }), "{e}");
    assert!(sub.is_dir());

    let missing = dir.join("no-such-dir").join("history.db");
    let e = match History::open(&missing) {
        Ok(_) => panic!("opened under a missing directory"),
        Err(e) => e,
    };
    let text = e.to_string();
    assert!(text.contains(&missing.display().to_string()), "{text}");
    assert!(text.contains("does not exist"), "{text}");
    assert!(
        !dir.join("no-such-dir").exists(),
        "the directory was created"
    );
}

#[test]
fn an_empty_file_becomes_a_history() {
    let dir = TempDir::new("empty");
    let path = dir.join("history.db");
    std::fs::write(&path, b"").unwrap();
    let mut h = History::open(&path).unwrap();
    assert_eq!(h.append(&load_run("http://a/", 5.0, 1, "x")).unwrap(), 1);
    drop(h);
    assert_eq!(&std::fs::read(&path).unwrap()[..16], b"SQLite format 3\0");
}

#[test]
fn append_then_document_returns_the_exact_json() {
    let dir = TempDir::new("roundtrip");
    let path = dir.join("history.db");
    let mut h = History::open(&path).unwrap();
    let a = load_run("http://a/", 100.0, 10, "first: ünïcode, \"quotes\"\n\ttab");
    let b = load_run("http://b/", 200.0, 20, "second");
    let c = load_run("http://c/", 300.0, 30, "third");
    let ids: Vec<i64> = [&a, &b, &c].iter().map(|r| h.append(r).unwrap()).collect();
    assert_eq!(ids, [1, 2, 3]);
    drop(h);
    // Read back through a fresh connection, as `compare` would.
    let h = History::open(&path).unwrap();
    let doc = |w: &str| h.document(Which::parse(w).unwrap()).unwrap();
    assert_eq!(doc("latest").document, c.document);
    assert_eq!(doc("latest").id, 3);
    assert_eq!(doc("previous").document, b.document);
    assert_eq!(doc("latest~2").document, a.document);
    assert_eq!(doc("1").document, a.document);
    assert_eq!(doc("2").time, "2026-01-02T03:04:05Z");
    let e = h.document(Which::Id(9)).unwrap_err().to_string();
    assert!(e.contains("no run 9") && e.contains("history.db"), "{e}");
    let e = h.document(Which::Latest(3)).unwrap_err().to_string();
    assert!(e.contains("fewer than 4 runs"), "{e}");
    // The latest of one URL.
    let f = Filter {
        url: Some("//b/".into()),
        ..Filter::default()
    };
    assert_eq!(h.document_matching(Which::Latest(0), &f).unwrap().id, 2);
    // As compare names them.
    assert_eq!(
        Which::from_side("history:latest~1").unwrap().unwrap(),
        Which::Latest(1)
    );
    assert!(Which::from_side("results/a.json").is_none());
    assert!(matches!(
        Which::from_side("history:newest"),
        Some(Err(HistoryError::BadWhich(_)))
    ));
    assert!(Which::parse("0").is_err() && Which::parse("latest~x").is_err());
}

#[test]
fn list_filters_by_url_study_and_metric() {
    let dir = TempDir::new("filters");
    let mut h = History::open(dir.join("history.db")).unwrap();
    h.append(&load_run("http://api.local/users", 100.0, 10, "1"))
        .unwrap();
    h.append(&load_run("http://api.local/orders", 200.0, 20, "2"))
        .unwrap();
    // A study run with one cell's figures.
    let mut r = barrage_model::study::Results {
        schema: "barrage.study/2".into(),
        status: "complete".into(),
        ..Default::default()
    };
    r.study.name = "pingpong".into();
    r.study.kind = barrage_model::study::ContenderRole::Client;
    r.summary = vec![barrage_model::study::Cell {
        point: 0,
        contender: "curl".into(),
        stats: [(
            "wall_s".to_string(),
            serde_json::from_value(serde_json::json!({
                "n": 3, "median": 1.5, "mean": 1.5, "stddev": null, "min": 1.4, "max": 1.6,
                "second_best": null, "ci95_mean": null, "ci95_median": null
            }))
            .unwrap(),
        )]
        .into(),
        ..Default::default()
    }];
    let text = serde_json::to_string(&r).unwrap();
    let study = h
        .append(&NewRun::study(&r, text, Origin::default()))
        .unwrap();

    let ids = |f: Filter| -> Vec<i64> { h.list(&f).unwrap().iter().map(|r| r.id).collect() };
    assert_eq!(ids(Filter::default()), [1, 2, 3]);
    let url = |u: &str| Filter {
        url: Some(u.into()),
        ..Filter::default()
    };
    assert_eq!(ids(url("orders")), [2]);
    assert_eq!(ids(url("api.local")), [1, 2]);
    assert_eq!(ids(url("nowhere")), Vec::<i64>::new());
    let by_study = Filter {
        study: Some("pingpong".into()),
        ..Filter::default()
    };
    assert_eq!(ids(by_study), [study]);
    let metric = |k: &str| Filter {
        metric: Some(k.into()),
        ..Filter::default()
    };
    assert_eq!(ids(metric("wall_s")), [3]);
    assert_eq!(ids(metric("latency_p99_us")), [1, 2]);
    let last = Filter {
        last: Some(2),
        ..Filter::default()
    };
    assert_eq!(ids(last), [2, 3]);

    let runs = h.list(&Filter::default()).unwrap();
    assert_eq!(runs[0].kind, DocKind::Load);
    assert_eq!(runs[0].url, "http://api.local/users");
    assert_eq!(runs[0].hostname, "ci-runner");
    assert_eq!(
        runs[0].command,
        "barrage load http://api.local/users -n 100"
    );
    // The load figures in their listing order, throughput first.
    assert_eq!(runs[0].metrics[0].key, "rps");
    assert_eq!(runs[0].metrics[0].value, 100.0);
    let s = &runs[2];
    assert_eq!((s.kind, s.name.as_str()), (DocKind::Study, "pingpong"));
    assert_eq!(s.metrics.len(), 1);
    assert_eq!(
        (s.metrics[0].contender.as_str(), s.metrics[0].value),
        ("curl", 1.5)
    );
    let wall = h.trend("wall_s", &Filter::default()).unwrap();
    assert_eq!(wall.len(), 1);
    assert_eq!(wall[0].series.kind, DocKind::Study);
    assert_eq!(wall[0].series.label(), "pingpong: curl");
}

#[test]
fn trend_values_come_in_run_order() {
    let dir = TempDir::new("trend");
    let mut h = History::open(dir.join("history.db")).unwrap();
    for (i, rps) in [300.0, 100.0, 200.0].into_iter().enumerate() {
        h.append(&load_run("http://a/", rps, 10 * (i as u64 + 1), "a"))
            .unwrap();
        h.append(&load_run("http://b/", rps * 2.0, 7, "b")).unwrap();
    }
    let all = h.trend("rps", &Filter::default()).unwrap();
    let got: Vec<(i64, &str, f64)> = all
        .iter()
        .map(|p| (p.id, p.series.url.as_str(), p.value))
        .collect();
    assert_eq!(
        got,
        [
            (1, "http://a/", 300.0),
            (2, "http://b/", 600.0),
            (3, "http://a/", 100.0),
            (4, "http://b/", 200.0),
            (5, "http://a/", 200.0),
            (6, "http://b/", 400.0),
        ]
    );
    assert_eq!(all[0].series.label(), "http://a/");
    let only_a = Filter {
        url: Some("//a/".into()),
        ..Filter::default()
    };
    let p99: Vec<f64> = h
        .trend("latency_p99_us", &only_a)
        .unwrap()
        .iter()
        .map(|p| p.value)
        .collect();
    assert_eq!(p99, [10.0, 20.0, 30.0]);
    assert!(h.trend("wall_s", &Filter::default()).unwrap().is_empty());
    let keys = h.metric_keys(&Filter::default()).unwrap();
    assert_eq!(&keys[..2], ["rps", "latency_p50_us"].map(String::from));
}

#[test]
fn a_reader_creates_nothing_and_writes_nothing() {
    let dir = TempDir::new("reader");
    let path = dir.join("history.db");
    let e = match History::open_read_only(&path) {
        Ok(_) => panic!("a missing history opened"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains(&path.display().to_string()), "{e}");
    assert!(!path.exists(), "the reader created the file");
    std::fs::write(&path, b"").unwrap();
    let e = History::open_read_only(&path).err().unwrap().to_string();
    assert!(e.contains("no run was ever recorded"), "{e}");
    std::fs::remove_file(&path).unwrap();

    let run = load_run("http://a/", 1.0, 1, "x");
    History::open(&path).unwrap().append(&run).unwrap();
    let before = bytes(&path);
    let mut r = History::open_read_only(&path).unwrap();
    assert_eq!(r.document(Which::Latest(0)).unwrap().document, run.document);
    assert!(r.append(&run).is_err(), "appended through a reader");
    drop(r);
    assert_eq!(bytes(&path), before);
    assert_eq!(
        entries(&dir.0),
        ["history.db"],
        "the reader left files behind"
    );
    assert_eq!(
        History::open(&path)
            .unwrap()
            .list(&Filter::default())
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn a_schema_1_history_gets_the_registrys_error_share_when_opened_for_writing() {
    let dir = TempDir::new("migrate");
    let path = dir.join("history.db");
    // 100 responses, 4 errors of which 3 connect errors: schema 1 recorded 1 / 101 (connect
    // errors left out); the registry's share, which barrage compare judges, is 4 / 104.
    let mut run = load_run("http://a/", 1.0, 1, "x");
    let mut doc: LoadDoc = serde_json::from_str(&run.document).unwrap();
    doc.errors
        .count(barrage_model::load::ErrorClass::Timeout, 1);
    doc.errors
        .count(barrage_model::load::ErrorClass::Connect, 3);
    run.document = serde_json::to_string_pretty(&doc).unwrap();
    History::open(&path).unwrap().append(&run).unwrap();
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(
            "UPDATE metrics SET value = 100.0 / 101.0 WHERE key = 'error_pct';
             UPDATE meta SET value = '1' WHERE key = 'schema_version';
             PRAGMA user_version = 1;",
        )
        .unwrap();
    }
    let share = |h: &History| {
        let t = h.trend("error_pct", &Filter::default()).unwrap();
        assert_eq!(t.len(), 1);
        t[0].value
    };
    // A reader reads it as recorded.
    let old = share(&History::open_read_only(&path).unwrap());
    assert!((old - 100.0 / 101.0).abs() < 1e-12, "{old}");
    // A writer migrates it, once.
    let h = History::open(&path).unwrap();
    let new = share(&h);
    assert!((new - 400.0 / 104.0).abs() < 1e-12, "{new}");
    drop(h);
    let c = rusqlite::Connection::open(&path).unwrap();
    let v: String = c
        .query_row(
            "SELECT value FROM meta WHERE key = 'schema_version'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let u: i64 = c
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!((v.as_str(), u), ("2", 2));
}

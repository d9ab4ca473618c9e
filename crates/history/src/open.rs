//! Opening a history database without ever damaging a file that is not one. A path that is
//! missing or empty becomes a new history. An existing file is first judged from its 100-byte
//! header, read as plain bytes: it must be SQLite's, with barrage's `application_id` and a
//! schema version this barrage knows (an SQLite database without an id is looked at through a
//! read-only connection, and taken only when it has no tables). Only then does SQLite open it
//! for writing, and the check is repeated inside the first write transaction, before anything
//! is written, so a file swapped in between is still refused.

use crate::HistoryError;
use rusqlite::{Connection, OpenFlags, TransactionBehavior};
use std::io::Read as _;
use std::path::Path;
use std::time::{Duration, Instant};

/// `PRAGMA application_id` of a barrage history ("BRGH"): how barrage tells its databases from
/// other applications' before it writes anything.
pub const APPLICATION_ID: i32 = 0x4252_4748;

/// The schema this barrage writes (the `meta` table's `schema_version`). Version 2: a load
/// run's `error_pct` is the registry's error share (connect errors included, as `barrage
/// compare` judges it); version 1 left connect errors out. The tables are the same, and a
/// version 1 history opened for writing is migrated ([`migrate`]).
pub const SCHEMA_VERSION: i64 = 2;

/// How long a writer waits for another one's transaction (another run appending at the same
/// moment) before it gives up: appends take milliseconds, so only a stuck process waits this.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The header every SQLite 3 database file starts with.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// The tables (unchanged since version 1). `runs.document` is the whole result document; `metrics` holds its flat figures.
/// AUTOINCREMENT: an id is never reused, even after rows are deleted by hand, so `history:ID`
/// keeps naming one run.
const SCHEMA: &str = "
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE runs (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    time            TEXT NOT NULL,
    kind            TEXT NOT NULL,
    name            TEXT NOT NULL,
    url             TEXT NOT NULL,
    status          TEXT NOT NULL,
    command         TEXT NOT NULL,
    config          TEXT NOT NULL,
    machine         TEXT NOT NULL,
    hostname        TEXT NOT NULL,
    git_commit      TEXT,
    git_dirty       INTEGER,
    barrage_version TEXT NOT NULL,
    document        TEXT NOT NULL
);
CREATE TABLE metrics (
    run       INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    key       TEXT NOT NULL,
    point     TEXT NOT NULL,
    contender TEXT NOT NULL,
    value     REAL NOT NULL,
    PRIMARY KEY (run, key, point, contender)
) WITHOUT ROWID;
CREATE INDEX metrics_by_key ON metrics (key, run);
";

/// What the file at the path is, as far as barrage can tell without writing to it.
#[derive(Debug, PartialEq, Eq)]
enum Found {
    /// Missing, empty, or an SQLite database with nothing in it: barrage may create its schema.
    New,
    /// A barrage history this barrage can write, of this schema version.
    Ours(i64),
}

/// Opens (creating when new) the history at `path`, read-write, in WAL mode with the busy
/// timeout, so concurrent writers wait for each other instead of failing.
pub fn open(path: &Path) -> Result<Connection, HistoryError> {
    check_file(path)?;
    let sql = |source| HistoryError::Sql {
        path: path.to_path_buf(),
        cause: source,
    };
    let mut conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(sql)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
    conn.pragma_update(None, "foreign_keys", true)
        .map_err(sql)?;
    // Inside one write transaction: two processes creating the same new file both get here,
    // the second waits for the first and then finds the schema made. The check is repeated
    // here because the file may have changed since `check_file` looked; refusing then rolls
    // back a transaction that wrote nothing.
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql)?;
    match identify(&tx, path)? {
        Found::Ours(v) if v < SCHEMA_VERSION => migrate(&tx, v).map_err(sql)?,
        Found::Ours(_) => {}
        Found::New => {
            tx.execute_batch(SCHEMA).map_err(sql)?;
            tx.pragma_update(None, "application_id", APPLICATION_ID)
                .map_err(sql)?;
            tx.pragma_update(None, "user_version", SCHEMA_VERSION)
                .map_err(sql)?;
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ('schema_version', ?1), ('created_by', ?2)",
                (
                    SCHEMA_VERSION.to_string(),
                    format!("barrage {}", env!("CARGO_PKG_VERSION")),
                ),
            )
            .map_err(sql)?;
        }
    }
    tx.commit().map_err(sql)?;
    wal(&conn, path)?;
    Ok(conn)
}

/// Opens an existing history for reading only: nothing is created (a missing path is an
/// error), and a reader needs no write permission on the file.
pub fn open_read_only(path: &Path) -> Result<Connection, HistoryError> {
    let meta = std::fs::metadata(path).map_err(|source| HistoryError::Io {
        path: path.to_path_buf(),
        cause: source,
    })?;
    check_file(path)?;
    let no_runs = || HistoryError::NoSuchRun {
        path: path.to_path_buf(),
        what: "not a history yet: no run was ever recorded in it".into(),
    };
    if meta.len() == 0 {
        return Err(no_runs());
    }
    let sql = |source| HistoryError::Sql {
        path: path.to_path_buf(),
        cause: source,
    };
    // Read-write without CREATE (SQLite falls back to read-only on a write-protected file),
    // with `query_only` so that nothing can be written through it: unlike a read-only
    // connection, it removes the `-wal` and `-shm` files when it is the last to close.
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(sql)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
    conn.pragma_update(None, "query_only", true).map_err(sql)?;
    match identify(&conn, path)? {
        Found::Ours(_) => Ok(conn),
        Found::New => Err(no_runs()),
    }
}

/// Checks the path before SQLite opens it for writing, mostly from the file's 100-byte header
/// so that no SQLite connection (which may create `-wal` and `-shm` files beside a database)
/// touches a file that is not barrage's: a missing or empty file is fine (a new history), a
/// directory is refused, a file must have SQLite's header, and an SQLite header must carry
/// barrage's application id (with a schema version this barrage knows), or none at all on a
/// database without tables.
fn check_file(path: &Path) -> Result<(), HistoryError> {
    let io = |source| HistoryError::Io {
        path: path.to_path_buf(),
        cause: source,
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // SQLite's own message for a missing directory is "unable to open database file".
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
            if let Some(dir) = dir.filter(|d| !d.is_dir()) {
                return Err(io(std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!("directory {} does not exist", dir.display()),
                )));
            }
            return Ok(());
        }
        Err(e) => return Err(io(e)),
    };
    if !meta.is_file() {
        return Err(HistoryError::NotAFile {
            path: path.to_path_buf(),
        });
    }
    if meta.len() == 0 {
        return Ok(());
    }
    let mut head = [0u8; 100];
    let mut f = std::fs::File::open(path).map_err(io)?;
    let n = read_up_to(&mut f, &mut head).map_err(io)?;
    let header = Header::parse(&head[..n]).ok_or_else(|| HistoryError::NotSqlite {
        path: path.to_path_buf(),
    })?;
    match header.application_id {
        APPLICATION_ID if header.user_version > SCHEMA_VERSION => Err(HistoryError::NewerSchema {
            path: path.to_path_buf(),
            found: header.user_version,
            supported: SCHEMA_VERSION,
        }),
        APPLICATION_ID => Ok(()),
        0 if header.wal => Err(HistoryError::Foreign {
            path: path.to_path_buf(),
            what: "a WAL-mode database without an application id".into(),
        }),
        // No id: an empty database barrage may take, or another one; only a read-only look
        // at its tables tells, and in rollback-journal mode that creates no file.
        0 => check_readonly(path),
        app => Err(HistoryError::Foreign {
            path: path.to_path_buf(),
            what: format!("application_id {app:#x}"),
        }),
    }
}

/// What barrage reads of an SQLite file's header (https://sqlite.org/fileformat.html).
struct Header {
    /// The file is in WAL mode (read and write versions 2).
    wal: bool,
    user_version: i64,
    application_id: i32,
}

impl Header {
    /// The header, if `b` is one: the magic string, a valid page size and the fixed payload
    /// fractions, which random bytes after a copied magic string do not have.
    fn parse(b: &[u8]) -> Option<Header> {
        if b.len() < 100 || &b[..16] != SQLITE_MAGIC {
            return None;
        }
        let be32 = |i: usize| i32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let page = u16::from_be_bytes([b[16], b[17]]);
        let page_ok = page == 1 || ((512..=32768).contains(&page) && page.is_power_of_two());
        let versions_ok = matches!(b[18], 1 | 2) && matches!(b[19], 1 | 2);
        if !page_ok || !versions_ok || b[21..24] != [64, 32, 32] {
            return None;
        }
        Some(Header {
            wal: b[18] == 2 || b[19] == 2,
            user_version: i64::from(be32(60)),
            application_id: be32(68),
        })
    }
}

/// Reads until `buf` is full or the file ends; the count read.
fn read_up_to(f: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// Checks an SQLite file without an application id through a read-only connection (SQLite
/// cannot write to a file opened so): only a database without tables may become a history.
fn check_readonly(path: &Path) -> Result<(), HistoryError> {
    let sql = |source| HistoryError::Sql {
        path: path.to_path_buf(),
        cause: source,
    };
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(sql)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
    identify(&conn, path).map(|_| ())
}

/// What the database behind `conn` is: new (no application id, no tables), ours at a version
/// this barrage writes, or an error saying what else it is.
fn identify(conn: &Connection, path: &Path) -> Result<Found, HistoryError> {
    let path_buf = || path.to_path_buf();
    // A file with SQLite's header and garbage after it fails here, as not a database.
    let not_db = |source: rusqlite::Error| match source.sqlite_error_code() {
        Some(rusqlite::ErrorCode::NotADatabase) => HistoryError::NotSqlite { path: path_buf() },
        _ => HistoryError::Sql {
            path: path_buf(),
            cause: source,
        },
    };
    let app: i32 = conn
        .pragma_query_value(None, "application_id", |r| r.get(0))
        .map_err(not_db)?;
    let tables: Vec<String> = {
        let mut st = conn
            .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
            .map_err(not_db)?;
        let rows = st.query_map([], |r| r.get(0)).map_err(not_db)?;
        rows.collect::<Result<_, _>>().map_err(not_db)?
    };
    if app != APPLICATION_ID {
        if app == 0 && tables.is_empty() {
            return Ok(Found::New);
        }
        let what = if tables.is_empty() {
            format!("application_id {app:#x}")
        } else {
            format!("application_id {app:#x}, tables {}", tables.join(", "))
        };
        return Err(HistoryError::Foreign {
            path: path_buf(),
            what,
        });
    }
    let version: String = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'schema_version'",
            [],
            |r| r.get(0),
        )
        .map_err(|e| HistoryError::Corrupt {
            path: path_buf(),
            what: format!("no schema version ({e})"),
        })?;
    let found = version.parse::<i64>().map_err(|_| HistoryError::Corrupt {
        path: path_buf(),
        what: format!("schema version {version:?} is not a number"),
    })?;
    if found > SCHEMA_VERSION {
        return Err(HistoryError::NewerSchema {
            path: path_buf(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    Ok(Found::Ours(found))
}

/// Brings a history of schema `from` to [`SCHEMA_VERSION`], inside the caller's write
/// transaction: from 1, every load run's `error_pct` is recomputed from its stored document by
/// the registry's reading (removed where the document has none), so old and new runs of one
/// trend share one definition.
fn migrate(tx: &Connection, from: i64) -> Result<(), rusqlite::Error> {
    use barrage_model::metric::{load_value, ERROR_PCT};
    if from < 2 {
        let runs: Vec<(i64, String)> = {
            let mut st = tx.prepare("SELECT id, document FROM runs WHERE kind = 'load'")?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<Result<_, _>>()?
        };
        for (id, document) in runs {
            // A document that no longer parses keeps what was recorded.
            let Ok(doc) = serde_json::from_str::<barrage_model::load::LoadDoc>(&document) else {
                continue;
            };
            tx.execute(
                "DELETE FROM metrics WHERE run = ?1 AND key = ?2",
                (id, ERROR_PCT.key.as_ref()),
            )?;
            if let Some(v) = load_value(&ERROR_PCT, &doc).filter(|v| v.is_finite()) {
                tx.execute(
                    "INSERT INTO metrics (run, key, point, contender, value) VALUES (?1, ?2, '', '', ?3)",
                    (id, ERROR_PCT.key.as_ref(), v),
                )?;
            }
        }
    }
    tx.execute(
        "UPDATE meta SET value = ?1 WHERE key = 'schema_version'",
        [SCHEMA_VERSION.to_string()],
    )?;
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)
}

/// Switches the database to WAL, where readers never block the writer and writers queue on
/// the busy timeout. Leaving rollback-journal mode needs a moment alone with the file, so a
/// process that meets another one there tries again until the busy timeout is spent.
fn wal(conn: &Connection, path: &Path) -> Result<(), HistoryError> {
    let start = Instant::now();
    loop {
        let mode: Result<String, _> =
            conn.pragma_update_and_check(None, "journal_mode", "wal", |r| r.get(0));
        match mode {
            Ok(m) if m.eq_ignore_ascii_case("wal") => return Ok(()),
            Ok(m) => {
                return Err(HistoryError::Corrupt {
                    path: path.to_path_buf(),
                    what: format!("cannot use WAL journal mode (SQLite kept {m})"),
                })
            }
            Err(e)
                if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                    && start.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(source) => {
                return Err(HistoryError::Sql {
                    path: path.to_path_buf(),
                    cause: source,
                })
            }
        }
    }
}

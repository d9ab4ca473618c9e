//! barrage's run history: `barrage load` runs and `barrage run` studies appended to an SQLite
//! database (SQLite compiled in, so nothing needs installing), listed and filtered, trended
//! metric by metric, and read back whole (`barrage compare history:latest ...`).
//!
//! - [`History::open`] creates a new database or checks an existing one is barrage's; it never
//!   writes to a file that is not (see [`open`](mod@open)).
//! - [`History::append`] records a [`NewRun`] in one transaction; concurrent writers (two runs
//!   finishing at once, in one process or several) queue on SQLite's lock and all succeed.
//! - [`History::list`], [`History::trend`] and [`History::document`] read it back, also
//!   through [`History::open_read_only`], which never creates or writes anything.
//!
//! No printing, no process exit: values in, values or a [`HistoryError`] out. The schema and
//! guarantees are documented in `docs/history.md`.

mod error;
pub mod figures;
pub mod open;
mod query;
mod run;

pub use error::HistoryError;
pub use query::{Filter, RunRow, Series, Stored, TrendPoint, Which};
pub use run::{DocKind, Git, MetricRow, NewRun, Origin};

use rusqlite::{Connection, TransactionBehavior};
use std::path::{Path, PathBuf};

/// An open history database.
pub struct History {
    conn: Connection,
    path: PathBuf,
}

impl History {
    /// Opens the history at `path`, creating the file and its schema when the path is missing
    /// or empty. An existing file must be a barrage history of a schema this barrage knows:
    /// anything else (not SQLite, another application's database, a newer schema, a
    /// directory) is an error naming the path, and the file is left byte for byte as it was.
    pub fn open(path: impl AsRef<Path>) -> Result<History, HistoryError> {
        let path = path.as_ref();
        Ok(History {
            conn: open::open(path)?,
            path: path.to_path_buf(),
        })
    }

    /// Opens an existing history to read it (`barrage history`, `compare history:latest`):
    /// the same checks as [`History::open`], but a missing path is an error rather than a new
    /// database, and nothing is ever written (appending through it fails).
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<History, HistoryError> {
        let path = path.as_ref();
        Ok(History {
            conn: open::open_read_only(path)?,
            path: path.to_path_buf(),
        })
    }

    /// The database's path, as given to [`History::open`].
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends a run and its figures in one transaction; returns its id. The transaction takes
    /// the write lock first (`BEGIN IMMEDIATE`), so a concurrent writer waits its turn (up to
    /// [`open::BUSY_TIMEOUT`]) rather than failing halfway.
    pub fn append(&mut self, run: &NewRun) -> Result<i64, HistoryError> {
        let path = &self.path;
        let sql = |source| HistoryError::Sql {
            path: path.clone(),
            cause: source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        let o = &run.origin;
        let machine = serde_json::to_string(&o.machine).unwrap_or_default();
        tx.execute(
            "INSERT INTO runs (time, kind, name, url, status, command, config, machine, hostname,
                               git_commit, git_dirty, barrage_version, document)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            rusqlite::params![
                o.time,
                run.kind.as_str(),
                run.name,
                run.url,
                run.status,
                o.command,
                run.config,
                machine,
                o.machine.hostname,
                o.git.as_ref().map(|g| &g.commit),
                o.git.as_ref().map(|g| g.dirty),
                o.barrage_version,
                run.document,
            ],
        )
        .map_err(sql)?;
        let id = tx.last_insert_rowid();
        {
            let mut st = tx
                .prepare(
                    "INSERT INTO metrics (run, key, point, contender, value)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(sql)?;
            for m in run.metrics.iter().filter(|m| m.value.is_finite()) {
                st.execute((id, &m.key, &m.point, &m.contender, m.value))
                    .map_err(sql)?;
            }
        }
        tx.commit().map_err(sql)?;
        Ok(id)
    }
}

/// Where runs are recorded when no database is named: `$BARRAGE_HISTORY`, else
/// `$XDG_DATA_HOME/barrage/history.db`, else `~/.local/share/barrage/history.db` (the XDG base
/// directory default). None without any of those variables.
pub fn default_path() -> Option<PathBuf> {
    default_path_from(
        std::env::var_os("BARRAGE_HISTORY"),
        std::env::var_os("XDG_DATA_HOME"),
        std::env::var_os("HOME"),
    )
}

/// [`default_path`] from the variables' values. An empty or relative `XDG_DATA_HOME` is
/// ignored, as the XDG specification says.
pub fn default_path_from(
    barrage_history: Option<std::ffi::OsString>,
    xdg_data_home: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
) -> Option<PathBuf> {
    if let Some(p) = barrage_history.filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let data = xdg_data_home
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            home.filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".local/share"))
        })?;
    Some(data.join("barrage").join("history.db"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_path_follows_the_variables() {
        let os = |s: &str| Some(std::ffi::OsString::from(s));
        assert_eq!(
            default_path_from(os("/ci/h.db"), os("/x"), os("/home/u")),
            Some(PathBuf::from("/ci/h.db"))
        );
        assert_eq!(
            default_path_from(None, os("/x/data"), os("/home/u")),
            Some(PathBuf::from("/x/data/barrage/history.db"))
        );
        assert_eq!(
            default_path_from(os(""), os("relative"), os("/home/u")),
            Some(PathBuf::from("/home/u/.local/share/barrage/history.db"))
        );
        assert_eq!(default_path_from(None, None, None), None);
    }
}

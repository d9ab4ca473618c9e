//! What can go wrong with a history database. Every error names the database's path, and the
//! ones found while checking a file say that barrage left it as it was.

use std::path::PathBuf;
use thiserror::Error;

/// Why a history database could not be opened, written or read.
#[derive(Debug, Error)]
pub enum HistoryError {
    /// The path exists but is a directory (or another non-file).
    #[error("history database {path}: not a file (left untouched)")]
    NotAFile { path: PathBuf },
    /// The file (or the directory it should go in) cannot be read or created.
    // `cause`, not `source`: the message already says it, and a source would be said again
    // by error chains (anyhow's `{:#}`).
    #[error("cannot open history database {path}: {cause}")]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
    /// The file exists and is not an SQLite database at all.
    #[error("{path} is not an SQLite database, so not a barrage history (left untouched)")]
    NotSqlite { path: PathBuf },
    /// An SQLite database that barrage did not create.
    #[error("{path} is an SQLite database of another application ({what}); barrage will not write to it")]
    Foreign { path: PathBuf, what: String },
    /// A history written by a newer barrage, whose schema this one does not know.
    #[error("{path} is a barrage history of schema version {found}, newer than this barrage's {supported}: use a newer barrage (left untouched)")]
    NewerSchema {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    /// SQLite refused (a damaged file, a lock held longer than the busy timeout, a full disk).
    #[error("history database {path}: {cause}")]
    Sql {
        path: PathBuf,
        cause: rusqlite::Error,
    },
    /// A stored value this barrage cannot read (a damaged or hand-edited row).
    #[error("history database {path}: {what}")]
    Corrupt { path: PathBuf, what: String },
    /// `history:ID` names no run, or `history:latest~N` goes back further than the history.
    #[error("history database {path}: {what}")]
    NoSuchRun { path: PathBuf, what: String },
    /// A run selector that is neither `latest`, `latest~N`, `previous` nor a run id.
    #[error("bad history run {0:?}: expected latest, latest~N, previous or a run id")]
    BadWhich(String),
}

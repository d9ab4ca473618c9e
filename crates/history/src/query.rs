//! Reading the history back: runs listed through a [`Filter`], one metric's values over the
//! runs ([`History::trend`]), and a run's whole document ([`History::document`], chosen by a
//! [`Which`], the `history:latest` / `history:ID` side of `barrage compare`).

use crate::run::{DocKind, Git, MetricRow};
use crate::{History, HistoryError};
use rusqlite::Row;
use serde::Serialize;

/// Which runs to read; every field narrows. The default takes every run.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Load runs whose URL contains this text.
    pub url: Option<String>,
    /// Studies of this name.
    pub study: Option<String>,
    /// Runs that recorded this metric (its key: `rps`, `latency_p99_us`, ...).
    pub metric: Option<String>,
    pub kind: Option<DocKind>,
    /// Only the newest N of those (still given oldest first).
    pub last: Option<usize>,
}

/// One run as listed: everything but its configuration, machine and document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunRow {
    pub id: i64,
    pub time: String,
    pub kind: DocKind,
    /// The study's name (empty for a load run).
    pub name: String,
    /// The load run's URL (empty for a study).
    pub url: String,
    pub status: String,
    pub command: String,
    pub hostname: String,
    pub git: Option<Git>,
    pub barrage_version: String,
    pub metrics: Vec<MetricRow>,
}

/// What a trend's value belongs to: a load run's URL, or a study's point and contender.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Series {
    pub kind: DocKind,
    pub name: String,
    pub url: String,
    pub point: String,
    pub contender: String,
}

impl Series {
    /// The line's name in a chart: the URL, or "study: contender at point".
    pub fn label(&self) -> String {
        match (self.kind, self.point.is_empty()) {
            (DocKind::Load, _) => self.url.clone(),
            (_, true) => format!("{}: {}", self.name, self.contender),
            (_, false) => format!("{}: {} at {}", self.name, self.contender, self.point),
        }
    }
}

/// One value of a metric's trend.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrendPoint {
    pub id: i64,
    pub time: String,
    pub series: Series,
    pub value: f64,
}

/// A run named on a command line: `latest`, `latest~N` (N runs before the latest; `previous`
/// is `latest~1`) or its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    Latest(u32),
    Id(i64),
}

impl Which {
    /// `latest`, `latest~N`, `previous` or an id.
    pub fn parse(s: &str) -> Result<Which, HistoryError> {
        let bad = || HistoryError::BadWhich(s.to_string());
        match s {
            "latest" => Ok(Which::Latest(0)),
            "previous" => Ok(Which::Latest(1)),
            _ => match s.strip_prefix("latest~") {
                Some(n) => n.parse().map(Which::Latest).map_err(|_| bad()),
                None => s
                    .parse::<i64>()
                    .ok()
                    .filter(|id| *id > 0)
                    .map(Which::Id)
                    .ok_or_else(bad),
            },
        }
    }

    /// A `compare` side: `history:latest`, `history:42`, ... gives `Some`, with the run or the
    /// error; any other argument (a file) gives None.
    pub fn from_side(arg: &str) -> Option<Result<Which, HistoryError>> {
        arg.strip_prefix("history:").map(Which::parse)
    }
}

/// A run's document as stored: exactly the text `barrage load --json` or `results.json` held.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    pub id: i64,
    pub time: String,
    pub kind: DocKind,
    pub document: String,
}

/// The filter's conditions on `runs` (parameters ?1 to ?4) and, in ?5, how many of the newest
/// to keep (-1: no limit, as SQLite reads a negative LIMIT).
const WHERE: &str = "(?1 IS NULL OR instr(url, ?1) > 0)
    AND (?2 IS NULL OR (kind = 'study' AND name = ?2))
    AND (?3 IS NULL OR EXISTS (SELECT 1 FROM metrics m WHERE m.run = runs.id AND m.key = ?3))
    AND (?4 IS NULL OR kind = ?4)";

type Params<'a> = (
    Option<&'a str>,
    Option<&'a str>,
    Option<&'a str>,
    Option<&'static str>,
    i64,
);

impl Filter {
    fn params(&self) -> Params<'_> {
        (
            self.url.as_deref(),
            self.study.as_deref(),
            self.metric.as_deref(),
            self.kind.map(DocKind::as_str),
            self.last
                .map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX)),
        )
    }
}

impl History {
    fn sql(&self) -> impl Fn(rusqlite::Error) -> HistoryError + '_ {
        |source| HistoryError::Sql {
            path: self.path.clone(),
            cause: source,
        }
    }

    fn kind(&self, s: &str) -> Result<DocKind, HistoryError> {
        DocKind::parse(s).ok_or_else(|| HistoryError::Corrupt {
            path: self.path.clone(),
            what: format!("unknown run kind {s:?}"),
        })
    }

    /// The runs the filter takes, oldest first, with their figures.
    pub fn list(&self, filter: &Filter) -> Result<Vec<RunRow>, HistoryError> {
        let sql = self.sql();
        let query = format!(
            "SELECT * FROM (
                 SELECT id, time, kind, name, url, status, command, hostname, git_commit,
                        git_dirty, barrage_version
                 FROM runs WHERE {WHERE} ORDER BY id DESC LIMIT ?5)
             ORDER BY id"
        );
        let mut st = self.conn.prepare(&query).map_err(&sql)?;
        let raw: Vec<(RunRow, String)> = st
            .query_map(filter.params(), |r: &Row| {
                let commit: Option<String> = r.get(8)?;
                let dirty: Option<bool> = r.get(9)?;
                Ok((
                    RunRow {
                        id: r.get(0)?,
                        time: r.get(1)?,
                        kind: DocKind::Load,
                        name: r.get(3)?,
                        url: r.get(4)?,
                        status: r.get(5)?,
                        command: r.get(6)?,
                        hostname: r.get(7)?,
                        git: commit.map(|commit| Git {
                            commit,
                            dirty: dirty.unwrap_or(false),
                        }),
                        barrage_version: r.get(10)?,
                        metrics: Vec::new(),
                    },
                    r.get::<_, String>(2)?,
                ))
            })
            .map_err(&sql)?
            .collect::<Result<_, _>>()
            .map_err(&sql)?;
        let mut figures = self
            .conn
            .prepare(
                "SELECT key, point, contender, value FROM metrics WHERE run = ?1
                 ORDER BY point, contender",
            )
            .map_err(&sql)?;
        let mut runs = Vec::with_capacity(raw.len());
        for (mut row, kind) in raw {
            row.kind = self.kind(&kind)?;
            row.metrics = figures
                .query_map([row.id], |r| {
                    Ok(MetricRow {
                        key: r.get(0)?,
                        point: r.get(1)?,
                        contender: r.get(2)?,
                        value: r.get(3)?,
                    })
                })
                .map_err(&sql)?
                .collect::<Result<_, _>>()
                .map_err(&sql)?;
            // Stable: within a key, points and contenders keep SQLite's order.
            row.metrics.sort_by_key(|m| rank(&m.key));
            runs.push(row);
        }
        Ok(runs)
    }

    /// The values of metric `key` over the runs the filter takes: oldest run first, and within
    /// a run by series.
    pub fn trend(&self, key: &str, filter: &Filter) -> Result<Vec<TrendPoint>, HistoryError> {
        let sql = self.sql();
        let query = format!(
            "SELECT runs.id, runs.time, runs.kind, runs.name, runs.url, m.point, m.contender,
                    m.value
             FROM metrics m JOIN (
                 SELECT * FROM runs WHERE {WHERE} ORDER BY id DESC LIMIT ?5) runs
               ON m.run = runs.id
             WHERE m.key = ?6
             ORDER BY runs.id, m.point, m.contender"
        );
        let (a, b, c, d, e) = filter.params();
        let mut st = self.conn.prepare(&query).map_err(&sql)?;
        let raw: Vec<(String, TrendPoint)> = st
            .query_map((a, b, c, d, e, key), |r| {
                Ok((
                    r.get::<_, String>(2)?,
                    TrendPoint {
                        id: r.get(0)?,
                        time: r.get(1)?,
                        series: Series {
                            // Read below: a kind this barrage does not know is an error.
                            kind: DocKind::Load,
                            name: r.get(3)?,
                            url: r.get(4)?,
                            point: r.get(5)?,
                            contender: r.get(6)?,
                        },
                        value: r.get(7)?,
                    },
                ))
            })
            .map_err(&sql)?
            .collect::<Result<_, _>>()
            .map_err(&sql)?;
        raw.into_iter()
            .map(|(kind, mut p)| {
                p.series.kind = self.kind(&kind)?;
                Ok(p)
            })
            .collect()
    }

    /// The metric keys recorded for the runs the filter takes, each once, in the order the
    /// load figures and the registry list them (a study's own figures last, by name).
    pub fn metric_keys(&self, filter: &Filter) -> Result<Vec<String>, HistoryError> {
        let mut keys: Vec<String> = Vec::new();
        for run in self.list(filter)? {
            for m in run.metrics {
                if !keys.contains(&m.key) {
                    keys.push(m.key);
                }
            }
        }
        keys.sort_by_key(|k| rank(k));
        Ok(keys)
    }

    /// The whole document of a run, exactly as it was appended.
    pub fn document(&self, which: Which) -> Result<Stored, HistoryError> {
        self.document_matching(which, &Filter::default())
    }

    /// The whole document of a run among those the filter takes (`latest` of a URL or study).
    /// The filter's `last` is ignored: `latest~N` counts back through all of them.
    pub fn document_matching(&self, which: Which, filter: &Filter) -> Result<Stored, HistoryError> {
        let sql = self.sql();
        let (a, b, c, d, _) = filter.params();
        // ?5 is the id, or how many runs to go back from the latest.
        let (cond, n) = match which {
            Which::Latest(back) => ("ORDER BY id DESC LIMIT 1 OFFSET ?5", i64::from(back)),
            Which::Id(id) => ("AND id = ?5", id),
        };
        let query = format!("SELECT id, time, kind, document FROM runs WHERE {WHERE} {cond}");
        let mut st = self.conn.prepare(&query).map_err(&sql)?;
        let mut rows = st.query((a, b, c, d, n)).map_err(&sql)?;
        let Some(r) = rows.next().map_err(&sql)? else {
            let filtered = filter.url.is_some()
                || filter.study.is_some()
                || filter.metric.is_some()
                || filter.kind.is_some();
            let among = if filtered { " matching the filter" } else { "" };
            let what = match which {
                Which::Id(id) => format!("no run {id}{among}"),
                Which::Latest(0) => format!("no runs{among}"),
                Which::Latest(n) => format!("fewer than {} runs{among}", n + 1),
            };
            return Err(HistoryError::NoSuchRun {
                path: self.path.clone(),
                what,
            });
        };
        let kind: String = r.get(2).map_err(&sql)?;
        Ok(Stored {
            id: r.get(0).map_err(&sql)?,
            time: r.get(1).map_err(&sql)?,
            kind: self.kind(&kind)?,
            document: r.get(3).map_err(&sql)?,
        })
    }
}

/// Where a metric key comes in listings: a load run's figures in their order, then the
/// registry's, then a study's own figures by name.
fn rank(key: &str) -> (usize, String) {
    let pos = crate::figures::LOAD
        .iter()
        .position(|m| m.key == key)
        .or_else(|| {
            barrage_model::metric::ALL
                .iter()
                .position(|m| m.key == key)
                .map(|i| 100 + i)
        });
    match pos {
        Some(i) => (i, String::new()),
        None => (usize::MAX, key.to_string()),
    }
}

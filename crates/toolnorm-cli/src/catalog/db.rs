//! The index: the sessions indexed and their calls, in an SQLite file (rusqlite, SQLite
//! bundled, WAL) or a PostgreSQL database ([`backend`](super::backend)), in the schema of
//! [`schema`](super::schema). This module opens it and reads it; [`write`](super::write)
//! stores sessions.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::OpenFlags;
use serde::{Deserialize, Serialize};
use toolnorm::NormalizedToolPart;

use super::backend::{Connection, DbError, Location, Value};
use super::schema;
use crate::sessions::{Note, Session};

/// The state of a file when it was read: its path, bytes and modification time (ns).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileState {
    pub(crate) path: PathBuf,
    pub(crate) bytes: u64,
    pub(crate) modified_ns: Option<u64>,
}

/// An open index.
pub(crate) struct Index {
    pub(super) connection: Connection,
    location: Location,
}

/// A session as `sessions --db` lists it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Row {
    pub(crate) agent: Option<String>,
    pub(crate) dialect: Option<String>,
    pub(crate) path: String,
    #[serde(rename = "sessionId")]
    pub(crate) session_id: Option<String>,
    pub(crate) cwd: Option<String>,
    pub(crate) started: Option<String>,
    pub(crate) ended: Option<String>,
    pub(crate) calls: u64,
    pub(crate) complete: u64,
    pub(crate) failed: u64,
    pub(crate) open: u64,
}

/// A stored diagnostic note (see [`Note`]).
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct StoredNote {
    file: String,
    line: Option<u64>,
    kind: String,
    severity: String,
    message: String,
}

/// The index `db` names (an SQLite file's path or a `postgres://` URL), or the default
/// one: `$XDG_DATA_HOME/toolnorm/index.sqlite`, else `~/.local/share/toolnorm/index.sqlite`.
pub(crate) fn location(db: Option<&Path>) -> Result<Location, String> {
    match db {
        Some(db) => Ok(Location::of(db)),
        None => super::index::default_db(&|name| std::env::var_os(name))
            .map(Location::File)
            .ok_or_else(|| "no index: set HOME or XDG_DATA_HOME, or give --db".to_owned()),
    }
}

impl Index {
    /// Opens (creating it, and an SQLite file's folder, when missing) the index `db`
    /// names, migrated to this build's schema.
    pub(crate) fn open(db: Option<&Path>) -> Result<Index, String> {
        let location = location(db)?;
        let fail = |error: DbError| format!("{location}: {error}");
        let mut connection = match &location {
            Location::File(path) => {
                if let Some(parent) = path
                    .parent()
                    .filter(|parent| !parent.as_os_str().is_empty())
                {
                    std::fs::create_dir_all(parent)
                        .map_err(|error| format!("{}: {error}", parent.display()))?;
                }
                let connection =
                    rusqlite::Connection::open(path).map_err(|error| fail(error.into()))?;
                connection
                    .execute_batch(
                        "PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; \
                         PRAGMA busy_timeout = 5000;",
                    )
                    .map_err(|error| fail(error.into()))?;
                Connection::Sqlite(connection)
            }
            Location::Postgres(url) => Connection::postgres(url).map_err(fail)?,
        };
        schema::migrate(&mut connection).map_err(|message| format!("{location}: {message}"))?;
        Ok(Index {
            connection,
            location,
        })
    }

    /// Opens the index at `location` to read only, as the server's readers do beside its
    /// writer (SQLite's WAL lets them read while it writes).
    pub(crate) fn open_read_only(location: &Location) -> Result<Index, String> {
        let fail = |error: DbError| format!("{location}: {error}");
        let mut connection = match location {
            Location::File(path) => {
                let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
                let connection = rusqlite::Connection::open_with_flags(path, flags)
                    .map_err(|error| fail(error.into()))?;
                connection
                    .busy_timeout(std::time::Duration::from_secs(5))
                    .map_err(|error| fail(error.into()))?;
                Connection::Sqlite(connection)
            }
            Location::Postgres(url) => {
                let mut connection = Connection::postgres(url).map_err(fail)?;
                connection
                    .batch("SET default_transaction_read_only = on")
                    .map_err(fail)?;
                connection
            }
        };
        let version = schema::version(&mut connection).map_err(fail)?;
        if version != schema::VERSION {
            return Err(format!(
                "{location}: index schema {version}, this toolnorm reads {}: run `toolnorm \
                 index` with this toolnorm",
                schema::VERSION
            ));
        }
        Ok(Index {
            connection,
            location: location.clone(),
        })
    }

    /// Where the index is.
    pub(crate) fn location(&self) -> &Location {
        &self.location
    }

    /// A database error for people, naming the index.
    pub(crate) fn fail(&self, error: DbError) -> String {
        format!("{}: {error}", self.location)
    }

    /// Runs `write` in one transaction: all of it is stored, or (an error, a crash) none.
    pub(crate) fn transaction<T>(
        &mut self,
        write: impl FnOnce(&mut Connection) -> Result<T, DbError>,
    ) -> Result<T, String> {
        let written = self.connection.transaction(write);
        written.map_err(|error| self.fail(error))
    }

    /// The files of every session the index holds, by the session's path (one query:
    /// a run compares each file it finds against this).
    pub(crate) fn file_states(&mut self) -> Result<HashMap<String, Vec<FileState>>, DbError> {
        let rows = self
            .connection
            .all("SELECT path, files FROM sessions", &[], |row| {
                Ok((row.string(0)?, row.string(1)?))
            })?;
        Ok(rows
            .into_iter()
            .map(|(path, files)| (path, serde_json::from_str(&files).unwrap_or_default()))
            .collect())
    }

    /// The ids of the calls stored for the session of `path`, in order.
    pub(crate) fn call_ids(&mut self, path: &str) -> Result<Vec<String>, DbError> {
        self.connection.all(
            "SELECT calls.id FROM calls JOIN sessions ON calls.session = sessions.id \
             WHERE sessions.path = ?1 ORDER BY calls.seq",
            &[path.into()],
            |row| row.string(0),
        )
    }

    /// Every session path the index holds.
    pub(crate) fn paths(&mut self) -> Result<Vec<String>, DbError> {
        self.connection
            .all("SELECT path FROM sessions ORDER BY path", &[], |row| {
                row.string(0)
            })
    }

    /// The sessions, as `sessions --db` lists them, oldest first; only `agent`'s (a
    /// provider or a dialect) when given, only those started at or after `since` (epoch
    /// ms) when given.
    pub(crate) fn rows(
        &mut self,
        agent: Option<&str>,
        since: Option<i64>,
    ) -> Result<Vec<Row>, DbError> {
        self.connection.all(
            "SELECT agent, dialect, path, session_id, cwd, started, ended, calls, complete, \
             failed, open FROM sessions \
             WHERE (CAST(?1 AS TEXT) IS NULL OR agent = ?1 OR dialect = ?1) \
             AND (CAST(?2 AS BIGINT) IS NULL OR started_ms >= ?2) \
             ORDER BY started_ms IS NULL, started_ms, path",
            &[agent.into(), since.into()],
            |row| {
                Ok(Row {
                    agent: row.text(0)?,
                    dialect: row.text(1)?,
                    path: row.string(2)?,
                    session_id: row.text(3)?,
                    cwd: row.text(4)?,
                    started: row.text(5)?,
                    ended: row.text(6)?,
                    calls: row.count(7)?,
                    complete: row.count(8)?,
                    failed: row.count(9)?,
                    open: row.count(10)?,
                })
            },
        )
    }

    /// The session stored under `id`, as `normalize` read it: its parts, line counts and
    /// diagnostics.
    pub(crate) fn session(&mut self, id: i64) -> Result<Option<Session>, DbError> {
        let Some(mut session) = self.head(id)? else {
            return Ok(None);
        };
        let mut parts = Vec::new();
        self.connection.each(
            "SELECT part FROM calls WHERE session = ?1 ORDER BY seq",
            &[id.into()],
            |row| {
                let text = row.string(0)?;
                parts.extend(serde_json::from_str::<NormalizedToolPart>(&text).ok());
                Ok(())
            },
        )?;
        session.parts = parts;
        Ok(Some(session))
    }

    /// The session stored under `id`, without its parts.
    pub(crate) fn head(&mut self, id: i64) -> Result<Option<Session>, DbError> {
        let heads = self.heads("WHERE id = ?1", &[Value::Int(id)])?;
        Ok(heads.into_iter().next().map(|(_, session)| session))
    }

    /// The sessions `filter` selects (an SQL `WHERE` clause, or none), by path, each with
    /// its index id and without its parts.
    pub(crate) fn heads(
        &mut self,
        filter: &str,
        params: &[Value],
    ) -> Result<Vec<(i64, Session)>, DbError> {
        let sql = format!(
            "SELECT id, path, dialect, agent, lines, diagnostics, notes, cwd FROM sessions \
             {filter} ORDER BY path"
        );
        let rows = self.connection.all(&sql, params, |row| {
            Ok((
                row.int(0)?,
                row.string(1)?,
                row.text(2)?,
                row.text(3)?,
                row.string(4)?,
                row.string(5)?,
                row.string(6)?,
                row.text(7)?,
            ))
        })?;
        Ok(rows
            .into_iter()
            .filter_map(
                |(id, path, dialect, provider, lines, diagnostics, notes, cwd)| {
                    let notes: Vec<StoredNote> = serde_json::from_str(&notes).unwrap_or_default();
                    let session = Session {
                        source: path,
                        dialect,
                        provider,
                        cwd,
                        parts: Vec::new(),
                        lines: serde_json::from_str(&lines).unwrap_or_default(),
                        diagnostics: serde_json::from_str(&diagnostics).unwrap_or_default(),
                        notes: notes
                            .into_iter()
                            .filter_map(StoredNote::into_note)
                            .collect(),
                    };
                    Some((id?, session))
                },
            )
            .collect())
    }
}

impl StoredNote {
    pub(super) fn of(note: &Note) -> StoredNote {
        StoredNote {
            file: note.file.clone(),
            line: note.line,
            kind: note.kind.as_str().to_owned(),
            severity: note.severity.as_str().to_owned(),
            message: note.message.clone(),
        }
    }

    fn into_note(self) -> Option<Note> {
        Some(Note {
            file: self.file,
            line: self.line,
            kind: toolnorm_adapters::DiagnosticKind::from_name(&self.kind)?,
            severity: toolnorm_adapters::Severity::from_name(&self.severity)?,
            message: self.message,
        })
    }
}

//! The index: one SQLite database (rusqlite, SQLite bundled, WAL) holding every session
//! indexed and its calls. The schema is versioned (`PRAGMA user_version`) and migrated
//! forward on open; a database of a newer schema is refused.
//!
//! - `sessions`: one row per session file (a Claude Code transcript with its subagents'
//!   transcripts): where it is, the agent and dialect, the provider's session id and
//!   directory, when its calls started and ended, its calls per state, its line counts
//!   and diagnostics, and the state of the files when read (bytes and modification
//!   time), which tells the next run whether to read it again.
//! - `calls`: one row per call of a session, in the order first seen: its fields and the
//!   whole part as JSON.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use toolnorm::{NormalizedToolPart, ToolState, meta};

use crate::sessions::{Note, Session};

/// The schema this build writes and reads.
pub(crate) const SCHEMA_VERSION: i64 = 2;

/// Schema 1.
const SCHEMA_1: &str = "
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    agent TEXT,
    dialect TEXT,
    session_id TEXT,
    cwd TEXT,
    started TEXT,
    ended TEXT,
    started_ms INTEGER,
    ended_ms INTEGER,
    calls INTEGER NOT NULL,
    complete INTEGER NOT NULL,
    failed INTEGER NOT NULL,
    open INTEGER NOT NULL,
    lines TEXT NOT NULL,
    diagnostics TEXT NOT NULL,
    notes TEXT NOT NULL,
    files TEXT NOT NULL,
    indexed_at TEXT NOT NULL
);
CREATE TABLE calls (
    session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    state TEXT NOT NULL,
    error_code TEXT,
    started TEXT,
    completed TEXT,
    elapsed_ms INTEGER,
    parent_id TEXT,
    part TEXT NOT NULL,
    PRIMARY KEY (session, seq)
);
CREATE INDEX calls_by_name ON calls(name);
CREATE INDEX sessions_by_start ON sessions(started_ms);
";

/// Schema 2: a call's approval (its `metadata.approval`, JSON) in a column of its own, so
/// that `stats --db` reads the calls' columns without parsing their parts.
const SCHEMA_2: &str = "
ALTER TABLE calls ADD COLUMN approval TEXT;
UPDATE calls SET approval = json_extract(part, '$.metadata.approval');
";

/// The migrations, in order: the one at `n` brings schema `n` to `n + 1`.
const MIGRATIONS: [&str; 2] = [SCHEMA_1, SCHEMA_2];

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
}

/// What the index holds of a session file.
#[derive(Debug, Clone)]
pub(crate) struct Indexed {
    /// The session's files when read (its own first, then its subagents').
    pub(crate) files: Vec<FileState>,
    /// The ids of its calls.
    pub(crate) calls: Vec<String>,
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
struct StoredNote {
    file: String,
    line: Option<u64>,
    kind: String,
    severity: String,
    message: String,
}

impl Index {
    /// Opens (creating it and its folder when missing) the index at `path`, migrated to
    /// this build's schema.
    pub(crate) fn open(path: &Path) -> Result<Index, String> {
        if let Some(parent) = path
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty())
        {
            std::fs::create_dir_all(parent)
                .map_err(|error| format!("{}: {error}", parent.display()))?;
        }
        let connection = Connection::open(path).map_err(|error| db_error(path, &error))?;
        connection
            .execute_batch(
                "PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;",
            )
            .map_err(|error| db_error(path, &error))?;
        let version: i64 = connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(|error| db_error(path, &error))?;
        if version > SCHEMA_VERSION {
            return Err(format!(
                "{}: index schema {version} is newer than this toolnorm's ({SCHEMA_VERSION}): \
                 update toolnorm, or index into another file",
                path.display()
            ));
        }
        // Each step in a transaction of its own: a migration stopped midway is not kept.
        for (from, migration) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
            let to = from + 1;
            connection
                .execute_batch(&format!(
                    "BEGIN; {migration} PRAGMA user_version = {to}; COMMIT;"
                ))
                .map_err(|error| db_error(path, &error))?;
        }
        Ok(Index { connection })
    }

    /// Opens the index at `path` to read only, as the server's readers do beside its
    /// writer (WAL lets them read while it writes).
    pub(crate) fn open_read_only(path: &Path) -> Result<Index, String> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let connection =
            Connection::open_with_flags(path, flags).map_err(|error| db_error(path, &error))?;
        connection
            .busy_timeout(std::time::Duration::from_secs(5))
            .map_err(|error| db_error(path, &error))?;
        let version: i64 = connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(|error| db_error(path, &error))?;
        if version != SCHEMA_VERSION {
            return Err(format!(
                "{}: index schema {version}, this toolnorm reads {SCHEMA_VERSION}: run \
                 `toolnorm index` with this toolnorm",
                path.display()
            ));
        }
        Ok(Index { connection })
    }

    /// What the index holds of the session file `path`, if anything.
    pub(crate) fn indexed(&self, path: &str) -> Result<Option<Indexed>, rusqlite::Error> {
        let found: Option<(i64, String)> = self
            .connection
            .query_row(
                "SELECT id, files FROM sessions WHERE path = ?1",
                params![path],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        let Some((id, files)) = found else {
            return Ok(None);
        };
        let mut statement = self
            .connection
            .prepare_cached("SELECT id FROM calls WHERE session = ?1 ORDER BY seq")?;
        let calls = statement
            .query_map(params![id], |row| row.get(0))?
            .collect::<Result<Vec<String>, _>>()?;
        Ok(Some(Indexed {
            files: serde_json::from_str(&files).unwrap_or_default(),
            calls,
        }))
    }

    /// Every session path the index holds.
    pub(crate) fn paths(&self) -> Result<Vec<String>, rusqlite::Error> {
        let mut statement = self
            .connection
            .prepare("SELECT path FROM sessions ORDER BY path")?;
        let paths = statement
            .query_map([], |row| row.get(0))?
            .collect::<Result<Vec<String>, _>>()?;
        Ok(paths)
    }

    /// Runs `write` in one transaction: all of it is stored, or (an error, a crash) none.
    pub(crate) fn transaction<T>(
        &mut self,
        write: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T, rusqlite::Error>,
    ) -> Result<T, rusqlite::Error> {
        let transaction = self.connection.transaction()?;
        let value = write(&transaction)?;
        transaction.commit()?;
        Ok(value)
    }

    /// The sessions, as `sessions --db` lists them, oldest first; only `agent`'s (a
    /// provider or a dialect) when given, only those started at or after `since` (epoch
    /// ms) when given.
    pub(crate) fn rows(
        &self,
        agent: Option<&str>,
        since: Option<i64>,
    ) -> Result<Vec<Row>, rusqlite::Error> {
        let mut statement = self.connection.prepare(
            "SELECT agent, dialect, path, session_id, cwd, started, ended, calls, complete, \
             failed, open FROM sessions \
             WHERE (?1 IS NULL OR agent = ?1 OR dialect = ?1) \
             AND (?2 IS NULL OR started_ms >= ?2) \
             ORDER BY started_ms IS NULL, started_ms, path",
        )?;
        let rows = statement
            .query_map(params![agent, since], |row| {
                Ok(Row {
                    agent: row.get(0)?,
                    dialect: row.get(1)?,
                    path: row.get(2)?,
                    session_id: row.get(3)?,
                    cwd: row.get(4)?,
                    started: row.get(5)?,
                    ended: row.get(6)?,
                    calls: row.get(7)?,
                    complete: row.get(8)?,
                    failed: row.get(9)?,
                    open: row.get(10)?,
                })
            })?
            .collect::<Result<Vec<Row>, _>>()?;
        Ok(rows)
    }

    /// The session stored under `id`, as `normalize` read it: its parts, line counts and
    /// diagnostics.
    pub(crate) fn session(&self, id: i64) -> Result<Option<Session>, rusqlite::Error> {
        let Some(mut session) = self.head(id)? else {
            return Ok(None);
        };
        session.parts = self
            .connection
            .prepare_cached("SELECT part FROM calls WHERE session = ?1 ORDER BY seq")?
            .query_map(params![id], |row| row.get::<_, String>(0))?
            .collect::<Result<Vec<String>, _>>()?
            .iter()
            .filter_map(|text| serde_json::from_str::<NormalizedToolPart>(text).ok())
            .collect();
        Ok(Some(session))
    }

    /// The session stored under `id`, without its parts.
    pub(crate) fn head(&self, id: i64) -> Result<Option<Session>, rusqlite::Error> {
        let head = self
            .connection
            .prepare_cached(
                "SELECT path, dialect, agent, lines, diagnostics, notes, cwd FROM sessions \
                 WHERE id = ?1",
            )?
            .query_row(params![id], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, Option<String>>(1)?,
                    row.get::<_, Option<String>>(2)?,
                    row.get::<_, String>(3)?,
                    row.get::<_, String>(4)?,
                    row.get::<_, String>(5)?,
                    row.get::<_, Option<String>>(6)?,
                ))
            })
            .optional()?;
        let Some((path, dialect, provider, lines, diagnostics, notes, cwd)) = head else {
            return Ok(None);
        };
        let notes: Vec<StoredNote> = serde_json::from_str(&notes).unwrap_or_default();
        Ok(Some(Session {
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
        }))
    }

    /// The ids of every session, by path.
    pub(crate) fn ids(&self) -> Result<Vec<i64>, rusqlite::Error> {
        self.connection
            .prepare_cached("SELECT id FROM sessions ORDER BY path")?
            .query_map([], |row| row.get::<_, i64>(0))?
            .collect()
    }
}

impl StoredNote {
    fn of(note: &Note) -> StoredNote {
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

/// Replaces (or adds) the session of `files` with what `session` read, in `transaction`.
pub(crate) fn store(
    transaction: &rusqlite::Transaction<'_>,
    session: &Session,
    files: &[FileState],
    indexed_at: &str,
) -> Result<(), rusqlite::Error> {
    let path = files
        .first()
        .map(|file| file.path.display().to_string())
        .unwrap_or_else(|| session.source.clone());
    // A session read again keeps its id (the pages and API name sessions by it); its
    // calls are replaced.
    let kept: Option<i64> = transaction
        .query_row(
            "SELECT id FROM sessions WHERE path = ?1",
            params![path],
            |row| row.get(0),
        )
        .optional()?;
    if let Some(id) = kept {
        transaction.execute("DELETE FROM calls WHERE session = ?1", params![id])?;
    }
    let parts = &session.parts;
    let count = |state: ToolState| parts.iter().filter(|part| part.state == state).count();
    let first_text = |key: &str| {
        parts.iter().find_map(|part| {
            part.metadata
                .as_ref()?
                .get(key)?
                .as_str()
                .map(str::to_owned)
        })
    };
    let instants: Vec<(f64, String)> = parts
        .iter()
        .filter_map(|part| part.timing.as_ref())
        .flat_map(|timing| [timing.started_at.as_ref(), timing.completed_at.as_ref()])
        .flatten()
        .filter_map(|at| Some((at.epoch_millis()?, text_of(at))))
        .collect();
    let first = instants.iter().min_by(|a, b| a.0.total_cmp(&b.0));
    let last = instants.iter().max_by(|a, b| a.0.total_cmp(&b.0));
    let text = |at: Option<&(f64, String)>| at.map(|(_, text)| text.clone());
    let millis = |at: Option<&(f64, String)>| at.map(|(ms, _)| ms.round() as i64);
    let notes: Vec<StoredNote> = session.notes.iter().map(StoredNote::of).collect();
    transaction.execute(
        "INSERT INTO sessions (id, path, agent, dialect, session_id, cwd, started, ended, \
         started_ms, ended_ms, calls, complete, failed, open, lines, diagnostics, notes, \
         files, indexed_at) \
         VALUES (?19, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, \
         ?17, ?18) \
         ON CONFLICT(path) DO UPDATE SET agent = excluded.agent, dialect = excluded.dialect, \
         session_id = excluded.session_id, cwd = excluded.cwd, started = excluded.started, \
         ended = excluded.ended, started_ms = excluded.started_ms, \
         ended_ms = excluded.ended_ms, calls = excluded.calls, complete = excluded.complete, \
         failed = excluded.failed, open = excluded.open, lines = excluded.lines, \
         diagnostics = excluded.diagnostics, notes = excluded.notes, files = excluded.files, \
         indexed_at = excluded.indexed_at",
        params![
            path,
            session.provider,
            session.dialect,
            first_text(meta::SESSION_ID),
            session.cwd,
            text(first),
            text(last),
            millis(first),
            millis(last),
            parts.len() as i64,
            count(ToolState::Complete) as i64,
            count(ToolState::Error) as i64,
            (count(ToolState::Started) + count(ToolState::Running)) as i64,
            json(&session.lines),
            json(&session.diagnostics),
            json(&notes),
            json(&files),
            indexed_at,
            kept,
        ],
    )?;
    let id = match kept {
        Some(id) => id,
        None => transaction.last_insert_rowid(),
    };
    let mut insert = transaction.prepare_cached(
        "INSERT INTO calls (session, seq, id, name, kind, title, state, error_code, started, \
         completed, elapsed_ms, parent_id, part, approval) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    )?;
    for (seq, part) in parts.iter().enumerate() {
        let timing = part.timing.as_ref();
        insert.execute(params![
            id,
            seq as i64,
            part.id,
            part.name,
            part.kind.as_str(),
            part.title,
            part.state.as_str(),
            part.error
                .as_ref()
                .and_then(|error| error.code.as_ref())
                .map(|code| code.as_str().to_owned()),
            timing.and_then(|t| t.started_at.as_ref()).map(text_of),
            timing.and_then(|t| t.completed_at.as_ref()).map(text_of),
            timing.and_then(|t| t.elapsed_ms).map(|ms| ms as i64),
            part.metadata
                .as_ref()
                .and_then(|metadata| metadata.get(meta::PARENT_TOOL_CALL_ID))
                .and_then(|parent| parent.as_str()),
            serde_json::to_string(part).unwrap_or_default(),
            part.metadata
                .as_ref()
                .and_then(|metadata| metadata.get(meta::APPROVAL))
                .map(json),
        ])?;
    }
    Ok(())
}

/// Removes the session of `path`, in `transaction`.
pub(crate) fn remove(
    transaction: &rusqlite::Transaction<'_>,
    path: &str,
) -> Result<(), rusqlite::Error> {
    transaction.execute("DELETE FROM sessions WHERE path = ?1", params![path])?;
    Ok(())
}

/// A timestamp as the provider gave it, as text.
fn text_of(at: &toolnorm::Timestamp) -> String {
    match at {
        toolnorm::Timestamp::Text(text) => text.clone(),
        toolnorm::Timestamp::Epoch(number) => number.to_string(),
    }
}

/// A database error for people, naming the file.
pub(crate) fn db_error(path: &Path, error: &rusqlite::Error) -> String {
    format!("{}: {error}", path.display())
}

/// A value stored as JSON text.
fn json<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

//! Storing a session in the index, and dropping one, inside the run's transaction.

use std::collections::HashMap;

use toolnorm::{NormalizedToolPart, ToolState, meta};

use super::backend::{Connection, DbError, Value};
use super::db::{FileState, StoredNote};
use crate::sessions::Session;

/// Sessions stored per statement: 18 values each, well under both databases' limit on
/// a statement's parameters (SQLite's 32,766, PostgreSQL's 65,535).
const SESSION_ROWS: usize = 50;

/// Calls stored per statement (14 values each).
const CALL_ROWS: usize = 100;

/// A session this run read, and the state of its files when read.
pub(crate) struct Read<'a> {
    pub(crate) session: &'a Session,
    pub(crate) files: &'a [FileState],
}

impl Read<'_> {
    /// The path the session is stored under: its own file's.
    fn path(&self) -> String {
        self.files
            .first()
            .map(|file| file.path.display().to_string())
            .unwrap_or_else(|| self.session.source.clone())
    }
}

/// Replaces (or adds) the sessions `read`, in a few statements rather than one per call:
/// the calls of those already indexed dropped, the sessions upserted, their calls
/// inserted. A session read again keeps its id (the pages and API name sessions by it).
pub(crate) fn store(
    connection: &mut Connection,
    read: &[Read<'_>],
    indexed_at: &str,
) -> Result<(), DbError> {
    let paths: Vec<String> = read.iter().map(Read::path).collect();
    for chunk in paths.chunks(SESSION_ROWS) {
        let sql = format!(
            "DELETE FROM calls WHERE session IN (SELECT id FROM sessions WHERE path IN ({}))",
            placeholders(1, chunk.len())
        );
        let params: Vec<Value> = chunk.iter().map(|path| path.as_str().into()).collect();
        connection.execute(&sql, &params)?;
    }
    let mut ids: HashMap<String, i64> = HashMap::new();
    for chunk in read.chunks(SESSION_ROWS) {
        let params: Vec<Value> = chunk
            .iter()
            .flat_map(|read| session_row(read, indexed_at))
            .collect();
        let sql = format!(
            "INSERT INTO sessions (path, agent, dialect, session_id, cwd, started, ended, \
             started_ms, ended_ms, calls, complete, failed, open, lines, diagnostics, notes, \
             files, indexed_at) VALUES {} \
             ON CONFLICT(path) DO UPDATE SET agent = excluded.agent, \
             dialect = excluded.dialect, session_id = excluded.session_id, \
             cwd = excluded.cwd, started = excluded.started, ended = excluded.ended, \
             started_ms = excluded.started_ms, ended_ms = excluded.ended_ms, \
             calls = excluded.calls, complete = excluded.complete, \
             failed = excluded.failed, open = excluded.open, lines = excluded.lines, \
             diagnostics = excluded.diagnostics, notes = excluded.notes, \
             files = excluded.files, indexed_at = excluded.indexed_at \
             RETURNING path, id",
            rows(chunk.len(), SESSION_COLUMNS)
        );
        connection.each(&sql, &params, |row| {
            if let Some(id) = row.int(1)? {
                ids.insert(row.string(0)?, id);
            }
            Ok(())
        })?;
    }
    let mut calls = Vec::new();
    for (read, path) in read.iter().zip(&paths) {
        let id = *ids
            .get(path)
            .ok_or_else(|| DbError(format!("the session of {path} was not stored")))?;
        calls.extend(
            read.session
                .parts
                .iter()
                .enumerate()
                .map(|(seq, part)| (id, seq, part)),
        );
    }
    for chunk in calls.chunks(CALL_ROWS) {
        let params: Vec<Value> = chunk
            .iter()
            .flat_map(|&(session, seq, part)| call_row(session, seq, part))
            .collect();
        let sql = format!(
            "INSERT INTO calls (session, seq, id, name, kind, title, state, error_code, \
             started, completed, elapsed_ms, parent_id, part, approval) VALUES {}",
            rows(chunk.len(), CALL_COLUMNS)
        );
        connection.execute(&sql, &params)?;
    }
    Ok(())
}

/// The values of a session's row.
const SESSION_COLUMNS: usize = 18;

/// The values of a call's row.
const CALL_COLUMNS: usize = 14;

/// The session row of `read`, in the columns' order.
fn session_row(read: &Read<'_>, indexed_at: &str) -> [Value; SESSION_COLUMNS] {
    let session = read.session;
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
    [
        read.path().into(),
        session.provider.as_deref().into(),
        session.dialect.as_deref().into(),
        first_text(meta::SESSION_ID).into(),
        session.cwd.as_deref().into(),
        text(first).into(),
        text(last).into(),
        millis(first).into(),
        millis(last).into(),
        parts.len().into(),
        count(ToolState::Complete).into(),
        count(ToolState::Error).into(),
        (count(ToolState::Started) + count(ToolState::Running)).into(),
        json(&session.lines).into(),
        json(&session.diagnostics).into(),
        json(&notes).into(),
        json(read.files).into(),
        indexed_at.into(),
    ]
}

/// The call row of `part`, the `seq`th call of session `session`.
fn call_row(session: i64, seq: usize, part: &NormalizedToolPart) -> [Value; CALL_COLUMNS] {
    let timing = part.timing.as_ref();
    let metadata = part.metadata.as_ref();
    [
        Value::Int(session),
        seq.into(),
        part.id.as_str().into(),
        part.name.as_str().into(),
        part.kind.as_str().into(),
        part.title.as_str().into(),
        part.state.as_str().into(),
        part.error
            .as_ref()
            .and_then(|error| error.code.as_ref())
            .map(|code| code.as_str().to_owned())
            .into(),
        timing
            .and_then(|t| t.started_at.as_ref())
            .map(text_of)
            .into(),
        timing
            .and_then(|t| t.completed_at.as_ref())
            .map(text_of)
            .into(),
        timing.and_then(|t| t.elapsed_ms).into(),
        metadata
            .and_then(|metadata| metadata.get(meta::PARENT_TOOL_CALL_ID))
            .and_then(|parent| parent.as_str())
            .into(),
        json(part).into(),
        metadata
            .and_then(|metadata| metadata.get(meta::APPROVAL))
            .map(json)
            .into(),
    ]
}

/// `?from, ?from+1, …`: `count` numbered parameters.
fn placeholders(from: usize, count: usize) -> String {
    (from..from + count)
        .map(|at| format!("?{at}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `(?1, …, ?columns), (…)`: the parameters of `count` rows of `columns` values.
fn rows(count: usize, columns: usize) -> String {
    (0..count)
        .map(|row| format!("({})", placeholders(row * columns + 1, columns)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Drops the session of `path`.
pub(crate) fn remove(connection: &mut Connection, path: &str) -> Result<(), DbError> {
    connection.execute("DELETE FROM sessions WHERE path = ?1", &[path.into()])?;
    Ok(())
}

/// A timestamp as the provider gave it, as text.
fn text_of(at: &toolnorm::Timestamp) -> String {
    match at {
        toolnorm::Timestamp::Text(text) => text.clone(),
        toolnorm::Timestamp::Epoch(number) => number.to_string(),
    }
}

/// A value stored as JSON text.
fn json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_number_their_parameters_on_from_row_to_row() {
        assert_eq!(placeholders(3, 2), "?3, ?4");
        assert_eq!(rows(2, 3), "(?1, ?2, ?3), (?4, ?5, ?6)");
    }
}

//! Storing a session in the index, and dropping one, inside the run's transaction.

use toolnorm::{ToolState, meta};

use super::backend::{Connection, DbError, Value};
use super::db::{FileState, StoredNote};
use crate::sessions::Session;

/// Replaces (or adds) the session of `files` with what `session` read. A session read
/// again keeps its id (the pages and API name sessions by it); its calls are replaced.
pub(crate) fn store(
    connection: &mut Connection,
    session: &Session,
    files: &[FileState],
    indexed_at: &str,
) -> Result<(), DbError> {
    let path = files
        .first()
        .map(|file| file.path.display().to_string())
        .unwrap_or_else(|| session.source.clone());
    connection.execute(
        "DELETE FROM calls WHERE session IN (SELECT id FROM sessions WHERE path = ?1)",
        &[path.as_str().into()],
    )?;
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
    let id = connection
        .first(
            "INSERT INTO sessions (path, agent, dialect, session_id, cwd, started, ended, \
             started_ms, ended_ms, calls, complete, failed, open, lines, diagnostics, notes, \
             files, indexed_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, \
             ?17, ?18) \
             ON CONFLICT(path) DO UPDATE SET agent = excluded.agent, \
             dialect = excluded.dialect, session_id = excluded.session_id, \
             cwd = excluded.cwd, started = excluded.started, ended = excluded.ended, \
             started_ms = excluded.started_ms, ended_ms = excluded.ended_ms, \
             calls = excluded.calls, complete = excluded.complete, \
             failed = excluded.failed, open = excluded.open, lines = excluded.lines, \
             diagnostics = excluded.diagnostics, notes = excluded.notes, \
             files = excluded.files, indexed_at = excluded.indexed_at \
             RETURNING id",
            &[
                path.into(),
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
                json(&files).into(),
                indexed_at.into(),
            ],
            |row| row.int(0),
        )?
        .flatten()
        .ok_or_else(|| DbError("the session's row was not stored".to_owned()))?;
    for (seq, part) in parts.iter().enumerate() {
        let timing = part.timing.as_ref();
        let metadata = part.metadata.as_ref();
        connection.execute(
            "INSERT INTO calls (session, seq, id, name, kind, title, state, error_code, \
             started, completed, elapsed_ms, parent_id, part, approval) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            &[
                Value::Int(id),
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
            ],
        )?;
    }
    Ok(())
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

//! One session's rows as the document `opencode export <session>` prints:
//! `{"info": Session, "messages": [{"info": Message, "parts": [Part]}]}`, built as OpenCode
//! builds it (1.17, 1.18: `Session.get`, `Session.messages`).
//!
//! - `info` is made of the `session` row's columns, named and nested as OpenCode's
//!   `fromRow` names them (`project_id` is `projectID`, the `tokens_*` columns are
//!   `tokens`, …), the columns it stores as JSON text (`model`, `summary_diffs`,
//!   `metadata`, `revert`, `permission`) parsed, a `NULL` column left out.
//! - Each message is its row's `data` (the message without `id` and `sessionID`) with
//!   `id` and `sessionID` after its keys, as `{...data, id, sessionID}`; each part its
//!   `data` with `id`, `sessionID` and `messageID`. The JSON text OpenCode stored is kept
//!   as it is: no number or key is rewritten.
//! - Messages in the order OpenCode pages them (`time_created`, then `id`), each
//!   message's parts by `id`.
//!
//! A `data` that is not a JSON object is left out (the message or part keeps its ids),
//! so the reader reports that message or part instead of losing the session.

use std::collections::HashMap;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension, Row};
use serde_json::{Map, Value};

/// Every session id, in the order created.
pub(super) fn session_ids(connection: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut statement = connection.prepare("SELECT id FROM session ORDER BY time_created, id")?;
    let ids = statement.query_map([], |row| row.get::<_, String>(0))?;
    ids.collect()
}

/// Every session id, in the order created, with a stamp of what its rows hold now: the
/// length of its messages' and parts' data, and the last time any of its rows (the
/// session's, its messages', its parts') was updated, in milliseconds. A session whose
/// stamp is as before holds what it held.
pub(super) fn session_stamps(connection: &Connection) -> rusqlite::Result<Vec<(String, u64, i64)>> {
    let mut statement = connection.prepare(
        "SELECT s.id, \
           coalesce((SELECT sum(length(data)) FROM message WHERE session_id = s.id), 0) \
           + coalesce((SELECT sum(length(data)) FROM part WHERE session_id = s.id), 0), \
           max(s.time_updated, \
               coalesce((SELECT max(time_updated) FROM message WHERE session_id = s.id), 0), \
               coalesce((SELECT max(time_updated) FROM part WHERE session_id = s.id), 0)) \
         FROM session s ORDER BY s.time_created, s.id",
    )?;
    let stamps = statement.query_map([], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, i64>(1)?.max(0) as u64,
            row.get::<_, i64>(2)?,
        ))
    })?;
    stamps.collect()
}

/// The `session` columns `info` is made of, in the order [`info`] reads them.
const SESSION_COLUMNS: &str = "id, slug, project_id, workspace_id, directory, path, \
     parent_id, title, agent, model, version, summary_additions, summary_deletions, \
     summary_files, summary_diffs, cost, tokens_input, tokens_output, tokens_reasoning, \
     tokens_cache_read, tokens_cache_write, share_url, metadata, revert, permission, \
     time_created, time_updated, time_compacting, time_archived";

/// Session `id`'s export document, or `None` when there is no such session.
pub(super) fn export(connection: &Connection, id: &str) -> rusqlite::Result<Option<String>> {
    let info = connection
        .query_row(
            &format!("SELECT {SESSION_COLUMNS} FROM session WHERE id = ?1"),
            [id],
            |row| info(row).map(Value::Object),
        )
        .optional()?;
    let Some(info) = info else {
        return Ok(None);
    };
    let mut parts = parts(connection, id)?;
    let mut document = String::from("{\"info\":");
    document.push_str(&info.to_string());
    document.push_str(",\"messages\":[");
    let mut statement = connection.prepare(
        "SELECT id, session_id, data FROM message WHERE session_id = ?1 \
         ORDER BY time_created, id",
    )?;
    let mut rows = statement.query([id])?;
    let mut first = true;
    while let Some(row) = rows.next()? {
        let message_id: String = row.get(0)?;
        let session_id: String = row.get(1)?;
        if !first {
            document.push(',');
        }
        first = false;
        document.push_str("{\"info\":");
        document.push_str(&object(
            row.get_ref(2)?,
            &[("id", &message_id), ("sessionID", &session_id)],
        ));
        document.push_str(",\"parts\":[");
        document.push_str(&parts.remove(&message_id).unwrap_or_default().join(","));
        document.push_str("]}");
    }
    document.push_str("]}");
    Ok(Some(document))
}

/// The parts of session `id`'s messages, each as its JSON text, by message, in the order
/// of their ids.
fn parts(connection: &Connection, id: &str) -> rusqlite::Result<HashMap<String, Vec<String>>> {
    let mut statement = connection.prepare(
        "SELECT id, message_id, session_id, data FROM part \
         WHERE message_id IN (SELECT id FROM message WHERE session_id = ?1) \
         ORDER BY message_id, id",
    )?;
    let mut rows = statement.query([id])?;
    let mut parts: HashMap<String, Vec<String>> = HashMap::new();
    while let Some(row) = rows.next()? {
        let part_id: String = row.get(0)?;
        let message_id: String = row.get(1)?;
        let session_id: String = row.get(2)?;
        let text = object(
            row.get_ref(3)?,
            &[
                ("id", &part_id),
                ("sessionID", &session_id),
                ("messageID", &message_id),
            ],
        );
        parts.entry(message_id).or_default().push(text);
    }
    Ok(parts)
}

/// A stored `data` object with `ids` after its keys (`{...data, id, …}`), its text kept
/// as stored; the ids alone when `data` is no JSON object.
fn object(data: ValueRef<'_>, ids: &[(&str, &str)]) -> String {
    let body = match data {
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => std::str::from_utf8(bytes)
            .ok()
            .map(str::trim)
            .filter(|text| serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok())
            .and_then(|text| text.strip_prefix('{'))
            .and_then(|text| text.strip_suffix('}'))
            .map(str::trim)
            .unwrap_or_default(),
        _ => "",
    };
    let mut out = String::with_capacity(body.len() + 96);
    out.push('{');
    out.push_str(body);
    for (index, (key, value)) in ids.iter().enumerate() {
        if index > 0 || !body.is_empty() {
            out.push(',');
        }
        out.push_str(&Value::from(*key).to_string());
        out.push(':');
        out.push_str(&Value::from(*value).to_string());
    }
    out.push('}');
    out
}

/// A column's value as JSON: `None` for `NULL`; a whole REAL as an integer, as
/// JavaScript prints it.
fn scalar(value: ValueRef<'_>) -> Option<Value> {
    match value {
        ValueRef::Null => None,
        ValueRef::Integer(number) => Some(number.into()),
        ValueRef::Real(number) if number.fract() == 0.0 && number.abs() < 9.0e15 => {
            Some((number as i64).into())
        }
        ValueRef::Real(number) => serde_json::Number::from_f64(number).map(Value::Number),
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => {
            Some(String::from_utf8_lossy(bytes).into_owned().into())
        }
    }
}

/// A column OpenCode stores as JSON text, parsed; `None` for `NULL` or text that is not
/// JSON.
fn json(value: ValueRef<'_>) -> Option<Value> {
    match value {
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => serde_json::from_slice(bytes).ok(),
        _ => None,
    }
}

/// The session's `info`, from its row of [`SESSION_COLUMNS`], keyed as OpenCode's
/// `fromRow` keys it.
fn info(row: &Row<'_>) -> rusqlite::Result<Map<String, Value>> {
    let column = |index: usize| row.get_ref(index).map(scalar);
    let parsed = |index: usize| row.get_ref(index).map(json);
    let mut info = Map::new();
    put(&mut info, "id", column(0)?);
    put(&mut info, "slug", column(1)?);
    put(&mut info, "projectID", column(2)?);
    put(&mut info, "workspaceID", column(3)?);
    put(&mut info, "directory", column(4)?);
    put(&mut info, "path", column(5)?);
    put(&mut info, "parentID", column(6)?);
    put(&mut info, "title", column(7)?);
    put(&mut info, "agent", column(8)?);
    put(
        &mut info,
        "model",
        parsed(9)?.map(|model| pick(&model, MODEL_KEYS)),
    );
    put(&mut info, "version", column(10)?);
    let (additions, deletions, files) = (column(11)?, column(12)?, column(13)?);
    if additions.is_some() || deletions.is_some() || files.is_some() {
        let mut summary = Map::new();
        summary.insert("additions".into(), additions.unwrap_or(0.into()));
        summary.insert("deletions".into(), deletions.unwrap_or(0.into()));
        summary.insert("files".into(), files.unwrap_or(0.into()));
        if let Some(diffs) = parsed(14)? {
            summary.insert("diffs".into(), diffs);
        }
        put(&mut info, "summary", Some(Value::Object(summary)));
    }
    put(&mut info, "cost", column(15)?);
    let mut cache = Map::new();
    cache.insert("read".into(), column(19)?.unwrap_or(0.into()));
    cache.insert("write".into(), column(20)?.unwrap_or(0.into()));
    let mut tokens = Map::new();
    tokens.insert("input".into(), column(16)?.unwrap_or(0.into()));
    tokens.insert("output".into(), column(17)?.unwrap_or(0.into()));
    tokens.insert("reasoning".into(), column(18)?.unwrap_or(0.into()));
    tokens.insert("cache".into(), Value::Object(cache));
    put(&mut info, "tokens", Some(Value::Object(tokens)));
    let share = column(21)?
        .filter(|url| url.as_str().is_some_and(|url| !url.is_empty()))
        .map(|url| Value::Object(Map::from_iter([("url".to_owned(), url)])));
    put(&mut info, "share", share);
    put(&mut info, "metadata", parsed(22)?);
    put(
        &mut info,
        "revert",
        parsed(23)?.map(|revert| pick(&revert, REVERT_KEYS)),
    );
    put(&mut info, "permission", parsed(24)?);
    let mut time = Map::new();
    for (key, index) in [
        ("created", 25),
        ("updated", 26),
        ("compacting", 27),
        ("archived", 28),
    ] {
        if let Some(value) = column(index)? {
            time.insert(key.to_owned(), value);
        }
    }
    put(&mut info, "time", Some(Value::Object(time)));
    Ok(info)
}

/// Sets `key` of `info` to `value`, when there is one.
fn put(info: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        info.insert(key.to_owned(), value);
    }
}

/// The keys of a session's `model`, in the order OpenCode writes them.
const MODEL_KEYS: &[&str] = &["id", "providerID", "variant"];

/// The keys of a session's `revert`, in the order OpenCode writes them.
const REVERT_KEYS: &[&str] = &["messageID", "partID", "snapshot", "diff"];

/// The `keys` of object `value` that it has and are not `null`, in that order; a value
/// that is no object as it is.
fn pick(value: &Value, keys: &[&str]) -> Value {
    let Some(object) = value.as_object() else {
        return value.clone();
    };
    let picked = keys.iter().filter_map(|key| {
        let value = object.get(*key).filter(|value| !value.is_null())?;
        Some(((*key).to_owned(), value.clone()))
    });
    Value::Object(picked.collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_data_keeps_its_text_and_gets_its_ids_after_it() {
        let data = ValueRef::Text(br#" {"type":"text","n":1.50} "#);
        assert_eq!(
            object(data, &[("id", "prt_1"), ("messageID", "msg_1")]),
            r#"{"type":"text","n":1.50,"id":"prt_1","messageID":"msg_1"}"#
        );
        assert_eq!(
            object(ValueRef::Text(b"{}"), &[("id", "a")]),
            r#"{"id":"a"}"#
        );
        // Data that is not a JSON object: the ids alone.
        for bad in [&b"[1]"[..], b"{\"a\":", b"\xff", b"null"] {
            assert_eq!(object(ValueRef::Text(bad), &[("id", "a")]), r#"{"id":"a"}"#);
        }
        assert_eq!(object(ValueRef::Null, &[("id", "a")]), r#"{"id":"a"}"#);
    }

    #[test]
    fn a_whole_real_is_written_as_javascript_writes_it() {
        assert_eq!(scalar(ValueRef::Real(0.0)), Some(0.into()));
        assert_eq!(scalar(ValueRef::Real(0.25)), Some(0.25.into()));
        assert_eq!(scalar(ValueRef::Null), None);
    }
}

//! Goose's session database, `sessions.db` (SQLite, in `~/.local/share/goose/sessions/`,
//! `$XDG_DATA_HOME/goose/sessions/` when that is set), where Goose keeps its sessions
//! since 1.10 (before, one `<id>.jsonl` file each beside it, which it imports once).
//! Known by its tables (`schema_version`, `sessions`, `messages` with `content_json`),
//! its schema by the greatest version in `schema_version`, one in [`KNOWN`] (pinned as
//! `schemas/goose/sessions-db@<release>.sql`, Goose's own statements).
//!
//! Each session is rebuilt as the lines of its session file before 1.10, which the
//! `goose-session` dialect reads:
//!
//! - first the session's metadata, from its `sessions` row: `working_dir`, `description`
//!   (its `name`, else its `description`, as Goose reads it), `schedule_id`,
//!   `message_count`, the token counts, `extension_data` and `recipe` (their JSON text
//!   parsed);
//! - then one `Message` a line, from its `messages` rows in the order Goose reads them
//!   (`ORDER BY timestamp`, then as inserted): `id` as Goose names it when it reads one
//!   (`msg_<session>_<index>`), `role`, `created` (`created_timestamp`), `content` (the
//!   JSON text of `content_json` as stored) and `metadata` (`metadata_json`, Goose's
//!   default when it is empty).
//!
//! A `content_json` that is not JSON is kept as a JSON string, which the dialect reports
//! on its line, rather than losing the session.

use rusqlite::{Connection, OptionalExtension};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// A schema toolnorm reads: Goose's schema version, and the releases it is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Known {
    /// The greatest version in `schema_version` (Goose's `CURRENT_SCHEMA_VERSION`).
    version: i64,
    /// The Goose releases whose source the schema is read from.
    releases: &'static str,
}

/// The schemas toolnorm reads, newest last.
const KNOWN: &[Known] = &[Known {
    version: 6,
    releases: "goose 1.20.0",
}];

/// The store's file and the tables it is known by, for people.
pub(super) const DESCRIBED: &str =
    "Goose's `sessions.db` (tables `schema_version`, `sessions` and `messages`)";

/// The metadata of a message whose `metadata_json` is empty: Goose's default
/// (`MessageMetadata::default`).
const DEFAULT_METADATA: &str = r#"{"userVisible":true,"agentVisible":true}"#;

/// Whether a database with `tables` is Goose's: its schema versions, sessions and
/// messages.
pub(super) fn is_its(tables: &[String]) -> bool {
    let has = |name: &str| tables.iter().any(|table| table == name);
    has("schema_version") && has("sessions") && has("messages")
}

/// Checks its schema: its version is one toolnorm knows, its messages have their
/// `content_json`.
pub(super) fn check(connection: &Connection) -> Result<(), String> {
    let version: Option<i64> = connection
        .query_row("SELECT max(version) FROM schema_version", [], |row| {
            row.get(0)
        })
        .map_err(|error| format!("reading Goose's schema version: {error}"))?;
    let known: Vec<String> = KNOWN
        .iter()
        .map(|known| format!("version {} ({})", known.version, known.releases))
        .collect();
    let Some(version) = version else {
        return Err(format!(
            "a Goose database with no schema version recorded in `schema_version`; toolnorm \
             reads {}",
            known.join(", ")
        ));
    };
    if !KNOWN.iter().any(|known| known.version == version) {
        return Err(format!(
            "a Goose database of a schema toolnorm does not know: its schema version is \
             `{version}`; toolnorm reads {} (a Goose release of another schema may store its \
             sessions otherwise)",
            known.join(", ")
        ));
    }
    let content = connection
        .prepare("SELECT name FROM pragma_table_info('messages') WHERE name = 'content_json'")
        .and_then(|mut statement| statement.exists([]))
        .map_err(|error| format!("reading Goose's tables: {error}"))?;
    match content {
        true => Ok(()),
        false => Err("a Goose database whose `messages` have no `content_json`".to_owned()),
    }
}

/// Every session id, in the order created.
pub(super) fn session_ids(connection: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut statement = connection.prepare("SELECT id FROM sessions ORDER BY created_at, id")?;
    let ids = statement.query_map([], |row| row.get::<_, String>(0))?;
    ids.collect()
}

/// Every session id, in the order created, with a stamp of what its rows hold now: the
/// length of its messages' content and metadata, and the last time its row or one of its
/// messages was written, in milliseconds (Goose keeps them to the second).
pub(super) fn session_stamps(connection: &Connection) -> rusqlite::Result<Vec<(String, u64, i64)>> {
    let mut statement = connection.prepare(
        "SELECT s.id, \
           coalesce((SELECT sum(length(content_json) + coalesce(length(metadata_json), 0)) \
                     FROM messages WHERE session_id = s.id), 0), \
           1000 * max(coalesce(CAST(strftime('%s', s.updated_at) AS INTEGER), 0), \
               coalesce((SELECT max(CAST(strftime('%s', timestamp) AS INTEGER)) \
                         FROM messages WHERE session_id = s.id), 0)) \
         FROM sessions s ORDER BY s.created_at, s.id",
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

/// Session `id` as the lines of Goose's session file (without the last newline), or
/// `None` when there is no such session.
pub(super) fn document(connection: &Connection, id: &str) -> rusqlite::Result<Option<String>> {
    let metadata = connection
        .query_row(
            "SELECT working_dir, name, description, schedule_id, total_tokens, input_tokens, \
               output_tokens, accumulated_total_tokens, accumulated_input_tokens, \
               accumulated_output_tokens, extension_data, recipe_json, \
               (SELECT count(*) FROM messages WHERE session_id = s.id) \
             FROM sessions s WHERE id = ?1",
            [id],
            metadata,
        )
        .optional()?;
    let Some(metadata) = metadata else {
        return Ok(None);
    };
    let mut document = Value::Object(metadata).to_string();
    let mut statement = connection.prepare(
        "SELECT role, content_json, created_timestamp, metadata_json FROM messages \
         WHERE session_id = ?1 ORDER BY timestamp, id",
    )?;
    let mut rows = statement.query([id])?;
    let mut index = 0usize;
    while let Some(row) = rows.next()? {
        let role: Option<String> = row.get(0)?;
        let content: Option<String> = row.get(1)?;
        let created: Option<i64> = row.get(2)?;
        let metadata: Option<String> = row.get(3)?;
        let message_id = format!("msg_{id}_{index}");
        document.push('\n');
        document.push_str("{\"id\":");
        document.push_str(&Value::from(message_id).to_string());
        document.push_str(",\"role\":");
        document.push_str(&Value::from(role).to_string());
        document.push_str(",\"created\":");
        document.push_str(&Value::from(created).to_string());
        document.push_str(",\"content\":");
        document.push_str(&json_text(content.as_deref()).unwrap_or_else(|| "null".to_owned()));
        document.push_str(",\"metadata\":");
        document.push_str(
            &json_text(metadata.as_deref()).unwrap_or_else(|| DEFAULT_METADATA.to_owned()),
        );
        document.push('}');
        index += 1;
    }
    Ok(Some(document))
}

/// The session's metadata line, from its `sessions` row.
fn metadata(row: &rusqlite::Row<'_>) -> rusqlite::Result<Map<String, Value>> {
    let name: Option<String> = row.get(1)?;
    let description: Option<String> = row.get(2)?;
    let description = name.filter(|name| !name.is_empty()).or(description);
    let mut metadata = Map::new();
    metadata.insert(
        "working_dir".into(),
        row.get::<_, Option<String>>(0)?.into(),
    );
    metadata.insert("description".into(), description.into());
    metadata.insert(
        "schedule_id".into(),
        row.get::<_, Option<String>>(3)?.into(),
    );
    metadata.insert("message_count".into(), row.get::<_, i64>(12)?.into());
    let tokens = [
        "total_tokens",
        "input_tokens",
        "output_tokens",
        "accumulated_total_tokens",
        "accumulated_input_tokens",
        "accumulated_output_tokens",
    ];
    for (offset, key) in tokens.into_iter().enumerate() {
        metadata.insert(key.into(), row.get::<_, Option<i64>>(4 + offset)?.into());
    }
    let parsed = |text: Option<String>| {
        text.and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .unwrap_or(Value::Null)
    };
    let extension_data = match parsed(row.get(10)?) {
        Value::Null => Value::Object(Map::new()),
        value => value,
    };
    metadata.insert("extension_data".into(), extension_data);
    metadata.insert("recipe".into(), parsed(row.get(11)?));
    Ok(metadata)
}

/// A column's JSON text as it goes into a line: as stored when it is JSON on one line,
/// written again on one line when it spans lines, a JSON string when it is not JSON;
/// `None` when the column is empty.
fn json_text(text: Option<&str>) -> Option<String> {
    let text = text?.trim();
    if text.is_empty() {
        return None;
    }
    Some(match serde_json::from_str::<&RawValue>(text) {
        Ok(_) if !text.contains(['\n', '\r']) => text.to_owned(),
        Ok(_) => serde_json::from_str::<Value>(text)
            .map_or_else(|_| Value::from(text).to_string(), |value| value.to_string()),
        Err(_) => Value::from(text).to_string(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// A database of the pinned schema, its version set to `version`.
    fn database(version: i64) -> Connection {
        let connection = Connection::open_in_memory().unwrap();
        let schema = include_str!("../../../../schemas/goose/sessions-db@1.20.0.sql");
        connection.execute_batch(schema).unwrap();
        connection
            .execute("UPDATE schema_version SET version = ?1", [version])
            .unwrap();
        connection
    }

    #[test]
    fn the_pinned_schema_is_known_and_another_version_is_refused() {
        assert_eq!(check(&database(6)), Ok(()));
        let message = check(&database(7)).unwrap_err();
        assert!(message.contains("`7`"), "{message}");
        assert!(message.contains("version 6 (goose 1.20.0)"), "{message}");
        let tables: Vec<String> = ["messages", "schema_version", "sessions"]
            .map(String::from)
            .to_vec();
        assert!(is_its(&tables));
        assert!(!is_its(&tables[..2]));
    }

    #[test]
    fn each_session_is_its_metadata_then_one_message_a_line() {
        let connection = database(6);
        connection
            .execute_batch(
                "INSERT INTO sessions (id, name, description, working_dir) \
                   VALUES ('20260101_1', 'Named', 'old', '/work'); \
                 INSERT INTO messages (session_id, role, content_json, created_timestamp, \
                   timestamp, metadata_json) VALUES \
                   ('20260101_1', 'assistant', '[{\"type\":\"text\",\"text\":\"b\"}]', 2, \
                    '2026-01-01 00:00:02', NULL), \
                   ('20260101_1', 'user', '[]', 1, '2026-01-01 00:00:01', \
                    '{\"userVisible\":false,\"agentVisible\":true}'), \
                   ('20260101_1', 'user', 'not json', 3, '2026-01-01 00:00:03', NULL);",
            )
            .unwrap();
        let text = document(&connection, "20260101_1").unwrap().unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0]["working_dir"], "/work");
        assert_eq!(lines[0]["description"], "Named");
        assert_eq!(lines[0]["message_count"], 3);
        assert_eq!(lines[1]["id"], "msg_20260101_1_0");
        assert_eq!(lines[1]["created"], 1);
        assert_eq!(lines[1]["metadata"]["userVisible"], false);
        assert_eq!(lines[2]["content"][0]["text"], "b");
        assert_eq!(lines[2]["metadata"]["userVisible"], true);
        assert_eq!(lines[3]["content"], "not json");
        assert_eq!(document(&connection, "nonesuch").unwrap(), None);
        let stamps = session_stamps(&connection).unwrap();
        assert_eq!(stamps.len(), 1);
        assert!(
            stamps[0].1 > 0 && stamps[0].2 >= 1_767_225_603_000,
            "{stamps:?}"
        );
    }
}

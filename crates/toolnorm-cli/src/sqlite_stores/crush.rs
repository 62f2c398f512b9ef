//! Crush's session database, `crush.db` (SQLite, in the project's data directory,
//! `.crush/` by default), migrated by pressly/goose. Known by its tables
//! (`goose_db_version`, `sessions`, `messages` with `parts`), its schema by the newest
//! migration applied, one in [`KNOWN`] (pinned as `schemas/crush/crush-db@<release>.sql`,
//! Crush's own migrations).
//!
//! Each session is rebuilt as the lines the `crush` dialect reads, its rows as JSON
//! objects named by their columns:
//!
//! - first the session's `sessions` row (`todos` parsed when it is JSON);
//! - then its `messages` rows, in the order Crush lists them (`ORDER BY created_at`, then
//!   as inserted: Crush stamps them to the second), `parts` parsed (a JSON array of
//!   `{"type", "data"}`), `is_summary_message` as a boolean;
//! - then, the same way, each session a call of it started (a subagent's, whose
//!   `parent_session_id` is this one), in the order created, and theirs after them.
//!
//! Only sessions with no parent in the database are listed: a subagent's session is read
//! with the session that started it. A `parts` that is not JSON is kept as a JSON string,
//! which the dialect reports on its line, rather than losing the session.

use std::collections::{HashMap, HashSet};

use rusqlite::{Connection, OptionalExtension};
use serde_json::{Map, Value};

/// A schema toolnorm reads: the newest migration Crush applied, and its releases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Known {
    /// The greatest `version_id` applied in `goose_db_version`.
    version: i64,
    /// The Crush releases that migrate their database to it.
    releases: &'static str,
}

/// The schemas toolnorm reads, oldest first: each adds to the one before, and a column a
/// schema lacks is read as absent.
const KNOWN: &[Known] = &[
    Known {
        version: 20250627000000,
        releases: "crush 0.1 to 0.12",
    },
    Known {
        version: 20250810000000,
        releases: "crush 0.13 to 0.23",
    },
    Known {
        version: 20250812000000,
        releases: "crush 0.24 to 0.36",
    },
    Known {
        version: 20260127000000,
        releases: "crush 0.37 to 0.90",
    },
];

/// The store's file and the tables it is known by, for people.
pub(super) const DESCRIBED: &str =
    "Crush's `crush.db` (tables `goose_db_version`, `sessions` and `messages`)";

/// Whether a database with `tables` is Crush's: its migrations (pressly/goose's version
/// table), sessions and messages.
pub(super) fn is_its(tables: &[String]) -> bool {
    let has = |name: &str| tables.iter().any(|table| table == name);
    has("goose_db_version") && has("sessions") && has("messages")
}

/// Checks its schema: its newest migration is one toolnorm knows, its messages have
/// their `parts`.
pub(super) fn check(connection: &Connection) -> Result<(), String> {
    let version: Option<i64> = connection
        .query_row(
            "SELECT max(version_id) FROM goose_db_version WHERE is_applied",
            [],
            |row| row.get(0),
        )
        .map_err(|error| format!("reading Crush's migrations: {error}"))?;
    let known: Vec<String> = KNOWN
        .iter()
        .map(|known| format!("migration {} ({})", known.version, known.releases))
        .collect();
    let version = version.unwrap_or_default();
    if !KNOWN.iter().any(|known| known.version == version) {
        return Err(format!(
            "a Crush database of a schema toolnorm does not know: its newest migration is \
             `{version}`; toolnorm reads {} (a Crush release of another schema may store its \
             sessions otherwise)",
            known.join(", ")
        ));
    }
    match columns(connection, "messages")
        .map_err(|error| format!("reading Crush's tables: {error}"))?
        .contains("parts")
    {
        true => Ok(()),
        false => Err("a Crush database whose `messages` have no `parts`".to_owned()),
    }
}

/// The names of `table`'s columns.
fn columns(connection: &Connection, table: &str) -> rusqlite::Result<HashSet<String>> {
    let mut statement = connection.prepare("SELECT name FROM pragma_table_info(?1)")?;
    let names = statement.query_map([table], |row| row.get::<_, String>(0))?;
    names.collect()
}

/// The sessions of a database and who started whom.
struct Family {
    /// Each session's parent, when it has one the database holds.
    parents: HashMap<String, String>,
    /// Each session's children, in the order created.
    children: HashMap<String, Vec<String>>,
    /// Every session id, in the order created.
    ids: Vec<String>,
}

impl Family {
    /// The sessions and their parents.
    fn read(connection: &Connection) -> rusqlite::Result<Family> {
        let mut statement = connection
            .prepare("SELECT id, parent_session_id FROM sessions ORDER BY created_at, rowid")?;
        let rows = statement.query_map([], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, Option<String>>(1)?))
        })?;
        let rows: Vec<(String, Option<String>)> = rows.collect::<rusqlite::Result<_>>()?;
        let ids: Vec<String> = rows.iter().map(|(id, _)| id.clone()).collect();
        let known: HashSet<&str> = ids.iter().map(String::as_str).collect();
        let mut parents = HashMap::new();
        let mut children: HashMap<String, Vec<String>> = HashMap::new();
        for (id, parent) in &rows {
            let Some(parent) = parent.as_deref().filter(|parent| known.contains(parent)) else {
                continue;
            };
            if parent != id {
                parents.insert(id.clone(), parent.to_owned());
                children
                    .entry(parent.to_owned())
                    .or_default()
                    .push(id.clone());
            }
        }
        Ok(Family {
            parents,
            children,
            ids,
        })
    }

    /// The session at the top of `id`'s line of parents: itself when it has none; in a
    /// loop of parents (which Crush never writes), the loop's session created first.
    fn root<'a>(&'a self, id: &'a str) -> &'a str {
        let mut path: Vec<&str> = vec![id];
        while let Some(parent) = self.parents.get(*path.last().unwrap_or(&id)) {
            if let Some(start) = path.iter().position(|seen| seen == parent) {
                let cycle = &path[start..];
                return self
                    .ids
                    .iter()
                    .map(String::as_str)
                    .find(|id| cycle.contains(id))
                    .unwrap_or(parent);
            }
            path.push(parent);
        }
        path.last().copied().unwrap_or(id)
    }

    /// The sessions read as their own: those with no parent the database holds.
    fn roots(&self) -> Vec<String> {
        self.ids
            .iter()
            .filter(|id| self.root(id) == id.as_str())
            .cloned()
            .collect()
    }

    /// `id` and the sessions under it, each before its own children, children in the
    /// order created.
    fn tree(&self, id: &str) -> Vec<String> {
        let mut order = Vec::new();
        let mut seen = HashSet::new();
        let mut stack = vec![id.to_owned()];
        while let Some(session) = stack.pop() {
            if !seen.insert(session.clone()) {
                continue;
            }
            if let Some(children) = self.children.get(&session) {
                stack.extend(children.iter().rev().cloned());
            }
            order.push(session);
        }
        order
    }
}

/// Every session read as its own, in the order created.
pub(super) fn session_ids(connection: &Connection) -> rusqlite::Result<Vec<String>> {
    Ok(Family::read(connection)?.roots())
}

/// Every session read as its own, in the order created, with a stamp of what its rows and
/// its subagents' hold now: the length of their messages' parts, and the last time one of
/// their rows was written, in milliseconds (Crush keeps them to the second).
pub(super) fn session_stamps(connection: &Connection) -> rusqlite::Result<Vec<(String, u64, i64)>> {
    let family = Family::read(connection)?;
    let mut statement = connection.prepare(
        "SELECT s.id, \
           coalesce((SELECT sum(length(parts)) FROM messages WHERE session_id = s.id), 0), \
           max(s.updated_at, \
               coalesce((SELECT max(updated_at) FROM messages WHERE session_id = s.id), 0)) \
         FROM sessions s",
    )?;
    let rows = statement.query_map([], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, Option<i64>>(1)?.unwrap_or_default(),
            row.get::<_, Option<i64>>(2)?.unwrap_or_default(),
        ))
    })?;
    let mut stamps: HashMap<String, (u64, i64)> = HashMap::new();
    for row in rows {
        let (id, length, updated) = row?;
        let stamp = stamps.entry(family.root(&id).to_owned()).or_default();
        stamp.0 += length.max(0) as u64;
        stamp.1 = stamp.1.max(milliseconds(updated));
    }
    Ok(family
        .roots()
        .into_iter()
        .map(|id| {
            let (length, updated) = stamps.get(&id).copied().unwrap_or_default();
            (id, length, updated)
        })
        .collect())
}

/// A time Crush wrote, in milliseconds: its columns say milliseconds, its statements write
/// seconds (`strftime('%s', 'now')`).
fn milliseconds(time: i64) -> i64 {
    match time.abs() < 100_000_000_000 {
        true => time.saturating_mul(1000),
        false => time,
    }
}

/// Session `id` and its subagents' as the lines the `crush` dialect reads (without the
/// last newline), or `None` when there is no such session: their messages in the order
/// written (`created_at`, then as inserted), whichever session each is of, each
/// session's row before its first message (the root's first; one without messages after
/// them all).
pub(super) fn document(connection: &Connection, id: &str) -> rusqlite::Result<Option<String>> {
    let exists = connection
        .query_row("SELECT 1 FROM sessions WHERE id = ?1", [id], |_| Ok(()))
        .optional()?;
    if exists.is_none() {
        return Ok(None);
    }
    let tree = Family::read(connection)?.tree(id);
    let mut sessions = HashMap::new();
    let mut messages = Vec::new();
    for session in &tree {
        let row = rows(
            connection,
            "SELECT 0, 0, * FROM sessions WHERE id = ?1",
            session,
        )?;
        sessions.insert(session.as_str(), row.into_iter().next().map(|row| row.line));
        messages.extend(rows(
            connection,
            "SELECT created_at, rowid, * FROM messages WHERE session_id = ?1",
            session,
        )?);
    }
    messages.sort_by_key(|message| message.order);
    let mut lines = Vec::with_capacity(messages.len() + tree.len());
    let mut session_line = |session: &str, lines: &mut Vec<String>| {
        if let Some(Some(line)) = sessions.get_mut(session).map(Option::take) {
            lines.push(line);
        }
    };
    session_line(id, &mut lines);
    for message in messages {
        session_line(&message.session, &mut lines);
        lines.push(message.line);
    }
    for session in &tree {
        session_line(session, &mut lines);
    }
    Ok(Some(lines.join("\n")))
}

/// A row as a line, and where it goes among the others.
struct Row {
    /// Its `created_at` and rowid (the first two columns selected).
    order: (i64, i64),
    /// Its `session_id`, for a message.
    session: String,
    /// The row as a JSON object of its columns (but the first two).
    line: String,
}

/// The rows `query` selects for `id`: its first two columns say the rows' order, the
/// others are the row's.
fn rows(connection: &Connection, query: &str, id: &str) -> rusqlite::Result<Vec<Row>> {
    let mut statement = connection.prepare(query)?;
    let names: Vec<String> = statement
        .column_names()
        .into_iter()
        .map(str::to_owned)
        .collect();
    let mut rows = statement.query([id])?;
    let mut read = Vec::new();
    while let Some(row) = rows.next()? {
        let mut object = Map::new();
        for (index, name) in names.iter().enumerate().skip(2) {
            object.insert(name.clone(), column(row, index, name)?);
        }
        let session = object
            .get("session_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        read.push(Row {
            order: (
                row.get::<_, Option<i64>>(0)?.unwrap_or_default(),
                row.get::<_, Option<i64>>(1)?.unwrap_or_default(),
            ),
            session,
            line: Value::Object(object).to_string(),
        });
    }
    Ok(read)
}

/// A column's value in a line: `parts` and `todos` parsed when they are JSON, the flag
/// `is_summary_message` a boolean, a blob as text.
fn column(row: &rusqlite::Row<'_>, index: usize, name: &str) -> rusqlite::Result<Value> {
    use rusqlite::types::ValueRef;
    Ok(match row.get_ref(index)? {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(flag) if name == "is_summary_message" => Value::Bool(flag != 0),
        ValueRef::Integer(number) => number.into(),
        ValueRef::Real(number) => number.into(),
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => {
            let text = String::from_utf8_lossy(bytes);
            match name {
                "parts" | "todos" => serde_json::from_str(&text).unwrap_or(Value::from(text)),
                _ => Value::from(text),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// A database of the pinned schema.
    fn database() -> Connection {
        let connection = Connection::open_in_memory().unwrap();
        let schema = include_str!("../../../../schemas/crush/crush-db@0.90.0.sql");
        connection.execute_batch(schema).unwrap();
        connection
    }

    #[test]
    fn the_pinned_schema_is_known_and_another_migration_is_refused() {
        let connection = database();
        assert_eq!(check(&connection), Ok(()));
        connection
            .execute(
                "INSERT INTO goose_db_version (version_id, is_applied) VALUES (20990101000000, 1)",
                [],
            )
            .unwrap();
        let message = check(&connection).unwrap_err();
        assert!(message.contains("`20990101000000`"), "{message}");
        assert!(message.contains("migration 20260127000000 (crush 0.37 to 0.90)"));
        let tables: Vec<String> = ["goose_db_version", "messages", "sessions"]
            .map(String::from)
            .to_vec();
        assert!(is_its(&tables));
        assert!(!is_its(&tables[1..]));
    }

    #[test]
    fn a_session_is_its_row_its_messages_then_its_subagents() {
        let connection = database();
        connection
            .execute_batch(
                "INSERT INTO sessions (id, parent_session_id, title, updated_at, created_at) VALUES \
                   ('s1', NULL, 'Top', 10, 10), \
                   ('m1$$call_1', 's1', 'Sub', 12, 12), \
                   ('m9$$call_9', 'm1$$call_1', 'Sub of sub', 13, 13), \
                   ('m2$$call_2', 's1', 'Empty', 15, 15), \
                   ('s2', NULL, 'Other', 20, 20), \
                   ('orphan', 'gone', 'Orphan', 30, 30); \
                 INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES \
                   ('a', 's1', 'assistant', '[{\"type\":\"text\",\"data\":{\"text\":\"b\"}}]', 11, 11), \
                   ('u', 's1', 'user', '[]', 10, 10), \
                   ('c', 'm1$$call_1', 'assistant', 'not json', 12, 14), \
                   ('d', 'm9$$call_9', 'tool', '[]', 13, 13), \
                   ('r', 's1', 'tool', '[]', 13, 13);",
            )
            .unwrap();
        assert_eq!(session_ids(&connection).unwrap(), ["s1", "s2", "orphan"]);
        let text = document(&connection, "s1").unwrap().unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let ids: Vec<&str> = lines
            .iter()
            .map(|line| line["id"].as_str().unwrap())
            .collect();
        // Messages in the order written, each session's row before its first message.
        assert_eq!(
            ids,
            [
                "s1",
                "u",
                "a",
                "m1$$call_1",
                "c",
                "m9$$call_9",
                "d",
                "r",
                "m2$$call_2"
            ]
        );
        assert_eq!(lines[2]["parts"][0]["data"]["text"], "b");
        assert_eq!(lines[2]["is_summary_message"], false);
        assert_eq!(lines[4]["parts"], "not json");
        assert_eq!(lines[3]["parent_session_id"], "s1");
        assert_eq!(lines[3]["title"], "Sub");
        assert_eq!(document(&connection, "nonesuch").unwrap(), None);
        let stamps = session_stamps(&connection).unwrap();
        assert_eq!(stamps.len(), 3);
        assert_eq!(stamps[0].0, "s1");
        // Crush's triggers write `updated_at` as each message is counted: now, in seconds.
        assert!(
            stamps[0].2 >= 14_000 && stamps[0].2 % 1000 == 0,
            "{stamps:?}"
        );
        assert!(stamps[0].1 > stamps[1].1, "{stamps:?}");
    }

    #[test]
    fn an_older_schema_is_read_without_the_columns_it_lacks() {
        // Crush 0.1 to 0.12: the migrations up to the messages' `provider`.
        let schema = include_str!("../../../../schemas/crush/crush-db@0.90.0.sql");
        let older = &schema[..schema.find("-- 20250810000000").unwrap()];
        let connection = Connection::open_in_memory().unwrap();
        connection.execute_batch(older).unwrap();
        assert_eq!(check(&connection), Ok(()));
        connection
            .execute_batch(
                "INSERT INTO sessions (id, title, updated_at, created_at) VALUES ('s', 'T', 1, 1); \
                 INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) \
                   VALUES ('m', 's', 'user', '[]', 1, 1);",
            )
            .unwrap();
        let text = document(&connection, "s").unwrap().unwrap();
        let message: Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
        assert_eq!(message["parts"], serde_json::json!([]));
        assert!(message.get("is_summary_message").is_none());
    }

    #[test]
    fn a_loop_of_parents_ends() {
        let connection = database();
        connection
            .execute_batch(
                "INSERT INTO sessions (id, parent_session_id, title, updated_at, created_at) VALUES \
                   ('a', 'b', 'A', 1, 1), ('b', 'a', 'B', 2, 2);",
            )
            .unwrap();
        let family = Family::read(&connection).unwrap();
        assert_eq!(family.roots(), ["a"]);
        assert_eq!(family.tree("a"), ["a", "b"]);
        assert_eq!(session_ids(&connection).unwrap(), ["a"]);
    }
}

//! OpenCode's session database, `opencode.db` (SQLite, in `$XDG_DATA_HOME/opencode/`,
//! else `~/.local/share/opencode/`), which OpenCode writes instead of its `storage/` JSON
//! folders since its 1.1x releases: each session rebuilt as the JSON document
//! `opencode export <session>` prints ([`rows`]), which the `opencode-export` dialect
//! reads. Known by its tables (`session`, `message`, `part`, and its migrations in
//! `migration` or drizzle's `__drizzle_migrations`), its schema by its last migration
//! ([`schema`]).

mod rows;
mod schema;

use rusqlite::Connection;

/// The store's file and the tables it is known by, for people.
pub(super) const DESCRIBED: &str =
    "OpenCode's `opencode.db` (tables `session`, `message`, `part` and `migration`)";

/// Whether a database with `tables` is OpenCode's: its migrations' table, or its three
/// tables of sessions.
pub(super) fn is_its(tables: &[String]) -> bool {
    let has = |name: &str| tables.iter().any(|table| table == name);
    has("migration")
        || has("__drizzle_migrations")
        || (has("session") && has("message") && has("part"))
}

/// Checks its schema: its last migration is one toolnorm knows.
pub(super) fn check(connection: &Connection) -> Result<(), String> {
    schema::check(connection).map(|_| ())
}

/// Every session id, in the order created.
pub(super) fn session_ids(connection: &Connection) -> rusqlite::Result<Vec<String>> {
    rows::session_ids(connection)
}

/// Every session id, in the order created, with its stamp ([`rows::session_stamps`]).
pub(super) fn session_stamps(connection: &Connection) -> rusqlite::Result<Vec<(String, u64, i64)>> {
    rows::session_stamps(connection)
}

/// Session `id`'s export document, or `None` when there is no such session.
pub(super) fn document(connection: &Connection, id: &str) -> rusqlite::Result<Option<String>> {
    rows::export(connection, id)
}

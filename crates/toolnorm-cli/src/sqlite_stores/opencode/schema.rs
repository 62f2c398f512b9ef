//! Which schema an OpenCode database has: the migrations OpenCode applied to it, as it
//! keeps them (its `migration` table, `id` and `time_completed`, since 1.1x; drizzle's
//! `__drizzle_migrations` before, whose `name` it copies over). Migration ids begin with
//! their date (`20260622202450_simplify_session_input`), so the greatest is the last
//! applied: the schema. One not in [`KNOWN`] is refused with the one found and the ones
//! known, rather than read wrong. Each known schema is pinned as text in
//! `schemas/opencode/` (a test compares every recorded database with it).

use rusqlite::Connection;

/// A schema toolnorm reads: OpenCode's last migration, and the releases recorded with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Known {
    /// The id of the last migration applied.
    pub(crate) migration: &'static str,
    /// The OpenCode releases whose databases have it (recorded in `fixtures/opencode-db/`).
    pub(crate) releases: &'static str,
}

/// The schemas toolnorm reads, newest last.
pub(crate) const KNOWN: &[Known] = &[Known {
    migration: "20260622202450_simplify_session_input",
    releases: "opencode 1.17.19 and 1.18.33",
}];

/// The tables a database must have, besides its migrations, for its sessions to be read.
const READ: &[&str] = &["session", "message", "part"];

/// The schema of the database open on `connection`, or why it is not one toolnorm reads.
pub(crate) fn check(connection: &Connection) -> Result<Known, String> {
    let tables = tables(connection).map_err(|error| format!("not a readable database: {error}"))?;
    let last = last_migration(connection, &tables)
        .map_err(|error| format!("reading OpenCode's migrations: {error}"))?;
    let Some(last) = last else {
        let mut shown: Vec<&str> = tables.iter().map(String::as_str).take(8).collect();
        if tables.len() > shown.len() {
            shown.push("…");
        }
        let shown = match shown.is_empty() {
            true => "it has no table".to_owned(),
            false => format!("its tables: {}", shown.join(", ")),
        };
        return Err(format!(
            "not an OpenCode database: no migration recorded in a `migration` or \
             `__drizzle_migrations` table ({shown})"
        ));
    };
    let known = KNOWN.iter().find(|known| known.migration == last).copied();
    let missing: Vec<&str> = READ
        .iter()
        .filter(|table| !tables.iter().any(|name| name == *table))
        .copied()
        .collect();
    match known {
        Some(known) if missing.is_empty() => Ok(known),
        Some(_) => Err(format!(
            "an OpenCode database without its table(s) {}",
            missing.join(", ")
        )),
        None => Err(unknown(&last)),
    }
}

/// The message for a schema toolnorm does not know.
fn unknown(found: &str) -> String {
    let known: Vec<String> = KNOWN
        .iter()
        .map(|known| format!("`{}` ({})", known.migration, known.releases))
        .collect();
    format!(
        "an OpenCode database of a schema toolnorm does not know: its last migration is \
         `{found}`; toolnorm reads {} (an OpenCode release newer than these may store its \
         sessions otherwise: `opencode export <session>` prints one that toolnorm reads)",
        known.join(", ")
    )
}

/// The names of the database's tables.
fn tables(connection: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut statement =
        connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")?;
    let names = statement.query_map([], |row| row.get::<_, String>(0))?;
    names.collect()
}

/// The last migration applied, as the `migration` table or drizzle's table records it:
/// the greatest id (or name); `None` when neither records one.
fn last_migration(connection: &Connection, tables: &[String]) -> rusqlite::Result<Option<String>> {
    let has = |name: &str| tables.iter().any(|table| table == name);
    if has("migration") {
        let last: Option<String> =
            connection.query_row("SELECT max(id) FROM migration", [], |row| row.get(0))?;
        if last.is_some() {
            return Ok(last);
        }
    }
    if !has("__drizzle_migrations") {
        return Ok(None);
    }
    let named = connection
        .prepare("SELECT name FROM pragma_table_info('__drizzle_migrations') WHERE name = 'name'")?
        .exists([])?;
    let query = match named {
        true => "SELECT max(name) FROM __drizzle_migrations",
        // Drizzle's table before it kept names: the migration's time.
        false => "SELECT 'created_at ' || max(created_at) FROM __drizzle_migrations",
    };
    connection.query_row(query, [], |row| row.get(0))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn database(sql: &str) -> Connection {
        let connection = Connection::open_in_memory().unwrap();
        connection.execute_batch(sql).unwrap();
        connection
    }

    #[test]
    fn the_last_migration_names_the_schema() {
        let tables = "CREATE TABLE session (id TEXT); CREATE TABLE message (id TEXT); \
                      CREATE TABLE part (id TEXT); \
                      CREATE TABLE migration (id TEXT PRIMARY KEY, time_completed INTEGER);";
        let known = database(&format!(
            "{tables} INSERT INTO migration VALUES ('20260127222353_familiar_lady_ursula', 1), \
             ('{}', 2);",
            KNOWN[0].migration
        ));
        assert_eq!(check(&known), Ok(KNOWN[0]));
        let newer = database(&format!(
            "{tables} INSERT INTO migration VALUES ('{}', 1), ('20301231000000_next', 2);",
            KNOWN[0].migration
        ));
        let message = check(&newer).unwrap_err();
        assert!(message.contains("`20301231000000_next`"), "{message}");
        assert!(message.contains(KNOWN[0].migration), "{message}");
        assert!(message.contains("1.18.33"), "{message}");
    }

    #[test]
    fn drizzle_bookkeeping_is_read_too() {
        let named = database(
            "CREATE TABLE __drizzle_migrations (id INTEGER PRIMARY KEY, hash TEXT, \
             created_at NUMERIC, name TEXT); \
             INSERT INTO __drizzle_migrations VALUES (1, 'h', 5, '20260101000000_old');",
        );
        let message = check(&named).unwrap_err();
        assert!(message.contains("`20260101000000_old`"), "{message}");
        let unnamed = database(
            "CREATE TABLE __drizzle_migrations (id INTEGER PRIMARY KEY, hash TEXT, \
             created_at NUMERIC); INSERT INTO __drizzle_migrations VALUES (1, 'h', 1767225600000);",
        );
        let message = check(&unnamed).unwrap_err();
        assert!(message.contains("`created_at 1767225600000`"), "{message}");
    }

    #[test]
    fn a_database_of_another_program_is_told_by_its_tables() {
        let other = database("CREATE TABLE calls (id TEXT); CREATE TABLE sessions (id TEXT);");
        let message = check(&other).unwrap_err();
        assert!(message.starts_with("not an OpenCode database"), "{message}");
        assert!(message.contains("calls, sessions"), "{message}");
        let empty = database("");
        assert!(check(&empty).unwrap_err().contains("it has no table"));
    }
}

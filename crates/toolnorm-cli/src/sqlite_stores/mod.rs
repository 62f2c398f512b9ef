//! The SQLite session stores toolnorm reads, each known by its tables (never by its
//! file's name), its schema checked against the one pinned in `schemas/`, each session
//! rebuilt as the document an existing dialect reads, one stream per session
//! (`<path>#<session>`):
//!
//! - [`opencode`]: OpenCode's `opencode.db` (its tables `session`, `message`, `part` and
//!   its migrations), each session as `opencode export <session>` prints it, read by the
//!   `opencode-export` dialect;
//! - [`goose`]: Goose's `sessions.db` (since 1.10: `schema_version`, `sessions`,
//!   `messages` with `content_json`), each session as the lines of Goose's session file
//!   before 1.10, read by the `goose-session` dialect;
//! - [`crush`]: Crush's `crush.db` (its migrations' `goose_db_version`, `sessions`,
//!   `messages` with `parts`), each session with its subagents' as their rows, one a
//!   line, read by the `crush` dialect.
//!
//! A file is taken for a database by its SQLite header alone; an SQLite database of none
//! of these is refused naming the stores known.
//!
//! A store is read while its agent may be writing it: opened read-only (`mode=ro`, so no
//! write lock is ever taken and nothing is checkpointed), waiting out a writer's lock
//! ([`BUSY_TIMEOUT`], then [`BUSY_RETRIES`] more tries), each session read in one read
//! transaction, the `-wal` file the agent leaves read with it. A database in WAL mode
//! without its `-wal` file (checkpointed away: a copy, a backup) is opened `immutable`:
//! a read-only connection would otherwise create the `-wal` and `-shm` files beside it.
//! Its schema is checked first: one toolnorm does not know is refused, not read wrong.

mod crush;
mod goose;
mod opencode;

use std::io::Read;
use std::path::Path;
use std::time::Duration;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_encode};
use rusqlite::{Connection, OpenFlags};

use crate::subagents::Unit;

/// The first 16 bytes of every SQLite database file.
const HEADER: &[u8; 16] = b"SQLite format 3\0";

/// How long a read waits for a lock OpenCode holds (`SQLITE_BUSY`) before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// How many times a read that found the database busy past [`BUSY_TIMEOUT`] is tried
/// again, after a pause.
const BUSY_RETRIES: u32 = 3;

/// The bytes of a path kept as they are in an SQLite URI; every other is %-encoded.
const PATH_KEPT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'/')
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// The first bytes of the file at `path`, up to the format versions (offsets 18 and
/// 19); `None` when it is shorter or cannot be read.
fn header(path: &Path) -> Option<[u8; 20]> {
    let mut bytes = [0u8; 20];
    let mut file = std::fs::File::open(path).ok()?;
    file.read_exact(&mut bytes).ok()?;
    Some(bytes)
}

/// Whether the file at `path` is an SQLite database: it begins with SQLite's header.
pub(crate) fn is_sqlite(path: &Path) -> bool {
    path.as_os_str() != "-" && header(path).is_some_and(|bytes| bytes.starts_with(HEADER))
}

/// The URI that opens `path` read-only; `immutable` when nothing but the file itself
/// can hold its content (a WAL database without its `-wal` file).
fn uri(path: &Path) -> String {
    let encoded = percent_encode(path.as_os_str().as_encoded_bytes(), PATH_KEPT);
    let wal_mode = header(path).is_some_and(|bytes| bytes[18] == 2 && bytes[19] == 2);
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let immutable = wal_mode && !Path::new(&wal).exists();
    match immutable {
        true => format!("file:{encoded}?mode=ro&immutable=1"),
        false => format!("file:{encoded}?mode=ro"),
    }
}

/// A session store toolnorm reads, known by its tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Store {
    /// OpenCode's `opencode.db`.
    OpenCode,
    /// Goose's `sessions.db`.
    Goose,
    /// Crush's `crush.db`.
    Crush,
}

/// Every store, in the order they are told apart.
const STORES: &[Store] = &[Store::OpenCode, Store::Goose, Store::Crush];

impl Store {
    /// The store whose tables a database with `tables` has, if any.
    fn of(tables: &[String]) -> Option<Store> {
        STORES.iter().copied().find(|store| match store {
            Store::OpenCode => opencode::is_its(tables),
            Store::Goose => goose::is_its(tables),
            Store::Crush => crush::is_its(tables),
        })
    }

    /// The agent whose store it is, for people.
    fn agent(self) -> &'static str {
        match self {
            Store::OpenCode => "OpenCode",
            Store::Goose => "Goose",
            Store::Crush => "Crush",
        }
    }

    /// "an OpenCode database", for people.
    fn a_database(self) -> &'static str {
        match self {
            Store::OpenCode => "an OpenCode database",
            Store::Goose => "a Goose database",
            Store::Crush => "a Crush database",
        }
    }

    /// The store's file and the tables it is known by, for people.
    fn described(self) -> &'static str {
        match self {
            Store::OpenCode => opencode::DESCRIBED,
            Store::Goose => goose::DESCRIBED,
            Store::Crush => crush::DESCRIBED,
        }
    }

    /// Checks the schema of the store open on `connection`: an error naming the schema
    /// found and the ones known when toolnorm does not know it.
    fn check(self, connection: &Connection) -> Result<(), String> {
        match self {
            Store::OpenCode => opencode::check(connection),
            Store::Goose => goose::check(connection),
            Store::Crush => crush::check(connection),
        }
    }

    /// Its session ids, oldest first.
    fn session_ids(self, connection: &Connection) -> rusqlite::Result<Vec<String>> {
        match self {
            Store::OpenCode => opencode::session_ids(connection),
            Store::Goose => goose::session_ids(connection),
            Store::Crush => crush::session_ids(connection),
        }
    }

    /// Its session ids, oldest first, each with its stamp (see
    /// [`Database::session_stamps`]).
    fn session_stamps(self, connection: &Connection) -> rusqlite::Result<Vec<(String, u64, i64)>> {
        match self {
            Store::OpenCode => opencode::session_stamps(connection),
            Store::Goose => goose::session_stamps(connection),
            Store::Crush => crush::session_stamps(connection),
        }
    }

    /// Session `id` as the document its dialect reads, without its last newline;
    /// `None` when there is no such session.
    fn document(self, connection: &Connection, id: &str) -> rusqlite::Result<Option<String>> {
        match self {
            Store::OpenCode => opencode::document(connection, id),
            Store::Goose => goose::document(connection, id),
            Store::Crush => crush::document(connection, id),
        }
    }
}

/// A session store, open read-only, its schema one toolnorm knows. Its errors are for
/// people, without the file's name (the caller puts it before them).
pub(crate) struct Database {
    connection: Connection,
    store: Store,
}

impl Database {
    /// Opens the database at `path`, tells its store by its tables and checks its schema.
    pub(crate) fn open(path: &Path) -> Result<Database, String> {
        if !is_sqlite(path) {
            return Err(match std::fs::metadata(path) {
                Err(error) => crate::io_message(&error),
                Ok(_) => "not an SQLite database (no `SQLite format 3` header)".to_owned(),
            });
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let connection = Connection::open_with_flags(uri(path), flags)
            .and_then(|connection| {
                connection.busy_timeout(BUSY_TIMEOUT)?;
                Ok(connection)
            })
            .map_err(|error| format!("cannot open it read-only: {error}"))?;
        let tables =
            tables(&connection).map_err(|error| format!("not a readable database: {error}"))?;
        let store = Store::of(&tables).ok_or_else(|| unknown_store(&tables))?;
        store.check(&connection)?;
        Ok(Database { connection, store })
    }

    /// The ids of its sessions, oldest first (as created: a child session after its
    /// parent).
    pub(crate) fn sessions(&self) -> Result<Vec<String>, String> {
        retry(|| self.store.session_ids(&self.connection)).map_err(|error| self.failed(&error))
    }

    /// Its sessions, oldest first, each with a stamp of what it holds now (the length of
    /// its rows' data, and when they were last updated, in milliseconds): a session whose
    /// stamp is the same holds the same.
    pub(crate) fn session_stamps(&self) -> Result<Vec<(String, u64, i64)>, String> {
        retry(|| {
            let transaction = self.connection.unchecked_transaction()?;
            self.store.session_stamps(&transaction)
        })
        .map_err(|error| self.failed(&error))
    }

    /// Session `id` as the document its dialect reads (OpenCode's as `opencode export
    /// <id>` prints it, on one line); when there is no such session, an error naming it
    /// and the sessions there are.
    pub(crate) fn export(&self, id: &str) -> Result<String, String> {
        // One read transaction: the session's rows as they were at one moment, however
        // the agent writes meanwhile.
        let read = retry(|| {
            let transaction = self.connection.unchecked_transaction()?;
            self.store.document(&transaction, id)
        })
        .map_err(|error| self.failed(&error))?;
        read.ok_or_else(|| self.no_session(id))
    }

    /// The message for a session id the database does not hold.
    fn no_session(&self, id: &str) -> String {
        let known = self.sessions().unwrap_or_default();
        let shown: Vec<String> = known.iter().take(5).map(|id| format!("`{id}`")).collect();
        let held = match known.len() {
            0 => "it holds no session".to_owned(),
            n if n > shown.len() => format!("it holds {n}: {}, …", shown.join(", ")),
            n => format!("it holds {n}: {}", shown.join(", ")),
        };
        format!(
            "no session `{id}` in this {} database ({held})",
            self.store.agent()
        )
    }

    /// A read that failed, for people.
    fn failed(&self, error: &rusqlite::Error) -> String {
        format!("reading {}'s tables: {error}", self.store.agent())
    }
}

/// The names of the database's tables.
fn tables(connection: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut statement =
        connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")?;
    let names = statement.query_map([], |row| row.get::<_, String>(0))?;
    names.collect()
}

/// The message for an SQLite database of no store toolnorm reads: its tables, and the
/// stores known.
fn unknown_store(tables: &[String]) -> String {
    let mut shown: Vec<&str> = tables.iter().map(String::as_str).take(8).collect();
    if tables.len() > shown.len() {
        shown.push("…");
    }
    let shown = match shown.is_empty() {
        true => "it has no table".to_owned(),
        false => format!("its tables: {}", shown.join(", ")),
    };
    let known: Vec<&str> = STORES.iter().map(|store| store.described()).collect();
    format!(
        "an SQLite database of no session store toolnorm reads ({shown}); toolnorm reads {}",
        known.join(", ")
    )
}

/// Runs `read`, again after a pause when SQLite still finds the database busy once its
/// busy timeout is over (a writer's long transaction or checkpoint), up to
/// [`BUSY_RETRIES`] times.
fn retry<T>(mut read: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let mut tries = 0;
    loop {
        match read() {
            Err(error) if tries < BUSY_RETRIES && busy(&error) => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(200 * u64::from(tries)));
            }
            result => return result,
        }
    }
}

/// Whether SQLite found the database locked by another connection.
fn busy(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// The streams of `units` with every session store among them in place of its
/// sessions, one unit each (in the order created). A database that cannot be opened
/// stays one unit, whose reading tells why.
pub(crate) fn expand(units: Vec<Unit>) -> Vec<Unit> {
    let mut expanded = Vec::with_capacity(units.len());
    for unit in units {
        if unit.session.is_some() || !is_sqlite(&unit.path) {
            expanded.push(unit);
            continue;
        }
        match Database::open(&unit.path).and_then(|database| database.sessions()) {
            Ok(ids) => expanded.extend(ids.into_iter().map(|id| Unit {
                path: unit.path.clone(),
                siblings: Vec::new(),
                session: Some(id),
            })),
            Err(_) => expanded.push(unit),
        }
    }
    expanded
}

/// The bytes to read for a unit of `path`: session `session`'s document and a newline,
/// when the unit is a session of a database; `None` for a file read as it is.
/// An error when the database cannot be read, or a database comes with no session.
pub(crate) fn document(path: &Path, session: Option<&str>) -> Result<Option<Vec<u8>>, String> {
    let Some(id) = session else {
        if !is_sqlite(path) {
            return Ok(None);
        }
        // A database whose sessions could not be listed: opening it tells why.
        let database = Database::open(path)?;
        database.sessions()?;
        return Err(format!(
            "{} is read one session at a time",
            database.store.a_database()
        ));
    };
    let mut document = Database::open(path)?.export(id)?.into_bytes();
    document.push(b'\n');
    Ok(Some(document))
}

/// The name of a database's session in messages and in `metadata.source`:
/// `<path>#<session id>`.
pub(crate) fn session_name(path: &Path, session: &str) -> String {
    format!("{}#{session}", path.display())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_busy_read_is_tried_again_and_other_errors_are_not() {
        let locked = || {
            rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
                None,
            )
        };
        let mut calls = 0;
        let read = retry(|| {
            calls += 1;
            match calls {
                1 | 2 => Err(locked()),
                _ => Ok(calls),
            }
        });
        assert_eq!(read.unwrap(), 3);
        let mut calls = 0;
        let read: rusqlite::Result<()> = retry(|| {
            calls += 1;
            Err(rusqlite::Error::InvalidQuery)
        });
        assert!(read.is_err());
        assert_eq!(calls, 1);
        let mut calls = 0;
        let read: rusqlite::Result<()> = retry(|| {
            calls += 1;
            Err(locked())
        });
        assert!(read.is_err());
        assert_eq!(calls, 1 + BUSY_RETRIES);
    }

    /// Every session of each recorded database is rebuilt as the very document (as JSON,
    /// key order aside) that `opencode export` printed of it in the same run.
    #[test]
    fn every_recorded_session_is_rebuilt_as_its_export() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/opencode-db");
        let mut compared = 0;
        for version in ["1.17.19", "1.18.33"] {
            let folder = fixtures.join(version);
            let database = Database::open(&folder.join("opencode.db")).unwrap();
            let exports = std::fs::read_to_string(folder.join("exports.jsonl")).unwrap();
            let ids = database.sessions().unwrap();
            assert_eq!(ids.len(), exports.lines().count(), "{version}");
            for (id, line) in ids.iter().zip(exports.lines()) {
                let rebuilt: serde_json::Value =
                    serde_json::from_str(&database.export(id).unwrap()).unwrap();
                let printed: serde_json::Value = serde_json::from_str(line).unwrap();
                assert_eq!(rebuilt, printed, "{version} {id}");
                compared += 1;
            }
        }
        assert!(compared >= 30, "{compared}");
    }

    #[test]
    fn a_path_is_percent_encoded_in_the_uri() {
        let text = uri(Path::new("/tmp/a b/x?y#z%.db"));
        assert_eq!(text, "file:/tmp/a%20b/x%3Fy%23z%25.db?mode=ro");
    }

    #[test]
    fn a_file_is_a_database_by_its_header_not_its_name() {
        let dir = std::env::temp_dir().join(format!("toolnorm-ocdb-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok();
        let named = dir.join("opencode.db");
        std::fs::write(&named, b"{\"not\": \"sqlite\"}\n").ok();
        assert!(!is_sqlite(&named));
        let other = dir.join("sessions.jsonl");
        std::fs::write(&other, b"SQLite format 3\0rest of a page").ok();
        assert!(is_sqlite(&other));
        assert!(!is_sqlite(Path::new("-")));
        assert!(!is_sqlite(&dir));
        std::fs::remove_dir_all(&dir).ok();
    }
}

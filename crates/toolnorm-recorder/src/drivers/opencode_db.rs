//! OpenCode's session database (`fixtures/opencode-db/<version>/`): the scenarios run
//! with `opencode run --format json` one after the other, all with one data folder
//! (`XDG_DATA_HOME`), so that one `opencode.db` holds every session; then, OpenCode
//! stopped, `opencode export <session>` of each session in the database's order
//! (`exports.jsonl`, one document a line), and the database itself: copied with its
//! `-wal` and `-shm` files, the copy checkpointed, the scratch paths replaced in every
//! text column as in the exports, and vacuumed into the fixture (in WAL mode when
//! OpenCode's was, its `-wal` file gone as OpenCode leaves it when it ends).

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde_json::Value;

use super::{Recorder, export};
use crate::error::{Error, Result};
use crate::provenance::Database;
use crate::run::{self, RunDirs};
use crate::scenario::Scenario;

/// The directory of the database fixtures, under `fixtures/`.
pub const DIR: &str = "opencode-db";

/// The command shown in the provenance.
const SHOWN: &str = "opencode run --format json --model mock/mock-model <prompt>  # each \
     scenario in turn, one data folder (XDG_DATA_HOME); then opencode export <session> for \
     every session of its opencode.db";

/// The error of a database recording.
fn failure(message: String) -> Error {
    Error::Recording {
        provider: DIR.into(),
        scenario: "all".into(),
        message,
    }
}

/// An SQLite error as the recorder's.
fn sqlite(context: &str) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |error| failure(format!("{context}: {error}"))
}

impl Recorder {
    /// Records `scenarios` into one OpenCode database, and exports each session: writes
    /// `fixtures/opencode-db/<version>/opencode.db` and `exports.jsonl`, and returns their
    /// provenance.
    pub fn opencode_db(&self, scenarios: &[&Scenario]) -> Result<Database> {
        let version = self.cli_version("opencode-ai")?;
        let base = self.scratch.join("runs").join(DIR);
        let data = base.join("data");
        if data.exists() {
            std::fs::remove_dir_all(&data)
                .map_err(|e| Error::io(format!("removing {}", data.display()), e))?;
        }
        std::fs::create_dir_all(&data)
            .map_err(|e| Error::io(format!("creating {}", data.display()), e))?;
        let rec = Recorder {
            data_home: Some(data.clone()),
            ..self.clone()
        };
        let mut runs: Vec<(String, RunDirs)> = Vec::new();
        for sc in scenarios {
            let dirs = RunDirs::fresh(&self.scratch, DIR, &sc.name)?;
            rec.opencode_run(sc, &dirs)?;
            eprintln!("ran {DIR}/{}", sc.name);
            runs.push((sc.name.clone(), dirs));
        }
        let (first, first_dirs) = match (scenarios.first(), runs.first()) {
            (Some(sc), Some((_, dirs))) => (*sc, dirs.clone()),
            _ => return Err(failure("no scenario to record".into())),
        };
        let original = data.join("opencode").join("opencode.db");
        let copy = base.join("copy").join("opencode.db");
        copy_database(&original, &copy)?;
        let ids = session_ids(&Connection::open(&copy).map_err(sqlite("opening the copy"))?)?;
        let mut exports = Vec::new();
        for (n, id) in ids.iter().enumerate() {
            let mut cmd = rec.opencode_command(first, &first_dirs)?;
            cmd.args(["export", id.as_str()]);
            let cap = run::run(&mut cmd, self.timeout, None)?;
            run::write_lines(&base.join(format!("export-{n}.stderr.log")), &cap.stderr)?;
            let line = export::one_line(&cap.stdout.join("\n"));
            if cap.timed_out || serde_json::from_str::<Value>(&line).is_err() {
                return Err(failure(format!(
                    "opencode export {id} printed no JSON document: {}",
                    cap.stderr.join(" / ")
                )));
            }
            exports.push(line);
        }
        // The database as the exports left it, in a copy whose WAL is checkpointed.
        copy_database(&original, &copy)?;
        let connection = Connection::open(&copy).map_err(sqlite("opening the copy"))?;
        connection
            .execute_batch("PRAGMA foreign_keys = OFF; PRAGMA wal_checkpoint(TRUNCATE);")
            .map_err(sqlite("checkpointing the copy"))?;
        // The scratch paths as the fixtures show them, longest first.
        let mut paths: Vec<(String, String)> = Vec::new();
        for (name, dirs) in &runs {
            paths.push((shown(&dirs.work), format!("/workspace/{name}")));
            paths.push((shown(&dirs.home), "/home/user".to_owned()));
            paths.push((shown(&dirs.root), format!("/scratch/{name}")));
        }
        paths.push((shown(&data), "/home/user/.local/share".to_owned()));
        paths.push((shown(&self.scratch), "/scratch".to_owned()));
        // The same paths relative to `/`, the worktree of a folder outside a repository
        // (a session's `path`, the titles OpenCode gives its calls).
        let relative: Vec<(String, String)> = paths
            .iter()
            .filter_map(|(from, to)| {
                Some((
                    from.strip_prefix('/')?.to_owned(),
                    to.strip_prefix('/')?.to_owned(),
                ))
            })
            .collect();
        paths.extend(relative);
        paths.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.cmp(b)));
        let exports: Vec<String> = exports.iter().map(|line| replace(line, &paths)).collect();
        replace_in_tables(&connection, &paths)?;
        let folder = format!("{DIR}/{version}");
        let target = self.root.join("fixtures").join(&folder);
        std::fs::create_dir_all(&target)
            .map_err(|e| Error::io(format!("creating {}", target.display()), e))?;
        let fixture = target.join("opencode.db");
        if fixture.exists() {
            std::fs::remove_file(&fixture)
                .map_err(|e| Error::io(format!("removing {}", fixture.display()), e))?;
        }
        connection
            .execute("VACUUM INTO ?1", [shown(&fixture)])
            .map_err(sqlite("writing the fixture"))?;
        drop(connection);
        if wal_mode(&original) {
            let written = Connection::open(&fixture).map_err(sqlite("opening the fixture"))?;
            written
                .query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
                .map_err(sqlite("setting WAL mode"))?;
        }
        run::write_lines(&target.join("exports.jsonl"), &exports)?;
        Ok(Database {
            path: format!("{folder}/opencode.db"),
            exports: format!("{folder}/exports.jsonl"),
            cli: "opencode-ai".to_owned(),
            version,
            scenarios: runs.into_iter().map(|(name, _)| name).collect(),
            sessions: exports.len(),
            command: SHOWN.to_owned(),
        })
    }
}

/// A path as text.
fn shown(path: &Path) -> String {
    path.display().to_string()
}

/// Copies the database and the `-wal` and `-shm` files beside it, when there are.
fn copy_database(original: &Path, copy: &Path) -> Result<()> {
    if !original.is_file() {
        return Err(failure(format!("OpenCode wrote no {}", original.display())));
    }
    if let Some(folder) = copy.parent() {
        if folder.exists() {
            std::fs::remove_dir_all(folder)
                .map_err(|e| Error::io(format!("removing {}", folder.display()), e))?;
        }
        std::fs::create_dir_all(folder)
            .map_err(|e| Error::io(format!("creating {}", folder.display()), e))?;
    }
    for suffix in ["", "-wal", "-shm"] {
        let from = PathBuf::from(format!("{}{suffix}", original.display()));
        let to = PathBuf::from(format!("{}{suffix}", copy.display()));
        if from.is_file() {
            std::fs::copy(&from, &to)
                .map_err(|e| Error::io(format!("copying {}", from.display()), e))?;
        }
    }
    Ok(())
}

/// Whether the database is in WAL mode (its header's format versions are 2).
fn wal_mode(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|bytes| bytes.get(18..20) == Some(&[2, 2][..]))
}

/// The session ids, in the order the database has them.
fn session_ids(connection: &Connection) -> Result<Vec<String>> {
    let mut statement = connection
        .prepare("SELECT id FROM session ORDER BY time_created, id")
        .map_err(sqlite("listing the sessions"))?;
    let ids = statement
        .query_map([], |row| row.get::<_, String>(0))
        .map_err(sqlite("listing the sessions"))?;
    ids.collect::<rusqlite::Result<Vec<String>>>()
        .map_err(sqlite("listing the sessions"))
}

/// `text` with each path replaced as `paths` says.
fn replace(text: &str, paths: &[(String, String)]) -> String {
    paths
        .iter()
        .fold(text.to_owned(), |text, (from, to)| text.replace(from, to))
}

/// Replaces the paths in every text column of every table.
fn replace_in_tables(connection: &Connection, paths: &[(String, String)]) -> Result<()> {
    let mut statement = connection
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .map_err(sqlite("listing the tables"))?;
    let tables = statement
        .query_map([], |row| row.get::<_, String>(0))
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<String>>>())
        .map_err(sqlite("listing the tables"))?;
    for table in tables {
        let mut columns = connection
            .prepare("SELECT name, type FROM pragma_table_info(?1)")
            .map_err(sqlite("listing the columns"))?;
        let columns = columns
            .query_map([&table], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<(String, String)>>>())
            .map_err(sqlite("listing the columns"))?;
        for (column, kind) in columns {
            if !(kind.is_empty() || kind.to_ascii_lowercase().contains("text")) {
                continue;
            }
            let sql = format!(
                "UPDATE \"{table}\" SET \"{column}\" = replace(\"{column}\", ?1, ?2) \
                 WHERE instr(\"{column}\", ?1) > 0"
            );
            for (from, to) in paths {
                connection
                    .execute(&sql, [from, to])
                    .map_err(sqlite("replacing the scratch paths"))?;
            }
        }
    }
    Ok(())
}

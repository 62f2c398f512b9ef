//! OpenCode's session database read as its sessions' exports: every
//! `fixtures/opencode-db/<version>/opencode.db` the real CLI wrote, against
//! `exports.jsonl` beside it (`opencode export <session>` of each session, in the same
//! run). Its schema is the one pinned in `schemas/opencode/`; reading changes nothing on
//! disk, not even while a writer holds the database; a schema, a file or a session that
//! cannot be read is an error that says why.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{file_state, index_counts, root, scratch, toolnorm};

/// The recorded databases: (version, its folder), by version.
fn recorded() -> Vec<(String, PathBuf)> {
    let mut found: Vec<(String, PathBuf)> = std::fs::read_dir(root().join("fixtures/opencode-db"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|folder| folder.join("opencode.db").is_file())
        .map(|folder| {
            let version = folder.file_name().unwrap().to_string_lossy().into_owned();
            (version, folder)
        })
        .collect();
    found.sort();
    assert!(found.len() >= 2, "{found:?}");
    found
}

/// A copy of the newest recorded database in `dir`.
fn copy_of_newest(dir: &Path) -> PathBuf {
    let (_, folder) = recorded().pop().unwrap();
    let copy = dir.join("opencode.db");
    std::fs::copy(folder.join("opencode.db"), &copy).unwrap();
    copy
}

/// stdout of `toolnorm normalize ARGS`, which must succeed.
fn normalized(args: &[&std::ffi::OsStr]) -> Vec<u8> {
    let output = toolnorm().arg("normalize").args(args).output().unwrap();
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

#[test]
fn every_session_reads_as_its_opencode_export() {
    let dir = scratch("ocdb-equivalence");
    let mut sessions = 0;
    let mut calls = 0;
    for (version, folder) in recorded() {
        let db = folder.join("opencode.db");
        let exports = std::fs::read_to_string(folder.join("exports.jsonl")).unwrap();
        let mut each_alone = Vec::new();
        for (n, line) in exports.lines().enumerate() {
            let document: Value = serde_json::from_str(line).unwrap();
            let id = document["info"]["id"].as_str().unwrap().to_owned();
            let export = dir.join(format!("{version}-{n}.jsonl"));
            std::fs::write(&export, format!("{line}\n")).unwrap();
            for format in ["parts", "updates"] {
                let from_db = normalized(&[
                    "--strict".as_ref(),
                    "--format".as_ref(),
                    format.as_ref(),
                    "--only-session".as_ref(),
                    id.as_ref(),
                    db.as_os_str(),
                ]);
                let from_export = normalized(&[
                    "--strict".as_ref(),
                    "--format".as_ref(),
                    format.as_ref(),
                    export.as_os_str(),
                ]);
                assert_eq!(
                    String::from_utf8_lossy(&from_db),
                    String::from_utf8_lossy(&from_export),
                    "{version} {id} --format {format}"
                );
                if format == "parts" {
                    calls += from_db.iter().filter(|byte| **byte == b'\n').count();
                    each_alone.extend(from_db);
                }
            }
            sessions += 1;
        }
        // The whole database: each session its own stream, in the same order, each
        // call naming the session it was read from.
        let whole = normalized(&[db.as_os_str()]);
        let whole: Vec<Value> = String::from_utf8(whole)
            .unwrap()
            .lines()
            .map(|line| {
                let mut part: Value = serde_json::from_str(line).unwrap();
                let source = part["metadata"]["source"].as_str().unwrap().to_owned();
                let session = part["metadata"]["sessionId"].as_str().unwrap();
                assert_eq!(source, format!("{}#{session}", db.display()));
                part["metadata"].as_object_mut().unwrap().remove("source");
                part
            })
            .collect();
        let alone: Vec<Value> = String::from_utf8(each_alone)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(whole, alone, "{version}: the whole database");
    }
    assert!(sessions >= 26, "{sessions} sessions");
    assert!(calls >= 26, "{calls} calls");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The schema of the database at `path` as the pinned files hold it: the migrations
/// applied, then every `sqlite_master` entry, by type and name.
fn schema_text(path: &Path, version: &str) -> String {
    // Immutable: a read-only connection to a WAL database would make `-wal` and `-shm`
    // files beside the fixture.
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI;
    let uri = format!("file:{}?mode=ro&immutable=1", path.display());
    let connection = rusqlite::Connection::open_with_flags(uri, flags).unwrap();
    let mut text = format!(
        "-- The schema of opencode.db as opencode-ai {version} writes it (recorded in\n\
         -- fixtures/opencode-db/{version}/): the migrations it applied, then its tables,\n\
         -- indexes and triggers as sqlite_master holds them, by type and name.\n"
    );
    let mut migrations = connection
        .prepare("SELECT id FROM migration ORDER BY id")
        .unwrap();
    for id in migrations
        .query_map([], |row| row.get::<_, String>(0))
        .unwrap()
    {
        text.push_str(&format!("-- migration {}\n", id.unwrap()));
    }
    let mut entries = connection
        .prepare(
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' \
             ORDER BY type, name",
        )
        .unwrap();
    for sql in entries
        .query_map([], |row| row.get::<_, String>(0))
        .unwrap()
    {
        text.push_str(&format!("\n{};\n", sql.unwrap()));
    }
    text
}

#[test]
fn every_recorded_database_has_the_pinned_schema() {
    for (version, folder) in recorded() {
        // Nothing beside it: it reads as OpenCode leaves a database it checkpointed.
        for file in ["opencode.db-wal", "opencode.db-shm", "opencode.db-journal"] {
            assert!(!folder.join(file).exists(), "{version}: {file}");
        }
        let pinned = root().join(format!("schemas/opencode/opencode-db@{version}.sql"));
        let actual = schema_text(&folder.join("opencode.db"), &version);
        if std::env::var_os("TOOLNORM_PIN_OPENCODE_DB").is_some() {
            std::fs::write(&pinned, &actual).unwrap();
        }
        let expected = std::fs::read_to_string(&pinned).unwrap_or_default();
        assert!(
            actual == expected,
            "{}: the schema of opencode-ai {version}'s database differs from the pinned \
             one (a new OpenCode changed its tables: check the reader, then pin it again \
             with TOOLNORM_PIN_OPENCODE_DB=1)\n{actual}",
            pinned.display()
        );
    }
}

#[test]
fn reading_changes_nothing_on_disk() {
    let dir = scratch("ocdb-unchanged");
    let db = copy_of_newest(&dir);
    let before = file_state(&db);
    assert_eq!(before.2, ["opencode.db"]);
    normalized(&[db.as_os_str()]);
    let stats = toolnorm().arg("stats").arg(&db).output().unwrap();
    assert!(stats.status.success(), "{stats:?}");
    let view = toolnorm().arg("view").arg(&db).output().unwrap();
    assert!(view.status.success(), "{view:?}");
    // No `-wal`, `-shm` or `-journal` file was made beside it, and it is as it was.
    assert!(file_state(&db) == before, "{:?}", file_state(&db).2);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Copies `from` to `to` (keeping its modification time) in another process.
fn copy_aside(from: &Path, to: &Path) {
    let status = std::process::Command::new("cp")
        .arg("-p")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success(), "cp {}", from.display());
}

#[test]
fn a_database_being_written_is_read_as_committed_without_a_lock() {
    let dir = scratch("ocdb-writer");
    let db = copy_of_newest(&dir);
    let all = normalized(&[db.as_os_str()]);
    // OpenCode's way: WAL, and a writer that does not checkpoint while it runs.
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer
        .execute_batch("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;")
        .unwrap();
    let (session, parts): (String, i64) = writer
        .query_row(
            "SELECT session_id, count(*) FROM part WHERE data LIKE '%\"type\":\"tool\"%' \
             GROUP BY session_id ORDER BY session_id LIMIT 1",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert!(parts > 0);
    // Its calls deleted, committed in the WAL only.
    writer
        .execute("DELETE FROM part WHERE session_id = ?1", [&session])
        .unwrap();
    // While the writer is open this process opens none of its files (closing one would
    // drop the writer's POSIX locks): copies are made by `cp`.
    let main_before = dir.join("main-before");
    copy_aside(&db, &main_before);
    // The files as OpenCode leaves them when it ends: the database, its `-wal` (not
    // checkpointed) and `-shm`. Read, the database and its `-wal` stay as they were.
    let left = dir.join("left");
    std::fs::create_dir_all(&left).unwrap();
    for name in ["opencode.db", "opencode.db-wal", "opencode.db-shm"] {
        copy_aside(&dir.join(name), &left.join(name));
    }
    let (left_db, left_wal) = (left.join("opencode.db"), left.join("opencode.db-wal"));
    let before = (file_state(&left_db), file_state(&left_wal));
    let output = toolnorm()
        .args(["normalize", "--only-session", &session])
        .arg(&left_db)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert!(output.stdout.is_empty(), "the deleted calls are gone");
    assert!((file_state(&left_db), file_state(&left_wal)) == before);
    // A write transaction held open meanwhile: readers are not blocked by it.
    writer
        .execute_batch("BEGIN IMMEDIATE; UPDATE session SET title = 'x';")
        .unwrap();
    let output = toolnorm()
        .args(["normalize", "--only-session", &session])
        .arg(&db)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert!(output.stdout.is_empty(), "the deleted calls are gone");
    let rest = normalized(&[db.as_os_str()]);
    assert!(rest.len() < all.len());
    let main_after = dir.join("main-after");
    copy_aside(&db, &main_after);
    assert!(
        std::fs::read(&main_before).unwrap() == std::fs::read(&main_after).unwrap(),
        "the reads checkpointed nothing into the database"
    );
    writer.execute_batch("ROLLBACK;").unwrap();
    drop(writer);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unknown_schema_is_refused_naming_it_and_the_known_ones() {
    let dir = scratch("ocdb-schema");
    let db = copy_of_newest(&dir);
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer
        .execute(
            "INSERT INTO migration (id, time_completed) VALUES ('20991231000000_next_release', 1)",
            [],
        )
        .unwrap();
    drop(writer);
    let output = toolnorm().arg("normalize").arg(&db).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains(&db.display().to_string()), "{stderr}");
    assert!(stderr.contains("`20991231000000_next_release`"), "{stderr}");
    assert!(
        stderr.contains("20260622202450_simplify_session_input"),
        "{stderr}"
    );
    assert!(stderr.contains("1.18.33"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_corrupt_database_and_a_file_named_like_one_are_told_apart() {
    let dir = scratch("ocdb-corrupt");
    // SQLite's header, then no database.
    let corrupt = dir.join("corrupt.db");
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend(std::iter::repeat_n(0xA5u8, 8192));
    std::fs::write(&corrupt, bytes).unwrap();
    for command in ["normalize", "stats"] {
        let output = toolnorm().arg(command).arg(&corrupt).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{command}: {output:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains(&corrupt.display().to_string()), "{stderr}");
        assert!(
            stderr.contains("not a readable database"),
            "{command}: {stderr}"
        );
    }
    // A file named `opencode.db` that is no SQLite file is read as lines.
    let named = dir.join("opencode.db");
    std::fs::write(&named, "{\"hello\": 1}\n").unwrap();
    let output = toolnorm().arg("normalize").arg(&named).output().unwrap();
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unknown_session_is_an_error_naming_it() {
    let dir = scratch("ocdb-session");
    let db = copy_of_newest(&dir);
    let output = toolnorm()
        .args(["normalize", "--only-session", "ses_nonesuch"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("no session `ses_nonesuch`"), "{stderr}");
    assert!(stderr.contains("ses_"), "{stderr}");
    // `--only-session` needs a database.
    let export = root().join("fixtures/opencode-export/shell-ok.jsonl");
    let output = toolnorm()
        .args(["normalize", "--only-session", "ses_x"])
        .arg(export)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_empty_database_gives_no_parts() {
    let dir = scratch("ocdb-empty");
    let db = copy_of_newest(&dir);
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer
        .execute_batch("DELETE FROM part; DELETE FROM message; DELETE FROM session;")
        .unwrap();
    drop(writer);
    for format in ["parts", "pretty", "events"] {
        let output = toolnorm()
            .args(["normalize", "--format", format])
            .arg(&db)
            .output()
            .unwrap();
        assert!(output.status.success(), "{format}: {output:?}");
        if format != "pretty" {
            assert!(output.stdout.is_empty(), "{format}: {output:?}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sessions_lists_the_database_and_index_reads_its_sessions() {
    let home = scratch("ocdb-store");
    let data = home.join(".local/share/opencode");
    std::fs::create_dir_all(&data).unwrap();
    let db = copy_of_newest(&data);
    let listed = toolnorm()
        .args(["sessions", "--json", "--home"])
        .arg(&home)
        .env_remove("XDG_DATA_HOME")
        .output()
        .unwrap();
    assert!(listed.status.success(), "{listed:?}");
    let listed: Vec<Value> = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["dialect"], "opencode-export");
    assert_eq!(listed[0]["path"], db.display().to_string());
    // `XDG_DATA_HOME` moves it, as it does for OpenCode.
    let moved = toolnorm()
        .args(["sessions", "--json", "--home"])
        .arg(&home)
        .env("XDG_DATA_HOME", home.join("elsewhere"))
        .output()
        .unwrap();
    assert_eq!(moved.stdout, b"[]\n");
    let home_arg = [std::ffi::OsStr::new("--home"), home.as_os_str()];
    let counts = index_counts(&home.join("index.sqlite"), &home_arg);
    // Each of its sessions is one of the index (`catalog_opencode_db` follows changes).
    assert!(counts.starts_with("15 new, "), "{counts}");
    std::fs::remove_dir_all(&home).unwrap();
}

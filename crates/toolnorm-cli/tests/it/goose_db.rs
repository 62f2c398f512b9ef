//! Goose's session database, `sessions.db` (1.10 and later), read as its sessions' files.
//! Goose cannot run here, so the database is a sample: made with Goose's own statements
//! (the schema pinned in `schemas/goose/sessions-db@1.20.0.sql`), its rows those Goose
//! writes (`add_message`: `content_json`, `created_timestamp`, `metadata_json` of each
//! message) for the messages of the sample session file
//! `fixtures/goose-session/session.jsonl`. Its sessions read as that file reads; reading
//! changes nothing on disk; a schema version or a database toolnorm does not know is an
//! error that says why; `toolnorm index` keeps each session.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{file_state, index_counts, normalize, root, scratch, toolnorm};

/// The id of the sample session (Goose names them `YYYYMMDD_<n>`).
const SESSION: &str = "20250924_1";

/// The sample session file.
fn session_file() -> PathBuf {
    root().join("fixtures/goose-session/session.jsonl")
}

/// `sessions.db` in `dir`, made as Goose 1.20.0 makes it (WAL mode, its schema), holding
/// the sample session file's session as Goose stores it.
fn sample_database(dir: &Path) -> PathBuf {
    let path = dir.join("sessions.db");
    let connection = rusqlite::Connection::open(&path).unwrap();
    connection
        .pragma_update(None, "journal_mode", "wal")
        .unwrap();
    let schema = std::fs::read_to_string(root().join("schemas/goose/sessions-db@1.20.0.sql"));
    connection.execute_batch(&schema.unwrap()).unwrap();
    let text = std::fs::read_to_string(session_file()).unwrap();
    let mut lines = text
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap());
    let metadata = lines.next().unwrap();
    connection
        .execute(
            "INSERT INTO sessions (id, description, working_dir, created_at, updated_at, \
               extension_data, total_tokens, input_tokens, output_tokens, \
               accumulated_total_tokens, accumulated_input_tokens, accumulated_output_tokens) \
             VALUES (?1, ?2, ?3, '2025-09-24 07:46:40', '2025-09-24 07:47:00', ?4, ?5, ?6, \
               ?7, ?8, ?9, ?10)",
            rusqlite::params![
                SESSION,
                metadata["description"].as_str(),
                metadata["working_dir"].as_str(),
                metadata["extension_data"].to_string(),
                metadata["total_tokens"].as_i64(),
                metadata["input_tokens"].as_i64(),
                metadata["output_tokens"].as_i64(),
                metadata["accumulated_total_tokens"].as_i64(),
                metadata["accumulated_input_tokens"].as_i64(),
                metadata["accumulated_output_tokens"].as_i64(),
            ],
        )
        .unwrap();
    for message in lines {
        // As `add_message` binds them; `timestamp` is the time of the insert (the
        // message's own time here, so that the order is the file's).
        connection
            .execute(
                "INSERT INTO messages (session_id, role, content_json, created_timestamp, \
                   timestamp, metadata_json) \
                 VALUES (?1, ?2, ?3, ?4, datetime(?4, 'unixepoch'), ?5)",
                rusqlite::params![
                    SESSION,
                    message["role"].as_str(),
                    message["content"].to_string(),
                    message["created"].as_i64(),
                    message["metadata"].to_string(),
                ],
            )
            .unwrap();
    }
    drop(connection);
    path
}

#[test]
fn a_session_reads_as_its_session_file() {
    let dir = scratch("goosedb-equivalence");
    let db = sample_database(&dir);
    for format in ["parts", "updates"] {
        let (code, from_db, stderr) = normalize(&[
            "--strict".as_ref(),
            "--format".as_ref(),
            format.as_ref(),
            "--only-session".as_ref(),
            SESSION.as_ref(),
            db.as_os_str(),
        ]);
        assert_eq!(code, Some(0), "{stderr}");
        let (code, from_file, stderr) = normalize(&[
            "--strict".as_ref(),
            "--format".as_ref(),
            format.as_ref(),
            session_file().as_os_str(),
        ]);
        assert_eq!(code, Some(0), "{stderr}");
        assert!(from_file.lines().count() >= 5, "{from_file}");
        assert_eq!(from_db, from_file, "--format {format}");
    }
    // The whole database: one stream a session, named `<path>#<session>`.
    let (code, whole, stderr) = normalize(&[db.as_os_str()]);
    assert_eq!(code, Some(0), "{stderr}");
    for line in whole.lines() {
        let part: Value = serde_json::from_str(line).unwrap();
        let source = format!("{}#{SESSION}", db.display());
        assert_eq!(part["metadata"]["source"], Value::from(source));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn reading_changes_nothing_on_disk() {
    let dir = scratch("goosedb-unchanged");
    let db = sample_database(&dir);
    let before = file_state(&db);
    assert_eq!(before.2, ["sessions.db"]);
    let (code, _, stderr) = normalize(&[db.as_os_str()]);
    assert_eq!(code, Some(0), "{stderr}");
    let stats = toolnorm().arg("stats").arg(&db).output().unwrap();
    assert!(stats.status.success(), "{stats:?}");
    let view = toolnorm().arg("view").arg(&db).output().unwrap();
    assert!(view.status.success(), "{view:?}");
    // No `-wal`, `-shm` or `-journal` file was made beside it, and it is as it was.
    assert!(file_state(&db) == before, "{:?}", file_state(&db).2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unknown_schema_version_is_refused_naming_it_and_the_known_one() {
    let dir = scratch("goosedb-version");
    let db = sample_database(&dir);
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer
        .execute("INSERT INTO schema_version (version) VALUES (7)", [])
        .unwrap();
    drop(writer);
    let (code, stdout, stderr) = normalize(&[db.as_os_str()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stdout.is_empty());
    assert!(stderr.contains(&db.display().to_string()), "{stderr}");
    assert!(stderr.contains("schema version is `7`"), "{stderr}");
    assert!(stderr.contains("version 6 (goose 1.20.0)"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_database_of_no_known_store_is_refused_naming_the_known_ones() {
    let dir = scratch("goosedb-other");
    let db = dir.join("other.db");
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer
        .execute_batch("CREATE TABLE sessions (id TEXT); CREATE TABLE calls (id TEXT);")
        .unwrap();
    drop(writer);
    let (code, _, stderr) = normalize(&[db.as_os_str()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("no session store toolnorm reads"),
        "{stderr}"
    );
    assert!(stderr.contains("calls, sessions"), "{stderr}");
    assert!(stderr.contains("OpenCode's `opencode.db`"), "{stderr}");
    assert!(stderr.contains("Goose's `sessions.db`"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn each_session_is_indexed_from_goose_store_and_kept_up_to_date() {
    let home = scratch("goosedb-index");
    let store = home.join(".local/share/goose/sessions");
    std::fs::create_dir_all(&store).unwrap();
    let db = sample_database(&store);
    let listed = toolnorm()
        .args(["sessions", "--json", "--home"])
        .arg(&home)
        .output()
        .unwrap();
    assert!(listed.status.success(), "{listed:?}");
    let listed: Vec<Value> = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["dialect"], "goose-session");
    assert_eq!(listed[0]["path"], db.display().to_string());
    let index_db = home.join("index.sqlite");
    let home_arg = [std::ffi::OsStr::new("--home"), home.as_os_str()];
    let first = index_counts(&index_db, &home_arg);
    assert!(
        first.starts_with("1 new, 0 grown, 0 rewritten, 0 unchanged, 0 removed"),
        "{first}"
    );
    let again = index_counts(&index_db, &home_arg);
    assert!(
        again.starts_with("0 new, 0 grown, 0 rewritten, 1 unchanged, 0 removed"),
        "{again}"
    );
    // Goose adds a message: the session is read again.
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer
        .execute(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp, \
               timestamp, metadata_json) \
             VALUES (?1, 'assistant', '[{\"type\":\"text\",\"text\":\"Done.\"}]', 1758700100, \
               '2025-09-24 07:48:20', '{\"userVisible\":true,\"agentVisible\":true}')",
            [SESSION],
        )
        .unwrap();
    drop(writer);
    let changed = index_counts(&index_db, &home_arg);
    assert!(
        changed.contains(", 0 unchanged, 0 removed") && !changed.starts_with("1 new"),
        "{changed}"
    );
    std::fs::remove_dir_all(&home).unwrap();
}

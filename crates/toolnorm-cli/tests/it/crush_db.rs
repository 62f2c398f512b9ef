//! Crush's session database, `crush.db`, read a session (with its subagents') at a time.
//! Crush cannot be installed here, so the database is a sample: made with Crush's own
//! migrations (pinned in `schemas/crush/crush-db@0.90.0.sql`), its rows those of the
//! sample `fixtures/crush/session.jsonl` (each line a row), written as Crush writes them
//! (`parts` as Go's `json.Marshal` writes JSON, with `<`, `>` and `&` escaped). Its
//! session reads as that file reads; reading changes nothing on disk; a migration
//! toolnorm does not know is an error that says why; `toolnorm index` keeps the session
//! and sees it change.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{index_counts, normalize, root, scratch, toolnorm};

/// The id of the sample's session.
const SESSION: &str = "7f3c2a9e-5b1d-4c8e-9a6f-2d4b8e1c0a53";

/// The sample's rows.
fn sample() -> PathBuf {
    root().join("fixtures/crush/session.jsonl")
}

/// JSON text as Go's `json.Marshal` writes it: HTML's `<`, `>` and `&` escaped.
fn go_json(value: &Value) -> String {
    value
        .to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

/// `.crush/crush.db` in `dir`, made as Crush 0.90.0 makes it (WAL mode, its migrations),
/// holding the sample's rows in the order Crush wrote them (each session before its
/// messages; the title session's messages last).
fn sample_database(dir: &Path) -> PathBuf {
    let path = dir.join("crush.db");
    let connection = rusqlite::Connection::open(&path).unwrap();
    connection
        .pragma_update(None, "journal_mode", "wal")
        .unwrap();
    let schema = std::fs::read_to_string(root().join("schemas/crush/crush-db@0.90.0.sql"));
    connection.execute_batch(&schema.unwrap()).unwrap();
    let text = std::fs::read_to_string(sample()).unwrap();
    let rows: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let (titles, rows): (Vec<&Value>, Vec<&Value>) = rows.iter().partition(|row| {
        row["session_id"]
            .as_str()
            .is_some_and(|session| session.starts_with("title-"))
    });
    for row in rows.into_iter().chain(titles) {
        if row.get("parts").is_some() {
            connection
                .execute(
                    "INSERT INTO messages (id, session_id, role, parts, model, created_at, \
                       updated_at, finished_at, provider, is_summary_message) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                    rusqlite::params![
                        row["id"].as_str(),
                        row["session_id"].as_str(),
                        row["role"].as_str(),
                        go_json(&row["parts"]),
                        row["model"].as_str(),
                        row["created_at"].as_i64(),
                        row["updated_at"].as_i64(),
                        row["finished_at"].as_i64(),
                        row["provider"].as_str(),
                        row["is_summary_message"].as_bool().map(i64::from),
                    ],
                )
                .unwrap();
        } else {
            // Crush creates a session with no message; its triggers count them.
            connection
                .execute(
                    "INSERT INTO sessions (id, parent_session_id, title, message_count, \
                       prompt_tokens, completion_tokens, cost, updated_at, created_at, todos) \
                     VALUES (?1, ?2, ?3, 0, ?4, ?5, ?6, ?7, ?8, ?9)",
                    rusqlite::params![
                        row["id"].as_str(),
                        row["parent_session_id"].as_str(),
                        row["title"].as_str(),
                        row["prompt_tokens"].as_i64(),
                        row["completion_tokens"].as_i64(),
                        row["cost"].as_f64(),
                        row["updated_at"].as_i64(),
                        row["created_at"].as_i64(),
                        (!row["todos"].is_null()).then(|| row["todos"].to_string()),
                    ],
                )
                .unwrap();
        }
    }
    drop(connection);
    path
}

#[test]
fn a_session_reads_as_its_rows_with_its_subagents() {
    let dir = scratch("crushdb-equivalence");
    let db = sample_database(&dir);
    for format in ["parts", "updates"] {
        let args = ["--strict".as_ref(), "--format".as_ref(), format.as_ref()];
        let only = ["--only-session".as_ref(), SESSION.as_ref()];
        let (code, from_db, stderr) = normalize(&[&args[..], &only, &[db.as_os_str()]].concat());
        assert_eq!(code, Some(0), "{stderr}");
        let (code, from_file, stderr) = normalize(&[&args[..], &[sample().as_os_str()]].concat());
        assert_eq!(code, Some(0), "{stderr}");
        assert!(from_file.lines().count() >= 10, "{from_file}");
        assert_eq!(from_db, from_file, "--format {format}");
    }
    // The whole database is one stream: the session, its subagent's and its title's
    // sessions read with it, named `<path>#<session>`.
    let (code, whole, stderr) = normalize(&[db.as_os_str()]);
    assert_eq!(code, Some(0), "{stderr}");
    let parts: Vec<Value> = whole
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(parts.len(), 10);
    let source = format!("{}#{SESSION}", db.display());
    for part in &parts {
        assert_eq!(part["metadata"]["source"], Value::from(source.as_str()));
    }
    let glob = parts
        .iter()
        .find(|part| part["id"] == "call_glob_1")
        .unwrap();
    assert_eq!(glob["metadata"]["parentToolCallId"], "call_agent_1");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn reading_changes_nothing_on_disk() {
    let dir = scratch("crushdb-unchanged");
    let db = sample_database(&dir);
    let names = || {
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let before = (std::fs::read(&db).unwrap(), names());
    assert_eq!(before.1, ["crush.db"]);
    for command in ["normalize", "stats", "view"] {
        let output = toolnorm().arg(command).arg(&db).output().unwrap();
        assert!(output.status.success(), "{command}: {output:?}");
    }
    assert!(
        (std::fs::read(&db).unwrap(), names()) == before,
        "{:?}",
        names()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unknown_migration_is_refused_naming_it_and_the_known_ones() {
    let dir = scratch("crushdb-migration");
    let db = sample_database(&dir);
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer
        .execute(
            "INSERT INTO goose_db_version (version_id, is_applied) VALUES (20270101000000, 1)",
            [],
        )
        .unwrap();
    drop(writer);
    let (code, stdout, stderr) = normalize(&[db.as_os_str()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stdout.is_empty());
    assert!(stderr.contains(&db.display().to_string()), "{stderr}");
    assert!(
        stderr.contains("newest migration is `20270101000000`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("migration 20260127000000 (crush 0.37 to 0.90)"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_session_is_indexed_and_read_again_when_a_subagent_writes() {
    let dir = scratch("crushdb-index");
    let db = sample_database(&dir);
    let index_db = dir.join("index.sqlite");
    let first = index_counts(&index_db, &[db.as_os_str()]);
    assert!(
        first.starts_with("1 new, 0 grown, 0 rewritten, 0 unchanged, 0 removed"),
        "{first}"
    );
    let again = index_counts(&index_db, &[db.as_os_str()]);
    assert!(
        again.starts_with("0 new, 0 grown, 0 rewritten, 1 unchanged, 0 removed"),
        "{again}"
    );
    // The subagent's session gets a message: its parent's session is read again.
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer
        .execute(
            "INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) \
             VALUES ('late', 'a1b2c3d4-0000-4000-8000-000000000009$$call_agent_1', \
               'assistant', '[{\"type\":\"text\",\"data\":{\"text\":\"Done.\"}}]', \
               1764921700, 1764921700)",
            [],
        )
        .unwrap();
    drop(writer);
    let changed = index_counts(&index_db, &[db.as_os_str()]);
    assert!(
        changed.contains(", 0 unchanged, 0 removed") && !changed.starts_with("1 new"),
        "{changed}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

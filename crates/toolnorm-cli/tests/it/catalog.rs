//! `toolnorm sessions`: every known agent's session files under a home folder, one row
//! per session (a Claude Code session's subagent transcripts with it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{index_counts, root, stats_json, toolnorm, with_each_database_and_home};
use crate::databases;

/// Copies fixture `from` to `to` under `home`; its size.
fn place(home: &Path, from: &str, to: &str) -> u64 {
    let path = home.join(to);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::copy(root().join("fixtures").join(from), &path).unwrap()
}

#[test]
fn the_sessions_of_every_agent_under_the_home_folder_are_listed() {
    let home = std::env::temp_dir().join(format!("toolnorm-catalog-{}", std::process::id()));
    let transcript = place(
        &home,
        "claude-code-transcript/subagent.jsonl",
        ".claude/projects/-work/s1.jsonl",
    );
    let subagent = place(
        &home,
        "claude-code-transcript/subagent.jsonl",
        ".claude/projects/-work/s1/subagents/agent-a.jsonl",
    );
    let rollout = place(
        &home,
        "codex-rollout/shell-ok.jsonl",
        ".codex/sessions/2026/01/01/rollout-a.jsonl",
    );
    let output = toolnorm()
        .args(["sessions", "--json", "--home"])
        .arg(&home)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let listed: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    let rows: Vec<(&str, &str, u64, u64)> = listed
        .iter()
        .map(|row| {
            (
                row["agent"].as_str().unwrap(),
                row["dialect"].as_str().unwrap(),
                row["bytes"].as_u64().unwrap(),
                row["subagents"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("claude-code", "claude-code", transcript + subagent, 1),
            ("codex", "codex-rollout", rollout, 0),
        ]
    );
    assert!(listed[0]["modified"].as_str().unwrap().ends_with('Z'));
    let codex = toolnorm()
        .args(["sessions", "--agent", "codex", "--home"])
        .arg(&home)
        .output()
        .unwrap();
    let text = String::from_utf8(codex.stdout).unwrap();
    assert!(text.ends_with("1 session(s): codex 1\n"), "{text}");
    assert!(text.contains("rollout-a.jsonl"));
    // CODEX_HOME moves Codex's store, as it does for Codex.
    let moved = toolnorm()
        .args(["sessions", "--json", "--home"])
        .arg(&home)
        .env("CODEX_HOME", home.join("nowhere"))
        .output()
        .unwrap();
    let listed: Vec<Value> = serde_json::from_slice(&moved.stdout).unwrap();
    assert_eq!(listed.len(), 1);
    std::fs::remove_dir_all(&home).unwrap();
}

/// `toolnorm index --db DB --home HOME`: its summary line.
fn index(db: &Path, home: &Path) -> String {
    index_counts(db, &["--home".as_ref(), home.as_os_str()])
}

#[test]
fn the_index_reads_only_what_changed_and_equals_the_files() {
    let base = std::env::temp_dir().join(format!("toolnorm-index-{}", std::process::id()));
    with_each_database_and_home(&base, "changes", changes);
}

/// Through appends, a cut and a delete, the index in `db` of the stores under `home`.
fn changes(db: &Path, home: &Path) {
    let transcript = home.join(".claude/projects/-w/s1.jsonl");
    let rollout = home.join(".codex/sessions/2026/01/01/rollout-a.jsonl");
    let full =
        std::fs::read_to_string(root().join("fixtures/claude-code-transcript/subagent.jsonl"))
            .unwrap();
    let lines: Vec<&str> = full.split_inclusive('\n').collect();
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    std::fs::write(&transcript, lines[..lines.len() / 2].concat()).unwrap();
    place(
        home,
        "codex-rollout/subagent.jsonl",
        ".codex/sessions/2026/01/01/rollout-a.jsonl",
    );
    let same_as_files = || {
        let indexed = stats_json(&["--db".as_ref(), db.as_os_str()]);
        let files = stats_json(&[transcript.as_os_str(), rollout.as_os_str()]);
        assert_eq!(indexed, files, "stats of the index and of the files");
    };

    let first = index(db, home);
    assert!(
        first.starts_with("2 new, 0 grown, 0 rewritten, 0 unchanged, 0 removed"),
        "{first}"
    );
    same_as_files();
    // The fixture's calls are of 2026-01-01.
    let since = |date: &str| -> usize {
        let output = toolnorm()
            .args(["sessions", "--json", "--since", date, "--db"])
            .arg(db)
            .output()
            .unwrap();
        serde_json::from_slice::<Vec<Value>>(&output.stdout)
            .unwrap()
            .len()
    };
    assert_eq!((since("2025-12-31"), since("2026-01-02")), (2, 0));
    assert_eq!(
        index(db, home),
        "0 new, 0 grown, 0 rewritten, 2 unchanged, 0 removed session(s); 0 call(s) added, 0 updated"
    );

    // Appended to: read again, its calls updated and added.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&transcript)
        .unwrap();
    file.write_all(lines[lines.len() / 2..].concat().as_bytes())
        .unwrap();
    drop(file);
    let grown = index(db, home);
    assert!(
        grown.starts_with("0 new, 1 grown, 0 rewritten, 1 unchanged, 0 removed"),
        "{grown}"
    );
    same_as_files();

    // Cut short: read again whole.
    std::fs::write(&transcript, lines[..2].concat()).unwrap();
    let cut = index(db, home);
    assert!(
        cut.starts_with("0 new, 0 grown, 1 rewritten, 1 unchanged, 0 removed"),
        "{cut}"
    );
    same_as_files();

    // Gone: dropped from the index.
    std::fs::remove_file(&rollout).unwrap();
    let removed = index(db, home);
    assert!(
        removed.starts_with("0 new, 0 grown, 0 rewritten, 1 unchanged, 1 removed"),
        "{removed}"
    );
    let listed = toolnorm()
        .args(["sessions", "--json", "--db"])
        .arg(db)
        .output()
        .unwrap();
    let listed: Vec<Value> = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["agent"], "claude-code");
}

#[test]
fn an_index_of_a_newer_schema_is_refused() {
    let dir = std::env::temp_dir().join(format!("toolnorm-schema-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("index.sqlite");
    let connection = rusqlite::Connection::open(&db).unwrap();
    connection
        .execute_batch("PRAGMA user_version = 99")
        .unwrap();
    drop(connection);
    let output = toolnorm()
        .args(["sessions", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("index schema 99 is newer than this toolnorm's (2)"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_index_sends_what_it_reads_to_a_collector() {
    use prost::Message;
    use toolnorm_adapters::otlp::tonic::collector::trace::v1::ExportTraceServiceRequest;

    let home = std::env::temp_dir().join(format!("toolnorm-index-otel-{}", std::process::id()));
    let db = home.join("index.sqlite");
    place(
        &home,
        "claude-code-transcript/subagent.jsonl",
        ".claude/projects/-w/s1.jsonl",
    );
    let (url, collector) = crate::export::collector(vec![(200, Vec::new())]);
    let output = toolnorm()
        .args(["index", "--otlp-endpoint", &url, "--db"])
        .arg(&db)
        .arg("--home")
        .arg(&home)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let received = collector.join().unwrap();
    let sent = ExportTraceServiceRequest::decode(&received[0].body[..]).unwrap();
    let spans: Vec<_> = toolnorm_adapters::otel_spans([sent]).collect();
    let names: Vec<&str> = spans.iter().map(|span| span.name.as_str()).collect();
    // The calls in the order first seen, then the session's root.
    assert_eq!(
        names,
        [
            "execute_tool Task",
            "execute_tool Bash",
            "invoke_agent claude-code"
        ]
    );
    assert_eq!(
        spans[1].parent_span_id, spans[0].span_id,
        "the subagent's call under its Task"
    );
    assert_eq!(spans[0].parent_span_id, spans[2].span_id);
    // Nothing changed: nothing is read, nothing sent (the collector would not answer).
    let again = toolnorm()
        .args(["index", "--otlp-endpoint", &url, "--db"])
        .arg(&db)
        .arg("--home")
        .arg(&home)
        .output()
        .unwrap();
    assert!(again.status.success(), "{again:?}");
    let stderr = String::from_utf8(again.stderr).unwrap();
    assert!(
        stderr.contains("exported 0 span(s) in 0 request(s)"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&home).unwrap();
}

#[test]
fn view_shows_a_session_of_the_index_as_it_shows_its_file() {
    let dir = std::env::temp_dir().join(format!("toolnorm-view-db-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let file = dir.join("sessions/rollout.jsonl");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::copy(root().join("fixtures/codex-rollout/subagent.jsonl"), &file).unwrap();
    for db in databases::each(&dir, "view") {
        view_from(&db, &file);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `view --db DB` of the session `file`, indexed into `db`, by each of its names.
fn view_from(db: &Path, file: &Path) {
    let output = toolnorm()
        .args(["index", "--db"])
        .arg(db)
        .arg(file)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let page = |args: &[&std::ffi::OsStr]| {
        let output = toolnorm().arg("view").args(args).output().unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let from_file = page(&[file.as_os_str()]);
    let by_path = page(&["--db".as_ref(), db.as_os_str(), file.as_os_str()]);
    assert_eq!(by_path, from_file);
    let session_id = session_id_of(file);
    let by_session_id = page(&["--db".as_ref(), db.as_os_str(), session_id.as_ref()]);
    assert_eq!(by_session_id, from_file);
    let by_index_id = page(&["--db".as_ref(), db.as_os_str(), "1".as_ref()]);
    assert_eq!(by_index_id, from_file);
    let missing = toolnorm()
        .args(["view", "--db"])
        .arg(db)
        .arg("no-such-session")
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("no session `no-such-session`"),
        "{missing:?}"
    );
}

/// The provider's session id of a session file, as `normalize` reads it.
fn session_id_of(file: &Path) -> String {
    let output = toolnorm().arg("normalize").arg(file).output().unwrap();
    let first: Value = serde_json::from_str(
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    first["metadata"]["sessionId"].as_str().unwrap().to_owned()
}

#[test]
fn stats_of_the_index_are_stats_of_the_files_over_every_session_recording() {
    let dir = std::env::temp_dir().join(format!("toolnorm-index-all-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for db in databases::each(&dir, "recordings") {
        stats_equal_over_recordings(&db);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The session recordings of six agents indexed into `db`: `stats --db` is `stats` over
/// their files.
fn stats_equal_over_recordings(db: &Path) {
    // The recordings of session files: approvals asked, granted, denied and cancelled,
    // failed calls with their codes, subagents, durations.
    let folders: Vec<PathBuf> = [
        "claude-code-transcript",
        "codex-rollout",
        "gemini-cli-session",
        "pi-session",
        "droid-session",
        "copilot-session",
    ]
    .iter()
    .map(|name| root().join("fixtures").join(name))
    .collect();
    let output = toolnorm()
        .args(["index", "--db"])
        .arg(db)
        .args(&folders)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let indexed = stats_json(&["--db".as_ref(), db.as_os_str()]);
    let folders: Vec<&std::ffi::OsStr> = folders.iter().map(|path| path.as_os_str()).collect();
    let files = stats_json(&folders);
    assert!(
        files["approvals"].as_array().unwrap().len() > 1,
        "{}",
        files["approvals"]
    );
    assert!(files["errorCodes"].as_object().unwrap().len() > 3);
    assert_eq!(indexed, files);
}

#[test]
fn an_index_of_an_older_schema_is_migrated_when_opened() {
    let dir = std::env::temp_dir().join(format!("toolnorm-migrate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let db = dir.join("index.sqlite");
    let folder = root().join("fixtures/codex-rollout");
    let output = toolnorm()
        .args(["index", "--db"])
        .arg(&db)
        .arg(&folder)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let expected = stats_json(&["--db".as_ref(), db.as_os_str()]);
    // Back to schema 1: no approval column.
    let connection = rusqlite::Connection::open(&db).unwrap();
    connection
        .execute_batch("ALTER TABLE calls DROP COLUMN approval; PRAGMA user_version = 1;")
        .unwrap();
    drop(connection);
    let migrated = stats_json(&["--db".as_ref(), db.as_os_str()]);
    assert_eq!(migrated, expected);
    assert!(!migrated["approvals"].as_array().unwrap().is_empty());
    let connection = rusqlite::Connection::open(&db).unwrap();
    let version: i64 = connection
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap();
    assert_eq!(version, 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_index_run_killed_midway_leaves_every_session_as_one_run_stored_it() {
    let dir = std::env::temp_dir().join(format!("toolnorm-killed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let sessions = dir.join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let db = dir.join("index.sqlite");
    let full =
        std::fs::read_to_string(root().join("fixtures/codex-rollout/subagent.jsonl")).unwrap();
    let lines: Vec<&str> = full.split_inclusive('\n').collect();
    let half = lines[..lines.len() / 2].concat();
    let calls_of = |text: &str| -> u64 {
        let path = dir.join("probe.jsonl");
        std::fs::write(&path, text).unwrap();
        let output = toolnorm().arg("normalize").arg(&path).output().unwrap();
        std::fs::remove_file(&path).unwrap();
        String::from_utf8(output.stdout).unwrap().lines().count() as u64
    };
    let (half_calls, full_calls) = (calls_of(&half), calls_of(&full));
    assert!(half_calls < full_calls);
    let files: Vec<PathBuf> = (0..300)
        .map(|n| sessions.join(format!("s{n:04}.jsonl")))
        .collect();
    for file in &files {
        std::fs::write(file, &half).unwrap();
    }
    let output = toolnorm()
        .args(["index", "--db"])
        .arg(&db)
        .arg(&sessions)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    // Every session grows; the run reading them again is killed once it stored some.
    for file in &files {
        std::fs::write(file, &full).unwrap();
    }
    let mut run = std::process::Command::new(env!("CARGO_BIN_EXE_toolnorm"))
        .args(["index", "--db"])
        .arg(&db)
        .arg(&sessions)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let reader =
        rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    reader
        .busy_timeout(std::time::Duration::from_secs(5))
        .unwrap();
    loop {
        let grown: i64 = reader
            .query_row(
                "SELECT count(*) FROM sessions WHERE calls = ?1",
                [full_calls as i64],
                |row| row.get(0),
            )
            .unwrap();
        if grown > 0 || run.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let _ = run.kill();
    let _ = run.wait();
    drop(reader);
    // Each session is as one run stored it: its calls those of the bytes it read.
    let connection = rusqlite::Connection::open(&db).unwrap();
    let check: String = connection
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let mut statement = connection
        .prepare("SELECT s.calls, s.files, (SELECT count(*) FROM calls c WHERE c.session = s.id) FROM sessions s")
        .unwrap();
    let rows: Vec<(u64, String, u64)> = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    drop(statement);
    drop(connection);
    assert_eq!(rows.len(), files.len());
    let mut stale = 0;
    for (calls, stored_files, call_rows) in &rows {
        let stored: Value = serde_json::from_str(stored_files).unwrap();
        let bytes = stored[0]["bytes"].as_u64().unwrap();
        assert_eq!(calls, call_rows, "the session's count is its call rows'");
        if bytes == half.len() as u64 {
            assert_eq!(*calls, half_calls);
            stale += 1;
        } else {
            assert_eq!(bytes, full.len() as u64);
            assert_eq!(*calls, full_calls);
        }
    }
    eprintln!(
        "killed with {stale} of {} sessions not yet stored again",
        files.len()
    );
    // The next run reads the sessions the killed one did not store, and only those.
    let next = index_counts(&db, &[sessions.as_os_str()]);
    assert!(
        next.starts_with(&format!(
            "0 new, {stale} grown, 0 rewritten, {} unchanged, 0 removed",
            files.len() - stale
        )),
        "{next}"
    );
    let indexed = stats_json(&["--db".as_ref(), db.as_os_str()]);
    let from_files = stats_json(&[sessions.as_os_str()]);
    assert_eq!(indexed["calls"], from_files["calls"]);
    assert_eq!(indexed["tools"], from_files["tools"]);
    let _ = std::fs::remove_dir_all(&dir);
}

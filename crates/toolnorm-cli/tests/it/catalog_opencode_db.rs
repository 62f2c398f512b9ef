//! `toolnorm index` of OpenCode's database: each session is one, read again when its rows
//! change and dropped when the database no longer holds it, in SQLite and PostgreSQL.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use serde_json::Value;

use crate::common::{index_counts, root, stats_json, toolnorm, with_each_database_and_home};

#[test]
fn each_session_of_an_opencode_database_is_indexed_and_kept_up_to_date() {
    let base = std::env::temp_dir().join(format!("toolnorm-index-ocdb-{}", std::process::id()));
    with_each_database_and_home(&base, "opencode_db", follows_the_database);
}

/// Through a part added to one session and another session deleted, the index in `db`
/// of the OpenCode store under `home`.
fn follows_the_database(db: &Path, home: &Path) {
    let store = home.join(".local/share/opencode/opencode.db");
    std::fs::create_dir_all(store.parent().unwrap()).unwrap();
    std::fs::copy(
        root().join("fixtures/opencode-db/1.18.33/opencode.db"),
        &store,
    )
    .unwrap();
    let home_arg = [std::ffi::OsStr::new("--home"), home.as_os_str()];
    let same_as_database = || {
        let indexed = stats_json(&["--db".as_ref(), db.as_os_str()]);
        let read = stats_json(&[store.as_os_str()]);
        assert_eq!(
            indexed["calls"], read["calls"],
            "calls of the index and of the database"
        );
        assert_eq!(
            indexed["tools"], read["tools"],
            "tools of the index and of the database"
        );
    };

    let first = index_counts(db, &home_arg);
    assert_eq!(
        first,
        "15 new, 0 grown, 0 rewritten, 0 unchanged, 0 removed session(s); 17 call(s) added, 0 updated"
    );
    same_as_database();
    assert!(
        index_counts(db, &home_arg)
            .starts_with("0 new, 0 grown, 0 rewritten, 15 unchanged, 0 removed")
    );

    // OpenCode writes: a part added to one session, a session (with no child) deleted.
    let connection = rusqlite::Connection::open(&store).unwrap();
    connection
        .execute_batch("PRAGMA foreign_keys = ON")
        .unwrap();
    let leaf: String = connection
        .query_row(
            "SELECT id FROM session WHERE id NOT IN \
             (SELECT parent_id FROM session WHERE parent_id IS NOT NULL) \
             ORDER BY time_created, id LIMIT 1",
            [],
            |row| row.get(0),
        )
        .unwrap();
    let (grown, part): (String, String) = connection
        .query_row(
            "SELECT session_id, id FROM part WHERE session_id <> ?1 ORDER BY id LIMIT 1",
            [&leaf],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    connection
        .execute(
            "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) \
             SELECT id || 'z', message_id, session_id, time_created, time_updated + 1, data \
             FROM part WHERE id = ?1",
            [&part],
        )
        .unwrap();
    connection
        .execute("DELETE FROM session WHERE id = ?1", [&leaf])
        .unwrap();
    drop(connection);
    let changed = index_counts(db, &home_arg);
    assert!(
        changed.starts_with("0 new, 1 grown, 0 rewritten, 13 unchanged, 1 removed"),
        "{changed}"
    );
    same_as_database();
    let listed = toolnorm()
        .args(["sessions", "--json", "--db"])
        .arg(db)
        .output()
        .unwrap();
    let listed: Vec<Value> = serde_json::from_slice(&listed.stdout).unwrap();
    let paths: Vec<&str> = listed
        .iter()
        .filter_map(|row| row["path"].as_str())
        .collect();
    assert_eq!(paths.len(), 14);
    assert!(!paths.iter().any(|path| path.ends_with(&format!("#{leaf}"))));
    assert!(
        paths
            .iter()
            .any(|path| path.ends_with(&format!("#{grown}")))
    );

    // A run over other files keeps the database's sessions.
    let other = root().join("fixtures/opencode-run/shell-ok.jsonl");
    let others = index_counts(db, &[other.as_os_str()]);
    assert!(
        others.starts_with("1 new, 0 grown, 0 rewritten, 0 unchanged, 0 removed"),
        "{others}"
    );
    // And the database gone, its sessions go.
    std::fs::remove_file(&store).unwrap();
    let gone = index_counts(db, &home_arg);
    assert!(gone.contains(", 14 removed"), "{gone}");
}

//! What several test files do alike: find the workspace, run the binary in it, make a
//! scratch folder, run `toolnorm normalize`, `toolnorm index` and `toolnorm stats --json`, and take a file's
//! state on disk.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use assert_cmd::Command;
use serde_json::Value;

use crate::databases;

/// The workspace's root folder.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `toolnorm` binary, run in the workspace, with no agent's home named by the
/// environment (`XDG_DATA_HOME`, `CODEX_HOME`, `CLAUDE_CONFIG_DIR`): a `--home` the test
/// names is the only one looked in.
pub fn toolnorm() -> Command {
    let mut command = Command::cargo_bin("toolnorm").unwrap();
    command
        .current_dir(root())
        .env_remove("XDG_DATA_HOME")
        .env_remove("CODEX_HOME")
        .env_remove("CLAUDE_CONFIG_DIR");
    command
}

/// A scratch folder `toolnorm-<name>-<process id>` in the temporary folder, made empty.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolnorm-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `toolnorm normalize ARGS`: its status code, stdout and stderr.
pub fn normalize(args: &[&OsStr]) -> (Option<i32>, String, String) {
    let output = toolnorm().arg("normalize").args(args).output().unwrap();
    (
        output.status.code(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// `toolnorm index --db DB ARGS…`, which must succeed: its counts (`N new, …
/// session(s); … updated`).
pub fn index_counts(db: &Path, args: &[&OsStr]) -> String {
    let output = toolnorm()
        .args(["index", "--db"])
        .arg(db)
        .args(args)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    let (_, counts) = stderr.split_once(": ").unwrap();
    let (_, counts) = counts.split_once(": ").unwrap();
    counts.trim_end().to_owned()
}

/// `toolnorm stats --json ARGS…`, which must succeed: its document.
pub fn stats_json(args: &[&OsStr]) -> Value {
    let output = toolnorm()
        .args(["stats", "--json"])
        .args(args)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The bytes and modification time of a file, and the names in its folder.
pub fn file_state(path: &Path) -> (Vec<u8>, SystemTime, Vec<String>) {
    let mut names: Vec<String> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let modified = std::fs::metadata(path).unwrap().modified().unwrap();
    (std::fs::read(path).unwrap(), modified, names)
}

/// Runs `check` with each database of test `name` (see [`databases::each`]) and a home
/// folder of its own, `base/home-<n>`; then removes `base`.
pub fn with_each_database_and_home(base: &Path, name: &str, check: impl Fn(&Path, &Path)) {
    for (n, db) in databases::each(base, name).iter().enumerate() {
        check(db, &base.join(format!("home-{n}")));
    }
    let _ = std::fs::remove_dir_all(base);
}

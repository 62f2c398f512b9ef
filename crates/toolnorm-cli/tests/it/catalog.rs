//! `toolnorm sessions`: every known agent's session files under a home folder, one row
//! per session (a Claude Code session's subagent transcripts with it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn toolnorm() -> Command {
    let mut command = Command::cargo_bin("toolnorm").unwrap();
    command
        .current_dir(root())
        .env_remove("CODEX_HOME")
        .env_remove("CLAUDE_CONFIG_DIR");
    command
}

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

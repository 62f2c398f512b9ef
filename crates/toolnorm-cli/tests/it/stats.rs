//! `toolnorm stats`: tool usage across sessions, as tables and `--json` (goldens).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use assert_cmd::Command;

fn toolnorm() -> Command {
    let mut command = Command::cargo_bin("toolnorm").unwrap();
    command.current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."));
    command
}

/// Three providers' recordings, directories and a file.
const INPUTS: &[&str] = &[
    "fixtures/claude-code",
    "fixtures/codex-app-server",
    "fixtures/opencode-serve/subagent.jsonl",
];

#[test]
fn stats_table_golden() {
    let output = toolnorm().arg("stats").args(INPUTS).output().unwrap();
    assert!(output.status.success());
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    insta::assert_snapshot!("stats__table", String::from_utf8(output.stdout).unwrap());
}

#[test]
fn stats_json_golden_counts_every_call_once() {
    let output = toolnorm()
        .args(["stats", "--json", "--longest", "5"])
        .args(INPUTS)
        .output()
        .unwrap();
    assert!(output.status.success());
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    // The same calls as `normalize` writes, file by file.
    let mut calls = 0;
    let mut errors = 0;
    for input in INPUTS {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(input);
        let files: Vec<PathBuf> = if root.is_dir() {
            std::fs::read_dir(&root)
                .unwrap()
                .map(|entry| entry.unwrap().path())
                .collect()
        } else {
            vec![root]
        };
        for file in files {
            let parts = toolnorm().arg("normalize").arg(&file).output().unwrap();
            for line in String::from_utf8(parts.stdout).unwrap().lines() {
                let part: serde_json::Value = serde_json::from_str(line).unwrap();
                calls += 1;
                errors += u64::from(part["state"] == "error");
            }
        }
    }
    assert_eq!(report["calls"], calls);
    assert_eq!(report["errors"], errors);
    let by_tool: u64 = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["calls"].as_u64().unwrap())
        .sum();
    assert_eq!(by_tool, calls);
    assert_eq!(report["longest"].as_array().unwrap().len(), 5);
    insta::assert_json_snapshot!("stats__json", report);
}

#[test]
fn an_unreadable_file_is_named_and_the_rest_still_counted() {
    let output = toolnorm()
        .args([
            "stats",
            "--json",
            "fixtures/claude-code/shell-ok.jsonl",
            "no/such.jsonl",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("toolnorm: no/such.jsonl: No such file or directory"),
        "{stderr}"
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["sessions"], 1);
    assert_eq!(report["calls"], 1);
}

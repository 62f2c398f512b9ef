//! `toolnorm stats`: tool usage across sessions, as tables and `--json` (goldens).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use crate::common::toolnorm;

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
        stderr.contains("not read: 1 file\n  no/such.jsonl: No such file or directory\n"),
        "{stderr}"
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["sessions"], 1);
    assert_eq!(report["calls"], 1);
}

/// How many lines of an unknown event type follow each line of the noisy file.
const UNKNOWN_PER_LINE: usize = 40;

/// A folder as a real one looks: recorded sessions of two providers, one of them with a
/// tool of a long name, one with a line of an unknown event type after each of its lines
/// and a line cut short; a JSON Lines log of another program; an empty file.
fn real_folder(name: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("stats")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["claude", "codex"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    for (from, to) in [
        (
            "fixtures/claude-code/shell-ok.jsonl",
            "claude/shell-ok.jsonl",
        ),
        (
            "fixtures/claude-code/read-missing.jsonl",
            "claude/read-missing.jsonl",
        ),
        ("fixtures/codex-exec/shell-ok.jsonl", "codex/shell-ok.jsonl"),
        ("fixtures/codex-exec/parallel.jsonl", "codex/parallel.jsonl"),
    ] {
        std::fs::copy(root.join(from), dir.join(to)).unwrap();
    }
    let mcp = std::fs::read_to_string(root.join("fixtures/claude-code/mcp-error.jsonl")).unwrap();
    std::fs::write(
        dir.join("claude/mcp-long-name.jsonl"),
        mcp.replace(
            "mcp__toolbox__divide",
            "mcp__a_server_with_a_long_name__divide_two_numbers",
        ),
    )
    .unwrap();
    let edit = std::fs::read_to_string(root.join("fixtures/claude-code/edit-file.jsonl")).unwrap();
    let mut noisy = String::new();
    for (at, line) in edit.lines().enumerate() {
        noisy.push_str(line);
        noisy.push('\n');
        if at == 1 {
            noisy.push_str("{\"type\":\"assistant\",\"message\":\n");
        }
        for n in 0..UNKNOWN_PER_LINE {
            noisy.push_str(&format!("{{\"type\":\"heartbeat\",\"seq\":{n}}}\n"));
        }
    }
    std::fs::write(dir.join("claude/noisy.jsonl"), noisy).unwrap();
    std::fs::write(
        dir.join("app-log.jsonl"),
        "{\"level\":\"info\",\"msg\":\"server started\",\"port\":8080}\n\
         {\"level\":\"warn\",\"msg\":\"slow request\",\"ms\":1200}\n",
    )
    .unwrap();
    std::fs::write(dir.join("empty.jsonl"), "").unwrap();
    dir
}

fn noisy_lines() -> usize {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::read_to_string(root.join("fixtures/claude-code/edit-file.jsonl"))
        .unwrap()
        .lines()
        .count()
}

/// On a real folder the tables stay narrow (a long tool name cut with `…`) and stderr
/// sums the diagnostics per file and kind, errors with their line, then lists the files
/// not read; the exit status is still 3 for a file of no known dialect.
#[test]
fn stats_of_a_real_folder_golden() {
    let dir = real_folder("golden");
    let output = toolnorm()
        .current_dir(&dir)
        .args(["stats", "."])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stdout.contains("mcp__a_server_with_a_long_name_…"),
        "{stdout}"
    );
    assert!(
        stderr.contains(&format!(
            "./claude/noisy.jsonl: 1 invalid-json error, {} unknown-event notices",
            UNKNOWN_PER_LINE * noisy_lines()
        )),
        "{stderr}"
    );
    assert!(stderr.lines().count() < 10, "{stderr}");
    insta::assert_snapshot!(
        "stats__real_folder",
        format!("{stdout}--- stderr ---\n{stderr}")
    );
}

/// `--verbose` writes every diagnostic on its own line and the full reason a file was not
/// read.
#[test]
fn stats_verbose_lists_every_diagnostic() {
    let dir = real_folder("verbose");
    let output = toolnorm()
        .current_dir(&dir)
        .args(["stats", "--verbose", "."])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    let stderr = String::from_utf8(output.stderr).unwrap();
    let notices = stderr
        .lines()
        .filter(|line| {
            line.starts_with("./claude/noisy.jsonl: line ") && line.contains(": notice: ")
        })
        .count();
    assert_eq!(notices, UNKNOWN_PER_LINE * noisy_lines(), "{stderr}");
    assert!(
        stderr.contains("  ./app-log.jsonl: no line is an event toolnorm reads"),
        "{stderr}"
    );
}

/// `--json` keeps everything: every line of each kind of diagnostic per file, every error
/// with its message, and each file not read with its reason.
#[test]
fn stats_json_has_the_diagnostics_per_file_and_the_files_not_read() {
    let dir = real_folder("json");
    let output = toolnorm()
        .current_dir(&dir)
        .args(["stats", "--json", "."])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["sessions"], 6);
    let files = report["diagnostics"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{files:?}");
    let noisy = &files[0];
    assert_eq!(noisy["file"], "./claude/noisy.jsonl");
    assert_eq!(noisy["errors"], 1);
    let unknown = noisy["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|kind| kind["kind"] == "unknown-event")
        .unwrap();
    assert_eq!(unknown["severity"], "notice");
    let count = UNKNOWN_PER_LINE * noisy_lines();
    assert_eq!(unknown["count"], count);
    assert_eq!(unknown["lines"].as_array().unwrap().len(), count);
    // The second line, the unknown ones after the first, then the line cut short.
    assert_eq!(noisy["errorList"][0]["line"], UNKNOWN_PER_LINE + 3);
    assert_eq!(noisy["errorList"][0]["kind"], "invalid-json");
    let unread: Vec<(&str, &str)> = report["unread"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| {
            (
                file["file"].as_str().unwrap(),
                file["reason"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        unread,
        [
            ("./app-log.jsonl", "no-known-dialect"),
            ("./empty.jsonl", "empty")
        ]
    );
}

//! `toolnorm normalize FILE|DIR...`: many files at once, in parallel, in a fixed order.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;

use crate::common::{self, root};

fn toolnorm() -> Command {
    let mut command = common::toolnorm();
    command.env_remove("RAYON_NUM_THREADS");
    command
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("many")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Several dialects, two directories and a file.
const INPUTS: &[&str] = &[
    "fixtures/claude-code-transcript",
    "fixtures/codex-exec",
    "fixtures/opencode-serve/subagent.jsonl",
];

/// The files `INPUTS` names, in the order they are read: each directory's sorted.
fn files() -> Vec<String> {
    let mut files = Vec::new();
    for input in INPUTS {
        let path = root().join(input);
        if path.is_dir() {
            let mut found: Vec<String> = std::fs::read_dir(&path)
                .unwrap()
                .map(|entry| format!("{input}/{}", entry.unwrap().file_name().to_string_lossy()))
                .filter(|name| name.ends_with(".jsonl"))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push((*input).to_owned());
        }
    }
    files
}

fn normalize(args: &[&str]) -> Output {
    toolnorm().arg("normalize").args(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn every_call_of_every_file_in_file_order_with_its_source() {
    let output = normalize(INPUTS);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(output.stderr.is_empty(), "{}", text(&output.stderr));
    let mut expected = Vec::new();
    for file in files() {
        let single = normalize(&[&file]);
        assert!(single.status.success());
        for line in text(&single.stdout).lines() {
            expected.push((file.clone(), serde_json::from_str::<Value>(line).unwrap()));
        }
    }
    let got: Vec<Value> = text(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(got.len(), expected.len());
    assert!(expected.len() > 40);
    for (mut part, (file, single)) in got.into_iter().zip(expected) {
        let metadata = part["metadata"].as_object_mut().unwrap();
        // The one difference from reading the file alone: the file it came from.
        assert_eq!(metadata.remove("source"), Some(Value::from(file)));
        if metadata.is_empty() {
            part.as_object_mut().unwrap().remove("metadata");
        }
        assert_eq!(part, single);
    }
}

#[test]
fn the_order_is_the_same_whatever_the_threads_in_every_format() {
    for format in [
        "parts", "updates", "events", "pretty", "acp", "ai-sdk", "ag-ui",
    ] {
        let runs: Vec<Output> = ["1", "2", "3", "2"]
            .iter()
            .map(|threads| {
                let mut args = vec!["--format", format, "--threads", threads];
                args.extend(INPUTS);
                normalize(&args)
            })
            .collect();
        for run in &runs {
            assert!(run.status.success(), "{format}: {}", text(&run.stderr));
            assert_eq!(run.stdout, runs[0].stdout, "{format}");
        }
        assert!(!runs[0].stdout.is_empty());
    }
}

#[test]
fn each_files_output_is_contiguous_and_its_own_stream() {
    // In `ag-ui` each file is one run: its `RUN_STARTED` … `RUN_FINISHED`, in file order.
    let output = normalize(&["--format", "ag-ui", "fixtures/codex-exec"]);
    assert!(output.status.success());
    let mut threads = Vec::new();
    let mut open = None;
    for line in text(&output.stdout).lines() {
        let event: Value = serde_json::from_str(line).unwrap();
        match event["type"].as_str().unwrap() {
            "RUN_STARTED" => {
                assert_eq!(open, None, "a run opened inside another");
                open = Some(event["threadId"].as_str().unwrap().to_owned());
            }
            "RUN_FINISHED" => {
                threads.push(open.take().unwrap());
            }
            _ => assert!(open.is_some() || threads.is_empty()),
        }
    }
    let codex: Vec<String> = files()
        .into_iter()
        .filter(|file| file.starts_with("fixtures/codex-exec/"))
        .collect();
    // Each file's thread is the file (no `--session-id` given), in sorted order.
    assert_eq!(threads, codex);
}

#[test]
fn sse_ai_sdk_ends_once_after_the_last_file() {
    let output = normalize(&["--format", "ai-sdk", "--sse", "fixtures/codex-exec"]);
    assert!(output.status.success());
    let stdout = text(&output.stdout);
    assert_eq!(stdout.matches("data: [DONE]").count(), 1);
    assert!(stdout.ends_with("data: [DONE]\n\n"));
}

#[test]
fn pretty_heads_each_file_and_counts_each_and_all() {
    let output = normalize(&[
        "--format",
        "pretty",
        "--color",
        "never",
        "fixtures/codex-exec/shell-ok.jsonl",
        "fixtures/codex-exec/read-file.jsonl",
    ]);
    assert!(output.status.success());
    let stdout = text(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.first(), Some(&"fixtures/codex-exec/shell-ok.jsonl"));
    assert!(lines.contains(&"fixtures/codex-exec/read-file.jsonl"));
    let per_file = lines
        .iter()
        .filter(|line| line.contains(" lines: "))
        .count();
    assert_eq!(per_file, 3, "{stdout}");
    let last = lines.last().unwrap();
    assert!(last.starts_with("2 files, "), "{last}");
    // The total is the sum of the two files' lines.
    let count = |file: &str| {
        text(&std::fs::read(root().join(file)).unwrap())
            .lines()
            .count()
    };
    let total =
        count("fixtures/codex-exec/shell-ok.jsonl") + count("fixtures/codex-exec/read-file.jsonl");
    assert!(
        last.starts_with(&format!("2 files, {total} lines: ")),
        "{last}"
    );
}

/// A folder of one good recording, one with a bad line, one of no known dialect.
fn mixed(name: &str) -> PathBuf {
    let dir = scratch(name);
    let good = root().join("fixtures/codex-exec/shell-ok.jsonl");
    std::fs::copy(&good, dir.join("a-good.jsonl")).unwrap();
    let mut bad = std::fs::read(&good).unwrap();
    bad.extend_from_slice(b"{not json\n");
    std::fs::write(dir.join("b-bad-line.jsonl"), bad).unwrap();
    std::fs::write(dir.join("c-prose.jsonl"), "hello\nworld\n").unwrap();
    std::fs::copy(
        root().join("fixtures/claude-code/read-file.jsonl"),
        dir.join("d-after.jsonl"),
    )
    .unwrap();
    dir
}

#[test]
fn diagnostics_name_the_file_and_a_bad_file_does_not_stop_the_others() {
    let dir = mixed("bad");
    let missing = dir.join("missing.jsonl");
    let output = toolnorm()
        .arg("normalize")
        .arg(&dir)
        .arg(&missing)
        .output()
        .unwrap();
    // A file that could not be read is the worst: exit status 2.
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    let name = |file: &str| dir.join(file).display().to_string();
    let bad = name("b-bad-line.jsonl");
    let lines = std::fs::read_to_string(dir.join("b-bad-line.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert!(
        stderr.contains(&format!("{bad}: line {lines}: ")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("toolnorm: {bad}: {lines} lines: ")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "toolnorm: {}: no line is an event",
            name("c-prose.jsonl")
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("toolnorm: {}: ", missing.display())),
        "{stderr}"
    );
    assert!(
        stderr.contains("toolnorm: 5 files (2 not read), "),
        "{stderr}"
    );
    // Every call of the readable files, the one after the bad ones included.
    let sources: Vec<String> = text(&output.stdout)
        .lines()
        .map(|line| {
            let part: Value = serde_json::from_str(line).unwrap();
            part["metadata"]["source"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(
        sources,
        [
            name("a-good.jsonl"),
            name("b-bad-line.jsonl"),
            name("d-after.jsonl")
        ]
    );
    // Without the missing file: only a file of no known dialect, exit status 3.
    let output = toolnorm().arg("normalize").arg(&dir).output().unwrap();
    assert_eq!(output.status.code(), Some(3));
    // `--strict` fails on the bad line only once everything else is fine.
    std::fs::remove_file(dir.join("c-prose.jsonl")).unwrap();
    let output = toolnorm()
        .args(["normalize", "--strict"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn the_audit_file_names_the_source_of_each_line() {
    let dir = mixed("audit");
    std::fs::remove_file(dir.join("c-prose.jsonl")).unwrap();
    let audit = dir.join("audit.tsv");
    let output = toolnorm()
        .arg("normalize")
        .arg("--audit")
        .arg(&audit)
        .arg(dir.join("a-good.jsonl"))
        .arg(dir.join("b-bad-line.jsonl"))
        .output()
        .unwrap();
    assert!(output.status.success());
    let lines = std::fs::read_to_string(dir.join("b-bad-line.jsonl"))
        .unwrap()
        .lines()
        .count();
    let written = std::fs::read_to_string(&audit).unwrap();
    let bad = dir.join("b-bad-line.jsonl");
    assert_eq!(written, format!("{}\t{lines}\t{{not json\n", bad.display()));
}

#[test]
fn one_file_reads_as_before_without_a_source() {
    let output = normalize(&["fixtures/codex-exec/shell-ok.jsonl"]);
    assert!(output.status.success());
    for line in text(&output.stdout).lines() {
        let part: Value = serde_json::from_str(line).unwrap();
        assert!(part["metadata"].get("source").is_none());
    }
    // A directory is many inputs, even of one file.
    let dir = scratch("one");
    std::fs::copy(
        root().join("fixtures/codex-exec/shell-ok.jsonl"),
        dir.join("only.jsonl"),
    )
    .unwrap();
    let output = toolnorm().arg("normalize").arg(&dir).output().unwrap();
    let source = dir.join("only.jsonl").display().to_string();
    let part: Value = serde_json::from_str(text(&output.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(part["metadata"]["source"], Value::from(source));
}
